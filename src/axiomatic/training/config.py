"""Training configuration: a dataclass, TOML I/O and safe parsing of regularizer strings.

Regularizer / augmentation strings look like function calls::

    ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)
    perturb(axioms=TFC1-A,TFC1-D)
    diagnostic(mode=paired-delta, delta_max=0.1, axioms=TFC1)

They are parsed without ``eval``: values go through :func:`ast.literal_eval` (numbers, strings,
booleans), and bare words such as axiom names stay strings; a comma-separated run of bare words
after ``key=`` is one list value.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from axiomatic._params import ParamInfo, dataclass_params, param_meta, shown
from axiomatic._registry import Registry
from axiomatic._suggest import suggest

LOSSES: Registry[str] = Registry(
    "loss",
    {
        "hinge": "pairwise hinge (Rosset et al. 2019, eq. 2)",
        "mse": "pointwise squared error to the relevance label",
        "softmax": "listwise softmax cross-entropy over a query's sampled list",
        "graded": "a graded (ordinal) loss of training.smooth, chosen by graded_loss",
        "contrastive": "ACRank's InfoNCE over the generated and labelled negatives",
    },
)
"""The training objectives (``TrainConfig.loss``) by name; the strategy each selects is
:func:`axiomatic.training.strategies.default_strategy`."""
OPTIMIZERS: Registry[str] = Registry(
    "optimizer", {"adam": "Adam", "adamw": "AdamW (decoupled weight decay)"}
)

AR_NORMALIZATIONS = ("applicable", "batch")
"""How :class:`~axiomatic.training.losses.AxiomaticRegularizationLoss` averages its masked
terms (see its docstring); kept here, free of torch, for the settings that name one."""


@dataclass(frozen=True)
class CallSpec:
    """A parsed ``name(key=value, ...)`` string."""

    name: str
    params: dict[str, Any]

    def __str__(self) -> str:
        def fmt(v: Any) -> str:
            if isinstance(v, (list, tuple)):
                return ",".join(str(x) for x in v)
            return str(v)

        inner = ", ".join(f"{k}={fmt(v)}" for k, v in self.params.items())
        return f"{self.name}({inner})"


def parse_call(spec: str, what: str = "regularizer") -> CallSpec:
    """Parse ``name(k=v, k2=a,b,c)`` with the shared strict grammar (:mod:`axiomatic._keyvalue`).

    Values are literals, bare words (``TFC1-A``, ``paired-delta``, ``/tmp/x``) or, after a key,
    comma-continued lists; anything else (a call, an expression) is an error, never a string.
    """
    from axiomatic._keyvalue import parse_call as parse

    name, params = parse(
        spec,
        what=what,
        example="ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC3)",
        tokens=True,
        lists=True,
    )
    return CallSpec(name.lower(), params)


@dataclass(frozen=True)
class ARSpec:
    """Axiomatic regularization settings (Rosset et al. 2019)."""

    lambda_: float = 0.1
    mu: float = 0.1
    axioms: tuple[str, ...] = ("TFC1-A", "TFC1-D", "TFC3", "LNC")
    lnc_terms: int = 3
    # "applicable" (mean over the perturbations that applied) or "batch" (over the batch size,
    # the behaviour of the published Rosset runs); see AxiomaticRegularizationLoss
    normalize: str = "applicable"


@dataclass(frozen=True)
class PerturbAugmentSpec:
    """Perturbation augmentation (Cheng & Fang 2020 'AP'): perturbed docs as extra pairs."""

    axioms: tuple[str, ...] = ("TFC1-A", "TFC1-D", "TFC3", "LNC")
    lnc_terms: int = 3
    # the mixing rate: the probability that a training document gets a perturbed copy as an
    # extra pair (1: every document, Cheng & Fang's setting)
    rate: float = 1.0


def _as_tuple(v: Any) -> tuple[str, ...]:
    if isinstance(v, (list, tuple)):
        return tuple(str(x).strip() for x in v)
    return tuple(s.strip() for s in str(v).split(",") if s.strip())


PERTURBATION_NAMES = ("TFC1-A", "TFC1-D", "TFC3", "LNC")
"""Rosset et al.'s perturbations (:data:`axiomatic.perturb.PERTURBATIONS`, named here so that
the records below need no import of the perturbation code)."""

_AXIOMS_TEXT = "the perturbations (Rosset et al.'s TFC1-A, TFC1-D, TFC3, LNC; case-insensitive)"
_K_TEXT = "noise words LNC inserts (alias lnc_terms)"

AR_PARAMS: dict[str, ParamInfo] = {
    "lambda": ParamInfo(
        "lambda",
        "float",
        ARSpec.lambda_,
        low=0,
        description="weight of the AR hinge terms (Rosset et al. eq. 4; aliases lambda_, lam)",
    ),
    "mu": ParamInfo(
        "mu",
        "float",
        ARSpec.mu,
        low=0,
        description="margin of the AR hinge: how far a perturbation should move the score",
    ),
    "axioms": ParamInfo(
        "axioms",
        "list[str]",
        ARSpec.axioms,
        choices=PERTURBATION_NAMES,
        description=_AXIOMS_TEXT + ", one drawn per document",
    ),
    "k": ParamInfo(
        "k", "int", ARSpec.lnc_terms, low=1, high=2**31, high_open=True, description=_K_TEXT
    ),
    "normalize": ParamInfo(
        "normalize",
        "str",
        ARSpec.normalize,
        choices=AR_NORMALIZATIONS,
        description="average of the AR terms over the documents whose perturbation applied, "
        "or over the batch (the published Rosset runs)",
    ),
}
"""The parameters of the regularizer ``ar(...)`` (:func:`parse_regularizer` checks them)."""

PERTURB_PARAMS: dict[str, ParamInfo] = {
    "axioms": AR_PARAMS["axioms"],
    "k": AR_PARAMS["k"],
    "rate": ParamInfo(
        "rate",
        "float",
        PerturbAugmentSpec.rate,
        low=0,
        high=1,
        description="the mixing rate: probability that a training document gets a perturbed "
        "copy as an extra pair (1: every document, Cheng & Fang's setting)",
    ),
}
"""The parameters of the augmentation ``perturb(...)`` (AP, Cheng & Fang 2020)."""


def _check_keys(spec: CallSpec, allowed: dict[str, str], what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in spec.params.items():
        if k not in allowed:
            raise ValueError(
                f"unknown {what} parameter {k!r}{suggest(k, allowed, n=2)} in {str(spec)!r}; "
                f"expected {', '.join(allowed)}"
            )
        out[allowed[k]] = v
    return out


_AR_FIELDS = {  # ARSpec's field -> the spec's parameter (its record)
    "lambda_": "lambda",
    "mu": "mu",
    "axioms": "axioms",
    "lnc_terms": "k",
    "normalize": "normalize",
}


def parse_regularizer(spec: str | None) -> ARSpec | None:
    """``"ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC, k=3)"`` -> :class:`ARSpec`."""
    from axiomatic.perturb import canonical_perturbation

    if spec is None or str(spec).strip().lower() in ("", "none"):
        return None
    call = parse_call(spec, "regularizer")
    if call.name not in ("ar", "axiomatic"):
        raise ValueError(
            f"unknown regularizer {call.name!r}; the only one is 'ar' "
            "(axiomatic regularization, Rosset et al. 2019)"
        )
    kw = _check_keys(
        call,
        {
            "lambda": "lambda_",
            "lambda_": "lambda_",
            "lam": "lambda_",
            "mu": "mu",
            "axioms": "axioms",
            "k": "lnc_terms",
            "lnc_terms": "lnc_terms",
            "normalize": "normalize",
        },
        "regularizer",
    )
    if "normalize" in kw:
        kw["normalize"] = str(kw["normalize"]).strip().lower()
    if "axioms" in kw:
        kw["axioms"] = tuple(canonical_perturbation(a) for a in _as_tuple(kw["axioms"]))
    for key, name in _AR_FIELDS.items():
        if key in kw:
            kw[key] = AR_PARAMS[name].coerce(kw[key], f"regularizer {name} in {spec!r}")
    return ARSpec(**kw)


@dataclass(frozen=True)
class DiagnosticAugmentSpec:
    """Training on mined diagnostic instances (Rennings 2019, section 4.4).

    ``mode``: ``multi-graded`` (labels 2/1/0, all pairs of different labels, unconstrained
    ratio), ``paired`` (axiom pairs 1:1 with regular pairs) or ``paired-delta`` (the same with
    ``len_diff_rel <= delta_max``). ``instances`` is the directory written by mining.

    ``delta_max`` belongs to ``paired-delta`` only (default 0.1, the thesis' value): the other
    modes train on every instance, so a ``delta_max`` given with them is refused rather than
    silently ignored.
    """

    mode: str = "paired"
    instances: str = ""
    delta_max: float | None = None
    axioms: tuple[str, ...] = ()
    # the mixing rate of the paired modes: axiom pairs per relevance pair in a batch (1: 1:1)
    rate: float = 1.0

    def __post_init__(self) -> None:
        if self.mode == "paired-delta":
            if self.delta_max is None:
                object.__setattr__(self, "delta_max", DEFAULT_DELTA_MAX)
            elif not self.delta_max >= 0:  # also refuses NaN
                raise ValueError(
                    f"diagnostic delta_max must be a number >= 0 (got {self.delta_max}); it "
                    "keeps the instances with len_diff_rel <= delta_max (0.1 in the thesis)"
                )
        elif self.delta_max is not None:
            raise ValueError(
                f"diagnostic delta_max applies only to mode=paired-delta (got mode={self.mode}, "
                f"delta_max={self.delta_max}); write mode=paired-delta to keep the instances "
                f"with len_diff_rel <= {self.delta_max}, or drop delta_max to train on every "
                "instance"
            )


DEFAULT_DELTA_MAX = 0.1
"""``paired-delta``'s bound on the instances' relative length difference (Rennings 2019)."""


AUGMENT_MODES = ("multi-graded", "paired", "paired-delta")

DIAGNOSTIC_PARAMS: dict[str, ParamInfo] = {
    "mode": ParamInfo(
        "mode",
        "str",
        DiagnosticAugmentSpec.mode,
        choices=AUGMENT_MODES,
        description="multi-graded: labels 2/1/0, all pairs of different labels; paired: the "
        "axiom pairs mixed with the relevance pairs; paired-delta: the same, instances with "
        "len_diff_rel <= delta_max only",
    ),
    "instances": ParamInfo(
        "instances",
        "str",
        DiagnosticAugmentSpec.instances,
        description="the folder of mined instances (`axiomatic mine --out`)",
    ),
    "delta_max": ParamInfo(
        "delta_max",
        "float | None",
        DiagnosticAugmentSpec.delta_max,
        low=0,
        description=f"paired-delta only: the largest relative length difference kept "
        f"(default {DEFAULT_DELTA_MAX:g}, the thesis' value)",
    ),
    "axioms": ParamInfo(
        "axioms",
        "list[str]",
        DiagnosticAugmentSpec.axioms,
        description="keep the instances of these axioms (default: every mined axiom)",
    ),
    "rate": ParamInfo(
        "rate",
        "float",
        DiagnosticAugmentSpec.rate,
        low=0,
        description="the mixing rate of the paired modes: axiom pairs per relevance pair in a "
        "batch (1: 1:1)",
    ),
}
"""The parameters of the augmentation ``diagnostic(...)`` (Rennings 2019, section 4.4)."""

ACRANK_LOSSES = ("infonce", "hinge")
ACRANK_RULE_NAMES = ("TFC-A", "TFC-D", "TFC-A&D", "none")
"""ACRank's rules (:data:`axiomatic.perturb.acrank.ACRANK_RULES`) and ``none``, named here so
that the records need no import of the perturbation code."""


@dataclass(frozen=True)
class ACRankAugmentSpec:
    """Parsed ``acrank(rule=..., p=..., loss=..., negatives=...)`` (see the module docstring)."""

    rule: str = "TFC-A&D"
    p: float = 0.5
    loss: str = "infonce"
    negatives: int | None = None


ACRANK_PARAMS: dict[str, ParamInfo] = {
    "rule": ParamInfo(
        "rule",
        "str",
        ACRankAugmentSpec.rule,
        choices=ACRANK_RULE_NAMES,
        description="TFC-A inserts query terms at the front, TFC-D deletes query-term "
        "occurrences, TFC-A&D both (quoted: rule='TFC-A&D', or rule=AD), none no edit",
    ),
    "p": ParamInfo(
        "p",
        "float",
        ACRankAugmentSpec.p,
        low=0,
        high=1,
        description="probability of each query-term edit (the paper uses 0.1-1.0)",
    ),
    "loss": ParamInfo(
        "loss",
        "str",
        ACRankAugmentSpec.loss,
        choices=ACRANK_LOSSES,
        description="infonce: ACRank's contrastive L(); hinge: the baseline loss with the "
        "edits as extra pairs (AP)",
    ),
    "negatives": ParamInfo(
        "negatives",
        "int | None",
        ACRankAugmentSpec.negatives,
        low=1,
        high=2**31,
        high_open=True,
        description="sampled non-relevant candidates per query (InfoNCE only; default "
        "list_size - 1)",
    ),
}
"""The parameters of the augmentation ``acrank(...)`` (Bo et al. 2023)."""


def parse_acrank_spec(call: CallSpec) -> ACRankAugmentSpec:
    """Validate the parameters of an ``acrank(...)`` call (clear errors for bad values)."""
    from axiomatic.perturb.acrank import canonical_rule

    allowed = tuple(ACRANK_PARAMS)
    kw: dict[str, Any] = {}
    for k, v in call.params.items():
        if k not in allowed:
            raise ValueError(
                f"unknown acrank parameter {k!r}{suggest(k, allowed, n=1, cutoff=0.6)} in "
                f"{str(call)!r}; expected {', '.join(allowed)}"
            )
        kw[k] = v
    if "rule" in kw:
        rule = kw["rule"]
        kw["rule"] = canonical_rule(
            "&".join(str(r) for r in rule) if isinstance(rule, list) else str(rule)
        )
    if "loss" in kw:
        kw["loss"] = str(kw["loss"]).strip().lower()
    for key in allowed:
        if key in kw:
            kw[key] = ACRANK_PARAMS[key].coerce(kw[key], f"acrank {key}")
    return ACRankAugmentSpec(**kw)


def parse_augmentation(spec: str | None) -> PerturbAugmentSpec | DiagnosticAugmentSpec | None:
    """``perturb(axioms=...)``, ``diagnostic(mode=paired-delta, instances=DIR, delta_max=0.1)``
    or ``acrank(...)``."""
    from axiomatic.perturb import canonical_perturbation

    if spec is None or str(spec).strip().lower() in ("", "none"):
        return None
    call = parse_call(spec, "augmentation")
    if call.name in ("perturb", "ap"):
        kw = _check_keys(
            call,
            {"axioms": "axioms", "k": "lnc_terms", "lnc_terms": "lnc_terms", "rate": "rate"},
            "augmentation",
        )
        if "axioms" in kw:
            kw["axioms"] = tuple(canonical_perturbation(a) for a in _as_tuple(kw["axioms"]))
        for key, name, what in (
            ("axioms", "axioms", f"augmentation axioms in {spec!r}"),
            ("lnc_terms", "k", f"augmentation k in {spec!r}"),
            ("rate", "rate", "perturb rate"),
        ):
            if key in kw:
                kw[key] = PERTURB_PARAMS[name].coerce(kw[key], what)
        return PerturbAugmentSpec(**kw)
    if call.name in ("diagnostic", "instances"):
        kw = _check_keys(
            call,
            {
                "mode": "mode",
                "instances": "instances",
                "delta_max": "delta_max",
                "axioms": "axioms",
                "rate": "rate",
            },
            "augmentation",
        )
        if "axioms" in kw:
            kw["axioms"] = _as_tuple(kw["axioms"])
        kw["mode"] = str(kw.get("mode", DiagnosticAugmentSpec.mode))
        for key in ("mode", "instances", "delta_max", "axioms", "rate"):
            if key in kw:
                kw[key] = DIAGNOSTIC_PARAMS[key].coerce(kw[key], f"diagnostic {key}")
        return DiagnosticAugmentSpec(**kw)
    if call.name == "acrank":  # ACRank's TFC-A / TFC-D (axiomatic.training.contrastive)
        return parse_acrank_spec(call)  # type: ignore[return-value]
    raise ValueError(
        f"unknown augmentation {call.name!r}; expected 'perturb(...)' (perturbation augmentation) "
        "or 'diagnostic(...)' (mined axiom instances) or \"acrank(rule='TFC-A&D', p=0.5)\" (ACRank)"
    )


@dataclass(frozen=True)
class SpecFamily:
    """One function a training setting's spec may name (``ar`` of ``regularizer``,
    ``po`` of ``graded_loss``) with the records of its parameters (:class:`ParamInfo`); the
    parser of that setting checks a spec with them, and ``axiomatic losses`` and the docs'
    tables list them."""

    setting: str
    """The :class:`TrainConfig` setting (and ``axiomatic train`` option) that takes it."""
    name: str
    description: str
    example: str
    params: Mapping[str, ParamInfo] = field(default_factory=dict)


SPEC_SETTINGS = ("loss", "graded_loss", "regularizer", "augmentation", "lr_schedule")
"""The training settings whose values are specs, in the order they are listed."""


def training_specs() -> list[SpecFamily]:
    """Every spec function of the training settings, in the order of :data:`SPEC_SETTINGS`:
    the losses (no parameters of their own: ``margin``, ``list_size`` are settings), the
    graded losses, the regularizer, the augmentations and the learning-rate schedules."""
    from axiomatic.training.schedules import SCHEDULE_PARAMS, SCHEDULE_TEXT
    from axiomatic.training.smooth import GRADED_LOSSES, GRADED_PARAMS, GRADED_TEXT

    out = [SpecFamily("loss", n, LOSSES.get(n), n) for n in LOSSES.names()]
    out += [
        SpecFamily("graded_loss", n, GRADED_TEXT[n], GRADED_EXAMPLES[n], GRADED_PARAMS[n])
        for n in GRADED_LOSSES.names()
    ]
    out.append(
        SpecFamily(
            "regularizer",
            "ar",
            "axiomatic regularization (Rosset et al. 2019): a hinge on the score change of "
            "each document's perturbation",
            "ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)",
            AR_PARAMS,
        )
    )
    out += [
        SpecFamily(
            "augmentation",
            "perturb",
            "perturbation augmentation (AP, Cheng & Fang 2020): perturbed documents as extra pairs",
            "perturb(axioms=TFC1-A,TFC1-D, rate=0.5)",
            PERTURB_PARAMS,
        ),
        SpecFamily(
            "augmentation",
            "diagnostic",
            "mined diagnostic instances as weak pairwise labels (Rennings 2019, section 4.4)",
            "diagnostic(mode=paired-delta, instances=DIR, delta_max=0.1)",
            DIAGNOSTIC_PARAMS,
        ),
        SpecFamily(
            "augmentation",
            "acrank",
            "ACRank's TFC-A / TFC-D edits with a contrastive loss (Bo et al. 2023; loss = "
            "contrastive)",
            "acrank(rule='TFC-A&D', p=0.5)",
            ACRANK_PARAMS,
        ),
    ]
    out += [
        SpecFamily("lr_schedule", n, SCHEDULE_TEXT[n], SCHEDULE_EXAMPLES[n], SCHEDULE_PARAMS[n])
        for n in SCHEDULE_PARAMS
    ]
    return out


GRADED_EXAMPLES = {
    "sosl": "sosl(thresholds=0.2,0.7)",
    "mse": "mse",
    "po": "po(scale=10, cuts=learned)",
    "3partl2": "3partl2(high=0.9, uppers=0.2,0.55)",
}
SCHEDULE_EXAMPLES = {
    "constant": "constant",
    "exponential": "exponential(gamma=0.95, every=100)",
    "linear": "linear(warmup=0.1)",
}


@dataclass
class TrainConfig:
    """Everything a training run needs (written as ``config.toml`` next to its outputs)."""

    dataset: str = field(
        default="demo",
        metadata=param_meta(
            nonempty=True,
            description="the training dataset: a catalog name (e.g. scifact/train), irds:<id>, "
            "or a dataset descriptor FILE.toml with qrels",
        ),
    )
    model: str = field(
        default="knrm",
        metadata=param_meta(
            nonempty=True,
            description="the model: knrm, conv-knrm, duet, cross-encoder, ... (the model "
            "registry; `axiomatic models` lists it)",
        ),
    )
    model_config: dict[str, Any] = field(default_factory=dict)
    loss: str = field(
        default="hinge",
        metadata=param_meta(
            nonempty=True,
            description="the training objective: " + ", ".join(LOSSES.names()),
        ),
    )
    margin: float = field(
        default=1.0, metadata=param_meta(ge=0, description="margin of the pairwise hinge loss")
    )
    list_size: int = field(
        default=8,
        metadata=param_meta(
            ge=1, lt=2**31, description="documents per query of a listwise example"
        ),
    )
    regularizer: str | None = field(
        default=None,
        metadata=param_meta(
            description='axiomatic regularization, e.g. "ar(lambda=0.1, mu=0.1, '
            'axioms=TFC1-A,TFC1-D,TFC3,LNC)"'
        ),
    )
    augmentation: str | None = field(
        default=None,
        metadata=param_meta(
            description='"perturb(axioms=TFC1-A,TFC1-D)" or "diagnostic(mode=paired, '
            'instances=DIR)"'
        ),
    )
    optimizer: str = field(default="adam", metadata=param_meta(nonempty=True))
    lr: float = field(default=1e-3, metadata=param_meta(gt=0, description="learning rate"))
    weight_decay: float = field(
        default=0.0, metadata=param_meta(ge=0, description="the optimizer's weight decay")
    )
    batch_size: int = field(
        default=32, metadata=param_meta(ge=1, lt=2**31, description="training examples per step")
    )
    steps: int = field(
        default=1000,
        metadata=param_meta(ge=1, lt=2**31, description="training steps (optimizer updates)"),
    )
    epochs: float | None = field(
        default=None,
        metadata=param_meta(
            gt=0,
            lt=2**31,
            description="passes over the training examples (replaces steps when given)",
        ),
    )
    eval_every: int = field(
        default=100,
        metadata=param_meta(
            ge=1, lt=2**31, description="evaluate on the dev queries every this many steps"
        ),
    )
    patience: int = field(
        default=5,
        metadata=param_meta(
            ge=0,
            lt=2**31,
            description="dev evaluations without improvement before stopping early (0: never stop early)",
        ),
    )
    dev_queries: int = field(
        default=512,
        metadata=param_meta(
            ge=0, lt=2**31, description="training queries held out for dev evaluation"
        ),
    )
    dev_depth: int = field(
        default=50,
        metadata=param_meta(ge=1, lt=2**31, description="candidates re-ranked per dev query"),
    )
    candidate_depth: int = field(
        default=100,
        metadata=param_meta(
            ge=1, lt=2**31, description="BM25 candidates per query of a full-retrieval dataset"
        ),
    )
    checkpoint_every: int = field(
        default=100,
        metadata=param_meta(ge=1, lt=2**31, description="save a checkpoint every this many steps"),
    )
    grad_clip: float | None = field(
        default=5.0,
        metadata=param_meta(
            ge=0, description="clip the total gradient norm to this (None: no clipping)"
        ),
    )
    lr_schedule: str = field(default="constant", metadata=param_meta(nonempty=True))
    """``constant``, ``exponential(gamma=0.95, every=N)`` (per ``every`` steps; default one
    epoch) or ``linear(warmup=0.1)`` (warm-up, then linear decay to 0; see
    :mod:`axiomatic.training.schedules`)."""
    graded_loss: str | None = None
    """With ``loss = "graded"``: the pointwise (query, document, grade) loss, e.g.
    ``"sosl(thresholds=0.2,0.7)"``, ``"mse"``, ``"po(scale=10)"``, ``"3partl2"`` (see
    :mod:`axiomatic.training.smooth`)."""
    log_grad_norm: bool = False
    """Log the total gradient norm (before clipping) of every step as ``grad_norm``."""
    eval_at_start: bool = False
    """Also compute the dev metric before the first step (logged as step 0), so that the start
    itself can be the best checkpoint: a run whose training only lowers the dev metric then
    keeps the start's weights (``best_step == 0``)."""
    seed: int = field(
        default=0,
        metadata=param_meta(
            ge=0, lt=2**32, description="seed of the model's initialization and of the sampler"
        ),
    )
    analyzer: str = field(default="default", metadata=param_meta(nonempty=True))
    """Text analysis of the perturbations (query-term membership) and of the BM25 candidates
    of full-retrieval datasets: an analyzer spec (``default``, ``thesis``, ``stopwords=false``),
    recorded in ``config.toml``; the dataset's document language applies unless it sets
    ``language=``."""

    def __post_init__(self) -> None:
        _check_types(self)
        self.loss = LOSSES.resolve(self.loss)  # one spelling in config.toml and records
        self.optimizer = OPTIMIZERS.resolve(self.optimizer)
        from axiomatic.text.analyzer import parse_analyzer

        parse_analyzer(self.analyzer)  # AnalyzerSpecError (a ValueError) names what is wrong
        from axiomatic.training.schedules import parse_lr_schedule

        parse_lr_schedule(self.lr_schedule)
        if self.loss == "graded":
            from axiomatic.training.smooth import parse_graded_loss

            parse_graded_loss(self.graded_loss)
            if self.regularizer or self.augmentation:
                raise ValueError(
                    "loss='graded' trains on (query, document, grade) examples; the AR "
                    "regularizer and augmentations work on pairs: use loss='hinge' for them"
                )
        elif self.graded_loss:
            raise ValueError(
                f"graded_loss={self.graded_loss!r} needs loss='graded' (got loss={self.loss!r})"
            )
        # validate the strings early (a bad regularizer should fail before any work is done)
        ar = parse_regularizer(self.regularizer)
        aug = parse_augmentation(self.augmentation)  # e.g. an unknown acrank rule fails here
        if ar is not None and isinstance(aug, PerturbAugmentSpec):
            raise ValueError(
                "use either the AR regularizer or perturbation augmentation, not both: AR "
                "compares each document with its perturbation, augmentation trains on them as pairs"
            )

    @property
    def ar(self) -> ARSpec | None:
        return parse_regularizer(self.regularizer)

    @property
    def augment(self) -> PerturbAugmentSpec | DiagnosticAugmentSpec | None:
        return parse_augmentation(self.augmentation)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        names = {f.name for f in fields(cls)}
        unknown = [k for k in data if k not in names]
        if unknown:
            k = unknown[0]
            raise ValueError(
                f"unknown training setting {k!r}{suggest(k, sorted(names))}; "
                f"expected one of {', '.join(sorted(names))}"
            )
        return cls(**data)


TRAIN_PARAMS: dict[str, ParamInfo] = dataclass_params(TrainConfig)
"""Every training setting's record (type, default, range, description): :func:`_check_types`
checks a config with them, and the experiment plans share them for the same settings
(``field(default=300, metadata=TRAIN_PARAMS["steps"].meta())``)."""


def _check_types(cfg: TrainConfig) -> None:
    """Type- and range-check every setting with its :data:`TRAIN_PARAMS` record; the message
    names the setting, what it must be and what it got. A boolean is no number (``lr = true``
    is not ``lr = 1.0``); numbers must be finite; counts and depths must be integers within
    range (``epochs = -1``, ``dev_depth = -1`` are errors, not silently odd runs); counts stay
    below 2**31 (what a C int holds) and seeds below 2**32 (what numpy takes)."""
    for name, info in TRAIN_PARAMS.items():
        info.check(getattr(cfg, name), f"setting {name!r}")


# ---------------------------------------------------------------------- TOML
_TOML_INT = 2**63


def _check_integers(data: dict[str, Any], path: Path) -> None:
    """Refuse integers beyond TOML's 64-bit range (the TOML spec asks a parser to; tomllib
    reads them exactly, and ``steps = 10**30`` then overflows deep inside a run)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:  # iterative: the nesting is as deep as tomllib could read
        where, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, int) and not -_TOML_INT <= value < _TOML_INT:
            digits = len(str(abs(value)))
            raise ValueError(
                f"{path}: setting {where!r} is an integer of {digits} digits, beyond TOML's "
                "64-bit integers (|n| < 2**63); write the value the setting needs"
            )


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file; errors name the file and the parser's line/column."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        _check_integers(data, path)
        return data
    except FileNotFoundError:
        raise FileNotFoundError(f"config file {path} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ValueError(
            f"{path}: invalid TOML: arrays or inline tables nest too deep to read (thousands of "
            "levels); a config needs a few"
        ) from None


def load_config(path: str | Path, section: str | None = "train") -> TrainConfig:
    """A :class:`TrainConfig` from a TOML file (the ``[train]`` table, or the top level)."""
    data = read_toml(path)
    if section and section in data:
        data = data[section]
        if not isinstance(data, dict):
            raise ValueError(
                f"{path}: {section!r} must be a table ([{section}] followed by key = value "
                f"lines), got {shown(data)}"
            )
    try:
        return TrainConfig.from_dict(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else _toml_value(k)


def dumps_toml(data: dict[str, Any]) -> str:
    """A tiny TOML writer: scalars, lists, inline tables, one level of ``[tables]``; ``None`` dropped."""
    lines: list[str] = []
    tables = {
        k: v
        for k, v in data.items()
        if isinstance(v, dict) and v and all(not isinstance(x, dict) for x in v.values())
    }
    for k, v in data.items():
        if k in tables or v is None:
            continue
        lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in tables.items():
        lines.append("")
        lines.append(f"[{_toml_key(k)}]")
        for kk, vv in v.items():
            if vv is not None:
                lines.append(f"{_toml_key(kk)} = {_toml_value(vv)}")
    return "\n".join(lines) + "\n"


def write_toml(data: dict[str, Any], path: str | Path) -> Path:
    from axiomatic._atomic import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, dumps_toml(data))

"""The compare-training plan: methods, grids, training sizes, the declared primary comparison.

A *grid point* is one setting of a method's own hyper-parameters (:data:`POINT_KEYS`): the
learning rate for every method, AR's ``lambda`` / ``mu``, AP's and Rennings' mixing ``rate``,
ACRank's edit probability ``p``. Every method of a start gets a grid of the same number of
points (``grids``; without one, the start's learning-rate grid ``lrs``), and the point with the
best mean dev RR@10 over the seeds is selected per (start, training size, method), on dev
only: Rosset et al. tuned lambda and mu per training size, so does this plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from axiomatic._params import param_meta
from axiomatic.experiments.engine import THREADS, Plan
from axiomatic.training.config import TRAIN_PARAMS

STARTS = ("bi-encoder", "cross-encoder")
"""The MiniLM starts of regime B / the GPU plan (any registry name of
:func:`axiomatic.models.build_model` may be a start: regime A uses KNRM and Conv-KNRM)."""

INSTANCES = "{instances}"
"""Placeholder of the mined training instances' folder in a method's augmentation."""

METHODS: dict[str, dict[str, Any]] = {
    "plain": {},
    "ar": {"regularizer": "ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)"},
    "rennings": {"augmentation": f"diagnostic(mode=paired, instances={INSTANCES}, axioms=TFC1)"},
    "ap": {"augmentation": "perturb(axioms=TFC1-A,TFC1-D,TFC3,LNC)"},
    "acrank": {
        "loss": "contrastive",
        "augmentation": "acrank(rule='TFC-A&D', p=0.5, loss=infonce, negatives=3)",
    },
    "acrank-hinge": {"augmentation": "acrank(rule='TFC-A&D', p=0.5, loss=hinge)"},
    "infonce": {
        "loss": "contrastive",
        "augmentation": "acrank(rule=none, loss=infonce, negatives=3)",
    },
    "ares": {},
}
"""Method -> the :class:`~axiomatic.training.config.TrainConfig` fields it sets on top of the
shared ones (each paper's defaults; a grid point replaces the parameters it names; ``ares``
fine-tunes plainly from its pre-trained start)."""

ADAPTED: dict[str, str] = {
    "ar": "Rosset et al. regularize KNRM / Conv-KNRM trained from scratch, as here; the "
    "perturbations are theirs (TFC1-A, TFC1-D, TFC3, LNC), one per document and step",
    "rennings": "Rennings (thesis, 4.4) trains on mined diagnostic instances mixed with the "
    "relevance pairs; here the instances are TFC1 instances mined with a weak labeler on the "
    "training queries of each size",
    "ap": "Cheng & Fang add perturbed documents as extra pairs; here with Rosset's "
    "perturbations, so AP and AR see the same edits and differ only in how they are used",
    "acrank": "Bo et al. contrast a BERT's kernel-pooled matching signal E(); KNRM's score is "
    "already kernel-pooled soft-TF, so the TFC-A/TFC-D InfoNCE applies to the model's own "
    "signal",
    "acrank-hinge": "ACRank's edits as extra hinge pairs (the contrastive loss left out)",
    "infonce": "the contrastive loss without the edits (what the loss alone does)",
    "ares": "ARES pre-trains a BERT cross-encoder on pseudo-query pairs ordered by its "
    "axioms, with MLM beside the hinge; a word-level start (KNRM, Conv-KNRM) is pre-trained on "
    "the same pairs of the training collection with the hinge alone (it has no language-model "
    "head), then fine-tuned plainly",
}
"""Where a method is adapted from its paper's model: the page says how."""

POINT_KEYS = {
    "lr": "the learning rate (every method)",
    "lambda": "AR's weight of the regularizer (Rosset's lambda)",
    "mu": "AR's margin of the regularizer (Rosset's mu)",
    "rate": "AP's / Rennings' mixing rate: axiom pairs per relevance pair",
    "p": "ACRank's edit probability per query term",
}
"""The hyper-parameters a grid point may set."""

POINT_METHODS = {
    "lambda": ("ar",),
    "mu": ("ar",),
    "rate": ("ap", "rennings"),
    "p": ("acrank", "acrank-hinge"),
}

DOCS_PER_PAIR = {
    "plain": 2, "ar": 4, "rennings": 2, "ap": 4, "acrank": 6, "acrank-hinge": 4,
    "infonce": 4, "ares": 2,
}  # fmt: skip
"""Documents scored per training pair (the step cost relative to ``plain``'s 2)."""

DIAGNOSE_SEP = "/s"
"""Between a method and its seed in the diagnosis' model names (``ar/s0``)."""

BASELINE = "plain"
START_ROW = "start (no training)"
MEASURES = ("nDCG@10", "RR@10")
ALL = "all"


@dataclass
class ComparePlan(Plan):
    """What to run; ``quick()`` is the CI-sized plan on the demo data, the defaults the GPU
    plan of the MiniLM starts (configs/compare-training-gpu.toml)."""

    ALIASES: ClassVar = {"models": "starts"}

    starts: list[str] = field(default_factory=lambda: list(STARTS))
    methods: dict[str, list[str]] = field(
        default_factory=lambda: {
            "bi-encoder": ["plain", "ar", "rennings", "ap"],
            "cross-encoder": ["plain", "acrank", "acrank-hinge", "infonce", "ares"],
        }
    )
    """Per start, the methods compared (``plain`` is the baseline and always runs)."""
    model_config: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "bi-encoder": {"max_length": 192},
            "cross-encoder": {"max_length": 192, "head": "mlp"},
        }
    )
    """Per start, the model's settings."""
    method_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per method, TrainConfig fields that replace :data:`METHODS`' (e.g. ``{ar =
    {regularizer = "ar(lambda=0.5, mu=0.1)"}}``)."""
    train: str = "msmarco-dev-top20/train"
    depth: int = field(default=20, metadata=param_meta(ge=1))
    """Candidates per training query (and dev query)."""
    dev_queries: int = field(default=80, metadata=TRAIN_PARAMS["dev_queries"].meta(description=""))
    """Training queries held out for dev selection (the same for every unit and size)."""
    sizes: list[Any] = field(default_factory=lambda: [ALL])
    """Training sizes: numbers of training queries (nested, seeded subsets of the queries left
    after the dev split: the 50 are among the 200) or ``"all"``."""
    examples: int = field(default=32000, metadata=param_meta(ge=1))
    """Training examples (pairs drawn by the sampler) every run sees at most."""
    batch_size: int = field(default=32, metadata=TRAIN_PARAMS["batch_size"].meta())
    eval_every: int = field(default=50, metadata=TRAIN_PARAMS["eval_every"].meta(description=""))
    """Dev evaluation every this many steps (and at the start)."""
    patience: int = field(default=6, metadata=TRAIN_PARAMS["patience"].meta())
    lrs: dict[str, list[float]] = field(
        default_factory=lambda: {
            "bi-encoder": [1e-6, 3e-6, 1e-5],
            "cross-encoder": [1e-5, 2e-5, 5e-5],
        }
    )
    """Per start, the learning-rate grid: every method's grid where ``grids`` names none."""
    grids: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per method, its grid points (``{lr = 1e-3, lambda = 0.5, mu = 0.5}``; keys
    :data:`POINT_KEYS`; a point without ``lr`` takes the start's first learning rate). Every
    method of a start must have as many points as the others."""
    seeds: list[int] = field(
        default_factory=lambda: [0, 1, 2, 3],
        metadata=TRAIN_PARAMS["seed"].meta(description="training seeds: one run per seed"),
    )
    optimizer: str = "adamw"
    weight_decay: float = field(default=0.01, metadata=TRAIN_PARAMS["weight_decay"].meta())
    margin: float = field(default=1.0, metadata=TRAIN_PARAMS["margin"].meta())
    test_sets: list[str] = field(
        default_factory=lambda: ["msmarco-dev-top20/test", "trec-dl-2019/bm25", "scifact/test"]
    )
    test_depth: int = field(default=100, metadata=param_meta(ge=1))
    """Candidates re-ranked per test query (BM25 top-k for full-retrieval sets)."""
    test_queries: int | None = field(default=None, metadata=param_meta(ge=1))
    """Judged test queries per collection (the first by id; ``None``: all, the default)."""
    primary: dict[str, Any] = field(default_factory=dict)
    """The one comparison the run is for, declared before running: ``{start, size,
    collection, measure}`` (each method against plain there, Holm over the methods); every
    other table is secondary. Empty: the first start, size, test set and measure."""
    alpha: float = field(
        default=0.05, metadata=param_meta(gt=0, lt=1, description="significance level")
    )
    power: float = field(
        default=0.8,
        metadata=param_meta(gt=0, lt=1, description="power of the minimal detectable effect"),
    )
    """Significance level and power of the minimal detectable effect."""
    weak_axiom: str = "TFC1(delta_rel=0.5)"
    """Rennings' weak labeler, mined on the training queries of each size."""
    ares_collections: list[str] = field(default_factory=lambda: ["msmarco-20k"])
    ares_variant: str = "simple"
    ares_steps: int = field(
        default=2000, metadata=TRAIN_PARAMS["steps"].meta(description="ARES pre-training steps")
    )
    ares_batch_size: int = field(
        default=16,
        metadata=TRAIN_PARAMS["batch_size"].meta(description="ARES pre-training batch size"),
    )
    ares_lr: float = field(
        default=2e-5,
        metadata=TRAIN_PARAMS["lr"].meta(description="ARES pre-training learning rate"),
    )
    ares_eval_every: int = field(
        default=100,
        metadata=TRAIN_PARAMS["eval_every"].meta(
            description="ARES dev evaluation every this many steps"
        ),
    )
    diagnose_set: str = "msmarco-dev-top20/test"
    diagnose_queries: int = field(
        default=50, metadata=param_meta(ge=1, description="queries diagnosed")
    )
    diagnose_depth: int = field(
        default=10, metadata=param_meta(ge=1, description="candidates diagnosed per query")
    )
    diagnose_axioms: str = "TFC1,TFC2,M-TDC,LNC2"
    diagnose_analyzer: str = "thesis"
    agreement_pairs: int = field(
        default=200,
        metadata=param_meta(ge=0, description="document pairs of the axiom-agreement table"),
    )
    embeddings: str = "random"
    """Word embeddings of a word-level start (``word2vec``: trained on the training collection;
    the MiniLM starts ignore it)."""
    threads: int | None = field(default=None, metadata=THREADS.meta())
    analyzer: str = field(default="default", metadata=TRAIN_PARAMS["analyzer"].meta())
    data_root: str | None = None
    docs: str | None = None
    """Also write the report to this Markdown page (its figure beside it, under ``img/``)."""
    title: str = "Which axiomatic training helps? Every method on equal terms"
    notes: str = ""
    """One paragraph the page prints under its title (what the plan is for, its budget)."""

    @classmethod
    def quick(cls) -> ComparePlan:
        """CI-sized: the demo data, a few steps per run, two seeds, two training sizes; every
        method's code path runs (a small KNRM for the word-level methods, the MiniLM
        cross-encoder for ARES)."""
        return cls(
            starts=["knrm", "cross-encoder"],
            methods={
                "knrm": [
                    "plain",
                    "ar",
                    "rennings",
                    "ap",
                    "acrank",
                    "acrank-hinge",
                    "infonce",
                    "ares",
                ],
                "cross-encoder": ["plain", "ares"],
            },
            model_config={
                "knrm": {"embedding_dim": 16, "max_doc_len": 64},
                "cross-encoder": {"max_length": 32, "head": "mlp"},
            },
            train="demo/train",
            depth=10,
            dev_queries=2,
            sizes=[4, ALL],
            examples=4,
            batch_size=2,
            eval_every=1,
            patience=0,
            lrs={"knrm": [1e-3, 1e-2], "cross-encoder": [1e-4]},
            grids={
                "ar": [
                    {"lr": 1e-3, "lambda": 0.1, "mu": 0.1},
                    {"lr": 1e-3, "lambda": 1.0, "mu": 1.0},
                ]
            },
            seeds=[0, 1],
            test_sets=["demo/test"],
            test_depth=10,
            primary={
                "start": "knrm",
                "size": ALL,
                "collection": "demo/test",
                "measure": "nDCG@10",
            },
            ares_collections=["demo"],
            ares_variant="strict",
            ares_steps=1,
            ares_batch_size=2,
            ares_eval_every=100,
            diagnose_set="demo/test",
            diagnose_queries=2,
            diagnose_depth=4,
            diagnose_axioms="TFC1,LNC2",
            agreement_pairs=4,
            threads=1,
        )

    # ------------------------------------------------------------------ derived
    def grid(self, start: str, method: str) -> list[dict[str, Any]]:
        """The grid points of ``method`` from ``start``: its own grid (a point without ``lr``
        takes the start's first) or the start's learning-rate grid."""
        own = self.grids.get(method)
        if own:
            first = self.lrs.get(start, [None])[0]
            return [{"lr": first, **pt} if "lr" not in pt else dict(pt) for pt in own]
        return [{"lr": lr} for lr in self.lrs.get(start, [])]

    def size_names(self) -> list[str]:
        return [size_name(s) for s in self.sizes]

    def primary_cell(self) -> dict[str, Any]:
        """The declared primary comparison, completed with the plan's firsts."""
        p = dict(self.primary)
        p.setdefault("start", self.starts[0] if self.starts else "")
        p.setdefault("size", self.sizes[0] if self.sizes else ALL)
        p.setdefault("collection", self.test_sets[0] if self.test_sets else "")
        p.setdefault("measure", MEASURES[0])
        p["size"] = size_name(p["size"])
        return p


def slug(name: str) -> str:
    """A collection name as a file name (``scifact/test`` -> ``scifact_test``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def size_name(size: Any) -> str:
    """``50`` -> ``"50"``, ``"all"`` -> ``"all"`` (the folder and table name of a size)."""
    return ALL if str(size).strip().lower() == ALL else str(int(size))


def point_name(point: dict[str, Any]) -> str:
    """A grid point's folder name: ``lr0.001`` or ``lr0.001-lambda0.5-mu0.5`` (keys in
    :data:`POINT_KEYS` order)."""
    parts = [f"{k}{_num(point[k])}" for k in POINT_KEYS if k in point]
    return "-".join(parts) or "default"


def point_text(point: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_num(point[k])}" for k in POINT_KEYS if k in point)


def _num(x: Any) -> str:
    return f"{float(x):g}"


def train_config(
    p: ComparePlan,
    start: str,
    method: str,
    point: dict[str, Any],
    seed: int,
    instances: str = "",
) -> Any:
    """The trainer configuration of one unit: the shared settings, then the method's, then
    the grid point's."""
    from axiomatic.training.config import TrainConfig

    steps = max(1, p.examples // p.batch_size)
    own = {**METHODS[method], **p.method_config.get(method, {})}
    for key in ("regularizer", "augmentation"):
        if isinstance(own.get(key), str):
            own[key] = apply_point(own[key], point)
    if isinstance(own.get("augmentation"), str):
        own["augmentation"] = own["augmentation"].replace(INSTANCES, instances or "instances/train")
    base: dict[str, Any] = {
        "dataset": p.train,
        "model": start,
        "model_config": dict(p.model_config.get(start, {})),
        "loss": "hinge",
        "margin": p.margin,
        "optimizer": p.optimizer,
        "weight_decay": p.weight_decay,
        "lr": float(point["lr"]),
        "batch_size": p.batch_size,
        "steps": steps,
        "eval_every": max(1, min(p.eval_every, steps)),
        "checkpoint_every": max(1, min(p.eval_every, steps)),
        "patience": p.patience,
        "dev_queries": p.dev_queries,
        "dev_depth": p.depth,
        "candidate_depth": p.depth,
        "eval_at_start": True,
        "seed": seed,
        "analyzer": p.analyzer,
    }
    try:
        return TrainConfig(**{**base, **own})
    except TypeError as exc:
        raise ValueError(f"compare-training method {method!r}: {exc}") from None


_CALL = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*\((.*)\)\s*$", re.S)


def apply_point(spec: str, point: dict[str, Any]) -> str:
    """A method's spec string with the grid point's own parameters set (``lambda``, ``mu``
    into ``ar(...)``; ``rate`` into ``perturb(...)`` / ``diagnostic(...)``; ``p`` into
    ``acrank(...)``); the learning rate is not part of a spec."""
    m = _CALL.match(spec)
    if m is None:
        return spec
    name = m.group(1)
    wanted = {
        "ar": ("lambda", "mu"),
        "perturb": ("rate",),
        "diagnostic": ("rate",),
        "acrank": ("p",),
    }.get(name, ())
    sets = {k: point[k] for k in wanted if k in point}
    if not sets:
        return spec
    args = _split_args(m.group(2))
    kept = [a for a in args if a.split("=", 1)[0].strip() not in sets]
    new = [f"{k}={_num(v)}" for k, v in sets.items()]
    return f"{name}({', '.join([*new, *kept])})"


def _split_args(text: str) -> list[str]:
    """Top-level ``key=value`` arguments of a call's text (commas inside quotes kept; a bare
    word after a comma continues the previous value's list, as ``axioms=TFC1-A,TFC3``)."""
    out: list[str] = []
    cur = ""
    quote = ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch == ",":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    merged: list[str] = []
    for part in (x.strip() for x in out):
        if not part:
            continue
        if "=" in part or not merged:
            merged.append(part)
        else:
            merged[-1] += "," + part
    return merged

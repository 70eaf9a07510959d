"""Rankers from short spec strings: ``bm25``, ``bm25:k1=1.2,b=0.75``, ``ql:mu=1000``, ``rm3``,
``tfidf``, ``run:PATH`` (optionally ``run:PATH,missing=min``), ``model:PATH`` (a model saved by
axiomatic, or any local Hugging Face folder), ``st:PATH`` (a local sentence-transformers
bi-encoder), ``cross-encoder:PATH`` (a local cross-encoder), ``hf:PATH`` (either, detected from
the folder), ``minilm`` (the packaged all-MiniLM-L6-v2 bi-encoder), and the LLM rankers
``llm:PATH`` (a local causal-LM folder or GGUF file), ``smollm2`` (the packaged
SmolLM2-135M-Instruct) and ``prp:PATH`` / ``prp:smollm2`` (pairwise ranking prompting,
:mod:`axiomatic.rankers.llm`). Nothing is downloaded.

A ``NAME:PATH`` spec's parameters start at the first comma followed by one of the family's
parameter names and ``=``, so a path may hold commas and colons, and a value with commas is
quoted: ``llm:DIR,template='Query: {query}, passage: {document}. Relevant:'``.

Every spec may start with ``NAME=`` to choose the name shown in tables, plots and run tags:
``splade=run:runs/splade.trec``, ``mine=st:~/models/my-st-model``, ``bm25-tuned=bm25:k1=1.2``.

Parameter values are parsed safely with :func:`ast.literal_eval` (never ``eval``); bare words are
taken as strings (``missing=min``). Unknown ranker or parameter names get close-match
suggestions. Lexical rankers share the dataset's cached index
(:func:`axiomatic.index.cache.dataset_index`) and hence its one analyzer.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from axiomatic._params import ParamInfo
from axiomatic._registry import Registry
from axiomatic._suggest import suggest
from axiomatic.data.records import Dataset
from axiomatic.index.collection import CollectionIndex
from axiomatic.models.llm import DEFAULT_MAX_DOC_TOKENS, LLM_BATCH_SIZE
from axiomatic.rankers.base import Ranker
from axiomatic.rankers.llm import METHODS as PRP_METHODS
from axiomatic.rankers.orders import ORDERS
from axiomatic.text.analyzer import Analyzer

__all__ = [
    "RANKERS",
    "NamedRanker",
    "RankerContext",
    "RankerFamily",
    "RankerInfo",
    "RankerRegistry",
    "RankerSpecError",
    "factory_param_info",
    "factory_params",
    "list_rankers",
    "make_ranker",
    "parse_ranker_spec",
    "register_ranker",
    "split_name",
    "with_name",
]


class RankerSpecError(ValueError):
    """A ranker spec string could not be understood."""


@dataclass(frozen=True)
class RankerInfo:
    name: str
    description: str
    params: dict[str, Any]  # parameter -> default
    example: str
    param_info: dict[str, ParamInfo] = field(default_factory=dict)
    """Parameter -> its record (type from the annotation, default, description)."""


@dataclass(frozen=True)
class RankerContext:
    """What a ranker factory is given besides its parameters: the dataset, the spec as the user
    wrote it (for messages), and the analyzer / index :func:`make_ranker` was called with."""

    dataset: Dataset
    spec: str
    analyzer: Analyzer | None = None
    index: CollectionIndex | None = None

    def collection_index(self) -> CollectionIndex:
        """The index a lexical ranker scores with: the one given, else the dataset's cached
        index built with the analyzer (default: the dataset's default analyzer)."""
        if self.index is None:
            from axiomatic.index.cache import dataset_index

            return dataset_index(self.dataset, analyzer=self.analyzer)
        if (
            self.analyzer is not None
            and self.analyzer.config_hash != self.index.analyzer.config_hash
        ):
            raise ValueError(
                f"the analyzer given ({self.analyzer!r}) differs from the index's "
                f"({self.index.analyzer!r}); pass one of them, or build the index with this "
                "analyzer"
            )
        return self.index


RankerFactory = Callable[..., Any]
"""``factory(context, **params) -> Ranker``: a :class:`RankerContext` and the spec's
parameters (``path=`` too for a family written ``NAME:PATH``)."""


@dataclass(frozen=True)
class RankerFamily:
    """One registry entry: a family of rankers (``bm25``, ``run``, ...) and its factory."""

    name: str
    factory: RankerFactory
    description: str
    example: str
    params: Mapping[str, Any]
    """Parameter -> default, from the factory's keyword parameters (``path`` left out)."""
    path: bool = False
    """Whether the spec is ``NAME:PATH`` (trailing ``,key=value`` pairs of ``params`` are
    parameters) instead of ``NAME:key=value,...``."""
    param_info: Mapping[str, ParamInfo] = field(default_factory=dict)
    """Parameter -> its :class:`~axiomatic._params.ParamInfo` (:func:`factory_param_info`)."""
    path_help: str = ""
    """What ``PATH`` may be (said when a spec lacks it), e.g. ``a TREC run file``."""


def factory_params(factory: RankerFactory) -> dict[str, Any]:
    """A factory's parameters and defaults: its keyword parameters after the context, without
    ``path``; a parameter without a default is refused (a spec may always leave it out)."""
    params = list(inspect.signature(factory).parameters.values())[1:]
    out: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "path":
            continue
        if p.default is p.empty:
            raise TypeError(
                f"ranker factory {getattr(factory, '__name__', factory)!r}: parameter "
                f"{p.name!r} needs a default (a spec may leave any parameter out)"
            )
        out[p.name] = p.default
    return out


def factory_param_info(
    factory: RankerFactory, descriptions: Mapping[str, str | ParamInfo] | None = None
) -> dict[str, ParamInfo]:
    """The records of a factory's parameters (those of :func:`factory_params`): the type is
    the annotation as written, the default the signature's, the description (or, given a
    :class:`ParamInfo`, its range, choices and description) from ``descriptions``
    (``register_ranker(..., params=...)``)."""
    defaults = factory_params(factory)
    descriptions = dict(descriptions or {})
    unknown = sorted(set(descriptions) - set(defaults))
    if unknown:
        raise TypeError(
            f"ranker factory {getattr(factory, '__name__', factory)!r} has no parameter "
            f"{unknown[0]!r} to describe; its parameters: {', '.join(defaults) or 'none'}"
        )
    signature = inspect.signature(factory).parameters
    out = {}
    for key, default in defaults.items():
        note = signature[key].annotation
        typ = "Any" if note is inspect.Parameter.empty else note
        typ = typ if isinstance(typ, str) else getattr(typ, "__name__", str(typ))
        given = descriptions.get(key, "")
        base = given if isinstance(given, ParamInfo) else ParamInfo(key, description=given)
        out[key] = replace(base, name=key, type=typ, default=default)
    return out


def _family(
    name: str,
    factory: RankerFactory,
    description: str | None = None,
    example: str | None = None,
    path: bool = False,
    params: Mapping[str, str | ParamInfo] | None = None,
    path_help: str = "",
) -> RankerFamily:
    if not callable(factory):
        raise TypeError(
            f"ranker {name!r}: expected a factory(context, **params) or a RankerFamily, got "
            f"{type(factory).__name__}; register one with @register_ranker({name!r}, ...)"
        )
    if description is None:
        doc = (getattr(factory, "__doc__", None) or "").strip()
        description = doc.split("\n\n", 1)[0].replace("\n", " ") or name
    return RankerFamily(
        name,
        factory,
        description,
        example or name,
        factory_params(factory),
        path,
        factory_param_info(factory, params),
        path_help,
    )


def _adapt(name: str, loaded: Any) -> RankerFamily:
    """An entry point's object as a registry entry: a :class:`RankerFamily`, or a factory."""
    if isinstance(loaded, RankerFamily):
        return loaded
    return _family(name, loaded)


class RankerRegistry(Registry[RankerFamily]):
    """:class:`~axiomatic._registry.Registry` of ranker families; ``register(name, factory)``
    also takes a bare factory (described by its docstring)."""

    def register(
        self, name: str, entry: RankerFamily | RankerFactory, aliases: Iterable[str] = ()
    ) -> RankerFamily:
        family = entry if isinstance(entry, RankerFamily) else _family(name, entry)
        return super().register(name, family, aliases)


RANKERS = RankerRegistry("ranker", entry_points="axiomatic.rankers", adapt=_adapt)
"""Ranker families by name (:class:`RankerFamily`), read by :func:`make_ranker`,
:func:`parse_ranker_spec` and :func:`list_rankers`. Add one with :func:`register_ranker`, or
from another package through the entry point group ``axiomatic.rankers``."""


def register_ranker(
    name: str,
    *,
    description: str | None = None,
    example: str | None = None,
    path: bool = False,
    aliases: Iterable[str] = (),
    params: Mapping[str, str | ParamInfo] | None = None,
    path_help: str = "",
) -> Callable[[RankerFactory], RankerFactory]:
    """Register the decorated ``factory(context, **params) -> Ranker`` as ranker ``name``.

    The factory's keyword parameters (with their defaults) are the spec's parameters:
    ``name:key=value,...``; with ``path=True`` the spec is ``name:PATH`` and the factory
    also takes ``path``. ``description`` (default: the docstring's first paragraph) and
    ``example`` are what :func:`list_rankers` shows, with each parameter's record
    (:class:`~axiomatic._params.ParamInfo`: type, default and the description ``params``
    gives it, parameter -> text, or parameter -> a ``ParamInfo`` whose range and choices the
    spec is checked against as well); ``path_help`` says what ``PATH`` may be::

        @register_ranker("length", description="longer documents first", example="length:w=2")
        def length_ranker(context: RankerContext, w: float = 1.0) -> Ranker:
            return LengthRanker(w)

    The factory is returned unchanged. A package registers its rankers for every user by
    naming the module in its ``axiomatic.rankers`` entry points (``length =
    "mypkg.rankers:length_ranker"``): the module is imported when ``length`` is first used.
    """

    def decorate(factory: RankerFactory) -> RankerFactory:
        family = _family(name, factory, description, example, path, params, path_help)
        RANKERS.register(name, family, aliases)
        return factory

    return decorate


_NAME_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.+@-]*)\s*=(?!=)(.+)$", re.DOTALL)


def split_name(spec: str) -> tuple[str | None, str]:
    """``"NAME=SPEC"`` -> ``("NAME", "SPEC")``; a spec without a leading name -> ``(None, spec)``.

    A name is a short word (letters, digits, ``_.+@-``); ``bm25:k1=0.9`` has no name because
    ``bm25:k1`` is not one (it holds ``:``).
    """
    m = _NAME_RE.match(spec) if isinstance(spec, str) else None
    if m is None:
        return None, spec
    return m.group(1), m.group(2).strip()


def list_rankers() -> list[RankerInfo]:
    """The ranker families :func:`make_ranker` understands, with their parameters and
    defaults (entry points of installed packages included)."""
    return [
        RankerInfo(f.name, f.description, dict(f.params), f.example, dict(f.param_info))
        for f in RANKERS.values()
    ]


def _parse_params(text: str, spec: str) -> dict[str, Any]:
    """``k1=0.9,b=0.4`` -> ``{"k1": 0.9, "b": 0.4}`` (the ``ast``-based shared parser)."""
    from axiomatic._keyvalue import parse_keyvalues

    return parse_keyvalues(
        text,
        what=f"ranker spec {spec!r}",
        example="bm25:k1=0.9,b=0.4",
        error=RankerSpecError,
        tokens=True,  # bm25:variant=bm25+
    )


def _family_of(spec: Any) -> tuple[RankerFamily, str, str]:
    """The family a spec names, the spec stripped and what follows ``NAME:``."""
    if not isinstance(spec, str) or not spec.strip():
        raise RankerSpecError(
            f"a ranker spec must be a non-empty string such as 'bm25' (got {spec!r}); "
            f"known rankers: {', '.join(RANKERS)}"
        )
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    found = RANKERS.find(kind)
    if found is None:
        raise RankerSpecError(
            f"unknown ranker {kind!r} in spec {spec!r}{RANKERS.hint(kind, n=2)}; "
            f"known: {', '.join(RANKERS)}"
        )
    return RANKERS.get(found), spec, rest


def parse_ranker_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a spec into ``(kind, params)``; for a path family (``run``, ``model``, ``llm``,
    ...) the path is ``params["path"]``.

    A path may contain ``:`` and ``,``: the parameters start at the first comma followed by a
    parameter name of the family and ``=`` (``run:PATH,missing=min``,
    ``prp:DIR,k=10,order=wins``), and are parsed like any other spec's (a quoted value may
    hold commas). A path that does not exist but holds ``,word=`` ends there, so that a
    misspelt parameter is reported as one (``llm:DIR,tempate=monot5``), not as a missing path.
    """
    family, spec, rest = _family_of(spec)
    if not family.path:
        return family.name, _parse_params(rest, spec)
    path, text = _split_path(rest, family.params)
    params = _parse_params(text, spec) if text.strip() else {}
    if not path.strip():
        what = f" with PATH {family.path_help}" if family.path_help else ""
        raise RankerSpecError(
            f"ranker spec {spec!r} needs a path: '{family.name}:PATH'{what} "
            f"(e.g. {family.example!r})"
        )
    params["path"] = path.strip()
    return family.name, params


def _split_path(rest: str, keys: Iterable[str]) -> tuple[str, str]:
    """``PATH,key=value,...`` -> ``(PATH, "key=value,...")`` (:func:`parse_ranker_spec`)."""
    names = "|".join(re.escape(k) for k in keys)
    m = re.search(rf",\s*(?:{names})\s*=", rest) if names else None
    path, text = (rest, "") if m is None else (rest[: m.start()], rest[m.start() + 1 :])
    if not os.path.exists(os.path.expanduser(path.strip())):
        typo = re.search(r",\s*[A-Za-z_]\w*\s*=", path)
        if typo is not None:
            path, text = (
                path[: typo.start()],
                path[typo.start() + 1 :] + ("," + text if text else ""),
            )
    return path, text


_TEXT_TYPES = {"str": False, "str | None": True, "Optional[str]": True}
"""Annotations of text parameters -> whether ``None`` is allowed."""

_BOOL_TYPES = {"bool": False, "bool | None": True, "Optional[bool]": True}
"""Annotations of true/false parameters -> whether ``None`` is allowed."""


def _coerce(family: RankerFamily, params: dict[str, Any], spec: str) -> dict[str, Any]:
    """The spec's parameters checked against the factory's: known names, numbers where the
    default is a number (:func:`~axiomatic._keyvalue.as_number`), text where the annotation is
    ``str``, true or false where it is ``bool``."""
    kind, defaults = family.name, family.params
    out = {}
    for key, value in params.items():
        if key not in defaults:
            if not defaults:
                raise RankerSpecError(f"ranker {kind!r} takes no parameters (got spec {spec!r})")
            raise RankerSpecError(
                f"unknown parameter {key!r} for ranker {kind!r} in spec {spec!r}"
                f"{suggest(key, defaults, n=2)}; parameters: "
                f"{', '.join(f'{k}={v!r}' for k, v in defaults.items())}"
            )
        default = defaults[key]
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            from axiomatic._keyvalue import as_number

            value = as_number(
                value,
                what=f"parameter {key!r} of ranker {kind!r} in spec {spec!r} (e.g. "
                f"{key}={default!r})",
                integer=isinstance(default, int),
                error=RankerSpecError,
            )
        info = family.param_info.get(key)
        if info is not None and (info.low, info.high, info.choices) != (None, None, None):
            try:
                info.check(value, f"parameter {key!r} of ranker {kind!r} in spec {spec!r}")
            except ValueError as exc:
                raise RankerSpecError(str(exc)) from None
        optional = _TEXT_TYPES.get(str(info.type)) if info is not None else None
        if optional is not None and not isinstance(value, str) and not (optional and value is None):
            raise RankerSpecError(
                f"parameter {key!r} of ranker {kind!r} in spec {spec!r} must be a string (got "
                f"{value!r}); quote it (e.g. {key}={str(value)!r})"
            )
        flag = _BOOL_TYPES.get(str(info.type)) if info is not None else None
        if flag is not None and not isinstance(value, bool) and not (flag and value is None):
            raise RankerSpecError(
                f"parameter {key!r} of ranker {kind!r} in spec {spec!r} must be true or false "
                f"(got {value!r}); e.g. {key}=true"
            )
        out[key] = value
    return out


def make_ranker(
    spec: str,
    dataset: Dataset,
    index: CollectionIndex | None = None,
    analyzer: Analyzer | None = None,
) -> Ranker:
    """Build the ranker described by ``spec`` for ``dataset``, through its family's factory
    in :data:`RANKERS`.

    Lexical rankers use ``index`` when given, else the dataset's cached index built with
    ``analyzer`` (default: the dataset's default analyzer). ``run:PATH`` reads a TREC run (documents
    of ``dataset`` only; artificial documents are rejected). ``model:PATH`` loads a saved neural
    model with ``axiomatic.models.ranker.load_ranker``.
    """
    name, spec = split_name(spec)
    kind, params = parse_ranker_spec(spec)
    family = RANKERS.get(kind)
    path = params.pop("path", None)
    kwargs = _coerce(family, params, spec)
    if path is not None:
        kwargs["path"] = path
    context = RankerContext(dataset, spec, analyzer=analyzer, index=index)
    ranker = family.factory(context, **kwargs)
    return with_name(ranker, name) if name else ranker  # type: ignore[no-any-return]


# ---------------------------------------------------------------------- the built-in families
BM25_VARIANT_NAMES = ("lucene", "robertson", "atire", "bm25l", "bm25+")
"""The choices of ``bm25:variant=`` (:data:`axiomatic.rankers.lexical.BM25_VARIANTS`, named
here so that registering the family imports no scoring code)."""


def _lexical(context: RankerContext, cls: type, params: dict[str, Any]) -> Ranker:
    ranker = cls(context.collection_index(), **params)
    ranker._check()  # fail now on bad values, not at the first query
    return ranker  # type: ignore[no-any-return]


@register_ranker(
    "bm25",
    description="Okapi BM25 (Lucene's variant; variant=robertson|atire|bm25l|bm25+ for the others)",
    example="bm25:k1=0.9,b=0.4",
    params={
        "k1": ParamInfo("k1", low=0, description="term-frequency saturation"),
        "b": ParamInfo(
            "b", low=0, high=1, description="document-length normalization (0: none, 1: full)"
        ),
        "variant": ParamInfo(
            "variant",
            choices=BM25_VARIANT_NAMES,
            description="robertson, lucene, atire, bm25l or bm25+",
        ),
        "delta": ParamInfo(
            "delta", low=0, description="the lower bound of bm25l / bm25+ (None: 0.5 / 1.0)"
        ),
    },
)
def bm25_ranker(
    context: RankerContext,
    k1: float = 0.9,
    b: float = 0.4,
    variant: str = "lucene",
    delta: float | None = None,
) -> Ranker:
    from axiomatic.rankers.lexical import BM25Ranker

    return _lexical(context, BM25Ranker, {"k1": k1, "b": b, "variant": variant, "delta": delta})


@register_ranker(
    "ql",
    description="query likelihood, Dirichlet smoothing",
    example="ql:mu=1000",
    aliases=("qld", "lm", "dirichlet"),
    params={
        "mu": ParamInfo(
            "mu",
            low=0,
            low_open=True,
            description="Dirichlet smoothing (pseudo-count of the collection model)",
        )
    },
)
def ql_ranker(context: RankerContext, mu: float = 1000.0) -> Ranker:
    from axiomatic.rankers.lexical import QLRanker

    return _lexical(context, QLRanker, {"mu": mu})


@register_ranker(
    "rm3",
    description="RM3 pseudo-relevance feedback over Dirichlet QL",
    example="rm3:fb_docs=10,fb_terms=10,orig_weight=0.5",
    params={
        "fb_docs": ParamInfo(
            "fb_docs", low=1, description="feedback documents (the top of the first ranking)"
        ),
        "fb_terms": ParamInfo("fb_terms", low=1, description="expansion terms added to the query"),
        "orig_weight": ParamInfo(
            "orig_weight",
            low=0,
            high=1,
            description="weight of the original query against the expansion",
        ),
        "mu": ParamInfo(
            "mu", low=0, low_open=True, description="Dirichlet smoothing of both rankings"
        ),
    },
)
def rm3_ranker(
    context: RankerContext,
    fb_docs: int = 10,
    fb_terms: int = 10,
    orig_weight: float = 0.5,
    mu: float = 1000.0,
) -> Ranker:
    from axiomatic.rankers.lexical import RM3Ranker

    params = {"fb_docs": fb_docs, "fb_terms": fb_terms, "orig_weight": orig_weight, "mu": mu}
    return _lexical(context, RM3Ranker, params)


@register_ranker(
    "tfidf", description="sublinear TF-IDF", example="tfidf", aliases=("tf-idf", "tf_idf")
)
def tfidf_ranker(context: RankerContext) -> Ranker:
    from axiomatic.rankers.lexical import TFIDFRanker

    return _lexical(context, TFIDFRanker, {})


@register_ranker(
    "run",
    description="scores read from a TREC run file (external systems)",
    example="run:runs/splade.trec,missing=min",
    path=True,
    params={
        "missing": ParamInfo(
            "missing",
            choices=("nan", "error", "min"),
            description="a document the run lacks: nan (no score), error, or min (below the "
            "query's lowest)",
        ),
        "name": "display name (default: the file name)",
    },
)
def run_ranker(
    context: RankerContext, path: str, missing: str = "nan", name: str | None = None
) -> Ranker:
    from axiomatic.rankers.runfile import RunFileRanker

    if not os.path.exists(path):
        raise FileNotFoundError(
            f"run file {path!r} (from ranker spec {context.spec!r}) does not exist; "
            "expected 'run:PATH' with PATH a TREC run file"
        )
    ranker = RunFileRanker(
        path,
        collection=context.dataset.documents,
        missing=missing,  # type: ignore[arg-type]  # checked by _check
        name=name,
    )
    ranker._check()
    return ranker


@register_ranker(
    "model",
    description="a saved model folder: axiomatic.models.save_model, or any Hugging Face folder",
    example="model:models/knrm",
    path=True,
)
def model_ranker(context: RankerContext, path: str) -> Ranker:
    spec = context.spec
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"model directory {path!r} (from ranker spec {spec!r}) does not exist; "
            "expected 'model:PATH' with PATH a directory written by axiomatic.models.save_model "
            "or a local Hugging Face / sentence-transformers folder"
        )
    path = _model_folder(path, spec)
    if not _is_axiomatic_model(path):
        return _hf(context, path, None)
    loader = _model_loader()
    ranker = loader(path)
    return _distinct_model_name(ranker, path)  # type: ignore[no-any-return]


def _hf(context: RankerContext, path: str, kind: str | None) -> Ranker:
    from axiomatic.models.hf import hf_ranker
    from axiomatic.models.hf_loader import resolve_source

    folder = resolve_source(path, f"model folder (from ranker spec {context.spec!r})")
    return hf_ranker(folder, kind=kind)  # type: ignore[arg-type,return-value]


@register_ranker(
    "st",
    description="a local sentence-transformers (or HF encoder) folder as a bi-encoder (cosine)",
    example="st:models/all-MiniLM-L6-v2",
    path=True,
    aliases=("sentence-transformers", "sentence-transformer", "bi-encoder"),
)
def st_ranker(context: RankerContext, path: str) -> Ranker:
    return _hf(context, path, "bi-encoder")


@register_ranker(
    "cross-encoder",
    description="a local cross-encoder folder (*ForSequenceClassification)",
    example="cross-encoder:models/ms-marco-MiniLM-L-6-v2",
    path=True,
    aliases=("crossencoder", "ce"),
)
def cross_encoder_ranker(context: RankerContext, path: str) -> Ranker:
    return _hf(context, path, "cross-encoder")


@register_ranker(
    "hf",
    description="a local Hugging Face folder; bi- or cross-encoder detected",
    example="hf:models/my-model",
    path=True,
)
def hf_folder_ranker(context: RankerContext, path: str) -> Ranker:
    return _hf(context, path, None)


_BF16_HELP = (
    "true: bf16 inference (faster on AMX CPUs and bf16 GPUs; a score then depends on the batch "
    "it is computed in, by up to ~2e-3); None or false: float32, the default"
)


@register_ranker(
    "minilm",
    description="the packaged all-MiniLM-L6-v2 bi-encoder, zero-shot (offline)",
    example="minilm",
    aliases=("minilm-bi-encoder",),
    params={"bf16": _BF16_HELP},
)
def minilm_ranker(context: RankerContext, bf16: bool | None = None) -> Ranker:
    from axiomatic.models.ranker import minilm_bi_encoder_ranker

    return minilm_bi_encoder_ranker(bf16=bf16)  # type: ignore[no-any-return]


_LLM_SOURCE = "a causal LM folder or a .gguf file, or 'smollm2' (the packaged model)"
_LLM_COMMON: dict[str, str | ParamInfo] = {
    "max_doc_tokens": ParamInfo(
        "max_doc_tokens", low=1, description="tokens of a passage kept in a prompt; the rest is cut"
    ),
    "batch_size": ParamInfo("batch_size", low=1, description="prompts per forward pass"),
    "device": "auto, cpu, cuda or cuda:N",
    "bf16": _BF16_HELP,
}
_LLM_POINTWISE: dict[str, str | ParamInfo] = {
    "template": "auto: chat when the tokenizer has a chat template, else plain; chat, plain, "
    "monot5, or a quoted text holding {query} and {document}",
    "yes": "the answer for relevant; None: the template's",
    "no": "the answer for not relevant; None: the template's",
    **_LLM_COMMON,
}


@register_ranker(
    "llm",
    description="a causal LM (folder or GGUF file) as a pointwise ranker: "
    "logit(yes) - logit(no) after a prompt",
    example="llm:models/qwen3-0.6b,template=monot5",
    path=True,
    path_help=_LLM_SOURCE,
    params=_LLM_POINTWISE,
)
def llm_ranker(
    context: RankerContext,
    path: str,
    template: str = "auto",
    yes: str | None = None,
    no: str | None = None,
    max_doc_tokens: int = DEFAULT_MAX_DOC_TOKENS,
    batch_size: int = LLM_BATCH_SIZE,
    device: str = "auto",
    bf16: bool | None = None,
) -> Ranker:
    from axiomatic.rankers.llm import build_llm_ranker

    params = {"template": template, "yes": yes, "no": no, "max_doc_tokens": max_doc_tokens}
    params.update(batch_size=batch_size, device=device, bf16=bf16)
    return build_llm_ranker("llm", path, context.spec, params)  # type: ignore[no-any-return]


@register_ranker(
    "smollm2",
    description="the packaged SmolLM2-135M-Instruct as a pointwise LLM ranker (llm:smollm2)",
    example="smollm2:max_doc_tokens=128",
    params=_LLM_POINTWISE,
)
def smollm2_ranker(
    context: RankerContext,
    template: str = "auto",
    yes: str | None = None,
    no: str | None = None,
    max_doc_tokens: int = DEFAULT_MAX_DOC_TOKENS,
    batch_size: int = LLM_BATCH_SIZE,
    device: str = "auto",
    bf16: bool | None = None,
) -> Ranker:
    from axiomatic.models.llm import SMOLLM2
    from axiomatic.rankers.llm import build_llm_ranker

    params = {"template": template, "yes": yes, "no": no, "max_doc_tokens": max_doc_tokens}
    params.update(batch_size=batch_size, device=device, bf16=bf16)
    return build_llm_ranker("smollm2", SMOLLM2, context.spec, params)  # type: ignore[no-any-return]


@register_ranker(
    "prp",
    description="pairwise ranking prompting with a causal LM: each pair of the top k asked in "
    "both orders, the preferences ordered",
    example="prp:smollm2,k=10,order=wins",
    path=True,
    path_help=_LLM_SOURCE,
    params={
        "template": "auto: chat when the tokenizer has a chat template, else plain; chat, "
        "plain, or a quoted text holding {query}, {document_a} and {document_b}",
        "first": "the answer for the first passage shown; None: the template's",
        "second": "the answer for the second passage shown; None: the template's",
        "k": ParamInfo(
            "k",
            low=2,
            description="documents re-ranked at the head of each list; the rest keep their order",
        ),
        "method": ParamInfo(
            "method",
            choices=PRP_METHODS,
            description="allpairs: k (k - 1) prompts per query; sliding: 2 passes (k - 1)",
        ),
        "passes": ParamInfo(
            "passes", low=1, description="bubble-sort passes of the sliding window"
        ),
        "order": ParamInfo(
            "order", choices=ORDERS, description="wins, kwiksort, bradley-terry or pagerank"
        ),
        "seed": "seed of a randomized order: kwiksort",
        **_LLM_COMMON,
    },
)
def prp_ranker(
    context: RankerContext,
    path: str,
    template: str = "auto",
    first: str | None = None,
    second: str | None = None,
    k: int = 10,
    method: str = "allpairs",
    passes: int = 3,
    order: str = "wins",
    seed: int = 0,
    max_doc_tokens: int = DEFAULT_MAX_DOC_TOKENS,
    batch_size: int = LLM_BATCH_SIZE,
    device: str = "auto",
    bf16: bool | None = None,
) -> Ranker:
    from axiomatic.rankers.llm import build_llm_ranker

    params = {"template": template, "first": first, "second": second, "k": k}
    params.update(method=method, passes=passes, order=order, seed=seed)
    params.update(max_doc_tokens=max_doc_tokens, batch_size=batch_size, device=device, bf16=bf16)
    return build_llm_ranker("prp", path, context.spec, params)  # type: ignore[no-any-return]


_GENERIC_FOLDERS = ("model", "best", "final", "checkpoint")


def _model_folder(path: str, spec: str) -> str:
    """The model folder of ``model:PATH``: ``PATH`` itself when it holds a model
    (``config.json``), else the one model folder inside a training run folder
    (``axiomatic train --out models/knrm-ar`` saves ``models/knrm-ar/model``), so that
    ``model:models/knrm-ar`` works; a folder whose models lie deeper is an error naming the
    specs that would work."""
    if not os.path.isdir(path) or os.path.isfile(os.path.join(path, "config.json")):
        return path
    inside = [
        os.path.join(path, sub)
        for sub in _GENERIC_FOLDERS
        if os.path.isfile(os.path.join(path, sub, "config.json"))
    ]
    if inside:
        return inside[0]  # "model" first: the final model a training run saves
    import glob

    nested = sorted(
        os.path.dirname(f)
        for pattern in ("*/config.json", "*/*/config.json")
        for f in glob.glob(os.path.join(glob.escape(path), pattern))
    )[:5]
    if not nested:
        return path  # nothing that looks like a model: the loader says what is wrong
    raise FileNotFoundError(
        f"model directory {path!r} (from ranker spec {spec!r}) holds no model (no config.json) "
        "but has model folders inside; use " + " or ".join(f"'model:{n}'" for n in nested)
    )


def _distinct_model_name(ranker: Any, path: str) -> Any:
    """``knrm:model`` -> ``knrm:<training run folder>``: ``axiomatic train --out models/knrm-ar``
    saves the model in ``models/knrm-ar/model``, and every trained model would otherwise be
    called ``<type>:model``."""
    from pathlib import Path

    folder = Path(path).resolve()
    name = getattr(ranker, "name", None)
    if (
        isinstance(name, str)
        and folder.name in _GENERIC_FOLDERS
        and name.endswith(f":{folder.name}")
        and folder.parent.name
    ):
        return with_name(ranker, f"{name.rsplit(':', 1)[0]}:{folder.parent.name}")
    return ranker


def _is_axiomatic_model(path: str) -> bool:
    """Whether ``path/config.json`` is an axiomatic model config (else: a Hugging Face folder)."""
    import json

    cfg = os.path.join(path, "config.json")
    try:
        with open(cfg, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return True  # let load_ranker say what is wrong with the folder
    return (
        not isinstance(data, dict)
        or data.get("format") == "axiomatic-model"
        or ("architectures" not in data and "model_type" not in data)
    )


class NamedRanker:
    """A ranker shown under another name (``NAME=SPEC``); everything else is the wrapped one's."""

    def __init__(self, ranker: Any, name: str) -> None:
        self.__dict__["_ranker"] = ranker
        self.__dict__["name"] = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.__dict__["_ranker"], attr)

    def score(self, query: Any, documents: Any) -> Any:
        return self._ranker.score(query, documents)

    def __repr__(self) -> str:
        return f"NamedRanker({self.name!r}, {self._ranker!r})"


def with_name(ranker: Any, name: str) -> Ranker:
    """``ranker`` under ``name``: renamed in place when its name is a plain attribute, else
    wrapped (lexical rankers compute their name from their parameters)."""
    try:
        ranker.name = name
    except AttributeError:
        return NamedRanker(ranker, name)  # type: ignore[return-value]
    return ranker  # type: ignore[no-any-return]


def _model_loader() -> Callable[[str], Ranker]:
    import importlib

    try:
        models_ranker = importlib.import_module("axiomatic.models.ranker")
    except ImportError as exc:
        raise ImportError(
            "'model:PATH' rankers need axiomatic.models.ranker (and torch); it could not be "
            f"imported ({exc}). Install the neural extras or use a lexical ranker such as 'bm25'."
        ) from exc
    loader = getattr(models_ranker, "load_ranker", None)
    if loader is None:
        raise ImportError(
            "axiomatic.models.ranker has no load_ranker(path); 'model:PATH' rankers are "
            "unavailable in this version"
        )
    return loader  # type: ignore[no-any-return]

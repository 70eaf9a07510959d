"""Rankers from short spec strings: ``bm25``, ``bm25:k1=1.2,b=0.75``, ``ql:mu=1000``, ``rm3``,
``tfidf``, ``run:PATH`` (optionally ``run:PATH,missing=min``), ``model:PATH`` (a model saved by
axiomatic, or any local Hugging Face folder), ``st:PATH`` (a local sentence-transformers
bi-encoder), ``cross-encoder:PATH`` (a local cross-encoder), ``hf:PATH`` (either, detected from
the folder) and ``minilm`` (the packaged all-MiniLM-L6-v2 bi-encoder). Nothing is downloaded.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from axiomatic._registry import Registry
from axiomatic._suggest import suggest
from axiomatic.data.records import Dataset
from axiomatic.index.collection import CollectionIndex
from axiomatic.rankers.base import Ranker
from axiomatic.text.analyzer import Analyzer

__all__ = [
    "NamedRanker",
    "RankerInfo",
    "RankerSpecError",
    "list_rankers",
    "make_ranker",
    "parse_ranker_spec",
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


def _lexical_classes() -> dict[str, type]:
    from axiomatic.rankers.lexical import BM25Ranker, QLRanker, RM3Ranker, TFIDFRanker

    return {"bm25": BM25Ranker, "ql": QLRanker, "rm3": RM3Ranker, "tfidf": TFIDFRanker}


_DESCRIPTIONS = {
    "bm25": ("Okapi BM25 (Lucene variant)", "bm25:k1=0.9,b=0.4"),
    "ql": ("query likelihood, Dirichlet smoothing", "ql:mu=1000"),
    "rm3": (
        "RM3 pseudo-relevance feedback over Dirichlet QL",
        "rm3:fb_docs=10,fb_terms=10,orig_weight=0.5",
    ),
    "tfidf": ("sublinear TF-IDF", "tfidf"),
    "run": (
        "scores read from a TREC run file (external systems)",
        "run:runs/splade.trec,missing=min",
    ),
    "model": (
        "a saved model folder: axiomatic.models.save_model, or any Hugging Face folder",
        "model:models/knrm",
    ),
    "st": (
        "a local sentence-transformers (or HF encoder) folder as a bi-encoder (cosine)",
        "st:models/all-MiniLM-L6-v2",
    ),
    "cross-encoder": (
        "a local cross-encoder folder (*ForSequenceClassification)",
        "cross-encoder:models/ms-marco-MiniLM-L-6-v2",
    ),
    "hf": ("a local Hugging Face folder; bi- or cross-encoder detected", "hf:models/my-model"),
    "minilm": ("the packaged all-MiniLM-L6-v2 bi-encoder, zero-shot (offline)", "minilm"),
    "llm": ("a causal LM (folder or GGUF file): logit(yes) - logit(no)", "llm:models/qwen"),
    "smollm2": ("the packaged SmolLM2-135M-Instruct as a pointwise LLM ranker", "smollm2"),
    "prp": ("pairwise ranking prompting with a causal LM (or smollm2)", "prp:smollm2,k=10"),
}
_PATH_KINDS = ("run", "model", "st", "cross-encoder", "hf")
_RUN_PARAMS = {"missing": "nan", "name": None}
_ALIASES = {
    "tf-idf": "tfidf",
    "tf_idf": "tfidf",
    "qld": "ql",
    "lm": "ql",
    "dirichlet": "ql",
    "minilm-bi-encoder": "minilm",
    "sentence-transformers": "st",
    "sentence-transformer": "st",
    "bi-encoder": "st",
    "crossencoder": "cross-encoder",
    "ce": "cross-encoder",
}
RANKERS: Registry[tuple[str, str]] = Registry("ranker", _DESCRIPTIONS, aliases=_ALIASES)
"""Ranker kinds (:class:`axiomatic._registry.Registry`): kind -> (what it is, an example spec)."""
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


def _ctor_params(cls: type) -> dict[str, Any]:
    sig = inspect.signature(cls)
    return {
        n: p.default
        for n, p in sig.parameters.items()
        if n not in ("self", "index") and p.kind is p.POSITIONAL_OR_KEYWORD
    }


def list_rankers() -> list[RankerInfo]:
    """The ranker kinds :func:`make_ranker` understands, with their parameters and defaults."""
    out = []
    lex = _lexical_classes()
    for name, (desc, example) in _DESCRIPTIONS.items():
        if name in lex:
            params = _ctor_params(lex[name])
        elif name == "run":
            params = dict(_RUN_PARAMS)
        else:
            params = {}
        out.append(RankerInfo(name, desc, params, example))
    return out


def _parse_params(text: str, spec: str) -> dict[str, Any]:
    """``k1=0.9,b=0.4`` -> ``{"k1": 0.9, "b": 0.4}`` (the ``ast``-based shared parser)."""
    from axiomatic._keyvalue import parse_keyvalues

    return parse_keyvalues(
        text, what=f"ranker spec {spec!r}", example="bm25:k1=0.9,b=0.4", error=RankerSpecError
    )


def parse_ranker_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a spec into ``(kind, params)``; for ``run``/``model`` the path is ``params["path"]``.

    A path may contain ``:`` and ``,``; for ``run:`` only trailing ``,missing=...`` /
    ``,name=...`` pairs are taken as parameters.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise RankerSpecError(
            f"a ranker spec must be a non-empty string such as 'bm25' (got {spec!r}); "
            f"known rankers: {', '.join(_DESCRIPTIONS)}"
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
    kind = found
    if kind in _PATH_KINDS:
        path = rest
        params: dict[str, Any] = {}
        if kind == "run":
            m = re.search(r"((?:,\s*(?:missing|name)\s*=\s*[^,]*)+)$", rest)
            if m:
                path = rest[: m.start()]
                params = _parse_params(m.group(1).lstrip(",").strip(), spec)
        if not path.strip():
            raise RankerSpecError(
                f"ranker spec {spec!r} needs a path: '{kind}:PATH' (e.g. {_DESCRIPTIONS[kind][1]!r})"
            )
        params["path"] = path.strip()
        return kind, params
    return kind, _parse_params(rest, spec)


def _coerce(
    kind: str, params: dict[str, Any], defaults: dict[str, Any], spec: str
) -> dict[str, Any]:
    out = {}
    for key, value in params.items():
        if key not in defaults:
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
        out[key] = value
    return out


def make_ranker(
    spec: str,
    dataset: Dataset,
    index: CollectionIndex | None = None,
    analyzer: Analyzer | None = None,
) -> Ranker:
    """Build the ranker described by ``spec`` for ``dataset``.

    Lexical rankers use ``index`` when given, else the dataset's cached index built with
    ``analyzer`` (default: the dataset's default analyzer). ``run:PATH`` reads a TREC run (documents
    of ``dataset`` only; artificial documents are rejected). ``model:PATH`` loads a saved neural
    model with ``axiomatic.models.ranker.load_ranker``.
    """
    name, spec = split_name(spec)
    ranker = _make(spec, dataset, index, analyzer)
    return with_name(ranker, name) if name else ranker


def _make(
    spec: str,
    dataset: Dataset,
    index: CollectionIndex | None,
    analyzer: Analyzer | None,
) -> Ranker:
    if spec.partition(":")[0].strip().lower() in ("llm", "smollm2", "prp"):  # rankers/llm.py
        return _llm_ranker(spec)
    kind, params = parse_ranker_spec(spec)
    if kind == "minilm":
        if params:
            raise RankerSpecError(f"ranker 'minilm' takes no parameters (got spec {spec!r})")
        from axiomatic.models.ranker import minilm_bi_encoder_ranker

        return minilm_bi_encoder_ranker()
    if kind in ("st", "cross-encoder", "hf"):
        from axiomatic.models.hf import hf_ranker
        from axiomatic.models.hf_loader import resolve_source

        folder = resolve_source(params["path"], f"model folder (from ranker spec {spec!r})")
        kinds: dict[str, Any] = {"st": "bi-encoder", "cross-encoder": "cross-encoder", "hf": None}
        return hf_ranker(folder, kind=kinds[kind])  # type: ignore[return-value]
    if kind in _lexical_classes():
        cls = _lexical_classes()[kind]
        kwargs = _coerce(kind, params, _ctor_params(cls), spec)
        if index is None:
            from axiomatic.index.cache import dataset_index

            index = dataset_index(dataset, analyzer=analyzer)
        elif analyzer is not None and analyzer.config_hash != index.analyzer.config_hash:
            raise ValueError(
                f"the analyzer given ({analyzer!r}) differs from the index's "
                f"({index.analyzer!r}); pass one of them, or build the index with this analyzer"
            )
        ranker = cls(index, **kwargs)
        ranker._check()  # fail now on bad values, not at the first query
        return ranker  # type: ignore[no-any-return]
    if kind == "run":
        from axiomatic.rankers.runfile import RunFileRanker

        path = params.pop("path")
        kwargs = _coerce(kind, params, dict(_RUN_PARAMS), spec)
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"run file {path!r} (from ranker spec {spec!r}) does not exist; "
                "expected 'run:PATH' with PATH a TREC run file"
            )
        ranker_run = RunFileRanker(path, collection=dataset.documents, **kwargs)
        ranker_run._check()
        return ranker_run
    # model:PATH
    path = params.pop("path")
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"model directory {path!r} (from ranker spec {spec!r}) does not exist; "
            "expected 'model:PATH' with PATH a directory written by axiomatic.models.save_model "
            "or a local Hugging Face / sentence-transformers folder"
        )
    path = _model_folder(path, spec)
    if not _is_axiomatic_model(path):
        from axiomatic.models.hf import hf_ranker
        from axiomatic.models.hf_loader import resolve_source

        return hf_ranker(resolve_source(path, f"model folder (from ranker spec {spec!r})"))  # type: ignore[return-value]
    loader = _model_loader()
    ranker = loader(path)
    return _distinct_model_name(ranker, path)


def _llm_ranker(spec: str) -> Ranker:
    """An LLM ranker (``llm:PATH``, ``smollm2``, ``prp:PATH``): :mod:`axiomatic.rankers.llm`."""
    from axiomatic.rankers.llm import make_llm_ranker

    return make_llm_ranker(spec)  # type: ignore[no-any-return]


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

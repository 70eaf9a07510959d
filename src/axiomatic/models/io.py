"""Model registry, construction and safe persistence (safetensors weights + JSON config, no pickle).

A saved model is a folder::

    config.json          {"format": "axiomatic-model", "model_type": ..., "config": {...}, ...}
    model.safetensors    the weights (state dict)
    vocab.json           word-level models: tokens + analyzer settings
    tokenizer/           transformer models: the word-piece tokenizer files
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch

from axiomatic._registry import Registry
from axiomatic._suggest import suggest
from axiomatic.models.base import NeuralRankingModel, seeded_init

FORMAT = "axiomatic-model"
FORMAT_VERSION = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
VOCAB_FILE = "vocab.json"
TOKENIZER_DIR = "tokenizer"

ModelEntry = str | type[NeuralRankingModel]
"""A registry entry: a :class:`NeuralRankingModel` subclass, or ``"module:Class"`` (imported on
first use, so that importing the package stays cheap)."""


def _model_entry(name: str, entry: Any) -> ModelEntry:
    """``entry`` checked as a model registry entry (``TypeError`` naming what it got)."""
    if isinstance(entry, str) and ":" in entry:
        return entry
    if isinstance(entry, type) and issubclass(entry, NeuralRankingModel):
        own = entry.__dict__.get("model_type")
        if own is not None and own != name:
            raise ValueError(
                f"model class {entry.__name__} says model_type = {own!r}; register it under "
                f"that name, not {name!r} (or leave model_type out: registering sets it)"
            )
        return entry
    raise TypeError(
        f"model {name!r}: expected a NeuralRankingModel subclass or a 'module:Class' string, "
        f"got {entry!r}; register a class with @register_model({name!r})"
    )


class ModelRegistry(Registry[ModelEntry]):
    """:class:`~axiomatic._registry.Registry` of model classes; ``register(name, cls)`` takes a
    :class:`NeuralRankingModel` subclass (its ``model_type`` is set to ``name``: that is the
    name :func:`save_model` writes and :func:`load_model` looks up) or a ``"module:Class"``
    string."""

    def register(self, name: str, entry: ModelEntry, aliases: Iterable[str] = ()) -> ModelEntry:
        checked = _model_entry(name, entry)
        super().register(name, checked, aliases)
        if not isinstance(checked, str):
            checked.model_type = name
        return checked


def _adapt(name: str, loaded: Any) -> ModelEntry:
    """An ``axiomatic.models`` entry point's object that did not register itself: a model
    class, registered under the entry point's name."""
    if isinstance(loaded, type) and issubclass(loaded, NeuralRankingModel):
        return loaded
    raise ValueError(
        f"entry point {name!r} of group 'axiomatic.models' names {loaded!r}, which is no "
        "NeuralRankingModel subclass; name the model class (or decorate it with "
        f"@register_model({name!r}))"
    )


MODELS = ModelRegistry(
    "model",
    {
        "knrm": "axiomatic.models.knrm:KNRM",
        "conv-knrm": "axiomatic.models.knrm:ConvKNRM",
        "drmm": "axiomatic.models.matchzoo:DRMM",
        "matchpyramid": "axiomatic.models.matchzoo:MatchPyramid",
        "duet": "axiomatic.models.matchzoo:Duet",
        "anmm": "axiomatic.models.matchzoo:ANMM",
        "arc-i": "axiomatic.models.matchzoo:ARCI",
        "mv-lstm": "axiomatic.models.matchzoo:MVLSTM",
        "cross-encoder": "axiomatic.models.transformer:CrossEncoder",
        "bi-encoder": "axiomatic.models.transformer:BiEncoder",
        "clir-dual": "axiomatic.models.clir:SmoothDualEncoder",
        "acrank": "axiomatic.models.acrank:ACRankModel",
    },
    aliases={"cknrm": "conv-knrm", "k-nrm": "knrm"},
    entry_points="axiomatic.models",
    adapt=_adapt,
)
"""The model zoo (:class:`ModelRegistry`): ``build_model`` names. Add a model with
:func:`register_model`, or from another package through the entry point group
``axiomatic.models``."""

ModelT = TypeVar("ModelT", bound=type[NeuralRankingModel])


def register_model(
    name: str, *, aliases: Iterable[str] = (), citation: str | None = None
) -> Callable[[ModelT], ModelT]:
    """Register the decorated :class:`NeuralRankingModel` subclass as model ``name`` (and
    ``aliases``); its ``model_type`` is set to ``name``, and its ``citation`` (where the model
    comes from; ``axiomatic models`` lists it) to ``citation`` when given::

        @register_model("toy", citation="Doe et al., SIGIR 2031")
        class Toy(WordRankingModel): ...

    Then ``build_model("toy", texts=...)``, ``axiomatic train --model toy``, ``save_model`` /
    ``load_model`` and the ranker ``model:PATH`` take it like a built-in model. Whether it is
    built over a vocabulary comes from the class (``word_level``, set by
    :class:`~axiomatic.models.word.WordRankingModel`). The class is returned unchanged
    otherwise. A package registers its models for every user by naming the class (or its
    module) in its ``axiomatic.models`` entry points (``toy = "mypkg.models:Toy"``): it is
    imported when ``toy`` is first used, or the models are listed.
    """

    if citation is not None and not isinstance(citation, str):
        raise TypeError(f"model {name!r}: citation must be a string (got {citation!r})")

    def decorate(cls: ModelT) -> ModelT:
        MODELS.register(name, cls, aliases)
        if citation is not None:
            cls.citation = citation
        return cls

    return decorate


def list_models() -> list[str]:
    """Registry names accepted by :func:`build_model` (entry points of installed packages
    included)."""
    return MODELS.names()


def resolve_model_name(name: str) -> str:
    """Canonical registry name of ``name`` (case, ``_``/``-`` and common spellings forgiven);
    an unknown name is one ``ValueError`` line with the close matches."""
    return MODELS.resolve(name)


def model_class(name: str) -> type[NeuralRankingModel]:
    """The model class registered as ``name``."""
    cls = MODELS.load(name)
    if not (isinstance(cls, type) and issubclass(cls, NeuralRankingModel)):
        raise TypeError(
            f"model {resolve_model_name(name)!r} names {cls!r}, which is no NeuralRankingModel "
            "subclass"
        )
    return cls


def is_word_model(name: str) -> bool:
    """Whether model ``name`` is word-level (its class's ``word_level``): built over a
    vocabulary of the training texts, saved with it."""
    return bool(model_class(name).word_level)


_INT_LIMIT = 2**31


class ModelOptionError(ValueError, TypeError):
    """An option a model does not take, or a value of the wrong kind for it: bad input (a
    ``ValueError``, as from a config file's ``model_config``) and, for ``build_model(**kw)``,
    a ``TypeError`` as Python raises for an unexpected keyword."""


def _check_config(cls: type, config: dict[str, Any], reserved: Iterable[str] = ()) -> None:
    """Refuse (``ValueError``, naming the option) a ``model_config`` key the model does not take
    and a value of another kind than the option's default: a boolean, an integer or a finite
    number where the default is one (``n_kernels = true``, ``sigma = 1e400``, a 400-digit
    integer would otherwise fail deep inside torch, or silently count as 1)."""
    params = {k: p for k, p in inspect.signature(cls).parameters.items() if k != "self"}
    allowed = set(params) - set(reserved)
    for key, value in config.items():
        if key not in allowed:
            raise ModelOptionError(
                f"model_config: {cls.__name__} has no option {key!r}"
                f"{suggest(key, sorted(allowed), n=1)}; options are {sorted(allowed)}"
            )
        default = params[key].default
        if isinstance(default, bool):
            ok, want = isinstance(value, bool), "true or false"
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
            ok = ok and 0 <= value < _INT_LIMIT
            want = "an integer >= 0 and < 2**31"
        elif isinstance(default, float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and _finite(value)
            want = "a finite number"
        else:
            continue
        if not ok:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "\u2026"
            raise ModelOptionError(
                f"model_config: option {key!r} of {cls.__name__} must be {want} (got {shown}, "
                f"{type(value).__name__})"
            )


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond float range
        return False


def build_model(
    name: str,
    *,
    vocab: Any = None,
    texts: Iterable[str] | None = None,
    embeddings: str | np.ndarray = "auto",
    seed: int = 0,
    analyzer: Any = None,
    max_vocab: int | None = 100_000,
    min_count: int = 1,
    word2vec_options: dict[str, Any] | None = None,
    **config: Any,
) -> NeuralRankingModel:
    """Build a fresh model by registry name (see :func:`list_models`), seeded by ``seed``.

    Word-level models need a vocabulary: pass ``vocab`` (a :class:`Vocabulary`) or ``texts`` (the
    training collection; the vocabulary keeps the ``max_vocab`` most frequent tokens seen
    ``min_count`` times, tokenized with ``analyzer``, default surface tokens). ``embeddings`` is
    ``"random"``, ``"word2vec"`` (trained on ``texts`` with gensim, seeded), ``"minilm"`` (mean of
    MiniLM word-piece input embeddings, 384-d unless ``embedding_dim`` is given), a matrix, or
    ``"auto"`` (the default): word2vec when ``texts`` are given, else minilm.
    Other keyword arguments are the model's constructor options (e.g. ``n_kernels=11``,
    ``max_length=128`` for the cross-encoder).
    """
    canonical = resolve_model_name(name)
    cls: Any = model_class(canonical)  # its constructor: word-level or not
    if not cls.word_level:
        _check_config(cls, config, reserved=("tokenizer_path",))
        with seeded_init(seed):
            model = cls(**config)
        model.build_info = {"seed": seed}
        return model

    from axiomatic.models.embeddings import make_embeddings
    from axiomatic.models.vocab import Vocabulary

    _check_config(cls, config, reserved=("vocab", "embeddings"))
    texts_list = list(texts) if texts is not None else None
    if vocab is None:
        if texts_list is None:
            raise ValueError(
                f"{canonical} is a word-level model: pass texts=... (the training collection) "
                "to build its vocabulary, or vocab=Vocabulary.build(texts)"
            )
        vocab = Vocabulary.build(
            texts_list, analyzer=analyzer, max_size=max_vocab, min_count=min_count
        )
    if isinstance(embeddings, str) and embeddings == "auto":
        embeddings = "word2vec" if texts_list is not None else "minilm"
    source = embeddings if isinstance(embeddings, str) else "matrix"
    if "embedding_dim" not in config:
        if isinstance(embeddings, np.ndarray):
            config["embedding_dim"] = int(embeddings.shape[1])
        elif embeddings == "minilm":
            config["embedding_dim"] = 384
    dim = int(
        config.get("embedding_dim", inspect.signature(cls).parameters["embedding_dim"].default)
    )
    matrix = make_embeddings(
        embeddings, vocab, dim, texts=texts_list, seed=seed, **(word2vec_options or {})
    )
    with seeded_init(seed):
        model = cls(vocab=vocab, embeddings=matrix, **config)
    model.build_info = {"seed": seed, "embeddings": source}
    return model


def save_model(model: NeuralRankingModel, directory: str | Path) -> Path:
    """Write ``model`` to ``directory`` (created): config.json, model.safetensors and the
    vocabulary or tokenizer. Returns the directory.

    Every file is written atomically (temporary file + rename), and ``config.json``, which
    makes the folder a model, is removed first and written last: a kill part-way leaves a
    folder that :func:`load_model` refuses, never new weights beside an old vocabulary.

    The tokenizer is saved without its runtime truncation / padding state (set by the last
    encoding call, so it would depend on what the process last did, e.g. on whether a run was
    resumed): the model's ``config`` (``max_length``) is what decides truncation.
    """
    from safetensors.torch import save_model as save_weights

    from axiomatic._atomic import atomic_path, atomic_write_text

    if not isinstance(model, NeuralRankingModel):
        raise TypeError(f"save_model expects a NeuralRankingModel (got {type(model).__name__})")
    cls = model_class(model.model_type)
    if type(model) is not cls:
        raise ValueError(
            f"save_model: model_type {model.model_type!r} of {type(model).__name__} names "
            f"{cls.__name__}, which a loader would rebuild instead; register the class under "
            "its own name with @register_model(NAME)"
        )
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    (out / CONFIG_FILE).unlink(missing_ok=True)
    meta: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "model_type": model.model_type,
        "config": model.config,
        "weights": WEIGHTS_FILE,
        "vocabulary": None,
        "analyzer": None,
        "tokenizer": None,
        "metadata": getattr(model, "build_info", {}),
    }
    vocab = getattr(model, "vocab", None)
    if vocab is not None:
        vocab.save(out / VOCAB_FILE)
        meta["vocabulary"] = VOCAB_FILE
        meta["analyzer"] = vocab.analyzer.config()
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None:
        _save_tokenizer(tokenizer, out / TOKENIZER_DIR)
        meta["tokenizer"] = TOKENIZER_DIR
    with atomic_path(out / WEIGHTS_FILE) as tmp:
        save_weights(model, str(tmp))
    atomic_write_text(out / CONFIG_FILE, json.dumps(meta, indent=2, sort_keys=True))
    return out


def _save_tokenizer(tokenizer: Any, folder: Path) -> None:
    """``tokenizer.save_pretrained(folder)`` with every file replaced atomically, and without
    the fast tokenizer's runtime truncation / padding state (see :func:`save_model`).

    Transformers' tokenizers re-apply the truncation and padding a call asks for on every call,
    so clearing that state changes no encoding; it only keeps ``tokenizer.json`` a function of
    the model rather than of the last call.
    """
    import shutil
    import tempfile

    from axiomatic._atomic import atomic_path

    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        backend.no_truncation()
        backend.no_padding()
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".tokenizer.", dir=folder.parent))
    try:
        tokenizer.save_pretrained(str(staging))
        for src in sorted(p for p in staging.rglob("*") if p.is_file()):
            dest = folder / src.relative_to(staging)
            with atomic_path(dest) as tmp:
                shutil.copyfile(src, tmp)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def read_model_config(directory: str | Path) -> dict[str, Any]:
    """The parsed config.json of a saved model folder (validated)."""
    path = Path(directory) / CONFIG_FILE
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: {directory} is not a saved model folder "
            "(expected config.json + model.safetensors written by axiomatic.models.save_model)"
        )
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from exc
    except RecursionError:
        raise ValueError(f"{path}: invalid JSON (it nests too deep to read)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f'{path}: not an axiomatic model config (expected "format": "{FORMAT}")')
    from axiomatic.models.vocab import check_analyzer_config

    check_analyzer_config(meta.get("analyzer"), f"{path}: analyzer")
    if int(meta.get("format_version", 0)) > FORMAT_VERSION:
        raise ValueError(
            f"{path}: format_version {meta['format_version']} is newer than this axiomatic "
            f"({FORMAT_VERSION}); upgrade axiomatic-ir"
        )
    return meta


def _rebuild_options(cls: type, directory: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """What a model built from its config alone is also given when loaded, where its
    constructor takes it: ``pretrained=False`` (the saved weights replace any pretrained ones)
    and ``tokenizer_path``, the saved tokenizer folder (``None`` when none was saved)."""
    params = inspect.signature(cls).parameters
    options: dict[str, Any] = {}
    if "pretrained" in params:
        options["pretrained"] = False
    if "tokenizer_path" in params:
        tok = meta.get("tokenizer")
        options["tokenizer_path"] = directory / tok if tok and (directory / tok).is_dir() else None
    return options


def load_model(
    directory: str | Path, device: str | torch.device | None = None
) -> NeuralRankingModel:
    """Rebuild a model saved by :func:`save_model`, in eval mode, on ``device`` (default: left on
    the CPU; otherwise as :func:`~axiomatic.models.device.choose_device` reads it)."""
    from safetensors.torch import load_model as load_weights

    from axiomatic.models.vocab import Vocabulary

    directory = Path(directory)
    meta = read_model_config(directory)
    canonical = resolve_model_name(meta["model_type"])
    cls: Any = model_class(canonical)  # its constructor: word-level or not
    config = dict(meta.get("config") or {})
    # the initial weights are overwritten below; a fixed seed keeps the caller's RNG untouched
    with seeded_init(0):
        if not cls.word_level:
            model = cls(**config, **_rebuild_options(cls, directory, meta))
        else:
            vocab_file = meta.get("vocabulary") or VOCAB_FILE
            vocab = Vocabulary.load(directory / vocab_file)
            model = cls(vocab=vocab, **config)
    weights = directory / meta.get("weights", WEIGHTS_FILE)
    if not weights.is_file():
        raise FileNotFoundError(f"{weights} not found: the model folder lacks its weights")
    load_weights(model, str(weights), strict=True, device="cpu")
    model.build_info = dict(meta.get("metadata") or {})
    model.eval()
    if device is not None:
        from axiomatic.models.device import choose_device

        model.to(choose_device(device))
    return model

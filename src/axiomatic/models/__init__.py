"""Neural ranking models: KNRM, Conv-KNRM, DRMM, MatchPyramid, Duet, aNMM, ARC-I, MV-LSTM and
MiniLM cross-/bi-encoders, with safe save/load and a Ranker adapter.

Attributes are imported on first use, so ``import axiomatic.models`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "NeuralRankingModel": "axiomatic.models.base",
    "autocast": "axiomatic.models.device",
    "bf16_supported": "axiomatic.models.device",
    "choose_device": "axiomatic.models.device",
    "inference_dtype": "axiomatic.models.device",
    "use_bf16": "axiomatic.models.device",
    "suggest_num_threads": "axiomatic.models.base",
    "Vocabulary": "axiomatic.models.vocab",
    "model_analyzer": "axiomatic.models.vocab",
    "WordRankingModel": "axiomatic.models.word",
    "KNRM": "axiomatic.models.knrm",
    "ConvKNRM": "axiomatic.models.knrm",
    "kernel_pooling": "axiomatic.models.knrm",
    "kernel_mus": "axiomatic.models.knrm",
    "kernel_sigmas": "axiomatic.models.knrm",
    "DRMM": "axiomatic.models.matchzoo",
    "MatchPyramid": "axiomatic.models.matchzoo",
    "Duet": "axiomatic.models.matchzoo",
    "ANMM": "axiomatic.models.matchzoo",
    "ARCI": "axiomatic.models.matchzoo",
    "MVLSTM": "axiomatic.models.matchzoo",
    "CrossEncoder": "axiomatic.models.transformer",
    "BiEncoder": "axiomatic.models.transformer",
    "SmoothDualEncoder": "axiomatic.models.clir",
    "ACRankModel": "axiomatic.models.acrank",
    "train_word2vec": "axiomatic.models.embeddings",
    "minilm_embeddings": "axiomatic.models.embeddings",
    "make_embeddings": "axiomatic.models.embeddings",
    "build_model": "axiomatic.models.io",
    "save_model": "axiomatic.models.io",
    "load_model": "axiomatic.models.io",
    "list_models": "axiomatic.models.io",
    "resolve_model_name": "axiomatic.models.io",
    "register_model": "axiomatic.models.io",
    "MODELS": "axiomatic.models.io",
    "read_model_config": "axiomatic.models.io",
    "NeuralRanker": "axiomatic.models.ranker",
    "load_ranker": "axiomatic.models.ranker",
    "minilm_bi_encoder_ranker": "axiomatic.models.ranker",
    "score_candidates": "axiomatic.models.scoring",
    "SCORE_BATCH_SIZE": "axiomatic.models.scoring",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'axiomatic.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

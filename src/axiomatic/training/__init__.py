"""Training neural rankers: losses, samplers, the trainer, axiomatic regularization (Rosset et
al. 2019) and augmentation with diagnostic instances (Rennings 2019) or perturbations.

Attributes are imported on first use, so ``import axiomatic.training`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "TrainConfig": "axiomatic.training.config",
    "ARSpec": "axiomatic.training.config",
    "DiagnosticAugmentSpec": "axiomatic.training.config",
    "PerturbAugmentSpec": "axiomatic.training.config",
    "parse_regularizer": "axiomatic.training.config",
    "parse_augmentation": "axiomatic.training.config",
    "load_config": "axiomatic.training.config",
    "write_toml": "axiomatic.training.config",
    "AxiomaticRegularizationLoss": "axiomatic.training.losses",
    "pairwise_hinge": "axiomatic.training.losses",
    "pointwise_mse": "axiomatic.training.losses",
    "listwise_softmax_ce": "axiomatic.training.losses",
    "Pair": "axiomatic.training.samplers",
    "PairSampler": "axiomatic.training.samplers",
    "qrels_pairs": "axiomatic.training.samplers",
    "split_dev": "axiomatic.training.samplers",
    "with_bm25_candidates": "axiomatic.training.samplers",
    "Trainer": "axiomatic.training.trainer",
    "TrainResult": "axiomatic.training.trainer",
    "NonFiniteLossError": "axiomatic.training.trainer",
    "train_model": "axiomatic.training.run",
    "build_model_for": "axiomatic.training.run",
    "perturbation_agreement": "axiomatic.training.analysis",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'axiomatic.training' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

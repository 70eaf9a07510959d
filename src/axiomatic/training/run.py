"""One-call training from a :class:`TrainConfig`: load data, build the model, fit, save."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axiomatic.training.config import TrainConfig
from axiomatic.training.trainer import Trainer, TrainResult


def build_model_for(cfg: TrainConfig, texts: list[str]) -> Any:
    """``axiomatic.models.build_model`` with the vocabulary built from ``texts`` for word models."""
    from axiomatic.models import build_model
    from axiomatic.models.io import is_word_model

    if is_word_model(cfg.model):
        return build_model(cfg.model, texts=texts, seed=cfg.seed, **cfg.model_config)
    return build_model(cfg.model, seed=cfg.seed, **cfg.model_config)


def train_model(
    cfg: TrainConfig,
    out_dir: str | Path,
    data_root: str | Path | None = None,
    resume: bool = True,
) -> TrainResult:
    """Train ``cfg.model`` on catalog dataset ``cfg.dataset`` into ``out_dir``.

    Full-retrieval datasets get BM25 top-``candidate_depth`` candidates; ``dev_queries``
    training queries (seeded) are held out for model selection. Under torchrun every rank
    calls this (:mod:`axiomatic.training.distributed`); the ranks' model replicas start from
    rank 0's weights.
    """
    from axiomatic.data.catalog import load_dataset
    from axiomatic.index.cache import dataset_index
    from axiomatic.text.analyzer import parse_analyzer
    from axiomatic.training.distributed import distributed_context
    from axiomatic.training.samplers import split_dev, with_bm25_candidates

    # under torchrun rank 0 loads first (downloads, caches the index), the others then read
    with distributed_context().main_first():
        full = load_dataset(cfg.dataset, data_root=data_root)
        index = None
        if full.candidates is None:  # BM25 candidates with the configured analyzer
            lang = full.doc_language or full.language
            index = dataset_index(full, analyzer=parse_analyzer(cfg.analyzer, language=lang))
        dataset = with_bm25_candidates(full, cfg.candidate_depth, index=index)
        if not dataset.qrels:
            raise ValueError(
                f"dataset {cfg.dataset!r} has no relevance judgments; training needs qrels "
                "(pick a train split, e.g. scifact/train or msmarco-dev-top20/train)"
            )
        # word models may train and cache embeddings
        model = build_model_for(cfg, [d.text for d in dataset.documents.values()])
    train, dev = split_dev(dataset, cfg.dev_queries, seed=cfg.seed)
    return Trainer(model, cfg, out_dir, train, dev).fit(resume=resume)

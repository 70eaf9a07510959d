"""Neural models as :class:`~axiomatic.rankers.base.Ranker` objects (for re-ranking and diagnosis)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from axiomatic.data.records import Document, Query
from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.device import choose_device
from axiomatic.models.io import load_model
from axiomatic.models.scoring import SCORE_BATCH_SIZE


class NeuralRanker:
    """Scores documents for a query with a :class:`NeuralRankingModel` (Ranker protocol).

    Scores are float32 unless ``bf16=True`` (:func:`~axiomatic.models.device.use_bf16`):
    bf16 is faster on AVX512-BF16/AMX CPUs and recent GPUs, but its scores depend on the batch
    they are computed in by up to ~2e-3, so the same pair would score differently in ``rank``
    and ``diagnose``.

    :func:`~axiomatic.rankers.base.rerank` scores a whole dataset with this ranker through
    :func:`~axiomatic.models.scoring.score_candidates` (``batch_size`` and ``bf16`` passed on),
    the function experiments score with: same model and batch size, same scores, bit for bit.
    :meth:`score` scores one query's list (PyTerrier); a diagnosis scores all queries' lists at
    once through :func:`~axiomatic.rankers.base.score_lists` (each distinct text or pair once).
    """

    def __init__(
        self,
        model: NeuralRankingModel,
        name: str | None = None,
        batch_size: int = SCORE_BATCH_SIZE,
        bf16: bool | None = None,
    ) -> None:
        if not isinstance(model, NeuralRankingModel):
            raise TypeError(
                f"NeuralRanker wraps a NeuralRankingModel (got {type(model).__name__}); build one "
                "with axiomatic.models.build_model or load one with load_model"
            )
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
        self.model = model
        self.name = name or model.model_type
        self.batch_size = batch_size
        self.bf16 = bf16

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        if not documents:
            return np.zeros(0, dtype=np.float64)
        texts = [d.text for d in documents]
        one_query = getattr(self.model, "score_query", None)  # encodes the query once
        if one_query is not None:
            scores = one_query(query.text, texts, batch_size=self.batch_size, bf16=self.bf16)
        else:
            scores = self.model.score_pairs(
                [query.text] * len(texts), texts, batch_size=self.batch_size, bf16=self.bf16
            )
        return scores.numpy().astype(np.float64)

    def score_texts(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """Scores of raw document texts for one query text."""
        return self.score(Query("q", query), [Document(str(i), t) for i, t in enumerate(texts)])

    def __repr__(self) -> str:
        return f"NeuralRanker({self.name!r}, model={type(self.model).__name__})"


def load_ranker(
    path: str | Path,
    name: str | None = None,
    batch_size: int = SCORE_BATCH_SIZE,
    device: str | torch.device | None = None,
    bf16: bool | None = None,
) -> NeuralRanker:
    """A :class:`NeuralRanker` over the model saved at ``path`` (``--ranker model:PATH``).

    The default name is ``"<model_type>:<folder name>"``; ``device`` as
    :func:`~axiomatic.models.device.choose_device` reads it (default: CUDA when present).
    """
    model = load_model(path, device=choose_device(device))
    return NeuralRanker(
        model,
        name=name or f"{model.model_type}:{Path(path).name}",
        batch_size=batch_size,
        bf16=bf16,
    )


def minilm_bi_encoder_ranker(
    max_length: int = 256,
    batch_size: int = SCORE_BATCH_SIZE,
    device: str | torch.device | None = None,
    bf16: bool | None = None,
) -> NeuralRanker:
    """The zero-shot all-MiniLM-L6-v2 bi-encoder (mean pooling + cosine) as a ranker."""
    from axiomatic.models.transformer import BiEncoder

    model = BiEncoder(max_length=max_length).eval()
    model.to(choose_device(device))
    return NeuralRanker(model, name="minilm-bi-encoder", batch_size=batch_size, bf16=bf16)

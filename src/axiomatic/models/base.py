"""Interface shared by every neural ranking model (the training layer relies only on this).

A model turns raw ``(query, document)`` text pairs into a batch of tensors with
:meth:`NeuralRankingModel.encode_batch` and scores that batch with ``forward``. Training code never
needs to know whether the model is KNRM over word ids or a cross-encoder over word pieces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


class NeuralRankingModel(nn.Module):
    """Base class: subclasses implement ``encode_batch`` and ``forward``.

    ``model_type`` is the registry name (e.g. ``"knrm"``); ``config`` holds every constructor
    argument needed to rebuild the model (written next to the weights on save).
    """

    model_type: str = "base"

    def __init__(self) -> None:
        super().__init__()
        self.config: dict[str, Any] = {}

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        """Tokenize/pad ``len(queries) == len(documents)`` text pairs into model inputs (on CPU)."""
        raise NotImplementedError

    def forward(self, **batch: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        """Scores of shape ``(batch,)``."""
        raise NotImplementedError

    @property
    def device(self) -> torch.device:
        try:
            return next(self.parameters()).device
        except StopIteration:
            return torch.device("cpu")

    def score_pairs(
        self, queries: Sequence[str], documents: Sequence[str], batch_size: int = 64
    ) -> torch.Tensor:
        """Scores (no grad, eval mode) of text pairs, batched; returns a CPU float tensor."""
        was_training = self.training
        self.eval()
        out = []
        with torch.inference_mode():
            for i in range(0, len(queries), batch_size):
                batch = self.encode_batch(queries[i : i + batch_size], documents[i : i + batch_size])
                batch = {k: v.to(self.device) for k, v in batch.items()}
                out.append(self(**batch).float().cpu())
        self.train(was_training)
        return torch.cat(out) if out else torch.zeros(0)

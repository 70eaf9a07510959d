"""Common parts of the word-level models: vocabulary ids, embeddings, masks, similarity matrices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.vocab import OOV_ID, PAD_ID, Vocabulary


def cosine_matrix(q: torch.Tensor, d: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """Cosine similarities ``(B, Lq, Ld)`` of query vectors ``(B, Lq, E)`` and doc vectors
    ``(B, Ld, E)``, in float32 even under autocast (the exact-match kernel needs the precision).
    Zero vectors (padding, OOV) have similarity 0 to everything."""
    with torch.autocast(device_type=q.device.type, enabled=False):
        qn = F.normalize(q.float(), p=2, dim=-1, eps=eps)
        dn = F.normalize(d.float(), p=2, dim=-1, eps=eps)
        return torch.bmm(qn, dn.transpose(1, 2))


def masked_softmax(logits: torch.Tensor, mask: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax over ``dim`` ignoring masked-out entries (uniform when everything is masked)."""
    return torch.softmax(logits.float().masked_fill(~mask, -1e4), dim=dim)


class WordRankingModel(NeuralRankingModel):
    """A model over word ids of a :class:`Vocabulary` with a trainable embedding table.

    Padding (id 0) and OOV (id 1) embed to the zero vector, so they match nothing. Queries and
    documents are truncated to ``max_query_len`` / ``max_doc_len`` tokens; models whose layers need
    fixed sizes (``fixed_length = True``) are always padded to exactly those lengths.
    """

    word_level: ClassVar[bool] = True
    fixed_length: bool = False
    min_query_len: int = 1
    min_doc_len: int = 1

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        freeze_embeddings: bool = False,
        embeddings: np.ndarray | torch.Tensor | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(vocab, Vocabulary):
            raise TypeError(
                f"vocab must be an axiomatic.models.Vocabulary (got {type(vocab).__name__}); "
                "build one with Vocabulary.build(texts) or use build_model(name, texts=...)"
            )
        for name, value in (
            ("embedding_dim", embedding_dim),
            ("max_query_len", max_query_len),
            ("max_doc_len", max_doc_len),
        ):
            if int(value) < 1:
                raise ValueError(f"{name} must be a positive integer (got {value})")
        if max_query_len < self.min_query_len or max_doc_len < self.min_doc_len:
            raise ValueError(
                f"{type(self).__name__} needs max_query_len >= {self.min_query_len} and "
                f"max_doc_len >= {self.min_doc_len} (got {max_query_len}, {max_doc_len})"
            )
        self.vocab = vocab
        self.embedding_dim = int(embedding_dim)
        self.max_query_len = int(max_query_len)
        self.max_doc_len = int(max_doc_len)
        self.embedding = nn.Embedding(len(vocab), self.embedding_dim, padding_idx=PAD_ID)
        if embeddings is not None:
            weight = torch.as_tensor(np.asarray(embeddings), dtype=torch.float32)
            if tuple(weight.shape) != (len(vocab), self.embedding_dim):
                raise ValueError(
                    f"embeddings have shape {tuple(weight.shape)}; expected "
                    f"({len(vocab)}, {self.embedding_dim}) = (vocabulary size, embedding_dim)"
                )
            with torch.no_grad():
                self.embedding.weight.copy_(weight)
        else:
            nn.init.normal_(self.embedding.weight, std=0.1)
        with torch.no_grad():
            self.embedding.weight[: OOV_ID + 1] = 0.0
        self.embedding.weight.requires_grad_(not freeze_embeddings)
        self.config = {
            "embedding_dim": self.embedding_dim,
            "max_query_len": self.max_query_len,
            "max_doc_len": self.max_doc_len,
            "freeze_embeddings": bool(freeze_embeddings),
        }

    def _store(self, **params: Any) -> None:
        self.config.update(params)

    # ------------------------------------------------------------------ inputs
    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        if len(queries) != len(documents):
            raise ValueError(
                f"encode_batch needs one query per document (got {len(queries)} and "
                f"{len(documents)})"
            )
        return {
            "query_ids": self.vocab.encode_batch(
                queries, self.max_query_len, self.min_query_len, self.fixed_length
            ),
            "doc_ids": self.vocab.encode_batch(
                documents, self.max_doc_len, self.min_doc_len, self.fixed_length
            ),
        }

    def embed(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(vectors (B, L, E), mask (B, L) bool)``: OOV and padding give zero vectors; the mask
        marks real tokens (OOV included)."""
        vectors = self.embedding(ids) * (ids > OOV_ID).unsqueeze(-1).to(self.embedding.weight.dtype)
        return vectors, ids != PAD_ID

r"""Dual-encoder cross-lingual rankers scored by the smooth cosine similarity (Liu et al.).

A query tower and a document tower (separate parameters, as the paper found better) map word
ids to vectors :math:`f_q(q), f_d(d) \in \mathbb R^{p}`; the score is
:math:`r_\epsilon(q, d)` (eq. 1, :func:`axiomatic.models.similarity.smooth_cosine`). Encoders:

- ``avg`` (the paper's model, section 3.2): :math:`f(Q) = \tanh(\frac1t \sum_i W^\top q_i)`,
  average pooling of the word embeddings of the ``t`` *known* tokens, then tanh; no other
  parameters. Padding and out-of-vocabulary words are left out of the mean (an OOV word has no
  vector: counting it as a zero would shrink the norm that :math:`r_\epsilon` is sensitive to);
  a text with no known word is the zero vector (score 0);
- ``cnn`` (DSSM-CNN / CLSM, Shen et al. 2014): dropout 0.4 on the embeddings, word-3-gram
  convolution with 300 filters, tanh, max pooling over positions, a dense layer to ``p`` + tanh;
- ``lstm`` (DSSM-LSTM, Palangi et al. 2016): dropout 0.4, a bidirectional LSTM with 64 hidden
  units, the final forward and backward states concatenated, a dense layer to ``p`` + tanh.

Words: one :class:`~axiomatic.models.vocab.Vocabulary` over both languages (its analyzer is the
document language's; English queries tokenize the same under every language's analyzer), but
two embedding tables, so a query word and a document word never share a vector; the query table
is initialized from the query language's word vectors, the document table from the document
language's (:func:`axiomatic.models.embeddings.train_word2vec` per language, or MiniLM
word-piece means). Inputs ``query_ids (B, Lq)``, ``doc_ids (B, Ld)``; output ``(B,)`` in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from axiomatic._suggest import suggest
from axiomatic.models.similarity import smooth_cosine, tanh_score_bound
from axiomatic.models.vocab import OOV_ID, PAD_ID, Vocabulary
from axiomatic.models.word import WordRankingModel

ENCODERS = ("avg", "cnn", "lstm")


class _Avg(nn.Module):
    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        m = mask.unsqueeze(-1).to(emb.dtype)
        return torch.tanh((emb * m).sum(1) / m.sum(1).clamp_min(1.0))


class _CNN(nn.Module):
    def __init__(
        self, dim: int, out: int, filters: int = 300, window: int = 3, dropout: float = 0.4
    ):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.conv = nn.Conv1d(dim, filters, window, padding=window // 2)
        self.dense = nn.Linear(filters, out)

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.conv(self.drop(emb).transpose(1, 2)))  # B, F, L
        h = h.masked_fill(~mask.unsqueeze(1), -2.0)  # below tanh's range: ignored by the max
        return torch.tanh(self.dense(h.max(dim=2).values))


class _LSTM(nn.Module):
    def __init__(self, dim: int, out: int, hidden: int = 64, dropout: float = 0.4):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        self.dense = nn.Linear(2 * hidden, out)

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        lengths = mask.sum(1).clamp_min(1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(
            self.drop(emb), lengths, batch_first=True, enforce_sorted=False
        )
        _, (h, _) = self.lstm(packed)  # h: (2, B, hidden) = final forward, final backward
        return torch.tanh(self.dense(torch.cat([h[0], h[1]], dim=-1)))


def _encoder(kind: str, dim: int) -> nn.Module:
    if kind == "avg":
        return _Avg()
    if kind == "cnn":
        return _CNN(dim, dim)
    if kind == "lstm":
        return _LSTM(dim, dim)
    raise ValueError(
        f"unknown encoder {kind!r}{suggest(kind, ENCODERS, n=1, cutoff=0.6)}; "
        f"expected one of {', '.join(ENCODERS)}"
    )


class SmoothDualEncoder(WordRankingModel):
    """Separate query / document towers + smooth cosine similarity (see the module docstring).

    ``embeddings`` initializes the query table (and the document table unless
    ``doc_embeddings`` is given); ``eps`` is the smoothness of eq. 1 (0 = plain cosine).
    ``shared_embeddings``: one table for both towers (a word spelled the same in both languages,
    e.g. a name or a number, has one vector) instead of the paper's per-language tables; the
    encoders stay separate.
    """

    model_type = "clir-dual"
    citation = "Liu et al., smooth cosine + Smooth Ordinal Search Loss (docs/clir.md)"

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 64,
        max_query_len: int = 32,
        max_doc_len: int = 160,
        encoder: str = "avg",
        eps: float = 1.0,
        shared_embeddings: bool = False,
        freeze_embeddings: bool = False,
        embeddings: np.ndarray | torch.Tensor | None = None,
        doc_embeddings: np.ndarray | torch.Tensor | None = None,
    ) -> None:
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        smooth_cosine(torch.zeros(1), torch.zeros(1), eps)  # validates eps
        self.eps = float(eps)
        self.encoder_kind = str(encoder)
        self.shared_embeddings = bool(shared_embeddings)
        self.doc_embedding = (
            self.embedding
            if self.shared_embeddings
            else nn.Embedding(len(vocab), self.embedding_dim, padding_idx=PAD_ID)
        )
        init = doc_embeddings if doc_embeddings is not None else embeddings
        if not self.shared_embeddings:  # shared: the one table keeps the query side's init
            with torch.no_grad():
                if init is not None:
                    w = torch.as_tensor(np.asarray(init), dtype=torch.float32)
                    if tuple(w.shape) != (len(vocab), self.embedding_dim):
                        raise ValueError(
                            f"doc_embeddings have shape {tuple(w.shape)}; expected "
                            f"({len(vocab)}, {self.embedding_dim})"
                        )
                    self.doc_embedding.weight.copy_(w)
                else:
                    nn.init.normal_(self.doc_embedding.weight, std=0.1)
                self.doc_embedding.weight[: OOV_ID + 1] = 0.0
            self.doc_embedding.weight.requires_grad_(not freeze_embeddings)
        self.query_encoder = _encoder(self.encoder_kind, self.embedding_dim)
        self.doc_encoder = _encoder(self.encoder_kind, self.embedding_dim)
        self._store(
            encoder=self.encoder_kind, eps=self.eps, shared_embeddings=self.shared_embeddings
        )
        self._ids_cache: dict[tuple[str, int], torch.Tensor] = {}

    # ------------------------------------------------------------------ inputs
    def _encode(self, texts: Sequence[str], max_len: int) -> torch.Tensor:
        # texts repeat across epochs (40+ candidates per query): tokenize each once
        cache = self._ids_cache
        if len(cache) > 200_000:
            cache.clear()
        rows = []
        for t in texts:
            key = (t, max_len)
            ids = cache.get(key)
            if ids is None:
                ids = cache[key] = torch.tensor(self.vocab.encode(t, max_len) or [PAD_ID])
            rows.append(ids)
        if not rows:
            return torch.zeros((0, 1), dtype=torch.long)
        return nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=PAD_ID)

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        if len(queries) != len(documents):
            raise ValueError(
                f"encode_batch needs one query per document (got {len(queries)} and "
                f"{len(documents)})"
            )
        return {
            "query_ids": self._encode(queries, self.max_query_len),
            "doc_ids": self._encode(documents, self.max_doc_len),
        }

    # ------------------------------------------------------------------ towers
    def _mask(self, ids: torch.Tensor) -> torch.Tensor:
        """The positions a tower reads: the average pools known words only (no padding, no
        OOV); the CNN / LSTM read every real position (an OOV word is a zero vector there)."""
        return ids > OOV_ID if self.encoder_kind == "avg" else ids != PAD_ID

    def encode_queries(self, query_ids: torch.Tensor) -> torch.Tensor:
        """``(B, p)`` query representations :math:`f_q(q)`."""
        emb, _ = self.embed(query_ids)
        return self.query_encoder(emb, self._mask(query_ids))

    def encode_documents(self, doc_ids: torch.Tensor) -> torch.Tensor:
        """``(B, p)`` document representations :math:`f_d(d)`."""
        emb = self.doc_embedding(doc_ids) * (doc_ids > OOV_ID).unsqueeze(-1).to(
            self.doc_embedding.weight.dtype
        )
        return self.doc_encoder(emb, self._mask(doc_ids))

    def score_bound(self) -> float:
        """Every score is strictly below this (and above its negative): the towers end in tanh,
        so :func:`~axiomatic.models.similarity.tanh_score_bound` of ``(embedding_dim, eps)``."""
        return tanh_score_bound(self.embedding_dim, self.eps)

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return smooth_cosine(
            self.encode_queries(query_ids).float(), self.encode_documents(doc_ids).float(), self.eps
        )

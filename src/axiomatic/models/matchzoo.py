"""The other MatchZoo models of Rennings (2019, section 2.3.3), re-implemented in PyTorch.

DRMM, MatchPyramid, Duet, aNMM, ARC-I and MV-LSTM over word embeddings, sized for CPU. Each
docstring gives the scoring function and the paper; deviations from the papers are noted there.
All take ``query_ids (B, Lq)`` and ``doc_ids (B, Ld)`` and return scores ``(B,)``.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from axiomatic.models.vocab import OOV_ID, Vocabulary
from axiomatic.models.word import WordRankingModel, cosine_matrix, masked_softmax

_Emb = np.ndarray | torch.Tensor | None


def similarity_bins(sim: torch.Tensor, n_bins: int, exact_eps: float = 1e-5) -> torch.Tensor:
    """Bin index ``(B, Lq, Ld)`` of each similarity in ``[-1, 1]``, MatchZoo style:
    ``floor((s + 1) / 2 * (n_bins - 1))`` and the last bin reserved for exact matches ``s = 1``."""
    idx = torch.floor((sim.float() + 1.0) / 2.0 * (n_bins - 1)).long().clamp(0, n_bins - 2)
    return torch.where(sim >= 1.0 - exact_eps, torch.full_like(idx, n_bins - 1), idx)


def matching_histogram(
    sim: torch.Tensor, doc_mask: torch.Tensor, n_bins: int = 30, mode: str = "lch"
) -> torch.Tensor:
    """DRMM matching histograms ``(B, Lq, n_bins)`` (Guo et al., 2016, section 3.1).

    ``ch``: counts of document terms per similarity bin; ``nh``: counts / document length;
    ``lch``: ``log10(1 + count)`` (the best variant in the paper).
    """
    idx = similarity_bins(sim, n_bins)
    weight = doc_mask[:, None, :].expand_as(sim).float()
    hist = torch.zeros((*sim.shape[:2], n_bins), device=sim.device)
    hist.scatter_add_(2, idx, weight)
    if mode == "ch":
        return hist
    if mode == "nh":
        return hist / doc_mask.sum(1).clamp(min=1)[:, None, None].float()
    if mode == "lch":
        return torch.log10(hist + 1.0)
    raise ValueError(f"histogram mode must be 'ch', 'nh' or 'lch' (got {mode!r})")


class DRMM(WordRankingModel):
    """Deep Relevance Matching Model (Guo et al., 2016): matching histograms + term gating.

    ``z_i = FFN(h(q_i, d))`` with ``h`` the log-count histogram of ``cos(q_i, d_j)`` over
    ``n_bins`` bins (exact matches in the last); ``g_i = softmax_i(w_g^T q_i)`` (term gating on the
    query-term embedding); ``s(q, d) = sum_i g_i z_i``. The histogram is piecewise constant in the
    embeddings, so, as in the paper, embeddings get no gradient from it (only the gate's).
    """

    model_type = "drmm"
    citation = "Guo et al., CIKM 2016"

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        n_bins: int = 30,
        histogram: str = "lch",
        hidden_size: int = 5,
        freeze_embeddings: bool = False,
        embeddings: _Emb = None,
    ) -> None:
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        if histogram not in ("ch", "nh", "lch"):
            raise ValueError(f"histogram must be 'ch', 'nh' or 'lch' (got {histogram!r})")
        if n_bins < 3:
            raise ValueError(f"n_bins must be >= 3 (got {n_bins})")
        self.n_bins = n_bins
        self.histogram = histogram
        self.ffn = nn.Sequential(
            nn.Linear(n_bins, hidden_size), nn.Tanh(), nn.Linear(hidden_size, 1), nn.Tanh()
        )
        self.gate = nn.Linear(self.embedding_dim, 1, bias=False)
        self._store(n_bins=n_bins, histogram=histogram, hidden_size=hidden_size)

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        q, q_mask = self.embed(query_ids)
        d, d_mask = self.embed(doc_ids)
        hist = matching_histogram(cosine_matrix(q, d), d_mask, self.n_bins, self.histogram)
        z = self.ffn(hist).squeeze(-1)  # B, Lq
        g = masked_softmax(self.gate(q).squeeze(-1), q_mask)
        return (g * z.float()).sum(1)


class MatchPyramid(WordRankingModel):
    """MatchPyramid (Pang et al., 2016): text matching as image recognition.

    ``M_ij = q_i . d_j`` (or cosine) -> 2D convolution (``n_filters`` kernels of
    ``kernel_size``) + ReLU -> dynamic max pooling to ``pool_size`` -> MLP -> score. Dynamic
    pooling is adaptive max pooling over the matrix padded to the fixed maximum lengths (padding
    rows/columns are zero), so a pair's score does not depend on the rest of its batch.
    """

    model_type = "matchpyramid"
    citation = "Pang et al., AAAI 2016"
    fixed_length = True  # dynamic pooling regions then do not depend on the batch's padding

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        matching: str = "dot",
        n_filters: int = 32,
        kernel_size: tuple[int, int] | list[int] = (3, 3),
        pool_size: tuple[int, int] | list[int] = (3, 10),
        hidden_size: int = 64,
        dropout: float = 0.0,
        freeze_embeddings: bool = False,
        embeddings: _Emb = None,
    ) -> None:
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        if matching not in ("dot", "cosine"):
            raise ValueError(f"matching must be 'dot' or 'cosine' (got {matching!r})")
        kh, kw = (int(k) for k in kernel_size)
        ph, pw = (int(p) for p in pool_size)
        self.matching = matching
        self.conv = nn.Conv2d(1, n_filters, (kh, kw), padding=(kh // 2, kw // 2))
        self.pool = nn.AdaptiveMaxPool2d((ph, pw))
        self.mlp = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(dropout),
            nn.Linear(n_filters * ph * pw, hidden_size),
            nn.ReLU(),
            nn.Linear(hidden_size, 1),
        )
        self._store(
            matching=matching,
            n_filters=n_filters,
            kernel_size=[kh, kw],
            pool_size=[ph, pw],
            hidden_size=hidden_size,
            dropout=dropout,
        )

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        q, _ = self.embed(query_ids)
        d, _ = self.embed(doc_ids)
        if self.matching == "cosine":
            m = cosine_matrix(q, d)
        else:
            m = torch.bmm(q, d.transpose(1, 2))
        x = self.pool(F.relu(self.conv(m.unsqueeze(1))))
        return self.mlp(x).squeeze(-1)


class Duet(WordRankingModel):
    """Duet (Mitra et al., 2017): a local (exact-match) and a distributed model, summed.

    Local: binary matrix ``X_ij = [q_i = d_j]`` -> ``n_hidden`` filters spanning all document
    positions (``Ld x 1``) -> tanh -> FC -> FC -> dropout -> 1. Distributed: query conv (width 3) +
    max over positions + FC; document conv (width 3) + max pooling (window ``doc_pool_size``) +
    1x1 conv; Hadamard product -> FC -> FC -> dropout -> 1. ``s = s_local + s_distributed``.
    Deviation: the distributed part reads word embeddings instead of character-trigraph hashes.
    Inputs are always padded to exactly ``max_query_len`` / ``max_doc_len``.
    """

    model_type = "duet"
    citation = "Mitra et al., WWW 2017"
    fixed_length = True

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        n_hidden: int = 64,
        doc_pool_size: int = 100,
        dropout: float = 0.2,
        freeze_embeddings: bool = False,
        embeddings: _Emb = None,
    ) -> None:
        self.min_query_len = 3
        self.min_doc_len = 3
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        lq, ld, h = self.max_query_len, self.max_doc_len, n_hidden
        pool = max(1, min(int(doc_pool_size), ld - 2))
        self.local_conv = nn.Conv1d(ld, h, kernel_size=1)
        self.local_fc = nn.Sequential(
            nn.Flatten(),
            nn.Linear(h * lq, h),
            nn.Tanh(),
            nn.Linear(h, h),
            nn.Tanh(),
            nn.Dropout(dropout),
            nn.Linear(h, 1),
        )
        self.q_conv = nn.Conv1d(self.embedding_dim, h, kernel_size=3)
        self.q_fc = nn.Linear(h, h)
        self.d_conv = nn.Conv1d(self.embedding_dim, h, kernel_size=3)
        self.d_pool = nn.MaxPool1d(pool, stride=1)
        self.d_conv2 = nn.Conv1d(h, h, kernel_size=1)
        n_pos = (ld - 2) - pool + 1
        self.dist_fc = nn.Sequential(
            nn.Flatten(),
            nn.Linear(h * n_pos, h),
            nn.Tanh(),
            nn.Linear(h, h),
            nn.Tanh(),
            nn.Dropout(dropout),
            nn.Linear(h, 1),
        )
        self._store(n_hidden=n_hidden, doc_pool_size=pool, dropout=dropout)

    def _check_shape(self, ids: torch.Tensor, length: int, what: str) -> None:
        if ids.shape[1] != length:
            raise ValueError(
                f"Duet needs {what} padded to exactly {length} tokens (got {ids.shape[1]}); "
                "build inputs with model.encode_batch"
            )

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        self._check_shape(query_ids, self.max_query_len, "queries")
        self._check_shape(doc_ids, self.max_doc_len, "documents")
        real_q = query_ids > OOV_ID
        exact = (query_ids[:, :, None] == doc_ids[:, None, :]) & real_q[:, :, None]
        x_local = exact.to(self.local_conv.weight.dtype).transpose(1, 2)  # B, Ld, Lq
        local = self.local_fc(torch.tanh(self.local_conv(x_local))).squeeze(-1)

        q, _ = self.embed(query_ids)
        d, _ = self.embed(doc_ids)
        qv = torch.tanh(self.q_conv(q.transpose(1, 2))).amax(dim=2)  # B, h
        qv = torch.tanh(self.q_fc(qv))
        dv = torch.tanh(self.d_conv(d.transpose(1, 2)))
        dv = torch.tanh(self.d_conv2(self.d_pool(dv)))  # B, h, n_pos
        dist = self.dist_fc(qv.unsqueeze(-1) * dv).squeeze(-1)
        return local + dist


class ANMM(WordRankingModel):
    """aNMM-1 (Yang et al., 2016): value-shared weighting + question attention.

    ``x_ik = sum_j [bin(cos(q_i, d_j)) = k] cos(q_i, d_j)`` (sum of the matching signals falling in
    value range ``k``, exact matches in the last bin); ``h_i = tanh(sum_k w_k x_ik + b)`` with one
    set of weights ``w`` shared by all query terms; attention ``g_i = softmax_i(v^T q_i)``;
    ``s(q, d) = sum_i g_i h_i``. ``hidden_size > 0`` inserts a hidden layer after the bins.
    """

    model_type = "anmm"
    citation = "Yang et al., CIKM 2016"

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        n_bins: int = 20,
        hidden_size: int = 0,
        freeze_embeddings: bool = False,
        embeddings: _Emb = None,
    ) -> None:
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        if n_bins < 3:
            raise ValueError(f"n_bins must be >= 3 (got {n_bins})")
        self.n_bins = n_bins
        if hidden_size > 0:
            self.value_shared = nn.Sequential(
                nn.Linear(n_bins, hidden_size), nn.Tanh(), nn.Linear(hidden_size, 1), nn.Tanh()
            )
        else:
            self.value_shared = nn.Sequential(nn.Linear(n_bins, 1), nn.Tanh())
        self.attention = nn.Linear(self.embedding_dim, 1, bias=False)
        self._store(n_bins=n_bins, hidden_size=hidden_size)

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        q, q_mask = self.embed(query_ids)
        d, d_mask = self.embed(doc_ids)
        sim = cosine_matrix(q, d)
        idx = similarity_bins(sim.detach(), self.n_bins)
        values = sim * d_mask[:, None, :].float()
        x = torch.zeros((*sim.shape[:2], self.n_bins), device=sim.device, dtype=values.dtype)
        x = x.scatter_add(2, idx, values)
        h = self.value_shared(x).squeeze(-1)
        g = masked_softmax(self.attention(q).squeeze(-1), q_mask)
        return (g * h.float()).sum(1)


class ARCI(WordRankingModel):
    """ARC-I (Hu et al., 2014): a siamese convolutional encoder and an MLP on the two codes.

    For each text: ``n_layers`` x (Conv1d width ``kernel_size``, ``n_filters``, ReLU,
    max-pool 2); the flattened query and document codes are concatenated and scored by an MLP.
    Inputs are always padded to exactly ``max_query_len`` / ``max_doc_len``.
    """

    model_type = "arc-i"
    citation = "Hu et al., NIPS 2014"
    fixed_length = True

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        n_filters: int = 64,
        kernel_size: int = 3,
        n_layers: int = 2,
        hidden_size: int = 64,
        dropout: float = 0.1,
        freeze_embeddings: bool = False,
        embeddings: _Emb = None,
    ) -> None:
        self.min_query_len = self.min_doc_len = 2**n_layers
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        layers: list[nn.Module] = []
        channels = self.embedding_dim
        for _ in range(n_layers):
            layers += [
                nn.Conv1d(channels, n_filters, kernel_size, padding=kernel_size // 2),
                nn.ReLU(),
                nn.MaxPool1d(2),
            ]
            channels = n_filters
        self.encoder = nn.Sequential(*layers)

        def out_len(length: int) -> int:
            for _ in range(n_layers):
                length = (length + 2 * (kernel_size // 2) - kernel_size + 1) // 2
            return length

        code = n_filters * (out_len(self.max_query_len) + out_len(self.max_doc_len))
        self.mlp = nn.Sequential(
            nn.Dropout(dropout), nn.Linear(code, hidden_size), nn.ReLU(), nn.Linear(hidden_size, 1)
        )
        self._store(
            n_filters=n_filters,
            kernel_size=kernel_size,
            n_layers=n_layers,
            hidden_size=hidden_size,
            dropout=dropout,
        )

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        for ids, length, what in (
            (query_ids, self.max_query_len, "queries"),
            (doc_ids, self.max_doc_len, "documents"),
        ):
            if ids.shape[1] != length:
                raise ValueError(
                    f"ARC-I needs {what} padded to exactly {length} tokens (got {ids.shape[1]}); "
                    "build inputs with model.encode_batch"
                )
        q, _ = self.embed(query_ids)
        d, _ = self.embed(doc_ids)
        qc = self.encoder(q.transpose(1, 2)).flatten(1)
        dc = self.encoder(d.transpose(1, 2)).flatten(1)
        return self.mlp(torch.cat([qc, dc], dim=1)).squeeze(-1)


class MVLSTM(WordRankingModel):
    """MV-LSTM (Wan et al., 2016): bi-LSTM positional representations, interaction, k-max.

    A shared bi-LSTM gives every position of query and document a forward+backward vector;
    ``M_ij = cos(p^q_i, p^d_j)``; the ``top_k`` largest entries of ``M`` (over real positions)
    feed an MLP. (The paper's tensor-layer interaction is replaced by cosine, its best-scoring
    simple variant.)
    """

    model_type = "mv-lstm"
    citation = "Wan et al., AAAI 2016"

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        lstm_hidden: int = 50,
        top_k: int = 5,
        hidden_size: int = 32,
        dropout: float = 0.1,
        freeze_embeddings: bool = False,
        embeddings: _Emb = None,
    ) -> None:
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1 (got {top_k})")
        self.lstm = nn.LSTM(self.embedding_dim, lstm_hidden, batch_first=True, bidirectional=True)
        self.top_k = top_k
        self.mlp = nn.Sequential(
            nn.Linear(top_k, hidden_size), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden_size, 1)
        )
        self._store(lstm_hidden=lstm_hidden, top_k=top_k, hidden_size=hidden_size, dropout=dropout)

    def _positions(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        emb, mask = self.embed(ids)
        lengths = mask.sum(1).clamp(min=1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(
            emb, lengths, batch_first=True, enforce_sorted=False
        )
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=ids.shape[1])
        return out, mask

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        q, q_mask = self._positions(query_ids)
        d, d_mask = self._positions(doc_ids)
        sim = cosine_matrix(q, d)
        valid = q_mask[:, :, None] & d_mask[:, None, :]
        flat = sim.masked_fill(~valid, -2.0).flatten(1)
        k = min(self.top_k, flat.shape[1])
        top = flat.topk(k, dim=1).values
        top = torch.where(top < -1.5, torch.zeros_like(top), top)  # fewer than k real pairs
        if k < self.top_k:
            top = F.pad(top, (0, self.top_k - k))
        return self.mlp(top).squeeze(-1)

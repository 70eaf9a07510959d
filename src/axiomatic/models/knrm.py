"""Kernel-pooling rankers: KNRM (Xiong et al., 2017) and Conv-KNRM (Dai et al., 2018).

Both follow the reference implementation used by Rosset et al. (2019)
(github.com/thunlp/Kernel-Based-Neural-Ranking-Models): 11 RBF kernels with means
``mu in {1.0, 0.9, 0.7, ..., -0.9}``, width ``sigma = 0.1`` and ``sigma = 1e-3`` for the exact-match
kernel at ``mu = 1``; log soft-TF scaled by 0.01 and summed over query terms; ``tanh`` output.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from axiomatic.models.vocab import Vocabulary
from axiomatic.models.word import WordRankingModel, cosine_matrix


def kernel_mus(n_kernels: int = 11) -> list[float]:
    """Kernel means: the exact-match kernel at 1.0, then ``n_kernels - 1`` bins evenly covering
    ``[-1, 1)`` (centres 0.9, 0.7, ..., -0.9 for 11 kernels)."""
    if n_kernels < 2:
        raise ValueError(f"n_kernels must be >= 2 (got {n_kernels})")
    bin_size = 2.0 / (n_kernels - 1)
    mus = [1.0, 1.0 - bin_size / 2]
    for _ in range(n_kernels - 2):
        mus.append(mus[-1] - bin_size)
    return [round(m, 10) for m in mus]


def kernel_sigmas(
    n_kernels: int = 11, sigma: float = 0.1, exact_sigma: float = 1e-3
) -> list[float]:
    """Kernel widths: ``exact_sigma`` for the exact-match kernel, ``sigma`` for the others."""
    return [exact_sigma] + [sigma] * (n_kernels - 1)


_FAR = 1e3


def kernel_pooling(
    sim: torch.Tensor,
    query_mask: torch.Tensor,
    doc_mask: torch.Tensor,
    mus: torch.Tensor,
    sigmas: torch.Tensor,
    log_scale: float = 0.01,
) -> torch.Tensor:
    """KNRM kernel pooling (Xiong et al., 2017, eq. 3-5).

    ``K_k(M_i) = sum_j exp(-(M_ij - mu_k)^2 / (2 sigma_k^2))`` (soft term frequency of query term
    ``i`` at similarity level ``k``), ``phi(M) = sum_i log K(M_i)``.

    sim: ``(B, Lq, Ld)`` similarities; query_mask ``(B, Lq)``, doc_mask ``(B, Ld)`` booleans;
    mus, sigmas ``(K,)``. Returns ``(B, K)`` features (float32; log clamped at 1e-10, times
    ``log_scale``).
    """
    with torch.autocast(device_type=sim.device.type, enabled=False):
        # padding columns are moved far from every kernel (exp underflows to exactly 0), which
        # saves multiplying the 4-D kernel tensor by the mask
        x = sim.float().masked_fill(~doc_mask[:, None, :], _FAR).unsqueeze(-1)  # B, Lq, Ld, 1
        coef = -0.5 / sigmas.float() ** 2
        k = torch.exp((x - mus).square() * coef)
        soft_tf = k.sum(dim=2)  # B, Lq, K
        logs = torch.log(soft_tf.clamp(min=1e-10)) * log_scale
        return (logs * query_mask.unsqueeze(-1).float()).sum(dim=1)


class _KernelMixin(nn.Module):
    mus: torch.Tensor
    sigmas: torch.Tensor

    def _init_kernels(self, n_kernels: int, sigma: float, exact_sigma: float) -> None:
        self.register_buffer(
            "mus", torch.tensor(kernel_mus(n_kernels), dtype=torch.float32), persistent=False
        )
        self.register_buffer(
            "sigmas",
            torch.tensor(kernel_sigmas(n_kernels, sigma, exact_sigma), dtype=torch.float32),
            persistent=False,
        )


class KNRM(WordRankingModel, _KernelMixin):
    """K-NRM: kernel pooling over the word-embedding translation matrix (Xiong et al., 2017).

    ``M_ij = cos(q_i, d_j)``; ``f(q, d) = tanh(w^T phi(M) + b)`` with ``phi`` from
    :func:`kernel_pooling`. Inputs: ``query_ids (B, Lq)``, ``doc_ids (B, Ld)``; output ``(B,)``.
    """

    model_type = "knrm"
    citation = "Xiong et al., SIGIR 2017"

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        n_kernels: int = 11,
        sigma: float = 0.1,
        exact_sigma: float = 1e-3,
        output_tanh: bool = True,
        freeze_embeddings: bool = False,
        embeddings: np.ndarray | torch.Tensor | None = None,
    ) -> None:
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        self._init_kernels(n_kernels, sigma, exact_sigma)
        self.dense = nn.Linear(n_kernels, 1)
        self.output_tanh = output_tanh
        self._store(
            n_kernels=n_kernels, sigma=sigma, exact_sigma=exact_sigma, output_tanh=output_tanh
        )

    def features(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:
        """Kernel features ``(B, n_kernels)`` (the soft-TF matching signal)."""
        q, q_mask = self.embed(query_ids)
        d, d_mask = self.embed(doc_ids)
        return kernel_pooling(cosine_matrix(q, d), q_mask, d_mask, self.mus, self.sigmas)

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        out = self.dense(self.features(query_ids, doc_ids)).squeeze(-1)
        return torch.tanh(out) if self.output_tanh else out


def ngram_mask(mask: torch.Tensor, n: int) -> torch.Tensor:
    """``(B, L - n + 1)``: n-gram windows whose tokens are all real."""
    if n == 1:
        return mask
    return mask.unfold(1, n, 1).all(dim=-1)


class ConvKNRM(WordRankingModel, _KernelMixin):
    """Conv-KNRM: kernel pooling over cross-matched n-gram embeddings (Dai et al., 2018).

    For each n in 1..``max_ngram``: ``g^n = relu(Conv1d_n(E))`` with ``n_filters`` filters of width
    n; for every pair ``(h_q, h_d)`` of n-gram sizes the cosine matrix ``M^{h_q,h_d}`` is
    kernel-pooled; the ``max_ngram^2 * n_kernels`` features feed ``tanh(w^T phi + b)``.
    """

    model_type = "conv-knrm"
    citation = "Dai et al., WSDM 2018"

    def __init__(
        self,
        vocab: Vocabulary,
        embedding_dim: int = 128,
        max_query_len: int = 20,
        max_doc_len: int = 200,
        n_filters: int = 128,
        max_ngram: int = 3,
        n_kernels: int = 11,
        sigma: float = 0.1,
        exact_sigma: float = 1e-3,
        output_tanh: bool = True,
        freeze_embeddings: bool = False,
        embeddings: np.ndarray | torch.Tensor | None = None,
    ) -> None:
        if max_ngram < 1:
            raise ValueError(f"max_ngram must be >= 1 (got {max_ngram})")
        self.min_query_len = self.min_doc_len = max_ngram
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        self._init_kernels(n_kernels, sigma, exact_sigma)
        self.convs = nn.ModuleList(
            nn.Conv1d(self.embedding_dim, n_filters, kernel_size=n) for n in range(1, max_ngram + 1)
        )
        self.dense = nn.Linear(max_ngram * max_ngram * n_kernels, 1)
        self.output_tanh = output_tanh
        self.max_ngram = max_ngram
        self._store(
            n_filters=n_filters,
            max_ngram=max_ngram,
            n_kernels=n_kernels,
            sigma=sigma,
            exact_sigma=exact_sigma,
            output_tanh=output_tanh,
        )

    def _ngrams(self, ids: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        emb, mask = self.embed(ids)
        x = emb.transpose(1, 2)  # B, E, L
        # unit-normalized once here, so each of the max_ngram^2 cross matches is one bmm
        return [
            (F.normalize(F.relu(conv(x)).transpose(1, 2).float(), dim=-1), ngram_mask(mask, n))
            for n, conv in enumerate(self.convs, start=1)
        ]

    def features(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:
        qs = self._ngrams(query_ids)
        ds = self._ngrams(doc_ids)
        feats = [
            kernel_pooling(torch.bmm(q, d.transpose(1, 2)), qm, dm, self.mus, self.sigmas)
            for q, qm in qs
            for d, dm in ds
        ]
        return torch.cat(feats, dim=1)

    def forward(self, query_ids: torch.Tensor, doc_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        out = self.dense(self.features(query_ids, doc_ids)).squeeze(-1)
        return torch.tanh(out) if self.output_tanh else out

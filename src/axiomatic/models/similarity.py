"""Smooth cosine similarity (Liu et al., eq. 1): a model component, below the training layer.

The dual-encoder rankers (:mod:`axiomatic.models.clir`) score with it and the Smooth Ordinal
Search Loss (:mod:`axiomatic.training.smooth`) is built on it.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def smooth_cosine(x: torch.Tensor, z: torch.Tensor, eps: float = 1.0) -> torch.Tensor:
    r"""Smooth cosine similarity (Liu et al., eq. 1).

    .. math:: r_\epsilon(x, z) = \frac{x^\top z}{(\|x\| + \epsilon)(\|z\| + \epsilon)}

    ``x``, ``z``: ``(..., p)``; returns ``(...)`` in ``[-1, 1]`` (Cauchy-Schwarz). For
    ``eps > 0`` the gradient w.r.t. ``x`` is bounded by :math:`2/(\|x\|+\epsilon) \le 2/\epsilon`
    (appendix A.1), everywhere including ``x = 0``. ``eps = 0`` is plain cosine similarity; the
    denominator is then clamped at 1e-12 so that a zero vector scores 0 instead of NaN, but its
    gradient still grows like :math:`1/\|x\|` (the instability the paper removes).
    """
    eps = float(eps)
    if not eps >= 0 or math.isinf(eps):
        raise ValueError(f"smooth cosine eps must be a finite number >= 0 (got {eps})")
    dot = (x * z).sum(dim=-1)
    nx = torch.linalg.vector_norm(x, dim=-1)
    nz = torch.linalg.vector_norm(z, dim=-1)
    denom = (nx + eps) * (nz + eps)
    if eps == 0:
        denom = denom.clamp_min(1e-12)
    return dot / denom


class SmoothCosineSimilarity(nn.Module):
    """Module form of :func:`smooth_cosine` (``eps`` is a fixed hyper-parameter, not learned)."""

    def __init__(self, eps: float = 1.0) -> None:
        super().__init__()
        smooth_cosine(torch.zeros(1), torch.zeros(1), eps)  # validates eps
        self.eps = float(eps)

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        return smooth_cosine(x, z, self.eps)

    def extra_repr(self) -> str:
        return f"eps={self.eps}"


def smooth_cosine_grad_bound(x_norm: torch.Tensor | float, eps: float) -> torch.Tensor:
    r"""The appendix bound :math:`\|\nabla_x r_\epsilon\| \le 2 / (\|x\| + \epsilon)`."""
    return 2.0 / (torch.as_tensor(x_norm, dtype=torch.float64) + float(eps))


def tanh_score_bound(dim: int, eps: float) -> float:
    r"""The least upper bound of :math:`|r_\epsilon(x, z)|` over representations with every
    coordinate in ``(-1, 1)`` (tanh towers of dimension ``p = dim``):

    .. math:: |r_\epsilon(x, z)| \le \frac{\|x\|\,\|z\|}{(\|x\| + \epsilon)(\|z\| + \epsilon)}
              < \frac{p}{(\sqrt p + \epsilon)^2}

    (Cauchy-Schwarz, then :math:`t / (t + \epsilon)` increases in ``t`` and
    :math:`\|x\| < \sqrt p`). No score reaches it: a threshold at or above it leaves the top
    grade's segment empty (``p = 16, eps = 1``: 0.64 < 0.7). ``eps = 0`` gives 1.
    """
    p = int(dim)
    if p < 1:
        raise ValueError(f"dim must be >= 1 (got {dim})")
    e = float(eps)
    if not e >= 0 or math.isinf(e):
        raise ValueError(f"smooth cosine eps must be a finite number >= 0 (got {eps})")
    return p / (math.sqrt(p) + e) ** 2

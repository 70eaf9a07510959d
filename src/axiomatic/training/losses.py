"""Ranking losses and the axiomatic regularizer (Rosset et al. 2019).

All losses take score tensors produced by one forward pass of a
:class:`~axiomatic.models.base.NeuralRankingModel` and return a scalar (mean over the batch).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from axiomatic._suggest import suggest
from axiomatic.training.config import AR_NORMALIZATIONS

_DIMS = {"(B,)": 1, "(B, L)": 2}


def check_same_shape(
    name_a: str, a: torch.Tensor, name_b: str, b: torch.Tensor, expected: str, fix: str
) -> None:
    """Refuse two inputs that do not both have the shape ``expected`` (``"(B,)"`` or
    ``"(B, L)"``): torch would broadcast a ``(B, 1)`` against a ``(B,)`` into ``(B, B)`` and
    return a plausible but wrong loss. ``fix`` says how to get the expected shape."""
    if a.dim() != _DIMS[expected] or a.shape != b.shape:
        raise ValueError(
            f"{name_a} and {name_b} must both have shape {expected} (got {name_a} "
            f"{tuple(a.shape)} and {name_b} {tuple(b.shape)}); {fix}"
        )


_FIX_1D = "pass one flat score per item (e.g. .squeeze(-1) on a (B, 1) tensor)"
_FIX_2D = "pass one row of L scores and one row of L labels per list"


def pairwise_hinge(s_pos: torch.Tensor, s_neg: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    r"""Pairwise hinge loss (Herbrich et al. 2000; Rosset et al. 2019, eq. 2).

    .. math:: \ell(q, d_{pos}, d_{neg}) = \max\{0,\ \epsilon - (s(q,d_{pos}) - s(q,d_{neg}))\}

    ``s_pos``, ``s_neg``: ``(B,)`` scores (other shapes are refused: a ``(B, 1)`` against a
    ``(B,)`` would broadcast to ``(B, B)``); ``margin`` is epsilon. Returns the batch mean.
    """
    check_same_shape("s_pos", s_pos, "s_neg", s_neg, "(B,)", _FIX_1D)
    return F.relu(margin - (s_pos - s_neg)).mean()


def pointwise_mse(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    r"""Pointwise squared error to the relevance label: :math:`\frac1B\sum_i (s_i - y_i)^2`.

    ``scores``, ``labels``: ``(B,)`` (other shapes are refused). Rosset et al. (2019) add AR to
    such a regression loss for their proprietary DNN.
    """
    check_same_shape("scores", scores, "labels", labels, "(B,)", _FIX_1D)
    return F.mse_loss(scores, labels.to(scores.dtype))


def listwise_softmax_ce(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    r"""Listwise softmax cross-entropy (ListNet top-1 / "softmax loss").

    .. math:: \ell = -\sum_j \frac{y_j}{\sum_k y_k}\ \log \frac{e^{s_j}}{\sum_k e^{s_k}}

    ``scores``, ``labels``: ``(B, L)`` (other shapes are refused); each list needs a positive
    label (the sampler puts one relevant document first). Returns the mean over lists.
    """
    check_same_shape("scores", scores, "labels", labels, "(B, L)", _FIX_2D)
    target = labels.to(scores.dtype).clamp_min(0)
    target = target / target.sum(dim=1, keepdim=True).clamp_min(1e-12)
    return -(target * F.log_softmax(scores, dim=1)).sum(dim=1).mean()


@dataclass(frozen=True)
class AxiomaticRegularizationLoss:
    r"""Hinge loss with axiomatic regularization (Rosset et al. 2019, eq. 4).

    .. math::

        \ell_{AR}(q, d_{pos}, d_{neg}, \Delta_i) =
            \max\{0, \epsilon - (s(q,d_{pos}) - s(q,d_{neg}))\}
            + \lambda \max\{0, \mu - \delta_i (s(q,d_{pos}) - s(q,d_{pos}^{(i)}))\}
            + \lambda \max\{0, \mu - \delta_i (s(q,d_{neg}) - s(q,d_{neg}^{(i)}))\}

    where :math:`d^{(i)}` is the document perturbed along constraint :math:`\Delta_i` (drawn
    uniformly from the configured axioms, one per document) and :math:`\delta_i = +1` when the
    axiom says the original should score higher (TFC1-D, LNC), :math:`-1` otherwise (TFC1-A,
    TFC3).

    Documents whose perturbation did not apply (e.g. TFC3 when every query term is present) have
    mask :math:`m_b = 0` and no regularizer term. Each side's regularizer (the ``pos`` and the
    ``neg`` documents) is then averaged according to ``normalize``:

    * ``"applicable"`` (default): over the applicable terms,
      :math:`R = \sum_b m_b h_b / \max(1, \sum_b m_b)` with
      :math:`h_b = \max\{0, \mu - \delta_b (s_b - s^{(i)}_b)\}`. Each applicable perturbation
      weighs ``lambda / (number applicable)`` whatever the others did: the regularizer is the
      mean hinge of the perturbations that exist, so a run with an axiom that rarely applies
      (TFC3 applies to about 38% of MS MARCO documents) keeps its ``lambda``.
    * ``"batch"``: over the batch size, :math:`R = \frac1B \sum_b m_b h_b` (the earlier
      behaviour, used for the published Rosset tables): the effective weight shrinks to
      ``lambda x (fraction applicable)``.

    Both agree when every perturbation applies. The total is
    :math:`\ell_{base} + \lambda (R_{pos} + R_{neg})`.

    Inputs (all ``(B,)``): ``s_pos, s_neg, s_pos_pert, s_neg_pert`` scores from one forward pass;
    ``delta_pos, delta_neg`` in {-1, +1}; ``mask_pos, mask_neg`` in {0, 1}.
    ``base_loss`` optionally replaces the hinge term (e.g. MSE for pointwise training).
    """

    lambda_: float = 0.1
    mu: float = 0.1
    margin: float = 1.0
    normalize: str = "applicable"

    def __post_init__(self) -> None:
        if self.normalize not in AR_NORMALIZATIONS:
            hint = suggest(self.normalize, AR_NORMALIZATIONS, n=1, cutoff=0.6)
            raise ValueError(
                f"normalize must be one of {', '.join(AR_NORMALIZATIONS)} "
                f"(got {self.normalize!r}){hint}"
            )

    def regularizer(
        self,
        s_orig: torch.Tensor,
        s_pert: torch.Tensor,
        delta: torch.Tensor,
        mask: torch.Tensor,
    ) -> torch.Tensor:
        r""":math:`\sum_b m_b\max\{0, \mu - \delta_b (s_b - s^{(i)}_b)\}` over the applicable
        terms (``normalize="applicable"``) or over the batch size (``"batch"``). All four
        inputs ``(B,)`` (other shapes are refused)."""
        for name, t in (("s_pert", s_pert), ("delta", delta), ("mask", mask)):
            check_same_shape("s_orig", s_orig, name, t, "(B,)", _FIX_1D)
        m = mask.to(s_orig.dtype)
        term = F.relu(self.mu - delta.to(s_orig.dtype) * (s_orig - s_pert))
        if self.normalize == "batch":
            return (term * m).sum() / max(len(s_orig), 1)
        return (term * m).sum() / m.sum().clamp_min(1.0)

    def __call__(
        self,
        s_pos: torch.Tensor,
        s_neg: torch.Tensor,
        s_pos_pert: torch.Tensor,
        s_neg_pert: torch.Tensor,
        delta_pos: torch.Tensor,
        delta_neg: torch.Tensor,
        mask_pos: torch.Tensor,
        mask_neg: torch.Tensor,
        base_loss: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Returns ``(total, base, ar)`` with ``total = base + lambda * ar``."""
        base = pairwise_hinge(s_pos, s_neg, self.margin) if base_loss is None else base_loss
        ar = self.regularizer(s_pos, s_pos_pert, delta_pos, mask_pos) + self.regularizer(
            s_neg, s_neg_pert, delta_neg, mask_neg
        )
        return base + self.lambda_ * ar, base, ar

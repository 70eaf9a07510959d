r"""Smooth cosine similarity and ordinal (graded) pointwise losses (Liu et al., "Cross-Lingual
Document Retrieval with Smooth Learning"; ``../shared/papers/liu-smooth-crosslingual-retrieval``).

Why: cosine similarity has gradient :math:`\propto 1/\|x\|`, which explodes for representations
near the origin; the smooth cosine similarity (eq. 1) bounds it by :math:`2/\epsilon` (appendix
A.1, proof of Lemma 2). The Smooth Ordinal Search Loss (eq. 2) is zero inside the score segment
of the correct grade and quadratic outside, so its derivative in ``r`` is bounded (Proposition 1).

Grades are **0-based** here (``0 .. K-1``; the paper writes ``1 .. K``): grade ``y`` owns the
segment :math:`[\theta_y, \theta_{y+1}]` of :math:`-1 = \theta_0 < \theta_1 < \dots < \theta_K = 1`.
Every loss takes ``r`` of shape ``(B,)`` (scores in ``[-1, 1]``) and integer grades ``(B,)`` and
returns the batch mean (a scalar); ``per_example`` gives the ``(B,)`` values.

Losses (all modules, registry :data:`GRADED_LOSSES`, parsed from strings by
:func:`parse_graded_loss`, e.g. ``"sosl(thresholds=0.2,0.7)"``):

- :class:`SOSL` (Liu et al. eq. 2);
- :class:`GradedMSE`: squared error to the grade mapped linearly onto ``[-1, 1]``;
- :class:`ProportionalOdds`: cumulative-logit model of McCullagh (1980) on ``scale * r`` with
  estimated (learned, ordered) cut points starting at ``scale * thresholds``
  (``po(cuts=fixed)``: the cut points stay there);
- :class:`ThreePartL2`: the squared 3-part hinge of Nigam et al. (2019): the top grade is pushed
  above ``high``, every other grade ``k`` only below its own upper bound (one-sided, so the
  lower grades may overlap - the behaviour Liu et al.'s Figure 3 shows for it).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from axiomatic._params import ParamInfo
from axiomatic._registry import Registry
from axiomatic._suggest import suggest
from axiomatic.models.similarity import (
    tanh_score_bound,
)

PAPER_THRESHOLDS = (0.2, 0.7)  # Liu et al. section 5: theta = (0.2, 0.7) for K = 3


# ---------------------------------------------------------------------- thresholds
def validate_thresholds(
    thresholds: Sequence[float], n_grades: int | None = None
) -> tuple[float, ...]:
    r"""Check the interior thresholds :math:`\theta_1 < \dots < \theta_{K-1}` (``K - 1`` values,
    strictly increasing, strictly inside ``(-1, 1)``: :math:`\theta_0 = -1` and
    :math:`\theta_K = 1` are implicit). Returns them as a tuple of floats; raises ``ValueError``
    saying what is wrong otherwise."""
    try:
        th = tuple(float(t) for t in thresholds)
    except (TypeError, ValueError):
        raise ValueError(
            f"thresholds must be a list of numbers, e.g. [0.2, 0.7] (got {thresholds!r})"
        ) from None
    if n_grades is not None and len(th) != n_grades - 1:
        raise ValueError(
            f"{n_grades} grades need {n_grades - 1} interior thresholds theta_1 < ... < "
            f"theta_{n_grades - 1} (got {len(th)}: {list(th)}); -1 and 1 are implicit"
        )
    if not th:
        raise ValueError("thresholds: give at least one interior threshold (K >= 2 grades)")
    for i, t in enumerate(th):
        if not -1.0 < t < 1.0:
            raise ValueError(
                f"threshold theta_{i + 1} = {t} is outside (-1, 1); scores are smooth cosine "
                "similarities in [-1, 1] and -1 = theta_0, theta_K = 1 are implicit"
            )
    for i in range(1, len(th)):
        if not th[i] > th[i - 1]:
            raise ValueError(
                f"thresholds must be strictly increasing (theta_{i} = {th[i - 1]} >= "
                f"theta_{i + 1} = {th[i]}); e.g. [0.2, 0.7]"
            )
    return th


def unreachable_thresholds(
    thresholds: Sequence[float], bound: float, where: str = ""
) -> str | None:
    r"""``None`` when every grade's segment holds reachable scores, else a message naming the
    bound. ``bound``: every score lies strictly inside ``(-bound, bound)`` (for tanh towers
    :func:`~axiomatic.models.similarity.tanh_score_bound`, :math:`p/(\sqrt p+\epsilon)^2`). A
    threshold at or above ``bound`` empties the segments above it (the top grade can never be
    predicted, SOSL pushes every top-grade score at a wall it cannot reach); one at or below
    ``-bound`` empties those below it."""
    th = validate_thresholds(thresholds)
    b = float(bound)
    high = [(i + 1, t) for i, t in enumerate(th) if t >= b]
    low = [(i + 1, t) for i, t in enumerate(th) if t <= -b]
    if not high and not low:
        return None
    parts = []
    if high:
        i, t = high[0]
        parts.append(
            f"theta_{i} = {t:g} is at or above it, so {_grade_list(range(i, len(th) + 1))}"
        )
    if low:
        i, t = low[-1]
        parts.append(f"theta_{i} = {t:g} is at or below -{b:.4g}, so {_grade_list(range(i))}")
    return (
        f"unreachable thresholds {list(th)}{' ' + where if where else ''}: every score lies "
        f"strictly inside (-{b:.4g}, {b:.4g}) and " + "; ".join(parts) + ". Lower the "
        "thresholds, lower eps or raise the embedding dimension"
    )


def _grade_list(grades: Sequence[int]) -> str:
    g = list(grades)
    return (
        ("grade " if len(g) == 1 else "grades ") + ", ".join(map(str, g)) + " can never be reached"
    )


def tanh_threshold_problem(thresholds: Sequence[float], dim: int, eps: float) -> str | None:
    r""":func:`unreachable_thresholds` for tanh towers of dimension ``dim`` scored by
    :math:`r_\epsilon`: the bound is :math:`p/(\sqrt p+\epsilon)^2`
    (:func:`~axiomatic.models.similarity.tanh_score_bound`), named in the message."""
    bound = tanh_score_bound(dim, eps)
    return unreachable_thresholds(
        thresholds,
        bound,
        f"with tanh towers of dimension p = {int(dim)} and eps = {float(eps):g} "
        f"(bound p/(sqrt(p)+eps)^2 = {bound:.4g})",
    )


def _grades(y: torch.Tensor, n_grades: int, r: torch.Tensor) -> torch.Tensor:
    y = torch.as_tensor(y, device=r.device)
    if y.shape != r.shape:
        raise ValueError(f"scores {tuple(r.shape)} and grades {tuple(y.shape)} differ in shape")
    if y.numel() and (y.min() < 0 or y.max() > n_grades - 1):
        raise ValueError(
            f"grades must lie in 0..{n_grades - 1} for {n_grades - 1} thresholds "
            f"(got min {int(y.min())}, max {int(y.max())})"
        )
    return y.long()


class GradedLoss(nn.Module):
    """Base of the pointwise graded losses: ``forward(r, y) -> mean``; ``per_example(r, y)``."""

    name = "graded"

    def __init__(self, thresholds: Sequence[float] = PAPER_THRESHOLDS) -> None:
        super().__init__()
        self.thresholds = validate_thresholds(thresholds)
        self.n_grades = len(self.thresholds) + 1

    def bounds(
        self, device: torch.device | None = None, dtype: torch.dtype = torch.float64
    ) -> torch.Tensor:
        """``(K + 1,)`` tensor ``[-1, theta_1, ..., theta_{K-1}, 1]`` (built in ``dtype``
        directly: a float32 0.2 cast to float64 would leave a tiny loss inside the segment)."""
        return torch.tensor((-1.0, *self.thresholds, 1.0), device=device, dtype=dtype)

    def per_example(self, r: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def forward(self, r: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.per_example(r, y).mean()

    def extra_repr(self) -> str:
        return f"thresholds={list(self.thresholds)}"


class SOSL(GradedLoss):
    r"""Smooth Ordinal Search Loss (Liu et al., eq. 2; immediate-threshold construction of
    Rennie & Srebro 2005 with a squared penalty).

    .. math:: SOSL(r, y) = (\theta_{y+1} - r)^2\,\mathbb 1[r > \theta_{y+1}]
                         + (r - \theta_y)^2\,\mathbb 1[r < \theta_y]

    (0-based ``y``). Zero inside the correct segment; for ``r`` in ``[-1, 1]``
    :math:`|\partial SOSL/\partial r| \le \max(2|1+\theta_y|, 2|1-\theta_{y+1}|) \le 4`
    (appendix, proof of Proposition 1; :meth:`grad_bound`). Inputs ``r (B,)``, ``y (B,)`` ints.
    """

    name = "sosl"

    def per_example(self, r: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        y = _grades(y, self.n_grades, r)
        b = self.bounds(r.device, r.dtype)
        lo, hi = b[y], b[y + 1]
        return F.relu(r - hi).square() + F.relu(lo - r).square()

    def grad_bound(self, y: torch.Tensor) -> torch.Tensor:
        """Per-example bound ``max(2|1 + theta_y|, 2|1 - theta_{y+1}|)`` for ``r`` in [-1, 1]."""
        b = self.bounds().double()
        y = torch.as_tensor(y).long()
        return torch.maximum(2 * (1 + b[y]).abs(), 2 * (1 - b[y + 1]).abs())


class GradedMSE(GradedLoss):
    r"""Mean squared error to the grade mapped linearly onto ``[-1, 1]``:
    :math:`(r - t_y)^2`, :math:`t_y = -1 + 2y/(K-1)` (NR -1, SR 0, MR 1 for K = 3). The
    thresholds only fix K (they are used at prediction time, not by the loss)."""

    name = "mse"

    def per_example(self, r: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        y = _grades(y, self.n_grades, r)
        target = -1.0 + 2.0 * y.to(r.dtype) / (self.n_grades - 1)
        return (r - target).square()


class ProportionalOdds(GradedLoss):
    r"""Proportional odds / cumulative logit model (McCullagh 1980) on the score ``r``:

    .. math:: P(Y \le k \mid r) = \sigma(c_{k+1} - s\,r),\qquad
              \ell(r, y) = -\log\big(P(Y \le y) - P(Y \le y - 1)\big)

    (0-based ``y``; :math:`c_0 = -\infty`, :math:`c_K = +\infty`), with a fixed slope ``scale``
    ``s`` because ``r`` lives in ``[-1, 1]``. Cut points (``cuts``):

    - ``"learned"`` (default, McCullagh's model): the ``K - 1`` cut points are *estimated*
      with the ranker - parameters of this module (:meth:`cut_points`), ordered by
      construction (the first one plus cumulative gaps ``softplus(.) + MIN_GAP``: strictly
      increasing whatever the optimizer does), initialized at ``s * thresholds``. The trainer's graded strategy adds them to the optimizer and keeps
      them in its checkpoint;
    - ``"fixed"``: the cut points stay at ``s * thresholds`` (SOSL's thresholds; no parameter).

    Computed in log space:
    :math:`\log(\sigma(b)-\sigma(a)) = \log\sigma(b) + \log\sigma(-a) + \log(1-e^{a-b})`.
    """

    name = "po"
    CUTS = ("learned", "fixed")
    MIN_GAP = 1e-3  # learned cut points stay at least this far apart (strictly ordered, finite)

    def __init__(
        self,
        thresholds: Sequence[float] = PAPER_THRESHOLDS,
        scale: float = 10.0,
        cuts: str = "learned",
    ) -> None:
        super().__init__(thresholds)
        if not float(scale) > 0:
            raise ValueError(f"proportional odds scale must be > 0 (got {scale})")
        if cuts not in self.CUTS:
            raise ValueError(
                f"proportional odds cuts must be 'learned' (McCullagh's estimated cut points) or "
                f"'fixed' (s * thresholds) (got {cuts!r})"
            )
        self.scale = float(scale)
        self.cuts = str(cuts)
        init = [self.scale * t for t in self.thresholds]
        if self.cuts == "learned":
            f64 = torch.float64  # exact s * thresholds at the start (the model may be float32)
            gaps = [max(b - a - self.MIN_GAP, 1e-3) for a, b in itertools.pairwise(init)]
            # softplus^-1(g) = log(expm1(g)): the gaps start at those of s * thresholds
            self.cut_first = nn.Parameter(torch.tensor([init[0]], dtype=f64))
            self.cut_gaps = nn.Parameter(torch.log(torch.expm1(torch.tensor(gaps, dtype=f64))))

    def cut_points(
        self, device: torch.device | None = None, dtype: torch.dtype = torch.float64
    ) -> torch.Tensor:
        r"""The ``K - 1`` cut points :math:`c_1 < \dots < c_{K-1}` (on the scale of ``s * r``);
        differentiable in the parameters when learned."""
        if self.cuts == "fixed":
            return torch.tensor(self.thresholds, device=device, dtype=dtype) * self.scale
        first = self.cut_first.to(device=device, dtype=dtype)
        gaps = F.softplus(self.cut_gaps.to(device=device, dtype=dtype)) + self.MIN_GAP
        return torch.cat([first, first + torch.cumsum(gaps, 0)])

    def per_example(self, r: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        y = _grades(y, self.n_grades, r)
        K = self.n_grades
        cuts = self.cut_points(r.device, r.dtype)
        eta = r * self.scale
        big = torch.finfo(r.dtype).max / 4
        # cut points below / above the grade: c_y and c_{y+1} (+-inf at the ends)
        pad = torch.cat([cuts.new_tensor([-big]), cuts, cuts.new_tensor([big])])
        a = pad[y] - eta  # lower cut
        b = pad[y + 1] - eta  # upper cut
        top = y == K - 1
        bottom = y == 0
        mid = -(F.logsigmoid(b) + F.logsigmoid(-a) + torch.log(-torch.expm1(a - b)))
        out = torch.where(bottom, -F.logsigmoid(b), mid)
        return torch.where(top, -F.logsigmoid(-a), out)

    def extra_repr(self) -> str:
        return f"thresholds={list(self.thresholds)}, scale={self.scale}, cuts={self.cuts!r}"


class ThreePartL2(GradedLoss):
    r"""Squared 3-part hinge loss (Nigam et al. 2019, "Semantic Product Search", generalized to
    K grades): the top grade must score at least ``high``, grade ``k < K-1`` at most
    ``uppers[k]``:

    .. math:: \ell(r, K\!-\!1) = \max(0, \epsilon_{high} - r)^2,\qquad
              \ell(r, k) = \max(0, r - \epsilon_k)^2

    Defaults for K = 3 are Nigam et al.'s ``high = 0.9``, ``uppers = (0.2, 0.55)`` (random
    negatives below 0.2, impressed-not-purchased below 0.55). ``thresholds`` fix K (and are the
    prediction thresholds). Unlike SOSL the lower grades have no lower bound.
    """

    name = "3partl2"

    def __init__(
        self,
        thresholds: Sequence[float] = PAPER_THRESHOLDS,
        high: float = 0.9,
        uppers: Sequence[float] | None = None,
    ) -> None:
        super().__init__(thresholds)
        K = self.n_grades
        if uppers is None:
            uppers = (
                (0.2, 0.55)
                if K == 3
                else tuple(0.2 + 0.35 * k / max(K - 2, 1) for k in range(K - 1))
            )
        self.uppers = tuple(float(u) for u in uppers)
        if len(self.uppers) != K - 1:
            raise ValueError(
                f"3partl2 needs one upper bound per non-top grade ({K - 1} for {K} grades; "
                f"got {len(self.uppers)})"
            )
        self.high = float(high)

    def per_example(self, r: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        y = _grades(y, self.n_grades, r)
        up = torch.tensor((*self.uppers, 0.0), device=r.device, dtype=r.dtype)[y]
        top = y == self.n_grades - 1
        return torch.where(top, F.relu(self.high - r).square(), F.relu(r - up).square())

    def extra_repr(self) -> str:
        return f"thresholds={list(self.thresholds)}, high={self.high}, uppers={list(self.uppers)}"


GRADED_LOSSES: Registry[type[GradedLoss]] = Registry(
    "graded loss",
    {"sosl": SOSL, "mse": GradedMSE, "po": ProportionalOdds, "3partl2": ThreePartL2},
    aliases={"proportional-odds": "po", "pos": "po", "3part": "3partl2", "threepartl2": "3partl2"},
)
"""Graded losses by name (:class:`axiomatic._registry.Registry`)."""
_THRESHOLDS = ParamInfo(
    "thresholds",
    "list[float]",
    PAPER_THRESHOLDS,
    low=-1,
    low_open=True,
    high=1,
    high_open=True,
    description="interior thresholds theta_1 < ... < theta_(K-1) of the K grades' score "
    "segments, strictly increasing (-1 and 1 are implicit; Liu et al.: 0.2, 0.7)",
)
GRADED_PARAMS: dict[str, dict[str, ParamInfo]] = {
    "sosl": {"thresholds": _THRESHOLDS},
    "mse": {
        "thresholds": dataclasses.replace(
            _THRESHOLDS, description="the grades' thresholds: fix K and predict grades"
        )
    },
    "po": {
        "thresholds": dataclasses.replace(
            _THRESHOLDS,
            description="the grades' thresholds: the cut points start at scale * thresholds",
        ),
        "scale": ParamInfo(
            "scale", "float", 10.0, low=0, low_open=True, description="the slope s of s * r"
        ),
        "cuts": ParamInfo(
            "cuts",
            "str",
            "learned",
            choices=ProportionalOdds.CUTS,
            description="learned: McCullagh's estimated cut points (trained with the ranker); "
            "fixed: they stay at scale * thresholds",
        ),
    },
    "3partl2": {
        "thresholds": dataclasses.replace(
            _THRESHOLDS, description="the grades' thresholds: fix K and predict grades"
        ),
        "high": ParamInfo(
            "high", "float", 0.9, description="the score the top grade must reach (Nigam et al.)"
        ),
        "uppers": ParamInfo(
            "uppers",
            "list[float] | None",
            None,
            description="the score each lower grade must stay below, one per non-top grade "
            "(default for 3 grades 0.2, 0.55, Nigam et al.'s)",
        ),
    },
}
"""The parameters each graded loss takes in a spec, with their records
(:func:`parse_graded_loss` checks them)."""
GRADED_TEXT = {
    "sosl": "Smooth Ordinal Search Loss (Liu et al. eq. 2): zero inside the grade's score "
    "segment, quadratic outside",
    "mse": "squared error to the grade mapped linearly onto [-1, 1]",
    "po": "proportional odds (McCullagh 1980): cumulative logits of scale * r, learned or "
    "fixed cut points",
    "3partl2": "squared 3-part hinge (Nigam et al. 2019): the top grade above high, the others "
    "below their own upper bound",
}
"""What each graded loss is, in one line (the listing of ``axiomatic losses``)."""
DISPLAY = {"sosl": "SOSL", "mse": "MSE", "po": "PO", "3partl2": "3PartL2"}


def parse_graded_loss(spec: str | None, n_grades: int | None = None) -> GradedLoss:
    """``"sosl(thresholds=0.2,0.7)"``, ``"po(scale=10)"`` (learned cut points; ``"po(cuts=fixed)"``
    keeps them at ``scale * thresholds``), ``"3partl2(high=0.9)"``, ``"mse"``
    -> a loss module (safe parsing, no ``eval``; unknown names get close-match suggestions)."""
    from axiomatic._keyvalue import parse_call

    call_name, call_params = parse_call(
        spec or "sosl",
        what="graded loss",
        example="sosl(thresholds=0.2,0.7)",
        tokens=True,
        lists=True,
    )
    name = GRADED_LOSSES.resolve(call_name)
    cls = GRADED_LOSSES.get(name)
    params: dict[str, Any] = dict(call_params)
    allowed = GRADED_PARAMS[name]
    for k in params:
        if k not in allowed:
            raise ValueError(
                f"graded loss {name!r} has no parameter {k!r}{suggest(k, sorted(allowed), n=1)}; "
                f"expected {sorted(allowed)}"
            )
        params[k] = allowed[k].coerce(
            params[k], f"graded loss {name!r} parameter {k!r} in {spec!r}"
        )
    loss = cls(**params)
    if n_grades is not None and loss.n_grades != n_grades:
        validate_thresholds(loss.thresholds, n_grades)
    return loss


def predict_grades(r: torch.Tensor, thresholds: Sequence[float]) -> torch.Tensor:
    """The grade whose segment holds each score (``0 .. K-1``)."""
    th = torch.tensor(validate_thresholds(thresholds), dtype=r.dtype, device=r.device)
    return torch.bucketize(r, th)


def graded_points(dataset: Any, depth: int | None = None) -> list[Any]:
    """Pointwise training examples ``(query, document, grade)`` of a graded dataset, as sampler
    items (:class:`~axiomatic.training.samplers.Pair` with ``doc_hi == doc_lo`` = the document
    and ``label_hi == label_lo`` = its grade, ``source="points"``).

    Documents: the judged ones plus the first ``depth`` candidates; unjudged candidates count as
    grade 0 (the usual re-ranking convention). Sorted by (query, document) for determinism.
    """
    from axiomatic.training.samplers import Pair

    out: list[Pair] = []
    for qid in dataset.queries:
        cands = dataset.candidate_ids(qid) if dataset.candidates is not None else []
        if depth is not None:
            cands = cands[:depth]
        grades: dict[str, int] = {d: 0 for d in cands}
        grades.update({d: int(g) for d, g in dataset.judged(qid).items() if d in dataset.documents})
        for d in sorted(grades):
            g = float(grades[d])
            out.append(Pair(qid, d, d, g, g, "points"))
    if not out:
        raise ValueError(
            f"no graded training examples in {getattr(dataset, 'name', 'the dataset')}: it needs "
            "qrels or candidate lists"
        )
    return out

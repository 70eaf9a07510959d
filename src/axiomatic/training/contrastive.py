r"""ACRank's contrastive training (Bo et al. 2023, eqs. 5, 8, 9) as a trainer loss strategy.

Configured by the augmentation string ``acrank(rule='TFC-A&D', p=0.5, loss=infonce, negatives=3)``
(``TrainConfig.augmentation``; ``loss = "contrastive"`` in the config selects the same strategy
with its defaults):

``rule``      ``TFC-A`` | ``TFC-D`` | ``TFC-A&D`` | ``none`` (original data only)
``p``         per-term insertion / per-occurrence deletion probability, in [0, 1]
``loss``      ``infonce`` (ACRank's L()) or ``hinge`` (the baseline loss: pairwise hinge, and
              the edited documents as extra ordered pairs - the AP baseline of the paper)
``negatives`` sampled non-relevant candidates per query (InfoNCE only; default ``list_size-1``)

InfoNCE (eq. 5): :math:`L = -\log \frac{e^{S(q,d^+)}}{e^{S(q,d^+)} + \sum_l e^{S(q,d_l^-)}}`.
For each training pair (relevant ``d``, a lower-graded document) the list is built from
:math:`N`, ``negatives`` documents labelled non-relevant (sec. 3.2.4): the pair's lower document
first when it is non-relevant, the others drawn from the query's non-relevant documents (on
graded data a lower document may be relevant, grade 1 below grade 2, and is then no negative):

* ``none``: :math:`d^+ = d`, negatives = sampled non-relevant documents :math:`N`;
* ``TFC-A`` (eq. 8): :math:`d^+ = d_{pos}^+` (query terms prepended), negatives
  :math:`\{d\} \cup N` - the original joins the negatives;
* ``TFC-D`` (eq. 9, read as the paper's sentence says; see docs/acrank.md): :math:`d^+ = d`, negatives
  :math:`\{d_{pos}^-\} \cup N` - the perturbed document joins the negatives;
* ``TFC-A&D``: :math:`d^+ = d_{pos}^+`, negatives :math:`\{d, d_{pos}^-\} \cup N`.

An edit that did not happen (no term drawn, no visible query-term occurrence, an all-stopword
query) leaves that part of the list out: the item is trained on the original data, and the
count is logged (``aug_*`` keys in ``log.jsonl``), never trained on as if perturbed.

With ``loss = hinge``: :math:`\max(0, \epsilon - (s(d) - s(n)))` over the pair (its lower
document ``n`` even when it is relevant: a hinge only asks for the order of the grades, grade 2
above grade 1, as the plain pairwise baseline does; InfoNCE instead pushes every negative
away from ``d``, which a relevant document must not be), plus one hinge per edit ordered as
the rule says (:math:`d^+ > d`, :math:`d > d^-`), averaged over all pairs (the project's AP
mechanism, :class:`~axiomatic.training.config.PerturbAugmentSpec`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F

from axiomatic.training.config import ACRankAugmentSpec
from axiomatic.training.losses import pairwise_hinge
from axiomatic.training.samplers import Pair, negatives_by_query
from axiomatic.training.strategy_base import LossStrategy, StepContext

if TYPE_CHECKING:
    from axiomatic.training.config import TrainConfig


def info_nce(scores: torch.Tensor, valid: torch.Tensor | None = None) -> torch.Tensor:
    r"""InfoNCE with the positive in column 0 (Bo et al. 2023, eq. 5; Gao & Callan's Condenser).

    .. math:: L = \frac1B \sum_b -\log \frac{e^{s_{b0}}}{\sum_{j} e^{s_{bj}}}

    ``scores``: ``(B, L)`` with ``L >= 1`` (a row of only the positive adds 0); ``valid``:
    ``(B, L)`` booleans (padding columns excluded), true in column 0. Returns the mean over
    rows. Other shapes are refused (a 1-D input has no candidate axis).
    """
    if scores.dim() != 2 or scores.shape[1] < 1:
        raise ValueError(
            f"info_nce expects scores of shape (B, L) with L >= 1, the positive in column 0 "
            f"(got shape {tuple(scores.shape)}); pass one row per query, e.g. "
            "scores.unsqueeze(0) for a single list"
        )
    if valid is not None:
        if valid.shape != scores.shape or valid.dtype != torch.bool:
            raise ValueError(
                f"info_nce's valid must be a boolean tensor of the scores' shape "
                f"{tuple(scores.shape)} (got {valid.dtype} of shape {tuple(valid.shape)}); "
                "mark each row's real candidates True and its padding False"
            )
        if not bool(valid[:, 0].all()):
            raise ValueError(
                "info_nce's valid must be True in column 0 of every row (got a row whose "
                "positive is masked out, which makes its loss NaN); put each row's positive "
                "in column 0"
            )
        scores = scores.masked_fill(~valid, float("-inf"))
    return -(F.log_softmax(scores, dim=1)[:, 0]).mean()


class ACRankLossStrategy(LossStrategy):
    """ACRank's step (module docstring). Works with any
    :class:`~axiomatic.models.base.NeuralRankingModel`: the ACRank scorer, the cross-encoder
    (AP / BERT rows), KNRM."""

    name = "acrank"
    count_keys = frozenset(
        {"aug_plus", "aug_minus", "aug_all_stopword_queries", "aug_no_query_term"}
    )

    def __init__(self, spec: ACRankAugmentSpec, margin: float = 1.0) -> None:
        self.spec = spec
        self.margin = margin

    @classmethod
    def from_config(cls, cfg: TrainConfig) -> ACRankLossStrategy:
        if cfg.regularizer:
            raise ValueError(
                "ACRank's contrastive strategy does not combine with the AR regularizer "
                f"({cfg.regularizer!r}); drop one of regularizer / acrank(...)"
            )
        aug = cfg.augment
        spec = aug if isinstance(aug, ACRankAugmentSpec) else ACRankAugmentSpec()
        if spec.negatives is None:
            spec = ACRankAugmentSpec(spec.rule, spec.p, spec.loss, max(1, cfg.list_size - 1))
        return cls(spec, cfg.margin)

    def setup(self, ctx: StepContext, pools: dict[str, list[Pair]]) -> None:
        from axiomatic.perturb.acrank import ACRankAugmenter
        from axiomatic.training.augmenters import visible_tokens

        self.rel_threshold = float(ctx.train_data.rel_threshold)
        self.negatives = negatives_by_query(pools["qrels"], self.rel_threshold)
        lang = ctx.train_data.doc_language or ctx.train_data.language or "en"
        limit = visible_tokens(ctx.model)
        if limit is not None and str(lang).startswith("zh"):
            limit = max(8, int(getattr(ctx.model, "max_length", 2 * limit)) - 24)
        self.augmenter = ACRankAugmenter(
            self.spec.rule, self.spec.p, language=str(lang), max_position=limit
        )

    def _negatives(self, p: Pair, rng: np.random.Generator) -> list[str]:
        """The InfoNCE negatives of pair ``p``: documents labelled non-relevant (Bo et al.
        2023, sec. 3.2.4). The pair's lower document comes first when it is non-relevant
        (``label_lo`` below the dataset's relevance threshold) and the rest are drawn from the
        query's non-relevant pool; a relevant lower document (grade 1 below grade 2 on graded
        data) is never a negative, and all of them are then drawn from the pool."""
        own = [p.doc_lo] if float(p.label_lo) < self.rel_threshold else []
        others = [d for d in self.negatives.get(p.query_id, []) if d not in (p.doc_hi, p.doc_lo)]
        k = min(int(self.spec.negatives or 1) - len(own), len(others))
        extra = (
            [others[int(i)] for i in rng.choice(len(others), size=k, replace=False)] if k else []
        )
        return [*own, *extra]

    def step_loss(
        self, ctx: StepContext, batch: list[Pair], step: int
    ) -> tuple[torch.Tensor, dict[str, float]]:
        rng = ctx.rng(step, 23)
        before = self.augmenter.stats.to_dict()
        all_q: list[str] = []
        all_d: list[str] = []
        rows: list[list[int]] = []  # per item: [positive index, negative indices...]
        pairs: list[tuple[int, int]] = []  # hinge: (higher, lower) indices
        n_plus = n_minus = 0

        def add(q: str, text: str) -> int:
            all_q.append(q)
            all_d.append(text)
            return len(all_d) - 1

        for p in batch:
            q = ctx.query_text(p.query_id)
            d_text = ctx.text(p.doc_hi)
            aug = self.augmenter.augment(q, d_text, rng)
            orig = add(q, d_text)
            plus = add(q, aug.plus.text) if aug.plus is not None else None
            minus = add(q, aug.minus.text) if aug.minus is not None else None
            n_plus += plus is not None
            n_minus += minus is not None
            if self.spec.loss == "infonce":
                negs = [add(q, ctx.text(n)) for n in self._negatives(p, rng)]
                if plus is not None:
                    row = [plus, orig]
                else:
                    row = [orig]
                if minus is not None:
                    row.append(minus)
                rows.append(row + negs)
            else:
                neg = add(q, ctx.text(p.doc_lo))
                pairs.append((orig, neg))
                if plus is not None:
                    pairs.append((plus, orig))
                if minus is not None:
                    pairs.append((orig, minus))
        scores = self.scores(ctx, all_q, all_d)
        info: dict[str, float] = {"aug_plus": float(n_plus), "aug_minus": float(n_minus)}
        after = self.augmenter.stats.to_dict()
        for key in ("all_stopword_queries", "no_query_term"):
            info[f"aug_{key}"] = float(after[key] - before[key])
        if self.spec.loss == "infonce":
            width = max(len(r) for r in rows)
            idx = torch.tensor([r + [r[0]] * (width - len(r)) for r in rows], device=scores.device)
            valid = torch.tensor(
                [[True] * len(r) + [False] * (width - len(r)) for r in rows], device=scores.device
            )
            loss = info_nce(scores[idx], valid)
        else:
            hi = torch.tensor([a for a, _ in pairs], device=scores.device)
            lo = torch.tensor([b for _, b in pairs], device=scores.device)
            loss = pairwise_hinge(scores[hi], scores[lo], self.margin)
        info["base_loss"] = float(loss.detach())
        return loss, info

    def stats(self) -> dict[str, int]:
        """Augmentation counts over every step of the run: those of a resumed run's earlier
        steps come back from the checkpoint (:meth:`load_state_dict`)."""
        return self.augmenter.stats.to_dict()

    def state_dict(self) -> dict[str, Any]:
        return {"augment_stats": self.augmenter.stats.to_dict()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        stats = self.augmenter.stats
        for key, value in dict(state.get("augment_stats") or {}).items():
            if key in stats.__dict__:
                setattr(stats, key, int(value))

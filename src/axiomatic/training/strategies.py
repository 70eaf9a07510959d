"""Loss strategies: how one training step turns a batch of pairs into a loss.

The :class:`~axiomatic.training.trainer.Trainer` owns the loop (sampling, optimizer, dev
evaluation, checkpoints, logs); a strategy owns the step's loss. Strategies are pluggable
objects (``Trainer(..., loss_strategy=...)``) that see a small
:class:`~axiomatic.training.strategy_base.StepContext`, never the trainer; without one the
trainer picks from the config:

* :class:`PairwiseLossStrategy` - hinge / MSE / listwise softmax, plus Rosset et al.'s AR
  regularizer or the ``perturb(...)`` (AP) augmentation;
* :class:`GradedLossStrategy` - pointwise graded losses (``loss = "graded"``, Liu et al.);
* :class:`axiomatic.training.contrastive.ACRankLossStrategy` - ACRank's contrastive InfoNCE over
  original and TFC-A / TFC-D edited documents (``augmentation = "acrank(...)"``).

A strategy must be deterministic given ``(config.seed, step)``: resume relies on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from axiomatic.training.config import PerturbAugmentSpec
from axiomatic.training.losses import (
    AxiomaticRegularizationLoss,
    listwise_softmax_ce,
    pairwise_hinge,
    pointwise_mse,
)
from axiomatic.training.samplers import Pair, make_list, negatives_by_query
from axiomatic.training.strategy_base import LossStrategy, StepContext

if TYPE_CHECKING:
    from axiomatic.training.config import TrainConfig


_WARNED: set[str] = set()  # unreachable-threshold warnings already given in this process


class GradedLossStrategy(LossStrategy):
    """Pointwise graded loss: one (query, document, grade) example per batch item (the
    sampler's items carry the document in ``doc_hi`` and the grade in ``label_hi``)."""

    name = "graded"

    def __init__(self, graded_loss: Any) -> None:
        self.graded_loss = graded_loss

    def _loss_parameters(self) -> list[tuple[str, torch.nn.Parameter]]:
        named = getattr(self.graded_loss, "named_parameters", None)
        return [(n, q) for n, q in (named() if named else []) if q.requires_grad]

    def setup(self, ctx: StepContext, pools: dict[str, list[Pair]]) -> None:
        """The loss's own parameters (the learned cut points of ``po``) join the optimizer (no
        weight decay); thresholds no score of the model can reach are warned about (naming
        the bound) before the first step."""
        import warnings

        if isinstance(self.graded_loss, torch.nn.Module):
            self.graded_loss.to(ctx.device)
        params = [q for _, q in self._loss_parameters()]
        if params:
            ctx.add_parameters(params)
        model = ctx.model
        bound = getattr(model, "score_bound", None)
        thresholds = getattr(self.graded_loss, "thresholds", None)
        if callable(bound) and thresholds is not None:
            from axiomatic.training.smooth import tanh_threshold_problem, unreachable_thresholds

            dim, eps = getattr(model, "embedding_dim", None), getattr(model, "eps", None)
            if isinstance(dim, int) and isinstance(eps, float):  # tanh towers
                problem = tanh_threshold_problem(thresholds, dim, eps)
            else:
                problem = unreachable_thresholds(thresholds, bound(), f"for {type(model).__name__}")
            if problem and problem not in _WARNED:  # once per process (a plan runs many)
                _WARNED.add(problem)
                warnings.warn(problem, UserWarning, stacklevel=2)

    def state_dict(self) -> dict[str, Any]:
        """The loss's learned parameters (floats), restored on resume."""
        return {
            "loss_parameters": {
                n: [float(v) for v in q.detach().reshape(-1).tolist()]
                for n, q in self._loss_parameters()
            }
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        saved = dict(state.get("loss_parameters") or {})
        with torch.no_grad():
            for n, q in self._loss_parameters():
                if n in saved:
                    q.copy_(torch.tensor(saved[n], dtype=q.dtype).reshape(q.shape))

    def step_loss(
        self, ctx: StepContext, batch: list[Pair], step: int
    ) -> tuple[torch.Tensor, dict[str, float]]:
        qs = [ctx.query_text(p.query_id) for p in batch]
        ds = [ctx.text(p.doc_hi) for p in batch]
        scores = self.scores(ctx, qs, ds)
        grades = torch.tensor([int(p.label_hi) for p in batch], device=scores.device)
        base = self.graded_loss(scores, grades)
        info = {"base_loss": float(base.detach())}
        cut_points = getattr(self.graded_loss, "cut_points", None)
        if self._loss_parameters() and callable(cut_points):  # learned PO cut points, logged
            info.update({f"cut{k + 1}": float(c) for k, c in enumerate(cut_points().tolist())})
        return base, info


class PairwiseLossStrategy(LossStrategy):
    """Hinge (Rosset eq. 2) / MSE / listwise softmax, with optional AR (Rosset eq. 4) or AP.

    AR: one Rosset perturbation per document, hinge between a document and its perturbation
    (see :class:`AxiomaticRegularizationLoss`). AP (``perturb(...)`` augmentation): each
    perturbed document and its original join the base hinge as one extra pair, ordered as the
    axiom says.

    AR with ``lambda = 0`` is plain training by construction: no perturbation is drawn or
    scored (``ar_loss`` is not logged). Scoring them would put more documents in the forward
    pass, and a model whose numbers depend on the batch's padding (or a kernel that picks its
    summation order by batch size) would then give the originals other scores, so the run
    would drift from the plain one although the regularizer weighs nothing.
    """

    name = "pairwise"
    count_keys = frozenset({"ap_pairs", "perturbed"})

    def setup(self, ctx: StepContext, pools: dict[str, list[Pair]]) -> None:
        cfg = ctx.config
        self.negatives = (
            negatives_by_query(pools["qrels"], ctx.train_data.rel_threshold)
            if cfg.loss == "softmax"
            else {}
        )
        # lambda = 0 weighs nothing: no perturbations, the plain run bit for bit (class doc)
        ar = cfg.ar
        self.ar = ar if ar is not None and ar.lambda_ > 0 else None
        self.ar_loss = (
            AxiomaticRegularizationLoss(
                self.ar.lambda_, self.ar.mu, cfg.margin, normalize=self.ar.normalize
            )
            if self.ar
            else None
        )
        aug = cfg.augment
        self.perturber: Any = None
        self.perturb_axioms: tuple[str, ...] = ()
        if self.ar is not None or isinstance(aug, PerturbAugmentSpec):
            from axiomatic.text.analyzer import parse_analyzer
            from axiomatic.training.augmenters import rosset_perturber

            analyzer = ctx.analyzer or parse_analyzer(
                cfg.analyzer, language=ctx.train_data.doc_language or "en"
            )
            if self.ar is not None:
                lnc_terms, self.perturb_axioms = self.ar.lnc_terms, self.ar.axioms
            else:
                assert isinstance(aug, PerturbAugmentSpec)  # narrowed above (not validation)
                lnc_terms, self.perturb_axioms = aug.lnc_terms, aug.axioms
            texts = [
                ctx.text(d)
                for d in {p.doc_hi for p in pools["qrels"]} | {p.doc_lo for p in pools["qrels"]}
            ]
            self.perturber = rosset_perturber(ctx.model, texts, analyzer, lnc_terms)
        self.augment_perturb = isinstance(aug, PerturbAugmentSpec)
        self.ap_rate = float(aug.rate) if isinstance(aug, PerturbAugmentSpec) else 1.0

    def _perturb(
        self, query: str, text: str, rng: np.random.Generator
    ) -> tuple[str, int, str] | None:
        res = self.perturber.perturb_random(query, text, self.perturb_axioms, rng)
        return None if res is None else (res.text, res.direction, res.perturbation)

    def step_loss(
        self, ctx: StepContext, batch: list[Pair], step: int
    ) -> tuple[torch.Tensor, dict[str, float]]:
        cfg = ctx.config
        rng = ctx.rng(step, 17)
        queries = [ctx.query_text(p.query_id) for p in batch]
        B = len(batch)
        all_q: list[str] = []
        all_d: list[str] = []
        # base documents
        if cfg.loss == "softmax":
            lists = [
                make_list(p, self.negatives.get(p.query_id, []), cfg.list_size, rng) for p in batch
            ]
            L = max(len(d) for d, _ in lists)
            lists = [
                (d + [d[-1]] * (L - len(d)), lab + [-1.0] * (L - len(lab))) for d, lab in lists
            ]
            for q, (docs, _) in zip(queries, lists, strict=True):
                all_q += [q] * L
                all_d += [ctx.text(d) for d in docs]
            hi_idx = [b * L for b in range(B)]
            lo_idx = [b * L + 1 for b in range(B)]
        else:
            for q, p in zip(queries, batch, strict=True):
                all_q += [q, q]
                all_d += [ctx.text(p.doc_hi), ctx.text(p.doc_lo)]
            hi_idx = [2 * b for b in range(B)]
            lo_idx = [2 * b + 1 for b in range(B)]
        # AR: one perturbation per document (Rosset eq. 4); AP: perturbed pairs as extra pairs
        pert: dict[str, list[tuple[int, int, int]]] = {"hi": [], "lo": []}  # (b, idx, delta)
        pert_axiom: list[tuple[int, int, int, str]] = []  # (orig idx, pert idx, delta, axiom)
        ap_pairs: list[tuple[int, int]] = []
        if self.perturber is not None:
            for b in range(B):
                for side, idx in (("hi", hi_idx[b]), ("lo", lo_idx[b])):
                    # AP's mixing rate (1: every document; no draw, so the stream is unchanged)
                    if self.ap_rate < 1.0 and rng.random() >= self.ap_rate:
                        continue
                    res = self._perturb(all_q[idx], all_d[idx], rng)
                    if res is None:
                        continue
                    all_q.append(all_q[idx])
                    all_d.append(res[0])
                    new = len(all_d) - 1
                    if self.augment_perturb:
                        ap_pairs.append((idx, new) if res[1] > 0 else (new, idx))
                    else:
                        pert[side].append((b, new, res[1]))
                        pert_axiom.append((idx, new, res[1], res[2]))
        scores = self.scores(ctx, all_q, all_d)
        s_hi = scores[hi_idx]
        s_lo = scores[lo_idx]
        info: dict[str, float] = {}
        if cfg.loss == "hinge":
            base = pairwise_hinge(s_hi, s_lo, cfg.margin)
        elif cfg.loss == "mse":
            labels = torch.tensor(
                [p.label_hi for p in batch] + [p.label_lo for p in batch], device=scores.device
            )
            base = pointwise_mse(torch.cat([s_hi, s_lo]), labels)
        else:
            s_list = scores[: B * L].view(B, L)
            labels = torch.tensor([lab for _, lab in lists], device=scores.device)
            valid = labels >= 0
            s_list = s_list.masked_fill(~valid, -1e4)
            base = listwise_softmax_ce(s_list, labels.clamp_min(0))
        if ap_pairs:
            a = torch.tensor([x for x, _ in ap_pairs], device=scores.device)
            c = torch.tensor([y for _, y in ap_pairs], device=scores.device)
            n_base = B
            # AP pairs join the base hinge as extra pairs (weighted by count, no regularizer)
            ap = pairwise_hinge(scores[a], scores[c], cfg.margin)
            base = (base * n_base + ap * len(ap_pairs)) / (n_base + len(ap_pairs))
            info["ap_pairs"] = float(len(ap_pairs))
        total = base
        if self.ar_loss is not None:
            parts = []
            for side, s_orig in (("hi", s_hi), ("lo", s_lo)):
                s_pert = s_orig.detach().clone()
                delta = torch.zeros(B, device=scores.device)
                mask = torch.zeros(B, device=scores.device)
                if pert[side]:
                    bs = torch.tensor([x[0] for x in pert[side]], device=scores.device)
                    ids = torch.tensor([x[1] for x in pert[side]], device=scores.device)
                    s_pert = s_pert.index_put((bs,), scores[ids])
                    delta[bs] = torch.tensor(
                        [float(x[2]) for x in pert[side]], device=scores.device
                    )
                    mask[bs] = 1.0
                parts.append(self.ar_loss.regularizer(s_orig, s_pert, delta, mask))
            ar = parts[0] + parts[1]
            total = base + self.ar_loss.lambda_ * ar
            info["ar_loss"] = float(ar.detach())
            # per-axiom mean hinge (monitoring only: which constraint the model cannot meet)
            with torch.no_grad():
                by_axiom: dict[str, list[float]] = {}
                for o, n, d, ax in pert_axiom:
                    h = float(torch.relu(self.ar_loss.mu - d * (scores[o] - scores[n])))
                    by_axiom.setdefault(ax, []).append(h)
                for ax, hs in by_axiom.items():
                    info[f"ar_{ax}"] = sum(hs) / len(hs)
            info["perturbed"] = float(len(pert["hi"]) + len(pert["lo"]))
        info["base_loss"] = float(base.detach())
        return total, info


def default_strategy(cfg: TrainConfig) -> LossStrategy:
    """The strategy a config asks for: graded, ACRank (``acrank(...)`` augmentation or
    ``loss = "contrastive"``) or pairwise."""
    if cfg.loss == "graded":
        from axiomatic.training.smooth import parse_graded_loss

        return GradedLossStrategy(parse_graded_loss(cfg.graded_loss))
    from axiomatic.training.config import ACRankAugmentSpec

    if isinstance(cfg.augment, ACRankAugmentSpec) or cfg.loss == "contrastive":
        from axiomatic.training.contrastive import ACRankLossStrategy

        return ACRankLossStrategy.from_config(cfg)
    return PairwiseLossStrategy()

"""The trainer's seams: loss strategies are pluggable objects, checkpoint / log
I/O and augmenters are separate modules, and the old import paths keep working."""

from __future__ import annotations

import torch
from training_helpers import TinyRanker, make_toy_dataset

from axiomatic.training.config import TrainConfig
from axiomatic.training.strategies import (
    GradedLossStrategy,
    PairwiseLossStrategy,
    default_strategy,
)
from axiomatic.training.strategy_base import LossStrategy
from axiomatic.training.trainer import Trainer


class _Counting(LossStrategy):
    name = "counting"

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.pools: list[str] = []

    def setup(self, ctx, pools) -> None:
        self.pools = sorted(pools)

    def step_loss(self, ctx, batch, step):
        self.steps.append(step)
        q = [ctx.query_text(p.query_id) for p in batch]
        d = [ctx.text(p.doc_hi) for p in batch]
        s = self.scores(ctx, q, d)
        return (-s).mean(), {"custom": 1.0}


def test_a_custom_strategy_drives_the_steps(tmp_path) -> None:
    strat = _Counting()
    cfg = TrainConfig(steps=4, batch_size=2, dev_queries=0, eval_every=2, checkpoint_every=2)
    res = Trainer(TinyRanker(), cfg, tmp_path, make_toy_dataset(4, 3), loss_strategy=strat).fit()
    assert strat.steps == [1, 2, 3, 4] and strat.pools == ["qrels"]
    assert all(r["custom"] == 1.0 for r in res.history)


def test_default_strategies_follow_the_config() -> None:
    def pick(**kw):
        return type(default_strategy(TrainConfig(**kw)))

    assert pick() is PairwiseLossStrategy
    assert pick(loss="graded", graded_loss="mse") is GradedLossStrategy
    assert pick(loss="contrastive").__name__ == "ACRankLossStrategy"
    assert pick(augmentation="acrank(rule=TFC-D)").__name__ == "ACRankLossStrategy"


def test_the_trainer_attributes_still_work(tmp_path) -> None:
    from axiomatic.training.augmenters import visible_tokens

    assert visible_tokens(TinyRanker()) is None
    cfg = TrainConfig(regularizer="ar(lambda=0.1)", dev_queries=0, steps=1)
    tr = Trainer(TinyRanker(), cfg, tmp_path, make_toy_dataset(4, 3))
    tr._setup()
    assert tr.perturber is not None and tr.perturb_axioms == ("TFC1-A", "TFC1-D", "TFC3", "LNC")
    loss, info = tr._step_loss(tr.sampler.next_batch(), 1)
    assert torch.isfinite(loss) and "ar_loss" in info

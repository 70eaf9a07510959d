"""Loss strategies see a small StepContext, never the trainer."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import torch
from training_helpers import TinyRanker, make_toy_dataset

from axiomatic.training.config import TrainConfig
from axiomatic.training.distributed import DistributedContext
from axiomatic.training.samplers import PairSampler, qrels_pairs
from axiomatic.training.strategies import GradedLossStrategy, PairwiseLossStrategy
from axiomatic.training.strategy_base import LossStrategy, StepContext, step_key
from axiomatic.training.trainer import Trainer

SRC = Path(__file__).resolve().parents[2] / "src" / "axiomatic"


def _context(model, cfg, ds, added=None) -> StepContext:
    extra = {"art-1": "kernel kernel kernel"}
    return StepContext(
        model=model,
        config=cfg,
        train_data=ds,
        device=torch.device("cpu"),
        text=lambda d: extra.get(d) or ds.documents[d].text,
        **({} if added is None else {"add_parameters": added.extend}),
    )


def test_a_strategy_runs_on_a_context_without_a_trainer(tmp_path: Path) -> None:
    """The pairwise hinge on a hand-built context: Rosset eq. 2 computed from the model's own
    scores, and the same loss the trainer's step gives for the same batch."""
    torch.manual_seed(0)
    ds = make_toy_dataset(6, 4)
    cfg = TrainConfig(steps=2, batch_size=4, dev_queries=0, margin=0.5, seed=3)
    model = TinyRanker()
    ctx = _context(model, cfg, ds)
    pools = {"qrels": qrels_pairs(ds, cfg.candidate_depth)}
    strategy = PairwiseLossStrategy()
    strategy.setup(ctx, pools)
    batch = PairSampler(pools, cfg.batch_size, seed=cfg.seed).next_batch()
    loss, info = strategy.step_loss(ctx, batch, 1)
    with torch.no_grad():
        hi = model.score_pairs(
            [ctx.query_text(p.query_id) for p in batch],
            [ds.documents[p.doc_hi].text for p in batch],
            bf16=False,
        )
        lo = model.score_pairs(
            [ctx.query_text(p.query_id) for p in batch],
            [ds.documents[p.doc_lo].text for p in batch],
            bf16=False,
        )
    want = float(torch.relu(0.5 - (hi - lo)).mean())
    got = float(loss.detach())
    assert got == pytest.approx(want, abs=1e-6) and info == {"base_loss": got}
    tr = Trainer(model, cfg, tmp_path, ds)  # the trainer's own step, same batch
    tr._setup()
    assert float(tr._step_loss(batch, 1)[0].detach()) == pytest.approx(got, abs=1e-7)
    assert type(tr.context) is StepContext and tr.context.model is model


def test_own_parameters_join_through_the_context(tmp_path: Path) -> None:
    """The ordinal loss' learned cut points go to ``add_parameters`` (and so to the
    trainer's optimizer, in their own group without weight decay)."""
    from axiomatic.training.smooth import parse_graded_loss

    ds = make_toy_dataset(4, 3)
    cfg = TrainConfig(loss="graded", graded_loss="po", dev_queries=0, steps=1)
    added: list[torch.nn.Parameter] = []
    strategy = GradedLossStrategy(parse_graded_loss("po"))
    strategy.setup(_context(TinyRanker(), cfg, ds, added), {"qrels": []})
    assert added and all(
        a is b for a, b in zip(added, strategy.graded_loss.parameters(), strict=True)
    )
    with pytest.raises(RuntimeError, match="trains no extra parameters"):
        strategy.setup(_context(TinyRanker(), cfg, ds), {"qrels": []})
    tr = Trainer(TinyRanker(), cfg, tmp_path, ds)
    tr._setup()
    group = tr.optimizer.param_groups[-1]
    assert group["weight_decay"] == 0.0
    assert [id(p) for p in group["params"]] == [id(p) for p in tr.strategy.graded_loss.parameters()]


def test_the_context_draws_the_step_seeds() -> None:
    ds = make_toy_dataset(2, 2)
    ctx = _context(TinyRanker(), TrainConfig(seed=11), ds)
    assert step_key(ctx, 5, 17) == [11, 5, 17]
    a = ctx.rng(5, 17).random(4)
    assert np.array_equal(a, np.random.default_rng([11, 5, 17]).random(4))
    ranked = StepContext(
        ctx.model,
        ctx.config,
        ds,
        ctx.device,
        ctx.text,
        dist=DistributedContext(rank=1, world_size=2),
    )
    assert step_key(ranked, 5, 17) == [11, 5, 17, 1]
    assert ctx.text("art-1") == "kernel kernel kernel"


def test_no_strategy_reaches_into_the_trainer() -> None:
    """Every LossStrategy subclass in the package uses its context argument only: no name
    ``trainer`` inside one, no ``Trainer`` type."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases}
            if not bases & {"LossStrategy", "PairwiseLossStrategy", "GradedLossStrategy"}:
                continue
            for node in ast.walk(cls):
                if isinstance(node, ast.Name | ast.arg):
                    name = node.id if isinstance(node, ast.Name) else node.arg
                    if name in ("trainer", "Trainer"):
                        bad.append(f"{path.relative_to(SRC)}:{node.lineno} {cls.name}: {name}")
    assert not bad, "strategies must use their StepContext:\n" + "\n".join(bad)
    assert LossStrategy.step_loss.__code__.co_varnames[1] == "ctx"

"""Data-parallel training under torchrun: two CPU processes (gloo, one thread
each) train like one process with the same global batch.

The two-process run (``ddp_worker.py``) is killed after step 12 and resumed from the
checkpoint of step 10; over its 20 steps its logged losses, dev metrics and final weights must
equal a single process's within float32 rounding (``RTOL``: the gradient is averaged over two
half batches instead of taken over one batch, a different summation order). Each rank must
have trained on its own half of every global batch (``batch[rank::2]``), and only rank 0 may
have written files. The model has no dropout and the loss no random draws, so nothing but
rounding may differ (docs/training.md, "Several processes / GPUs").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from ddp_worker import STEPS, run

from axiomatic.training.distributed import DistributedContext, launched, rank_seed
from axiomatic.training.strategy_base import step_key

WORKER = Path(__file__).with_name("ddp_worker.py")
RTOL = 1e-5
"""Relative tolerance on losses, dev metrics and weights (float32; measured on the losses:
3.6e-7)."""


def _torchrun(out: Path, rec: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "AXIOMATIC_NO_PROGRESS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    cmd = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
        str(WORKER), str(out), str(rec),
    ]  # fmt: skip
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_two_processes_train_like_one_with_the_same_global_batch(tmp_path) -> None:
    t0 = time.perf_counter()
    single = run(tmp_path / "single")
    rec = tmp_path / "records"
    rec.mkdir()
    proc = _torchrun(tmp_path / "ddp", rec)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ranks = [json.loads((rec / f"rank{r}.json").read_text()) for r in range(2)]

    # each rank trained on its own half of the single process's batch, every step
    for step in range(1, STEPS + 1):
        batch = single["batches"][str(step)]
        assert len(batch) == 8
        for r in range(2):
            assert ranks[r]["batches"][str(step)] == batch[r::2], (step, r)

    # the same losses and dev metrics, step by step (the resumed steps 11-20 included)
    a, b = _log(tmp_path / "single" / "log.jsonl"), _log(tmp_path / "ddp" / "log.jsonl")
    assert [r["step"] for r in b] == list(range(1, STEPS + 1))
    for x, y in zip(a, b, strict=True):
        assert y["loss"] == pytest.approx(x["loss"], rel=RTOL), x["step"]
        assert y["base_loss"] == pytest.approx(x["base_loss"], rel=RTOL), x["step"]
        assert ("dev_mrr@10" in y) == ("dev_mrr@10" in x)
        if "dev_mrr@10" in x:
            assert y["dev_mrr@10"] == pytest.approx(x["dev_mrr@10"], rel=RTOL)
    assert all(x["loss"] > 0.1 for x in a) and a[-1]["loss"] < a[0]["loss"] / 4  # it trains

    # the same weights after 20 steps
    wa = torch.load(tmp_path / "single" / "checkpoint.pt", weights_only=True)["model"]
    wb = torch.load(tmp_path / "ddp" / "checkpoint.pt", weights_only=True)["model"]
    for k in wa:
        torch.testing.assert_close(wb[k], wa[k], rtol=RTOL, atol=1e-6)

    # files written once, by rank 0: checkpoints, best weights, metrics
    assert ranks[1]["writes"] == []
    assert ranks[0]["writes"].count("checkpoint.pt") == 4  # steps 5, 10 | resumed: 15, 20
    assert {"best.pt", "metrics.json"} <= set(ranks[0]["writes"])
    assert (tmp_path / "ddp" / "metrics.json").is_file()
    worst = max(abs(y["loss"] - x["loss"]) / abs(x["loss"]) for x, y in zip(a, b, strict=True))
    print(f"two processes vs one: {time.perf_counter() - t0:.1f} s, loss rel. diff {worst:.1e}")


def test_a_batch_that_does_not_split_over_the_processes_is_refused() -> None:
    ctx = DistributedContext(rank=1, world_size=3)
    with pytest.raises(
        ValueError, match=r"batch_size 8 does not split over 3 .* \(e\.g\. 6 or 9\)"
    ):
        ctx.check_batch_size(8)
    ctx.check_batch_size(9)
    assert ctx.shard(list(range(9))) == [1, 4, 7]


def test_a_single_process_is_unchanged() -> None:
    """Without torchrun the context is a no-op: the whole batch, the same seeds as before."""
    ctx = DistributedContext()
    assert not ctx.active and ctx.is_main
    assert ctx.shard([1, 2, 3]) == [1, 2, 3]
    assert ctx.reduce_step(0.5, {"n": 2.0}, {"n"}) == (0.5, {"n": 2.0})
    assert ctx.broadcast("x") == "x" and ctx.gather("x") == ["x"]
    assert rank_seed(7, ctx) == 7 and rank_seed(7, None) == 7

    class Stub:
        config = type("C", (), {"seed": 3})()
        dist = ctx

    assert step_key(Stub(), 5, 17) == [3, 5, 17]
    Stub.dist = DistributedContext(rank=1, world_size=2)
    assert step_key(Stub(), 5, 17) == [3, 5, 17, 1]
    assert rank_seed(7, Stub.dist) != rank_seed(7, DistributedContext(rank=0, world_size=2))


def test_a_torchrun_launch_is_seen_and_experiment_refuses_it(monkeypatch, tmp_path) -> None:
    """torchrun's variables (``WORLD_SIZE`` > 1 and ``RANK``) mark a launch; ``axiomatic
    experiment`` writes its plan folder from every process, so it refuses one."""
    from typer.testing import CliRunner

    from axiomatic.cli.main import app

    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert not launched()  # no rank: not a launch
    monkeypatch.setenv("RANK", "0")
    assert launched()
    res = CliRunner().invoke(app, ["experiment", "rosset2019", "--quick", "-o", str(tmp_path)])
    assert res.exit_code != 0 and "runs in one process" in res.output
    monkeypatch.setenv("WORLD_SIZE", "1")  # torchrun --nproc_per_node 1: one process
    assert not launched()

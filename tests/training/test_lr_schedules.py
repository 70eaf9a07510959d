"""Learning-rate schedules of the trainer against the reference schedulers."""

from __future__ import annotations

import json

import pytest
import torch

from axiomatic.training.schedules import parse_lr_schedule


def _torch_lrs(scheduler_factory, steps: int, every: int = 1) -> list[float]:
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = scheduler_factory(opt)
    out = []
    for step in range(1, steps + 1):
        out.append(opt.param_groups[0]["lr"])  # the lr of this step's update
        opt.step()
        if step % every == 0:
            sched.step()
    return out


def test_exponential_equals_torch_exponential_lr_stepped_every_n() -> None:
    ours = parse_lr_schedule("exponential(gamma=0.9, every=3)")
    ref = _torch_lrs(lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9), 20, 3)
    got = [ours.factor(s, 20) for s in range(1, 21)]
    assert got == pytest.approx(ref, rel=1e-12)
    # every=0: once per epoch of the main pool
    per_epoch = parse_lr_schedule("exponential(gamma=0.5)")
    assert [per_epoch.factor(s, 10, steps_per_epoch=4) for s in (1, 4, 5, 8, 9)] == [
        1.0,
        1.0,
        0.5,
        0.5,
        0.25,
    ]


@pytest.mark.parametrize(("total", "warmup"), [(100, 0.1), (37, 0.25), (10, 0.0)])
def test_linear_equals_transformers_linear_schedule_with_warmup(total: int, warmup: float) -> None:
    from transformers import get_linear_schedule_with_warmup

    ours = parse_lr_schedule(f"linear(warmup={warmup})")
    warm = int(warmup * total)
    ref = _torch_lrs(lambda o: get_linear_schedule_with_warmup(o, warm, total), total)
    got = [ours.factor(s, total) for s in range(1, total + 1)]
    assert got == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("cosine", "unknown learning-rate schedule 'cosine'"),
        (
            "exponential(gamma=1.5)",
            r"^gamma of the exponential schedule in 'exponential\(gamma=1.5\)' must be a finite "
            r"number > 0 and <= 1 \(got 1.5, a number\)$",
        ),
        ("exponential(every=-1)", r"every of the exponential schedule .* must be an integer >= 0"),
        ("exponential(gamma=true)", "must be a number"),
        (
            "linear(warmup=1.0)",
            r"warmup of the linear schedule .* must be a finite number >= 0 and < 1",
        ),
        ("linear(decay=3)", "unknown parameter 'decay'"),
    ],
)
def test_bad_schedules_are_clear_errors(spec: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_lr_schedule(spec)


def test_trainer_applies_the_schedule_at_every_step(tmp_path) -> None:
    """The optimizer's learning rate follows the schedule (logged per step), and a constant
    schedule logs nothing new."""
    from axiomatic.data.catalog import load_dataset
    from axiomatic.models import build_model
    from axiomatic.training.config import TrainConfig
    from axiomatic.training.trainer import Trainer

    ds = load_dataset("demo/train")
    texts = [d.text for d in ds.documents.values()]
    cfg = TrainConfig(
        dataset="demo/train",
        model="knrm",
        lr=0.01,
        steps=10,
        batch_size=4,
        eval_every=100,
        checkpoint_every=100,
        lr_schedule="linear(warmup=0.2)",
    )
    model = build_model("knrm", texts=texts, seed=0, embedding_dim=8, embeddings="random")
    Trainer(model, cfg, tmp_path / "run", ds).fit(resume=False)
    log = [json.loads(x) for x in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    sched = parse_lr_schedule(cfg.lr_schedule)
    assert [r["lr"] for r in log] == pytest.approx(
        [0.01 * sched.factor(s, 10) for s in range(1, 11)]
    )
    assert log[0]["lr"] == 0.0 and log[2]["lr"] == pytest.approx(0.01)


def test_liu_cnn_and_lstm_towers_decay_their_learning_rate(tmp_path) -> None:
    """Liu et al.: DSSM-CNN / DSSM-LSTM start at lr 0.001 with exponential decay 0.95; the
    average towers keep a fixed lr."""
    from axiomatic.experiments.liu_smooth import LiuPlan, LiuSmooth

    runner = LiuSmooth(LiuPlan.quick(), tmp_path, echo=lambda m: None)
    by_encoder = {
        u.encoder: runner._train_config(u).lr_schedule
        for u in (runner._base("synthetic", "de", encoder=e) for e in ("avg", "cnn", "lstm"))
    }
    assert by_encoder == {
        "avg": "constant",
        "cnn": "exponential(gamma=0.95)",
        "lstm": "exponential(gamma=0.95)",
    }

"""Trainer errors that name only what exists, corrupt checkpoints, and the thread default."""

from __future__ import annotations

import pytest
import torch
from training_helpers import TinyRanker

from axiomatic.training.config import TrainConfig
from axiomatic.training.trainer import (
    MAX_DEFAULT_THREADS,
    NonFiniteLossError,
    Trainer,
    default_threads,
    set_training_threads,
)


def _cfg(**kw) -> TrainConfig:
    base = dict(
        dataset="toy",
        model="tiny",
        steps=12,
        batch_size=6,
        eval_every=100,
        lr=0.05,
        checkpoint_every=5,
        patience=0,
        regularizer="ar(lambda=0.5, mu=0.5)",
        seed=3,
    )
    base.update(kw)
    return TrainConfig(**base)


class NaNAfter(TinyRanker):
    """NaN scores from the ``after``-th training forward pass on (one pass per step)."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after

    def forward(self, q, d):  # type: ignore[override]
        out = super().forward(q, d)
        self.calls = getattr(self, "calls", 0) + 1
        return out * float("nan") if self.calls >= self.after and self.training else out


def test_non_finite_loss_before_any_checkpoint_names_none(tmp_path, toy_dataset) -> None:
    with pytest.raises(NonFiniteLossError) as err:
        Trainer(NaNAfter(3), _cfg(), tmp_path, toy_dataset).fit()
    msg = str(err.value)
    assert not (tmp_path / "checkpoint.pt").exists()
    assert "checkpoint.pt" not in msg
    assert "no checkpoint was written yet (the first comes at step 5)" in msg


def test_non_finite_loss_after_a_checkpoint_names_it(tmp_path, toy_dataset) -> None:
    with pytest.raises(NonFiniteLossError, match=r"the last good checkpoint is .*checkpoint\.pt"):
        Trainer(NaNAfter(7), _cfg(), tmp_path, toy_dataset).fit()
    assert (tmp_path / "checkpoint.pt").exists()


@pytest.mark.parametrize("content", [b"", b"not a checkpoint", b"PK\x03\x04truncated zip"])
def test_corrupt_checkpoint_is_a_message_naming_file_and_no_resume(
    tmp_path, toy_dataset, content: bytes
) -> None:
    (tmp_path / "checkpoint.pt").write_bytes(content)
    with pytest.raises(ValueError, match=r"checkpoint.pt is corrupt or truncated.*--no-resume"):
        Trainer(TinyRanker(), _cfg(steps=2), tmp_path, toy_dataset).fit(resume=True)
    # --no-resume starts afresh and replaces the broken file
    res = Trainer(TinyRanker(), _cfg(steps=2), tmp_path, toy_dataset).fit(resume=False)
    assert res.steps == 2
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["step"] == 2


def test_thread_default_is_bounded_and_settable(monkeypatch) -> None:
    before = torch.get_num_threads()
    try:
        assert 1 <= default_threads() <= MAX_DEFAULT_THREADS
        monkeypatch.setattr("os.cpu_count", lambda: 64)
        monkeypatch.setattr("os.getloadavg", lambda: (63.6, 0.0, 0.0))
        assert default_threads() == 1  # a busy machine: one thread
        monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
        assert default_threads() == MAX_DEFAULT_THREADS  # idle: capped
        assert set_training_threads(1) == 1 and torch.get_num_threads() == 1
        with pytest.raises(ValueError, match="threads must be >= 1"):
            set_training_threads(0)
    finally:
        torch.set_num_threads(before)

"""``TrainConfig.eval_at_start``: the start is evaluated (step 0) and can be the best checkpoint
(plain fine-tuning may only lower a strong start, e.g. the zero-shot bi-encoder)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from training_helpers import TinyRanker

from axiomatic.models.scoring import score_candidates
from axiomatic.training.checkpoint import read_log
from axiomatic.training.config import TrainConfig
from axiomatic.training.samplers import split_dev
from axiomatic.training.trainer import Trainer, mrr_at_k


def _perfect_start() -> TinyRanker:
    """Scores by the exact-match term frequency alone: on the toy data the relevant document
    repeats the query terms, so this start ranks it first for every query (dev RR@10 = 1)."""
    model = TinyRanker(seed=1)
    with torch.no_grad():
        model.w.weight.copy_(torch.tensor([[1.0, 0.0]]))
        model.w.bias.zero_()
    return model


def _split(toy_dataset):
    """Dev as it is; training labels that contradict it (a document without the query terms is
    the relevant one), so that every step, at a high learning rate, lowers the dev metric."""
    train, dev = split_dev(toy_dataset, 8, seed=0)
    flipped = {q: {f"{q}-d5": 1} for q in train.queries}
    return dataclasses.replace(train, qrels=flipped), dev


def _cfg(eval_at_start: bool) -> TrainConfig:
    return TrainConfig(
        dataset="toy", model="tiny", steps=6, batch_size=6, eval_every=2, lr=1.0,
        checkpoint_every=2, patience=0, grad_clip=None, seed=0, eval_at_start=eval_at_start,
    )  # fmt: skip


def test_the_start_is_kept_when_training_only_hurts(tmp_path, toy_dataset) -> None:
    train, dev = _split(toy_dataset)
    start_run = score_candidates(_perfect_start(), dev, depth=50)
    start_dev = mrr_at_k(start_run, dev.qrels or {}, 10)
    assert start_dev == 1.0

    model = _perfect_start()
    res = Trainer(model, _cfg(True), tmp_path / "on", train, dev).fit(resume=False)
    log = read_log(tmp_path / "on" / "log.jsonl")
    devs = {r["step"]: r["dev_mrr@10"] for r in log if "dev_mrr@10" in r}
    assert sorted(devs) == [0, 2, 4, 6]
    assert devs[0] == start_dev
    assert min(devs[s] for s in (2, 4, 6)) < start_dev  # training did hurt
    assert res.best_step == 0 and res.best_dev == start_dev
    # the saved (best) model is the start: the same scores, bit for bit
    assert score_candidates(model, dev, depth=50) == start_run

    # without it, the best of the evaluated (trained) checkpoints is kept: not the start
    off = _perfect_start()
    res_off = Trainer(off, _cfg(False), tmp_path / "off", train, dev).fit(resume=False)
    assert res_off.best_step in (2, 4, 6)
    assert 0 not in {r["step"] for r in read_log(tmp_path / "off" / "log.jsonl")}
    assert score_candidates(off, dev, depth=50) != start_run


def test_resuming_keeps_the_start_as_best(tmp_path, toy_dataset) -> None:
    """A run killed after its first checkpoint resumes with the start still the best."""
    train, dev = _split(toy_dataset)

    class Killed(Exception):
        pass

    def kill(step: int, record: dict) -> None:
        if step == 3:
            raise Killed

    with pytest.raises(Killed):
        Trainer(_perfect_start(), _cfg(True), tmp_path, train, dev, callback=kill).fit()
    model = TinyRanker(seed=7)  # other weights: the checkpoint and best.pt decide
    res = Trainer(model, _cfg(True), tmp_path, train, dev).fit(resume=True)
    assert res.best_step == 0
    assert [r["step"] for r in read_log(tmp_path / "log.jsonl")] == [0, 1, 2, 3, 4, 5, 6]
    assert score_candidates(model, dev, depth=50) == score_candidates(
        _perfect_start(), dev, depth=50
    )


def test_an_old_checkpoint_without_the_setting_resumes(tmp_path, toy_dataset) -> None:
    """A checkpoint written before ``eval_at_start`` existed records no such key: it was
    trained with the default (off) and resumes under it."""
    train, dev = _split(toy_dataset)

    class Killed(Exception):
        pass

    def kill(step: int, record: dict) -> None:
        if step == 3:
            raise Killed

    with pytest.raises(Killed):
        Trainer(_perfect_start(), _cfg(False), tmp_path, train, dev, callback=kill).fit()
    state = torch.load(tmp_path / "checkpoint.pt", weights_only=False)
    del state["config"]["eval_at_start"]
    torch.save(state, tmp_path / "checkpoint.pt")
    res = Trainer(_perfect_start(), _cfg(False), tmp_path, train, dev).fit(resume=True)
    assert res.steps == 6

"""Trainer behaviour: exact resume after a kill, NaN detection, early stopping, one forward pass
for the four AR documents, and that the regularizer teaches what its axiom says."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from training_helpers import TinyRanker, make_toy_dataset

from axiomatic.training.config import TrainConfig
from axiomatic.training.samplers import PairSampler, qrels_pairs, split_dev
from axiomatic.training.trainer import NonFiniteLossError, Trainer


def _cfg(**kw) -> TrainConfig:
    base = dict(
        dataset="toy",
        model="tiny",
        steps=12,
        batch_size=6,
        eval_every=4,
        lr=0.05,
        checkpoint_every=5,
        patience=0,
        regularizer="ar(lambda=0.5, mu=0.5)",
        seed=3,
    )
    base.update(kw)
    return TrainConfig(**base)


class Killed(Exception):
    pass


def test_resumed_run_reaches_the_same_weights(tmp_path, toy_dataset) -> None:
    train, dev = split_dev(toy_dataset, 4, seed=0)
    full = TinyRanker()
    Trainer(full, _cfg(), tmp_path / "full", train, dev).fit(resume=False)

    def kill(step: int, record: dict) -> None:
        if step == 8:  # after the checkpoint at step 5; steps 6-8 are lost and re-run
            raise Killed

    killed = TinyRanker()
    with pytest.raises(Killed):
        Trainer(killed, _cfg(), tmp_path / "resumed", train, dev, callback=kill).fit()
    assert torch.load(tmp_path / "resumed" / "checkpoint.pt", weights_only=False)["step"] == 5
    # what a kill -9 inside an atomic write leaves behind: removed by the resumed run
    leftovers = [tmp_path / "resumed" / ".checkpoint.pt.a1b2c3d4.tmp"]
    leftovers.append(tmp_path / "resumed" / "model" / ".model.safetensors.zz99yy88.tmp")
    for p in leftovers:
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(b"half")
    (tmp_path / "resumed" / "notes.tmp").write_text("not ours")
    # a fresh process: a different init, the weights come from the checkpoint
    resumed = TinyRanker(seed=99)
    result = Trainer(resumed, _cfg(), tmp_path / "resumed", train, dev).fit(resume=True)
    assert result.steps == 12
    assert not any(p.exists() for p in leftovers)
    assert (tmp_path / "resumed" / "notes.tmp").read_text() == "not ours"
    for (k, a), b in zip(full.state_dict().items(), resumed.state_dict().values(), strict=True):
        assert torch.equal(a, b), k
    log = [json.loads(x) for x in (tmp_path / "resumed" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == list(range(1, 13))  # no duplicated records after resume
    full_log = [json.loads(x) for x in (tmp_path / "full" / "log.jsonl").read_text().splitlines()]
    assert [r["loss"] for r in log] == [r["loss"] for r in full_log]
    # a finished run is skipped, not retrained
    again = Trainer(TinyRanker(seed=5), _cfg(), tmp_path / "resumed", train, dev).fit()
    assert again.steps == 12


class NaNAfter(TinyRanker):
    def forward(self, q, d):  # type: ignore[override]
        out = super().forward(q, d)
        self.calls = getattr(self, "calls", 0) + 1
        return out * float("nan") if self.calls >= 3 and self.training else out


def test_non_finite_loss_names_step_and_batch(tmp_path, toy_dataset) -> None:
    with pytest.raises(NonFiniteLossError, match=r"at step 3 .*queries \['q"):
        Trainer(NaNAfter(), _cfg(eval_every=100), tmp_path, toy_dataset).fit()


def test_early_stopping_keeps_the_best_dev_model(tmp_path, toy_dataset) -> None:
    train, dev = split_dev(toy_dataset, 4, seed=0)
    cfg = _cfg(steps=40, eval_every=1, patience=2, lr=1e-9, regularizer=None)
    result = Trainer(TinyRanker(), cfg, tmp_path, train, dev).fit()
    assert result.stopped_early and result.steps == 3 and result.best_step == 1
    assert (tmp_path / "best.pt").exists() and (tmp_path / "metrics.json").exists()
    assert "stopped early" in (tmp_path / "summary.md").read_text()


class Counting(TinyRanker):
    def forward(self, q, d):  # type: ignore[override]
        if self.training:
            self.sizes = [*getattr(self, "sizes", []), q.shape[0]]
        return super().forward(q, d)


def test_ar_scores_the_four_documents_in_one_forward_pass(tmp_path, toy_dataset) -> None:
    model = Counting()
    cfg = _cfg(steps=3, eval_every=100, regularizer="ar(lambda=1, mu=1, axioms=TFC1-A,LNC)")
    Trainer(model, cfg, tmp_path, toy_dataset).fit()
    assert model.sizes == [4 * 6] * 3  # one call per step: pos, neg and both perturbations


def test_ar_teaches_the_axiom(tmp_path) -> None:
    """With only TFC1-A regularization, the model learns that adding a query term helps."""
    from axiomatic.perturb import DocumentPerturber
    from axiomatic.text.analyzer import default_analyzer

    ds = make_toy_dataset(30, seed=1)
    probe = DocumentPerturber(default_analyzer())
    rng = np.random.default_rng(0)
    pairs = []
    for qid, q in list(ds.queries.items())[:20]:
        doc = ds.documents[ds.candidates[qid][1]].text
        res = probe.perturb(q.text, doc, "TFC1-A", rng)
        pairs.append((q.text, doc, res.text))

    def fulfilled(model: TinyRanker) -> float:
        qs = [p[0] for p in pairs]
        orig = model.score_pairs(qs, [p[1] for p in pairs])
        pert = model.score_pairs(qs, [p[2] for p in pairs])
        return float((pert > orig).float().mean())

    torch.manual_seed(0)
    model = TinyRanker(seed=0)
    with torch.no_grad():
        model.w.weight[0, 0] = -1.0  # start anti-axiomatic: more query terms, lower score
    assert fulfilled(model) == 0.0
    cfg = _cfg(steps=30, regularizer="ar(lambda=5, mu=1, axioms=TFC1-A)", eval_every=100)
    Trainer(model, cfg, tmp_path, ds).fit()
    assert fulfilled(model) == 1.0


def test_listwise_and_pointwise_losses_train(tmp_path, toy_dataset) -> None:
    for loss in ("softmax", "mse"):
        r = Trainer(TinyRanker(), _cfg(loss=loss, steps=4), tmp_path / loss, toy_dataset).fit()
        assert r.steps == 4
        log = [json.loads(x) for x in (tmp_path / loss / "log.jsonl").read_text().splitlines()]
        assert all(np.isfinite(r["loss"]) and "ar_loss" in r for r in log)


def test_perturbation_augmentation_adds_pairs_without_regularizer(tmp_path, toy_dataset) -> None:
    cfg = _cfg(regularizer=None, augmentation="perturb(axioms=TFC1-A,TFC1-D)", steps=3)
    Trainer(TinyRanker(), cfg, tmp_path, toy_dataset).fit()
    log = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert all(r["ap_pairs"] > 0 and "ar_loss" not in r for r in log)


def test_pairs_sampler_and_dev_split(toy_dataset) -> None:
    pairs = qrels_pairs(toy_dataset)
    assert len(pairs) == 24 * 7
    assert all(toy_dataset.qrels[p.query_id].get(p.doc_hi) == 1 for p in pairs)
    assert all(p.doc_lo not in toy_dataset.qrels[p.query_id] for p in pairs)
    train, dev = split_dev(toy_dataset, 100, seed=1)
    assert dev is not None and len(dev.queries) == 24 // 5
    assert not set(train.queries) & set(dev.queries)
    assert split_dev(toy_dataset, 100, seed=1)[1].queries == dev.queries
    a = PairSampler({"qrels": pairs}, 5, seed=2)
    first = [a.next_batch() for _ in range(40)]
    b = PairSampler({"qrels": pairs}, 5, seed=2)
    for _ in range(17):
        b.next_batch()
    c = PairSampler({"qrels": pairs}, 5, seed=2)
    c.load_state_dict(json.loads(json.dumps(b.state_dict())))
    assert [c.next_batch() for _ in range(23)] == first[17:]
    # every pair once per epoch
    walked = [p for batch in first for p in batch][: len(pairs)]
    assert sorted(map(repr, walked)) == sorted(map(repr, pairs))

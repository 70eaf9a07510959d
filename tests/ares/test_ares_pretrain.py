"""ARES pre-training (Chen et al. 2022, section 4.3): masking, pairs, hinge + MLM, resume."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from axiomatic.ares.pipeline import load_collection, prepare
from axiomatic.ares.pretrain import (
    AresCrossEncoder,
    ares_dataset,
    ares_pairs,
    check_variant,
    mask_tokens,
    pretrain_ares,
)


def test_bert_masking_rates_and_specials() -> None:
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 1000, (200, 100))
    special = torch.zeros_like(ids, dtype=torch.bool)
    special[:, 0] = True
    masked, labels = mask_tokens(ids, special, mask_id=3, vocab_size=1000, generator=g)
    target = labels != -100
    assert not target[:, 0].any()  # specials are never targets
    assert target.float().mean().item() == pytest.approx(0.15 * 99 / 100, abs=0.01)
    assert (labels[target] == ids[target]).all()
    frac_mask = (masked[target] == 3).float().mean().item()
    frac_same = (masked[target] == ids[target]).float().mean().item()
    assert frac_mask == pytest.approx(0.8, abs=0.03)
    assert frac_same == pytest.approx(0.1, abs=0.03)  # ~10 % kept (+ random hits of itself)
    assert (masked[~target] == ids[~target]).all()
    g2 = torch.Generator().manual_seed(0)
    again, _ = mask_tokens(ids, special, 3, 1000, g2)
    assert torch.equal(again, masked)


def test_unknown_variant_is_a_clear_error() -> None:
    assert check_variant("ARES_simple") == "simple"
    with pytest.raises(ValueError, match="did you mean 'strict'"):
        check_variant("strikt")


def _prepared(tmp_path):
    coll = load_collection("demo")
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    n = CollectionIndex.build(coll.documents.values(), Analyzer()).n_terms
    vecs = np.random.default_rng(0).normal(size=(n, 8))
    return prepare(coll, cache_dir=tmp_path / "cache", seed=0, term_vectors=vecs)


def test_strict_pairs_have_no_disagreeing_axiom_and_dataset_is_one_pair_per_entry(tmp_path):
    from axiomatic.axioms.query_pairs import preference_features

    p = _prepared(tmp_path)
    d, qp, qn = ares_pairs(p, "strict", None, pairs_per_doc=4, seed=0)
    assert len(d) > 0
    X = preference_features(p.ctx, qp, qn)
    assert (X >= 0).all() and ((X > 0).sum(axis=1) >= 3).all()
    assert (p.pseudo.doc[qp] == d).all() and (p.pseudo.doc[qn] == d).all()
    with pytest.raises(ValueError, match="needs a trained preference predictor"):
        ares_pairs(p, "simple", None)
    ds = ares_dataset(p, d, qp, qn)
    assert len(ds.queries) == len(d)
    q0 = next(iter(ds.queries))
    assert len(ds.qrels[q0]) == 2 and sorted(ds.qrels[q0].values()) == [0, 1]


@pytest.mark.slow
def test_pretraining_killed_and_resumed_gives_the_same_model(tmp_path, monkeypatch) -> None:
    torch.set_num_threads(1)
    p = _prepared(tmp_path)
    kw = dict(steps=2, batch_size=2, max_length=32, eval_every=100, checkpoint_every=1)
    full = pretrain_ares([p], tmp_path / "full", "strict", **kw)
    assert full["train"]["steps"] == 2

    class Kill(Exception):
        pass

    def kill(step, record):
        if step == 1:
            raise Kill

    from axiomatic.training import trainer as T

    real_init = T.Trainer.__init__

    def init_with_kill(self, *a, **k):
        real_init(self, *a, **k)
        self.callback = kill

    with monkeypatch.context() as m:
        m.setattr(T.Trainer, "__init__", init_with_kill)
        with pytest.raises(Kill):
            pretrain_ares([p], tmp_path / "resumed", "strict", **kw)
    resumed = pretrain_ares([p], tmp_path / "resumed", "strict", **kw)
    assert resumed["train"]["steps"] == 2
    a = torch.load(tmp_path / "full" / "train" / "checkpoint.pt", weights_only=False)["model"]
    b = torch.load(tmp_path / "resumed" / "train" / "checkpoint.pt", weights_only=False)["model"]
    for k in a:
        torch.testing.assert_close(a[k], b[k])
    # the exported plain cross-encoder scores like the pre-trained model
    from axiomatic.models.io import load_model

    plain = load_model(tmp_path / "full" / "encoder")
    net = AresCrossEncoder(max_length=32, pretrained=False)
    net.load_state_dict(a)
    net.eval()
    s1 = plain.score_pairs(["solar power"], ["solar panels on a roof"], bf16=False)
    s2 = net.score_pairs(["solar power"], ["solar panels on a roof"], bf16=False)
    torch.testing.assert_close(s1, s2)

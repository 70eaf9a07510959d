"""ARES pre-training of a word-level ranker (KNRM): the pseudo-query pairs of a collection,
the pairwise hinge alone, the roles of query and document kept, the start recorded.

The values are checked against the model's own scores of (pseudo query, document) pairs: a
variant that scored (document, pseudo query) - the training dataset's storage order - or that
ordered the pair backwards would fail here.
"""

from __future__ import annotations

import copy
import json

import pyarrow.parquet as pq
import pytest
import torch

from axiomatic.ares.pipeline import load_collection, prepare
from axiomatic.ares.pretrain import (
    AresLossStrategy,
    ares_dataset,
    ares_pairs,
    pretrain_ares,
    surface_forms,
)
from axiomatic.models import build_model
from axiomatic.models.io import load_model
from axiomatic.training.config import TrainConfig
from axiomatic.training.samplers import Pair
from axiomatic.training.strategy_base import StepContext


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    coll = load_collection("demo")
    prepared = prepare(coll, cache_dir=tmp_path_factory.mktemp("ares-cache"))
    texts = [d.text for d in coll.documents.values()]
    return prepared, texts


def _knrm(texts, seed=0):
    torch.manual_seed(seed)
    return build_model(
        "knrm", texts=texts, seed=seed, embeddings="random", embedding_dim=16, max_doc_len=64
    )


def _hinge_reference(model, queries_hi, queries_lo, docs, margin):
    s_hi = model.score_pairs(queries_hi, docs)
    s_lo = model.score_pairs(queries_lo, docs)
    return float(torch.clamp(margin - (s_hi - s_lo), min=0).mean())


def test_the_hinge_scores_pseudo_query_against_document(demo) -> None:
    prepared, texts = demo
    model = _knrm(texts).eval()
    d, a, b = ares_pairs(prepared, "strict", None, pairs_per_doc=2, seed=0)
    assert len(d) >= 4
    ds = ares_dataset(prepared, d, a, b, surface_forms(prepared))
    cfg = TrainConfig(dataset="ares-pretraining", model="knrm", margin=1.0, steps=1)
    ctx = StepContext(
        model=model, config=cfg, train_data=ds, device=torch.device("cpu"),
        text=lambda i: ds.documents[i].text,
    )  # fmt: skip
    qids = sorted(ds.queries)[:6]
    batch = [Pair(q, *ds.candidates[q], 1.0, 0.0) for q in qids]
    # the dataset stores each pair as {q+: 1, q-: 0} under the document's entry
    assert all(ds.qrels[p.query_id][p.doc_hi] == 1 for p in batch)
    with torch.no_grad():
        loss, info = AresLossStrategy(mlm_weight=0.0).step_loss(ctx, batch, 0)
    docs = [ds.queries[p.query_id].text for p in batch]
    hi = [ds.documents[p.doc_hi].text for p in batch]
    lo = [ds.documents[p.doc_lo].text for p in batch]
    want = _hinge_reference(model, hi, lo, docs, 1.0)
    assert float(loss) == pytest.approx(want, abs=1e-5)
    assert info["rel_loss"] == pytest.approx(want, abs=1e-5)
    # KNRM is asymmetric: scoring the document as the query would be another model
    s_right = model.score_pairs(hi, docs)
    s_swap = model.score_pairs(docs, hi)
    assert not torch.allclose(s_right, s_swap, atol=1e-4)


def test_a_knrm_pre_trains_on_the_pairs_and_is_saved_as_itself(demo, tmp_path) -> None:
    prepared, texts = demo
    start = _knrm(texts)
    before = copy.deepcopy(start.state_dict())
    out = tmp_path / "ares-knrm"
    s = pretrain_ares(
        [prepared], out, "strict", steps=40, batch_size=8, lr=5e-2, eval_every=1000,
        checkpoint_every=1000, seed=0, mlm_weight=0.0, model=start,
    )  # fmt: skip
    assert s["train"]["steps"] == 40 and s["n_pairs"] > 0
    unit = json.loads((out / "unit.json").read_text(encoding="utf-8"))
    assert unit["model"] == "knrm" and unit["mlm_weight"] == 0.0
    enc = load_model(out / "encoder", device="cpu")
    assert type(enc).__name__ == "KNRM"
    moved = any(not torch.equal(before[k], v) for k, v in enc.state_dict().items())
    assert moved
    # it learned the pairs' order: the hinge on its own pairs fell from the start's
    t = pq.read_table(out / "pairs.parquet")
    d, a, b = (t[c].to_numpy() for c in ("doc", "q_pos", "q_neg"))
    ds = ares_dataset(prepared, d, a, b, surface_forms(prepared))
    qids = sorted(ds.queries)
    docs = [ds.queries[q].text for q in qids]
    hi = [ds.documents[ds.candidates[q][0]].text for q in qids]
    lo = [ds.documents[ds.candidates[q][1]].text for q in qids]
    fresh = _knrm(texts)
    assert _hinge_reference(enc, hi, lo, docs, 1.0) < _hinge_reference(fresh, hi, lo, docs, 1.0)


def test_a_folder_of_another_start_or_with_mlm_is_refused(demo, tmp_path) -> None:
    prepared, texts = demo
    out = tmp_path / "ares-knrm"
    kw = dict(steps=1, batch_size=4, lr=1e-2, eval_every=1000, checkpoint_every=1000, seed=0)
    with pytest.raises(ValueError, match=r"hinge only.*mlm_weight=0"):
        pretrain_ares([prepared], out, "strict", model=_knrm(texts), **kw)
    pretrain_ares([prepared], out, "strict", mlm_weight=0.0, model=_knrm(texts, 0), **kw)
    with pytest.raises(ValueError, match="model_state"):
        pretrain_ares([prepared], out, "strict", mlm_weight=0.0, model=_knrm(texts, 1), **kw)

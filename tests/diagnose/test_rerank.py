"""Axiomatic re-ranking: KwikSort and aggregations (Hagen et al. 2016)."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.data.demo import demo_dataset
from axiomatic.diagnose.rerank import axiomatic_rerank, learn_weights
from axiomatic.index.cache import dataset_index
from axiomatic.rankers.base import rerank
from axiomatic.rankers.lexical import BM25Ranker
from axiomatic.rankers.orders import kwiksort


def test_kwiksort_total_order_and_ties():
    n = 7
    perm = np.random.default_rng(3).permutation(n)
    rank = np.empty(n, int)
    rank[perm] = np.arange(n)
    pref = np.sign(rank[None, :] - rank[:, None])  # i before j iff rank_i < rank_j
    for seed in range(4):
        assert kwiksort(pref, seed).tolist() == perm.tolist()
    assert kwiksort(np.zeros((5, 5)), 1).tolist() == [0, 1, 2, 3, 4]  # no preference: base order
    pref = np.zeros((4, 4))
    pref[3, 0], pref[0, 3] = 1, -1  # only 3 > 0
    order = kwiksort(pref, 0).tolist()
    assert order.index(3) < order.index(0) and sorted(order) == [0, 1, 2, 3]


@pytest.fixture(scope="module")
def setup():
    ds = demo_dataset()
    idx = dataset_index(ds, cache_dir=False)
    run = rerank(BM25Ranker(idx), ds)
    return ds, idx, run


def test_rerank_keeps_candidates_and_is_deterministic(setup):
    ds, idx, run = setup
    a = axiomatic_rerank(ds, "TFC1,M-TDC,LNC1,PROX1,AND", run, depth=8, seed=1, index=idx)
    b = axiomatic_rerank(ds, "TFC1,M-TDC,LNC1,PROX1,AND", run, depth=8, seed=1, index=idx)
    assert a == b
    for q in ds.queries:
        assert set(a[q]) == set(run[q])
        base = sorted(run[q], key=lambda d: (-run[q][d], d))
        new = sorted(a[q], key=lambda d: -a[q][d])
        assert new[8:] == base[8:]  # the tail keeps its base order


def test_rerank_follows_a_single_axiom(setup):
    ds, idx, run = setup
    out = axiomatic_rerank(ds, "AND", run, depth=12, index=idx)
    from axiomatic.axioms import QueryContext

    for q, query in ds.queries.items():
        new = sorted(out[q], key=lambda d: -out[q][d])
        ctx = QueryContext.build(query, [ds.documents[d] for d in new], idx)
        allq = (ctx.counts > 0).all(axis=1)
        # every document with all query terms precedes every document without
        if allq.any() and (~allq).any():
            assert np.nonzero(allq)[0].max() < np.nonzero(~allq)[0].min()


def test_weighted_learned_and_errors(setup):
    ds, idx, run = setup
    w = learn_weights(ds, "TFC1,AND,M-AND,LNC1", run, depth=12, index=idx)
    assert w.shape == (4,) and np.isfinite(w).all()
    out = axiomatic_rerank(
        ds, "TFC1,AND,M-AND,LNC1", run, depth=12, aggregation="weighted", weights=w, index=idx
    )
    assert set(out) == set(ds.queries)
    learned = axiomatic_rerank(
        ds,
        "TFC1,AND,M-AND,LNC1",
        run,
        depth=12,
        aggregation="learned",
        train=ds,
        train_run=run,
        index=idx,
    )
    assert learned == out
    with pytest.raises(ValueError, match="did you mean 'majority'"):
        axiomatic_rerank(ds, "TFC1", run, aggregation="majorty", index=idx)
    with pytest.raises(ValueError, match="weights"):
        axiomatic_rerank(ds, "TFC1", run, aggregation="weighted", index=idx)

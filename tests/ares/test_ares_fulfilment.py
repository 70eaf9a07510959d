"""Query-pair fulfilment of ARES models (does pre-training teach the axioms it used?)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from axiomatic.ares.fulfilment import query_pair_fulfilment, sample_query_pairs
from axiomatic.ares.pipeline import load_collection, prepare


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    coll = load_collection("demo")
    n = CollectionIndex.build(coll.documents.values(), Analyzer()).n_terms
    vecs = np.random.default_rng(0).normal(size=(n, 8))
    return prepare(coll, cache_dir=tmp_path_factory.mktemp("cache"), seed=0, term_vectors=vecs)


class _Stub:
    """A 'cross-encoder' scoring (query text, document text) by a lookup table."""

    def __init__(self, table, sign=1.0):
        self.table, self.sign = table, sign

    def eval(self):
        return self

    def score_pairs(self, qs, ds, batch_size=64):
        scores = [self.sign * self.table.get((q, d), 0.0) for q, d in zip(qs, ds, strict=True)]
        return torch.tensor(scores, dtype=torch.float64)  # float32 would tie close scores


def _texts(p):
    words = p.index.terms
    texts = p.index.texts
    return {
        k: (
            " ".join(words[t] for t in p.pseudo.terms(k)),
            texts[p.index.doc_ids[int(p.pseudo.doc[k])]],
        )
        for k in range(len(p.pseudo))
    }


def test_pairs_are_two_distinct_queries_of_one_document(prepared) -> None:
    d, i, j = sample_query_pairs(prepared, 20, seed=3)
    assert len(np.unique(d)) == len(d) == 20
    assert (i != j).all()
    assert (prepared.pseudo.doc[i] == d).all() and (prepared.pseudo.doc[j] == d).all()
    _, i2, j2 = sample_query_pairs(prepared, 20, seed=3)
    assert (i == i2).all() and (j == j2).all()  # seeded


def test_a_model_scoring_by_an_axiom_fulfils_it_and_its_negation_the_complement(prepared):
    texts = _texts(prepared)
    rep = prepared.ctx.scores("Q-REP-QL")
    rng = np.random.default_rng(0)
    table = {texts[k]: float(rep[k]) for k in range(len(prepared.pseudo))}
    noise = {texts[k]: float(rng.normal()) for k in range(len(prepared.pseudo))}
    models = {
        "rep": _Stub(table),
        "anti-rep": _Stub(table, -1.0),
        "noise": _Stub(noise),
        "anti-noise": _Stub(noise, -1.0),
        "constant": _Stub({}),
    }
    res = query_pair_fulfilment(prepared, models, n_docs=40, seed=1, surface=None)
    ful = res["fulfilment"]
    assert res["pairs"] == 40 and res["decisive"]["Q-REP-QL"] > 0
    assert ful["rep"]["Q-REP-QL"] == 1.0
    assert ful["anti-rep"]["Q-REP-QL"] == 0.0
    for ax, n in res["decisive"].items():
        if n:  # no ties in the noise scores: fulfilled exactly when the negation is not
            assert ful["noise"][ax] + ful["anti-noise"][ax] == pytest.approx(1.0)
            assert ful["constant"][ax] == 0.0  # a tie never fulfils a preference
        else:
            assert ful["noise"][ax] is None

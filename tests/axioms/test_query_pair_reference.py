"""ARES' query-pair axioms in the one catalogue give what they gave before the move.

The constants below were computed with the code before the query-pair axioms joined the
catalogue (``axioms/query_pairs.py`` with its own definition type and parser, commit 7690c3e):
the preference matrix of every axiom (defaults and a few parameter settings) for all queries of
two documents, the ``(doc, q+, q-)`` pairs ARES pre-training draws on the demo collection, and
the eq.-9 feature matrix of the predictor. Each matrix is written row by row, ``+`` / ``-`` /
``0`` for +1 / -1 / 0, one string per document (rows separated by spaces).
"""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.axioms import list_axioms, parse_axiom
from axiomatic.axioms.query_pairs import (
    QueryPairContext,
    document_preferences,
    parse_query_pair_axioms,
    preference_features,
)
from axiomatic.data.records import Document
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

DOCS = {"d0": "alpha beta gamma alpha delta", "d1": "epsilon beta zeta"}
VECS = {
    "alpha": (1.0, 0.0),
    "beta": (1.0, 0.0),
    "gamma": (0.0, 1.0),
    "delta": (0.0, 1.0),
    "epsilon": (0.6, 0.8),
    "zeta": (0.6, 0.8),
}
QUERIES = [
    ("d0", ["alpha", "beta"]),
    ("d0", ["gamma"]),
    ("d0", ["alpha", "delta", "omega"]),
    ("d0", ["beta", "zeta"]),
    ("d1", ["beta"]),
    ("d1", ["epsilon", "zeta"]),
    ("d1", ["alpha", "zeta"]),
    ("d1", ["gamma", "beta", "epsilon"]),
    ("d0", ["gamma", "delta"]),
    ("d1", ["zeta", "beta"]),
]

# fmt: off
MATRICES = {
    'Q-RANK(b=0.4, depth=50, k1=0.9)': ['000+0 000+0 000+0 ---0- 000+0', '00+00 00+00 --0-- 00+00 00+00'],
    'Q-REP-QL(mu=1000.0)': ['0++++ -0+-0 --0-- -++0+ -0+-0', '0++++ -0+-- --0-- -++0- -+++0'],
    'Q-REP-TFIDF': ['0--+- +0++0 +-0+- ---0- +0++0', '0---- +0+++ +-0+0 +--0- +-0+0'],
    'Q-PROX-1': ['0000+ 00000 00000 00000 -0000', '00000 0000- 00000 00000 0+000'],
    'Q-PROX-2': ['0++++ -0+++ --000 --000 --000', '00+++ 00+++ --0-- --+0+ --+-0'],
    'Q-REG': ['0+0++ -0-00 0+0++ -0-00 -0-00', '00+00 00+00 --0-- 00+00 00+00'],
    'Q-STM-1': ['0+--+ -0--0 ++0-+ +++0+ -0--0', '0---- +0--- ++0+0 ++-0- ++0+0'],
    'Q-STM-2(threshold=0.02)': ['00000 0000- 000+0 00-00 0+000', '00000 00000 000-- 00+00 00+00'],
    'Q-STM-3(threshold=0.35)': ['0+000 -0--- 0+000 0+000 0+000', '0---- +00-0 +00-0 +++0+ +00-0'],
    'Q-RANK(b=0.4, depth=1, k1=0.9)': ['000+0 000+0 000+0 ---0- 000+0', '00+00 00+00 --0-- 00+00 00+00'],
    'Q-STM-2(threshold=0.5)': ['0+0+0 -0-0- 0+0+0 -0-0- 0+0+0', '0-0-- +0+00 0-0-- +0+00 +0+00'],
    'Q-STM-3(threshold=0.7)': ['0++0+ -0--0 -+0-+ 0++0+ -0--0', '0---- +0000 +0000 +0000 +0000'],
    'Q-REP-QL(mu=10)': ['0++++ -0++0 --0-- --+0- -0++0', '0++++ -0++- --0-- --+0- -+++0'],
}

ARES_PAIRS = {
    'strict': (
        [17, 20, 21, 21, 25, 44, 47, 52, 52, 56],
        [170, 206, 212, 214, 258, 444, 479, 523, 520, 566],
        [179, 207, 211, 216, 259, 440, 472, 522, 522, 567],
    ),
    'rank': (
        [0, 2, 5, 9, 10, 10, 12, 12, 13, 14, 15, 15, 16, 16, 18, 18, 22, 22, 23, 23, 25, 26, 29, 29, 33, 33, 35, 39, 41, 42, 42, 46, 47, 52, 52, 53, 53, 54, 56, 56],
        [6, 25, 52, 90, 109, 100, 127, 123, 133, 149, 153, 154, 160, 160, 185, 183, 223, 222, 236, 232, 255, 263, 293, 292, 337, 337, 352, 391, 416, 425, 421, 460, 478, 523, 520, 536, 539, 543, 565, 566],
        [1, 26, 53, 97, 104, 102, 129, 125, 135, 142, 157, 152, 166, 168, 189, 188, 227, 226, 235, 231, 252, 267, 294, 293, 335, 333, 351, 398, 417, 428, 424, 468, 471, 522, 522, 537, 537, 542, 567, 567],
    ),
    'rep': (
        [1, 2, 8, 12, 19, 21, 22, 22, 26, 27, 38, 41, 41, 47, 52, 52, 56],
        [13, 25, 84, 129, 190, 212, 223, 222, 267, 272, 389, 416, 411, 478, 523, 520, 566],
        [18, 26, 83, 127, 198, 211, 227, 226, 263, 271, 380, 417, 410, 471, 522, 522, 567],
    ),
}

FEATURES = (
    '+-++-0-0- 0-++++-0- ---++0-0- 000-+0+0+ 0-+--0+0+ 0+-++0+00 0+-0-0+0+ 0-+-+0+0+ '
    '0-+0+0+0+ +-+0+0+00 +-+-+0-0- 0+---0+00 0+-+-0-0- 0-+++0+0+ +-+0-0+00 0000+0+00 '
    '+-++-0+0+ 0+-++0-0+ +-++-0+0+ 000-+--00 +000+0+00 0+---0-00 0-+-+0+0- +-+++0+0+ '
    '000+-0-0- +-+0-0+0+ 0-+-+0+0+ 0+-+-0+00 0-+++0-0- -000+0+00 0000+0-00 0-+++0-0- '
    '0+---0-0- 0+-+-0+00 0-+-+0+0+ +-+--0+0+ +-+-+0-0- 0+-+-0+0+ 0-+0+0-00 0+--+0+0+ '
    '0-+0+0-00 0-0-+0-0- -+---0+00 0-+++0-0- 0-+-+0+00 0+--+0-0- 0-+++0-0- 0+-0+0+0+ '
    '0+--+0+0+ 000+-0+0+ 0+--+0-0- 0-+--0-00 0-0+-0-0- 000-+0+0+ 0-+--0+0+ 0+-++0+0+ '
    '0+-0+0+0+ 0+--+0+00'
)
# fmt: on


def _signs(M: np.ndarray) -> list[str]:
    return [
        " ".join("".join("+-0"[[1, -1, 0].index(int(x))] for x in row) for row in doc) for doc in M
    ]


def _ctx() -> QueryPairContext:
    idx = CollectionIndex.build(
        [Document(k, v) for k, v in DOCS.items()], Analyzer(stopwords=False, stemmer=None)
    )
    vecs = np.array([VECS[t] for t in idx.terms])
    doc = np.array([idx.doc_index[d] for d, _ in QUERIES])
    ids = [idx.vocab.get(t, -1) for _, q in QUERIES for t in q]
    offsets = np.concatenate(([0], np.cumsum([len(q) for _, q in QUERIES])))
    return QueryPairContext(idx, doc, offsets, np.array(ids), term_vectors=vecs)


def test_every_query_pair_axiom_gives_the_preferences_it_gave_before() -> None:
    ctx = _ctx()
    for spec, expected in MATRICES.items():
        ax = parse_axiom(spec)
        assert ax.spec == spec  # the spec keys the persisted score table: unchanged
        docs, M = document_preferences(ctx, ax)
        assert docs.tolist() == [0, 1]
        assert _signs(M) == expected, spec


def test_all_gives_the_nine_of_table_1_with_the_specs_of_before() -> None:
    """``prepare`` persists per-query scores under these specs (query_scores.parquet)."""
    assert [a.spec for a in parse_query_pair_axioms("all")] == list(MATRICES)[:9]
    assert [r["name"] for r in list_axioms(relates="queries")] == [
        a.name for a in parse_query_pair_axioms("all")
    ]


@pytest.fixture(scope="module")
def demo_prepared(tmp_path_factory):
    from axiomatic.ares.pipeline import load_collection, prepare

    coll = load_collection("demo")
    n = CollectionIndex.build(coll.documents.values(), Analyzer()).n_terms
    vecs = np.random.default_rng(0).normal(size=(n, 8))
    cache = tmp_path_factory.mktemp("ares-ref") / "cache"
    return prepare(coll, cache_dir=cache, seed=0, term_vectors=vecs)


@pytest.mark.parametrize("variant", ["strict", "rank", "rep"])
def test_ares_pairs_on_the_demo_collection_are_those_of_before(demo_prepared, variant) -> None:
    from axiomatic.ares.pretrain import ares_pairs

    d, qp, qn = ares_pairs(demo_prepared, variant, None, pairs_per_doc=2, seed=0)
    assert (d.tolist(), qp.tolist(), qn.tolist()) == tuple(map(list, ARES_PAIRS[variant]))


def test_predictor_features_on_the_demo_collection_are_those_of_before(demo_prepared) -> None:
    p = demo_prepared
    assert sorted(p.ctx.__dict__["_score_cache"]) == sorted(list(MATRICES)[:9])
    i = np.arange(0, p.n_pseudo, 10)
    X = preference_features(p.ctx, i, i + 1)
    assert _signs(X[None]) == [FEATURES]

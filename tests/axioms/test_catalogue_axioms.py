"""The wider catalogue on tiny hand-made documents, and the pluggable term similarity."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.axioms import QueryContext, list_axioms, parse_axiom
from axiomatic.axioms.similarity import ExactSimilarity, VectorSimilarity, Word2VecSimilarity
from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

AN = Analyzer(stopwords=False, stemmer=None)


def build(query, texts, similarity=None, scores=None):
    docs = [Document(f"d{i}", t) for i, t in enumerate(texts)]
    filler = [Document(f"f{i}", f"x{i} y{i} z") for i in range(6)]
    idx = CollectionIndex.build(docs + filler, AN)
    return QueryContext.build(Query("q", query), docs, idx, similarity=similarity, scores=scores)


def prefers(spec, ctx):
    P = parse_axiom(spec).preferences(ctx)
    return sorted((int(i), int(j)) for i, j in zip(*np.nonzero(P > 0), strict=True))


def test_every_catalogue_entry_parses_and_documents_itself():
    for row in list_axioms():
        ax = parse_axiom(row["name"])
        assert ax.definition.kernel.__doc__, row["name"]
        assert parse_axiom(ax.spec) == ax


def test_tf_lnc_lnc1_and_m_and():
    ctx = build("apple", ["apple pie crust", "apple apple pie crust", "apple pie crust dough"])
    # TF-LNC: d1 = d0 plus one more 'apple' (equal length without it)
    assert prefers("TF-LNC", ctx) == [(1, 0)]
    # LNC1: same query-term counts, shorter wins
    assert prefers("LNC1", ctx) == [(0, 2)]
    ctx2 = build("apple pie", ["apple pie", "apple crust", "crust dough"])
    assert prefers("M-AND", ctx2) == [(0, 1), (0, 2), (1, 2)]
    assert prefers("AND", ctx2) == [(0, 1), (0, 2)]


def test_proximity_axioms():
    ctx = build("red car", ["red car x y z", "red x y z car", "car x red y z"])
    assert (0, 1) in prefers("PROX1", ctx)  # terms closer together
    assert (0, 1) in prefers("PROX3", ctx) and (0, 2) in prefers("PROX3", ctx)  # phrase earlier
    assert (0, 1) in prefers("PROX5", ctx)  # smaller span
    assert prefers("PROX1", build("red car", ["red car", "red x"])) == []  # different subsets


def test_tdc_and_lb2():
    # 'rare' occurs in one doc of the collection, 'common' in many
    docs = ["rare common", "common common", "common x", "common y", "common z"]
    ctx = build("rare common", docs)
    assert (0, 1) in prefers("TDC(delta_rel=None)", ctx)
    ctx2 = build("alpha beta", ["alpha beta q", "alpha alpha q", "q q q"])
    # LB2 (ours): covering beta once beats repeating alpha (equal idf: both occur once here)
    assert prefers("LB2(delta_rel=None, idf_margin=1.0)", ctx2) == [(0, 1)]


def test_lb1_needs_scores_and_uses_them():
    with pytest.raises(ValueError, match="scores"):
        parse_axiom("LB1").preferences(build("a b", ["a x", "b x"]))
    ctx = build("a b", ["a x", "x y", "b x"], scores=[1.0, 1.02, 5.0])
    assert prefers("LB1", ctx) == [(0, 1)]


def test_semantic_axioms_with_vectors():
    vec = {
        "car": np.array([1.0, 0.0]),
        "automobile": np.array([0.9, 0.1]),
        "banana": np.array([0.0, 1.0]),
        "road": np.array([0.5, 0.5]),
    }
    sim = VectorSimilarity(vec)
    S = sim.matrix(["car", "banana", "zzz"], ["automobile", "zzz"])
    assert S[0, 0] > 0.9 and abs(S[1, 0]) < 0.2 and S[2, 1] == 1.0 and S[2, 0] == 0.0
    ctx = build("car", ["automobile road", "banana road"], similarity=sim)
    assert prefers("STMC1", ctx) == [(0, 1)]
    ctx3 = build("car road", ["automobile road", "banana road"], similarity=sim)
    assert prefers("STMC3(delta_rel=None, threshold=0.8)", ctx3) == [(0, 1)]
    E = ExactSimilarity().matrix(["a", "b"], ["b"])
    assert E.tolist() == [[0.0], [1.0]]


def test_word2vec_similarity_is_seeded():
    texts = [["solar", "panel", "energy"], ["solar", "energy", "sun"], ["bread", "yeast"]] * 20
    a = Word2VecSimilarity.train(texts, vector_size=8, epochs=2, seed=1)
    b = Word2VecSimilarity.train(texts, vector_size=8, epochs=2, seed=1)
    np.testing.assert_allclose(
        a.matrix(["solar"], ["energy", "bread"]), b.matrix(["solar"], ["energy", "bread"])
    )

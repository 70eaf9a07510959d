"""Query-centric ARES axioms (Chen et al. 2022, Table 1): hand-computed cases and laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from axiomatic.axioms.query_pairs import (
    QueryPairAxiom,
    QueryPairContext,
    document_preferences,
    list_query_pair_axioms,
    pair_preferences,
    parse_query_pair_axiom,
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


def _ctx(queries: list[tuple[str, list[str]]]) -> tuple[QueryPairContext, CollectionIndex]:
    idx = CollectionIndex.build(
        [Document(k, v) for k, v in DOCS.items()], Analyzer(stopwords=False, stemmer=None)
    )
    vecs = np.array([VECS[t] for t in idx.terms])
    doc = np.array([idx.doc_index[d] for d, _ in queries])
    ids = [idx.vocab.get(t, -1) for _, q in queries for t in q]
    offsets = np.concatenate(([0], np.cumsum([len(q) for _, q in queries])))
    return QueryPairContext(idx, doc, offsets, np.array(ids), term_vectors=vecs), idx


def test_prox1_eq1_mean_words_between_term_pairs() -> None:
    ctx, _ = _ctx(
        [("d0", ["alpha", "beta"]), ("d0", ["beta", "delta"]), ("d0", ["alpha", "beta", "gamma"])]
    )
    # alpha at 0 and 3, beta at 1: gaps 0 and 1 -> 0.5; beta-delta: |1-4|-1 = 2
    # alpha-gamma: gaps 1 and 0 -> 0.5; beta-gamma: 0 -> pi = (0.5 + 0.5 + 0) / 3
    np.testing.assert_allclose(ctx.scores("Q-PROX-1"), [0.5, 2.0, 1.0 / 3.0])
    assert pair_preferences(ctx, "Q-PROX-1", np.array([0]), np.array([1])).tolist() == [1]


def test_prox1_undefined_for_one_term_or_missing_term_gives_no_preference() -> None:
    ctx, _ = _ctx([("d0", ["alpha"]), ("d0", ["alpha", "zeta"]), ("d0", ["alpha", "beta"])])
    s = ctx.scores("Q-PROX-1")
    assert np.isnan(s[0]) and np.isnan(s[1])
    assert pair_preferences(ctx, "Q-PROX-1", np.array([0, 1]), np.array([2, 2])).tolist() == [0, 0]


def test_prox2_eq2_mean_first_position() -> None:
    ctx, _ = _ctx([("d0", ["alpha", "beta"]), ("d0", ["beta", "delta"]), ("d0", ["gamma"])])
    np.testing.assert_allclose(ctx.scores("Q-PROX-2"), [0.5, 2.5, 2.0])
    got = pair_preferences(ctx, "Q-PROX-2", np.array([0, 1]), np.array([2, 2])).tolist()
    assert got == [1, -1]


def test_rep_tfidf_and_rep_ql_are_length_normalized() -> None:
    ctx, idx = _ctx([("d0", ["alpha"]), ("d0", ["alpha", "beta"]), ("d0", ["beta"])])
    w_alpha = (1 + math.log(2)) * math.log(2)  # tf 2, df 1 of N = 2; beta has df 2 -> idf 0
    np.testing.assert_allclose(ctx.scores("Q-REP-TFIDF"), [w_alpha, w_alpha / 2, 0.0])
    mu = 10.0
    p = {t: (idx.df[idx.vocab[t]] + 1) / (idx.df.sum() + idx.n_terms) for t in ("alpha", "beta")}
    la = math.log((2 + mu * p["alpha"]) / (5 + mu))
    lb = math.log((1 + mu * p["beta"]) / (5 + mu))
    np.testing.assert_allclose(ctx.scores("Q-REP-QL(mu=10)"), [la, (la + lb) / 2, lb])
    i, j = np.array([0, 1]), np.array([1, 2])
    assert pair_preferences(ctx, "Q-REP-QL(mu=10)", i, j).tolist() == [1, 1]


def test_rank_is_the_bm25_rank_in_the_whole_corpus_with_inf_beyond_depth() -> None:
    ctx, _ = _ctx([("d0", ["alpha"]), ("d0", ["beta"]), ("d0", ["zeta"]), ("d1", ["beta"])])
    # beta is in both documents; the shorter d1 wins under BM25 (b > 0): d0 ranks 2nd
    np.testing.assert_array_equal(ctx.scores("Q-RANK"), [1, 2, np.inf, 1])
    assert pair_preferences(ctx, "Q-RANK", np.array([0]), np.array([1])).tolist() == [1]
    np.testing.assert_array_equal(ctx.scores("Q-RANK(depth=1)"), [1, np.inf, np.inf, 1])
    # both beyond the depth: the axiom deems them equal
    assert pair_preferences(ctx, "Q-RANK(depth=1)", np.array([1]), np.array([2])).tolist() == [0]


def test_reg_counts_the_most_diverse_query_term() -> None:
    ctx, _ = _ctx([("d0", ["alpha", "beta", "gamma"]), ("d0", ["alpha", "beta"])])
    # gamma is orthogonal to alpha and beta -> most diverse, tf 1; a tie picks alpha (tf 2)
    np.testing.assert_array_equal(ctx.scores("Q-REG"), [1, 2])
    assert pair_preferences(ctx, "Q-REG", np.array([0]), np.array([1])).tolist() == [-1]


def test_stm_axioms_with_given_vectors() -> None:
    ctx, _ = _ctx(
        [
            ("d0", ["gamma"]),
            ("d0", ["alpha"]),
            ("d0", ["alpha", "beta"]),
            ("d0", ["alpha", "gamma"]),
        ]
    )
    # document vector: 2 alpha + beta + gamma + delta = (3, 2)
    n = math.sqrt(13)
    assert ctx.scores("Q-STM-1")[:3] == pytest.approx([2 / n, 3 / n, 3 / n])
    assert pair_preferences(ctx, "Q-STM-1", np.array([1]), np.array([0])).tolist() == [1]
    # Q-STM-2: equal Q-STM-1 -> the query with more terms in d wins; threshold 0 -> never close
    assert pair_preferences(ctx, "Q-STM-2", np.array([2]), np.array([1])).tolist() == [1]
    assert pair_preferences(ctx, "Q-STM-2(threshold=0)", np.array([2]), np.array([1])).tolist() == [
        0
    ]
    # Q-STM-2 does not apply when the similarities differ by more than the threshold
    assert pair_preferences(ctx, "Q-STM-2", np.array([3]), np.array([0])).tolist() == [0]
    # Q-STM-3 (threshold 0.7): alpha (cos 0.83) counts, gamma (0.55) does not
    np.testing.assert_array_equal(ctx.scores("Q-STM-3(threshold=0.7)"), [0, 1, 2, 1])


def test_preference_matrix_is_antisymmetric_for_all_queries_of_a_document() -> None:
    rng = np.random.default_rng(0)
    terms = list(VECS)
    queries = []
    for d in ("d0", "d1"):
        for _ in range(6):
            k = int(rng.integers(1, 4))
            queries.append((d, list(rng.choice(terms, size=k, replace=False))))
    ctx, _ = _ctx(queries)
    for ax in parse_query_pair_axioms("all"):
        _docs, M = document_preferences(ctx, ax)
        assert M.shape == (2, 6, 6)
        np.testing.assert_array_equal(M, -M.transpose(0, 2, 1))
        assert (np.diagonal(M, axis1=1, axis2=2) == 0).all()
    i, j = np.arange(0, 6), np.arange(6)[::-1]
    F = preference_features(ctx, i, j)
    G = preference_features(ctx, j, i)
    assert F.shape == (6, 9) and F.dtype == np.int8
    np.testing.assert_array_equal(F, -G)


def test_pairs_must_share_their_document() -> None:
    ctx, _ = _ctx([("d0", ["alpha"]), ("d1", ["beta"])])
    with pytest.raises(ValueError, match="ONE document"):
        pair_preferences(ctx, "Q-RANK", np.array([0]), np.array([1]))


def test_spec_parsing_and_errors() -> None:
    assert parse_query_pair_axiom("q_stm_3(threshold=0.4)").spec == "Q-STM-3(threshold=0.4)"
    assert parse_query_pair_axiom("Q-RANK").param("depth") == 50
    assert [a.name for a in parse_query_pair_axioms("all")][:3] == [
        "Q-RANK",
        "Q-REP-QL",
        "Q-REP-TFIDF",
    ]
    with pytest.raises(ValueError, match="did you mean 'Q-PROX-1'"):
        QueryPairAxiom.create("PROX1x")
    with pytest.raises(ValueError, match=r"unknown parameter .treshold.*threshold"):
        parse_query_pair_axiom("Q-STM-3(treshold=0.3)")
    with pytest.raises(ValueError, match="literal"):
        parse_query_pair_axiom("Q-STM-3(threshold=__import__('os'))")
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        parse_query_pair_axiom("Q-RANK(depth=0.5)")
    rows = list_query_pair_axioms()
    assert len(rows) == 9 and {r["family"] for r in rows} == {"query-pair"}


def test_prox2_counts_a_missing_term_at_the_document_length() -> None:
    """Eq. 2 needs a position for every query term; a term absent from d counts as |d|
    (d0 has 5 analysed tokens, d1 has 3)."""
    ctx, _ = _ctx([("d0", ["alpha", "zeta"]), ("d1", ["alpha", "beta"]), ("d0", ["delta"])])
    # d0: alpha first at 0, zeta missing -> (0 + 5) / 2; d1: alpha missing, beta at 1 -> (3 + 1) / 2
    np.testing.assert_allclose(ctx.scores("Q-PROX-2"), [2.5, 2.0, 4.0])
    assert pair_preferences(ctx, "Q-PROX-2", np.array([0]), np.array([2])).tolist() == [1]


def test_unknown_words_count_separately_and_are_never_the_most_diverse_term() -> None:
    """Several unknown words (id -1) are several terms of the query, not one; Q-REG picks its most
    diverse term among the known ones (an unknown term has no vector, and its tf 0 would make
    Q-REG 0 for every query with one)."""
    ctx, _ = _ctx(
        [
            ("d0", ["gamma", "omega", "psi"]),
            ("d0", ["alpha", "beta", "gamma", "omega"]),
            ("d0", ["omega", "psi"]),
        ]
    )
    assert ctx.q_len.tolist() == [3, 4, 2]
    np.testing.assert_allclose(ctx.scores("Q-PROX-2"), [(2 + 5 + 5) / 3, (0 + 1 + 2 + 5) / 4, 5.0])
    # alpha and beta are parallel (mean cosine to the rest 1/3), gamma orthogonal (0): gamma,
    # tf 1; a query of unknown words only has Q-REG 0
    np.testing.assert_array_equal(ctx.scores("Q-REG"), [1, 1, 0])

"""Query-centric ARES axioms (Chen et al. 2022, Table 1): hand-computed cases and laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from axiomatic.axioms import Axiom, list_axioms, parse_axiom, parse_axioms
from axiomatic.axioms.query_pairs import (
    QueryPairContext,
    document_preferences,
    pair_preferences,
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
    """One grammar: the query-pair axioms parse with parse_axiom, the same messages."""
    assert parse_axiom("q_stm_3(threshold=0.4)").spec == "Q-STM-3(threshold=0.4)"
    assert parse_axiom("Q-RANK").param("depth") == 50
    assert parse_axiom("Q-REG").spec == "Q-REG" and parse_axiom("Q-REG").variant == ""
    assert [a.name for a in parse_query_pair_axioms("all")][:3] == [
        "Q-RANK",
        "Q-REP-QL",
        "Q-REP-TFIDF",
    ]
    with pytest.raises(ValueError, match="did you mean 'Q-PROX-1'"):
        Axiom.create("Q-PROX1x")
    with pytest.raises(ValueError, match=r"unknown parameter .treshold.*threshold"):
        parse_axiom("Q-STM-3(treshold=0.3)")
    with pytest.raises(ValueError, match="literal"):
        parse_axiom("Q-STM-3(threshold=__import__('os'))")
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        parse_axiom("Q-RANK(depth=1.5)")
    with pytest.raises(ValueError, match=r"^Q-RANK: parameter depth must be a finite number >= 1"):
        parse_axiom("Q-RANK(depth=0.5)")  # the record's range, before the integer check
    with pytest.raises(ValueError) as err:
        parse_axiom("Q-STM-3(threshold=-1)")
    assert str(err.value) == (
        "Q-STM-3: parameter threshold must be a finite number >= 0 (got -1, an integer)"
    )
    with pytest.raises(ValueError, match="Q-RANK has no variants"):
        parse_axiom("Q-RANK(variant='relaxed')")
    # a global default variant (--variant relaxed) does not apply to axioms without variants
    assert parse_axioms("Q-RANK,TFC1", default_variant="strict")[0].variant == ""
    rows = list_axioms(relates="queries")
    assert len(rows) == 9 and {r["family"] for r in rows} == {"query-pair"}
    assert {(r["relates"], r["arity"], r["relation"]) for r in rows} == {("queries", 2, "q1>q2|d")}
    assert rows[0]["params"] == {"depth": 50, "k1": 0.9, "b": 0.4}  # no variant, no delta


def test_a_list_for_ares_refuses_document_axioms_with_the_query_pair_suggestion() -> None:
    with pytest.raises(ValueError, match=r"REG relates two documents for one query.*'Q-REG'"):
        parse_query_pair_axioms("Q-RANK,REG")
    with pytest.raises(ValueError, match="relates two queries for one document"):
        parse_axioms("TFC1,Q-RANK", relates="documents")


def test_an_expression_of_two_kinds_is_refused_in_one_line_at_parse_time() -> None:
    for text in ("TFC1 + 0.5*Q-RANK", "Q-RANK | TFC1", "(Q-REG % Q-RANK % LNC1)"):
        with pytest.raises(ValueError) as exc:
            parse_axiom(text)
        msg = str(exc.value)
        assert "\n" not in msg and "combines axioms of one kind" in msg, msg
        assert "relates two documents for one query" in msg
        assert "relates two queries for one document" in msg


def test_query_pair_expressions_combine_as_document_ones() -> None:
    """Weights, sums, cascades and votes of query-pair axioms: the meanings of
    axioms/algebra.py on the pair vectors, sign-normalized."""
    ctx, _ = _ctx(
        [("d0", ["alpha", "beta"]), ("d0", ["beta", "delta"]), ("d0", ["gamma"]), ("d0", ["beta"])]
    )
    a, b = np.array([0, 0, 0, 1, 1, 2, 3]), np.array([1, 2, 3, 2, 3, 3, 0])
    prox = pair_preferences(ctx, "Q-PROX-2", a, b).astype(float)
    tfidf = pair_preferences(ctx, "Q-REP-TFIDF", a, b).astype(float)
    stm = pair_preferences(ctx, "Q-STM-1", a, b).astype(float)
    got = pair_preferences(ctx, "Q-PROX-2 - 2*Q-REP-TFIDF", a, b)
    np.testing.assert_array_equal(got, np.sign(prox - 2 * tfidf))
    assert (stm == 0).any() and (stm != 0).any()
    cascade = np.where(stm != 0, stm, prox)
    np.testing.assert_array_equal(pair_preferences(ctx, "Q-STM-1 | Q-PROX-2", a, b), cascade)
    both = np.where(prox == stm, prox, 0)
    np.testing.assert_array_equal(pair_preferences(ctx, "Q-PROX-2 & Q-STM-1", a, b), both)
    pos = (prox > 0).astype(int) + (tfidf > 0) + (stm > 0)
    neg = (prox < 0).astype(int) + (tfidf < 0) + (stm < 0)
    majority = ((pos > neg) & (pos >= 2)).astype(int) - ((neg > pos) & (neg >= 2))
    np.testing.assert_array_equal(
        pair_preferences(ctx, "Q-PROX-2 % Q-REP-TFIDF % Q-STM-1", a, b), majority
    )
    assert (majority != prox).any() and (majority != tfidf).any() and (majority != stm).any()
    combo = parse_axiom("Q-PROX-2 - 2*Q-REP-TFIDF")
    assert combo.relates == "queries" and parse_axiom(combo.spec) == combo
    F = preference_features(ctx, a, b, ["Q-PROX-2", combo])
    np.testing.assert_array_equal(F[:, 1], got)
    with pytest.raises(ValueError, match="no per-query score"):
        ctx.scores(combo)


def test_hyphenated_query_pair_names_are_names_and_a_subtraction_still_subtracts() -> None:
    """``Q-PROX-1`` ends in a digit part: the name, not ``Q-PROX`` minus 1."""
    assert parse_axiom("Q-PROX-1").name == "Q-PROX-1"
    assert parse_axiom("Q-PROX-1-0.5*Q-REG").name == "Q-PROX-1 - 0.5 * Q-REG"
    assert parse_axiom("q-prox-1 - Q-PROX-2").name == "Q-PROX-1 - Q-PROX-2"
    assert parse_axiom("PROX1-0.5*TFC1").name == "PROX1 - 0.5 * TFC1"  # as before
    with pytest.raises(ValueError, match=r"unknown axiom 'Q-PROX1x' \(did you mean 'Q-PROX-1'"):
        parse_axiom("Q-PROX1x - Q-REG")


def test_the_document_engine_refuses_a_query_pair_axiom_in_one_line() -> None:
    from axiomatic.axioms import QueryContext
    from axiomatic.data.records import Query

    idx = CollectionIndex.build(
        [Document(k, v) for k, v in DOCS.items()], Analyzer(stopwords=False, stemmer=None)
    )
    ctx = QueryContext.build(Query("q", "alpha"), [Document(k, v) for k, v in DOCS.items()], idx)
    for spec in ("Q-RANK", "Q-RANK + Q-REG"):
        with pytest.raises(ValueError, match="relates two queries for one document"):
            parse_axiom(spec).preferences(ctx)
        with pytest.raises(ValueError, match="relates two queries for one document"):
            parse_axiom(spec).instances(ctx)


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

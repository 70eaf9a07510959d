"""Compiled preference matrices and the other fast paths give IDENTICAL results.

- every ``preferences_kernel`` (one compiled pass per axiom, ``axioms/kernels/_jit.py``) gives
  the matrix the engine derives from the axiom's kernel (``holds - holds.T``, the numpy form
  that stays the reference, used with ``AXIOMATIC_JIT=0``), with and without the length
  precondition, on random count matrices and on indexed random texts (documents outside the
  index included);
- each compiled kernel equals its numpy definition on random inputs (NaN, infinities, ties),
  and, run as plain Python, is the same function;
- the compiled proximity features equal the vectorized ones; the context's counts from the
  compiled row scan equal the index's sparse indexing;
- STMC1 / STMC2 on the vector table's row order (``VectorSimilarity.table_matrix``) equal the
  sorted-vocabulary path, ties of STMC2's most similar pair included.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.kernels import _jit, proximity, semantic
from axiomatic.axioms.similarity import VectorSimilarity
from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

numba = pytest.importorskip("numba", reason="the compiled kernels need the `fast` extra")

#: every axiom with a preferences kernel, in its variants and with length tolerances
SPECS = [
    "TFC1",
    "TFC1(variant=extended)",
    "TFC1(variant=strict)",
    "TFC1(delta_rel=None)",
    "TFC1(delta=3, delta_rel=None)",
    "TFC1(delta=2, delta_rel=0.3)",
    "TFC3",
    "TFC3(delta_rel=None)",
    "TFC3(idf_margin=0.5)",
    "M-TDC",
    "M-TDC(delta_rel=None)",
    "M-TDC(variant=extended)",
    "LNC1",
    "LNC1(margin=0.5)",
    "TF-LNC",
    "LB1",
    "PROX1",
    "PROX2",
    "PROX3",
    "PROX4",
    "PROX5",
    "REG",
    "REG(delta_rel=None)",
    "AND",
    "LEN-AND",
    "LEN-AND(delta=4, delta_rel=None)",
    "M-AND",
    "LEN-M-AND",
    "DIV",
    "LEN-DIV",
    "STMC1",
    "STMC2",
    "STMC2(margin=0.5)",
]
WORDS = ["apple", "bank", "cat", "dog", "eel", "fig", "goat", "hat", "ink", "jam"]


def _with_jit(on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_jit, "_enabled", on)


@pytest.fixture(autouse=True)
def _compiled_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled kernels on in every test (also under ``AXIOMATIC_JIT=0``, which the suite runs
    with too); the tests comparing both forms switch them themselves."""
    _with_jit(True, monkeypatch)


def _indexed_contexts(seed: int) -> list[QueryContext]:
    """Random texts, indexed; queries of 1-4 words (one outside the vocabulary at times);
    scores and random term vectors (some terms without one, some zero, some duplicated)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(6):
        n = int(rng.integers(2, 40))
        words = WORDS[: int(rng.integers(3, len(WORDS) + 1))]
        docs = [
            Document(f"d{i}", " ".join(rng.choice(words, size=int(rng.integers(1, 30)))))
            for i in range(n)
        ]
        idx = CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))
        cands = list(docs)
        if t % 3 == 2:  # documents outside the index: analyzed at query time
            extra = " ".join(rng.choice([*words, "zzz"], size=12))
            cands = [*cands, Document("x1", extra), Document("d0", docs[0].text + " zzz")]
        q = Query("q", " ".join(rng.choice([*words[:5], "zzz"], size=int(rng.integers(1, 5)))))
        vectors = {w: rng.normal(size=5) for w in rng.permutation(words)[: len(words) - 1]}
        vectors["apple"] = np.zeros(5)
        if "bank" in vectors and "cat" in vectors:
            vectors["cat"] = vectors["bank"].copy()  # ties for STMC2's most similar pair
        sim = VectorSimilarity(vectors)
        scores = np.round(rng.normal(5, 1, len(cands)), 1)
        out.append(QueryContext.build(q, cands, idx, similarity=sim, scores=scores))
    return out


def _array_contexts(seed: int) -> list[QueryContext]:
    """Count matrices with many or few repeated rows (no index: no proximity, no semantics)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(8):
        n, m = int(rng.integers(2, 70)), int(rng.integers(1, 6))
        C = rng.integers(0, int(rng.choice([2, 3, 8])), size=(n, m))
        L = C.sum(axis=1) + rng.integers(0, int(rng.choice([2, 6, 40])), size=n)
        ctx = QueryContext.from_arrays(C, L, idf=rng.choice([1.0, 1.05, 2.0], size=m))
        ctx.scores = np.round(rng.normal(5, 1, n), 1)
        out.append(ctx)
    return out


def _both(spec: str, ctx: QueryContext, monkeypatch: pytest.MonkeyPatch) -> tuple:
    ax = parse_axiom(spec)
    got = {}
    for on in (True, False):
        _with_jit(on, monkeypatch)
        ctx._cache.clear()  # every cached feature recomputed by the form under test
        got[on] = ax.preferences(ctx)
    return got[True], got[False]


@pytest.mark.parametrize("seed", range(4))
def test_compiled_preferences_equal_the_kernel_path_on_indexed_texts(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    nonzero = 0
    for ctx in _indexed_contexts(seed):
        for spec in SPECS:
            fast, ref = _both(spec, ctx, monkeypatch)
            assert fast.dtype == np.int8 and ref.dtype == np.int8
            np.testing.assert_array_equal(fast, ref, err_msg=f"{spec} on {ctx.query.text!r}")
            nonzero += int((ref != 0).sum())
    assert nonzero > 500  # preferences were compared, not empty matrices


@pytest.mark.parametrize("seed", range(4))
def test_compiled_preferences_equal_the_kernel_path_on_count_matrices(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = [s for s in SPECS if not s.startswith(("PROX", "STMC", "REG", "DIV", "LEN-DIV"))]
    for ctx in _array_contexts(seed):
        for spec in specs:
            fast, ref = _both(spec, ctx, monkeypatch)
            np.testing.assert_array_equal(fast, ref, err_msg=spec)


def test_the_compiled_path_is_the_one_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """With compiled kernels on, the preference kernels answer (the engine's kernel path is
    not evaluated); off, they decline."""
    from axiomatic.axioms import engine

    ctx = _indexed_contexts(0)[0]
    calls: list[str] = []
    real = engine.holds
    monkeypatch.setattr(engine, "holds", lambda ax, c: calls.append(ax.name) or real(ax, c))
    for on in (True, False):
        _with_jit(on, monkeypatch)
        calls.clear()
        for spec in ("TFC1", "LEN-DIV", "PROX4", "STMC1", "TF-LNC", "REG"):
            ctx._cache.clear()
            parse_axiom(spec).preferences(ctx)
        assert (calls == []) if on else len(calls) == 6


# ---------------------------------------------------------------------- the kernels alone
def _sign_reference(f1, f2, codes, mask, close) -> np.ndarray:
    gt = (f1[:, None] > f1[None, :]) | ((f1[:, None] == f1[None, :]) & (f2[:, None] > f2[None, :]))
    H = gt & mask[codes][:, codes]
    if close is not None:
        H &= close
    return H.astype(np.int8) - H.T.astype(np.int8)


def _symmetric(rng: np.random.Generator, shape: int, p: float) -> np.ndarray:
    M = rng.random((shape, shape)) < p
    return M & M.T


@pytest.mark.parametrize("seed", range(6))
def test_sign_pairs_equal_the_numpy_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1.0 + 2**-52, 2.0])
    fn = _jit.kernel("sign_pairs")
    for t in range(60):
        n = int(rng.integers(1, 50))
        f1 = rng.choice(specials, n) if t % 3 == 0 else np.round(rng.normal(0, 2, n), 0)
        f2 = rng.choice(specials, n) if t % 2 else np.zeros(n)
        u = int(rng.integers(1, 6))
        codes = rng.integers(0, u, n)
        mask = _symmetric(rng, u, float(rng.choice([0.3, 1.0])))
        close = _symmetric(rng, n, 0.6) if t % 4 == 0 else None
        want = _sign_reference(f1, f2, codes, mask, close)
        for kernel in ([fn] if fn is not None else []) + [_jit.sign_pairs]:
            out = np.zeros((n, n), dtype=np.int8)
            cl = np.zeros((0, 0), bool) if close is None else close
            kernel(f1, f2, codes.astype(np.int64), mask, cl, out)
            np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("seed", range(4))
def test_coded_pairs_equal_the_gather(seed: int) -> None:
    rng = np.random.default_rng(seed)
    fn = _jit.kernel("coded_pairs")
    for t in range(40):
        n, u = int(rng.integers(1, 60)), int(rng.integers(1, 8))
        pref = rng.integers(-1, 2, size=(u, u)).astype(np.int8)
        codes = rng.integers(0, u, n).astype(np.int64)
        close = _symmetric(rng, n, 0.5) if t % 2 else None
        want = pref[codes][:, codes] * (1 if close is None else close)
        for kernel in [fn, _jit.coded_pairs]:
            out = np.empty((n, n), dtype=np.int8)
            kernel(pref, codes, np.zeros((0, 0), bool) if close is None else close, out)
            np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("seed", range(4))
def test_tf_lnc_pairs_equal_the_numpy_form(seed: int) -> None:
    rng = np.random.default_rng(seed)
    fn = _jit.kernel("tf_lnc_pairs")
    for t in range(40):
        n, m = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        C = rng.integers(0, int(rng.choice([2, 4, 30])), size=(n, m)).astype(np.int64)
        L = C.sum(axis=1) + rng.integers(0, int(rng.choice([1, 3, 50])), size=n)
        close = _symmetric(rng, n, 0.5) if t % 2 else None
        rest = L[:, None] - C
        eq = (rest[:, None, :] == rest[None, :, :]).any(axis=-1)
        H = eq & (L[:, None] > L[None, :]) & (True if close is None else close)
        want = H.astype(np.int8) - H.T.astype(np.int8)
        for kernel in [fn, _jit.tf_lnc_pairs]:
            out = np.zeros((n, n), dtype=np.int8)
            kernel(L, C, np.zeros((0, 0), bool) if close is None else close, out)
            np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("seed", range(3))
def test_tfc3_points_equal_the_numpy_form(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled points (and the plain-Python kernel) equal the numpy form's on the distinct
    count rows: idf pairs on and just outside the margin, equal idf, NaN, repeated rows."""
    from axiomatic.axioms.kernels import _common, term_frequency

    rng = np.random.default_rng(seed)
    seen = 0
    for t in range(40):
        n, m = int(rng.integers(1, 50)), int(rng.integers(1, 6))
        C = rng.integers(0, int(rng.choice([2, 3, 5])), size=(n, m)).astype(np.int64)
        idf = rng.choice([1.0, 1.1, 1.2, 2.0, 0.0, 1.0 / 1.1], size=m)
        if t % 9 == 0:
            idf[0] = np.nan
        ctx = QueryContext.from_arrays(C, C.sum(axis=1) + 3, idf=idf)
        margin = float(rng.choice([0.1, 0.0, 0.5]))
        _with_jit(False, monkeypatch)
        want, codes = term_frequency._tfc3_points(ctx, margin)
        _with_jit(True, monkeypatch)
        got, got_codes = term_frequency._tfc3_points(ctx, margin)
        assert got.dtype == np.int64  # the compiled form ran
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_codes, codes)
        U = np.ascontiguousarray(_common.count_codes(ctx)[0], dtype=np.int64)
        plain = np.zeros_like(got)
        _jit.tfc3_points(U, idf, margin, plain)
        np.testing.assert_array_equal(plain, want)
        seen += int(want.sum() > 0)
    assert seen > 5  # points were earned, not only zeros compared


@pytest.mark.parametrize("seed", range(3))
def test_row_counts_equal_the_sparse_indexing(seed: int) -> None:
    rng = np.random.default_rng(seed)
    fn = _jit.kernel("row_counts")
    for _ in range(20):
        R, V = int(rng.integers(1, 40)), int(rng.integers(1, 30))
        tf = sp.random(R, V, density=0.3, random_state=rng, format="csr")
        tf.data = rng.integers(1, 5, tf.nnz).astype(np.int32)
        tf = sp.csr_matrix((tf.data, tf.indices.astype(np.int32), tf.indptr.astype(np.int32)))
        tf.resize(R, V)
        rows = rng.integers(-1, R, size=int(rng.integers(1, 30)))
        k = int(rng.integers(1, min(6, V + 1) + 1))
        cols = rng.choice(np.arange(-1, V), size=k, replace=False)
        want = np.zeros((len(rows), len(cols)), dtype=np.int64)
        known = rows >= 0
        ok = cols >= 0
        want[np.ix_(known, ok)] = tf[rows[known]][:, cols[ok]].toarray()
        lut = np.full(V, -1, dtype=np.int32)
        lut[cols[ok]] = np.flatnonzero(ok)
        # the slot of each asked-for column in each known row: its entry's place in the row
        want_slots = np.full(want.shape, -1, dtype=np.int32)
        for i, r in enumerate(rows):
            if r < 0:
                continue
            row = tf.indices[tf.indptr[r] : tf.indptr[r + 1]]
            for k, c in enumerate(cols):
                hit = np.flatnonzero(row == c)
                if c >= 0 and len(hit):
                    want_slots[i, k] = hit[-1]
        for kernel in [fn, _jit.row_counts]:
            out = np.zeros((len(rows), len(cols)), dtype=np.int64)
            kernel(tf.indptr, tf.indices, tf.data, rows.astype(np.int64), lut, out,
                   np.zeros((0, 0), np.int32))  # fmt: skip
            np.testing.assert_array_equal(out, want)
            out[:] = 0
            slots = np.full(want.shape, -1, dtype=np.int32)
            kernel(tf.indptr, tf.indices, tf.data, rows.astype(np.int64), lut, out, slots)
            np.testing.assert_array_equal(out, want)
            np.testing.assert_array_equal(slots, want_slots)


# ---------------------------------------------------------------------- features, counts
@pytest.mark.parametrize("seed", range(4))
def test_compiled_proximity_features_equal_the_vectorized_ones(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled pass, reading each row's query terms from the slots the context recorded
    while counting (``query_slots``) or from a look-up table over the vocabulary, gives the
    vectorized form's features."""
    for ctx in _indexed_contexts(seed + 10):
        slots = ctx._cache.get("query_slots")
        assert slots is not None  # built with compiled kernels; the index keeps positions
        got = {}
        for mode in ("slots", "table", "numpy"):
            _with_jit(mode != "numpy", monkeypatch)
            ctx._cache.clear()
            if mode == "slots":
                ctx._cache["query_slots"] = slots
            got[mode] = proximity._prox_features(ctx)
        for f in proximity.FEATURES:
            np.testing.assert_array_equal(got["slots"][f], got["numpy"][f], err_msg=f)
            np.testing.assert_array_equal(got["table"][f], got["numpy"][f], err_msg=f)


def test_plain_python_proximity_kernel_is_the_same_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What numba compiles also runs as Python: the same features."""
    for ctx in _indexed_contexts(3)[:2]:
        _with_jit(True, monkeypatch)
        slots = ctx._cache["query_slots"]
        want = proximity._prox_features(ctx)
        with monkeypatch.context() as m:
            m.setitem(_jit._compiled, "prox_features", _jit.prox_features)
            for keep in (True, False):  # the recorded slots, then the look-up table
                ctx._cache.clear()
                if keep:
                    ctx._cache["query_slots"] = slots
                got = proximity._prox_features(ctx)
                for f in proximity.FEATURES:
                    np.testing.assert_array_equal(got[f], want[f])


@pytest.mark.parametrize("seed", range(3))
def test_context_counts_from_the_row_scan_equal_the_index(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    for ctx in _indexed_contexts(seed + 20):
        docs = ctx.documents
        built = {}
        for on in (True, False):
            _with_jit(on, monkeypatch)
            built[on] = QueryContext.build(ctx.query, docs, ctx.index)
        np.testing.assert_array_equal(built[True].counts, built[False].counts)
        np.testing.assert_array_equal(built[True].rows, built[False].rows)
        np.testing.assert_array_equal(built[True].doc_len, built[False].doc_len)


# ---------------------------------------------------------------------- semantic fast paths
class _SortedOnly(VectorSimilarity):
    """The same vectors without :meth:`table_matrix`: STMC1 / STMC2 take the sorted path."""

    def table_matrix(self, terms_a, terms_b):  # type: ignore[no-untyped-def]
        return None


@pytest.mark.parametrize("seed", range(4))
def test_stmc_on_the_table_order_equal_the_sorted_vocabulary(seed: int) -> None:
    rng = np.random.default_rng(seed)
    checked = 0
    for ctx in _indexed_contexts(seed + 30):
        vocab = sorted(set(ctx.index.terms))
        # vectors in an order unrelated to the names; ties (equal vectors) on purpose
        base = rng.normal(size=(3, 4))
        vectors = {w: base[int(rng.integers(0, 3))].copy() for w in rng.permutation(vocab)}
        for sim in (VectorSimilarity(vectors), VectorSimilarity(vectors).prepare()):
            got = {}
            for s in (sim, _SortedOnly(vectors)):
                ctx.similarity = s
                ctx._cache.clear()
                got[s is sim] = (
                    semantic._avg_sim_to_query(ctx),
                    semantic._stmc2_counts(ctx),
                    parse_axiom("STMC2").preferences(ctx),
                )
            np.testing.assert_array_equal(got[True][0], got[False][0])
            a, b = got[True][1], got[False][1]
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_array_equal(a[0], b[0])
                np.testing.assert_array_equal(a[1], b[1])
                checked += 1
            np.testing.assert_array_equal(got[True][2], got[False][2])
    assert checked > 5


@pytest.mark.parametrize("seed", range(4))
def test_table_matrix_equals_the_matrix_in_its_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(90)]
    # MiniLM's width, where the rounding of a product depends on its shape: table_matrix must
    # take its product as matrix() does (a product over the whole table, or with the short side
    # on the left, moves the last bit of some values at this width)
    width = 384
    vectors = {w: rng.normal(size=width).astype(np.float32) for w in words}
    vectors["w0"] = np.zeros(width, dtype=np.float32)
    vectors["w1"] = vectors["w2"].copy()
    sim = VectorSimilarity(vectors)
    for _ in range(6):
        pool = [*words, "unknown1", "unknown2", "unknown3"]
        a = list(rng.permutation(pool)[: int(rng.integers(0, 93))])
        b = list(rng.choice([*words[:10], "unknown1", "unknown9"], size=int(rng.integers(1, 7))))
        got = sim.table_matrix(a, b)
        assert got is not None
        order, M = got
        assert sorted(order.tolist()) == list(range(len(a)))
        np.testing.assert_array_equal(M, sim.matrix([a[k] for k in order], b))
    block = words[10:80]  # a block of the table: its rows are read in place
    order, M = sim.table_matrix(block, ["w3", "w4"])
    np.testing.assert_array_equal(order, np.arange(len(block)))
    np.testing.assert_array_equal(M, sim.matrix(block, ["w3", "w4"]))


def test_vocabulary_ids_equal_np_unique() -> None:
    for ctx in _indexed_contexts(5):
        if not (ctx.rows >= 0).all():
            with pytest.raises(ValueError, match="every candidate"):
                ctx.vocabulary_ids()
            continue
        uid, inv, indptr = ctx.vocabulary_ids()
        tf = ctx.index.tf
        ids = np.concatenate([tf.indices[tf.indptr[r] : tf.indptr[r + 1]] for r in ctx.rows])
        want_uid, want_inv = np.unique(ids, return_inverse=True)
        np.testing.assert_array_equal(uid, want_uid)
        np.testing.assert_array_equal(inv, want_inv)
        np.testing.assert_array_equal(np.diff(indptr), np.diff(tf.indptr)[ctx.rows])


@pytest.mark.parametrize("seed", range(4))
def test_length_closeness_kernels_equal_length_ok(seed: int) -> None:
    """The compiled thresholds and comparison (plain Python too) give length_ok's matrix; NaN
    and negative tolerances decline (the caller's distinct-length evaluation), and
    lengths_close gives length_ok's matrix either way."""
    from axiomatic.axioms.kernels import _common

    rng = np.random.default_rng(seed)
    tolerances = [
        (None, 0.1),
        (0, None),
        (3, None),
        (2.5, 0.3),
        (None, 0.0),
        (None, 1.0),
        (None, 1.5),
        (-1, None),
        (None, float("nan")),
        (float("nan"), None),
        (None, 63 / 90),
    ]
    for t in range(30):
        n = int(rng.integers(1, 40)) if t % 5 else 300
        L = rng.integers(0, int(rng.choice([3, 20, 200])), size=n).astype(np.int64)
        if t % 7 == 0:
            L[: n // 2] = rng.choice([63, 90, 0], size=n // 2)
        for delta, delta_rel in tolerances:
            want = _common.length_ok(L[:, None], L[None, :], delta, delta_rel)
            np.testing.assert_array_equal(_common.lengths_close(L, delta, delta_rel), want)
            d = 0.0 if delta is None else float(delta)
            r = 0.0 if delta_rel is None else float(delta_rel)
            valid = not (d < 0 or r < 0 or np.isnan(d) or np.isnan(r))
            for kernel in [_jit.kernel("close_pairs"), _jit.close_pairs]:
                out = np.empty((n, n), dtype=bool)
                done = kernel(L, d, r, delta is not None, delta_rel is not None, out)
                assert done == valid, (delta, delta_rel)
                if done:
                    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("seed", range(4))
def test_dominance_pairs_equal_tfc1_on_the_distinct_rows(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from axiomatic.axioms.kernels import term_frequency

    rng = np.random.default_rng(seed)
    for t in range(40):
        # up to 8 terms with counts up to 127 take the packed comparison, the rest the loop
        n, m = int(rng.integers(1, 60)), int(rng.integers(1, 11))
        C = rng.integers(0, int(rng.choice([2, 3, 9])), size=(n, m)).astype(np.int64)
        if t % 4 == 1:
            C[rng.random((n, m)) < 0.3] = 127
            C[rng.random((n, m)) < 0.3] = 126
        if t % 8 == 3:
            C[0, 0] = 128
        if t % 8 == 5:  # outside 0..127 below too: the term-by-term loop
            C[-1, -1] = -1
        ctx = QueryContext.from_arrays(C, C.sum(axis=1) + rng.integers(0, 9, size=n))
        for variant in ("strict", "extended", "relaxed"):
            if variant == "strict" and m != 1:
                continue
            close = _symmetric(rng, n, 0.6) if n % 2 else None
            cond, codes = term_frequency._tfc1_rows(ctx, variant)
            H = cond[codes][:, codes] & (True if close is None else close)
            want = H.astype(np.int8) - H.T.astype(np.int8)
            for kernel in [_jit.kernel("dominance_pairs"), _jit.dominance_pairs]:
                out = np.zeros((n, n), dtype=np.int8)
                cl = np.zeros((0, 0), bool) if close is None else close
                kernel(C, variant == "relaxed", cl, out)
                np.testing.assert_array_equal(out, want)
            # above DOMINANCE_MAX the distinct rows are gathered: the same matrix
            monkeypatch.setattr(term_frequency, "DOMINANCE_MAX", 0)
            got = term_frequency.tfc1_preferences(ctx, variant, {}, close)
            monkeypatch.setattr(term_frequency, "DOMINANCE_MAX", 256)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(4))
def test_ratio_pairs_equal_stmc2s_block(seed: int) -> None:
    rng = np.random.default_rng(seed)
    fn = _jit.kernel("ratio_pairs")
    for t in range(40):
        n = int(rng.integers(1, 50))
        C = rng.integers(0, 4, size=(n, 2))
        ctx = QueryContext.from_arrays(C, C.sum(axis=1) + rng.integers(1, 30, size=n))
        cq = rng.integers(0, 3, size=n).astype(np.float64)
        ct = rng.integers(0, 4, size=n).astype(np.float64)
        margin = float(rng.choice([0.0, 0.2, 0.5, 1.0]))
        close = _symmetric(rng, n, 0.6) if t % 2 else None
        r, c, H = semantic._stmc2_block(ctx, cq, ct, margin, slice(0, n))
        want = np.zeros((n, n), dtype=np.int8)
        H = H & (True if close is None else close[np.ix_(r, c)])
        want[np.ix_(r, c)] = H
        want[np.ix_(c, r)] -= H.T.astype(np.int8)
        L = ctx.doc_len.astype(np.float64)
        for kernel in [fn, _jit.ratio_pairs]:
            out = np.zeros((n, n), dtype=np.int8)
            cl = np.zeros((0, 0), bool) if close is None else close
            kernel(L, cq, ct, r, c, margin, cl, out)
            np.testing.assert_array_equal(out, want)


def test_helpers_never_import_numba_themselves() -> None:
    """Building contexts and mining count axioms (instances) leave numba unimported: the
    compiled counts and length closeness are used only where numba is loaded already."""
    import os
    import subprocess
    import sys

    code = """
import sys
import numpy as np
from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.data.demo import demo_dataset
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer
ds = demo_dataset()
idx = CollectionIndex.build(list(ds.documents.values()), Analyzer())
for qid, q in ds.queries.items():
    ctx = QueryContext.build(q, [ds.documents[d] for d in ds.candidate_ids(qid)], idx)
    for spec in ("TFC1", "TFC2", "M-TDC", "LNC2", "LEN-AND"):
        parse_axiom(spec).instances(ctx)
assert "numba" not in sys.modules, "numba was imported"
print("ok")
"""
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ)
    )
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]


def test_loaded_kernel_declines_without_numba_in_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    assert _jit.loaded_kernel("row_counts") is not None  # numba is loaded in this process
    monkeypatch.setattr(_jit, "_numba", None)
    monkeypatch.delitem(sys.modules, "numba")
    assert _jit.loaded_kernel("row_counts") is None


@pytest.mark.parametrize("seed", range(4))
def test_group_sign_pairs_equal_the_numpy_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 2.0])
    fn = _jit.kernel("group_sign_pairs")
    for t in range(50):
        n = int(rng.integers(1, 50))
        f1 = rng.choice(specials, n) if t % 3 == 0 else np.round(rng.normal(0, 2, n), 0)
        f2 = rng.choice(specials, n) if t % 2 else np.zeros(n)
        key = rng.integers(-1, int(rng.integers(1, 6)), n).astype(np.int64)
        close = _symmetric(rng, n, 0.6) if t % 4 == 0 else None
        mask_n = (key[:, None] == key[None, :]) & (key >= 0)[:, None]
        # the same matrix as sign_pairs with one code per document and that mask
        want = _sign_reference(f1, f2, np.arange(n), mask_n, close)
        for kernel in [fn, _jit.group_sign_pairs]:
            out = np.zeros((n, n), dtype=np.int8)
            kernel(f1, f2, key, np.zeros((0, 0), bool) if close is None else close, out)
            np.testing.assert_array_equal(out, want)


def test_subset_masks_without_bit_keys_give_the_same_matrices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More than 62 query terms take the distinct presence rows' mask: the same matrices."""
    for ctx in _indexed_contexts(7):
        for spec in ("PROX1", "PROX2", "PROX3"):
            ctx._cache.clear()
            keyed = parse_axiom(spec).preferences(ctx)
            with monkeypatch.context() as mp:
                mp.setattr(proximity, "_subset_key", lambda c: None)
                ctx._cache.clear()
                np.testing.assert_array_equal(parse_axiom(spec).preferences(ctx), keyed)


def test_presence_keys_are_the_subsets_and_the_all_terms_flag() -> None:
    rng = np.random.default_rng(0)
    fn = _jit.kernel("presence_keys")
    for _ in range(30):
        n, m = int(rng.integers(1, 40)), int(rng.integers(1, 63))
        C = (rng.random((n, m)) < rng.choice([0.1, 0.5, 0.95])) * rng.integers(1, 4, (n, m))
        P = C > 0
        bits = np.array([sum(1 << w for w in range(m) if P[i, w]) for i in range(n)])
        want_subset = np.where(P.sum(axis=1) > 1, bits, -1)
        want_all = np.where(P.all(axis=1) & (m > 1), 0, -1)
        for kernel in [fn, _jit.presence_keys]:
            for every, want in ((False, want_subset), (True, want_all)):
                out = np.empty(n, dtype=np.int64)
                kernel(C.astype(np.int64), every, out)
                np.testing.assert_array_equal(out, want)

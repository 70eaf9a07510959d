"""Kernel rewrites give IDENTICAL results to the kernels they replace.

The previous implementations are kept below as oracles: LNC1 / TFC1 / REG built
``n x n x |q|`` broadcasts, TF-LNC three of them, TFC2 searched triples over every document
pair, the length matrix was evaluated on every ``(L_i, L_j)``. The rewrites evaluate on the
distinct count rows / lengths and gather, or loop over query terms with ``n x n`` operations.
Checked on every query of the demo collection and on random count matrices with many repeated
rows (the case the deduplication exploits) and with few.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.kernels import length, proximity, semantic, term_frequency
from axiomatic.axioms.kernels._common import isclose, length_ok, row_blocks, wins
from axiomatic.axioms.similarity import ExactSimilarity, VectorSimilarity
from axiomatic.data.demo import demo_dataset
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer


# ---------------------------------------------------------------------- the old kernels
def old_tfc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    C = ctx.counts
    if variant == "strict" and ctx.n_terms != 1:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    Ci = C[rows, None, :]
    Cj = C[None, :, :]
    if variant in ("strict", "extended"):
        return np.asarray((Ci > Cj).all(axis=-1))
    S = ctx.qsum
    return np.asarray((Ci >= Cj).all(axis=-1) & (S[rows, None] > S[None, :]))


def old_lnc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    C = ctx.counts.astype(np.float64)
    close = isclose(C[rows, None, :], C[None, :, :], float(p["margin"])).all(axis=-1)
    return close & wins(-ctx.doc_len.astype(np.float64), rows)


def old_tf_lnc(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    C = ctx.counts
    rest = ctx.doc_len[:, None] - C
    eq = rest[rows, None, :] == rest[None, :, :]
    gt = (C[rows, None, :] > C[None, :, :]) & eq
    lt = (C[rows, None, :] < C[None, :, :]) & eq
    return gt.sum(axis=-1) > lt.sum(axis=-1)


def old_same_subset(ctx: QueryContext, rows: slice) -> np.ndarray:
    P = ctx.counts > 0
    if ctx.n_terms <= 1:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    same = (P[rows, None, :] == P[None, :, :]).all(axis=-1)
    return same & (P[rows].sum(axis=1) > 1)[:, None]


def old_lb1_terms(ctx: QueryContext, rows: slice) -> np.ndarray:
    P = (ctx.counts > 0).astype(np.int64)
    only_i = (P[rows] @ (1 - P).T) > 0
    only_j = ((1 - P[rows]) @ P.T) > 0
    return only_i & ~only_j


def old_m_tdc_relaxed(ctx: QueryContext, rows: slice) -> np.ndarray:
    C = ctx.counts
    nb = rows.stop - rows.start
    out = np.zeros((nb, ctx.n), dtype=bool)
    if ctx.n_terms < 2:
        return out
    Ci = C[rows]
    S = ctx.qsum
    a, j = np.nonzero((S[rows, None] == S[None, :]) & (S[rows, None] > 0))
    if len(a) == 0:
        return out
    A, B = Ci[a], C[j]
    D = A - B
    two = (D != 0).sum(axis=1) == 2
    wa = D.argmax(axis=1)
    wb = D.argmin(axis=1)
    r = np.arange(len(a))
    c1 = ctx.idf[wa] >= ctx.idf[wb]
    c3 = ctx.qtf[wa] >= ctx.qtf[wb]
    c4 = (A[r, wa] == B[r, wb]) & (A[r, wb] == B[r, wa])
    ok = two & c1 & c3 & c4
    out[a[ok], j[ok]] = True
    return out


def old_tfc3(ctx: QueryContext, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    from itertools import combinations

    C = ctx.counts.astype(np.float64)
    idf = ctx.idf
    nb = rows.stop - rows.start
    s_ij = np.zeros((nb, ctx.n))
    s_ji = np.zeros((nb, ctx.n))
    for a, b in combinations(range(ctx.n_terms), 2):
        if not isclose(np.asarray(idf[a]), np.asarray(idf[b]), float(p["idf_margin"])):
            continue
        ca, cb = C[:, a], C[:, b]
        both = (ca != 0) & (cb != 0)
        tot = ca + cb

        def pts(x, y, ca=ca, cb=cb, both=both, tot=tot) -> np.ndarray:
            return both[x][:, None] & (
                ((ca[y][None, :] == tot[x][:, None]) & (cb[y][None, :] == 0))
                | ((cb[y][None, :] == tot[x][:, None]) & (ca[y][None, :] == 0))
            )

        s_ij += pts(rows, slice(None))
        s_ji += pts(slice(None), rows).T
    return s_ij > s_ji


def old_stmc2_tail(ctx: QueryContext, cq: np.ndarray, ct: np.ndarray, margin: float, rows):
    L = ctx.doc_len.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = L[None, :] / L[rows, None]
        tr = ct[None, :] / cq[rows, None]
    ok = (cq[rows, None] > 0) & (ct[None, :] > 0) & (cq[None, :] == 0)
    with np.errstate(invalid="ignore"):  # inf - inf where ok is False anyway
        return ok & isclose(lr, tr, margin)


def old_reg_counts(ctx: QueryContext, sel: np.ndarray, rows: slice) -> np.ndarray:
    C = ctx.counts[:, sel]
    return np.asarray((C[rows, None, :] > C[None, :, :]).all(axis=-1))


def old_tfc2(ctx: QueryContext, variant: str, p: Mapping[str, Any], pairs_ok=None):
    empty = (np.zeros(0, np.int64),) * 3
    C = ctx.counts
    n, m = C.shape
    if m == 0 or n < 3 or (variant == "strict" and m != 1):
        return empty
    S = ctx.qsum
    rng = np.random.default_rng(12345)
    r = np.asarray(rng.integers(1, 2**61, size=m, dtype=np.int64)) | 1
    with np.errstate(over="ignore"):
        h = np.asarray((C.astype(np.int64) * r[None, :]).sum(axis=1))
    order = np.argsort(h, kind="stable")
    hs = h[order]
    I_parts, J_parts, K_parts = [], [], []
    for blk in row_blocks(n, n):
        ii = np.arange(blk.start, blk.stop)
        ok = (S[ii, None] > 0) & (S[None, :] > S[ii, None])
        if pairs_ok is not None:
            ok &= pairs_ok(blk)
        a, j = np.nonzero(ok)
        if len(a) == 0:
            continue
        i = ii[a]
        with np.errstate(over="ignore"):
            target = 2 * h[j] - h[i]
        lo = np.searchsorted(hs, target, side="left")
        hi = np.searchsorted(hs, target, side="right")
        cnt = hi - lo
        keep = cnt > 0
        if not keep.any():
            continue
        i, j, lo, cnt = i[keep], j[keep], lo[keep], cnt[keep]
        rep_i = np.repeat(i, cnt)
        rep_j = np.repeat(j, cnt)
        offs = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        rep_k = order[np.repeat(lo, cnt) + offs]
        exact = (C[rep_i] + C[rep_k] == 2 * C[rep_j]).all(axis=1)
        rep_i, rep_j, rep_k = rep_i[exact], rep_j[exact], rep_k[exact]
        if variant in ("strict", "extended"):
            sel = (C[rep_i] > 0).all(axis=1) & (C[rep_j] - C[rep_i] == 1).all(axis=1)
            rep_i, rep_j, rep_k = rep_i[sel], rep_j[sel], rep_k[sel]
        I_parts.append(rep_i)
        J_parts.append(rep_j)
        K_parts.append(rep_k)
    if not I_parts:
        return empty
    return tuple(np.concatenate(x) for x in (I_parts, J_parts, K_parts))


# ---------------------------------------------------------------------- inputs
def demo_contexts() -> list[QueryContext]:
    ds = demo_dataset()
    idx = CollectionIndex.build(list(ds.documents.values()), Analyzer())
    out = []
    for qid, q in ds.queries.items():
        docs = [ds.documents[d] for d in ds.candidate_ids(qid)]
        out.append(QueryContext.build(q, docs, idx, similarity=ExactSimilarity()))
    return out


def random_contexts() -> list[QueryContext]:
    out = []
    for seed in range(24):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(3, 90))
        m = int(rng.integers(1, 5))
        hi = int(rng.choice([2, 3, 6, 40]))  # few distinct rows ... mostly distinct rows
        C = rng.integers(0, hi, size=(n, m))
        L = C.sum(axis=1) + rng.integers(0, int(rng.choice([2, 5, 60])), size=n)
        idf = rng.choice([1.0, 1.05, 2.0, 3.0], size=m)
        out.append(QueryContext.from_arrays(C, L, idf=idf))
    return out


CONTEXTS = demo_contexts() + random_contexts()
VARIANTS = ("strict", "extended", "relaxed")


def _all_rows(ctx: QueryContext) -> list[slice]:
    # the whole matrix and an inner row block (the engine evaluates in row blocks)
    return [slice(0, ctx.n), slice(ctx.n // 3, max(ctx.n // 3, 2 * ctx.n // 3))]


@pytest.mark.parametrize("k", range(len(CONTEXTS)))
def test_pair_kernels_equal_the_old_broadcasts(k: int) -> None:
    ctx = CONTEXTS[k]
    for rows in _all_rows(ctx):
        for variant in VARIANTS:
            np.testing.assert_array_equal(
                term_frequency.tfc1(ctx, variant, {}, rows), old_tfc1(ctx, variant, {}, rows)
            )
        for margin in (0.0, 0.1, 0.5):
            p = {"margin": margin}
            np.testing.assert_array_equal(
                length.lnc1(ctx, "extended", p, rows), old_lnc1(ctx, "extended", p, rows)
            )
        np.testing.assert_array_equal(
            length.tf_lnc(ctx, "extended", {}, rows), old_tf_lnc(ctx, "extended", {}, rows)
        )
        np.testing.assert_array_equal(proximity._same_subset(ctx, rows), old_same_subset(ctx, rows))
        scored = QueryContext.from_arrays(ctx.counts, ctx.doc_len, idf=ctx.idf)
        scored.scores = np.round(np.random.default_rng(ctx.n).normal(size=ctx.n), 1)
        for margin in (0.0, 0.5):
            close = isclose(scored.scores[rows, None], scored.scores[None, :], margin)
            np.testing.assert_array_equal(
                term_frequency.lb1(scored, "extended", {"margin": margin}, rows),
                close & old_lb1_terms(scored, rows),
            )
        np.testing.assert_array_equal(
            term_frequency.m_tdc(ctx, "relaxed", {}, rows), old_m_tdc_relaxed(ctx, rows)
        )
        for idf_margin in (0.0, 0.1, 0.6):
            p = {"idf_margin": idf_margin}
            np.testing.assert_array_equal(
                term_frequency.tfc3(ctx, "relaxed", p, rows), old_tfc3(ctx, p, rows)
            )
        rng = np.random.default_rng(ctx.n)
        cq = ctx.counts[:, 0].astype(np.float64)
        ct = rng.integers(0, 3, size=ctx.n).astype(np.float64)
        for margin in (0.0, 0.1, 0.5):
            np.testing.assert_array_equal(
                semantic._stmc2_pairs(ctx, cq, ct, margin, rows),
                old_stmc2_tail(ctx, cq, ct, margin, rows),
            )
        for sel in ([0], list(range(ctx.n_terms))):
            np.testing.assert_array_equal(
                semantic._all_greater(ctx, np.asarray(sel), rows),
                old_reg_counts(ctx, np.asarray(sel), rows),
            )


@pytest.mark.parametrize("k", range(len(CONTEXTS)))
def test_length_matrix_equals_the_pairwise_evaluation(k: int) -> None:
    ctx = CONTEXTS[k]
    L = ctx.doc_len
    for tol in ((None, None), (0, None), (3, None), (None, 0.1), (None, 0.7), (2, 0.3)):
        np.testing.assert_array_equal(
            ctx.length_close(*tol), length_ok(L[:, None], L[None, :], *tol)
        )


@pytest.mark.parametrize("k", range(len(CONTEXTS)))
def test_tfc2_triples_equal_the_old_search(k: int) -> None:
    ctx = CONTEXTS[k]
    for variant in VARIANTS:
        for delta in (None, 0, 4):
            pairs_ok = None
            if delta is not None:
                close = ctx.length_close(delta, None)

                def pairs_ok(rows: slice, close=close) -> np.ndarray:
                    return close[rows]

            got = term_frequency.tfc2(ctx, variant, {}, pairs_ok)
            want = old_tfc2(ctx, variant, {}, pairs_ok)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_engine_results_are_unchanged_on_the_demo_for_every_rewritten_axiom() -> None:
    """End to end through the engine (length tolerance, diagonal, antisymmetry) on the demo:
    the rewritten kernels swapped for the old ones give the same preferences / instances."""
    specs = ["TFC1", "TFC1(variant=extended)", "LNC1", "TF-LNC", "REG", "REG(delta_rel=None)"]
    for ctx in demo_contexts():
        for spec in specs:
            ax = parse_axiom(spec)
            got = ax.preferences(ctx)
            d = ax.definition
            old = {"TFC1": old_tfc1, "LNC1": old_lnc1, "TF-LNC": old_tf_lnc}.get(ax.name)
            if old is None:
                continue
            P = old(ctx, ax.variant, dict(ax.params), slice(0, ctx.n))
            params = dict(ax.params)
            tol = (params.get("delta"), params.get("delta_rel")) if d.length else None
            if tol is not None:
                L = ctx.doc_len
                P = P & length_ok(L[:, None], L[None, :], *tol)
            np.fill_diagonal(P, False)
            np.testing.assert_array_equal(got, P.astype(np.int8) - P.T.astype(np.int8))


# ---------------------------------------------------------------------- similarity and vocabulary
def old_vector_matrix(vectors: Mapping[str, np.ndarray], a: list[str], b: list[str]) -> np.ndarray:
    """The previous VectorSimilarity.matrix: per-vector conversion, masked copies, string
    comparison of every (a, b) pair."""
    terms = list(vectors)
    E = np.stack([np.asarray(vectors[t], dtype=np.float64) for t in terms])
    norm = np.linalg.norm(E, axis=1, keepdims=True)
    E = E / np.where(norm > 0, norm, 1.0)
    pos = {t: i for i, t in enumerate(terms)}

    def embed(ts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        rows = np.asarray([pos.get(t, -1) for t in ts], dtype=np.int64)
        known = rows >= 0
        out = np.zeros((len(ts), E.shape[1]))
        out[known] = E[rows[known]]
        known &= np.linalg.norm(out, axis=1) > 0
        return out, known

    ea, ka = embed(a)
    eb, kb = embed(b)
    sim = np.where(ka[:, None] & kb[None, :], ea @ eb.T, 0.0)
    same = np.asarray(a, dtype=object)[:, None] == np.asarray(b, dtype=object)[None, :]
    return np.where(same, 1.0, sim)


@pytest.mark.parametrize("seed", range(6))
def test_vector_similarity_equals_the_old_matrix(seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(60)]
    vectors = {w: rng.normal(size=8).astype(rng.choice([np.float32, np.float64])) for w in words}
    vectors["w0"] = np.zeros(8, np.float32)  # a zero vector: unknown except to itself
    vectors["w1"] = vectors["w2"].copy()  # duplicates
    vectors["w3"] = np.full(8, 1e-170)  # squares underflow: norm 0
    vectors["w4"] = np.full(8, 1e-160)  # subnormal squares, positive norm
    vectors["w5"] = np.full(8, 1e200)  # infinite norm
    pool = [*words, "unknown1", "unknown2"]
    a = list(rng.choice(pool, size=int(rng.integers(0, 40))))
    b = list(rng.choice(pool, size=int(rng.integers(1, 9))))
    sim = VectorSimilarity(vectors)
    for _ in range(2):  # the padded table is built on the first call and reused
        with np.errstate(over="ignore", invalid="ignore"):  # the 1e200 vector
            np.testing.assert_array_equal(sim.matrix(a, b), old_vector_matrix(vectors, a, b))
            np.testing.assert_array_equal(sim.matrix(b, a), old_vector_matrix(vectors, b, a))


@pytest.mark.parametrize("seed", range(6))
def test_vector_similarity_of_a_few_terms_skips_the_table(seed: int) -> None:
    """A few terms (REG's query terms) before any large request are normalized directly,
    without building the whole table: the same values as the table path."""
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(80)]
    vectors = {w: rng.normal(size=8).astype(rng.choice([np.float32, np.float64])) for w in words}
    vectors["w0"] = np.zeros(8, np.float32)
    vectors["w1"] = vectors["w2"].copy()
    vectors["w3"] = np.full(8, 1e-170)
    vectors["w4"] = np.full(8, 1e-160)
    vectors["w5"] = np.full(8, 1e200)
    pool = [*words[:8], *words[8:12], "unknown1", "unknown2"]
    table = VectorSimilarity(vectors)
    with np.errstate(over="ignore", invalid="ignore"):
        table._normalized()
    for _ in range(5):
        a = list(rng.choice(pool, size=int(rng.integers(0, 6))))
        b = list(rng.choice(pool, size=int(rng.integers(1, 6))))
        sim = VectorSimilarity(vectors)
        with np.errstate(over="ignore", invalid="ignore"):
            got = sim.matrix(a, b)
            np.testing.assert_array_equal(got, table.matrix(a, b))
            np.testing.assert_array_equal(got, old_vector_matrix(vectors, a, b))
        assert sim._table is None  # no table built for a few terms
    assert VectorSimilarity({}).matrix(["x"], ["x", "y"]).tolist() == [[1.0, 0.0]]


def test_vocabulary_matrix_and_sizes_equal_the_string_path_on_the_demo() -> None:
    import scipy.sparse as sp

    for ctx in demo_contexts():
        got, vocab = ctx.doc_term_matrix()
        uniq = ctx.unique_terms()
        want_vocab = sorted({t for u in uniq for t in u})
        pos = {t: k for k, t in enumerate(want_vocab)}
        cols = np.asarray([pos[t] for u in uniq for t in u], dtype=np.int64)
        indptr = np.concatenate([[0], np.cumsum([len(u) for u in uniq])])
        want = sp.csr_matrix((np.ones(len(cols)), cols, indptr), shape=(ctx.n, len(want_vocab)))
        assert vocab == want_vocab
        np.testing.assert_array_equal(got.indptr, want.indptr)
        np.testing.assert_array_equal(got.indices, want.indices)  # same order within each row
        np.testing.assert_array_equal(got.toarray(), want.toarray())
        np.testing.assert_array_equal(ctx.doc_vocab_sizes(), [len(u) for u in uniq])


def test_semantic_axioms_equal_the_uncached_similarity_on_the_demo() -> None:
    """STMC1 / STMC3 read one cached vocabulary x query matrix; the values are those of a
    fresh ``matrix(vocab, terms)`` call per axiom."""
    for ctx in demo_contexts():
        rng = np.random.default_rng(0)
        _, vocab = ctx.doc_term_matrix()
        vectors = {t: rng.normal(size=6) for t in [*vocab, *ctx.terms]}
        ctx.similarity = VectorSimilarity(vectors)
        if not vocab or not ctx.terms:
            continue
        U = ctx.doc_term_matrix()[0]
        sim = old_vector_matrix(vectors, vocab, list(ctx.terms))
        k = np.asarray(U.sum(axis=1)).ravel()
        avg = np.where(k > 0, (U @ sim.mean(axis=1)) / np.maximum(k, 1), 0.0)
        np.testing.assert_array_equal(
            semantic.stmc1(ctx, "extended", {}, slice(0, ctx.n)), avg[:, None] > avg[None, :]
        )
        for thr in (0.2, 0.6):
            cover = np.asarray(((U @ (sim >= thr).astype(np.float64)) > 0).sum(axis=1)).ravel()
            S = ctx.qsum
            want = (S[:, None] == S[None, :]) & (cover[:, None] > cover[None, :])
            got = semantic.stmc3(ctx, "extended", {"threshold": thr}, slice(0, ctx.n))
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k", range(len(CONTEXTS)))
def test_tfc2_instances_through_the_engine_equal_the_old_path(k: int) -> None:
    """The engine now pre-filters (i, j) with the relative tolerance too (a pair inside a
    triple is never relatively farther apart than the triple): same instances as the old path
    (absolute pre-filter only, then the triple test)."""
    ctx = CONTEXTS[k]
    L = ctx.doc_len
    for spec in (
        "TFC2",
        "TFC2(delta_rel=0.3)",
        "TFC2(delta_rel=0.05)",
        "TFC2(delta=3, delta_rel=None)",
        "TFC2(delta=3, delta_rel=0.2)",
        "TFC2(variant=extended, delta_rel=0.4)",
    ):
        ax = parse_axiom(spec)
        params = dict(ax.params)
        tol = (params.get("delta"), params.get("delta_rel"))
        pairs_ok = None
        if tol[0] is not None:
            close = length_ok(L[:, None], L[None, :], tol[0], None)

            def pairs_ok(rows: slice, close=close) -> np.ndarray:
                return close[rows]

        i, j, kk = old_tfc2(ctx, ax.variant, params, pairs_ok)
        if len(i):
            trip = np.stack([L[i], L[j], L[kk]], axis=1)
            keep = length_ok(trip.min(axis=1), trip.max(axis=1), *tol)
            i, j, kk = i[keep], j[keep], kk[keep]
        got = ax.instances(ctx)
        np.testing.assert_array_equal(got.i, i)
        np.testing.assert_array_equal(got.j, j)
        np.testing.assert_array_equal(got.k, kk)


@pytest.mark.parametrize(
    "kwargs", [{}, {"stopwords": False}, {"stemmer": None}, {"stopwords": frozenset({"the"})}]
)
def test_token_ids_equal_the_analyzed_text(kwargs: dict[str, Any]) -> None:
    """CollectionIndex.token_ids (ids via a C-level map) equal looking up every analyzed term,
    for indexed documents and texts with unindexed words."""
    ds = demo_dataset()
    docs = list(ds.documents.values())
    an = Analyzer(**kwargs)
    idx = CollectionIndex.build(docs[: len(docs) // 2], an, positions=False)  # lazy path
    rng = np.random.default_rng(0)
    words = " ".join(d.text for d in docs).split()
    texts = [d.text for d in docs] + [
        " ".join(rng.choice(words, size=30)) + " The THE the running Runs" for _ in range(20)
    ]
    for row, text in enumerate(texts):
        want = np.asarray([idx.vocab.get(t, -1) for t in an.analyze(text)], dtype=np.int32)
        np.testing.assert_array_equal(idx.token_ids(10_000 + row, text), want)
    # the positional index kept at indexing time decodes to the same ids, also after a save/load
    full = CollectionIndex.build(docs, an)
    assert full.token_slots is not None
    with tempfile.TemporaryDirectory() as tmp:
        loaded = CollectionIndex.load(full.save(Path(tmp) / "ix"))
    assert loaded.token_slots is not None
    for row, d in enumerate(docs):
        want = np.asarray([full.vocab[t] for t in an.analyze(d.text)], dtype=np.int32)
        np.testing.assert_array_equal(full.token_ids(row), want)
        np.testing.assert_array_equal(loaded.token_ids(row), want)


def test_vector_table_stack_equals_np_stack() -> None:
    from axiomatic.axioms.similarity import _stack

    rng = np.random.default_rng(1)
    cases = [
        [rng.normal(size=5).astype(np.float32) for _ in range(7)],
        [rng.normal(size=5) for _ in range(3)] + [rng.normal(size=5).astype(np.float32)],
        [[1.0, 2.0], [3.0, 4.0]],
        [rng.normal(size=(1, 4)) for _ in range(3)],  # 2-d entries: np.stack's 3-d result
    ]
    for vs in cases:
        got, want = _stack(vs), np.stack(vs)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):  # unequal lengths are still refused
        _stack([np.zeros(3), np.zeros(4)])

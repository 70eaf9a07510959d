"""Semantic kernels: STMC1-3 and REG, on the context's term similarity (see
:mod:`.term_frequency` for the kernel contract)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from axiomatic.axioms.context import LUT_TERMS, QueryContext
from axiomatic.axioms.kernels import _jit
from axiomatic.axioms.kernels._common import (
    close_argument,
    coded_preferences,
    count_codes,
    isclose,
    sign_preferences,
    wins,
)


def reg(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""REG (Zheng & Fang 2010; ir_axioms 1.2.5): the query term(s) least similar to the other
    query terms (minimum summed similarity) carry a distinct aspect; prefer the document with
    strictly more occurrences of every such term."""
    m = ctx.n_terms
    if m == 0:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    return _all_greater(ctx, _reg_terms(ctx), rows)


def _reg_terms(ctx: QueryContext) -> np.ndarray:
    """The query terms least similar to the others (REG's aspect terms), once per context."""

    def compute() -> np.ndarray:
        sim = ctx.term_similarity().matrix(ctx.terms, ctx.terms)
        sums = sim.sum(axis=1) - np.diag(sim)
        return np.nonzero(sums <= sums.min() + 1e-12)[0]

    return ctx.cache("reg_terms", compute)


def reg_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`reg` on the distinct count rows (its condition depends on the two count rows
    alone), gathered in one compiled pass (None without compiled kernels)."""
    U, codes = count_codes(ctx)
    cond = np.ones((len(U), len(U)), dtype=bool)
    for w in _reg_terms(ctx):
        cond &= U[:, w, None] > U[None, :, w]
    return coded_preferences(cond, codes, close)


def _all_greater(ctx: QueryContext, sel: np.ndarray, rows: slice) -> np.ndarray:
    """``c(w, d_row) > c(w, d_col)`` for every term ``w`` in ``sel``: one ``n x n`` test per
    term (no ``n x n x |sel|`` temporary)."""
    C = ctx.counts
    out = np.ones((rows.stop - rows.start, ctx.n), dtype=bool)
    for w in sel:
        out &= C[rows, w, None] > C[None, :, w]
    return out


def _doc_unique_terms(ctx: QueryContext) -> list[list[str]]:
    return ctx.unique_terms()


def _vocab_query_similarity(ctx: QueryContext) -> np.ndarray:
    """``|V_q| x |q|`` similarities of the candidates' vocabulary to the query terms, computed
    once per context and shared by STMC1 and STMC3 (every threshold)."""
    return ctx.cache(
        "vocab_query_similarity",
        lambda: ctx.term_similarity().matrix(ctx.doc_term_matrix()[1], ctx.terms),
    )


def _table_similarity(ctx: QueryContext) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(ids, M, terms)``: the similarities ``M`` (``|V_q| x |q|``) of the candidates' distinct
    terms to the query terms, the terms' index ids ``ids`` in ``M``'s row order (the vector
    table's order, :meth:`VectorSimilarity.table_matrix`) and their strings; once per context.

    None where the vocabulary does not come from the index alone (documents outside it) or the
    similarity has no vector table: STMC1 and STMC2 then take the sorted vocabulary
    (:meth:`QueryContext.doc_term_matrix`, :func:`_vocab_query_similarity`). The values are
    those of ``matrix(vocab, terms)`` in that row order; no string sort is needed, as STMC1
    wants one value per term and STMC2 breaks its ties by name below.
    """

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        if ctx.index is None or not ctx.n or not (ctx.rows >= 0).all():
            return None
        sim = ctx.term_similarity()
        by_ids = getattr(sim, "table_matrix_ids", None)
        table = getattr(sim, "table_matrix", None)
        if by_ids is None and table is None:
            return None
        uid = ctx.vocabulary_ids()[0]
        terms = ctx.index.terms
        if by_ids is not None:  # the index vocabulary's table rows, gathered by id
            got = by_ids(uid, terms, ctx.terms)
        else:
            names = [terms[c] for c in uid.tolist()]  # Python ints: no numpy scalar per look-up
            got = table(names, ctx.terms)  # type: ignore[misc]  # not None: tested above
        if got is None:
            return None
        order, M = got
        return uid[order], M, order

    return ctx.cache("table_similarity", compute)


def _avg_sim_to_query(ctx: QueryContext) -> np.ndarray:
    def compute() -> np.ndarray:
        fast = _table_similarity(ctx) if ctx.terms else None
        if fast is not None:
            uid, inv, indptr = ctx.vocabulary_ids()
            if not len(uid):
                return np.zeros(ctx.n)
            _, M, order = fast
            per_term = np.empty(len(uid))
            per_term[order] = M.mean(axis=1)  # a row's mean depends on that row alone
            # the matrix below with the columns in id order: each row's entries in the same
            # stored order, so the same sums
            U = sp.csr_matrix((np.ones(len(inv)), inv, indptr), shape=(ctx.n, len(uid)))
            k = np.diff(indptr)
            return np.where(k > 0, (U @ per_term) / np.maximum(k, 1), 0.0)
        U, vocab = ctx.doc_term_matrix()
        if not vocab or not ctx.terms:
            return np.zeros(ctx.n)
        per_term = _vocab_query_similarity(ctx).mean(axis=1)
        k = np.asarray(U.sum(axis=1)).ravel()
        return np.where(k > 0, (U @ per_term) / np.maximum(k, 1), 0.0)

    return ctx.cache("avg_sim", compute)


def stmc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""STMC1 (Fang & Zhai 2006; ir_axioms 1.2.5): prefer the document whose distinct terms are
    on average more similar to the query terms."""
    s = _avg_sim_to_query(ctx)
    return wins(s, rows)


def stmc1_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`stmc1` as one compiled pass (None without compiled kernels)."""
    return sign_preferences(_avg_sim_to_query(ctx), close)


def stmc2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""STMC2 (Fang & Zhai 2006), pairwise form (ours, after ir_axioms' ratio test).

    Original: matching the query term ``q`` once is worth more than matching a similar term
    ``t`` several times. Ours: let ``t*`` be the non-query term most similar to a query term
    ``q*`` over the documents of the query; ``d_i`` is preferred when it matches ``q*`` and
    ``d_j`` replaces those matches by ``t*`` in proportion to its length:
    ``isclose(|d_j| / |d_i|, c(t*, d_j) / c(q*, d_i), margin)``, ``c(q*, d_j) = 0``.
    """
    nb = rows.stop - rows.start
    out = np.zeros((nb, ctx.n), dtype=bool)
    if ctx.n_terms == 0:
        return out
    counts = _stmc2_counts(ctx)
    if counts is None:
        return out
    cq, ct = counts
    return _stmc2_pairs(ctx, cq, ct, float(p["margin"]), rows)


def _stmc2_counts(ctx: QueryContext) -> tuple[np.ndarray, np.ndarray] | None:
    """``(c(q*, d), c(t*, d))`` of STMC2's most similar (query term, non-query term) pair, as
    float64 (None: the candidates hold no non-query term)."""

    def pair() -> tuple[int, str] | None:
        fast = _table_similarity(ctx)
        if fast is not None:
            ids, M, _ = fast
            # a vocabulary term is a query term when their index ids are equal (query terms
            # outside the index are in no candidate's index row)
            other = np.flatnonzero(~np.isin(ids, ctx.term_ids))
            if not len(other):
                return None
            vals = M[other]
            top = vals.max()
            if not np.isnan(top):
                # the first most similar pair in (query term, term name) order, as argmax over
                # the sorted vocabulary below takes it
                r, q = np.nonzero(vals == top)
                names = ctx.index.terms
                return min(
                    (int(qi), names[int(ids[other[ri]])]) for ri, qi in zip(r, q, strict=True)
                )
        vocab = ctx.doc_term_matrix()[1]
        qset = set(ctx.terms)
        other = np.flatnonzero(~np.fromiter(map(qset.__contains__, vocab), bool, len(vocab)))
        if not len(other):
            return None
        # the vocabulary x query similarities STMC1 and STMC3 share (once per context), its
        # non-query rows as |q| x |V_q \ q|: the same order of (query term, term) pairs, so
        # argmax keeps the first most similar pair
        sim = _vocab_query_similarity(ctx)[other].T
        qi, ti = np.unravel_index(int(np.argmax(sim)), sim.shape)
        return int(qi), vocab[int(other[ti])]

    best = ctx.cache("stmc2_pair", pair)
    if best is None:
        return None
    qi, t = best
    cq = ctx.counts[:, qi].astype(np.float64)

    def count_t() -> np.ndarray:
        tid = ctx.index.vocab.get(t) if ctx.index is not None else None
        if tid is not None and (ctx.rows >= 0).all():
            fn = _jit.loaded_kernel("row_counts")
            if fn is not None and ctx.index.n_terms <= LUT_TERMS:
                # one compiled pass over the candidates' index rows (the same integers)
                out = np.zeros((ctx.n, 1), dtype=np.int64)
                lut = np.full(ctx.index.n_terms, -1, dtype=np.int32)
                lut[tid] = 0
                tf = ctx.index.tf
                fn(tf.indptr, tf.indices, tf.data, ctx.rows, lut, out, np.zeros((0, 0), np.int32))
                return out[:, 0].astype(np.float64)
            return _column_counts(ctx, tid)
        return np.asarray([ctx.tokens(i).count(t) for i in range(ctx.n)], dtype=np.float64)

    return cq, ctx.cache("stmc2_ct", count_t)


def stmc2_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`stmc2`'s preference matrix from its one submatrix: the ratio test holds only
    for rows with ``c(q*) > 0`` against columns with ``c(q*) = 0`` (disjoint sets, so no pair
    holds both ways and the diagonal is never set): ``+H`` there and ``-H.T`` at the mirrored
    cells are ``holds - holds.T`` (numpy, no compiled kernel needed)."""
    n = ctx.n
    out = np.zeros((n, n), dtype=np.int8)
    counts = _stmc2_counts(ctx)
    if counts is None:
        return out
    fn = _jit.kernel("ratio_pairs")
    if fn is not None:  # the ratio test and both writes in one compiled pass
        cq, ct = counts
        r = np.flatnonzero(cq > 0)
        c = np.flatnonzero((ct > 0) & (cq == 0))
        L = ctx.doc_len.astype(np.float64)
        fn(L, cq, ct, r, c, float(p["margin"]), close_argument(close, n), out)
        return out
    r, c, H = _stmc2_block(ctx, *counts, float(p["margin"]), slice(0, n))
    if close is not None:
        H &= close[np.ix_(r, c)]
    out[np.ix_(r, c)] = H
    out[np.ix_(c, r)] = -H.T.view(np.int8)
    return out


def _column_counts(ctx: QueryContext, tid: int) -> np.ndarray:
    """``c(t, d)`` of one index term over the (indexed) candidates, as float64: the stored
    entries of the candidates' index rows, summed per row where their column is ``tid`` (what
    ``full_tf()[:, tid]`` holds, without building the ``n x V`` matrix for one column)."""
    tf = ctx.index.tf
    starts = tf.indptr[ctx.rows]
    cnt = tf.indptr[ctx.rows + 1] - starts
    offs = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    at = np.repeat(starts, cnt) + offs
    hit = tf.indices[at] == tid
    row = np.repeat(np.arange(ctx.n), cnt)[hit]
    vals = np.asarray(tf.data[at[hit]], dtype=np.int64)
    return np.bincount(row, weights=vals, minlength=ctx.n).astype(np.float64)


def _stmc2_pairs(
    ctx: QueryContext, cq: np.ndarray, ct: np.ndarray, margin: float, rows: slice
) -> np.ndarray:
    """The ratio test of STMC2, evaluated only on the rows with ``c(q*) > 0`` and the columns
    with ``c(t*) > 0, c(q*) = 0`` (elsewhere it is False): the same values as the full ``n x n``
    divisions, on a small submatrix."""
    out = np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    r, c, H = _stmc2_block(ctx, cq, ct, margin, rows)
    out[np.ix_(r, c)] = H
    return out


def _stmc2_block(
    ctx: QueryContext, cq: np.ndarray, ct: np.ndarray, margin: float, rows: slice
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(r, c, H)``: the rows (relative to ``rows``) and columns of :func:`_stmc2_pairs`'
    submatrix and its values."""
    r = np.flatnonzero(cq[rows] > 0)
    c = np.flatnonzero((ct > 0) & (cq == 0))
    if len(r) == 0 or len(c) == 0:
        return r, c, np.zeros((len(r), len(c)), dtype=bool)
    L = ctx.doc_len.astype(np.float64)
    ri = r + rows.start
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = L[None, c] / L[ri, None]
        tr = ct[None, c] / cq[ri, None]
    return r, c, isclose(lr, tr, margin)


def stmc3(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""STMC3 (Fang & Zhai 2006), pairwise form (ours).

    Original: for ``q = {q_1, q_2}``, a document matching ``q_1`` and a term similar to ``q_2``
    beats one that matches ``q_1`` more often but nothing of ``q_2``. Ours: with close lengths
    and equal exact query-term mass ``sum_w c(w,d)``, prefer the document that *softly covers*
    more query terms, where ``w`` is covered when the document contains ``w`` or a term with
    similarity ``>= threshold`` to ``w``.
    """

    def cover() -> np.ndarray:
        U, vocab = ctx.doc_term_matrix()
        if not vocab or not ctx.terms:
            return np.zeros(ctx.n)
        hit = _vocab_query_similarity(ctx) >= float(p["threshold"])
        return np.asarray(((U @ hit.astype(np.float64)) > 0).sum(axis=1)).ravel()

    c = ctx.cache(f"stmc3_cover_{p['threshold']}", cover)
    S = ctx.qsum
    return (S[rows, None] == S[None, :]) & wins(c, rows)

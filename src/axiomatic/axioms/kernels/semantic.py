"""Semantic kernels: STMC1-3 and REG, on the context's term similarity (see
:mod:`.term_frequency` for the kernel contract)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels._common import isclose, wins


def reg(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""REG (Zheng & Fang 2010; ir_axioms 1.2.5): the query term(s) least similar to the other
    query terms (minimum summed similarity) carry a distinct aspect; prefer the document with
    strictly more occurrences of every such term."""
    m = ctx.n_terms
    if m == 0:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    sim = ctx.term_similarity().matrix(ctx.terms, ctx.terms)
    sums = sim.sum(axis=1) - np.diag(sim)
    sel = np.nonzero(sums <= sums.min() + 1e-12)[0]
    return _all_greater(ctx, sel, rows)


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


def _avg_sim_to_query(ctx: QueryContext) -> np.ndarray:
    def compute() -> np.ndarray:
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

    def pair() -> tuple[int, str] | None:
        qset = set(ctx.terms)
        vocab = [t for t in ctx.doc_term_matrix()[1] if t not in qset]
        if not vocab:
            return None
        sim = ctx.term_similarity().matrix(ctx.terms, vocab)
        qi, ti = np.unravel_index(int(np.argmax(sim)), sim.shape)
        return int(qi), vocab[int(ti)]

    best = ctx.cache("stmc2_pair", pair)
    if best is None:
        return out
    qi, t = best
    cq = ctx.counts[:, qi].astype(np.float64)

    def count_t() -> np.ndarray:
        tid = ctx.index.vocab.get(t) if ctx.index is not None else None
        if tid is not None and (ctx.rows >= 0).all():
            return _column_counts(ctx, tid)
        return np.asarray([ctx.tokens(i).count(t) for i in range(ctx.n)], dtype=np.float64)

    ct = ctx.cache("stmc2_ct", count_t)
    return _stmc2_pairs(ctx, cq, ct, float(p["margin"]), rows)


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
    nb = rows.stop - rows.start
    out = np.zeros((nb, ctx.n), dtype=bool)
    r = np.flatnonzero(cq[rows] > 0)
    c = np.flatnonzero((ct > 0) & (cq == 0))
    if len(r) == 0 or len(c) == 0:
        return out
    L = ctx.doc_len.astype(np.float64)
    ri = r + rows.start
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = L[None, c] / L[ri, None]
        tr = ct[None, c] / cq[ri, None]
    out[np.ix_(r, c)] = isclose(lr, tr, margin)
    return out


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

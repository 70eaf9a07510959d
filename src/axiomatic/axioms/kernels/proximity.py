"""Proximity kernels: PROX1-5 (Tao & Zhai 2007; Hagen et al. 2016; ir_axioms 1.2.5).

Per-document features come from the context's positional index (query-term positions of every
candidate, built once per document); every pairwise comparison is a broadcast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels._common import present, wins


def _closest(arr: np.ndarray, x: np.ndarray) -> np.ndarray:
    """For every ``x``, the element of sorted ``arr`` closest to it; ties -> the smaller one
    (ir_axioms' ``_take_closest``)."""
    j = np.searchsorted(arr, x)
    left = arr[np.maximum(j - 1, 0)]
    right = arr[np.minimum(j, len(arr) - 1)]
    use_right = (j == 0) | ((j < len(arr)) & (np.abs(right - x) < np.abs(x - left)))
    return np.where(use_right, right, left)


def _phrase_start(toks: np.ndarray, phrase: np.ndarray) -> float:
    """First position where the token ids ``phrase`` occur contiguously in ``toks`` (inf: none)."""
    n, k = len(toks), len(phrase)
    if k == 0 or n < k:
        return np.inf
    ok = np.ones(n - k + 1, dtype=bool)
    for off in range(k):  # k = query length: a few array comparisons, no per-position Python
        ok &= toks[off : n - k + 1 + off] == phrase[off]
    hit = np.flatnonzero(ok)
    return float(hit[0]) if len(hit) else np.inf


def _prox_features(ctx: QueryContext) -> dict[str, np.ndarray]:
    """Per-document proximity features from the positional index (one vectorized pass per
    document over its query-term positions; no loop over occurrences)."""

    def compute() -> dict[str, np.ndarray]:
        n, m = ctx.n, ctx.n_terms
        # every proximity precondition needs >= 2 distinct query terms in the document
        need = present(ctx).sum(axis=1) >= 2
        phrase_ids = np.asarray([ctx._term_id(t) for t in ctx.query_tokens()], dtype=np.int64)
        avg_between = np.zeros(n)
        first_sum = np.zeros(n)
        phrase = np.full(n, np.inf)
        group_occ = np.zeros(n)
        group_cnt = np.zeros(n)
        span = np.full(n, np.inf)
        iu, ju = np.triu_indices(m, 1)
        for i in np.nonzero(need)[0].tolist():
            qp = ctx.query_positions(i)
            occ = np.flatnonzero(qp >= 0)  # positions of query-term tokens, ascending
            term = qp[occ]
            have = np.unique(term)
            # first occurrence of each present term (positions ascend, so the first index)
            first = np.full(m, np.nan)
            uniq, at = np.unique(term, return_index=True)
            first[uniq] = occ[at]
            both = ~np.isnan(first[iu]) & ~np.isnan(first[ju])
            if both.any():
                avg_between[i] = np.mean(np.abs(first[iu] - first[ju])[both] - 1)
            first_sum[i] = np.nansum(first)
            if len(phrase_ids):
                phrase[i] = _phrase_start(ctx.token_ids(i), phrase_ids)
            # closest grouping around every occurrence: per present term, the closest position
            lo = occ.copy()
            hi = occ.copy()
            for k in have.tolist():
                c = _closest(occ[term == k], occ)
                np.minimum(lo, c, out=lo)
                np.maximum(hi, c, out=hi)
            nonq = np.concatenate([[0], np.cumsum(qp < 0)])
            inside = np.where(hi > lo, nonq[hi] - nonq[np.minimum(lo + 1, len(qp))], 0)
            mn = inside.min()
            group_occ[i] = mn
            group_cnt[i] = int((inside == mn).sum())
            span[i] = float(np.mean(hi - lo))
        return {
            "avg_between": avg_between,
            "first_sum": first_sum,
            "phrase": phrase,
            "group_occ": group_occ,
            "group_cnt": group_cnt,
            "span": span,
        }

    return ctx.cache("prox", compute)


def _same_subset(ctx: QueryContext, rows: slice) -> np.ndarray:
    """Both documents contain the same set of (at least two) query terms."""
    P = present(ctx)
    if ctx.n_terms <= 1:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    same = (P[rows, None, :] == P[None, :, :]).all(axis=-1)
    return same & (P[rows].sum(axis=1) > 1)[:, None]


def _all_terms(ctx: QueryContext, rows: slice) -> np.ndarray:
    P = np.asarray(present(ctx).all(axis=1)) & (ctx.n_terms > 1)
    return P[rows, None] & P[None, :]


def prox1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX1 (Tao & Zhai 2007; ir_axioms 1.2.5): same query-term subset; prefer the smaller
    average number of words between the first occurrences of query-term pairs."""
    f = _prox_features(ctx)["avg_between"]
    return _same_subset(ctx, rows) & wins(-f, rows)


def prox2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX2 (Tao & Zhai 2007; ir_axioms 1.2.5): same query-term subset; prefer the smaller
    sum of first positions of the query terms (terms appear earlier)."""
    f = _prox_features(ctx)["first_sum"]
    return _same_subset(ctx, rows) & wins(-f, rows)


def prox3(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX3 (Hagen et al. 2016; ir_axioms 1.2.5): same query-term subset; prefer the document
    where the whole query occurs as a phrase earlier (absent = infinitely late)."""
    f = _prox_features(ctx)["phrase"]
    return _same_subset(ctx, rows) & (f[rows, None] < f[None, :])


def prox4(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX4 (Hagen et al. 2016; ir_axioms 1.2.5): both documents contain all query terms;
    prefer fewer non-query words inside the closest query-term grouping, then more such
    groupings."""
    f = _prox_features(ctx)
    o, c = f["group_occ"], f["group_cnt"]
    less = o[rows, None] < o[None, :]
    tie_more = (o[rows, None] == o[None, :]) & (c[rows, None] > c[None, :])
    return _all_terms(ctx, rows) & (less | tie_more)


def prox5(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX5 (Hagen et al. 2016; ir_axioms 1.2.5): both documents contain all query terms;
    prefer the smaller average span of the closest query-term groups."""
    f = _prox_features(ctx)["span"]
    return _all_terms(ctx, rows) & (f[rows, None] < f[None, :])

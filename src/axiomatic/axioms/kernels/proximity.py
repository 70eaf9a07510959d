"""Proximity kernels: PROX1-5 (Tao & Zhai 2007; Hagen et al. 2016; ir_axioms 1.2.5).

Per-document features come from the context's positional index (query-term positions of every
candidate, built once per document); every pairwise comparison is a broadcast.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels._common import present, wins


def _prox_features(ctx: QueryContext) -> dict[str, np.ndarray]:
    """Per-document proximity features (one pass over each document's query-term positions)."""

    def compute() -> dict[str, np.ndarray]:
        n, m = ctx.n, ctx.n_terms
        # every proximity precondition needs >= 2 distinct query terms in the document
        need = present(ctx).sum(axis=1) >= 2
        qtok = ctx.query_tokens()
        avg_between = np.zeros(n)
        first_sum = np.zeros(n)
        phrase = np.full(n, np.inf)
        group_occ = np.zeros(n)
        group_cnt = np.zeros(n)
        span = np.full(n, np.inf)
        qid = {t: k for k, t in enumerate(ctx.terms)}
        for i in np.nonzero(need)[0].tolist():
            P = ctx.positions_of(i)
            have = [k for k in range(m) if len(P[k])]
            firsts = {k: int(P[k][0]) for k in have}
            pairs = list(combinations(have, 2))
            if pairs:
                avg_between[i] = np.mean([abs(firsts[a] - firsts[b]) - 1 for a, b in pairs])
            first_sum[i] = sum(firsts.values())
            toks = ctx.tokens(i)
            if qtok:
                ln = len(qtok)
                first = qid.get(qtok[0])
                if first is not None:
                    for s in P[first]:
                        if toks[s : s + ln] == qtok:
                            phrase[i] = s
                            break
            groups = []
            for k in have:
                others = [o for o in have if o != k]
                for idx in P[k]:
                    g = [int(idx)]
                    for o in others:
                        arr = P[o]
                        j = np.searchsorted(arr, idx)
                        cand = [arr[c] for c in (j - 1, j) if 0 <= c < len(arr)]
                        # closest; ties -> the smaller position (ir_axioms _take_closest)
                        g.append(int(min(cand, key=lambda x: (abs(x - idx), x))))
                    groups.append(g)
            if groups:
                qset = set(ctx.terms)
                nonq = np.asarray([t not in qset for t in toks], dtype=np.int64)
                csum = np.concatenate([[0], np.cumsum(nonq)])
                occ = [
                    int(csum[max(g)] - csum[min(g) + 1]) if max(g) > min(g) else 0 for g in groups
                ]
                mn = min(occ)
                group_occ[i] = mn
                group_cnt[i] = occ.count(mn)
                span[i] = float(np.mean([max(g) - min(g) for g in groups]))
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

"""Proximity kernels: PROX1-5 (Tao & Zhai 2007; Hagen et al. 2016; ir_axioms 1.2.5).

Per-document features come from the context's positional index (query-term positions of every
candidate, built once per document); every pairwise comparison is a broadcast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels import _jit
from axiomatic.axioms.kernels._common import (
    group_preferences,
    presence_codes,
    present,
    run_starts,
    sign_preferences,
    wins,
)


def _prox_features(ctx: QueryContext) -> dict[str, np.ndarray]:
    """Per-document proximity features from the positional index, vectorized over every
    query-term occurrence of every candidate at once (no loop over documents or occurrences).

    Definitions (ir_axioms 1.2.5), over the documents holding >= 2 distinct query terms:
    ``avg_between`` mean of ``|first(a) - first(b)| - 1`` over pairs of present terms;
    ``first_sum`` sum of first positions; ``phrase`` start of the first contiguous occurrence of
    the analyzed query (inf: none); for every occurrence, the group of the closest occurrence of
    each present term (ties -> the smaller position): ``group_occ`` the fewest non-query tokens
    strictly inside a group, ``group_cnt`` how many groups have that few, ``span`` the mean
    group width.

    Three groups computed (and cached) separately, each by the axioms that use it, so that an
    axiom pays for its own features only: first positions (PROX1, PROX2), the phrase (PROX3),
    the closest groupings (PROX4, PROX5).
    """
    return {**_first_features(ctx), **_phrase_feature(ctx), **_group_features(ctx)}


class _Occurrences(NamedTuple):
    """Every query-term occurrence of the documents holding >= 2 distinct query terms, in
    ascending order of their global position in the positional table."""

    docs: np.ndarray  # the documents with >= 2 distinct query terms
    toks: np.ndarray  # the positional table (token ids), its offsets per document
    offsets: np.ndarray
    occ: np.ndarray  # global position of every occurrence
    d_occ: np.ndarray  # its document
    t_occ: np.ndarray  # its query term (index into ctx.terms)
    p_occ: np.ndarray  # its position inside the document


def _occurrences(ctx: QueryContext) -> _Occurrences | None:
    """The query-term occurrences (None when no document holds two query terms)."""

    def compute() -> _Occurrences | None:
        # every proximity precondition needs >= 2 distinct query terms in the document
        need = present(ctx).sum(axis=1) >= 2
        if not need.any():
            return None
        # the table holds exactly the documents with >= 2 query terms (min_terms=2)
        toks, qterm, offsets = ctx.positional_table(min_terms=2)
        occ = np.flatnonzero(qterm >= 0)  # global positions, ascending
        d_occ = np.searchsorted(offsets, occ, side="right") - 1
        keep = need[d_occ]
        if not keep.all():
            occ, d_occ = occ[keep], d_occ[keep]
        return _Occurrences(
            np.flatnonzero(need), toks, offsets, occ, d_occ, qterm[occ], occ - offsets[d_occ]
        )

    return ctx.cache("prox_occurrences", compute)


#: the feature arrays of :func:`_compiled_features`, in its kernel's output order
FEATURES = ("avg_between", "first_sum", "phrase", "group_occ", "group_cnt", "span")


def _query_lut(ctx: QueryContext) -> np.ndarray:
    """The query term (index into ``ctx.terms``) of every id of the context, -1 for the other
    ids; a repeated id keeps its first term, as in :meth:`QueryContext.positional_table`."""
    q = ctx.query_term_ids()
    size = ctx.index.n_terms + len(ctx._cache.get("oov_ids", ())) if ctx.index is not None else 0
    # int16 (|q| < 2^15): half the cache lines of int32 for the kernel's random look-ups
    lut = np.full(max(size, int(q.max()) + 1), -1, dtype=np.int16)
    lut[q[::-1]] = np.arange(len(q))[::-1]
    return lut


def _phrase_ids(ctx: QueryContext) -> np.ndarray:
    """The analyzed query's term ids in order, duplicates kept (the phrase of PROX3)."""
    return ctx.cache(
        "query_token_ids",
        lambda: np.asarray([ctx._term_id(t) for t in ctx.query_tokens()], dtype=np.int64),
    )


def _compiled_features(ctx: QueryContext) -> dict[str, np.ndarray] | None:
    """Every proximity feature from one pass of the compiled
    :func:`~axiomatic.axioms.kernels._jit.prox_features` over the candidates' tokens (the
    index's positional index, slots decoded in the kernel; documents outside the index: the
    positional table), cached; the
    same values as the vectorized forms below. None when compiled kernels are off.

    One pass serves every feature group: the scan of the tokens is most of the work, so the
    first proximity axiom pays for all of them (about what the vectorized first positions
    alone cost) and the others read them."""
    fn = _jit.kernel("prox_features")
    if fn is None or ctx.n_terms >= 2**15:
        return None

    def compute() -> dict[str, np.ndarray]:
        n, m = ctx.n, ctx.n_terms
        out = np.zeros((len(FEATURES), n))
        out[FEATURES.index("phrase")] = np.inf
        out[FEATURES.index("span")] = np.inf
        features = dict(zip(FEATURES, out, strict=True))
        if m == 0 or n == 0:
            return features
        counts = np.ascontiguousarray(ctx.counts, dtype=np.int64)
        ph = _phrase_ids(ctx)
        no_slots = np.zeros((0, 0), dtype=np.int32)
        table = ctx.index.token_slots if ctx.index is not None else None
        if table is not None:
            slots, starts = table
            tf = ctx.index.tf
            # the query terms' slots in every candidate's row, recorded while the context
            # counted them: no look-up table over the vocabulary to build
            qslots = ctx._cache.get("query_slots")
            if qslots is None:
                qslots, lut = no_slots, _query_lut(ctx)
            else:
                lut = np.zeros(0, dtype=np.int16)
            # False: a candidate with two query terms is not in the index (nothing written)
            args = (ctx.rows, tf.indptr, tf.indices, counts, lut, qslots, ph, out)
            if fn(slots, starts, *args):
                return features
        toks, _, offsets = ctx.positional_table(min_terms=2)
        none = np.zeros(0, dtype=np.int32)  # the tokens are term ids: no rows to decode them
        fn(toks, offsets, np.arange(n), none, none, counts, _query_lut(ctx), no_slots, ph, out)
        return features

    return ctx.cache("prox_compiled", compute)


def _first_features(ctx: QueryContext) -> dict[str, np.ndarray]:
    """``avg_between`` and ``first_sum`` (PROX1, PROX2) from the first occurrences."""

    def compute() -> dict[str, np.ndarray]:
        n, m = ctx.n, ctx.n_terms
        avg_between = np.zeros(n)
        first_sum = np.zeros(n)
        out = {"avg_between": avg_between, "first_sum": first_sum}
        fast = _compiled_features(ctx)
        if fast is not None:
            return {f: fast[f] for f in out}
        o = _occurrences(ctx)
        if o is None:
            return out
        # first occurrence of every (document, term): occurrences come in ascending position,
        # so a stable sort by (document, term) puts each pair's first occurrence first (one
        # scatter of distinct cells; ~5x faster than np.minimum.at over every occurrence)
        cells = np.full(n * m, np.inf)
        if len(o.occ):
            key = o.d_occ * m + o.t_occ
            order = np.argsort(key, kind="stable")
            ks = key[order]
            lead = run_starts(ks)
            cells[ks[lead]] = o.p_occ[order[lead]]
        first = cells.reshape(n, m)
        has = np.isfinite(first)
        iu, ju = np.triu_indices(m, 1)
        both = has[:, iu] & has[:, ju]
        fa, fb = np.where(has, first, 0.0)[:, iu], np.where(has, first, 0.0)[:, ju]
        gap = np.where(both, np.abs(fa - fb) - 1, 0.0)
        k_pairs = both.sum(axis=1)
        docs = o.docs
        avg_between[docs] = gap[docs].sum(axis=1) / np.maximum(k_pairs[docs], 1)
        first_sum[docs] = np.where(has, first, 0.0)[docs].sum(axis=1)
        return out

    return ctx.cache("prox_first", compute)


def _phrase_feature(ctx: QueryContext) -> dict[str, np.ndarray]:
    """``phrase`` (PROX3): start of the first occurrence of the analyzed query as a phrase."""

    def compute() -> dict[str, np.ndarray]:
        phrase = np.full(ctx.n, np.inf)
        out = {"phrase": phrase}
        fast = _compiled_features(ctx)
        if fast is not None:
            return {f: fast[f] for f in out}
        o = _occurrences(ctx)
        if o is None:
            return out
        # the query as a phrase: contiguous token ids, start and end in one document. A start
        # holds the first query token, a query term: only occurrences can start a phrase
        ph = _phrase_ids(ctx)
        k = len(ph)
        toks, offsets = o.toks, o.offsets
        if k == 0:
            return out
        sel = (toks[o.occ] == ph[0]) & (o.occ + k <= len(toks))
        starts, d_start = o.occ[sel], o.d_occ[sel]
        for off in range(1, k):  # k = query length: a few gathers over the candidates
            ok = toks[starts + off] == ph[off]
            starts, d_start = starts[ok], d_start[ok]
        ok = starts + k <= offsets[d_start + 1]  # the phrase ends in the same document
        starts, d_start = starts[ok], d_start[ok]
        if len(starts):
            # starts ascend (and so do their documents): each document's first is its earliest
            lead = run_starts(d_start)
            phrase[d_start[lead]] = (starts[lead] - offsets[d_start[lead]]) * 1.0
        return out

    return ctx.cache("prox_phrase", compute)


def _group_features(ctx: QueryContext) -> dict[str, np.ndarray]:
    """``group_occ``, ``group_cnt`` and ``span`` (PROX4, PROX5) from the closest groupings."""

    def compute() -> dict[str, np.ndarray]:
        n, m = ctx.n, ctx.n_terms
        group_occ = np.zeros(n)
        group_cnt = np.zeros(n)
        span = np.full(n, np.inf)
        out = {"group_occ": group_occ, "group_cnt": group_cnt, "span": span}
        fast = _compiled_features(ctx)
        if fast is not None:
            return {f: fast[f] for f in out}
        o = _occurrences(ctx)
        if o is None:
            return out
        d_occ, t_occ, p_occ, docs = o.d_occ, o.t_occ, o.p_occ, o.docs
        # closest grouping around every occurrence: per term, the closest occurrence in the
        # same document. Keys doc * stride + position sort by document, then position; with
        # the term in front (term * K + key) one sorted array holds every term's occurrences
        # in its own segment, and one binary search answers every (occurrence, term) at once
        stride = int(o.offsets[-1]) + 1
        key = d_occ * stride + p_occ
        K = int(key.max()) + 1
        tk = t_occ * K + key
        srt = np.argsort(tk, kind="stable")
        tks, ds = tk[srt], d_occ[srt]
        seg = np.searchsorted(tks, np.arange(m + 1) * K)  # term t: tks[seg[t] : seg[t + 1]]
        # (term, occurrence) arrays, term-major: long inner loops for numpy
        base_t = np.arange(m)[:, None] * K
        j = np.searchsorted(tks, base_t + key[None, :])
        jl, jr = np.maximum(j - 1, 0), np.minimum(j, len(tks) - 1)
        lok = (j > seg[:-1, None]) & (ds[jl] == d_occ)
        rok = (j < seg[1:, None]) & (ds[jr] == d_occ)
        left = tks[jl] - base_t - d_occ * stride
        right = tks[jr] - base_t - d_occ * stride
        use_right = rok & (~lok | (np.abs(right - p_occ) < np.abs(p_occ - left)))
        # the closest occurrence of each term (right on a strict win, else left), the
        # occurrence itself where the term is not in the document
        c = np.where(use_right, right, np.where(lok, left, p_occ))
        lo = c.min(axis=0)
        hi = c.max(axis=0)
        # non-query tokens in [lo + 1, hi) = its width minus the query-term occurrences in it
        # (counted in the sorted occurrence positions; no pass over every token)
        base = o.offsets[d_occ]
        a = base + np.minimum(lo + 1, hi)
        b = base + hi
        n_occ = np.searchsorted(o.occ, b) - np.searchsorted(o.occ, a)
        inside = np.where(hi > lo, (b - a) - n_occ, 0)
        mn = np.full(n, np.iinfo(np.int64).max)
        # occurrences ascend, so each document's are one run: a segmented minimum
        run = np.flatnonzero(run_starts(d_occ))
        mn[d_occ[run]] = np.minimum.reduceat(inside, run)
        group_occ[docs] = mn[docs]
        group_cnt[:] = np.bincount(d_occ[inside == mn[d_occ]], minlength=n)
        cnt = np.bincount(d_occ, minlength=n)
        width = np.bincount(d_occ, weights=(hi - lo).astype(np.float64), minlength=n)
        span[docs] = width[docs] / cnt[docs]
        return out

    return ctx.cache("prox_groups", compute)


def _same_subset(ctx: QueryContext, rows: slice) -> np.ndarray:
    """Both documents contain the same set of (at least two) query terms."""
    P = present(ctx)
    if ctx.n_terms <= 1:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    # equal presence rows = equal codes: one n x n integer comparison, no n x n x |q| temporary
    _, codes = presence_codes(ctx)
    same = codes[rows, None] == codes[None, :]
    return same & (P[rows].sum(axis=1) > 1)[:, None]


def _all_terms(ctx: QueryContext, rows: slice) -> np.ndarray:
    P = np.asarray(present(ctx).all(axis=1)) & (ctx.n_terms > 1)
    return P[rows, None] & P[None, :]


def prox1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX1 (Tao & Zhai 2007; ir_axioms 1.2.5): same query-term subset; prefer the smaller
    average number of words between the first occurrences of query-term pairs."""
    f = _first_features(ctx)["avg_between"]
    return _same_subset(ctx, rows) & wins(-f, rows)


def prox2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX2 (Tao & Zhai 2007; ir_axioms 1.2.5): same query-term subset; prefer the smaller
    sum of first positions of the query terms (terms appear earlier)."""
    f = _first_features(ctx)["first_sum"]
    return _same_subset(ctx, rows) & wins(-f, rows)


def prox3(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX3 (Hagen et al. 2016; ir_axioms 1.2.5): same query-term subset; prefer the document
    where the whole query occurs as a phrase earlier (absent = infinitely late)."""
    f = _phrase_feature(ctx)["phrase"]
    return _same_subset(ctx, rows) & (f[rows, None] < f[None, :])


def prox4(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX4 (Hagen et al. 2016; ir_axioms 1.2.5): both documents contain all query terms;
    prefer fewer non-query words inside the closest query-term grouping, then more such
    groupings."""
    f = _group_features(ctx)
    o, c = f["group_occ"], f["group_cnt"]
    less = o[rows, None] < o[None, :]
    tie_more = (o[rows, None] == o[None, :]) & (c[rows, None] > c[None, :])
    return _all_terms(ctx, rows) & (less | tie_more)


def prox5(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX5 (Hagen et al. 2016; ir_axioms 1.2.5): both documents contain all query terms;
    prefer the smaller average span of the closest query-term groups."""
    f = _group_features(ctx)["span"]
    return _all_terms(ctx, rows) & (f[rows, None] < f[None, :])


# ---------------------------------------------------------------------- preference matrices
# the kernels above as one compiled pass each (``PairAxiomDef``'s ``preferences_kernel``; None
# without compiled kernels: the engine evaluates the kernel). Their masks over distinct
# presence rows: the same subset of >= 2 query terms (:func:`_same_subset`), or every query
# term in both documents (:func:`_all_terms`); both symmetric.
def _subset_mask(ctx: QueryContext) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, mask)``: :func:`_same_subset` as a ``u x u`` mask over the presence codes."""
    U, codes = presence_codes(ctx)
    many = U.sum(axis=1) > 1
    mask = np.diag(many) if ctx.n_terms > 1 else np.zeros((len(U), len(U)), dtype=bool)
    return codes, mask


def _subset_key(ctx: QueryContext) -> np.ndarray | None:
    """:func:`_same_subset` as one key per document: its query-term subset as a bit mask, -1
    with fewer than two terms (the same key, >= 0, is the same subset); None for more than 62
    query terms (the masks of :func:`_subset_mask` then) or without compiled kernels."""
    return _presence_keys(ctx, every=False) if ctx.n_terms <= 62 else None


def _all_key(ctx: QueryContext) -> np.ndarray | None:
    """:func:`_all_terms` as one key per document: 0 with every query term (``|q| > 1``),
    else -1 (None without compiled kernels)."""
    return _presence_keys(ctx, every=True)


def _presence_keys(ctx: QueryContext, every: bool) -> np.ndarray | None:
    fn = _jit.kernel("presence_keys")
    if fn is None:
        return None
    out = np.empty(ctx.n, dtype=np.int64)
    fn(np.ascontiguousarray(ctx.counts, dtype=np.int64), every, out)
    return out


def _subset_preferences(
    ctx: QueryContext, f: np.ndarray, close: np.ndarray | None
) -> np.ndarray | None:
    """``_same_subset & wins(f)`` as a preference matrix, compiled (None: off)."""
    if not _jit.enabled():
        return None
    key = _subset_key(ctx)
    if key is not None:
        return group_preferences(f, key, close)
    codes, mask = _subset_mask(ctx)
    return sign_preferences(f, close, None, codes, mask)


def prox1_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    return _subset_preferences(ctx, -_first_features(ctx)["avg_between"], close)


def prox2_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    return _subset_preferences(ctx, -_first_features(ctx)["first_sum"], close)


def prox3_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    # phrase_i < phrase_j exactly when -phrase_i > -phrase_j (negation is exact, inf included)
    return _subset_preferences(ctx, -_phrase_feature(ctx)["phrase"], close)


def prox4_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    # fewer words inside (o_i < o_j, i.e. -o_i > -o_j), then more groupings (c_i > c_j)
    key = _all_key(ctx)
    if key is None:
        return None
    f = _group_features(ctx)
    return group_preferences(-f["group_occ"], key, close, f["group_cnt"])


def prox5_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    key = _all_key(ctx)
    if key is None:
        return None
    return group_preferences(-_group_features(ctx)["span"], key, close)

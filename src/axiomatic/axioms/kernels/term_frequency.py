"""Term-frequency kernels: TFC1, TFC2 (triples), TFC3, TDC, M-TDC, LB1, LB2 and ORIG.

Pair kernels return ``bool[len(rows), n]``: entry ``[a, j]`` is True when the axiom's other
preconditions hold for the ordered pair ``(rows[a], j)`` (the row document should rank above, or
not below, the column document). The length precondition is *not* applied here: the engine
(:mod:`axiomatic.axioms.engine`) applies it once, from the definition. No per-pair Python.

Notation: ``C`` is the ``n x |q|`` matrix ``c(w, d)`` over the unique query terms, ``L`` the
document lengths, ``S = C.sum(1)`` the query-term mass per document.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import combinations
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels import _jit
from axiomatic.axioms.kernels._common import (
    all_terms,
    close_argument,
    coded_preferences,
    count_codes,
    gather,
    isclose,
    presence_codes,
    present,
    row_blocks,
)


def tfc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TFC1 (Fang et al. 2004; Rennings 2019 eqs. 3.1-3.3).

    strict (3.1): ``q = {w}``, ``|d_i| = |d_j|``, ``c(w,d_i) > c(w,d_j)`` => ``S(d_i) > S(d_j)``.
    extended (3.2): ``|d_i| = |d_j|`` and ``c(w,d_i) > c(w,d_j)`` for all ``w in q``.
    relaxed (3.3): ``|d_i| ~ |d_j|`` (``delta`` / ``delta_rel``), ``c(w,d_i) >= c(w,d_j)`` for all
    ``w`` and ``sum_w c(w,d_i) > sum_w c(w,d_j)``.
    """
    if variant == "strict" and ctx.n_terms != 1:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    return gather(*_tfc1_rows(ctx, variant), rows)


def _tfc1_rows(ctx: QueryContext, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """``(cond, codes)``: TFC1's condition on the distinct count rows (a condition on the two
    count rows alone: evaluated there, then gathered)."""
    U, codes = count_codes(ctx)
    if variant in ("strict", "extended"):
        cond = all_terms(U, np.greater)
    else:
        S = U.sum(axis=1)
        cond = all_terms(U, np.greater_equal) & (S[:, None] > S[None, :])
    return cond, codes


def tfc1_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`tfc1` in one compiled pass: up to :data:`DOMINANCE_MAX` candidates on every
    pair of count rows (no distinct rows needed), above it gathered from the distinct rows
    (None without compiled kernels, or for the strict form on a multi-term query: the
    kernel's zeros)."""
    if variant == "strict" and ctx.n_terms != 1:
        return None
    n = ctx.n
    fn = _jit.kernel("dominance_pairs") if n <= DOMINANCE_MAX else None
    if fn is not None:
        out = np.zeros((n, n), dtype=np.int8)
        C = np.ascontiguousarray(ctx.counts, dtype=np.int64)
        fn(C, variant == "relaxed", close_argument(close, n), out)
        return out
    return coded_preferences(*_tfc1_rows(ctx, variant), close)


#: candidates up to which TFC1's preferences compare every pair of count rows directly
DOMINANCE_MAX = 256


def m_tdc(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""M-TDC (Shi et al. 2005; Rennings 2019 eqs. 3.7-3.9).

    strict (3.7): ``q = {w_1, w_2}``, ``|d_1| = |d_2|``, counts swapped across the documents
    (``c(w_1,d_1) = c(w_2,d_2)``, ``c(w_2,d_1) = c(w_1,d_2)``); if ``idf(w_1) >= idf(w_2)`` and
    ``c(w_1,d_1) >= c(w_1,d_2)`` then ``S(d_1) >= S(d_2)``. ``w_1, w_2`` name the two terms of
    the set ``q`` in either order: the pair qualifies when *some* naming meets the premises, so
    with ``idf(w_1) = idf(w_2)`` every swapped pair qualifies in both directions (``>=`` both
    ways, i.e. no preference), as it does in the relaxed form.
    extended (3.8): the swap holds for every ordered pair ``w_a != w_b`` of query terms (for
    ``|q| >= 3`` this forces all counts of both documents to one value, as the thesis notes), and
    ``idf(w_a) >= idf(w_b)`` and ``c(w_a,d_i) >= c(w_a,d_j)`` for a naming ``w_a != w_b`` as in
    3.7 (for ``|q| = 2`` the extended form is exactly 3.7; for ``|q| >= 3`` the swap already
    forces ``c(w,d_i) = c(w,d_j)``, so every reading of the premise agrees).
    relaxed (3.9): ``|d_i| ~ |d_j|``, ``sum_w c(w,d_i) = sum_w c(w,d_j)``, the documents differ in
    exactly the counts of two terms ``w_a != w_b`` with 1) ``idf(w_a) >= idf(w_b)``,
    2) ``c(w_a,d_i) > c(w_a,d_j)``, 3) ``c(w_a,q) >= c(w_b,q)``, 4) the two counts are swapped.
    """
    C = ctx.counts
    m = ctx.n_terms
    nb = rows.stop - rows.start
    if m < 2 or (variant == "strict" and m != 2):
        return np.zeros((nb, ctx.n), dtype=bool)
    Ci = C[rows]
    if variant in ("strict", "extended"):
        if m == 2:
            swap = (Ci[:, None, 0] == C[None, :, 1]) & (Ci[:, None, 1] == C[None, :, 0])
        else:
            const = (C[:, :1] == C).all(axis=1)
            swap = const[rows, None] & const[None, :] & (Ci[:, None, 0] == C[None, :, 0])
        idf = ctx.idf
        has_lower = (idf[:, None] >= idf[None, :]) & ~np.eye(m, dtype=bool)
        # candidates for w_a (w_1 of eq. 3.7): terms with some w_b != w_a, idf(w_a) >= idf(w_b)
        can_a = np.asarray(has_lower.any(axis=1))
        cond = ((Ci[:, None, :] >= C[None, :, :]) & can_a[None, None, :]).any(axis=-1)
        return swap & cond
    return gather(*_m_tdc_relaxed_rows(ctx), rows)


def _m_tdc_relaxed_rows(ctx: QueryContext) -> tuple[np.ndarray, np.ndarray]:
    """``(cond, codes)``: the relaxed M-TDC (eq. 3.9) on the distinct count rows (a condition
    on the two count rows alone; only pairs with equal, non-zero query-term mass can qualify:
    those alone are tested)."""
    U, codes = count_codes(ctx)
    S = U.sum(axis=1)
    a, j = np.nonzero((S[:, None] == S[None, :]) & (S[:, None] > 0))
    out = np.zeros((len(U), len(U)), dtype=bool)
    if len(a) == 0:
        return out, codes
    A, B = U[a], U[j]
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
    return out, codes


def m_tdc_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """The relaxed :func:`m_tdc` gathered from the distinct rows in one compiled pass (None
    for the other variants, or without compiled kernels)."""
    if variant != "relaxed" or ctx.n_terms < 2:
        return None
    return coded_preferences(*_m_tdc_relaxed_rows(ctx), close)


def tfc3(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TFC3 (Fang et al. 2004; multi-term form of ir_axioms 1.2.5).

    For every pair of query terms ``(a, b)`` with ``isclose(idf(a), idf(b), 10%)``, document ``d``
    earns a point against ``d'`` when it contains both terms and ``d'`` contains only one of them,
    as often as ``d`` contains both together (``c(a,d') = c(a,d) + c(b,d)``, ``c(b,d') = 0`` or
    vice versa): covering more distinct query terms beats repeating one. Prefer more points.
    """
    s_ij, codes = _tfc3_points(ctx, float(p["idf_margin"]))
    return gather(s_ij > s_ij.T, codes, rows)


def _tfc3_points(ctx: QueryContext, idf_margin: float) -> tuple[np.ndarray, np.ndarray]:
    """``(points, codes)``: TFC3's points of every distinct count row against every other
    (points depend on the two count rows alone: scored on the distinct rows, then gathered)."""
    U, codes = count_codes(ctx)
    u = len(U)
    fn = _jit.loaded_kernel("tfc3_points")
    if fn is not None:  # one compiled pass: the same points, as integers
        points = np.zeros((u, u), dtype=np.int64)
        fn(np.ascontiguousarray(U, dtype=np.int64), np.asarray(ctx.idf, np.float64),
           float(idf_margin), points)  # fmt: skip
        return points, codes
    C = U.astype(np.float64)
    s_ij = np.zeros((u, u))
    idf = ctx.idf
    for a, b in combinations(range(ctx.n_terms), 2):
        if not isclose(np.asarray(idf[a]), np.asarray(idf[b]), idf_margin):
            continue
        ca, cb = C[:, a], C[:, b]
        both = (ca != 0) & (cb != 0)
        tot = ca + cb

        def pts(x, y, ca=ca, cb=cb, both=both, tot=tot) -> np.ndarray:
            # points of documents x (rows) against documents y (columns)
            return both[x][:, None] & (
                ((ca[y][None, :] == tot[x][:, None]) & (cb[y][None, :] == 0))
                | ((cb[y][None, :] == tot[x][:, None]) & (ca[y][None, :] == 0))
            )

        s_ij += pts(slice(None), slice(None))
    return s_ij, codes


def tfc3_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`tfc3` gathered from the distinct rows in one compiled pass (None without
    compiled kernels)."""
    s_ij, codes = _tfc3_points(ctx, float(p["idf_margin"]))
    return coded_preferences(s_ij > s_ij.T, codes, close)


def tdc(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TDC (Fang et al. 2004), multi-term form (ours).

    Original: ``q = {w_1, w_2}``, ``|d_1| = |d_2|``, equal total query-term count; if
    ``idf(w_1) >= idf(w_2)`` and ``c(w_1,d_1) >= c(w_1,d_2)`` then ``S(d_1) >= S(d_2)``.
    Ours for any ``|q|``: lengths close, ``sum_w c(w,d_i) = sum_w c(w,d_j)`` and
    ``sum_w idf(w) c(w,d_i) > sum_w idf(w) c(w,d_j)`` (``d_i`` holds the rarer occurrences).
    """
    C = ctx.counts
    S = ctx.qsum
    w = C @ ctx.idf
    same = S[rows, None] == S[None, :]
    gap = w[rows, None] - w[None, :]
    return same & (gap > 1e-12 * np.maximum(1.0, np.abs(w[rows, None])))


# ---------------------------------------------------------------------- lower bounds
def lb1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""LB1 (Lv & Zhai 2011; ir_axioms 1.2.5): among documents with close retrieval scores
    (``isclose(S_i, S_j, margin)``), prefer the one containing a query term the other lacks (and
    not vice versa). Needs base scores: ``QueryContext.build(..., scores=...)``."""
    s = _lb1_scores(ctx)
    close = isclose(s[rows, None], s[None, :], float(p["margin"]))
    # on the distinct presence rows (at most 2^|q|), gathered: no n x n x |q| integer product
    U, codes = presence_codes(ctx)
    Pu = U.astype(np.int64)
    only_i = (Pu @ (1 - Pu).T) > 0
    only_j = ((1 - Pu) @ Pu.T) > 0
    return close & gather(only_i & ~only_j, codes, rows)


def _lb1_scores(ctx: QueryContext) -> np.ndarray:
    if ctx.scores is None:
        raise ValueError(
            "LB1 compares documents with similar retrieval scores; build the context with "
            "scores (QueryContext.build(query, docs, index, scores=...)) or mine with a base run"
        )
    return ctx.scores


#: up to this many candidates LB1's score test is the plain ``n x n`` float comparison (a few
#: calls on a small matrix); above it, sorted score ranges (no float ``n x n`` array)
LB1_DENSE_MAX = 256


def lb1_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    r"""LB1's ``int8[n, n]`` preference matrix directly: ``close(i, j) * (sup(i, j) - sup(j, i))``
    with ``sup`` the strict superset of the documents' query-term sets (what ``only_i &
    ~only_j`` of :func:`lb1` is, here two comparisons of bit masks) and ``close`` the score test
    of :func:`lb1` (:func:`_lb1_close`). Declines (None: the engine evaluates :func:`lb1`) for
    more than 16 query terms, where :func:`_lb1_close` declines, or under a length
    precondition (``close``; LB1 has none in the catalogue).

    With numba installed, compiled loops with the same float operations replace the numpy
    calls below: up to :data:`LB1_DENSE_MAX` candidates the loop over every pair
    (:func:`axiomatic.axioms.kernels._jit.lb1_pairs`: the least fixed cost per call, which is
    most of the cost at that size), above it one pass over the pairs that can hold
    (:func:`~axiomatic.axioms.kernels._jit.lb1_band_pairs`: strictly nested query-term sets,
    scores close; ~0.3 ms at 1,000 candidates instead of ~2 ms), which declines scores of both
    signs or not finite (then the numpy form).
    """
    if close is not None:
        return None
    s = _lb1_scores(ctx)
    C = ctx.counts
    n, m = C.shape
    rel = float(p["margin"])
    if len(s) == n and s.dtype == np.float64 and m <= 64:
        if n <= LB1_DENSE_MAX:
            compiled = _jit.kernel("lb1_pairs")
            if compiled is not None:
                out = np.zeros((n, n), dtype=np.int8)
                compiled(s, C, rel, out)
                return out
        band = _jit.kernel("lb1_band_pairs")
        if band is not None:
            out = np.zeros((n, n), dtype=np.int8)
            if band(s, C, rel, out):
                return out
    if m > 16 or len(s) != n:
        return None
    if n <= LB1_DENSE_MAX and rel >= 0:
        # the kernel's test |a - b| <= rel * max(|a|, |b|), with rel * max(x, y) taken as
        # max(rel * x, rel * y): rounding is monotone, so for rel >= 0 the same value (NaN
        # propagates through both), one n x n float operation fewer
        ra = rel * np.abs(s)
        d = np.subtract(s[:, None], s[None, :])
        np.abs(d, out=d)
        close = d <= np.maximum(ra[:, None], ra[None, :])
    elif n <= LB1_DENSE_MAX:
        close = isclose(s[:, None], s[None, :], rel)  # the kernel's own test
    else:
        close = _lb1_close(s, rel)
        if close is None:
            return None
    # query-term sets as bit masks: j's set within i's is (b_i | b_j) == b_i
    packed = np.packbits(present(ctx), axis=1, bitorder="little")
    bits = packed[:, 0] if m <= 8 else packed.view("<u2").reshape(-1)
    x = bits[:, None] | bits[None, :]
    out = (x == bits[:, None]).view(np.int8)
    sub = np.equal(x, bits[None, :], out=x.view(np.bool_) if m <= 8 else None).view(np.int8)
    np.subtract(out, sub, out=out)
    np.multiply(out, close.view(np.int8), out=out)
    return out


def _lb1_close(s: np.ndarray, rel: float) -> np.ndarray | None:
    r"""``isclose(s[:, None], s[None, :], rel)`` bit for bit, without any ``n x n`` float array:

    with the scores sorted ascending (``v``, all >= 0; all <= 0 are negated, which changes
    neither ``|a - b|`` nor ``max(|a|, |b|)``), the pairs ``(p, q)``, ``q <= p``, have
    ``max = v_p``, so the test is ``fl(v_p - v_q) <= fl(rel * v_p)``, monotone in ``q``
    (rounding is monotone): a range ``[lo_p, p]`` of sorted positions, estimated by a binary
    search, verified by evaluating that comparison at its ends and searched exactly where the
    estimate is off. When ``lo`` is non-decreasing (as in exact arithmetic) every row's close
    set is one range ``[lo_p, hi_p]``; otherwise both halves are tested. Two or five two-byte
    ``n x n`` passes (~0.3 ms at 1,000 candidates instead of ~6 ms).

    None for scores of both signs or not finite, a negative or NaN ``rel``, or more than
    32,767 scores.
    """
    n = len(s)
    if not rel >= 0 or n > 32767:
        return None
    smin, smax = s.min(), s.max()  # NaN fails every comparison below
    if smin >= 0 and smax < np.inf:
        v = s
    elif smax <= 0 and smin > -np.inf:
        v = -s
    else:
        return None
    order = np.argsort(v, kind="stable")
    vs = v[order]
    t = rel * vs  # the threshold of sorted row p: max(|a|, |b|) = v_p
    k = np.arange(n)
    lo = np.minimum(np.searchsorted(vs, vs - t, side="left"), k)
    # exact check of the estimate: the test holds at lo and fails at lo - 1 (-inf before 0)
    ext = np.empty(n + 1)
    ext[0] = -np.inf
    ext[1:] = vs
    bad = (vs - ext[lo + 1]) > t
    bad |= (vs - ext[lo]) <= t
    if bad.any():  # off (scores within an ulp of a boundary): exact binary search there
        r = np.flatnonzero(bad)
        a, b = np.zeros(len(r), dtype=np.int64), r.copy()  # first True in [a, b]; True at b
        while (a < b).any():
            mid = (a + b) // 2
            hit = (vs[r] - vs[mid]) <= t[r]
            b = np.where(hit, mid, b)
            a = np.where(hit, a, mid + 1)
        lo[r] = b
    # sorted positions as int16 (n <= 32767): a difference below 0 wraps to a large uint16, so
    # "lo <= pos <= lo + w" is one subtraction and one unsigned comparison
    pos = np.empty(n, dtype=np.int16)
    pos[order] = k
    if (lo[1:] >= lo[:-1]).all():
        # one range per row: up to the last sorted row whose range reaches it
        hi = np.searchsorted(lo, k, side="right") - 1
        lo_d = lo.astype(np.int16)[pos]
        w = (hi - lo).astype(np.uint16)[pos]
        close = (pos[None, :] - lo_d[:, None]).view(np.uint16) <= w[:, None]
    else:
        lo_d = lo.astype(np.int16)[pos]
        w = (pos - lo_d).view(np.uint16)
        close = (pos[None, :] - lo_d[:, None]).view(np.uint16) <= w[:, None]
        close |= (pos[:, None] - lo_d[None, :]).view(np.uint16) <= w[None, :]
    return close


def lb2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""LB2 (Lv & Zhai 2011), pairwise form on real documents (ours).

    Original: for ``q = {q_1, q_2}`` with ``td(q_1) = td(q_2)``, adding the *first* occurrence of
    the missing ``q_2`` must raise the score more than adding one more occurrence of the present
    ``q_1``. Ours: ``d_i`` and ``d_j`` have close lengths and differ in exactly two query-term
    counts ``a, b`` with ``isclose(idf(a), idf(b), idf_margin)``: ``c(b,d_i) = 1, c(b,d_j) = 0``
    (``d_i`` covers the new term ``b``) and ``c(a,d_j) = c(a,d_i) + 1 >= 2`` (``d_j`` repeats
    ``a``). Then ``S(d_i) > S(d_j)``.
    """
    C = ctx.counts
    m = ctx.n_terms
    nb = rows.stop - rows.start
    out = np.zeros((nb, ctx.n), dtype=bool)
    if m < 2:
        return out
    D = C[rows, None, :] - C[None, :, :]
    two = (D != 0).sum(axis=-1) == 2
    idf = ctx.idf
    for a in range(m):
        for b in range(m):
            if a == b or not isclose(
                np.asarray(idf[a]), np.asarray(idf[b]), float(p["idf_margin"])
            ):
                continue
            cond = (
                (C[rows, None, b] == 1)
                & (C[None, :, b] == 0)
                & (C[None, :, a] == C[rows, None, a] + 1)
                & (C[rows, None, a] >= 1)
            )
            out |= cond
    return out & two


def orig(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""ORIG (Hagen et al. 2016; ir_axioms 1.2.5): the base ranking as an axiom, prefer the higher
    base score. Lets an aggregation fall back on the original ranker (needs ``scores=``)."""
    if ctx.scores is None:
        raise ValueError(
            "ORIG prefers the higher base score; build the context with scores "
            "(QueryContext.build(query, docs, index, scores=...))"
        )
    s = ctx.scores
    return s[rows, None] > s[None, :]


# ---------------------------------------------------------------------- TFC2 (triples)
def tfc2(
    ctx: QueryContext,
    variant: str,
    p: Mapping[str, Any],
    pairs_ok: Callable[[slice], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""TFC2 triples (Fang et al. 2004; Rennings 2019 eqs. 3.4-3.6).

    strict (3.4): ``q = {w}``, ``|d_1| = |d_2| = |d_3|``, ``c(w,d_1) > 0``,
    ``c(w,d_2) - c(w,d_1) = 1``, ``c(w,d_3) - c(w,d_2) = 1``.
    extended (3.5): the same for every ``w in q``.
    relaxed (3.6): lengths within ``delta`` (max pairwise difference; relative form: eq. 4.1 with
    the shortest and the longest document), ``S(d_k) > S(d_j) > S(d_i) > 0`` and the per-term
    equal count differences ``c(w,d_j) - c(w,d_i) = c(w,d_k) - c(w,d_j)`` for all ``w in q``.
    Then ``S(d_j) - S(d_i) > S(d_k) - S(d_j)``. Returns index arrays ``(i, j, k)``.

    Every condition but the length is a function of the three count rows, and candidate lists
    repeat count rows heavily: the triples are searched on the ``u`` *distinct* rows ``U`` (with
    ``U_a + U_c = 2 U_b`` found by a random linear hash ``h = U r`` and binary search in the sorted
    hashes, then verified exactly), and each distinct triple is expanded to its documents,
    dropping document pairs ``(i, j)`` that fail ``pairs_ok``. Output sorted by ``(i, j, k)``.

    The length precondition of the triple is the engine's; ``pairs_ok(rows)`` is the engine's
    necessary pairwise condition (``bool[len(rows), n]``), used only to prune ``(i, j)`` pairs.
    """
    empty = (np.zeros(0, np.int64),) * 3
    C = ctx.counts
    n, m = C.shape
    if m == 0 or n < 3 or (variant == "strict" and m != 1):
        return empty
    U, codes = count_codes(ctx)
    u = len(U)
    S = U.sum(axis=1)
    rng = np.random.default_rng(12345)
    r = np.asarray(rng.integers(1, 2**61, size=m, dtype=np.int64)) | 1
    with np.errstate(over="ignore"):
        h = np.asarray((U.astype(np.int64) * r[None, :]).sum(axis=1))
    order = np.argsort(h, kind="stable")
    hs = h[order]
    # distinct (a, b) with S_b > S_a > 0, their c with U_c = 2 U_b - U_a
    a, b = np.nonzero((S[:, None] > 0) & (S[None, :] > S[:, None]))
    with np.errstate(over="ignore"):
        target = 2 * h[b] - h[a]
    lo = np.searchsorted(hs, target, side="left")
    cnt = np.searchsorted(hs, target, side="right") - lo
    a, b, c = np.repeat(a, cnt), np.repeat(b, cnt), order[_ranges(np.repeat(lo, cnt), cnt)]
    exact = (U[a] + U[c] == 2 * U[b]).all(axis=1)
    a, b, c = a[exact], b[exact], c[exact]
    if variant in ("strict", "extended"):
        sel = (U[a] > 0).all(axis=1) & (U[b] - U[a] == 1).all(axis=1)
        a, b, c = a[sel], b[sel], c[sel]
    if len(a) == 0:
        return empty
    # documents of each distinct row: members[starts[g] : starts[g] + sizes[g]], ascending
    members = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=u)
    starts = np.cumsum(sizes) - sizes

    def expand(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # (index into g, document) for every document of every group in g
        cnt = sizes[g]
        return np.repeat(np.arange(len(g)), cnt), members[_ranges(np.repeat(starts[g], cnt), cnt)]

    t, i = expand(a)
    t2, j = expand(b[t])
    t, i = t[t2], i[t2]
    if pairs_ok is not None:
        keep = np.zeros(len(i), dtype=bool)
        for blk in row_blocks(n, n):
            inb = (i >= blk.start) & (i < blk.stop)
            keep[inb] = pairs_ok(blk)[i[inb] - blk.start, j[inb]]
        t, i, j = t[keep], i[keep], j[keep]
    t3, k = expand(c[t])
    i, j = i[t3], j[t3]
    srt = np.lexsort((k, j, i))
    return i[srt].astype(np.int64), j[srt].astype(np.int64), k[srt].astype(np.int64)


def _ranges(starts: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, cnt)])`` with ``starts`` already
    repeated ``cnt`` times (vectorized)."""
    total = int(cnt.sum())
    return starts + (np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt))

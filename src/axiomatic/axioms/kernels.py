"""Array kernels of the thesis axioms TFC1, TFC2, M-TDC and LNC2 (Rennings 2019, ch. 3).

Every pairwise kernel has the signature ``kernel(ctx, params, rows) -> bool[len(rows), n]``: entry
``[a, j]`` is True when the axiom's preconditions hold for the ordered pair ``(rows[a], j)``,
i.e. the axiom prescribes that document ``rows[a]`` ranks above (``>``) or not below (``>=``)
document ``j``. Row blocks keep memory at ``block x n x |q|`` for long candidate lists.
No per-pair Python: broadcasting over the block.

Notation: ``C`` is the ``n x |q|`` matrix ``c(w, d)`` over the unique query terms, ``L`` the
document lengths, ``S = C.sum(1)`` the query-term mass per document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext

#: elements of one broadcast block (rows x n x |q|); bounds kernel memory to ~64 MB of int64.
BLOCK_ELEMENTS = 8_000_000


def row_blocks(n: int, width: int) -> list[slice]:
    """Row slices such that ``len(slice) * width`` stays under :data:`BLOCK_ELEMENTS`."""
    step = max(1, BLOCK_ELEMENTS // max(width, 1))
    return [slice(s, min(s + step, n)) for s in range(0, n, step)] or [slice(0, 0)]


# ---------------------------------------------------------------------- length tolerance
def length_ok(
    len_a: np.ndarray, len_b: np.ndarray, delta: float | None, delta_rel: float | None
) -> np.ndarray:
    """Document-length closeness of every pair (broadcasts ``len_a`` against ``len_b``).

    Absolute (thesis step 2): ``|L_i - L_j| <= delta``. Relative (thesis eq. 4.1, after Hagen et
    al. 2016): ``|L_i - L_j| / max(L_i, L_j) <= delta_rel``, evaluated as that quotient (not as
    ``|L_i - L_j| <= delta_rel * max``, whose rounding rejects boundary pairs such as
    ``63 / 90 <= 0.7``); two empty documents have difference 0. When both are given both must
    hold; when neither is given every pair is close (no length precondition).
    """
    diff = np.abs(len_a - len_b)
    ok = np.ones(np.broadcast_shapes(np.shape(len_a), np.shape(len_b)), dtype=bool)
    if delta is not None:
        ok &= diff <= delta
    if delta_rel is not None:
        mx = np.maximum(len_a, len_b)
        rel = np.where(mx > 0, diff / np.where(mx > 0, mx, 1), 0.0)
        ok &= rel <= delta_rel
    return ok


def _len_block(ctx: QueryContext, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    L = ctx.doc_len
    return length_ok(L[rows, None], L[None, :], p.get("delta"), p.get("delta_rel"))


# ---------------------------------------------------------------------- TFC1
def tfc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TFC1 (Fang et al. 2004; Rennings 2019 eqs. 3.1-3.3).

    strict (3.1): ``q = {w}``, ``|d_i| = |d_j|``, ``c(w,d_i) > c(w,d_j)`` => ``S(d_i) > S(d_j)``.
    extended (3.2): ``|d_i| = |d_j|`` and ``c(w,d_i) > c(w,d_j)`` for all ``w in q``.
    relaxed (3.3): ``|d_i| ~ |d_j|`` (``delta`` / ``delta_rel``), ``c(w,d_i) >= c(w,d_j)`` for all
    ``w`` and ``sum_w c(w,d_i) > sum_w c(w,d_j)``.
    """
    C = ctx.counts
    if variant == "strict" and ctx.n_terms != 1:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    Ci = C[rows, None, :]
    Cj = C[None, :, :]
    if variant in ("strict", "extended"):
        cond = (Ci > Cj).all(axis=-1)
    else:
        S = ctx.qsum
        cond = (Ci >= Cj).all(axis=-1) & (S[rows, None] > S[None, :])
    return cond & _len_block(ctx, p, rows)


# ---------------------------------------------------------------------- M-TDC
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
    lens = _len_block(ctx, p, rows)
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
        return swap & cond & lens
    # only pairs with equal query-term mass and close lengths can qualify: test those alone
    S = ctx.qsum
    a, j = np.nonzero((S[rows, None] == S[None, :]) & lens)
    out = np.zeros((nb, ctx.n), dtype=bool)
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


# ---------------------------------------------------------------------- LNC2
def lnc2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""LNC2 (Fang et al. 2011; Rennings 2019 eqs. 3.10-3.12) on candidate pairs.

    ``d_i`` is ``d_j`` concatenated ``k > 1`` times: ``|d_i| = k |d_j|`` and
    ``c(w,d_i) = k c(w,d_j)`` for every term ``w`` of ``d_j`` (checked on full term vectors).
    strict (3.10): ``q = {w}`` and ``c(w,d_i) > 0``; extended (3.11): ``c(w,d_i) > 0`` for all
    ``w in q``; relaxed (3.12): ``sum_w c(w,d_i) > 0``. Then ``S(d_i) >= S(d_j)``.
    Real collections rarely hold such pairs; the miner adds artificial duplicates
    (:mod:`axiomatic.diagnose.artificial`).
    """
    n = ctx.n
    nb = rows.stop - rows.start
    out = np.zeros((nb, n), dtype=bool)
    if ctx.n_terms == 0 or (variant == "strict" and ctx.n_terms != 1):
        return out
    L = ctx.doc_len
    Li = L[rows, None]
    Lj = L[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        multiple = (Lj > 0) & (Li >= 2 * Lj) & (Li % np.maximum(Lj, 1) == 0)
    C = ctx.counts
    if variant == "relaxed":
        has = np.asarray(ctx.qsum[rows] > 0)
    else:
        has = np.asarray((C[rows] > 0).all(axis=1))
    multiple &= has[:, None]
    a, j = np.nonzero(multiple)
    if len(a) == 0:
        return out
    i = a + rows.start
    k = L[i] // L[j]
    ok = (C[i] == k[:, None] * C[j]).all(axis=1)
    a, i, j, k = a[ok], i[ok], j[ok], k[ok]
    if len(a) == 0:
        return out
    tf = ctx.full_tf()
    import scipy.sparse as sp

    diff = tf[i] - sp.diags(k.astype(np.int64), dtype=np.int64) @ tf[j]
    diff = sp.csr_matrix(diff)
    diff.eliminate_zeros()
    same = np.diff(diff.indptr) == 0
    out[a[same], j[same]] = True
    return out


# ---------------------------------------------------------------------- TFC2 (triples)
def _triple_lengths(ctx: QueryContext, p: Mapping[str, Any], i, j, k) -> np.ndarray:
    L = ctx.doc_len
    trip = np.stack([L[i], L[j], L[k]], axis=1)
    lo = trip.min(axis=1)
    hi = trip.max(axis=1)
    return length_ok(lo, hi, p.get("delta"), p.get("delta_rel"))


def tfc2(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], max_triples: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""TFC2 triples (Fang et al. 2004; Rennings 2019 eqs. 3.4-3.6).

    strict (3.4): ``q = {w}``, ``|d_1| = |d_2| = |d_3|``, ``c(w,d_1) > 0``,
    ``c(w,d_2) - c(w,d_1) = 1``, ``c(w,d_3) - c(w,d_2) = 1``.
    extended (3.5): the same for every ``w in q``.
    relaxed (3.6): lengths within ``delta`` (max pairwise difference; relative form: eq. 4.1 with
    the shortest and the longest document), ``S(d_k) > S(d_j) > S(d_i) > 0`` and the per-term
    equal count differences ``c(w,d_j) - c(w,d_i) = c(w,d_k) - c(w,d_j)`` for all ``w in q``.
    Then ``S(d_j) - S(d_i) > S(d_k) - S(d_j)``. Returns index arrays ``(i, j, k)``.

    Every variant implies ``C_i + C_k = 2 C_j`` per term, so triples are found without an
    ``n^3`` loop: a random linear hash ``h = C r`` turns the condition into
    ``h_k = 2 h_j - h_i``; for all ``(i, j)`` pairs at once the matching ``k`` are found by binary
    search in the sorted hashes, then verified exactly on the counts.
    """
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
    # pairwise (i, j) candidates: S_j > S_i > 0 and lengths close (a necessary condition)
    I_parts, J_parts, K_parts = [], [], []
    total = 0
    for blk in row_blocks(n, n):
        ii = np.arange(blk.start, blk.stop)
        ok = (S[ii, None] > 0) & (S[None, :] > S[ii, None])
        # only the absolute tolerance is a valid pairwise pre-filter (the relative one of a
        # triple is measured against the longest of the three documents)
        ok &= length_ok(ctx.doc_len[ii, None], ctx.doc_len[None, :], p.get("delta"), None)
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
        sel = _triple_lengths(ctx, p, rep_i, rep_j, rep_k)
        rep_i, rep_j, rep_k = rep_i[sel], rep_j[sel], rep_k[sel]
        I_parts.append(rep_i)
        J_parts.append(rep_j)
        K_parts.append(rep_k)
        total += len(rep_i)
        if max_triples is not None and total >= max_triples:
            break
    if not I_parts:
        return empty
    i, j, k = (np.concatenate(x) for x in (I_parts, J_parts, K_parts))
    if max_triples is not None and len(i) > max_triples:
        i, j, k = i[:max_triples], j[:max_triples], k[:max_triples]
    return i, j, k

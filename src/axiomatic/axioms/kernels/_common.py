"""Shared primitives of the kernels: the length tolerance, row blocks and small broadcasts.

Kept apart from the family modules and from the engine so that both can use them without an
import cycle (the engine applies :func:`length_ok`; kernels only ever use it as a pre-filter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from axiomatic.axioms.kernels import _jit

if TYPE_CHECKING:  # the context computes its length matrix with length_ok below
    from axiomatic.axioms.context import QueryContext

#: elements of one broadcast block (rows x n x |q|); bounds kernel memory to ~64 MB of int64.
BLOCK_ELEMENTS = 8_000_000


def row_blocks(n: int, width: int) -> list[slice]:
    """Row slices such that ``len(slice) * width`` stays under :data:`BLOCK_ELEMENTS`."""
    step = max(1, BLOCK_ELEMENTS // max(width, 1))
    return [slice(s, min(s + step, n)) for s in range(0, n, step)] or [slice(0, 0)]


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


def lengths_close(L: np.ndarray, delta: float | None, delta_rel: float | None) -> np.ndarray:
    r"""``length_ok(L[:, None], L[None, :], delta, delta_rel)`` for the ``n`` candidate lengths,
    bit for bit, in two ``n x n`` operations.

    For a fixed longer length ``a`` both tests are monotone in the difference ``k`` (``k <=
    delta``; ``fl(k / a) <= delta_rel``, rounding being monotone), so document ``i`` as the
    longer one admits every difference up to some ``T_i`` and a pair is close iff the shorter
    length is at least ``B_i = L_i - T_i``: ``G_ij = L_j >= B_i`` and ``close = G & G.T`` (for
    ``L_i >= L_j`` the test of ``j`` holds by itself: ``B_j <= L_j <= L_i``). ``T`` comes from
    the estimate ``floor(delta_rel * a)``, moved up or down by the exact quotient test and then
    checked exactly (``T`` passes, ``T + 1`` fails). Integer lengths below 2^52 and non-negative
    tolerances; anything else, or a check that fails, takes the distinct-length evaluation.

    Where compiled kernels are loaded, :func:`~axiomatic.axioms.kernels._jit.close_pairs`
    computes the same thresholds and the comparison in one pass (at a hundred candidates the
    dozen numpy calls below cost more than the work).
    """
    n = len(L)
    if delta is None and delta_rel is None:
        return np.ones((n, n), dtype=bool)
    if n == 0 or L.dtype.kind not in "iu":
        return _lengths_close_distinct(L, delta, delta_rel)
    fn = _jit.loaded_kernel("close_pairs")
    if fn is not None:
        out = np.empty((n, n), dtype=bool)
        d = float(delta) if delta is not None else 0.0
        r = float(delta_rel) if delta_rel is not None else 0.0
        if fn(L.astype(np.int64), d, r, delta is not None, delta_rel is not None, out):
            return out
        return _lengths_close_distinct(L, delta, delta_rel)
    if not (L.min() >= 0 and L.max() < 2**52):
        return _lengths_close_distinct(L, delta, delta_rel)
    T = L.astype(np.int64)  # no difference exceeds the longer length
    if delta is not None:
        d = float(delta)
        if not d >= 0:  # negative or NaN: no pair passes, as length_ok says
            return _lengths_close_distinct(L, delta, delta_rel)
        if d < L.max():
            T = np.minimum(T, int(np.floor(d)))  # integer k <= d  <=>  k <= floor(d)
    if delta_rel is not None:
        r = float(delta_rel)
        if not r >= 0:
            return _lengths_close_distinct(L, delta, delta_rel)
        if r < 1:  # r >= 1 admits every k <= a
            a = L.astype(np.float64)
            safe = np.where(a > 0, a, 1.0)  # a = 0: k = 0, quotient 0 (length_ok's 0.0)
            k = np.floor(r * a)  # off by at most one from the exact threshold (a < 2^52)
            k += (k + 1) / safe <= r
            k -= k / safe > r
            if not ((k >= 0) & (k / safe <= r) & ((k >= a) | ((k + 1) / safe > r))).all():
                return _lengths_close_distinct(L, delta, delta_rel)
            T = np.minimum(T, k.astype(np.int64))
    B = L - T
    G = L[None, :] >= B[:, None]
    return G & G.T


def _lengths_close_distinct(
    L: np.ndarray, delta: float | None, delta_rel: float | None
) -> np.ndarray:
    """:func:`length_ok` on the distinct lengths, gathered to ``n x n``."""
    Lu, inv = np.unique(L, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    return np.asarray(length_ok(Lu[:, None], Lu[None, :], delta, delta_rel)[inv][:, inv])


def isclose(a: np.ndarray, b: np.ndarray, rel: float) -> np.ndarray:
    """``math.isclose(a, b, rel_tol=rel)`` broadcast (abs_tol 0)."""
    return np.abs(a - b) <= rel * np.maximum(np.abs(a), np.abs(b))


def wins(score: np.ndarray, rows: slice) -> np.ndarray:
    """``score[row] > score[col]`` as a bool block (the row document wins)."""
    return score[rows, None] > score[None, :]


def count_codes(ctx: QueryContext) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows ``U`` of the ``n x |q|`` count matrix and each document's row in ``U``
    (``counts == U[codes]``), computed once per context.

    Candidate lists repeat count rows heavily (most documents hold each query term 0, 1 or 2
    times), so a condition that depends on the count rows alone is evaluated on the ``u x u``
    distinct pairs and gathered to ``n x n`` (``M[codes[rows]][:, codes]``): the same values as
    evaluating every document pair, at a fraction of the work.
    """

    def compute() -> tuple[np.ndarray, np.ndarray]:
        C = ctx.counts
        if C.shape[1] == 0:
            return C[:1], np.zeros(len(C), dtype=np.int64)
        return unique_rows(C)

    return ctx.cache("count_codes", compute)


def presence_codes(ctx: QueryContext) -> tuple[np.ndarray, np.ndarray]:
    """:func:`count_codes` of the presence matrix (which query terms each document holds): at
    most ``2^|q|`` distinct rows."""

    def compute() -> tuple[np.ndarray, np.ndarray]:
        P = present(ctx)
        if P.shape[1] == 0:
            return P[:1], np.zeros(len(P), dtype=np.int64)
        return unique_rows(P)

    return ctx.cache("presence_codes", compute)


def unique_rows(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(M, axis=0, return_inverse=True)`` for a non-negative integer or boolean
    matrix, as ``(U, codes)`` with ``codes`` int64: the same rows in the same (lexicographic)
    order and the same codes.

    Each row is packed into one int64 key in mixed radix (column ``k`` has digit base
    ``max(M[:, k]) + 1``, the first column most significant), whose numeric order is the rows'
    lexicographic order, so a 1-d ``np.unique`` of the keys replaces the row-wise one (which
    sorts a structured view: ~20x slower on 1,000 x 6 counts). Matrices whose keys could
    overflow, or with negative entries, take ``np.unique(axis=0)`` itself.
    """
    n, m = M.shape
    if n and m:
        X = M.astype(np.int64, copy=False)
        top = X.max(axis=0)
        if int(X.min()) >= 0:
            base = [int(b) + 1 for b in top]
            weights = [1] * m
            total = 1
            for k in range(m - 1, -1, -1):
                weights[k] = total
                total *= base[k]
            if total < 2**62:  # every key (< total) fits an int64
                key = X @ np.asarray(weights, dtype=np.int64)
                # np.unique(key, return_index=True, return_inverse=True) without its
                # generality (a stable sort, so ``first`` is each key's first occurrence)
                order = np.argsort(key, kind="stable")
                ks = key[order]
                new = run_starts(ks)
                codes = np.empty(n, dtype=np.int64)
                codes[order] = np.cumsum(new) - 1
                return M[order[new]], codes
    U, codes = np.unique(M, axis=0, return_inverse=True)
    return U, np.asarray(codes, dtype=np.int64).reshape(-1)


def run_starts(a: np.ndarray) -> np.ndarray:
    """``bool[len(a)]``: where a run of equal values of a non-empty array starts (the first
    element, and every element that differs from its predecessor)."""
    lead = np.empty(len(a), dtype=bool)
    lead[0] = True
    np.not_equal(a[1:], a[:-1], out=lead[1:])
    return lead


def gather(M: np.ndarray, codes: np.ndarray, rows: slice) -> np.ndarray:
    """``bool[len(rows), n]`` from a matrix ``M`` over distinct rows: ``M[codes[rows]][:, codes]``."""
    return np.asarray(M[codes[rows]][:, codes])


def all_terms(U: np.ndarray, op: Any) -> np.ndarray:
    """``op(U[a, w], U[b, w])`` for every term ``w``, and-ed: ``u x u`` by one ``u x u`` operation
    per query term (no ``u x u x |q|`` temporary)."""
    u = len(U)
    out = np.ones((u, u), dtype=bool)
    for w in range(U.shape[1]):
        out &= op(U[:, None, w], U[None, :, w])
    return out


def present(ctx: QueryContext) -> np.ndarray:
    """``n x |q|``: the document contains the query term."""
    return ctx.cache("present", lambda: ctx.counts > 0)


# ---------------------------------------------------------------------- preference matrices
# Helpers of the ``preferences_kernel`` forms (see ``PairAxiomDef``): the whole ``int8[n, n]``
# matrix ``holds - holds.T`` in one compiled pass, for kernels whose ``holds`` is a comparison of
# per-document values under a symmetric mask. Without compiled kernels they return None: the
# axiom declines and the engine evaluates its kernel (the numpy form, the reference).

_EVERY_PAIR = np.ones((0, 0), dtype=bool)  # the compiled kernels' "no length precondition"
_ONE_CODE = np.ones((1, 1), dtype=bool)


def close_argument(close: np.ndarray | None, n: int) -> np.ndarray:
    if close is None:
        return _EVERY_PAIR
    if close.shape != (n, n):
        raise ValueError(f"length closeness must be {n} x {n} (got {close.shape})")
    return np.ascontiguousarray(close, dtype=bool)


def sign_preferences(
    f1: np.ndarray,
    close: np.ndarray | None,
    f2: np.ndarray | None = None,
    codes: np.ndarray | None = None,
    mask: np.ndarray | None = None,
) -> np.ndarray | None:
    """``holds - holds.T`` as ``int8[n, n]`` for ``holds[i, j] = mask[codes[i], codes[j]] &
    close[i, j] & ((f1_i, f2_i) > (f1_j, f2_j))`` (lexicographic; without ``f2`` simply ``f1_i
    > f1_j``, i.e. :func:`wins`), by the compiled ``sign_pairs``; None when compiled kernels are
    off. ``mask`` (``bool[u, u]``, default every pair) and ``close`` (``bool[n, n]`` or None)
    must be symmetric. Values are compared as float64 (exact for the integers compared here).
    """
    fn = _jit.kernel("sign_pairs")
    if fn is None:
        return None
    n = len(f1)
    a = np.ascontiguousarray(f1, dtype=np.float64)
    b = np.zeros(n) if f2 is None else np.ascontiguousarray(f2, dtype=np.float64)
    if codes is None:
        c, m = np.zeros(n, dtype=np.int64), _ONE_CODE
    else:
        c = np.ascontiguousarray(codes, dtype=np.int64)
        m = np.ascontiguousarray(mask, dtype=bool)
    out = np.zeros((n, n), dtype=np.int8)
    fn(a, b, c, m, close_argument(close, n), out)
    return out


def group_preferences(
    f1: np.ndarray, key: np.ndarray, close: np.ndarray | None, f2: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`sign_preferences` under the mask "the same ``key`` and ``key >= 0``" (int64 per
    document), by the compiled ``group_sign_pairs``: only pairs of a group are visited and no
    distinct rows are needed; None when compiled kernels are off."""
    fn = _jit.kernel("group_sign_pairs")
    if fn is None:
        return None
    n = len(f1)
    a = np.ascontiguousarray(f1, dtype=np.float64)
    b = np.zeros(n) if f2 is None else np.ascontiguousarray(f2, dtype=np.float64)
    out = np.zeros((n, n), dtype=np.int8)
    fn(a, b, np.ascontiguousarray(key, dtype=np.int64), close_argument(close, n), out)
    return out


def coded_preferences(
    cond: np.ndarray, codes: np.ndarray, close: np.ndarray | None
) -> np.ndarray | None:
    """``holds - holds.T`` as ``int8[n, n]`` for ``holds = gather(cond, codes) & close``: a
    condition over distinct rows (``bool[u, u]``, see :func:`count_codes`) made antisymmetric
    on the ``u x u`` rows and gathered to the documents by the compiled ``coded_pairs``; None
    when compiled kernels are off. ``close`` (``bool[n, n]`` or None) must be symmetric."""
    fn = _jit.kernel("coded_pairs")
    if fn is None:
        return None
    cond = np.asarray(cond, dtype=bool)
    pref = np.ascontiguousarray(cond.view(np.int8) - cond.T.view(np.int8))
    n = len(codes)
    out = np.empty((n, n), dtype=np.int8)
    fn(pref, np.ascontiguousarray(codes, dtype=np.int64), close_argument(close, n), out)
    return out

"""Length-normalisation kernels: LNC1, LNC2 and TF-LNC (see :mod:`.term_frequency` for the
kernel contract)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels import _jit
from axiomatic.axioms.kernels._common import (
    all_terms,
    close_argument,
    count_codes,
    gather,
    isclose,
    sign_preferences,
    wins,
)


def lnc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""LNC1 (Fang et al. 2004; ir_axioms 1.2.5): if every query term's count is close
    (``isclose(c(w,d_i), c(w,d_j), margin)``), prefer the shorter document."""
    codes, close = _lnc1_close_counts(ctx, float(p["margin"]))
    return gather(close, codes, rows) & wins(-ctx.doc_len.astype(np.float64), rows)


def _lnc1_close_counts(ctx: QueryContext, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, close)``: every query term's count close, over the distinct count rows
    (symmetric: ``isclose`` is)."""
    U, codes = count_codes(ctx)
    return codes, all_terms(U.astype(np.float64), lambda a, b: isclose(a, b, margin))


def lnc1_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`lnc1` as one compiled pass (None without compiled kernels)."""
    codes, counts_close = _lnc1_close_counts(ctx, float(p["margin"]))
    return sign_preferences(-ctx.doc_len.astype(np.float64), close, None, codes, counts_close)


def tf_lnc(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TF-LNC (Fang et al. 2004; ir_axioms 1.2.5): per query term ``w``, if the documents have
    equal length without ``w`` (``|d| - c(w,d)``), the one with more ``w`` earns a point;
    prefer more points."""
    # Equal rest (|d_i| - c(w,d_i) = |d_j| - c(w,d_j)) means c(w,d_i) - c(w,d_j) = |d_i| - |d_j|:
    # every term with equal rest points the same way, to the longer document. So d_i earns more
    # points exactly when |d_i| > |d_j| and some term has equal rest: one n x n test per term
    # instead of three n x n x |q| temporaries.
    C = ctx.counts
    L = ctx.doc_len
    rest = L[:, None] - C
    some_eq = np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    for w in range(ctx.n_terms):
        some_eq |= rest[rows, w, None] == rest[None, :, w]
    return some_eq & (L[rows, None] > L[None, :])


def tf_lnc_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    """:func:`tf_lnc` as one compiled pass over the unordered pairs (equal rest is symmetric,
    so the preference is ``sign(L_i - L_j)`` where some term has it); None without compiled
    kernels."""
    fn = _jit.kernel("tf_lnc_pairs")
    if fn is None:
        return None
    n = ctx.n
    out = np.zeros((n, n), dtype=np.int8)
    L = np.ascontiguousarray(ctx.doc_len, dtype=np.int64)
    fn(L, np.ascontiguousarray(ctx.counts, dtype=np.int64), close_argument(close, n), out)
    return out


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

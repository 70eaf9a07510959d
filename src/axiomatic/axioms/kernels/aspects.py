"""Query-aspect kernels: AND, M-AND and DIV (their LEN- forms are the same kernels with the
engine's length precondition; see :mod:`.term_frequency` for the kernel contract)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels import _jit
from axiomatic.axioms.kernels._common import close_argument, coded_preferences, present, wins


def and_(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""AND (Zheng & Fang 2010 via ir_axioms 1.2.5): prefer the document that contains every
    query term over one that does not."""
    return wins(_all_terms(ctx), rows)


def _all_terms(ctx: QueryContext) -> np.ndarray:
    return np.asarray(present(ctx).all(axis=1), dtype=np.int8)


def m_and(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""M-AND (ir_axioms 1.2.5): prefer the document containing more distinct query terms."""
    return wins(_distinct_terms(ctx), rows)


def _distinct_terms(ctx: QueryContext) -> np.ndarray:
    return ctx.cache("distinct_terms", lambda: present(ctx).sum(axis=1))


def div(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""DIV (Gollapudi & Sharma 2009 via ir_axioms 1.2.5): prefer the document whose vocabulary
    overlaps the query less (Jaccard ``|Q & D| / |Q | D|``), i.e. covers more beyond it."""
    return wins(-_jaccard(ctx), rows)


def _jaccard(ctx: QueryContext) -> np.ndarray:
    k = _distinct_terms(ctx).astype(np.float64)
    V = ctx.doc_vocab_sizes().astype(np.float64)
    union = ctx.n_terms + V - k
    return np.where(k > 0, k / np.where(union > 0, union, 1.0), 0.0)


# ---------------------------------------------------------------------- preference matrices
# the same comparisons as the kernels above, as one compiled pass (``PairAxiomDef``'s
# ``preferences_kernel``; None without compiled kernels: the engine evaluates the kernel)
def and_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    # the value (0 or 1) is the document's code: the comparison of the two values, gathered
    return coded_preferences(_ORDER[:2, :2], _all_terms(ctx), close)


def m_and_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    # the value (0 ... |q|) is the document's code
    k = _distinct_terms(ctx)
    u = ctx.n_terms + 1
    order = _ORDER[:u, :u] if u <= len(_ORDER) else np.greater.outer(np.arange(u), np.arange(u))
    return coded_preferences(order, k, close)


#: ``a > b`` for small integers ``a, b`` (their comparison matrix)
_ORDER = np.greater.outer(np.arange(64), np.arange(64))


def div_preferences(
    ctx: QueryContext, variant: str, p: Mapping[str, Any], close: np.ndarray | None = None
) -> np.ndarray | None:
    # the overlap and the comparisons in one compiled pass (_jit.div_pairs: the float
    # operations of _jaccard)
    fn = _jit.kernel("div_pairs")
    if fn is None:
        return None
    n = ctx.n
    out = np.zeros((n, n), dtype=np.int8)
    C = np.ascontiguousarray(ctx.counts, dtype=np.int64)
    V = np.ascontiguousarray(ctx.doc_vocab_sizes(), dtype=np.int64)
    fn(C, V, close_argument(close, n), out)
    return out

"""The axiom engine: kernels -> preconditions, preferences and instances.

The engine is the only place that turns a catalogue definition into results, so every rule that
holds for all axioms lives here once:

- the length precondition comes from the definition (``AxiomDef.length``) and the axiom's
  ``delta`` / ``delta_rel``; the pairwise closeness matrix is computed once per context and
  tolerance (:meth:`QueryContext.length_close`) and shared by every axiom on that context;
- a document is never compared with itself (the diagonal is cleared);
- preferences are ``holds - holds.T`` (no preference where the preconditions hold both ways);
- instances list a pair that holds both ways once (``i < j``) and flag it as symmetric, and a
  cap keeps a seeded uniform sample.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from axiomatic.axioms.catalogue import (
    DOCUMENTS,
    AxiomDef,
    PairAxiomDef,
    TripleAxiomDef,
    relates_phrase,
)
from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels._common import length_ok, row_blocks

if TYPE_CHECKING:
    from axiomatic.axioms.spec import Axiom


class Instances(NamedTuple):
    """Index arrays of the tuples where an axiom's preconditions hold.

    ``i`` should rank above ``j`` (pairs); for triples (TFC2) ``k`` is the third document and
    the relation is ``S(j) - S(i) > S(k) - S(j)``.
    """

    i: np.ndarray
    j: np.ndarray
    k: np.ndarray | None
    relation: str
    symmetric: np.ndarray | None = None
    """``bool`` per tuple: the preconditions also hold for ``(j, i)``, so the axiom asks for
    ``S(i) >= S(j)`` *and* ``S(j) >= S(i)``, i.e. equal scores (``None``: none is)."""


#: candidate pairs up to which the length-closeness matrix is cached on the context (64 MB)
_CACHED_PAIRS = 1 << 26


def _tolerance(d: AxiomDef, params: dict[str, Any]) -> tuple[float | None, float | None] | None:
    """``(delta, delta_rel)`` when the definition applies a length precondition, else None."""
    if not d.length:
        return None
    delta, delta_rel = params.get("delta"), params.get("delta_rel")
    if delta is None and delta_rel is None:
        return None
    return delta, delta_rel


def _document_def(axiom: Axiom) -> AxiomDef:
    """The definition of an axiom that relates documents (this engine's kind), else a
    ``ValueError`` saying where the query-pair axioms are computed."""
    d = axiom.definition
    if d.relates != DOCUMENTS:
        raise ValueError(
            f"{axiom.name} relates {relates_phrase(d.relates, d.arity)} (ARES), not documents: "
            "compute it with axiomatic.axioms.query_pairs.pair_preferences on a "
            "QueryPairContext"
        )
    return d


def _pair_kernel(axiom: Axiom) -> PairAxiomDef:
    d = _document_def(axiom)
    if not isinstance(d, PairAxiomDef):
        raise TypeError(
            f"{axiom.name} is a triple axiom: use .instances(ctx) for its (i, j, k) triples"
        )
    return d


def holds_rows(axiom: Axiom, ctx: QueryContext, rows: slice) -> np.ndarray:
    """``bool[len(rows), n]``: preconditions (length included) for the pairs ``(rows, :)``.

    The diagonal is *not* cleared here (callers comparing an extended context's new rows with
    the old ones, such as the artificial LNC2 duplicates, have no diagonal in the block).
    """
    d = _pair_kernel(axiom)
    p = dict(axiom.params)
    out = np.asarray(d.kernel(ctx, axiom.variant, p, rows), dtype=bool)
    tol = _tolerance(d, p)
    if tol is not None:
        out = out & ctx.length_close(*tol)[rows]
    return out


def holds(axiom: Axiom, ctx: QueryContext) -> np.ndarray:
    """``bool[n, n]``: preconditions hold for ordered pair ``(i, j)`` (i should rank higher)."""
    d = _pair_kernel(axiom)
    n = ctx.n
    out = np.zeros((n, n), dtype=bool)
    if n == 0 or ctx.n_terms == 0:
        return out
    p = dict(axiom.params)
    tol = _tolerance(d, p)
    close = ctx.length_close(*tol) if tol is not None and n * n <= _CACHED_PAIRS else None
    L = ctx.doc_len
    for blk in row_blocks(n, n * max(ctx.n_terms, 1)):
        block = d.kernel(ctx, axiom.variant, p, blk)
        if close is not None:
            block = block & close[blk]
        elif tol is not None:  # very long candidate lists: per block, not cached
            block = block & length_ok(L[blk, None], L[None, :], *tol)
        out[blk] = block
    np.fill_diagonal(out, False)
    return out


def preferences(axiom: Axiom, ctx: QueryContext) -> np.ndarray:
    """``int8[n, n]``: +1 row doc should rank above column doc, -1 below, 0 none.

    Antisymmetric by construction (``P - P.T``): where the preconditions hold in both
    directions (possible for ``>=`` axioms) there is no preference. (The laws in
    ``tests/axioms/test_laws.py`` constrain the kernels, which this construction cannot.)

    A definition's ``preferences_kernel``, where it has one and does not decline, gives the
    same matrix directly. The length precondition is symmetric (``|L_i - L_j|`` and
    ``max(L_i, L_j)`` are), so it masks the preferences as it masks ``holds``: the kernel gets
    the cached closeness matrix and applies it (``close * (holds - holds.T)``).
    """
    d = _pair_kernel(axiom)
    fast = d.preferences_kernel
    if fast is not None and ctx.n and ctx.n_terms:
        p = dict(axiom.params)
        tol = _tolerance(d, p)
        if tol is None:
            out = fast(ctx, axiom.variant, p)
        elif ctx.n * ctx.n <= _CACHED_PAIRS:
            out = fast(ctx, axiom.variant, p, ctx.length_close(*tol))
        else:
            out = None
        if out is not None:
            return out
    P = holds(axiom, ctx)
    return P.astype(np.int8) - P.T.astype(np.int8)


def _triples(axiom: Axiom, ctx: QueryContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = _document_def(axiom)
    if not isinstance(d, TripleAxiomDef):
        raise TypeError(f"{axiom.name} is a pair axiom: use holds/preferences for its pairs")
    p = dict(axiom.params)
    tol = _tolerance(d, p)
    pairs_ok = None
    if tol is not None and (tol[0] is not None or tol[1] is not None):
        # both tolerances are valid pairwise pre-filters: a pair (lo, hi) inside a triple
        # (L_min, L_max) has hi - lo <= L_max - L_min and, relatively, 1 - lo / hi <=
        # 1 - L_min / L_max (lo >= L_min, hi <= L_max); the division is correctly rounded, so
        # monotone, and the computed quotients keep that order. The triple test follows below.
        close = ctx.length_close(*tol)

        def pairs_ok(rows: slice) -> np.ndarray:
            return close[rows]

    i, j, k = d.kernel(ctx, axiom.variant, p, pairs_ok)
    if tol is not None and len(i):
        L = ctx.doc_len
        trip = np.stack([L[i], L[j], L[k]], axis=1)
        keep = length_ok(trip.min(axis=1), trip.max(axis=1), *tol)
        i, j, k = i[keep], j[keep], k[keep]
    return i, j, k


def instances(
    axiom: Axiom, ctx: QueryContext, max_instances: int | None = None, seed: Any = 0
) -> Instances:
    """Tuples where the preconditions hold (the rows of a diagnostic dataset).

    Pairs: ``(i, j)`` with ``holds[i, j]``; a pair that holds in both directions (a ``>=``
    axiom on two documents it cannot tell apart, e.g. M-TDC on two terms of equal idf) is
    listed once, as ``i < j``, like the thesis counts it (Table 3.7), and flagged in
    ``symmetric``: the axiom then prescribes equal scores, not an order.

    ``max_instances`` keeps a seeded uniform sample (candidate order preserved), never the
    first ones: candidate lists are ranked, so a prefix favours the top documents and biases
    every fulfilment measured on it.
    """
    d = _document_def(axiom)
    if isinstance(d, TripleAxiomDef):
        i, j, k = _triples(axiom, ctx)
        keep = uniform_sample(len(i), max_instances, seed)
        return Instances(i[keep], j[keep], k[keep], d.relation, np.zeros(len(keep), bool))
    P = holds(axiom, ctx)
    n = ctx.n
    keep = P & (~P.T | np.triu(np.ones((n, n), dtype=bool), 1))
    i, j = np.nonzero(keep)
    sym = P[j, i]
    sel = uniform_sample(len(i), max_instances, seed)
    return Instances(i[sel].astype(np.int64), j[sel].astype(np.int64), None, d.relation, sym[sel])


def uniform_sample(m: int, cap: int | None, seed: Any) -> np.ndarray:
    """Sorted indices of a uniform sample of ``min(m, cap)`` of ``range(m)`` (all when uncapped).

    ``seed`` is anything :func:`numpy.random.default_rng` takes (an int, a sequence of ints).
    """
    if cap is None or m <= cap:
        return np.arange(m)
    if cap < 0:
        raise ValueError(f"max_instances must be >= 0 (got {cap})")
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(m, size=int(cap), replace=False))

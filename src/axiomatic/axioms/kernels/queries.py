"""Kernels of the query-pair family (ARES, Chen et al. 2022, Table 1): two queries, one document.

A query-pair kernel (:class:`~axiomatic.axioms.catalogue.QueryPairKernel`) gives the eq.-9
preference of query ``i[k]`` over query ``j[k]`` for their shared document; the per-query
scores it compares are the context's (:class:`~axiomatic.axioms.query_pairs.QueryPairContext`,
cached per axiom spec). The definitions with their citations live in
:mod:`axiomatic.axioms.catalogue`; this module imports nothing of the package (the context is
used through its methods only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["check_params", "compare", "compare_scores", "stm2"]


def check_params(name: str, params: Mapping[str, Any]) -> None:
    """Every query-pair parameter is a number >= 0; Q-RANK's depth a positive integer."""
    for key, v in params.items():
        if v < 0:
            raise ValueError(f"{name}: parameter {key} must be >= 0 (got {v!r})")
    depth = params.get("depth")
    if depth is not None and (int(depth) != depth or depth < 1):
        raise ValueError(f"{name}: depth must be a positive integer (got {depth!r})")


def compare(a: np.ndarray, b: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """+1 where ``a`` is better, -1 where ``b`` is, 0 for equal or undefined (NaN)."""
    with np.errstate(invalid="ignore"):  # inf - inf (equal infinities) is NaN, as is NaN - x
        s = np.sign(a - b) if higher_is_better else np.sign(b - a)
    return np.where(np.isnan(s), 0.0, s).astype(np.int8)


def compare_scores(ctx: Any, axiom: Any, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Eq. 9 from the axiom's per-query score (``QueryPairContext.score_<score>``): +1 where
    query ``i[k]`` scores better (higher or lower, as the definition's ``higher_is_better``
    says), -1 where ``j[k]`` does, 0 for equal or undefined (NaN) scores."""
    s = ctx.scores(axiom)
    return compare(s[i], s[j], bool(axiom.definition.higher_is_better))


def stm2(ctx: Any, axiom: Any, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Q-STM-2: where the Q-STM-1 similarities of the two queries differ by less than
    ``threshold``, prefer the query with more of its terms in d; elsewhere no preference."""
    s1 = ctx.scores("Q-STM-1")
    close = np.abs(s1[i] - s1[j]) < axiom.param("threshold")
    n = ctx.scores(axiom)
    return np.where(close, compare(n[i], n[j], True), 0).astype(np.int8)

"""The query-pair kernels' comparison and parameter checks against hand-written values
(`make mutate` survivors of axioms/kernels/queries.py)."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.axioms.kernels.queries import check_params, compare

INF = np.inf


def test_compare_signs_with_ties_infinities_and_nan() -> None:
    a = np.array([2.0, 1.0, 1.0, INF, -INF, INF, np.nan, 3.0])
    b = np.array([1.0, 2.0, 1.0, INF, -INF, 5.0, 1.0, -INF])
    got = compare(a, b, True)
    # higher wins; equal, equal infinities and NaN give no preference
    assert got.tolist() == [1, -1, 0, 0, 0, 1, 0, 1]
    assert got.dtype == np.int8
    assert compare(a, b, False).tolist() == [-1, 1, 0, 0, 0, -1, 0, -1]


@pytest.mark.parametrize("depth", [2.5, 0, -1])
def test_depth_must_be_a_positive_integer(depth: float) -> None:
    with pytest.raises(ValueError, match=r"^Q-RANK: (depth must be a positive integer|parameter)"):
        check_params("Q-RANK", {"depth": depth})
    check_params("Q-RANK", {"depth": 50, "k1": 0.9})  # a valid one passes

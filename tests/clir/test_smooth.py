"""Smooth cosine similarity (eq. 1) and the graded losses (eq. 2 + baselines): laws from the paper's
appendix checked with hypothesis."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from axiomatic.models.similarity import smooth_cosine, smooth_cosine_grad_bound
from axiomatic.training.smooth import (
    SOSL,
    GradedMSE,
    ProportionalOdds,
    ThreePartL2,
    parse_graded_loss,
    predict_grades,
    validate_thresholds,
)

floats = st.floats(-1e3, 1e3, allow_nan=False, width=64)
tiny = st.floats(-1e-6, 1e-6, allow_nan=False, width=64)
vec = st.integers(1, 8).flatmap(
    lambda p: st.tuples(
        st.lists(floats, min_size=p, max_size=p), st.lists(floats, min_size=p, max_size=p)
    )
)
eps_st = st.floats(1e-3, 3.0)


def _grad(x: torch.Tensor, z: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    x = x.clone().requires_grad_(True)
    r = smooth_cosine(x, z, eps)
    (g,) = torch.autograd.grad(r, x)
    return r.detach(), g


@settings(max_examples=200, deadline=None)
@given(vec, eps_st)
def test_smooth_cosine_in_range_and_gradient_bounded(xz, eps) -> None:
    x, z = (torch.tensor(v, dtype=torch.float64) for v in xz)
    r, g = _grad(x, z, eps)
    assert -1.0 <= float(r) <= 1.0
    assert torch.isfinite(g).all()
    # appendix A.1: ||grad_x r|| <= 2 / (||x|| + eps) <= 2 / eps
    bound = smooth_cosine_grad_bound(torch.linalg.vector_norm(x), eps)
    assert float(torch.linalg.vector_norm(g)) <= float(bound) * (1 + 1e-9) + 1e-12
    assert float(bound) <= 2 / eps + 1e-12


@settings(max_examples=100, deadline=None)
@given(st.lists(tiny, min_size=2, max_size=6), eps_st)
def test_smooth_cosine_finite_near_zero_norm(xs, eps) -> None:
    x = torch.tensor(xs, dtype=torch.float64)
    z = torch.ones_like(x)
    r, g = _grad(x, z, eps)
    assert math.isfinite(float(r)) and torch.isfinite(g).all()
    assert float(torch.linalg.vector_norm(g)) <= 2 / eps + 1e-9


def test_eps_zero_is_cosine_and_explodes_near_zero() -> None:
    x = torch.tensor([3.0, -1.0, 2.0], dtype=torch.float64)
    z = torch.tensor([0.5, 2.0, 1.0], dtype=torch.float64)
    assert torch.allclose(smooth_cosine(x, z, 0.0), torch.nn.functional.cosine_similarity(x, z, 0))
    _, g_small = _grad(x * 1e-6, z, 0.0)
    _, g_smooth = _grad(x * 1e-6, z, 0.5)
    assert float(g_small.norm()) > 1e5  # the exploding gradient eps > 0 removes
    assert float(g_smooth.norm()) <= 4.0
    assert float(smooth_cosine(torch.zeros(3), torch.ones(3), 0.0)) == 0.0  # no NaN at 0


def test_smooth_cosine_rejects_negative_eps() -> None:
    with pytest.raises(ValueError, match="eps must be"):
        smooth_cosine(torch.ones(2), torch.ones(2), -0.1)


# ---------------------------------------------------------------------- SOSL
@settings(max_examples=200, deadline=None)
@given(st.floats(-1, 1), st.integers(0, 2))
def test_sosl_zero_inside_segment_and_gradient_bound(r, y) -> None:
    loss = SOSL((0.2, 0.7))
    b = [-1.0, 0.2, 0.7, 1.0]
    rt = torch.tensor([r], dtype=torch.float64, requires_grad=True)
    v = loss.per_example(rt, torch.tensor([y]))
    (g,) = torch.autograd.grad(v.sum(), rt)
    if b[y] <= r <= b[y + 1]:
        assert float(v.detach()) == 0.0 and float(g) == 0.0
    else:
        assert float(v.detach()) > 0.0
    # Proposition 1: |dSOSL/dr| <= max(2|1+theta_y|, 2|1-theta_{y+1}|) <= 4 on [-1, 1]
    assert abs(float(g)) <= float(loss.grad_bound(torch.tensor([y]))[0]) + 1e-12 <= 4.0 + 1e-12


def test_sosl_values_by_hand() -> None:
    loss = SOSL((0.2, 0.7))
    r = torch.tensor([0.9, 0.5, -0.5, 0.1, 0.95])
    y = torch.tensor([1, 1, 1, 2, 2])
    expected = [(0.9 - 0.7) ** 2, 0.0, (0.2 + 0.5) ** 2, (0.7 - 0.1) ** 2, 0.0]
    assert torch.allclose(loss.per_example(r, y), torch.tensor(expected))


def test_baselines_by_hand_and_po_probabilities_sum_to_one() -> None:
    r = torch.tensor([0.0, 0.3, 0.95])
    y = torch.tensor([0, 1, 2])
    assert torch.allclose(GradedMSE().per_example(r, y), torch.tensor([1.0, 0.09, 0.0025]))
    three = ThreePartL2()
    assert torch.allclose(three.per_example(r, y), torch.tensor([0.0, 0.0, 0.0]))
    assert torch.allclose(
        three.per_example(torch.tensor([0.5, 0.8, 0.5]), y),
        torch.tensor([0.3**2, 0.25**2, 0.4**2]),
    )
    po = ProportionalOdds(scale=4.0)
    for s in (-0.9, 0.1, 0.45, 0.99):
        rr = torch.full((3,), s, dtype=torch.float64)
        p = torch.exp(-po.per_example(rr, torch.tensor([0, 1, 2])))
        assert abs(float(p.sum()) - 1.0) < 1e-9
    # grade probabilities from the cumulative logits by hand
    s = 0.45
    c1, c2 = (
        torch.sigmoid(torch.tensor(4 * 0.2 - 4 * s)),
        torch.sigmoid(torch.tensor(4 * 0.7 - 4 * s)),
    )
    p1 = torch.exp(-po.per_example(torch.tensor([s]), torch.tensor([1])))
    assert abs(float(p1) - float(c2 - c1)) < 1e-6


@pytest.mark.parametrize(
    "bad, msg",
    [
        ((0.7, 0.2), "strictly increasing"),
        ((0.2, 0.2), "strictly increasing"),
        ((-1.0, 0.5), "outside"),
        ((0.2, 1.5), "outside"),
        ((), "at least one"),
    ],
)
def test_threshold_validation(bad, msg) -> None:
    with pytest.raises(ValueError, match=msg):
        validate_thresholds(bad)


def test_threshold_count_and_grade_range() -> None:
    with pytest.raises(ValueError, match="3 grades need 2"):
        validate_thresholds((0.5,), n_grades=3)
    with pytest.raises(ValueError, match=r"grades must lie in 0\.\.2"):
        SOSL((0.2, 0.7))(torch.zeros(2), torch.tensor([0, 3]))


def test_parse_graded_loss() -> None:
    loss = parse_graded_loss("sosl(thresholds=0.1,0.6)")
    assert isinstance(loss, SOSL) and loss.thresholds == (0.1, 0.6)
    assert isinstance(parse_graded_loss("po(scale=5)"), ProportionalOdds)
    assert isinstance(parse_graded_loss("3partl2"), ThreePartL2)
    with pytest.raises(ValueError, match=r"unknown graded loss 'sols' \(did you mean 'sosl'"):
        parse_graded_loss("sols")
    with pytest.raises(ValueError, match="no parameter 'scal'"):
        parse_graded_loss("po(scal=3)")
    assert predict_grades(torch.tensor([-0.5, 0.3, 0.8]), (0.2, 0.7)).tolist() == [0, 1, 2]

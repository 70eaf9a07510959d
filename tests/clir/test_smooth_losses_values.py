"""The graded losses of Liu et al.'s smooth CLIR (``training/smooth.py``) value by
value - threshold checks and their messages word for word, the unreachable-threshold report,
the losses' defaults, dtypes and per-grade values against plain-Python references, the loss
spec parser, grade prediction at the segment edges and the pointwise training examples.
Written against the module's mutation survivors (``benchmarks/mutate.py``)."""

from __future__ import annotations

import math
import re
from typing import ClassVar

import numpy as np
import pytest
import torch

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.training.samplers import Pair
from axiomatic.training.smooth import (
    DISPLAY,
    GRADED_LOSSES,
    GRADED_PARAMS,
    PAPER_THRESHOLDS,
    SOSL,
    GradedLoss,
    GradedMSE,
    ProportionalOdds,
    ThreePartL2,
    graded_points,
    parse_graded_loss,
    predict_grades,
    tanh_threshold_problem,
    unreachable_thresholds,
    validate_thresholds,
)

F64 = torch.float64


def _raises(exc: type[Exception], text: str):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


# ---------------------------------------------------------------------- thresholds
def test_validate_thresholds_returns_floats_and_accepts_the_edges_inside() -> None:
    th = validate_thresholds([0, 1 / 2])
    assert th == (0.0, 0.5) and all(type(t) is float for t in th)
    assert validate_thresholds((-0.999, 0.999)) == (-0.999, 0.999)
    assert validate_thresholds((0.2, 0.7), 3) == (0.2, 0.7)
    assert validate_thresholds((0.4,), 2) == (0.4,)
    assert PAPER_THRESHOLDS == (0.2, 0.7)


def test_validate_thresholds_messages_word_for_word() -> None:
    with _raises(
        ValueError, "thresholds must be a list of numbers, e.g. [0.2, 0.7] (got ['a', 0.5])"
    ):
        validate_thresholds(["a", 0.5])  # type: ignore[list-item]
    with _raises(ValueError, "thresholds must be a list of numbers, e.g. [0.2, 0.7] (got None)"):
        validate_thresholds(None)  # type: ignore[arg-type]
    with _raises(
        ValueError,
        "3 grades need 2 interior thresholds theta_1 < ... < theta_2 (got 1: [0.5]); "
        "-1 and 1 are implicit",
    ):
        validate_thresholds((0.5,), n_grades=3)
    with _raises(
        ValueError,
        "2 grades need 1 interior thresholds theta_1 < ... < theta_1 (got 2: [0.2, 0.7]); "
        "-1 and 1 are implicit",
    ):
        validate_thresholds((0.2, 0.7), n_grades=2)
    with _raises(ValueError, "thresholds: give at least one interior threshold (K >= 2 grades)"):
        validate_thresholds(())
    for bad, i in (((-1.0, 0.5), 1), ((0.2, 1.0), 2), ((0.2, 0.5, 1.5), 3)):
        t = bad[i - 1]
        with _raises(
            ValueError,
            f"threshold theta_{i} = {t} is outside (-1, 1); scores are smooth cosine "
            "similarities in [-1, 1] and -1 = theta_0, theta_K = 1 are implicit",
        ):
            validate_thresholds(bad)
    with _raises(
        ValueError,
        "thresholds must be strictly increasing (theta_1 = 0.7 >= theta_2 = 0.2); e.g. [0.2, 0.7]",
    ):
        validate_thresholds((0.7, 0.2))
    with _raises(
        ValueError,
        "thresholds must be strictly increasing (theta_2 = 0.5 >= theta_3 = 0.5); e.g. [0.2, 0.7]",
    ):
        validate_thresholds((0.1, 0.5, 0.5))


def test_unreachable_thresholds_message_word_for_word() -> None:
    tail = ". Lower the thresholds, lower eps or raise the embedding dimension"
    # one threshold at the bound (>=: unreachable) and one at minus the bound
    assert unreachable_thresholds((-0.5, 0.2, 0.5), 0.5) == (
        "unreachable thresholds [-0.5, 0.2, 0.5]: every score lies strictly inside (-0.5, 0.5) "
        "and theta_3 = 0.5 is at or above it, so grade 3 can never be reached; theta_1 = -0.5 "
        "is at or below -0.5, so grade 0 can never be reached" + tail
    )
    # several above: the first one names the grades; several below: the last one does
    assert unreachable_thresholds((0.1, 0.6, 0.7), 0.5, "somewhere") == (
        "unreachable thresholds [0.1, 0.6, 0.7] somewhere: every score lies strictly inside "
        "(-0.5, 0.5) and theta_2 = 0.6 is at or above it, so grades 2, 3 can never be reached"
        + tail
    )
    assert unreachable_thresholds((-0.8, -0.6, 0.1), 0.5) == (
        "unreachable thresholds [-0.8, -0.6, 0.1]: every score lies strictly inside "
        "(-0.5, 0.5) and theta_2 = -0.6 is at or below -0.5, so grades 0, 1 can never be "
        "reached" + tail
    )
    assert unreachable_thresholds((-0.9, -0.8, -0.6, 0.1), 0.5) == (
        "unreachable thresholds [-0.9, -0.8, -0.6, 0.1]: every score lies strictly inside "
        "(-0.5, 0.5) and theta_3 = -0.6 is at or below -0.5, so grades 0, 1, 2 can never be "
        "reached" + tail
    )
    assert unreachable_thresholds((-0.4999, 0.4999), 0.5) is None
    assert unreachable_thresholds((0.2, 0.7), 1) is None
    with pytest.raises(ValueError, match="strictly increasing"):
        unreachable_thresholds((0.7, 0.2), 0.5)


def test_tanh_threshold_problem_message_word_for_word() -> None:
    assert tanh_threshold_problem((0.2, 0.7), 16, 1.0) == (
        "unreachable thresholds [0.2, 0.7] with tanh towers of dimension p = 16 and eps = 1 "
        "(bound p/(sqrt(p)+eps)^2 = 0.64): every score lies strictly inside (-0.64, 0.64) and "
        "theta_2 = 0.7 is at or above it, so grade 2 can never be reached. Lower the "
        "thresholds, lower eps or raise the embedding dimension"
    )
    assert tanh_threshold_problem((0.2, 0.7), 16, 0.0) is None


# ---------------------------------------------------------------------- the base and SOSL
def test_graded_loss_base_defaults_bounds_and_repr() -> None:
    base = GradedLoss()
    assert base.name == "graded" and base.thresholds == (0.2, 0.7) and base.n_grades == 3
    with pytest.raises(NotImplementedError):
        base.per_example(torch.zeros(1), torch.zeros(1))
    b = base.bounds()
    assert b.dtype == F64 and b.tolist() == [-1.0, 0.2, 0.7, 1.0]
    b32 = GradedLoss((-0.3, 0.1, 0.5)).bounds(dtype=torch.float32)
    assert b32.dtype == torch.float32
    assert b32.tolist() == torch.tensor([-1.0, -0.3, 0.1, 0.5, 1.0], dtype=torch.float32).tolist()
    assert repr(SOSL()) == "SOSL(thresholds=[0.2, 0.7])"
    assert SOSL().name == "sosl" and GradedMSE().name == "mse"
    assert ProportionalOdds().name == "po" and ThreePartL2().name == "3partl2"


def test_grades_are_checked_with_messages_word_for_word() -> None:
    loss = SOSL((0.2, 0.7))
    with _raises(ValueError, "scores (2,) and grades (3,) differ in shape"):
        loss(torch.zeros(2), torch.tensor([0, 1, 2]))
    with _raises(ValueError, "grades must lie in 0..2 for 2 thresholds (got min 0, max 3)"):
        loss(torch.zeros(2), torch.tensor([0, 3]))
    with _raises(ValueError, "grades must lie in 0..2 for 2 thresholds (got min -1, max 1)"):
        loss(torch.zeros(2), torch.tensor([-1, 1]))
    with _raises(ValueError, "grades must lie in 0..1 for 1 thresholds (got min 0, max 2)"):
        SOSL((0.4,))(torch.zeros(2), torch.tensor([0, 2]))
    # an empty batch has no grades to check
    empty = loss.per_example(torch.zeros(0, dtype=F64), torch.zeros(0, dtype=torch.long))
    assert empty.shape == (0,)
    # float grades and a list are read as integers
    r = torch.tensor([0.9, -0.5], dtype=F64)
    want = [(0.9 - 0.7) ** 2, (0.2 + 0.5) ** 2]
    assert np.allclose(loss.per_example(r, torch.tensor([1.0, 1.0])).numpy(), want, atol=1e-15)
    assert np.allclose(loss.per_example(r, [1, 1]).numpy(), want, atol=1e-15)  # type: ignore[arg-type]


def test_sosl_mean_dtype_and_exact_zero_on_float32_thresholds() -> None:
    loss = SOSL((0.2, 0.7))
    # a float32 score exactly at a float32 threshold is inside its segment: loss exactly 0
    r32 = torch.tensor([0.2, 0.7, 0.2, 0.7], dtype=torch.float32)
    v = loss.per_example(r32, torch.tensor([0, 1, 1, 2]))
    assert v.dtype == torch.float32 and v.tolist() == [0.0, 0.0, 0.0, 0.0]
    r = torch.tensor([0.9, 0.5, -0.5, 0.1], dtype=F64)
    y = torch.tensor([1, 1, 1, 2])
    per = [(0.9 - 0.7) ** 2, 0.0, (0.2 + 0.5) ** 2, (0.7 - 0.1) ** 2]
    assert float(loss(r, y)) == pytest.approx(sum(per) / 4, abs=1e-15)


def test_sosl_grad_bound_per_grade() -> None:
    g = SOSL((0.2, 0.7)).grad_bound(torch.tensor([0, 1, 2]))
    assert g.dtype == F64
    # max(2|1 + theta_y|, 2|1 - theta_{y+1}|)
    assert np.allclose(g.numpy(), [max(0.0, 1.6), max(2.4, 0.6), max(3.4, 0.0)], atol=1e-12)
    g4 = SOSL((-0.3, 0.1, 0.5)).grad_bound([0, 1, 2, 3])  # type: ignore[arg-type]
    assert np.allclose(g4.numpy(), [2.6, 1.8, 2.2, 3.0], atol=1e-12)


# ---------------------------------------------------------------------- MSE
def test_graded_mse_targets_spread_over_minus_one_to_one() -> None:
    r = torch.tensor([0.0, 0.0, 0.0, 0.0], dtype=F64)
    got = GradedMSE((-0.3, 0.1, 0.5)).per_example(r, torch.arange(4))
    # targets -1, -1/3, 1/3, 1 in float64 (not float32 roundings of them)
    assert np.allclose(got.numpy(), [1.0, 1 / 9, 1 / 9, 1.0], rtol=0, atol=1e-15)
    got2 = GradedMSE((0.4,)).per_example(torch.tensor([0.5, 0.5], dtype=F64), torch.arange(2))
    assert np.allclose(got2.numpy(), [1.5**2, 0.5**2], atol=1e-15)
    r32 = torch.tensor([0.25, 0.5, -0.75], dtype=torch.float32)
    v = GradedMSE()(r32, torch.tensor([0, 1, 2]))
    assert v.dtype == torch.float32
    assert float(v) == pytest.approx((1.25**2 + 0.5**2 + 1.75**2) / 3, rel=1e-6)


# ---------------------------------------------------------------------- proportional odds
def _po_ref(r: float, y: int, cuts: list[float], s: float) -> float:
    def sig(t: float) -> float:
        return 1.0 / (1.0 + math.exp(-t))

    upper = sig(cuts[y] - s * r) if y < len(cuts) else 1.0
    lower = sig(cuts[y - 1] - s * r) if y > 0 else 0.0
    return -math.log(upper - lower)


def test_po_defaults_repr_and_checks() -> None:
    po = ProportionalOdds()
    assert po.scale == 10.0 and po.cuts == "learned" and po.thresholds == (0.2, 0.7)
    assert repr(po) == "ProportionalOdds(thresholds=[0.2, 0.7], scale=10.0, cuts='learned')"
    assert po.cut_first.dtype == F64 and po.cut_gaps.dtype == F64
    c = po.cut_points()
    assert c.dtype == F64 and np.allclose(c.detach().numpy(), [2.0, 7.0], atol=1e-12)
    assert float(po.cut_first.detach()) == 2.0
    # the gap is parameterized as softplus^-1(gap - MIN_GAP)
    assert float(po.cut_gaps.detach()) == pytest.approx(math.log(math.expm1(5.0 - 1e-3)), abs=1e-12)
    assert po.cut_points(dtype=torch.float32).dtype == torch.float32
    fixed = ProportionalOdds(scale=4, cuts="fixed")
    assert repr(fixed) == "ProportionalOdds(thresholds=[0.2, 0.7], scale=4.0, cuts='fixed')"
    assert type(fixed.scale) is float and not hasattr(fixed, "cut_first")
    cf = fixed.cut_points(dtype=torch.float32)
    assert cf.dtype == torch.float32 and cf.tolist() == pytest.approx([0.8, 2.8], abs=1e-6)
    for bad in (0, -1.0, math.nan):
        with _raises(ValueError, f"proportional odds scale must be > 0 (got {bad})"):
            ProportionalOdds(scale=bad)
    with _raises(
        ValueError,
        "proportional odds cuts must be 'learned' (McCullagh's estimated cut points) or "
        "'fixed' (s * thresholds) (got 'Fixed')",
    ):
        ProportionalOdds(cuts="Fixed")
    assert ProportionalOdds.CUTS == ("learned", "fixed") and ProportionalOdds.MIN_GAP == 1e-3


def test_po_close_thresholds_start_with_the_smallest_gap() -> None:
    # scale * (0.2001 - 0.2) - MIN_GAP < 0: the gap parameter starts at softplus^-1(1e-3)
    po = ProportionalOdds((0.2, 0.2001), scale=1.0)
    assert float(po.cut_gaps.detach()) == pytest.approx(math.log(math.expm1(1e-3)), rel=1e-9)
    assert np.allclose(po.cut_points().detach().numpy(), [0.2, 0.2 + 2e-3], atol=1e-12)
    # a gap just above the floor keeps its own size
    po2 = ProportionalOdds((0.2, 0.2025), scale=1.0)
    assert np.allclose(po2.cut_points().detach().numpy(), [0.2, 0.2025], atol=1e-12)


def test_po_values_gradients_and_dtype_by_hand() -> None:
    po = ProportionalOdds((0.2, 0.7), scale=4.0, cuts="fixed")
    cuts = [0.8, 2.8]
    rs = [-1.0, -0.2, 0.2, 0.45, 0.7, 1.0]
    for k in range(3):
        r = torch.tensor(rs, dtype=F64, requires_grad=True)
        v = po.per_example(r, torch.full((len(rs),), k))
        want = [_po_ref(x, k, cuts, 4.0) for x in rs]
        assert np.allclose(v.detach().numpy(), want, rtol=1e-12, atol=1e-14)
        (g,) = torch.autograd.grad(v.sum(), r)
        h = 1e-6
        num = [(_po_ref(x + h, k, cuts, 4.0) - _po_ref(x - h, k, cuts, 4.0)) / (2 * h) for x in rs]
        assert torch.isfinite(g).all() and np.allclose(g.numpy(), num, rtol=1e-5, atol=1e-7)
    r32 = torch.tensor([0.45, 0.45, 0.45], dtype=torch.float32)
    v32 = ProportionalOdds(scale=4.0)(r32, torch.arange(3))
    assert v32.dtype == torch.float32
    mean = sum(_po_ref(0.45, k, cuts, 4.0) for k in range(3)) / 3
    assert float(v32.detach()) == pytest.approx(mean, rel=1e-5)


def test_po_learned_cut_points_get_the_gradient_of_the_hand_formula() -> None:
    po = ProportionalOdds((0.2, 0.7), scale=4.0)
    r = torch.tensor([0.45], dtype=F64)
    po.per_example(r, torch.tensor([1])).sum().backward()
    # d/dc1 of -log(sig(c2 - s r) - sig(c1 - s r)) = sig'(c1 - s r) / (P) ...
    s1, s2 = 1 / (1 + math.exp(-(0.8 - 1.8))), 1 / (1 + math.exp(-(2.8 - 1.8)))
    d_c1 = s1 * (1 - s1) / (s2 - s1)
    d_c2 = -s2 * (1 - s2) / (s2 - s1)
    assert po.cut_first.grad is not None and po.cut_gaps.grad is not None
    # c1 = first, c2 = first + softplus(g) + MIN_GAP
    assert float(po.cut_first.grad) == pytest.approx(d_c1 + d_c2, rel=1e-9)
    sp = 1 / (1 + math.exp(-float(po.cut_gaps.detach())))  # softplus'(g)
    assert float(po.cut_gaps.grad) == pytest.approx(d_c2 * sp, rel=1e-9)


# ---------------------------------------------------------------------- 3-part L2
def test_three_part_l2_defaults_for_any_number_of_grades() -> None:
    three = ThreePartL2()
    assert three.high == 0.9 and three.uppers == (0.2, 0.55)
    assert repr(three) == "ThreePartL2(thresholds=[0.2, 0.7], high=0.9, uppers=[0.2, 0.55])"
    assert ThreePartL2((0.4,)).uppers == (0.2,)
    assert ThreePartL2((-0.3, 0.1, 0.5)).uppers == pytest.approx((0.2, 0.375, 0.55))
    assert ThreePartL2((-0.5, 0.0, 0.3, 0.6)).uppers == pytest.approx(
        (0.2, 0.2 + 0.35 / 3, 0.2 + 0.7 / 3, 0.55)
    )
    custom = ThreePartL2((0.4,), high=0.8, uppers=[0])
    assert custom.uppers == (0.0,) and type(custom.uppers[0]) is float
    assert type(custom.high) is float
    with _raises(
        ValueError, "3partl2 needs one upper bound per non-top grade (2 for 3 grades; got 1)"
    ):
        ThreePartL2(uppers=(0.3,))
    with _raises(
        ValueError, "3partl2 needs one upper bound per non-top grade (1 for 2 grades; got 2)"
    ):
        ThreePartL2((0.4,), uppers=(0.3, 0.5))


def test_three_part_l2_values_by_hand_with_four_grades() -> None:
    loss = ThreePartL2((-0.3, 0.1, 0.5), high=0.8, uppers=(-0.2, 0.1, 0.4))
    r = torch.tensor([0.0, -0.5, 0.3, 0.0, 0.6, 0.9, 0.5, -0.9], dtype=F64)
    y = torch.tensor([0, 0, 1, 2, 2, 3, 3, 3])
    want = [0.2**2, 0.0, 0.2**2, 0.0, 0.2**2, 0.0, 0.3**2, 1.7**2]
    got = loss.per_example(r, y)
    assert got.dtype == F64 and np.allclose(got.numpy(), want, rtol=0, atol=1e-15)
    r32 = torch.tensor([0.5, 0.5], dtype=torch.float32)
    v = ThreePartL2()(r32, torch.tensor([0, 2]))
    assert v.dtype == torch.float32 and float(v) == pytest.approx((0.09 + 0.16) / 2, rel=1e-6)


# ---------------------------------------------------------------------- registry and parser
def test_registry_names_aliases_and_parameters() -> None:
    assert GRADED_LOSSES.get("sosl") is SOSL and GRADED_LOSSES.get("mse") is GradedMSE
    assert GRADED_LOSSES.get("po") is ProportionalOdds
    assert GRADED_LOSSES.get("3partl2") is ThreePartL2
    for alias, name in (
        ("proportional-odds", "po"),
        ("pos", "po"),
        ("3part", "3partl2"),
        ("threepartl2", "3partl2"),
    ):
        assert GRADED_LOSSES.resolve(alias) == name
    assert {
        "sosl": {"thresholds"},
        "mse": {"thresholds"},
        "po": {"thresholds", "scale", "cuts"},
        "3partl2": {"thresholds", "high", "uppers"},
    } == {name: set(records) for name, records in GRADED_PARAMS.items()}
    assert DISPLAY == {"sosl": "SOSL", "mse": "MSE", "po": "PO", "3partl2": "3PartL2"}


def test_parse_graded_loss_defaults_scalars_and_grade_counts() -> None:
    for spec in (None, ""):
        loss = parse_graded_loss(spec)
        assert type(loss) is SOSL and loss.thresholds == (0.2, 0.7)
    assert parse_graded_loss("sosl(thresholds=0.4)").thresholds == (0.4,)
    three = parse_graded_loss("3partl2(thresholds=0.4, uppers=0.3, high=0.8)")
    assert isinstance(three, ThreePartL2)
    assert three.uppers == (0.3,) and three.high == 0.8 and three.thresholds == (0.4,)
    po = parse_graded_loss("proportional-odds(scale=5, cuts=fixed)")
    assert isinstance(po, ProportionalOdds) and po.scale == 5.0 and po.cuts == "fixed"
    assert type(parse_graded_loss("mse(thresholds=0.1,0.5,0.8)", n_grades=4)) is GradedMSE
    with _raises(
        ValueError,
        "3 grades need 2 interior thresholds theta_1 < ... < theta_2 (got 1: [0.4]); "
        "-1 and 1 are implicit",
    ):
        parse_graded_loss("sosl(thresholds=0.4)", n_grades=3)
    with _raises(
        ValueError,
        "graded loss 'po' has no parameter 'scal' (did you mean 'scale'?); "
        "expected ['cuts', 'scale', 'thresholds']",
    ):
        parse_graded_loss("po(scal=3)")
    # one suggestion only, even for a key as close to two parameters
    with _raises(
        ValueError,
        "graded loss 'po' has no parameter 'scalecuts' (did you mean 'scale'?); "
        "expected ['cuts', 'scale', 'thresholds']",
    ):
        parse_graded_loss("po(scalecuts=1)")
    # a bare token is a value (here refused by the parameter's record, naming its choices)
    with _raises(
        ValueError,
        "graded loss 'po' parameter 'cuts' in 'po(cuts=fixed-ish)' must be one of 'learned', "
        "'fixed' (got 'fixed-ish', a string; did you mean 'fixed'?)",
    ):
        parse_graded_loss("po(cuts=fixed-ish)")
    with _raises(
        ValueError,
        "graded loss 'sosl' has no parameter 'high'; expected ['thresholds']",
    ):
        parse_graded_loss("sosl(high=3)")
    with _raises(
        ValueError,
        "cannot parse graded loss 'sosl((': unbalanced parentheses; expected "
        "NAME(key=value, ...), e.g. 'sosl(thresholds=0.2,0.7)'",
    ):
        parse_graded_loss("sosl((")


def test_predict_grades_at_the_segment_edges() -> None:
    r = torch.tensor([-1.0, 0.1999, 0.2, 0.2001, 0.7, 0.7001, 1.0], dtype=F64)
    g = predict_grades(r, (0.2, 0.7))
    assert g.tolist() == [0, 0, 0, 1, 1, 2, 2]
    # float64 scores next to the thresholds are compared with the float64 thresholds (the
    # float32 roundings 0.20000000298 and 0.69999998808 would put them in other segments)
    near = torch.tensor([0.2000000001, 0.69999999], dtype=F64)
    assert predict_grades(near, (0.2, 0.7)).tolist() == [1, 1]
    r32 = torch.tensor([0.2, 0.7], dtype=torch.float32)  # float32 scores at float32 thresholds
    assert predict_grades(r32, (0.2, 0.7)).tolist() == [0, 1]
    assert predict_grades(torch.tensor([0.0, 0.5]), (-0.3, 0.1, 0.5)).tolist() == [1, 2]
    with pytest.raises(ValueError, match="strictly increasing"):
        predict_grades(r, (0.7, 0.2))


# ---------------------------------------------------------------------- training examples
def _dataset(candidates: dict[str, list[str]] | None) -> Dataset:
    docs = {d: Document(d, d) for d in ("a", "b", "c", "d", "e")}
    return Dataset(
        name="tiny",
        queries={"q2": Query("q2", "two"), "q1": Query("q1", "one")},
        documents=docs,
        qrels={"q1": {"c": 2, "a": 1, "zz": 2}, "q2": {"b": 0}},
        candidates=candidates,
    )


def test_graded_points_judged_plus_candidates_at_depth() -> None:
    ds = _dataset({"q1": ["e", "a", "d"], "q2": ["d", "b", "e"]})
    got = graded_points(ds)
    assert got == [
        Pair("q2", "b", "b", 0.0, 0.0, "points"),
        Pair("q2", "d", "d", 0.0, 0.0, "points"),
        Pair("q2", "e", "e", 0.0, 0.0, "points"),
        Pair("q1", "a", "a", 1.0, 1.0, "points"),
        Pair("q1", "c", "c", 2.0, 2.0, "points"),
        Pair("q1", "d", "d", 0.0, 0.0, "points"),
        Pair("q1", "e", "e", 0.0, 0.0, "points"),
    ]
    assert all(type(p.label_hi) is float for p in got)
    shallow = graded_points(ds, depth=1)
    assert [(p.query_id, p.doc_hi, p.label_hi) for p in shallow] == [
        ("q2", "b", 0.0),
        ("q2", "d", 0.0),
        ("q1", "a", 1.0),
        ("q1", "c", 2.0),
        ("q1", "e", 0.0),
    ]
    # a full-retrieval set (no candidate lists): the judged documents only
    full = graded_points(_dataset(None))
    assert [(p.query_id, p.doc_hi, p.label_hi) for p in full] == [
        ("q2", "b", 0.0),
        ("q1", "a", 1.0),
        ("q1", "c", 2.0),
    ]


def test_graded_points_refuses_a_set_without_examples() -> None:
    ds = Dataset(name="bare", queries={"q": Query("q", "x")}, documents={"a": Document("a", "a")})
    with _raises(
        ValueError,
        "no graded training examples in bare: it needs qrels or candidate lists",
    ):
        graded_points(ds)

    class Nameless:
        queries: ClassVar[dict[str, Query]] = {}
        candidates = None

    with _raises(
        ValueError,
        "no graded training examples in the dataset: it needs qrels or candidate lists",
    ):
        graded_points(Nameless())

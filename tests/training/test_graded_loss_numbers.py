"""The graded-loss spec's numbers: every numeric parameter (``thresholds``, ``uppers``,
``scale``, ``high``) goes through the one number conversion, named in the message with the
loss and the spec, and reaches the loss as a float (a scalar ``thresholds`` as a list)."""

from __future__ import annotations

import pytest

from axiomatic.training.smooth import parse_graded_loss


@pytest.mark.parametrize(
    ("spec", "key", "bad"),
    [
        ("sosl(thresholds=0.2,true)", "thresholds", "got true, a boolean"),
        ("mse(thresholds=0.2,'0.7')", "thresholds", "write the number without quotes"),
        ("po(scale=true)", "scale", "got true, a boolean"),
        ("po(thresholds=0.2, scale='10')", "scale", "write the number without quotes"),
        ("3partl2(high=inf)", "high", "not a finite number"),
        ("3partl2(uppers=0.4,false)", "uppers", "got false, a boolean"),
        ("3partl2(thresholds=true)", "thresholds", "got true, a boolean"),
    ],
)
def test_a_numeric_parameter_that_is_no_number_is_named(spec: str, key: str, bad: str) -> None:
    name = spec.split("(", 1)[0]
    with pytest.raises(ValueError) as err:
        parse_graded_loss(spec)
    msg = str(err.value)
    assert msg.startswith(f"graded loss {name!r} parameter {key!r} in {spec!r} must be a number")
    assert bad in msg


def test_the_numbers_reach_the_loss_as_floats() -> None:
    po = parse_graded_loss("po(thresholds=0,0.5, scale=10, cuts=fixed)")
    assert [float(t) for t in po.thresholds] == [0.0, 0.5]
    assert type(po.thresholds[0]) is float  # the integer 0 converted
    assert po.scale == 10.0 and type(po.scale) is float
    one = parse_graded_loss("sosl(thresholds=0)")  # a scalar threshold is one cut point
    assert list(one.thresholds) == [0.0] and type(one.thresholds[0]) is float
    p3 = parse_graded_loss("3partl2(high=1)")
    assert p3.high == 1.0 and type(p3.high) is float

"""The one parameter record: ParamInfo's checks, range text and records derived from dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from axiomatic._params import REQUIRED, ParamInfo, dataclass_params, param_meta


@pytest.mark.parametrize(
    ("info", "value", "message"),
    [
        (ParamInfo("steps", "int", low=1), -5, "parameter 'steps' must be an integer >= 1 (got -5"),
        (ParamInfo("steps", "int", low=1), 1.5, "must be an integer >= 1 (got 1.5, a number)"),
        (ParamInfo("steps", "int", low=1), True, "must be an integer >= 1 (got true, a boolean)"),
        (ParamInfo("lr", "float", low=0, low_open=True), -1, "must be a finite number > 0 (got -1"),
        (ParamInfo("lr", "float", low=0, low_open=True), float("inf"), "finite number > 0"),
        (ParamInfo("lr", "float", low=0, low_open=True), "0.1", "(got '0.1', a string)"),
        (
            ParamInfo("a", "float", low=0, high=1, high_open=True),
            1.0,
            "a finite number >= 0 and < 1",
        ),
        (
            ParamInfo("e", "float", low=0, high=2**31, high_open=True),
            1e300,
            "a number < 2**31 (got",
        ),
        (ParamInfo("n", "int", low=0, high=2**31, high_open=True), 2**31, "an integer < 2**31"),
        (ParamInfo("e", "float | None", low=0), -1.0, ">= 0 (or left out) (got -1.0"),
        (
            ParamInfo("s", "list[int]", low=0),
            [0, -1],
            "must be a list of integers >= 0 (got [0, -1]",
        ),
        (ParamInfo("s", "list[int]", low=0), 3, "must be a list (got 3, an integer)"),
        (ParamInfo("m", "str", choices=("a", "b")), "c", "must be one of 'a', 'b' (got 'c'"),
        (
            ParamInfo("m", "list[str]", choices=("a",)),
            ["b"],
            "a list whose items are one of 'a' (got",
        ),
        (ParamInfo("m", "str", nonempty=True), " ", "must be a non-empty string (got ' '"),
        (ParamInfo("t", "dict[str, Any]"), 3, "must be a table of settings (got 3"),
        (ParamInfo("f", "bool"), 1, "must be true or false (got 1, an integer)"),
    ],
)
def test_a_refusal_names_the_setting_the_bound_and_the_value(
    info: ParamInfo, value: object, message: str
) -> None:
    with pytest.raises(ValueError) as err:
        info.check(value)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("info", "value"),
    [
        (ParamInfo("steps", "int", low=1), 1),
        (ParamInfo("steps", "int", low=1), np.int64(3)),
        (ParamInfo("lr", "float", low=0, low_open=True), 1),  # an integer is a number
        (ParamInfo("a", "float", low=0, high=1), 1.0),  # inclusive bounds
        (ParamInfo("e", "float | None", low=0), None),
        (ParamInfo("s", "tuple[float, ...]", low=0), (0.0, 0.5)),
        (ParamInfo("m", "list[str]", choices=("a", "b")), ["b", "a"]),
        (ParamInfo("x", "list[DatasetPlan]"), [object()]),  # an unknown item type passes
    ],
)
def test_values_within_range_pass(info: ParamInfo, value: object) -> None:
    info.check(value)


def test_range_text_and_row() -> None:
    assert ParamInfo("x", "int", low=1).range_text() == ">= 1"
    assert ParamInfo("x", "float", low=0, low_open=True, high=1, high_open=True).range_text() == (
        "> 0, < 1"
    )
    assert ParamInfo("x", "int", low=0, high=2**32, high_open=True).range_text() == ">= 0, < 2**32"
    assert ParamInfo("x", "str", choices=("a", "b")).range_text() == "one of 'a', 'b'"
    assert ParamInfo("x").range_text() == ""
    assert ParamInfo("x", "int", 3, low=1, description="d").row() == ("x", "int", "3", ">= 1", "d")
    assert ParamInfo("x", "int").row()[2] == "required"
    with pytest.raises(TypeError):
        param_meta(ge=0, gt=0)


SHARED = ParamInfo("steps", "int", 7, low=1, description="training steps")


@dataclass
class _Base:
    steps: int = field(default=5, metadata=SHARED.meta())
    name: str = "x"  # the run's name
    """the name, documented"""
    # a count of things
    # over two lines
    count: int = field(default=2, metadata=param_meta(ge=0, le=10))
    seeds: list[int] = field(default_factory=lambda: [0], metadata=param_meta(ge=0))
    needed: str | None = None


@dataclass
class _Child(_Base):
    steps: int = 9  # redeclared without metadata: the base's range stays
    count: int = 3  # three things


def test_records_come_from_fields_metadata_and_docs() -> None:
    base = dataclass_params(_Base)
    assert list(base) == ["steps", "name", "count", "seeds", "needed"]
    assert base["steps"] == ParamInfo("steps", "int", 5, low=1, description="training steps")
    assert base["name"].description == "the name, documented"  # a docstring over a comment
    assert base["count"] == ParamInfo(
        "count", "int", 2, low=0, high=10, description="a count of things over two lines"
    )
    assert base["seeds"].default == [0] and base["seeds"].low == 0
    assert base["needed"] == ParamInfo("needed", "str | None", None)
    child = dataclass_params(_Child)
    assert child["steps"] == ParamInfo("steps", "int", 9, low=1, description="training steps")
    assert child["count"] == ParamInfo(
        "count", "int", 3, low=0, high=10, description="three things"
    )


def test_a_field_without_default_is_required() -> None:
    @dataclass
    class _R:
        x: int

    assert dataclass_params(_R)["x"].default is REQUIRED


def test_a_refused_choice_names_the_closest_one() -> None:
    info = ParamInfo("cuts", "str", "learned", choices=("learned", "fixed"))
    with pytest.raises(ValueError) as err:
        info.check("fixd", "cuts")
    assert str(err.value) == (
        "cuts must be one of 'learned', 'fixed' (got 'fixd', a string; did you mean 'fixed'?)"
    )
    with pytest.raises(ValueError) as err:
        info.check("zzz", "cuts")
    assert str(err.value) == "cuts must be one of 'learned', 'fixed' (got 'zzz', a string)"


@pytest.mark.parametrize(
    ("info", "value", "want"),
    [
        (ParamInfo("k", "int", low=1), 3.0, 3),  # an integral number from a spec is a count
        (ParamInfo("x", "float", low=0), 2, 2.0),
        (ParamInfo("t", "list[float]", low=-1, high=1), 0.5, [0.5]),  # one value: a list
        (ParamInfo("t", "list[float]"), (0, 1), [0.0, 1.0]),
        (ParamInfo("n", "int | None", low=1), None, None),
        (ParamInfo("m", "str", choices=("a", "b")), "b", "b"),
    ],
)
def test_coerce_converts_a_spec_value(info: ParamInfo, value: object, want: object) -> None:
    got = info.coerce(value)
    assert got == want and type(got) is type(want)
    if isinstance(want, list):
        assert all(type(g) is float for g in got)


@pytest.mark.parametrize(
    ("info", "value", "message"),
    [
        # the number conversion's own words for what is no number ...
        (ParamInfo("x", "float", low=0), True, "x must be a number (got true, a boolean)"),
        (ParamInfo("x", "float", low=0), "nan", "x must be a number (got 'nan': not a finite"),
        (ParamInfo("t", "list[float]"), [0.1, "0.2"], "t must be a number (got '0.2': a string"),
        # ... the record's for a number out of range
        (ParamInfo("x", "float", low=0), -2, "x must be a finite number >= 0 (got -2.0, a number)"),
        (ParamInfo("k", "int", low=1), 2.5, "k must be an integer (got 2.5)"),
        (
            ParamInfo("t", "list[float]", low=-1, high=1, high_open=True),
            [0.2, 1],
            "t must be a list of finite numbers < 1 (got [0.2, 1.0], a list)",
        ),
    ],
)
def test_coerce_refuses_in_one_line(info: ParamInfo, value: object, message: str) -> None:
    with pytest.raises(ValueError) as err:
        info.coerce(value, info.name)
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)

"""The parameter records of the training specs (``ar(...)``, ``perturb(...)``,
``diagnostic(...)``, ``acrank(...)``, the graded losses, the LR schedules) say what the parsers
do: each record's default is what a spec that leaves the parameter out gets, a value at a bound
is taken or refused as the range says, every choice is taken, and a refusal is one line naming
the setting, the bound and the value."""

from __future__ import annotations

from typing import Any

import pytest

from axiomatic._params import ParamInfo
from axiomatic.training.config import (
    ACRANK_RULE_NAMES,
    LOSSES,
    PERTURBATION_NAMES,
    SPEC_SETTINGS,
    SpecFamily,
    TrainConfig,
    parse_augmentation,
    parse_regularizer,
    training_specs,
)
from axiomatic.training.schedules import parse_lr_schedule
from axiomatic.training.smooth import (
    GRADED_LOSSES,
    GRADED_PARAMS,
    ProportionalOdds,
    ThreePartL2,
    parse_graded_loss,
)

FIELDS = {("regularizer", "lambda"): "lambda_", ("regularizer", "k"): "lnc_terms"}
FIELDS[("augmentation", "k")] = "lnc_terms"


def _spec(family: SpecFamily, key: str | None = None, text: str = "") -> str:
    """A spec of ``family`` setting ``key`` to ``text`` (with what the family needs besides)."""
    text = f"'{text}'" if "&" in text else text  # & is an operator, not part of a bare word
    parts = [f"{key}={text}"] if key else []
    if family.name == "diagnostic":
        parts.append("instances=x")
        if key == "delta_max":
            parts.append("mode=paired-delta")
    return f"{family.name}({', '.join(parts)})" if parts else family.name


def _parse(family: SpecFamily, spec: str) -> Any:
    parser = {
        "regularizer": parse_regularizer,
        "augmentation": parse_augmentation,
        "graded_loss": parse_graded_loss,
        "lr_schedule": parse_lr_schedule,
    }[family.setting]
    return parser(spec)


def _value(family: SpecFamily, key: str, spec: str) -> Any:
    value = getattr(_parse(family, spec), FIELDS.get((family.setting, key), key))
    return tuple(value) if isinstance(value, list) else value


PARAMS = [
    (family, key, info)
    for family in training_specs()
    if family.setting != "loss"
    for key, info in family.params.items()
]
IDS = [f"{f.name}.{k}" for f, k, _ in PARAMS]


def test_every_spec_setting_is_listed_in_order() -> None:
    families = training_specs()
    assert [f.setting for f in families] == sorted(
        (f.setting for f in families), key=SPEC_SETTINGS.index
    )
    names = {s: [f.name for f in families if f.setting == s] for s in SPEC_SETTINGS}
    assert names == {
        "loss": list(LOSSES.names()),
        "graded_loss": list(GRADED_LOSSES.names()),
        "regularizer": ["ar"],
        "augmentation": ["perturb", "diagnostic", "acrank"],
        "lr_schedule": ["constant", "exponential", "linear"],
    }
    for family in families:  # each example parses (and is the family's)
        if family.setting != "loss":
            assert type(_parse(family, family.example)) is type(_parse(family, _spec(family)))
        assert all(key == info.name for key, info in family.params.items())


def test_the_choices_named_here_are_the_perturbation_codes() -> None:
    from axiomatic.perturb import PERTURBATIONS
    from axiomatic.perturb.acrank import ACRANK_RULES

    assert tuple(PERTURBATIONS) == PERTURBATION_NAMES
    assert (*ACRANK_RULES, "none") == ACRANK_RULE_NAMES
    assert GRADED_PARAMS["po"]["cuts"].choices == ProportionalOdds.CUTS


@pytest.mark.parametrize(("family", "key", "info"), PARAMS, ids=IDS)
def test_the_default_is_what_a_spec_without_the_parameter_gets(
    family: SpecFamily, key: str, info: ParamInfo
) -> None:
    got = _value(family, key, _spec(family))
    if (family.name, key) == ("diagnostic", "instances"):
        assert info.default == "" and got == "x"  # given here: the spec needs one
    elif (family.name, key) == ("3partl2", "uppers"):  # None: a default that depends on K
        assert info.default is None and got == ThreePartL2().uppers == (0.2, 0.55)
        assert "0.2, 0.55" in info.description
    else:
        assert got == info.default and type(got) is type(info.default)


def _bound_cases() -> list[tuple[SpecFamily, str, ParamInfo, float, bool]]:
    """(family, key, record, value, taken?) at and beyond each bound of each number."""
    out = []
    for family, key, info in PARAMS:
        kind = info.type.replace(" | None", "").replace("list[", "").rstrip("]")
        if kind not in ("int", "float"):
            continue
        step = 1 if kind == "int" else 0.25
        if info.low is not None:
            out.append((family, key, info, info.low, not info.low_open))
            out.append((family, key, info, info.low - step, False))
        if info.high is not None:
            out.append((family, key, info, info.high, not info.high_open))
            out.append((family, key, info, info.high + step, False))
    return out


BOUNDS = _bound_cases()


def test_the_numbers_have_ranges() -> None:
    ranged = {(f.name, k) for f, k, _, _, _ in BOUNDS}
    numbers = {(f.name, k) for f, k, i in PARAMS if "int" in i.type or "float" in i.type}
    # high and uppers (3partl2) are any score bounds; every other number has a range
    assert numbers - ranged == {("3partl2", "high"), ("3partl2", "uppers")}


@pytest.mark.parametrize(
    ("family", "key", "info", "value", "taken"),
    BOUNDS,
    ids=[f"{f.name}.{k}={v:g}" for f, k, _, v, _ in BOUNDS],
)
def test_a_value_at_a_bound_is_taken_as_the_range_says(
    family: SpecFamily, key: str, info: ParamInfo, value: float, taken: bool
) -> None:
    text = str(int(value)) if float(value).is_integer() and "int" in info.type else repr(value)
    spec = _spec(family, key, text)
    if taken:
        got = _value(family, key, spec)
        assert (got[0] if isinstance(got, tuple) else got) == value
        return
    with pytest.raises(ValueError) as err:
        _parse(family, spec)
    message = str(err.value)
    assert "\n" not in message
    if info.low is not None and value <= info.low:
        broken = f"{'>' if info.low_open else '>='} {info.low:g}"
    else:
        assert info.high is not None
        broken = f"{'<' if info.high_open else '<='} {info.high:g}".replace("2.14748e+09", "2**31")
    assert key in message and broken in message and "(got " in message, message


CHOICES = [(f, k, i, c) for f, k, i in PARAMS if i.choices for c in i.choices]


@pytest.mark.parametrize(
    ("family", "key", "info", "choice"),
    CHOICES,
    ids=[f"{f.name}.{k}={c}" for f, k, _, c in CHOICES],
)
def test_every_choice_is_taken(family: SpecFamily, key: str, info: ParamInfo, choice: str) -> None:
    got = _value(family, key, _spec(family, key, choice))
    assert got == ((choice,) if info.type.startswith("list") else choice)


@pytest.mark.parametrize(
    ("parse", "spec", "line"),
    [
        (
            parse_regularizer,
            "ar(lambda=-1)",
            "regularizer lambda in 'ar(lambda=-1)' must be a finite number >= 0 (got -1.0, a number)",
        ),
        (
            parse_regularizer,
            "ar(normalize=batches)",
            "regularizer normalize in 'ar(normalize=batches)' must be one of 'applicable', "
            "'batch' (got 'batches', a string; did you mean 'batch'?)",
        ),
        (
            parse_graded_loss,
            "po(scale=0)",
            "graded loss 'po' parameter 'scale' in 'po(scale=0)' must be a finite number > 0 "
            "(got 0.0, a number)",
        ),
        (
            parse_graded_loss,
            "sosl(thresholds=0.2,1)",
            "graded loss 'sosl' parameter 'thresholds' in 'sosl(thresholds=0.2,1)' must be a list "
            "of finite numbers < 1 (got [0.2, 1.0], a list)",
        ),
        (
            parse_augmentation,
            "acrank(negatives=0)",
            "acrank negatives must be an integer >= 1 (or left out) (got 0, an integer)",
        ),
        (
            parse_augmentation,
            "perturb(rate=1.5)",
            "perturb rate must be a finite number >= 0 and <= 1 (got 1.5, a number)",
        ),
        (
            parse_lr_schedule,
            "linear(warmup=1)",
            "warmup of the linear schedule in 'linear(warmup=1)' must be a finite number >= 0 "
            "and < 1 (got 1.0, a number)",
        ),
    ],
)
def test_a_refusal_is_one_line_naming_the_setting_the_bound_and_the_value(
    parse: Any, spec: str, line: str
) -> None:
    with pytest.raises(ValueError) as err:
        parse(spec)
    assert str(err.value) == line


def test_the_config_refuses_a_bad_spec_value_when_it_is_made() -> None:
    with pytest.raises(ValueError, match=r"^graded loss 'po' parameter 'scale' .* > 0"):
        TrainConfig(loss="graded", graded_loss="po(scale=0)")
    with pytest.raises(ValueError, match=r"^gamma of the exponential schedule .* <= 1"):
        TrainConfig(lr_schedule="exponential(gamma=2)")

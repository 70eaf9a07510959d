"""Fuzz the number parameters of specs: a value is a finite number or the spec is refused.

Every spec kind that takes a number (ranker ``bm25:k1=V``, axiom ``TFC3(delta_rel=V)``, axiom
expression weight ``V*DIV + TFC3``, regularizer ``ar(lambda=V)``, augmentation
``diagnostic(delta_max=V)``, graded loss ``po(scale=V)``, schedule ``linear(warmup=V)``) gets
values drawn from the bad numbers of ``fuzz_helpers`` (``inf``, ``1e400``, ``true``, ``'１'``,
quoted numbers, 400-digit integers ...) and from finite floats. The parser either raises
``ValueError`` or yields a finite float that is the literal written, never ``True`` read as 1.0,
a string read as a number or an infinity.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from fuzz_helpers import BAD_NUMBERS, FUZZ
from hypothesis import event, given
from hypothesis import strategies as st

from axiomatic.axioms.spec import parse_axiom, parse_combination
from axiomatic.rankers.registry import parse_ranker_spec
from axiomatic.training.config import parse_augmentation, parse_regularizer
from axiomatic.training.schedules import parse_lr_schedule
from axiomatic.training.smooth import parse_graded_loss

_finite = st.floats(0, 1e6, allow_nan=False, allow_infinity=False).map(repr)
values = st.one_of(
    _finite,
    st.sampled_from(BAD_NUMBERS),
    st.sampled_from(["True", "FALSE", "None", '"0.1"', "'2'", "\uff10.\uff11", "1e309", "-0.0"]),
    st.integers(0, 10**500).map(str),
)


def _ranker(v: str) -> Any:
    from axiomatic.rankers.registry import RANKERS, _coerce

    kind, params = parse_ranker_spec(f"bm25:k1={v}")
    return _coerce(RANKERS.get(kind), params, f"bm25:k1={v}")["k1"]


def _weight(v: str) -> Any:
    node = parse_combination(f"{v}*DIV + TFC3")
    return node.operands[0].weight


SPECS: dict[str, Callable[[str], Any]] = {
    "ranker": _ranker,
    "axiom": lambda v: dict(parse_axiom(f"TFC3(delta_rel={v})").params)["delta_rel"],
    "weight": _weight,
    "regularizer": lambda v: parse_regularizer(f"ar(lambda={v})").lambda_,  # type: ignore[union-attr]
    "augmentation": lambda v: (
        parse_augmentation(  # type: ignore[union-attr]
            f"diagnostic(instances=x, delta_max={v})"
        ).delta_max
    ),
    "graded-loss": lambda v: parse_graded_loss(f"po(scale={v})").scale,
    "schedule": lambda v: parse_lr_schedule(f"linear(warmup={v})").warmup,
}


@FUZZ
@given(st.sampled_from(sorted(SPECS)), values)
def test_fuzz_number_parameters(kind: str, value: str) -> None:
    try:
        got = SPECS[kind](value)
    except ValueError:
        event(f"{kind}: refused")
        return
    event(f"{kind}: read")
    if got is None:  # TFC3(delta_rel=None): the parameter not set
        assert value.lower() == "none", (kind, value)
        return
    assert not isinstance(got, bool), (kind, value, got)
    number = float(got.item() if hasattr(got, "item") else got)
    assert math.isfinite(number), (kind, value, got)
    assert value.isascii() and value[:1] not in "\"'", (kind, value, got)  # a literal
    assert number == _literal(value), (kind, value, got)


def _literal(value: str) -> float:
    """The number a literal with leading signs (``--1``, as an expression weight) writes."""
    body = value.lstrip("+-")
    sign = -1.0 if value[: len(value) - len(body)].count("-") % 2 else 1.0
    return sign * float(ast.literal_eval(body))

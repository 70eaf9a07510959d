"""Spec strings are bounded in length and nesting depth (a message, never the
``MemoryError`` / ``RecursionError`` that :mod:`ast` or a recursive walk raises on them)."""

from __future__ import annotations

import pytest

from axiomatic.axioms.spec import parse_axiom, parse_axioms
from axiomatic.rankers.registry import RankerSpecError, parse_ranker_spec
from axiomatic.text.analyzer import AnalyzerSpecError, parse_analyzer
from axiomatic.training.config import parse_regularizer


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bm25:k1=" + "-" * 100_000, "is 100,003 characters long; at most 10,000"),  # MemoryError
        ("bm25:k1=" + "-" * 5_000 + "1", "nests 5,000 levels deep"),  # RecursionError
        ("bm25:k1=" + "1-" * 3_000 + "1", "nests 3,000 levels deep"),
    ],
)
def test_ranker_specs_are_bounded(spec: str, message: str) -> None:
    with pytest.raises(RankerSpecError, match=message):
        parse_ranker_spec(spec)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("TFC1|" * 9_999 + "TFC1", "is 49,999 characters long"),  # RecursionError in ast.parse
        ("TFC1 & " * 5_000 + "TFC1", "is 35,004 characters long"),
        ("TFC1|" * 1_500 + "TFC1", "nests 1,500 levels deep"),  # RecursionError in the walk
        ("-" * 600 + "TFC1", "nests 600 levels deep"),
        ("TFC1(delta_rel=" + "-" * 3_000 + "1)", "nests 3,001 levels deep"),
    ],
)
def test_axiom_specs_and_expressions_are_bounded(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_axiom(spec)
    with pytest.raises(ValueError, match=message):
        parse_axioms(f"LNC2,{spec}")


def test_other_spec_kinds_are_bounded() -> None:
    with pytest.raises(AnalyzerSpecError, match="characters long"):
        parse_analyzer("stopwords=" + "-" * 20_000)
    with pytest.raises(ValueError, match="levels deep"):
        parse_regularizer("ar(lambda=" + "-" * 5_000 + "1)")


def test_specs_within_the_bounds_still_parse() -> None:
    a = parse_axiom("TFC1 & " * 150 + "TFC1")  # a long flat chain is one node
    assert len(a.operands) == 151
    assert parse_axiom("-" * 100 + "TFC1").name.startswith("-")
    kind, params = parse_ranker_spec("bm25:k1=-1.5e-3,b=[-1, -2, -3]")
    assert kind == "bm25" and params == {"k1": -1.5e-3, "b": [-1, -2, -3]}


def test_query_pair_axiom_specs_are_bounded() -> None:
    """ARES' query-pair axioms: a hostile spec is a ValueError, not a MemoryError."""
    from axiomatic.axioms import parse_axiom

    with pytest.raises(ValueError, match="characters long"):
        parse_axiom("Q-RANK(depth=" + "-" * 100_000 + "1)")
    with pytest.raises(ValueError, match="levels deep"):
        parse_axiom("Q-RANK(depth=" + "(" * 1_000 + "1" + ")" * 1_000 + ")")

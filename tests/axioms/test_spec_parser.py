"""Axiom value objects and the ast-based parser."""

from __future__ import annotations

import pytest

from axiomatic.axioms import Axiom, list_axioms, parse_axiom, parse_axioms


def test_parse_defaults_and_canonical_spec_round_trip():
    a = parse_axiom("TFC1")
    assert a.name == "TFC1" and a.variant == "relaxed"
    assert a.param("delta_rel") == 0.1 and a.param("delta") is None
    assert parse_axiom(a.spec) == a
    b = parse_axiom("TFC1(variant='strict')")
    assert b.param("delta") == 0 and b != a


@pytest.mark.parametrize("text", ["m-tdc", "M_TDC", "mtdc", " M-TDC "])
def test_name_normalisation(text):
    assert parse_axiom(text).name == "M-TDC"


def test_parse_list_with_nested_commas():
    axs = parse_axioms("TFC1(delta=2, delta_rel=0.5),TFC2(variant='relaxed'), M-TDC ,LNC2")
    assert [a.name for a in axs] == ["TFC1", "TFC2", "M-TDC", "LNC2"]
    assert axs[0].param("delta") == 2 and axs[0].param("delta_rel") == 0.5


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("TFC4", "did you mean"),
        ("TFC1(delt=1)", "'delta'"),
        ("TFC1(variant='relax')", "'relaxed'"),
        ("TFC1(1)", "must be named"),
        ("TFC1(delta=__import__('os'))", "must be a literal"),
        ("TFC1(delta='x')", "must be a number"),
        ("TFC1(delta=-1)", ">= 0"),
        ("TFC1(delta=1", "parentheses"),
        ("", "expected an axiom"),
    ],
)
def test_bad_strings_give_helpful_errors(text, fragment):
    with pytest.raises(ValueError, match=None) as exc:
        parse_axiom(text)
    assert fragment in str(exc.value)


def test_axiom_is_frozen_and_hashable():
    a = parse_axiom("TFC1")
    with pytest.raises(AttributeError):
        a.name = "X"  # type: ignore[misc]
    assert len({a, parse_axiom("TFC1(delta_rel=0.1)")}) == 1
    assert isinstance(Axiom.create("LNC2"), Axiom)


def test_list_axioms_covers_catalogue():
    rows = list_axioms()
    names = {r["name"] for r in rows}
    assert {"TFC1", "TFC2", "M-TDC", "LNC2"} <= names
    for r in rows:
        assert r["citation"] and r["description"] and r["arity"] in (2, 3)
        assert r["relates"] in ("documents", "queries")
        # document axioms come in variants; query-pair axioms (ARES, Q-*) have none
        assert bool(r["variants"]) == (r["relates"] == "documents"), r["name"]
        assert r["name"].startswith("Q-") == (r["relates"] == "queries"), r["name"]

"""Axiom definitions describe their parameters with the one record (ParamInfo)."""

from __future__ import annotations

import pytest

from axiomatic._params import ParamInfo
from axiomatic.axioms.catalogue import default_catalogue, get_definition
from axiomatic.axioms.spec import Axiom


def test_every_definition_has_a_record_per_parameter_a_spec_may_set() -> None:
    for d in default_catalogue():
        records = d.param_info()
        assert list(records) == [k for k in d.param_names() if not k.startswith("_")], d.name
        if d.variants:
            assert records["variant"].choices == d.variants
            assert records["variant"].default == d.default_variant
        for key, default in d.params.items():
            if not key.startswith("_"):
                assert records[key].default == default
                records[key].check(default)


def test_tfc1_records_and_the_engine_agree() -> None:
    records = get_definition("TFC1").param_info()
    assert records["variant"] == ParamInfo(
        "variant",
        "str",
        "relaxed",
        choices=("strict", "extended", "relaxed"),
        description="the form of the axiom (strict, extended or relaxed)",
    )
    assert (records["delta_rel"].low, records["delta_rel"].type) == (0, "float | None")
    with pytest.raises(ValueError, match="must be a finite number >= 0"):
        records["delta"].check(-1)
    with pytest.raises(ValueError, match="delta must be >= 0"):
        Axiom.create("TFC1", delta=-1)
    with pytest.raises(ValueError, match="must be one of 'strict', 'extended', 'relaxed'"):
        records["variant"].check("loose")
    with pytest.raises(ValueError, match="has no variant 'loose'"):
        Axiom.create("TFC1", variant="loose")
    assert get_definition("LB1").param_info()["margin"] == ParamInfo(
        "margin",
        "float",
        0.1,
        description="relative tolerance within which the two documents' base scores count as close",
    )

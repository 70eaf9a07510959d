"""Axiom definitions describe their parameters with the one record (ParamInfo)."""

from __future__ import annotations

import pytest

from axiomatic._params import ParamInfo
from axiomatic.axioms.catalogue import default_catalogue, get_definition
from axiomatic.axioms.spec import Axiom, parse_axiom


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


def test_the_query_pair_ranges_are_the_kernels_own_check() -> None:
    """Each query-pair parameter's record states the range ``check_params`` enforces: a value
    at the bound parses and passes the kernel's check, one beyond it is refused by both."""
    from axiomatic._params import ParamInfo
    from axiomatic.axioms.catalogue import default_catalogue
    from axiomatic.axioms.kernels.queries import check_params

    seen = []
    for d in default_catalogue():
        for key, info in d.param_info().items():
            if key in ("variant", "delta", "delta_rel") or not d.name.startswith("Q-"):
                continue
            assert isinstance(info, ParamInfo) and info.low is not None, (d.name, key)
            seen.append(f"{d.name}.{key}{info.range_text()}")
            low = int(info.low)
            assert dict(parse_axiom(f"{d.name}({key}={low})").params)[key] == low
            check_params(d.name, {key: low})
            for below in (low - 1, low - 0.5):
                with pytest.raises(ValueError, match=f"{d.name}: parameter {key} must be"):
                    parse_axiom(f"{d.name}({key}={below})")
                with pytest.raises(ValueError):
                    check_params(d.name, {key: below})
    assert seen == [
        "Q-RANK.depth>= 1",
        "Q-RANK.k1>= 0",
        "Q-RANK.b>= 0",
        "Q-REP-QL.mu>= 0",
        "Q-STM-2.threshold>= 0",
        "Q-STM-3.threshold>= 0",
    ]

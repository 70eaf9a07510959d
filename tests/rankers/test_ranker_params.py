"""Ranker families describe their parameters with the one record (ParamInfo): type from the
factory's annotation, default from its signature, description where the family gives one;
``list_rankers`` and ``axiomatic rankers`` show them."""

from __future__ import annotations

import inspect
import json

import pytest
from typer.testing import CliRunner

from axiomatic._params import ParamInfo
from axiomatic.cli.main import app
from axiomatic.rankers.registry import RANKERS, list_rankers, register_ranker


def test_every_familys_records_match_its_factory_signature() -> None:
    for info in list_rankers():
        family = RANKERS.get(info.name)
        signature = inspect.signature(family.factory).parameters
        assert list(info.param_info) == list(info.params), info.name
        for key, record in info.param_info.items():
            assert record.name == key and record.default == info.params[key]
            assert record.type == signature[key].annotation, (info.name, key)


def test_bm25s_records() -> None:
    bm25 = {i.name: i for i in list_rankers()}["bm25"].param_info
    assert bm25["k1"] == ParamInfo("k1", "float", 0.9, description="term-frequency saturation")
    assert bm25["delta"].type == "float | None" and bm25["delta"].default is None
    assert bm25["variant"].description == "robertson, lucene, atire, bm25l or bm25+"


def test_a_registered_family_describes_its_parameters() -> None:
    @register_ranker("toyp", description="toy", params={"w": "the weight"})
    def toyp(context, w: float = 2.0, n: int = 3):
        raise NotImplementedError

    try:
        info = {i.name: i for i in list_rankers()}["toyp"]
        assert info.param_info == {
            "w": ParamInfo("w", "float", 2.0, description="the weight"),
            "n": ParamInfo("n", "int", 3),
        }
    finally:
        RANKERS.unregister("toyp")
    with pytest.raises(TypeError, match="has no parameter 'x' to describe"):
        register_ranker("toyq", params={"x": "nothing"})(toyp)
    assert "toyq" not in RANKERS


def test_the_rankers_command_lists_the_records() -> None:
    res = CliRunner().invoke(app, ["rankers", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)}
    assert set(rows) == {i.name for i in list_rankers()}
    for info in list_rankers():
        expected = "; ".join(
            f"{p.name}: {p.type} = {p.default!r}" + (f" ({p.description})" if p.description else "")
            for p in info.param_info.values()
        )
        assert rows[info.name]["params"] == expected
    assert rows["ql"]["params"] == (
        "mu: float = 1000.0 (Dirichlet smoothing (pseudo-count of the collection model))"
    )
    table = CliRunner().invoke(app, ["rankers"], terminal_width=400)
    assert table.exit_code == 0 and "k1: float = 0.9 (term-frequency saturation)" in table.output

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
    assert bm25["k1"] == ParamInfo(
        "k1", "float", 0.9, low=0, description="term-frequency saturation"
    )
    assert bm25["variant"].choices == ("lucene", "robertson", "atire", "bm25l", "bm25+")
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
            f"{p.name}: {p.type} = {p.default!r}"
            + (f", {p.range_text()}" if p.range_text() else "")
            + (f" ({p.description})" if p.description else "")
            for p in info.param_info.values()
        )
        assert rows[info.name]["params"] == expected
    assert rows["ql"]["params"] == (
        "mu: float = 1000.0, > 0 (Dirichlet smoothing (pseudo-count of the collection model))"
    )
    table = CliRunner().invoke(app, ["rankers"], terminal_width=400)
    assert (
        table.exit_code == 0 and "k1: float = 0.9, >= 0 (term-frequency saturation)" in table.output
    )


def test_the_ranges_of_the_records_are_the_rankers_own_checks() -> None:
    """A value at a record's bound is one the ranker takes, a value beyond it one it refuses
    (the spec is checked against the record, the ranker object by its own ``_check``), and the
    choices are the ranker's."""
    from rankers_helpers import tiny_index

    from axiomatic.rankers.lexical import BM25_VARIANTS, BM25Ranker, QLRanker, RM3Ranker
    from axiomatic.rankers.registry import BM25_VARIANT_NAMES
    from axiomatic.rankers.runfile import MISSING_POLICIES

    assert (
        tuple(BM25_VARIANTS)
        == BM25_VARIANT_NAMES
        == RANKERS.get("bm25").param_info["variant"].choices
    )
    assert RANKERS.get("run").param_info["missing"].choices == MISSING_POLICIES
    ix = tiny_index()
    checked = 0
    for name, cls in (("bm25", BM25Ranker), ("ql", QLRanker), ("rm3", RM3Ranker)):
        for key, info in RANKERS.get(name).param_info.items():
            step = 1 if info.type == "int" else 0.25
            cases = []
            if info.low is not None:
                cases += [(info.low, not info.low_open), (info.low - step, False)]
            if info.high is not None:
                cases += [(info.high, not info.high_open), (info.high + step, False)]
            for value, taken in cases:
                value = int(value) if info.type == "int" else float(value)
                extra = {"variant": "bm25l"} if key == "delta" else {}
                ranker = cls(ix, **{key: value}, **extra)
                checked += 1
                if taken:
                    ranker._check()
                else:
                    with pytest.raises(ValueError):
                        ranker._check()
    assert checked == 20


def test_a_family_may_give_a_range_that_its_specs_are_checked_against() -> None:
    from rankers_helpers import tiny_dataset

    from axiomatic.rankers.registry import RankerSpecError, make_ranker

    @register_ranker("toyr", params={"w": ParamInfo("w", low=0, description="the weight")})
    def toyr(context, w: float = 1.0):
        return ("toyr", w)

    try:
        assert RANKERS.get("toyr").param_info["w"] == ParamInfo(
            "w", "float", 1.0, low=0, description="the weight"
        )
        assert make_ranker("toyr:w=0", tiny_dataset()) == ("toyr", 0.0)  # the bound is in
        with pytest.raises(RankerSpecError) as err:
            make_ranker("toyr:w=-1", tiny_dataset())
        assert str(err.value) == (
            "parameter 'w' of ranker 'toyr' in spec 'toyr:w=-1' must be a finite number >= 0 "
            "(got -1.0, a number)"
        )
    finally:
        RANKERS.unregister("toyr")


def test_the_llm_and_prp_records_are_their_rankers_own_checks(monkeypatch) -> None:
    """The closed sets and bounds of the LLM families are checked records: a spec beyond one is
    refused before any model is loaded, with the record's words; the same value given to the
    ranker object directly is refused by the object's own check, and a value at the bound is
    taken by both."""
    from axiomatic.data.records import Dataset
    from axiomatic.rankers import llm as llm_mod
    from axiomatic.rankers.llm import METHODS, PairwiseLLMRanker
    from axiomatic.rankers.orders import ORDERS
    from axiomatic.rankers.registry import make_ranker

    prp = RANKERS.get("prp").param_info
    assert prp["method"].choices == METHODS and prp["order"].choices == ORDERS
    assert (prp["k"].low, prp["passes"].low) == (2, 1)
    for family in ("llm", "smollm2", "prp"):
        info = RANKERS.get(family).param_info
        assert (info["batch_size"].low, info["max_doc_tokens"].low) == (1, 1)

    def no_load(*args, **kwargs):
        raise AssertionError("a model was loaded for a spec the records refuse")

    monkeypatch.setattr(llm_mod, "build_llm_ranker", no_load)
    empty = Dataset(name="empty", documents={}, queries={}, qrels={})
    for spec, words in (
        ("prp:smollm2,order=wns", "did you mean 'wins'"),
        ("prp:smollm2,method=slide", "one of 'allpairs', 'sliding'"),
        ("prp:smollm2,k=1", "integer >= 2"),
        ("prp:smollm2,passes=0", "integer >= 1"),
        ("smollm2:batch_size=0", "integer >= 1"),
        ("llm:x.gguf,max_doc_tokens=0", "integer >= 1"),
    ):
        with pytest.raises(ValueError, match=words):
            make_ranker(spec, empty)

    class Scorer:
        name = "s"

    for kwargs in ({"k": 1}, {"passes": 0}, {"method": "slide"}, {"order": "wns"}):
        with pytest.raises(ValueError):
            PairwiseLLMRanker(Scorer(), **kwargs)
    ranker = PairwiseLLMRanker(Scorer(), k=2, passes=1, method=METHODS[-1], order=ORDERS[0])
    assert (ranker.k, ranker.passes) == (2, 1)

"""Ranker families from outside the package: the public decorator, ``RANKERS.register`` and the
``axiomatic.rankers`` entry point group all reach ``make_ranker`` and every command that takes
a ranker spec (``rank``, ``diagnose``)."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import axiomatic as ax
from axiomatic.cli.main import app
from axiomatic.data.trec import read_run
from axiomatic.rankers.lexical import BM25Ranker, QLRanker, RM3Ranker
from axiomatic.rankers.registry import (
    RANKERS,
    RankerSpecError,
    list_rankers,
    make_ranker,
    parse_ranker_spec,
)

SRC = Path(__file__).resolve().parents[2] / "src"

# a third-party module: a ranker that scores by document length (whitespace tokens) times w
PLUGIN = """
import numpy as np

from axiomatic.rankers.registry import RankerContext, register_ranker


class LengthRanker:
    def __init__(self, w):
        self.w = w
        self.name = f"toylen(w={w:g})"

    def score(self, query, documents):
        return np.array([self.w * len(d.text.split()) for d in documents], dtype=float)


@register_ranker("toylen", description="longer documents first", example="toylen:w=2")
def toylen(context: RankerContext, w: float = 1.0):
    return LengthRanker(w)
"""


def _length_scores(ds, w: float) -> dict[str, dict[str, float]]:
    return {
        q: {d: w * len(ds.documents[d].text.split()) for d in ds.candidate_ids(q)}
        for q in ds.queries
    }


@pytest.fixture
def toylen(tmp_path: Path, monkeypatch):
    """The plugin module imported from tmp_path (not a module of the package)."""
    (tmp_path / "toylen_plugin.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toylen_plugin")
    yield module
    RANKERS.unregister("toylen")
    sys.modules.pop("toylen_plugin", None)


def test_a_family_registered_by_name_is_made_by_make_ranker() -> None:
    """``RANKERS.register(name, factory)`` and then ``make_ranker(name, ds)`` (this raised
    ``KeyError('path')`` when make_ranker was a chain of ifs over the built-in names)."""
    ds = ax.load_dataset("demo")

    def bm25plus(context, k1: float = 1.2, b: float = 0.75):
        """BM25 under other defaults."""
        return BM25Ranker(context.collection_index(), k1=k1, b=b)

    RANKERS.register("bm25plus", bm25plus)
    try:
        made = make_ranker("bm25plus:b=0.5", ds)
        assert isinstance(made, BM25Ranker) and (made.k1, made.b) == (1.2, 0.5)
        reference = make_ranker("bm25:k1=1.2,b=0.5", ds)
        assert ax.rerank(made, ds) == ax.rerank(reference, ds)
        info = {i.name: i for i in list_rankers()}["bm25plus"]
        assert info.params == {"k1": 1.2, "b": 0.75}
        assert info.description == "BM25 under other defaults."
        with pytest.raises(RankerSpecError, match=r"unknown parameter 'k' .*did you mean 'k1'"):
            make_ranker("bm25plus:k=1", ds)
    finally:
        RANKERS.unregister("bm25plus")
    with pytest.raises(RankerSpecError, match="unknown ranker 'bm25plus'"):
        make_ranker("bm25plus", ds)


def test_the_built_in_families_are_registry_entries_with_the_classes_defaults() -> None:
    """Every family is one entry of one registry; a lexical factory's parameters are its
    class's constructor parameters with the same defaults."""
    families = {f: RANKERS.get(f) for f in RANKERS}
    assert set(families) >= {"bm25", "ql", "rm3", "tfidf", "run", "model", "st", "minilm"}
    for name, cls in (("bm25", BM25Ranker), ("ql", QLRanker), ("rm3", RM3Ranker)):
        ctor = inspect.signature(cls).parameters
        expected = {k: p.default for k, p in ctor.items() if k != "index"}
        assert dict(families[name].params) == expected, name
    assert dict(families["tfidf"].params) == {}
    assert dict(families["run"].params) == {"missing": "nan", "name": None}
    assert [f for f, fam in families.items() if fam.path] == [
        "run",
        "model",
        "st",
        "cross-encoder",
        "hf",
        "llm",
        "prp",
    ]
    assert dict(families["minilm"].params) == {"bf16": None}  # float32 unless asked
    with pytest.raises(RankerSpecError, match="ranker 'tfidf' takes no parameters"):
        make_ranker("tfidf:x=1", ax.load_dataset("demo"))


def test_a_decorated_plugin_ranks_and_is_diagnosed_from_the_cli(tmp_path: Path, toylen) -> None:
    ds = ax.load_dataset("demo")
    assert parse_ranker_spec("TOYLEN:w=2") == ("toylen", {"w": 2})
    runner = CliRunner()
    run_file = tmp_path / "toy.trec"
    res = runner.invoke(app, ["rank", "-d", "demo", "-r", "toylen:w=2", "-o", str(run_file)])
    assert res.exit_code == 0, res.output
    run = read_run(run_file)
    expected = _length_scores(ds, 2.0)
    assert {q: dict(r) for q, r in run.items()} == expected  # whole numbers: exact

    inst, rep = tmp_path / "inst", tmp_path / "rep"
    res = runner.invoke(app, ["mine", "-d", "demo", "-a", "TFC1,LNC2", "-o", str(inst)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(
        app, ["diagnose", "-i", str(inst), "-o", str(rep), "-r", "toylen:w=2", "--no-plots"]
    )
    assert res.exit_code == 0, res.output
    # the command's table equals the Python API's diagnosis of the same ranker
    instances, artificial = ax.read_instances(inst)
    api = ax.diagnose(instances, [toylen.LengthRanker(2.0)], ds, artificial)
    table = pd.read_csv(rep / "diagnosis.csv")
    mine = table[(table["ranker"] == "toylen(w=2)") & (table["view"] == "all")]
    reference = api.table()
    reference = reference[reference["ranker"] == "toylen(w=2)"]
    assert len(mine) == 2
    for axiom in ("TFC1", "LNC2"):
        got = mine[mine["axiom"] == axiom].iloc[0]
        want = reference[reference["axiom"] == axiom].iloc[0]
        assert (got["n"], got["fulfilled"]) == (want["n"], want["fulfilled"]), axiom
    effect = pd.read_csv(rep / "effectiveness.csv")
    ndcg = effect[(effect["ranker"] == "toylen(w=2)") & (effect["measure"] == "nDCG@10")]
    assert float(ndcg["value"].iloc[0]) == pytest.approx(
        ax.evaluate(expected, ds.qrels, "nDCG@10")["nDCG@10"]
    )


def test_an_entry_point_ranker_runs_from_the_cli_in_a_fresh_process(tmp_path: Path) -> None:
    """An installed package's ``axiomatic.rankers`` entry point: nothing imports it first."""
    (tmp_path / "toyplug.py").write_text(
        textwrap.dedent('''
            import numpy as np

            class Minus:
                name = "minus-length"

                def score(self, query, documents):
                    return np.array([-len(d.text.split()) for d in documents], dtype=float)

            def minus_length(context):
                """shorter documents first"""
                return Minus()
        '''),
        encoding="utf-8",
    )
    info = tmp_path / "toyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[axiomatic.rankers]\nminus-length = toyplug:minus_length\n"
    )
    run_file = tmp_path / "m.trec"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)])}
    env["AXIOMATIC_NO_PROGRESS"] = "1"
    command = ["rank", "-d", "demo", "-r", "minus_length", "-o", str(run_file)]
    out = subprocess.run(
        [sys.executable, "-m", "axiomatic.cli.main", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    ds = ax.load_dataset("demo")
    assert {q: dict(r) for q, r in read_run(run_file).items()} == _length_scores(ds, -1.0)
    listed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import axiomatic as ax; print([r.name for r in ax.list_rankers()])",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "'minus-length'" in listed.stdout, listed.stderr


def test_the_documented_family_example_registers_and_builds() -> None:
    """docs/rankers.md, "A ranker family of your own", runs as written."""
    text = (SRC.parent / "docs" / "rankers.md").read_text(encoding="utf-8")
    section = text.split("## A ranker family of your own", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None, "docs/rankers.md lost its registration example"
    namespace: dict = {}
    exec(compile(block.group(1), "docs/rankers.md", "exec"), namespace)
    try:
        ds = ax.load_dataset("demo")
        made = make_ranker("length:w=2", ds)
        assert made.name == "length(w=2)"
        assert {q: dict(r) for q, r in ax.rerank(made, ds).items()} == _length_scores(ds, 2.0)
        assert "length" in {i.name for i in ax.list_rankers()}
        with pytest.raises(RankerSpecError, match=r"unknown parameter 'x' .*parameters: w=1.0$"):
            make_ranker("length:x=2", ds)
    finally:
        RANKERS.unregister("length")

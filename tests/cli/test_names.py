"""Names: ``--baseline`` takes the same forms in evaluate as in diagnose and is checked before any
scoring; a ranker spec and a catalog system are named by one rule; CSV output keeps names
whole; CSV and JSON outputs record the significance test and its Holm family."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from shared_data import require_collection

runner = CliRunner()


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, (args, res.output)
    return res.stdout


def test_evaluate_baseline_takes_the_spec_and_the_shown_name() -> None:
    args = ["evaluate", "-d", "demo", "-r", "bm25", "-r", "ql", "--format", "json"]
    by_spec = json.loads(_ok([*args, "--baseline", "ql"]))
    by_name = json.loads(_ok([*args, "--baseline", "QL(mu=1000)"]))
    assert by_spec["baseline"] == by_name["baseline"] == "QL(mu=1000)"
    assert by_spec["results"] == by_name["results"]
    rows = {(r["ranker"], r["measure"]): r for r in by_spec["results"]}
    assert rows[("QL(mu=1000)", "AP")]["pvalue"] is None  # the baseline has no test
    assert rows[("BM25(k1=0.9,b=0.4)", "AP")]["pvalue"] is not None


def test_evaluate_checks_the_baseline_before_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    import axiomatic.cli.data_cmds as data_cmds

    scored: list[str] = []
    real = data_cmds.rank_run

    def spy(r, spec, ds, depth):  # type: ignore[no-untyped-def]
        scored.append(spec)
        return real(r, spec, ds, depth)

    monkeypatch.setattr(data_cmds, "rank_run", spy)
    res = runner.invoke(
        app, ["evaluate", "-d", "demo", "-r", "bm25", "-r", "ql", "--baseline", "qll"]
    )
    assert res.exit_code == 2
    assert "--baseline 'qll' (did you mean 'ql'?) is not one of the runs" in res.output
    assert scored == []  # refused before any ranker scored a query


def test_evaluate_csv_keeps_long_names_and_records_the_test() -> None:
    text = _ok(
        ["evaluate", "-d", "demo", "-r", "rm3", "-r", "bm25", "--measures", "AP",
         "--test", "wilcoxon", "--format", "csv"]
    )  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(text)))
    from axiomatic.data.catalog import load_dataset
    from axiomatic.rankers.registry import make_ranker

    full = make_ranker("rm3", load_dataset("demo")).name
    assert len(full) > 24 and "…" not in text
    assert [r["ranker"] for r in rows] == [full, "BM25(k1=0.9,b=0.4)"]
    assert {r["test"] for r in rows} == {"wilcoxon"}
    assert {r["family"] for r in rows} == {
        f"paired Wilcoxon signed-rank test vs {full}; Holm over the 1 ranker compared on each "
        "measure"
    }


def test_diagnose_report_csv_and_json_record_the_test_and_family(tmp_path: Path) -> None:
    inst = tmp_path / "inst"
    _ok(["mine", "-d", "demo", "-a", "TFC1", "-o", str(inst)])
    out = tmp_path / "report"
    _ok(["diagnose", "-i", str(inst), "-r", "bm25", "-r", "ql", "--no-plots", "-o", str(out),
         "--test", "wilcoxon"])  # fmt: skip
    family = (
        "paired Wilcoxon signed-rank test vs BM25(k1=0.9,b=0.4); Holm over the 1 ranker "
        "compared on each measure"
    )
    rows = list(csv.DictReader((out / "effectiveness.csv").open(encoding="utf-8")))
    assert rows and {r["test"] for r in rows} == {"wilcoxon"}
    assert {r["family"] for r in rows} == {family}
    doc = json.loads((out / "diagnosis.json").read_text(encoding="utf-8"))
    assert doc["effectiveness"]["test"] == "wilcoxon"
    assert doc["effectiveness"]["family"] == family
    assert doc["effectiveness"]["baseline"] == "BM25(k1=0.9,b=0.4)"
    assert family in (out / "report.html").read_text(encoding="utf-8")  # as the page says


def test_a_spec_and_a_catalog_system_are_named_by_one_rule() -> None:
    require_collection("msmarco-passage-trecdl")
    t0 = time.perf_counter()
    res = runner.invoke(
        app,
        ["evaluate", "-d", "trec-dl-2019/bm25", "--run", "trec-dl-2019/bm25", "-r", "bm25",
         "--measures", "nDCG@10", "--baseline", "bm25", "--format", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    # the toolkit's BM25 by its parameters, Anserini's run by its catalog name: never two "bm25"
    assert [r["ranker"] for r in doc["results"]] == ["trec-dl-2019/bm25", "BM25(k1=0.9,b=0.4)"]
    assert doc["baseline"] == "BM25(k1=0.9,b=0.4)"  # the spec typed, as diagnose takes it
    assert time.perf_counter() - t0 < 600


def test_diagnose_csvs_keep_names_the_tables_shorten(tmp_path: Path) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.rankers.registry import make_ranker

    full = make_ranker("rm3", load_dataset("demo")).name
    inst = tmp_path / "inst"
    _ok(["mine", "-d", "demo", "-a", "TFC1", "-o", str(inst)])
    out = tmp_path / "report"
    args = ["diagnose", "-i", str(inst), "-r", "rm3", "-r", "bm25", "--no-plots", "-o", str(out)]
    text = _ok([*args, "--format", "csv"])
    assert [r["ranker"] for r in csv.DictReader(io.StringIO(text))] == [
        full, "BM25(k1=0.9,b=0.4)", "oracle"
    ]  # fmt: skip
    for name in ("diagnosis.csv", "effectiveness.csv", "overview.csv", "mcnemar.csv"):
        written = (out / name).read_text(encoding="utf-8")
        assert "…" not in written and full in written, name
    shown = runner.invoke(app, args)  # the terminal table shortens it, with a legend
    assert "…" in shown.output

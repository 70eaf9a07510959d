"""``axiomatic experiment acrank2023 --quick``: every row kind trains and evaluates on the demo
data, the report has the tables / p-values / diagnosis / plots, and a second call retrains
nothing; bad plans fail before any work."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.experiments.acrank2023 import Unit, row_unit
from axiomatic.experiments.engine import run_experiment


def test_acrank2023_quick_end_to_end_and_resume(tmp_path) -> None:
    out = tmp_path / "acrank"
    runner = CliRunner()
    res = runner.invoke(app, ["experiment", "acrank2023", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    results = json.loads((out / "results.json").read_text())
    rows = {r["row"]: r for r in results["rows"]}
    assert {"KNRM", "cross-encoder", "AP(TFC-A&D)", "ACRank(TFC-A&D)", "w/L() TFC-A&D"} <= set(rows)
    ce = rows["cross-encoder"]
    assert 0.0 <= ce["NDCG@10"] <= 1.0 and 0.0 <= ce["p NDCG@10 vs ACRank(TFC-A&D)"] <= 1.0
    assert [r["p"] for r in results["p_sweep"]] == [0.5, 1.0]
    diag = results["diagnosis"]["demo"]
    assert set(diag["agreement"]) == {"cross-encoder", "ACRank(TFC-A&D)"}
    summary = (out / "summary.md").read_text()
    assert "Tables 3/4" in summary and "Augmentation counts" in summary
    # one significance policy: Holm over the rows compared with the variant on one
    # measure, stated under each table
    family = results["significance"]["demo|demo/test|ACRank(TFC-A&D)"]
    n = len({r["row"] for r in results["rows"] if r["test"] == "demo/test"}) - 1
    assert family == (
        f"paired t-test vs ACRank(TFC-A&D); Holm over the {n} rows compared on each measure"
    )
    assert family in summary
    assert (out / "acrank_p_demo.png").exists() and (out / "acrank_diagnosis_demo.png").exists()
    done = sorted(out.glob("runs/demo/*/seed0/test_metrics.json"))
    assert len(done) == 8 and not list(out.glob("runs/demo/*/seed0/checkpoint.pt"))
    stamps = [p.stat().st_mtime_ns for p in done]
    res = runner.invoke(app, ["experiment", "acrank2023", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert [p.stat().st_mtime_ns for p in done] == stamps  # nothing retrained


def test_rows_map_to_shared_units() -> None:
    assert row_unit("ACRank(TFC-A&D)", 0.5) == row_unit("w/E()&L() TFC-A&D", 0.5)
    assert row_unit("w/L() TFC-D", 0.3) == Unit("acrank-cls", "TFC-D", "infonce", 0.3)
    assert row_unit("AP(TFC-A)", 0.5).model == "cross-encoder"
    with pytest.raises(
        ValueError,
        match=r"^unknown acrank2023 row 'ACrank\(TFC-A\)' \(did you mean 'ACRank\(TFC-A\)'",
    ):
        row_unit("ACrank(TFC-A)", 0.5)


def test_bad_plans_fail_before_training(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"'p' must be a finite number >= 0 and <= 1 \(got 1.5"):
        run_experiment("acrank2023", tmp_path, quick=True, p=1.5)
    with pytest.raises(ValueError, match="unknown acrank2023 setting"):
        run_experiment("acrank2023", tmp_path, quick=True, stepz=3)
    bad = [{"name": "x", "train": "demo/train", "test": "demo/test", "rows": ["BERT"]}]
    with pytest.raises(ValueError, match="unknown acrank2023 row 'BERT'"):
        run_experiment("acrank2023", tmp_path, quick=True, settings=bad)
    assert not list(tmp_path.iterdir())


def test_zero_shot_depth_change_rescores_finished_units_without_retraining(tmp_path) -> None:
    """A plan that changes zero_shot_depth (the reduced run went from BM25 top-20 to top-100)
    re-scores the finished units from their saved model/ instead of keeping (and reporting)
    the old depth's run; the old run is kept aside and nothing retrains."""
    out = tmp_path / "acrank"
    setting = {
        "name": "demo",
        "train": "demo/train",
        "test": "demo/test",
        "zero_shot": ["demo"],
        "rows": ["KNRM"],
    }
    run_experiment(
        "acrank2023", out, quick=True, settings=[setting], zero_shot_depth=3, echo=lambda s: None
    )
    unit = out / "runs" / "demo" / "knrm-none-hinge" / "seed0"
    first = json.loads((unit / "run_demo.json").read_text())
    assert max(len(v) for v in first.values()) == 3
    log_stamp = (unit / "log.jsonl").stat().st_mtime_ns
    res = run_experiment(
        "acrank2023", out, quick=True, settings=[setting], zero_shot_depth=5, echo=lambda s: None
    )
    second = json.loads((unit / "run_demo.json").read_text())
    assert max(len(v) for v in second.values()) == 5
    assert json.loads((unit / "run_demo_depth3.json").read_text()) == first
    metrics = json.loads((unit / "test_metrics.json").read_text())
    assert metrics["zero_shot_depth"] == {"demo": 5}
    assert (unit / "log.jsonl").stat().st_mtime_ns == log_stamp  # not retrained
    zs = [r for r in res["rows"] if r["test"] == "demo" and r["row"] == "KNRM"]
    assert len(zs) == 1 and zs[0]["NDCG@10"] == pytest.approx(metrics["test"]["demo"]["nDCG@10"])

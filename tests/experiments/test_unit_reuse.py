"""An experiment re-run over a folder trained with other settings must not report
"all units done" with the old units' metrics under the new plan. It refuses, naming the
differing setting (old -> new); ``--overwrite`` redoes those units; a re-run with identical
settings reuses them (no training). Small plans (one KNRM row; one liu-smooth loss) keep the
scenario under a minute."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from axiomatic.cli.main import app

ACRANK_TINY = """[plan]
diagnose_rows = []

[[plan.settings]]
name = "demo"
train = "demo/train"
test = "demo/test"
rows = ["KNRM"]
diagnose = false
"""


def test_acrank2023_other_steps_are_refused_overwrite_redoes_same_reuses(tmp_path) -> None:
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(ACRANK_TINY, encoding="utf-8")
    out = tmp_path / "A"
    args = ["experiment", "acrank2023", "--quick", "--config", str(cfg), "--out", str(out)]
    runner = CliRunner()
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    metrics = out / "runs" / "demo" / "knrm-none-hinge" / "seed0" / "test_metrics.json"
    assert json.loads(metrics.read_text())["steps"] == 2
    results = (out / "results.json").read_text()

    res = runner.invoke(app, [*args, "--steps", "6"])
    assert res.exit_code == 2, res.output
    assert "steps 2 -> 6" in res.output and "--overwrite" in res.output
    assert "all units done" not in res.output
    assert json.loads(metrics.read_text())["steps"] == 2
    assert (out / "results.json").read_text() == results  # not re-reported as a 6-step plan
    assert "steps = 2" in (out / "config.toml").read_text()  # the plan as run stays recorded

    res = runner.invoke(app, [*args, "--steps", "6", "--overwrite"])
    assert res.exit_code == 0, res.output
    assert "seed=0:" in res.output  # trained again
    assert json.loads(metrics.read_text())["steps"] == 6
    assert json.loads((out / "results.json").read_text())["plan"]["steps"] == 6
    stamp = metrics.stat().st_mtime_ns

    res = runner.invoke(app, [*args, "--steps", "6"])  # identical settings: reused
    assert res.exit_code == 0, res.output
    assert "seed=0:" not in res.output and metrics.stat().st_mtime_ns == stamp

    # a report under the 2-step plan does not present the 6-step unit as one of its rows
    res = runner.invoke(app, [*args, "--report-only"])
    assert res.exit_code == 0, res.output
    assert "not reported" in res.output
    assert json.loads((out / "results.json").read_text())["rows"] == []


LIU_TINY = """[plan]
parts = ["table2"]
losses = ["sosl"]
epochs = 1
"""


def test_liu_smooth_other_embedding_size_is_refused_overwrite_redoes(tmp_path) -> None:
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(LIU_TINY, encoding="utf-8")
    wider = tmp_path / "wider.toml"
    wider.write_text(LIU_TINY + "embedding_dim = 8\n", encoding="utf-8")
    out = tmp_path / "L"
    args = ["experiment", "liu-smooth", "--quick", "--out", str(out), "--config"]
    runner = CliRunner()
    res = runner.invoke(app, [*args, str(cfg)])
    assert res.exit_code == 0, res.output
    (done,) = out.glob("runs/synthetic/xx/avg/sosl/*/seed0/test_metrics.json")
    first = done.read_text()

    # the unit folder name holds eps, thresholds, nr, clip, epochs, lr, batch size but not the
    # embedding size: the old code reused the 16-dimensional unit under the 8-dimensional plan
    res = runner.invoke(app, [*args, str(wider)])
    assert res.exit_code == 2, res.output
    assert "embedding_dim 16 -> 8" in res.output and "--overwrite" in res.output
    assert done.read_text() == first

    res = runner.invoke(app, [*args, str(wider), "--overwrite"])
    assert res.exit_code == 0, res.output
    assert "seed=0:" in res.output
    assert json.loads((done.parent / "unit.json").read_text())["settings"]["embedding_dim"] == 8
    stamp = done.stat().st_mtime_ns

    res = runner.invoke(app, [*args, str(wider)])  # identical settings: reused
    assert res.exit_code == 0, res.output
    assert "seed=0:" not in res.output and done.stat().st_mtime_ns == stamp

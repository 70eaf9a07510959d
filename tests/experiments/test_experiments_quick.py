"""The experiments run end to end at CI size, write their outputs and resume without retraining."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from axiomatic.cli.main import app


def test_rosset2019_quick_runs_and_resumes(tmp_path) -> None:
    out = tmp_path / "rosset"
    runner = CliRunner()
    res = runner.invoke(app, ["experiment", "rosset2019", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    summary = (out / "summary.md").read_text()
    assert "| demo/train | 6 | knrm | base | 2 |" in summary
    assert "agree TFC1-A" in summary
    results = json.loads((out / "results.json").read_text())
    ar = [r for r in results["rows"] if r["variant"].startswith("ar-all")]
    assert ar and "MRR@10 p" in ar[0] and 0.0 <= ar[0]["MRR@10 p"] <= 1.0
    # one significance policy: Holm over the AR variants of the table compared with
    # the same base model on one measure, stated under the table
    family = (
        "paired t-test vs base; Holm over the 1 AR variant compared on each measure, "
        "per dataset, size and model"
    )
    assert f"p (Holm-adjusted): {family}." in summary
    assert ar[0]["MRR@10 p"] == ar[0]["MRR@10 p raw"]  # a family of one: Holm leaves p
    assert (out / "fig1_demo_train.png").exists() and (out / "config.toml").exists()
    done = sorted(out.glob("runs/*/*/*/*/seed*/test_metrics.json"))
    assert len(done) == 4
    stamps = [p.stat().st_mtime_ns for p in out.glob("runs/*/*/*/*/seed*/checkpoint.pt")]
    res = runner.invoke(app, ["experiment", "rosset2019", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert [p.stat().st_mtime_ns for p in out.glob("runs/*/*/*/*/seed*/checkpoint.pt")] == stamps


def test_rennings_augment_quick(tmp_path) -> None:
    out = tmp_path / "rennings"
    res = CliRunner().invoke(app, ["experiment", "rennings-augment", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert [r["scheme"] for r in rows] == [
        "regular",
        "multi-graded",
        "paired",
        "paired-delta",
        "perturb",
    ]
    assert all("TFC1 fulfilled" in r for r in rows)
    family = (
        "paired Wilcoxon signed-rank test vs regular; Holm over the 4 schemes compared on "
        "each measure, per model and seed"
    )
    assert family in (out / "summary.md").read_text()
    assert all(r["AP p"] >= r["AP p raw"] for r in rows[1:] if r["AP p"] is not None)
    pools = {
        s: json.loads((out / "runs" / "knrm" / s / "seed0" / "metrics.json").read_text())["pools"]
        for s in ("regular", "paired", "multi-graded")
    }
    assert set(pools["paired"]) == {"qrels", "axiom"}
    assert pools["multi-graded"]["qrels"] >= pools["regular"]["qrels"]


def test_cli_train_and_errors(tmp_path) -> None:
    runner = CliRunner()
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        '[train]\ndataset = "demo/train"\nmodel = "knrm"\nsteps = 4\nbatch_size = 4\n'
        "model_config = {embedding_dim = 8, max_doc_len = 32}\n"
    )
    res = runner.invoke(
        app,
        [
            "train",
            "--config",
            str(cfg),
            "--regularizer",
            "ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)",
            "--out",
            str(tmp_path / "m"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "m" / "model" / "config.json").exists()
    assert 'regularizer = "ar(lambda=0.1' in (tmp_path / "m" / "config.toml").read_text()
    res = runner.invoke(app, ["train", "--dataset", "demo/train", "--regularizer", "ar(lamda=1)"])
    assert res.exit_code == 2 and "'lamda' (did you mean 'lambda'" in res.output
    res = runner.invoke(app, ["experiment", "roset2019"])
    assert res.exit_code == 2 and "rosset2019" in res.output
    # a changed configuration refuses to resume silently
    res = runner.invoke(
        app, ["train", "--config", str(cfg), "--lr", "0.5", "--out", str(tmp_path / "m")]
    )
    assert res.exit_code == 2 and "another configuration" in res.output


def test_experiment_config_errors(tmp_path) -> None:
    cfg = tmp_path / "plan.toml"
    cfg.write_text("[plan]\nseedz = [0]\n")
    res = CliRunner().invoke(
        app, ["experiment", "rosset2019", "--quick", "--config", str(cfg), "--out", str(tmp_path)]
    )
    assert res.exit_code == 2 and "seedz" in res.output

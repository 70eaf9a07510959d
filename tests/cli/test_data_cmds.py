"""CLI data commands on the built-in demo collection (no shared data needed)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.trec import read_run

runner = CliRunner()


def test_datasets_lists_demo_as_available() -> None:
    res = runner.invoke(app, ["datasets", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert '"demo"' in res.output


def test_rank_then_evaluate_roundtrip(tmp_path: Path) -> None:
    out = tmp_path / "bm25.trec"
    res = runner.invoke(
        app, ["rank", "--dataset", "demo", "--ranker", "bm25:k1=1.2,b=0.75", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    run = read_run(out)
    from axiomatic.data.demo import demo_dataset

    ds = demo_dataset()
    assert set(run) == set(ds.queries)
    for qid, docs in run.items():
        assert set(docs) == set(ds.candidate_ids(qid))
    out2 = tmp_path / "ql.trec"
    assert runner.invoke(app, ["rank", "-d", "demo", "-r", "ql", "-o", str(out2)]).exit_code == 0
    res = runner.invoke(
        app,
        [
            "evaluate",
            "--dataset",
            "demo",
            "--run",
            str(out),
            "--run",
            str(out2),
            "--measures",
            "nDCG@10 AP",
            "--per-query",
            str(tmp_path / "pq.csv"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "nDCG@10" in res.output and "bm25.trec" in res.output
    assert (tmp_path / "pq.csv").read_text().count("\n") > len(ds.queries)


def test_unknown_names_get_suggestions(tmp_path: Path) -> None:
    res = runner.invoke(app, ["rank", "--dataset", "scifakt/test", "--out", str(tmp_path / "r")])
    assert res.exit_code != 0
    assert "scifact" in res.output
    res = runner.invoke(
        app, ["rank", "--dataset", "demo", "--ranker", "bm52", "--out", str(tmp_path / "r")]
    )
    assert res.exit_code != 0
    assert "bm25" in res.output
    res = runner.invoke(
        app,
        ["evaluate", "--dataset", "demo", "--run", str(tmp_path / "nope"), "--measures", "nDCG@10"],
    )
    assert res.exit_code != 0


def test_evaluate_rejects_unknown_measure(tmp_path: Path) -> None:
    out = tmp_path / "bm25.trec"
    assert runner.invoke(app, ["rank", "-d", "demo", "-o", str(out)]).exit_code == 0
    res = runner.invoke(app, ["evaluate", "-d", "demo", "--run", str(out), "--measures", "nDGC@10"])
    assert res.exit_code != 0
    assert "nDCG" in res.output

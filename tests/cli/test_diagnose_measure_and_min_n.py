"""Through the CLI: ``diagnose --measure`` chooses the one measure of the correlation
(figure, CSV and HTML), ``--min-n`` the fewest instances a fraction needs; run files of
different depths get a warning; a second report into the same folder leaves no stale figure."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from test_cli_own_collection import _collection
from typer.testing import CliRunner

from axiomatic.cli.main import app

runner = CliRunner()
MINE = ["--axioms", "TFC1,M-TDC,LNC2", "--variant", "relaxed"]
DEEP = {"1": ["d3", "d1", "d2", "d6", "d4"], "2": ["d6", "d5", "d4", "d1", "d2"]}
SHALLOW = {"1": ["d1", "d2"], "2": ["d4", "d5"]}


def _run_file(path: Path, lists: dict[str, list[str]], tag: str) -> Path:
    path.write_text(
        "".join(
            f"{q} Q0 {d} {r + 1} {10 - r} {tag}\n"
            for q, docs in lists.items()
            for r, d in enumerate(docs)
        )
    )
    return path


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, (args, res.output)
    return res.output


def test_diagnose_measure_min_n_depth_warning_and_no_stale_files(tmp_path: Path) -> None:
    desc = _collection(tmp_path)
    inst = tmp_path / "inst"
    _ok(["mine", "-d", str(desc), "--out", str(inst), *MINE])
    deep = _run_file(tmp_path / "deep.trec", DEEP, "deep")
    shallow = _run_file(tmp_path / "shallow.trec", SHALLOW, "shallow")
    rep = tmp_path / "rep"
    base = ["diagnose", "-i", str(inst), "-r", "bm25", "-r", "ql", "-r", "tfidf"]
    runs = ["--run", str(deep), "--run", str(shallow)]
    out = _ok([*base, *runs, "-o", str(rep), "--measure", "AP", "--min-n", "2"])
    text = " ".join(out.split())
    assert "different depths" in text and "deep: 5" in text and "shallow: 2" in text
    corr = pd.read_csv(rep / "correlation.csv")
    assert set(corr["measure"]) == {"AP"} and set(corr["min_n"]) == {2}
    page = (rep / "report.html").read_text(encoding="utf-8")
    assert "Axiomatic performance vs effectiveness (AP)" in page
    assert (rep / "correlation.png").is_file() and (rep / "bars.png").is_file()
    (rep / "mine.txt").write_text("kept")

    # the same folder again, without plots and run files: no figure of the first report stays
    out = _ok([*base, "-o", str(rep), "--no-plots"])
    assert "different depths" not in out
    for png in ("bars.png", "correlation.png", "delta_sweep.png", "delta_diff.png"):
        assert not (rep / png).exists(), png
    assert (rep / "mine.txt").read_text() == "kept"
    files = json.loads((rep / "report_manifest.json").read_text())["files"]
    assert all((rep / f).is_file() for f in files)
    assert set(pd.read_csv(rep / "correlation.csv")["measure"]) == {"nDCG@10"}  # the default


def test_diagnose_help_names_measure_and_min_n() -> None:
    out = " ".join(_ok(["diagnose", "--help"]).split())
    assert "--measure" in out and "--min-n" in out

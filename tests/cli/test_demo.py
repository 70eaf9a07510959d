"""`axiomatic demo` end to end on the built-in collection (lexical rankers only, for speed)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from axiomatic.cli.main import app


def test_demo_writes_runs_instances_and_report(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    res = CliRunner().invoke(
        app, ["demo", "--out", str(out), "--no-neural", "--axioms", "TFC1,TFC2,M-TDC,LNC2,PROX1"]
    )
    assert res.exit_code == 0, res.output
    for name in ("BM25", "QL", "RM3"):
        assert any(p.name.startswith(name) for p in (out / "runs").glob("*.trec")), name
    # file names a shell takes unquoted: no parentheses, commas or '='
    for p in (out / "runs").glob("*"):
        assert all(ch.isalnum() or ch in "._-" for ch in p.name), p.name
    html = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert "<html" in html.lower() and "TFC1" in html
    diag = pd.read_csv(out / "report" / "diagnosis.csv")
    assert set(diag["axiom"]) >= {"TFC1", "M-TDC", "LNC2"}
    # QL (Dirichlet) satisfies every TFC1 instance (Fang et al. 2004): the demo must show it.
    ql = diag[(diag["axiom"] == "TFC1") & diag["ranker"].str.startswith("QL")]
    assert len(ql) == 1 and ql["n"].iloc[0] > 0 and ql["fraction"].iloc[0] == 1.0
    assert "% of axiom instances fulfilled" in res.output


def test_demo_summary_and_report_describe_what_was_mined(tmp_path: Path) -> None:
    """The demo mines extended axioms at δ* = 0: its summary and report say so (not the thesis
    table's relaxed δ* = 1.0), and the summary shows the M-TDC [equal] group the report has,
    with the report's percentages."""
    out = tmp_path / "demo"
    res = CliRunner(env={"COLUMNS": "250"}).invoke(
        app, ["demo", "--out", str(out), "--no-neural", "--axioms", "TFC1,M-TDC"]
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "extended axioms at δ* = 0 (equal lengths)" in text and "δ* = 1.0" not in text
    html = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert "Extended axioms at δ* = 0 (equal lengths)" in html or (
        "extended axioms at δ* = 0 (equal lengths)" in html
    )
    assert "relaxed axioms" not in html
    diag = pd.read_csv(out / "report" / "diagnosis.csv")
    equal = diag[diag["spec"].str.endswith(" [equal]") & (diag["axiom"] == "M-TDC")]
    assert len(equal) and equal["n"].min() > 0
    line = next(ln for ln in res.output.splitlines() if "M-TDC [equal]" in ln)
    cells = [c.strip() for c in line.replace("│", "|").split("|")[2:] if c.strip()]
    bm25 = equal[equal["ranker"].str.startswith("BM25")].iloc[0]
    assert cells[0] == f"{100 * bm25['fraction']:.0f}%"

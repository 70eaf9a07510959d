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
    # file names a shell takes unquoted (issue 12 s3): no parentheses, commas or '='
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

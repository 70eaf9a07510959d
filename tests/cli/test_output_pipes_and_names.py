"""Output that pipes and parses, names chosen by the user, warnings that
reach the terminal."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app

runner = CliRunner()


def _invoke(args: list[str]):
    res = runner.invoke(app, args)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert "Traceback" not in res.output, res.output
    return res


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("runs")
    out = {}
    for spec, name in (("bm25", "bm25.trec"), ("ql", "ql.trec")):
        p = d / name
        assert _invoke(["rank", "-d", "demo", "-r", spec, "-o", str(p)]).exit_code == 0
        out[spec] = p
    return out


def test_any_table_piped_is_markdown() -> None:
    res = _invoke(["axioms"])
    assert res.exit_code == 0
    rows = [ln for ln in res.stdout.splitlines() if ln.startswith("| ")]
    assert rows[0].startswith("| name | arity |") and rows[1].startswith("| --- |")
    assert "━" not in res.stdout and len({r.count(" | ") for r in rows}) <= 2


def test_counts_piped_is_valid_markdown() -> None:
    res = _invoke(["counts", "-d", "demo", "--axioms", "TFC1 TFC2,M-TDC LNC2"])
    assert res.exit_code == 0, res.output
    rows = [ln for ln in res.stdout.splitlines() if ln.startswith("|")]
    assert len(rows) >= 6
    n = rows[0].count("|")
    for ln in res.stdout.splitlines():
        if ln.strip() and not ln.startswith(("|", "#", "analyzer", "(")):
            raise AssertionError(f"a Markdown row broken over lines: {ln!r}")
    assert all(r.endswith("|") and r.count("|") == n for r in rows)
    assert {"TFC1", "TFC2", "M-TDC", "LNC2"} <= {r.split("|")[1].strip() for r in rows}


def test_evaluate_formats_with_pvalues_and_names(demo_runs) -> None:
    base = ["evaluate", "-d", "demo", "--run", f"base={demo_runs['bm25']}"]
    args = [*base, "--run", str(demo_runs["ql"]), "--measures", "nDCG@10,AP RR@10"]
    res = _invoke([*args, "--format", "csv"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert {r["ranker"] for r in rows} == {"base", "QL(mu=1000)"}  # tag column names the run
    assert {r["measure"] for r in rows} == {"nDCG@10", "AP", "RR@10"}
    ql = [r for r in rows if r["ranker"] != "base"]
    assert all(0 <= float(r["pvalue_holm"]) <= 1 for r in ql)
    res = _invoke([*args, "--format", "json"])
    data = json.loads(res.stdout)
    assert data["baseline"] == "base" and len(data["results"]) == 6
    res = _invoke([*args, "--format", "table"])
    assert "p=" in res.stdout  # the p-value stands next to each comparison


def test_run_names_default_to_tag_and_collisions_get_suffixes(demo_runs, tmp_path) -> None:
    a = tmp_path / "a" / "trec_results_dl19.txt"
    b = tmp_path / "b" / "trec_results_dl19.txt"
    for p in (a, b):
        p.parent.mkdir()
        p.write_text(demo_runs["bm25"].read_text().replace(" BM25", " X"), encoding="utf-8")
    lines = demo_runs["bm25"].read_text().splitlines()
    assert len({ln.split()[5] for ln in lines}) == 1
    res = _invoke(["evaluate", "-d", "demo", "--run", str(a), "--run", str(b), "--format", "csv"])
    assert res.exit_code == 0, res.output
    names = {r["ranker"] for r in csv.DictReader(io.StringIO(res.stdout))}
    # both are tagged alike and share the file name: the parent folder tells them apart
    assert names == {"a", "b"}
    c = tmp_path / "c.trec"
    c.write_text(demo_runs["ql"].read_text(), encoding="utf-8")
    res = _invoke(["evaluate", "-d", "demo", "--run", str(a), "--run", str(c), "--format", "csv"])
    assert {r["ranker"] for r in csv.DictReader(io.StringIO(res.stdout))} == {
        lines[0].split()[5].replace("BM25", "X"),
        "QL(mu=1000)",
    }  # distinct tags name the runs


def test_evaluate_run_of_another_dataset_warns_with_counts(tmp_path) -> None:
    p = tmp_path / "other.trec"
    p.write_text("zz1 Q0 d1 1 1.0 t\nzz2 Q0 d2 1 1.0 t\n", encoding="utf-8")
    res = _invoke(["evaluate", "-d", "demo", "--run", str(p)])
    assert res.exit_code == 0
    assert "matches none of the" in res.output and "2 other queries" in res.output
    assert "0 of its 2 documents are judged" in res.output


def test_library_warnings_reach_the_cli_as_one_line(monkeypatch) -> None:
    import warnings

    import axiomatic.data.catalog as catalog

    real = catalog.list_datasets

    def noisy(*a, **k):
        warnings.warn("something looks wrong (3 of 5)", UserWarning, stacklevel=2)
        return real(*a, **k)

    monkeypatch.setattr(catalog, "list_datasets", noisy)
    res = _invoke(["datasets"])
    assert "warning: something looks wrong (3 of 5)" in res.output
    assert "UserWarning" not in res.output


def test_diagnose_names_legend_and_oracle_note(demo_runs, tmp_path) -> None:
    import pandas as pd

    inst = tmp_path / "inst"
    assert _invoke(["mine", "-d", "demo", "-a", "TFC1 LNC2", "-o", str(inst)]).exit_code == 0
    out = tmp_path / "rep"
    res = _invoke(
        [
            "diagnose",
            "-i",
            str(inst),
            "-r",
            "tuned=bm25:k1=1.2",
            "-r",
            "ql",
            "--run",
            f"mine={demo_runs['bm25']}",
            "-o",
            str(out),
            "--no-plots",
        ]
    )
    assert res.exit_code == 0, res.output
    names = set(pd.read_csv(out / "diagnosis.csv")["ranker"])
    assert names == {"tuned", "QL(mu=1000)", "mine", "oracle"}
    assert "tuned = bm25:k1=1.2" in res.stdout and f"mine = run:{demo_runs['bm25']}" in res.stdout
    assert "note: oracle: scores each document by its relevance label" in res.stdout
    # piped: the tables are Markdown, not box drawing
    assert "| ranker | nDCG@10 |" in res.stdout and "┃" not in res.stdout
    assert "are such ties" in res.stdout
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<b>tuned</b> = <code>bm25:k1=1.2</code>" in page and "are such ties" in page
    legend = json.loads((out / "diagnosis.json").read_text())
    assert "tuned" in json.dumps(legend)


def test_demo_run_file_names_are_shell_safe() -> None:
    import re

    from axiomatic.cli.demo_cmd import safe_filename

    for name in ("BM25(k1=0.9,b=0.4)", "RM3(fb_docs=10,fb_terms=10,orig_weight=0.5)", "a b/c"):
        assert re.fullmatch(r"[A-Za-z0-9._-]+", safe_filename(name)), safe_filename(name)
    assert safe_filename("BM25(k1=0.9,b=0.4)") == "BM25-k1-0.9-b-0.4"


def test_datasets_states_the_cranfield_label_difference() -> None:
    res = _invoke(["datasets", "--pattern", "cranfield"])
    assert res.exit_code == 0, res.output
    assert "note: cranfield: labels differ from ir_datasets' irds:cranfield" in res.stdout
    data = json.loads(_invoke(["datasets", "--pattern", "cranfield", "--format", "json"]).stdout)
    assert "irds:cranfield" in data["datasets"][0]["note"]

"""``axiomatic explain`` reports progress without a terminal (a plain line every
``AXIOMATIC_LOG_EVERY`` seconds, as the README promises and as every long job does), and
``explanations.html`` has the diagnosis report's style and says what fidelity and random
fidelity mean."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.catalog import load_dataset
from axiomatic.explain import explain, write_explanation
from axiomatic.explain.model import work_units
from axiomatic.index.cache import dataset_index
from axiomatic.rankers.base import rerank
from axiomatic.rankers.registry import make_ranker

AXIOMS = "TFC1,M-AND,LNC1"


@pytest.fixture(scope="module")
def demo():
    ds = load_dataset("demo")
    return ds, dataset_index(ds)


def test_explain_logs_progress_lines_without_a_terminal(demo, monkeypatch, capsys) -> None:
    ds, index = demo
    monkeypatch.delenv("AXIOMATIC_NO_PROGRESS", raising=False)
    monkeypatch.setenv("AXIOMATIC_LOG_EVERY", "0")  # every unit: no 30 s wait in a test
    run = rerank(make_ranker("bm25", ds), ds)
    explain(ds, {"a": run, "b": run}, axioms=AXIOMS, index=index, depth=6, folds=2, n_estimators=3)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "explain 2 system(s):" in ln]
    total = 2 * work_units(ds, 2)
    assert len(lines) >= total // 2, err  # a line per unit of work here
    assert f"/{total} (" in lines[0] and "ETA" in lines[0]
    assert lines[-1].endswith("done") and f"{total}/{total} (100.0%)" in lines[-1]


def test_cli_explain_prints_progress_when_piped(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("AXIOMATIC_NO_PROGRESS", raising=False)
    monkeypatch.setenv("AXIOMATIC_LOG_EVERY", "0")
    args = ["explain", "-d", "demo", "-r", "bm25", "--axioms", AXIOMS, "--trees", "3"]
    res = CliRunner().invoke(app, [*args, "--depth", "5", "--folds", "2"])
    assert res.exit_code == 0, res.output
    assert "explain 1 system(s):" in res.output and "done" in res.output


def test_explanations_html_is_styled_and_explains_fidelity(demo, tmp_path) -> None:
    from axiomatic.report.html import CSS

    ds, index = demo
    expl = explain(
        ds,
        {"bm25": make_ranker("bm25", ds)},
        axioms=AXIOMS,
        index=index,
        depth=6,
        folds=2,
        n_estimators=3,
    )
    page = write_explanation(expl, tmp_path / "w")["html"].read_text(encoding="utf-8")
    assert f"<style>{CSS}</style>" in page  # the diagnosis report's style sheet
    assert 'class="dataframe tbl"' in page  # its table style, not bare pandas HTML
    assert "<h1>" in page and "<!DOCTYPE html>" in page
    text = " ".join(page.split())
    assert "<b>Fidelity</b> is the share" in text
    assert "<b>Random fidelity</b>" in text and "near 0.5" in text

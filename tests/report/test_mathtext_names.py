"""Names a user chose (ranker names, run tags, axiom labels, measures) are shown
literally in every figure: matplotlib reads ``$...$`` as mathtext, and a run tagged ``$\\foo{$``
crashed the report rendering after the work, leaving no ``report.html``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from toy_report import LenRanker, instance_row, toy_dataset

from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.result import instance_frame
from axiomatic.report import plots

BAD = "$\\foo{$"  # an unknown mathtext command in an unbalanced group


@pytest.fixture(scope="module")
def diag():
    rng = np.random.default_rng(1)
    ds = toy_dataset(rng)
    rows = [
        instance_row(ds, q, "TFC1", "relaxed", *rng.choice(30, 2, replace=False))
        for q in ds.queries
        for _ in range(40)
    ]
    rankers = [LenRanker(BAD, 1.0, 0.0), LenRanker("$x$", 1.0, -0.3), LenRanker("len", 0, 1)]
    return diagnose(instance_frame(rows), rankers, ds, oracle=True)


def test_plots_draw_names_with_dollar_signs(diag) -> None:
    eff = pd.Series({BAD: 0.3, "$x$": 0.4, "len": 0.1}, name="AP$\\foo{$")
    for png in (
        plots.plot_axiom_bars(diag),
        plots.plot_delta_sweep(diag),
        plots.plot_correlation(diag, eff),
    ):
        assert png.startswith(b"\x89PNG")


def test_plain_text_escapes_every_dollar() -> None:
    from axiomatic._report import plain_text

    assert plain_text(BAD) == "\\$\\foo{\\$"
    assert plain_text("no dollars") == "no dollars"
    assert plots.correlation_title(BAD, None) == "\\$\\foo{\\$"


def test_explanation_plot_draws_names_with_dollar_signs(tmp_path) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.explain import explain
    from axiomatic.explain.report import plot_explanation
    from axiomatic.rankers.registry import make_ranker

    ds = load_dataset("demo")
    expl = explain(ds, {BAD: make_ranker("bm25", ds)}, axioms="TFC1,M-AND", n_estimators=5)
    out = plot_explanation(expl, tmp_path / "e.png")
    assert out.read_bytes().startswith(b"\x89PNG")


def test_diagnose_writes_the_report_for_a_run_tagged_with_mathtext(tmp_path) -> None:
    from typer.testing import CliRunner

    from axiomatic.cli.main import app

    runner = CliRunner()
    run, inst, rep = tmp_path / "r.trec", tmp_path / "inst", tmp_path / "rep"
    for args in (
        ["rank", "-d", "demo", "-o", str(run), "--tag", BAD],
        ["mine", "-d", "demo", "-a", "TFC1", "-o", str(inst)],
        ["diagnose", "-i", str(inst), "-o", str(rep), "--run", str(run)],
    ):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
    assert (rep / "report.html").is_file() and (rep / "bars.png").is_file()

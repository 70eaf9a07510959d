"""Figures and tables that cannot mislead.

* one effectiveness measure (default nDCG@10) in correlation.csv, correlation.png and the HTML,
  named on each;
* fractions over fewer than ``min_n`` instances (run files' LNC2, n = 1-4) are left out of the
  correlations and the mean, shown hollow with their n; the mean names the axioms it averages;
* bars.png: the legend of 8+ rankers stays inside the figure, the view title above the panels;
* delta_sweep.png: a numeric δ* axis cut at the mined δ*, each ranker's own n on top;
* a 110-column terminal gets whole headers; a second report into a folder removes the first
  one's files that it does not write again.

Figures are checked by rendering them and comparing bounding boxes, as the delta-sweep legend
test of test_readable_plots.py does.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from axiomatic import demo_dataset, diagnose, make_ranker, mine, parse_axioms, read_instances
from axiomatic.rankers.base import rerank
from axiomatic.rankers.runfile import RunFileRanker
from axiomatic.report import tables
from axiomatic.report.writer import write_report

AXIOMS = "TFC1(delta_rel=0.1),TFC2(delta_rel=0.1),M-TDC(delta_rel=0.1),LNC2"
LONG = " run with a long descriptive name"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """Demo collection, six rankers and two shallow run files (two views; the runs have few
    TFC2 / M-TDC instances and no LNC2 ones), 8 rankers + the oracle, with effectiveness."""
    ds = demo_dataset()
    d = tmp_path_factory.mktemp("inst")
    mine(ds, parse_axioms(AXIOMS), d, progress=False)
    inst, art = read_instances(d)
    specs = ("bm25", "ql", "rm3", "tfidf", "b2=bm25:k1=1.5,b=0.9", "b3=bm25:k1=0.3,b=0.1")
    rankers = [make_ranker(s, ds) for s in specs]
    runs = {r.name: rerank(r, ds) for r in rankers}
    for base, depth in ((rankers[0], 5), (rankers[1], 8)):
        cut = {
            q: dict(sorted(v.items(), key=lambda kv: -kv[1])[:depth])
            for q, v in runs[base.name].items()
        }
        name = f"{base.name} top{depth}{LONG}"
        runs[name] = cut
        rankers.append(RunFileRanker(cut, name=name))
    diag = diagnose(inst, rankers, ds, art, oracle=True, missing="both")
    eff = tables.effectiveness_table(runs, ds.qrels, ["AP", "nDCG@10"])  # AP listed first
    return diag, eff


@pytest.fixture(scope="module")
def written(study, tmp_path_factory) -> dict[str, Path]:
    """One full report (plots included) of the study, with the default measure."""
    diag, eff = study
    return write_report(diag, eff, tmp_path_factory.mktemp("written") / "rep")


def _figure_of(plot, *args, **kwargs):
    """The figure ``plot`` draws (captured when it is saved) and its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    seen = []
    real = Figure.savefig

    def spy(self, *a, **k):
        seen.append(self)
        return real(self, *a, **k)

    Figure.savefig = spy
    try:
        plot(*args, **kwargs)
    finally:
        Figure.savefig = real
    fig = seen[-1]
    return fig, FigureCanvasAgg(fig).get_renderer()


def _inside_width(fig, renderer, box) -> bool:
    return fig.bbox.x0 - 1 <= box.x0 and box.x1 <= fig.bbox.x1 + 1


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


# ----------------------------------------------------------------------------- one measure
def test_correlation_csv_figure_and_html_use_one_stated_measure(
    study, written, tmp_path: Path
) -> None:
    diag, eff = study
    paths = written
    corr = pd.read_csv(paths["correlation_csv"])
    assert set(corr["measure"]) == {"nDCG@10"}  # was AP, while the HTML used nDCG@10
    page = paths["html"].read_text(encoding="utf-8")
    assert "Axiomatic performance vs effectiveness (nDCG@10)" in page
    assert "axiom (vs nDCG@10)" in page
    # the HTML table shows the CSV's numbers
    row = corr[(corr["spec"] == corr["spec"].iloc[0])].iloc[0]
    assert f"{row['kendall']:.3f}" in page
    from axiomatic.report.plots import plot_correlation

    fig, _ = _figure_of(plot_correlation, diag, eff)
    assert "nDCG@10" in fig._suptitle.get_text()
    assert {ax.get_ylabel() for ax in _panels(fig)} == {"nDCG@10"}

    paths = write_report(diag, eff, tmp_path / "ap", measure="AP", plots=False)
    assert set(pd.read_csv(paths["correlation_csv"])["measure"]) == {"AP"}
    assert "axiom (vs AP)" in paths["html"].read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- min n
def test_small_cells_are_left_out_with_their_n_and_the_mean_names_its_axioms(study) -> None:
    diag, eff = study
    own = diag.in_view(diag.view)
    counts = own.pivot(by="spec", value="n")
    tfc2 = next(s for s in counts.columns if s.startswith("TFC2"))
    runs = [r for r in counts.index if LONG in r]
    assert (counts.loc[runs, tfc2] < 20).all()  # the run files' TFC2 cells are small

    corr = tables.correlation_frame(diag, eff, min_n=20)
    row = corr[(corr["spec"] == tfc2) & (corr["view"] == diag.view)].iloc[0]
    assert row["min_n"] == 20 and row["measure"] == "nDCG@10"
    for r in runs:
        assert f"{r} (n={int(counts.loc[r, tfc2])})" in row["left_out"]
    assert row["n"] == int((counts.drop(index=diag.references)[tfc2] >= 20).sum())

    # the docs' headline: the mean over TFC1/TFC2/M-TDC, named as such
    frac, _, _, labels = tables.correlation_inputs(
        own, eff, min_n=1, mean_over=["TFC1", "TFC2", "M-TDC"]
    )
    assert labels["mean"] == "mean over TFC1, TFC2, M-TDC"
    cols = [c for c in frac.columns if c.split("(")[0] in ("TFC1", "TFC2", "M-TDC")]
    np.testing.assert_allclose(frac["mean"], frac[cols].mean(axis=1))
    # by default the mean covers only the groups every system has min_n instances of
    _, _, _, labels = tables.correlation_inputs(own, eff, min_n=1)
    assert "LNC2" not in labels.get("mean", "")  # the runs have no LNC2 instance


def test_correlation_figure_greys_small_cells_and_shows_their_n(study) -> None:
    from axiomatic.report.plots import plot_correlation

    diag, eff = study
    fig, renderer = _figure_of(plot_correlation, diag, eff, min_n=20)
    notes = [t.get_text() for ax in _panels(fig) for t in ax.texts]
    assert any(n.startswith("n=") for n in notes), notes
    hollow = [
        c
        for ax in _panels(fig)
        for c in ax.collections
        if len(c.get_facecolors()) == 0 or c.get_facecolors()[0][3] == 0
    ]
    assert hollow
    assert "fewer than 20 instances" in fig._suptitle.get_text()
    legend = fig.legends[0].get_window_extent(renderer)
    assert _inside_width(fig, renderer, legend)


# ----------------------------------------------------------------------------- bars
def test_bars_legend_of_eight_rankers_fits_and_the_view_title_clears_the_panels(study) -> None:
    from axiomatic.report.plots import plot_axiom_bars

    diag, _ = study
    assert len(diag.rankers) >= 9
    fig, renderer = _figure_of(plot_axiom_bars, diag)
    legend = fig.legends[0]
    box = legend.get_window_extent(renderer)
    assert _inside_width(fig, renderer, box), (box, fig.bbox)  # was clipped on both sides
    assert box.y0 >= fig.bbox.y0 - 1
    assert len(legend.get_texts()) == len(diag.rankers)
    for text in legend.get_texts():  # every name whole
        assert "…" not in text.get_text()
    title = fig._suptitle.get_window_extent(renderer)
    assert "own list view" in fig._suptitle.get_text()
    for ax in _panels(fig):
        panel = ax.get_tightbbox(renderer)
        assert panel.y1 <= title.y0 + 1, (panel, title)  # no collision with the view title
        assert panel.y0 >= box.y1 - 1  # nor with the legend


# ----------------------------------------------------------------------------- delta sweep
def test_delta_sweep_has_a_numeric_axis_cut_at_the_mined_delta_and_own_counts(study) -> None:
    from axiomatic.report.plots import plot_delta_sweep

    diag, _ = study
    sweep = diag.delta_sweep()
    fig, renderer = _figure_of(plot_delta_sweep, diag, sweep=sweep)
    panels = _panels(fig)
    assert panels
    for ax in panels:
        assert ax.get_xscale() == "symlog"  # numeric, not ordinal positions
        title = ax.title.get_text()
        assert "mined at δ*≤0.1" in title
        assert ax.get_xlim()[1] <= 0.11  # the axis ends at the mined δ*, as the title says
        xs = np.concatenate([line.get_xdata() for line in ax.get_lines()])
        assert set(np.round(xs, 2)) <= {round(0.01 * i, 2) for i in range(11)}
        spec = next(s for s, lab in tables.group_labels(diag).items() if lab.startswith(title[:4]))
        sub = sweep[(sweep["spec"] == spec) & ~sweep["ranker"].isin(diag.references)]
        at = sub[np.isclose(sub["delta"], 0.1)]["n"]
        want = f"{at.min()}" if at.min() == at.max() else f"{at.min()}-{at.max()}"
        texts = [t.get_text() for t in ax.texts]
        assert want in texts, (want, texts)  # each ranker's own n, not the pool's
        top = max(t.get_window_extent(renderer).y1 for t in ax.texts)
        assert ax.title.get_window_extent(renderer).y0 >= top - 1  # counts clear the title
    legend = fig.legends[0].get_window_extent(renderer)
    assert _inside_width(fig, renderer, legend)


# ----------------------------------------------------------------------------- terminal
def test_a_110_column_terminal_shows_whole_headers(study) -> None:
    from rich.console import Console

    diag, eff = study
    con = Console(record=True, width=110, file=open("/dev/null", "w"))  # noqa: SIM115
    tables.print_tables(diag, eff, console=con)
    text = con.export_text()
    header = []
    inside = False
    for line in text.splitlines():
        if line.startswith("┏"):
            inside = True
        elif line.startswith("┡"):
            inside = False
        elif inside:
            header.append(line)
    assert header and not any("…" in line for line in header), "\n".join(header)
    assert "length tolerance: TFC1 δ*≤0.1" in " ".join(text.split())
    assert max(len(line) for line in text.splitlines()) <= 110


def test_compact_columns_moves_the_tolerance_to_a_legend() -> None:
    cols, legend = tables.compact_columns(
        ["nDCG@10", "TFC1 (δ*≤1.0) [own list]", "TFC1 (strict, δ*=0) [union]", "LNC2 [union]"]
    )
    assert cols == ["nDCG@10", "TFC1\nown list", "TFC1 strict\nunion", "LNC2\nunion"]
    assert legend == "length tolerance: TFC1 δ*≤1.0; TFC1 strict δ*=0; LNC2 -"


def test_runs_of_different_depths_get_a_warning() -> None:
    run100 = {"q1": {f"d{i}": float(-i) for i in range(100)}}
    run200 = {"q1": {f"d{i}": float(-i) for i in range(200)}}
    note = tables.depth_note({"BM25": run100, "RepLLaMA": run200})
    assert note and "RepLLaMA: 200" in note and "BM25: 100" in note
    assert tables.depth_note({"a": run100, "b": dict(run100)}) is None


# ----------------------------------------------------------------------------- stale files
def test_a_new_report_removes_the_previous_reports_files_only(
    study, written, tmp_path: Path
) -> None:
    import shutil

    diag, _ = study
    out = tmp_path / "rep"
    shutil.copytree(written["html"].parent, out)
    assert (out / "correlation.png").is_file() and (out / "bars.png").is_file()
    (out / "my notes.txt").write_text("mine")
    manifest = json.loads((out / "report_manifest.json").read_text())
    assert "correlation.png" in manifest["files"] and "report.html" in manifest["files"]

    second = write_report(diag, None, out, plots=False)
    for stale in ("correlation.png", "bars.png", "delta_sweep.png", "correlation.csv"):
        assert not (out / stale).exists(), stale  # no figure of the old report stays
    assert (out / "my notes.txt").read_text() == "mine"
    assert second["html"].is_file() and (out / "diagnosis_state" / "outcomes.parquet").is_file()
    files = json.loads((out / "report_manifest.json").read_text())["files"]
    assert "bars.png" not in files and "diagnosis.csv" in files


def test_a_report_without_manifest_loses_its_known_files(study, tmp_path: Path) -> None:
    diag, _ = study
    out = tmp_path / "old"
    out.mkdir()
    for name in ("bars.png", "correlation.png", "report.html"):
        (out / name).write_bytes(b"old")
    (out / "keep.png").write_bytes(b"not a report file")
    write_report(diag, None, out, plots=False)
    assert not (out / "bars.png").exists() and not (out / "correlation.png").exists()
    assert (out / "report.html").read_bytes() != b"old"
    assert (out / "keep.png").read_bytes() == b"not a report file"


def test_delta_sweep_draws_no_panel_under_the_minimum_n(study) -> None:
    """A group with fewer than MIN_N instances at every δ* (its largest count, over the
    rankers that are not references) gets no panel; the figure names it with its n."""
    from axiomatic.report.plots import plot_delta_sweep

    diag, _ = study
    sweep = diag.delta_sweep()
    own = sweep[~sweep["ranker"].isin(diag.references)]
    most = own.groupby("spec")["n"].max()
    labels = tables.group_labels(diag)
    small = {s for s in most.index if most[s] < tables.MIN_N}
    assert small and set(most.index) - small  # the study has both kinds
    fig, _ = _figure_of(plot_delta_sweep, diag, sweep=sweep)
    titles = [ax.title.get_text() for ax in _panels(fig)]
    drawn = {s for s in most.index if any(t.startswith(labels[s].split(" (")[0]) for t in titles)}
    big = set(most.index) - small
    assert len(titles) == len(big)
    text = " ".join(t.get_text() for t in fig.texts)
    for s in small:
        assert f"(n={int(most[s])})" in text, (s, text)
    assert drawn

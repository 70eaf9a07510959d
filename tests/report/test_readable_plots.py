"""Figures readable on a laptop screen with many axioms and rankers;
correlations over few systems carry n and p, not a bare r."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from axiomatic import demo_dataset, diagnose, make_ranker, mine, parse_axioms, read_instances
from axiomatic.cli.demo_cmd import DEMO_AXIOMS


@pytest.fixture(scope="module")
def big_diagnosis(tmp_path_factory):
    ds = demo_dataset()
    d = tmp_path_factory.mktemp("inst")
    mine(ds, parse_axioms(DEMO_AXIOMS, default_variant="extended"), d, progress=False)
    inst, art = read_instances(d)
    specs = ("bm25", "ql", "rm3", "tfidf", "b2=bm25:k1=1.5,b=0.9", "b3=bm25:k1=0.3,b=0.1")
    rankers = [make_ranker(s, ds) for s in specs]
    return ds, rankers, diagnose(inst, rankers, ds, art, oracle=True)


def _size(png: bytes) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(png)).size


def test_fulfilment_chart_fits_a_laptop_screen(big_diagnosis, tmp_path: Path) -> None:
    from axiomatic.report.plots import plot_axiom_bars

    _, _, diag = big_diagnosis
    assert len(diag.groups()) >= 20 and len(diag.rankers) == 7
    w, h = _size(plot_axiom_bars(diag, tmp_path / "bars.png"))
    assert w <= 1400 and h <= 1000, (w, h)  # was 4,345 x 440 px with 25 axioms
    assert w >= 600 and h >= 400


def test_correlation_figure_has_room_per_panel(big_diagnosis) -> None:
    from axiomatic.rankers.base import rerank
    from axiomatic.report.plots import plot_correlation
    from axiomatic.report.tables import effectiveness_table

    ds, rankers, diag = big_diagnosis
    eff = effectiveness_table({r.name: rerank(r, ds) for r in rankers}, ds.qrels, "nDCG@10")
    w, h = _size(plot_correlation(diag, eff))
    assert w <= 1600, (w, h)
    for ax in _axes_of(plot_correlation, diag, eff):  # no sliver panels squeezed by labels
        box = ax.get_window_extent()
        assert box.width >= 200 and box.height >= 150, (box.width, box.height)


def _axes_of(plot, *args):
    """The visible axes of the figure ``plot`` draws (captured at savefig)."""
    from matplotlib.figure import Figure

    seen = []
    real = Figure.savefig

    def spy(self, *a, **k):
        seen.append(self)
        return real(self, *a, **k)

    Figure.savefig = spy
    try:
        plot(*args)
    finally:
        Figure.savefig = real
    return [ax for ax in seen[-1].axes if ax.get_visible()]


def test_few_systems_correlation_title_shows_n_and_p_not_bare_r() -> None:
    from axiomatic.report.plots import correlation_title

    row = pd.Series({"n": 3, "kendall": 1.0, "kendall_p": 0.33, "spearman": 1.0, "pearson": 0.99})
    title = correlation_title("TFC1", row)
    assert "n=3" in title and "p=0.33" in title and "too few" in title
    assert "r=" not in title
    row = pd.Series({"n": 8, "kendall": 0.5, "kendall_p": 0.1, "spearman": 0.6, "pearson": 0.7})
    assert "ρ=0.60" in correlation_title("TFC1", row)


@pytest.mark.parametrize("n_specs", [1, 2, 3])
def test_delta_sweep_legend_stays_inside_narrow_figures(
    big_diagnosis, monkeypatch: pytest.MonkeyPatch, n_specs: int
) -> None:
    """With one or two facets the figure is 4-8 inches wide; the legend of seven rankers with
    long names (RM3's parameters) wraps into rows instead of running past the edges."""
    from axiomatic.report import plots as P

    _, _, diag = big_diagnosis
    figs = []
    real = P._legend_layout
    monkeypatch.setattr(
        P, "_legend_layout", lambda fig, *a, **k: figs.append(fig) or real(fig, *a, **k)
    )
    sweep = diag.delta_sweep()
    sweep = sweep[sweep["spec"].isin(sorted(set(sweep["spec"]))[:n_specs])]
    P.plot_delta_sweep(diag, sweep=sweep)
    (fig,) = figs
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    box, legend = fig.bbox, fig.legends[0].get_window_extent(renderer)
    assert box.x0 <= legend.x0 and legend.x1 <= box.x1, (legend, box)
    assert box.y0 <= legend.y0
    for ax in fig.axes:  # the legend band is kept free: no panel (tick labels included) in it
        if ax.get_visible():
            assert ax.get_tightbbox(renderer).y0 >= legend.y1 - 1

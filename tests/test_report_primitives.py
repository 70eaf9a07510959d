"""The report primitives at the bottom layer: one Markdown table writer, and
figures that never switch the caller's matplotlib backend.

A library function that called ``matplotlib.use("Agg")`` switched the backend of the notebook
that called it (its later ``plt.show()`` drew nothing); every plotting function of the package
now draws on a figure of its own canvas, and the backend test below checks the ones that used
to switch it, under a backend other than Agg that works without a display.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from axiomatic._report import (
    FIGURE_DPI,
    markdown_frame,
    markdown_table,
    new_figure,
    plain_text,
    save_figure,
)

PNG = b"\x89PNG"


# ----------------------------------------------------------------------------- tables
def test_markdown_table_literal() -> None:
    rows = [
        {"system": "bm25", "AP": 0.25, "n": 3, "note": None},
        {"system": "a|b", "AP": math.nan, "n": 10},  # absent key, NaN, a pipe in a name
        {"system": "two\nlines", "AP": 1.0, "n": True, "note": "ok"},
    ]
    expected = (
        "| system | AP | n | note |\n"
        "|---|---|---|---|\n"
        "| bm25 | 0.2500 | 3 |  |\n"
        "| a\\|b |  | 10 |  |\n"
        "| two lines | 1.0000 | True | ok |"
    )
    assert markdown_table(rows, ["system", "AP", "n", "note"]) == expected


def test_markdown_table_aligned_sequences_and_float_formats() -> None:
    rows = [("x", 0.12345, None), ("y|z", math.nan, 2)]
    out = markdown_table(
        rows, ["name", "p", "k|v"], floats="{:.2g}", missing="-", align=["", "right", "center"]
    )
    assert out == (
        "| name | p | k\\|v |\n| --- | ---: | :---: |\n| x | 0.12 | - |\n| y\\|z | - | 2 |"
    )
    assert markdown_table([(1.5,)], ["v"], floats=lambda v: f"<{v}>") == "| v |\n|---|\n| <1.5> |"


def test_markdown_table_refuses_ragged_rows_and_unknown_alignments() -> None:
    with pytest.raises(ValueError, match="a row has 1 cells for 2 columns"):
        markdown_table([("x",)], ["a", "b"])
    with pytest.raises(ValueError, match="unknown alignment \\['middle'\\]"):
        markdown_table([], ["a"], align=["middle"])
    with pytest.raises(ValueError, match="align has 2 entries for 1 columns"):
        markdown_table([], ["a"], align=["", ""])


def test_markdown_frame_with_index() -> None:
    frame = pd.DataFrame(
        {"AP": [0.5, math.nan], "tag": ["a", "b|c"]}, index=pd.Index(["r1", "r2"], name="ranker")
    )
    assert markdown_frame(frame, index=True, floats="{:.1f}", align=["", "right", "right"]) == (
        "| ranker | AP | tag |\n| --- | ---: | ---: |\n| r1 | 0.5 | a |\n| r2 |  | b\\|c |"
    )
    assert markdown_frame(frame.reset_index(drop=True)).splitlines()[:2] == [
        "| AP | tag |",
        "|---|---|",
    ]


def test_report_and_cli_tables_use_the_one_writer() -> None:
    """The diagnosis report's and the CLI's Markdown tables go through the primitive: a ``|``
    in a header (``|Δlen|≤5`` labels) is escaped there too."""
    from rich.table import Table

    from axiomatic.cli.common import table_markdown
    from axiomatic.report.tables import to_markdown

    frame = pd.DataFrame({"TFC1 (|Δlen|≤5)": ["50.0"]}, index=pd.Index(["bm25"], name="ranker"))
    assert to_markdown(frame) == (
        "| ranker | TFC1 (\\|Δlen\\|≤5) |\n| --- | ---: |\n| bm25 | 50.0 |"
    )
    t = Table(title="T", caption="c")
    t.add_column("name")
    t.add_column("v|w", justify="right")
    t.add_row("[b]x[/b]", "1")
    assert table_markdown(t) == "**T**\n\n| name | v\\|w |\n| --- | ---: |\n| x | 1 |\n\nc\n"


# ----------------------------------------------------------------------------- figures
def test_plain_text_escapes_dollars() -> None:
    assert plain_text("$\\foo{$") == "\\$\\foo{\\$" and plain_text(3) == "3"


def test_save_figure_is_atomic_and_takes_the_format_from_the_name(tmp_path: Path) -> None:
    fig, ax = new_figure(figsize=(2, 1.5))
    ax.plot([0, 1], [1, 0], label=plain_text("$\\foo{$"))
    ax.legend()
    assert fig.dpi == FIGURE_DPI
    png = save_figure(fig, tmp_path / "sub" / "f.png")
    pdf = save_figure(fig, tmp_path / "f.pdf")
    assert png.read_bytes().startswith(PNG) and pdf.read_bytes().startswith(b"%PDF")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["f.pdf", "f.png", "sub"]  # no .tmp
    _, axes = new_figure(2, 3, figsize=(3, 2), squeeze=False)
    assert axes.shape == (2, 3)


@pytest.fixture
def svg_backend():
    """A backend other than Agg that works headless, restored afterwards."""
    import matplotlib

    before = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        yield "svg"
    finally:
        matplotlib.use(before)


def _draw_everything(tmp_path: Path) -> list[Path]:
    """Call every plotting function that used to run ``matplotlib.use("Agg")``."""
    from axiomatic.experiments import ares2022
    from axiomatic.experiments.acrank2023 import ACRank2023, ACRankPlan
    from axiomatic.experiments.liu_smooth import LiuPlan, LiuSmooth
    from axiomatic.experiments.rosset2019.plan import RossetPlan
    from axiomatic.experiments.rosset2019.run import Rosset2019

    out = [
        ares2022.plot_importances(
            {
                "features": ["TFC1", "LNC1"],
                "settings": {"I": {"importance": {"TFC1": 1, "LNC1": 0.5}}},
            },
            tmp_path / "importances.png",
        ),
        ares2022.plot_few_shot(
            {"a": {"model": "ARES_simple", "n_queries": 2, "means": {"RR@10": 0.3}}},
            {"t": {"means": {"ARES_simple": {"RR@10": 0.2}, "BM25": {"RR@10": 0.25}}}},
            "t",
            tmp_path / "few.png",
        ),
    ]
    metrics = {"NDCG@1": 0.2, "NDCG@10": 0.3, "MAP": 0.25}
    figs = ACRank2023(ACRankPlan.quick(), tmp_path / "acrank").figures(
        {
            "rows": [{"table": "main", "setting": "s", "test": "t", "row": "BERT", **metrics}],
            "p_sweep": [{"setting": "s", "p": 0.1, "rule": "TFC-A", **metrics}],
            "diagnosis": {
                "s": {"fulfilment": {"m": {"TFC1": 0.6}}, "agreement": {"m": {"TFC1": 0.7}}}
            },
        }
    )
    out += [save_figure(fig, tmp_path / "acrank" / name) for name, fig in figs.items()]
    rosset = Rosset2019(RossetPlan.quick(), tmp_path / "rosset")
    row = {"variant": "base", "dataset": "demo/test", "model": "knrm", "size": 6, "MRR@10": 0.4}
    figs = rosset.figures({"rows": [row, {**row, "variant": "ar-all", "MRR@10": 0.5}]})
    out += [save_figure(fig, tmp_path / "rosset" / name) for name, fig in figs.items()]
    liu = LiuSmooth(LiuPlan.quick(), tmp_path / "liu")
    curve = {"Pmr@1": 0.2, "NDCG@5": 0.3, "MAP": 0.25, "MRRmr": 0.4}
    figs = liu.figures(
        {"fig4": [{"eps": e, **curve} for e in (0, 0.1)], "fig5": [{"NR per query": 5, **curve}]}
    )
    out += [save_figure(fig, tmp_path / "liu" / name) for name, fig in figs.items()]
    return out


def test_plotting_functions_leave_the_backend_alone(tmp_path: Path, svg_backend: str) -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    figures_before = plt.get_fignums()
    written = _draw_everything(tmp_path)
    assert matplotlib.get_backend() == svg_backend
    assert plt.get_fignums() == figures_before  # nothing registered with pyplot
    assert len(written) == 2 + 3 + 1 + 2  # ares, acrank, rosset (fig. 1), liu (figs. 4, 5)
    assert all(p.read_bytes().startswith(PNG) for p in written), written


def test_explanation_plot_leaves_the_backend_alone(tmp_path: Path, svg_backend: str) -> None:
    import matplotlib

    from axiomatic.data.catalog import load_dataset
    from axiomatic.explain import explain
    from axiomatic.explain.report import plot_explanation
    from axiomatic.rankers.registry import make_ranker

    ds = load_dataset("demo")
    expl = explain(ds, {"bm25": make_ranker("bm25", ds)}, axioms="TFC1,M-AND", n_estimators=3)
    assert plot_explanation(expl, tmp_path / "e.png").read_bytes().startswith(PNG)
    assert matplotlib.get_backend() == svg_backend

"""Reports: Table 4.5/4.6 layouts, CSV/JSON, PNG plots and the self-contained HTML page."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from toy_report import LenRanker, instance_row, toy_dataset

from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.result import Diagnosis, instance_frame
from axiomatic.report import tables


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(0)
    ds = toy_dataset(rng)
    rows = []
    for q in ds.queries:
        for _k in range(60):
            a, b = rng.choice(30, 2, replace=False)
            for ax, var in (("TFC1", "strict"), ("TFC1", "relaxed"), ("M-TDC", "relaxed")):
                rows.append(instance_row(ds, q, ax, var, a, b))
    inst = instance_frame(rows)
    rankers = [LenRanker("tf", 1.0, 0.0), LenRanker("tf-len", 1.0, -0.3), LenRanker("len", 0, 1)]
    diag = diagnose(inst, rankers, ds, oracle=True)
    eff = pd.DataFrame(
        {
            "system": ["tf", "tf-len", "len"] * 2,
            "measure": ["AP"] * 3 + ["nDCG@10"] * 3,
            "value": [0.30, 0.40, 0.10, 0.5, 0.6, 0.2],
            "diff": [0.0, 0.10, -0.20, 0.0, 0.1, -0.3],
            "pvalue": [np.nan, 0.01, 0.2, np.nan, 0.001, 0.04],
            "pvalue_holm": [np.nan, 0.02, 0.2, np.nan, 0.002, 0.04],
            "significant": [False, True, False, False, True, True],
        }
    )
    return diag, eff


def test_overview_layout_and_marks(setup):
    diag, eff = setup
    ov = tables.overview_frame(diag, eff, baseline="tf")
    assert list(ov.index) == ["tf", "tf-len", "len", "oracle"]
    assert list(ov.columns[:2]) == ["AP", "nDCG@10"]
    assert ov.loc["tf-len", "AP"] == "0.400" + tables.UP
    assert ov.loc["len", "nDCG@10"] == "0.200" + tables.DOWN
    assert ov.loc["len", "AP"] == "0.100"  # not significant: no mark
    assert ov.loc["oracle", "AP"] == "-"
    # axiom columns carry the variant because TFC1 has two variants, and always their delta*
    assert "TFC1 (strict, δ*=0)" in ov.columns and "M-TDC (δ*≤0.1)" in ov.columns
    frac = (
        diag.table()
        .set_index(["ranker", "axiom", "variant"])
        .loc[("tf", "M-TDC", "relaxed"), "fraction"]
    )
    assert ov.loc["tf", "M-TDC (δ*≤0.1)"].startswith(f"{100 * frac:.1f}")


def test_variant_table_orders_variants(setup):
    diag, _ = setup
    vf = tables.variant_frame(diag, with_counts=True)
    assert list(vf.columns) == [
        "TFC1 strict (δ*=0)",
        "TFC1 relaxed (δ*≤0.1)",
        "M-TDC relaxed (δ*≤0.1)",
    ]
    n = int(diag.table().query("ranker == 'tf' and variant == 'strict'")["n"].iloc[0])
    assert vf.loc["tf", "TFC1 strict (δ*=0)"].endswith(f"({n})")


def test_markdown_and_rich_render(setup):
    diag, eff = setup
    md = tables.to_markdown(tables.overview_frame(diag, eff))
    lines = md.splitlines()
    assert lines[0].startswith("| ranker | AP |") and len(lines) == 2 + 4
    from rich.console import Console

    con = Console(record=True, width=200)
    tables.print_tables(diag, eff, console=con)
    text = con.export_text()
    assert "Axiomatic diagnosis" in text and "tf-len" in text and "TFC1 strict" in text


def test_effectiveness_from_runs_marks_significance():
    qrels = {f"q{i}": {"a": 1, "b": 0} for i in range(8)}
    good = {q: {"a": 2.0, "b": 1.0} for q in qrels}
    bad = {q: {"a": 1.0, "b": 2.0} for q in qrels}
    eff = tables.effectiveness_table({"bad": bad, "good": good}, qrels, ["AP"], baseline="bad")
    row = eff.set_index("ranker").loc["good"]
    assert row["value"] == pytest.approx(1.0) and row["diff"] == pytest.approx(0.5)
    wide = tables.effectiveness_wide(eff)
    assert wide.loc["bad", "AP"] == pytest.approx(0.5)


def test_write_report_files_plots_and_html(tmp_path, setup):
    from axiomatic.report.writer import write_report

    diag, eff = setup
    paths = write_report(
        diag, eff, tmp_path / "rep", title="Toy <diagnosis>", notes=["a note & more"]
    )
    for key in (
        "diagnosis_csv",
        "mcnemar_csv",
        "delta_sweep_csv",
        "json",
        "html",
        "bars_png",
        "delta_sweep_png",
        "delta_diff_png",
        "correlation_png",
        "correlation_csv",
    ):
        assert paths[key].is_file() and paths[key].stat().st_size > 0, key
    for png in ("bars_png", "delta_sweep_png", "correlation_png"):
        assert paths[png].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = paths["html"].read_text(encoding="utf-8")
    assert "Toy &lt;diagnosis&gt;" in page and "a note &amp; more" in page
    assert page.count("data:image/png;base64,") == 4
    assert "http://" not in page and "https://" not in page  # self-contained
    data = json.loads(paths["json"].read_text())
    assert data["summary"]["instances"] == len(diag.instances)
    back = Diagnosis.load(paths["state"])
    pd.testing.assert_frame_equal(back.table(), diag.table())
    corr = pd.read_csv(paths["correlation_csv"])
    assert set(corr["measure"]) == {"nDCG@10"} and (corr["n"] == 3).all()  # the tables' one
    assert not list(tmp_path.glob("rep/.*.tmp"))  # atomic writes leave no temp files


def test_write_report_without_effectiveness(tmp_path, setup):
    from axiomatic.report.writer import write_report

    diag, _ = setup
    paths = write_report(diag, None, tmp_path / "r2", plots=False)
    assert "correlation_png" not in paths and paths["html"].is_file()


def test_report_tables_state_the_significance_family(tmp_path, setup):
    """The overview's caption (terminal) and the HTML name the test and the Holm family
    of the effectiveness marks that :func:`effectiveness_table` used."""
    from rich.console import Console

    from axiomatic.report.html import render_html

    diag, _ = setup
    ds = toy_dataset(np.random.default_rng(0))
    runs = {}
    for r in (LenRanker("tf", 1.0, 0.0), LenRanker("tf-len", 1.0, -0.3), LenRanker("len", 0, 1)):
        runs[r.name] = {
            q: dict(
                zip(
                    ds.documents,
                    map(float, r.score(query, list(ds.documents.values()))),
                    strict=True,
                )
            )
            for q, query in ds.queries.items()
        }
    eff = tables.effectiveness_table(runs, ds.qrels, ["AP", "nDCG@10"], baseline="tf")
    family = "paired t-test vs tf; Holm over the 2 rankers compared on each measure"
    assert eff.attrs["family"] == family
    con = Console(record=True, width=400)
    tables.print_tables(diag, eff, console=con)
    assert f"measures: {family}" in " ".join(con.export_text().split())  # caption wraps
    assert f"effectiveness: {family}" in render_html(diag, eff, {})
    # a table without tests (means only) states no family
    con = Console(record=True, width=400)
    tables.print_tables(diag, tables.effectiveness_wide(eff), console=con)
    assert "measures: paired" not in con.export_text()

"""``axiomatic diagnose --band auto|top-gap|abnirml|VALUE --band-test sign|t`` on the demo: the
calibrated band of BM25 equals the median top-two gap (or ABNIRML's pooled top-10 gaps) of its
run computed by hand, the effects reach the CSV, JSON and HTML, and the probe sample's hash is
the same with and without a band."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.instances import ARTIFICIAL_FILE

runner = CliRunner()


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, (args, res.output)
    return res.output


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Path:
    inst = tmp_path_factory.mktemp("band") / "inst"
    _ok(["mine", "-d", "demo", "--axioms", "TFC1,LNC2", "--variant", "relaxed", "-o", str(inst)])
    return inst


def test_auto_band_is_the_median_top_gap_of_bm25s_run(mined: Path, tmp_path: Path) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.data.instances import read_instances
    from axiomatic.diagnose.effects import sample_hash, sample_texts
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker

    rep = tmp_path / "rep"
    out = _ok(["diagnose", "-i", str(mined), "-r", "bm25", "--band", "auto", "--no-oracle",
               "--no-plots", "-o", str(rep)])  # fmt: skip
    table = pd.read_csv(rep / "diagnosis.csv")
    ds = load_dataset("demo")
    inst, _ = read_instances(mined)
    run = rerank(make_ranker("bm25", ds), ds)
    gaps = []
    for q in sorted(set(inst["query_id"].astype(str))):
        top = sorted(run[q].values(), reverse=True)
        gaps.append(top[0] - top[1])
    assert table["delta"].unique() == pytest.approx([float(np.median(gaps))])
    assert (table["pos"] + table["neg"] + table["neutral"] == table["n"]).all()
    queries, docs = sample_texts(inst, ds, pd.read_parquet(mined / ARTIFICIAL_FILE))
    h = sample_hash(inst, query_texts=queries, doc_texts=docs)
    assert set(table["sample"]) == {h} and h in " ".join(out.split())
    data = json.loads((rep / "diagnosis.json").read_text())
    assert data["summary"]["band"] and data["table"][0]["effect"] is not None
    page = (rep / "report.html").read_text(encoding="utf-8")
    assert "Calibrated effects" in page and h in page

    plain = tmp_path / "plain"
    _ok(["diagnose", "-i", str(mined), "-r", "bm25", "--no-oracle", "--no-plots", "-o", str(plain)])
    t0 = pd.read_csv(plain / "diagnosis.csv")
    assert "delta" not in t0 and "effect" not in t0 and set(t0["sample"]) == {h}
    assert "Calibrated effects" not in (plain / "report.html").read_text(encoding="utf-8")
    pd.testing.assert_frame_equal(t0, table[list(t0.columns)])

    fixed = tmp_path / "fixed"
    _ok(["diagnose", "-i", str(mined), "-r", "bm25", "--band", "0", "--no-oracle", "--no-plots",
         "-o", str(fixed)])  # fmt: skip
    t1 = pd.read_csv(fixed / "diagnosis.csv")
    # a zero band: every instance the ranker orders strictly is pos or neg
    assert (t1["pos"] + t1["neg"] >= table["pos"] + table["neg"]).all()


def test_a_bad_band_is_one_line(mined: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["diagnose", "-i", str(mined), "-r", "bm25", "--band", "autom",
                              "-o", str(tmp_path / "r")])  # fmt: skip
    assert res.exit_code != 0
    out = " ".join(res.output.split())
    assert (
        "--band must be 'top-gap' (or 'auto'), 'abnirml' or a finite number >= 0 (got 'autom')"
        in out
    )
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["diagnose", "-i", str(mined), "-r", "bm25", "--band", "abnirml",
                              "--band-test", "ttest", "-o", str(tmp_path / "r")])  # fmt: skip
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "--band-test must be 'sign' or 't' (got 'ttest')" in " ".join(res.output.split())
    res = runner.invoke(app, ["diagnose", "-i", str(mined), "-r", "bm25", "--band-test", "t",
                              "-o", str(tmp_path / "r")])  # fmt: skip
    assert res.exit_code != 0 and "which need a band; add --band" in " ".join(res.output.split())


def test_abnirml_band_and_t_test(mined: Path, tmp_path: Path) -> None:
    """``--band abnirml --band-test t``: ABNIRML's band (the median of the adjacent gaps of each
    query's top 10, pooled) and its t-test, named in the table, the CSV and the report."""
    from scipy.stats import ttest_1samp

    from axiomatic.data.catalog import load_dataset
    from axiomatic.data.instances import read_instances
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker

    rep = tmp_path / "rep"
    out = _ok(["diagnose", "-i", str(mined), "-r", "bm25", "--band", "abnirml", "--band-test",
               "t", "--no-oracle", "--no-plots", "-o", str(rep)])  # fmt: skip
    table = pd.read_csv(rep / "diagnosis.csv")
    ds = load_dataset("demo")
    inst, _ = read_instances(mined)
    bm25 = make_ranker("bm25", ds)
    run = rerank(bm25, ds)
    gaps = []
    for q in sorted(set(inst["query_id"].astype(str))):
        top = sorted(run[q].values(), reverse=True)[:10]
        gaps += [x - y for x, y in itertools.pairwise(top)]
    assert table["delta"].unique() == pytest.approx([float(np.median(gaps))])
    assert set(table["effect_test"]) == {"t"}
    art = pd.read_parquet(mined / ARTIFICIAL_FILE)
    diag = diagnose(inst, [bm25], ds, art, band="abnirml", band_test="t")
    api = diag.table()
    np.testing.assert_allclose(table["effect_p"], api["effect_p"], rtol=1e-9)
    tfc1 = (diag.instances["axiom"] == "TFC1").to_numpy()
    margins = diag.margins[bm25.name].to_numpy()[tfc1]  # type: ignore[index]
    p_tfc1 = api.set_index("axiom").loc["TFC1", "effect_p"]
    assert p_tfc1 == pytest.approx(ttest_1samp(margins, 0.0).pvalue, rel=1e-9)
    assert "t-test" in " ".join(out.split())
    page = (rep / "report.html").read_text(encoding="utf-8")
    assert "one-sample t-test of the score margins" in page

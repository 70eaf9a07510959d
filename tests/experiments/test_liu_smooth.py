"""``axiomatic experiment liu-smooth --quick`` runs end to end on a generated graded set (plus the
shipped Sasaki sample when the shared data is present), writes tables, plots and results, resumes
without retraining, and its trained models load as rankers through ``model:DIR``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from shared_data import shared_data_root


def test_liu_smooth_quick_runs_resumes_and_models_rank(tmp_path) -> None:
    out = tmp_path / "liu"
    docs = tmp_path / "docs" / "clir.md"
    args = ["experiment", "liu-smooth", "--quick", "--out", str(out)]
    root = shared_data_root()
    sasaki = root / "wikiclir-sasaki2018-sw-sample" / "raw" if root is not None else None
    if sasaki is not None and sasaki.is_dir():
        args += ["--sasaki", str(sasaki)]
    cfg = tmp_path / "plan.toml"
    cfg.write_text(f'[plan]\ndocs = "{docs}"\n', encoding="utf-8")
    docs.parent.mkdir(parents=True)
    (docs.parent / "clir.notes.md").write_text("## Notes\n\nhand-written\n", encoding="utf-8")
    runner = CliRunner()
    res = runner.invoke(app, [*args, "--config", str(cfg)])
    assert res.exit_code == 0, res.output
    results = json.loads((out / "results.json").read_text())
    assert [r["loss"] for r in results["table2"]] == ["SOSL", "3PartL2", "MSE", "PO", "untrained"]
    assert {r["encoder"] for r in results["table3"]} == {"avg", "cnn", "lstm"}
    assert [r["eps"] for r in results["fig4"]] == [0.0, 1.0]
    assert len(results["stability"]) == 4 and all(r["seeds"] == 2 for r in results["stability"])
    assert all(0.0 <= r["p NDCG@5"] <= 1.0 for r in results["table2"] if r["loss"] != "SOSL")
    for name in (
        "liu_fig3_density.png",
        "liu_fig4_eps.png",
        "liu_fig5_nr.png",
        "liu_stability.png",
    ):
        assert (out / name).exists() and (docs.parent / "img" / name).exists()
    text = docs.read_text()
    assert "## Table 2" in text and "img/liu_fig3_density.png" in text and "seeds" in text
    # one significance policy: each p-value table states its Holm family
    assert (
        "Adjusted p-values (paired t-test vs SOSL; Holm over the 4 rows compared on each "
        "measure, per language):" in text
    )
    assert text.endswith("## Notes\n\nhand-written\n")  # the hand-written part is kept
    if sasaki is not None and sasaki.is_dir():
        assert [r["loss"] for r in results["sasaki"]] == ["SOSL", "MSE"]
    stamps = sorted((p, p.stat().st_mtime_ns) for p in out.glob("runs/**/checkpoint.pt"))
    assert stamps
    res = runner.invoke(app, [*args, "--config", str(cfg)])
    assert res.exit_code == 0, res.output
    assert sorted((p, p.stat().st_mtime_ns) for p in out.glob("runs/**/checkpoint.pt")) == stamps
    # a trained unit is a Ranker through the registry's model:DIR spec
    from axiomatic.experiments.clir_data import synthetic_graded_clir
    from axiomatic.rankers.registry import make_ranker

    test = synthetic_graded_clir(n_negatives=8, seed=0)["test"]
    model_dir = next(out.glob("runs/synthetic/xx/avg/sosl/*/seed0/model"))
    ranker = make_ranker(f"model:{model_dir}", test)
    q = next(iter(test.queries.values()))
    scores = ranker.score(q, test.candidate_documents(q.query_id))
    assert scores.shape == (len(test.candidate_ids(q.query_id)),)
    assert ((scores >= -1) & (scores <= 1)).all()


def test_liu_smooth_rejects_unknown_setting(tmp_path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[plan]\nepsilon = 1.0\n", encoding="utf-8")
    res = CliRunner().invoke(
        app,
        ["experiment", "liu-smooth", "--quick", "--out", str(tmp_path / "o"), "--config", str(cfg)],
    )
    assert res.exit_code != 0
    assert "epsilon" in res.output and "eps" in res.output


def test_sasaki_option_errors(tmp_path) -> None:
    """``--sasaki`` belongs to liu-smooth, and a folder that is not there is named with the
    expected layout."""
    runner = CliRunner()
    res = runner.invoke(
        app,
        ["experiment", "rosset2019", "--quick", "--out", str(tmp_path / "r"), "--sasaki", "x"],
    )
    assert res.exit_code != 0 and "--sasaki is an option of the liu-smooth" in res.output
    from axiomatic.experiments.clir_data import sasaki_splits

    with pytest.raises(FileNotFoundError, match=r"not a folder.*train"):
        sasaki_splits(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no train\\* file"):
        sasaki_splits(tmp_path / "empty")

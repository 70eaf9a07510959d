"""`axiomatic experiment ares2022 --quick` end to end on the demo data, and the ARES CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app


@pytest.mark.slow
def test_experiment_ares2022_quick_runs_every_stage_and_writes_the_page(tmp_path) -> None:
    out = tmp_path / "ares"
    res = CliRunner().invoke(app, ["experiment", "ares2022", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    md = (out / "summary.md").read_text(encoding="utf-8")
    for part in ("Preference predictor (Table 2)", "0.9027", "Zero-shot re-ranking", "ARES_simple"):
        assert part in md
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert set(results["predictor"]["settings"]) == {"I", "IV"}
    assert (out / "img" / "ares_fig2_importance.png").stat().st_size > 0
    assert (out / "pretrain" / "simple" / "encoder" / "config.json").exists()
    assert "Few-shot fine-tuning" in md and len(results["few_shot"]) == 2
    t = results["pretrain"]["simple"]["train"]  # per-1k-step time of pre-training reported
    per_1k = results["pretrain"]["simple"]["seconds_per_1k_steps"]
    assert per_1k == pytest.approx(1000 * t["seconds"] / t["steps"], abs=0.1) and per_1k > 0
    assert f"({per_1k} s per 1,000 steps" in md
    # few-shot significance: ARES vs the un-pre-trained cross-encoder at the same n
    assert set(results["few_shot_tests"]) == {"ARES_simple|2", "family"}
    assert (
        "Holm over the 1 pre-trained point compared on each measure"
        in results["few_shot_tests"]["family"]
    )
    assert md.count("Significance: paired t-test vs") >= 3  # zero-shot, few-shot, ablation
    assert 0.0 <= results["few_shot_tests"]["ARES_simple|2"]["RR@10"]["p_holm"] <= 1.0
    assert "p vs cross-encoder, same n (RR@10, Holm)" in md
    assert (out / "img" / "ares_fig3_few_shot.png").stat().st_size > 0
    diag = results["diagnosis"]  # ARES vs the un-pre-trained cross-encoder, same API as acrank
    models = {"MiniLM cross-encoder (no pre-training)", "ARES_simple"}
    assert set(diag["agreement"]) == models and diag["queries"] == 2
    assert set(diag["fulfilment"]) == models or not diag["instances"]
    assert "Axiomatic diagnosis: does pre-training raise axiom fulfilment?" in md
    qp = diag["query_pairs"]  # the query-pair axioms ARES was trained on, and its predictor
    assert set(qp["fulfilment"]) == models and qp["pairs"] == 10
    assert "predictor (setting I)" in qp["decisive"] and "The axioms it was trained on" in md
    abl = results["ablation"]  # Table 7: each variant scored, tested against ARES_simple
    assert list(abl["means"]) == ["rep", "simple"] and "rep" in abl["tests"]["RR@10"]
    assert (out / "pretrain" / "rep" / "encoder" / "config.json").exists()
    assert "Ablation of ARES variants (Table 7)" in md
    # the quick run trains a real predictor (not AUC 0.5 with zero importances)
    for r in results["predictor"]["settings"].values():
        assert r["auc_mean"] != 0.5 and max(r["importance"].values()) > 0
        assert 0.0 <= r["auc_length_only"] <= 1.0
    coll = results["predictor"]["collections"]["demo"]
    assert coll["mu"] > 0 and coll["contrast"] > 1.0 and 0 <= coll["real_first"] <= 1
    assert "AUC length alone" in md and "real: rank 1" in md
    # the per-variant agreement table: ARES_rep teaches REP in REP's direction, always
    rows = {(r["variant"], r["axiom"]): r for r in abl["agreement"]}
    for ax in ("Q-REP-QL", "Q-REP-TFIDF"):
        assert rows[("rep", ax)]["decisive"] > 0 and rows[("rep", ax)]["agree_pct"] == 100.0
    assert rows[("rep", "LENGTH")]["decisive"] == 0  # one length per document
    assert "Which way the pre-training pairs point" in md
    # the few-shot curve is only for few_shot_variants: the ablation variant gets none
    assert not any(r["model"] == "ARES_rep" for r in results["few_shot"].values())
    # --report-only re-renders the same stage results from the folder, and names
    # a stage that has not finished (one ARES quick run serves both checks)
    (out / "summary.md").unlink()
    res = CliRunner().invoke(app, ["experiment", "ares2022", "--report-only", "-o", str(out)])
    assert res.exit_code == 0, res.output
    again = json.loads((out / "results.json").read_text())
    for stage in ("predictor", "zero_shot", "few_shot", "few_shot_tests", "ablation"):
        assert again[stage] == results[stage], stage
    assert again["diagnosis"] == results["diagnosis"]
    assert "Zero-shot re-ranking" in (out / "summary.md").read_text()
    (out / "zero_shot.json").unlink()
    res = CliRunner().invoke(app, ["experiment", "ares2022", "--report-only", "-o", str(out)])
    assert res.exit_code == 2 and "zero_shot.json: the zero-shot stage has not finished" in (
        res.output
    )


def test_axioms_lists_the_query_pair_family() -> None:
    res = CliRunner().invoke(app, ["axioms", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    qp = [r for r in rows if r.get("family") == "query-pair"]
    assert [r["name"] for r in qp][:2] == ["Q-RANK", "Q-REP-QL"] and len(qp) == 9


def test_pretrain_unknown_method_and_variant_are_clear_errors(tmp_path) -> None:
    res = CliRunner().invoke(app, ["pretrain", "arez", "--out", str(tmp_path)])
    assert res.exit_code != 0 and "did you mean" in res.output.lower()
    res = CliRunner().invoke(
        app,
        [
            "pretrain",
            "ares",
            "--variant",
            "strikt",
            "--collections",
            "demo",
            "--out",
            str(tmp_path),
        ],
    )
    assert res.exit_code != 0 and "strict" in res.output


@pytest.mark.slow
def test_pretrain_ares_cli_reports_time_per_1k_steps_and_resumes(tmp_path) -> None:
    args = ["pretrain", "ares", "--collections", "demo", "--steps", "2", "--batch-size", "2"]
    args += ["--max-length", "48", "--dev", "demo/train", "--dev-queries", "2"]
    args += ["--out", str(tmp_path)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "simple" / "pretrain.json").read_text(encoding="utf-8"))
    assert f"({summary['seconds_per_1k_steps']} s per 1k steps)" in res.output
    again = CliRunner().invoke(app, args)  # finished: read back, not retrained
    assert again.exit_code == 0 and summary["encoder"] in again.output

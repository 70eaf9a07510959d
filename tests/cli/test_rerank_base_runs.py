"""Rerank with a base run that is not the dataset's pool, --weights, --train-run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.demo import demo_dataset
from axiomatic.data.trec import read_run, write_run
from shared_data import require_collection

runner = CliRunner()


def _invoke(args: list[str]):
    res = runner.invoke(app, args)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert "Traceback" not in res.output, res.output
    return res


def _run_with_outside_docs(path: Path, extra: list[str]) -> Path:
    """The demo's candidates of every query (scored by rank) plus ``extra`` ids on top of q1."""
    ds = demo_dataset()
    run = {q: {d: float(100 - i) for i, d in enumerate(ds.candidate_ids(q))} for q in ds.queries}
    first = next(iter(ds.queries))
    for k, d in enumerate(extra):
        run[first][d] = 200.0 - k
    write_run(run, path, tag="ext")
    return path


def test_run_documents_outside_the_candidates_get_their_text(tmp_path: Path) -> None:
    ds = demo_dataset()
    first = next(iter(ds.queries))
    outside = [d for d in ds.documents if d not in set(ds.candidate_ids(first))][:2]
    assert outside, "the demo should have documents outside q1's candidates"
    base = _run_with_outside_docs(tmp_path / "ext.trec", outside)
    out = tmp_path / "axio.trec"
    res = _invoke(
        ["rerank", "-d", "demo", "--base", f"run:{base}", "-a", "TFC1 M-TDC", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    new = read_run(out)
    assert set(outside) <= set(new[first])  # the run's own documents were re-ranked


def test_run_documents_without_text_are_a_clear_error(tmp_path: Path) -> None:
    base = _run_with_outside_docs(tmp_path / "ext.trec", ["ghost-1", "ghost-2", "ghost-3"])
    res = _invoke(["rerank", "-d", "demo", "--base", f"run:{base}", "-o", str(tmp_path / "o.trec")])
    assert res.exit_code == 2
    assert "3 of the 3 documents" in res.output and "ghost-1" in res.output
    assert not (tmp_path / "o.trec").exists()


def test_weighted_aggregation_takes_weights(tmp_path: Path) -> None:
    out = tmp_path / "w.trec"
    args = ["rerank", "-d", "demo", "-a", "TFC1,M-TDC,LNC2", "-o", str(out)]
    res = _invoke([*args, "--aggregation", "weighted"])
    assert res.exit_code == 2 and "--weights" in res.output
    res = _invoke([*args, "--aggregation", "weighted", "--weights", "1,2"])
    assert res.exit_code == 2 and "2 weights for 3 pairwise axioms" in res.output
    res = _invoke([*args, "--aggregation", "weighted", "--weights", "TFC9=1"])
    assert res.exit_code == 2 and "TFC1" in res.output
    res = _invoke([*args, "--aggregation", "weighted", "--weights", "TFC1=2 LNC2=0"])
    assert res.exit_code == 0, res.output
    # weights (1,0,0) and majority over TFC1 alone give the same order
    one = tmp_path / "one.trec"
    assert _invoke(["rerank", "-d", "demo", "-a", "TFC1", "-o", str(one)]).exit_code == 0
    res = _invoke([*args, "--aggregation", "weighted", "--weights", "1,0,0"])
    assert read_run(out) == read_run(one)


def test_learned_aggregation_takes_a_train_run(tmp_path: Path) -> None:
    ds = demo_dataset()
    train_run = tmp_path / "train.trec"
    write_run(
        {q: {d: float(-i) for i, d in enumerate(ds.candidate_ids(q))} for q in ds.queries},
        train_run,
        tag="t",
    )
    out = tmp_path / "l.trec"
    args = ["rerank", "-d", "demo", "-a", "TFC1,M-TDC", "-o", str(out), "--aggregation", "learned"]
    res = _invoke([*args, "--base", f"run:{train_run}", "--train-dataset", "demo"])
    assert res.exit_code == 2 and "--train-run" in res.output
    res = _invoke([*args, "--train-dataset", "demo", "--train-run", str(train_run)])
    assert res.exit_code == 0, res.output
    assert read_run(out).keys() == ds.queries.keys()
    res = _invoke(["rerank", "-d", "demo", "-o", str(out), "--train-run", str(train_run)])
    assert res.exit_code == 2 and "--aggregation learned" in res.output


def test_dl19_splade_run_reranked_on_the_bm25_pool(tmp_path: Path) -> None:
    folder = require_collection("msmarco-passage-trecdl")
    splade = folder / "raw/rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt"
    if not splade.is_file():
        pytest.skip(f"{splade} is absent")
    out = tmp_path / "s.trec"
    res = _invoke(
        [
            "rerank",
            "-d",
            "trec-dl-2019/bm25",
            "--base",
            f"run:{splade}",
            "--depth",
            "10",
            "-a",
            "TFC1",
            "-o",
            str(out),
        ]
    )
    assert res.exit_code == 0, res.output
    assert "outside the dataset's candidates" in res.output
    assert len(read_run(out)) == 43

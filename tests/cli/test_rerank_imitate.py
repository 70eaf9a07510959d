"""``rerank --aggregation learned --imitate RUN``: the learned weights imitate a run's pairwise
order instead of the qrels."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from axiomatic.cli.main import app

runner = CliRunner()
AXIOMS = "M-TDC,PROX1,LNC1"
LEARNED = [
    "rerank",
    "-d",
    "demo",
    "-a",
    AXIOMS,
    "--aggregation",
    "learned",
    "--train-dataset",
    "demo",
]


def _weights(output: str) -> dict[str, float]:
    line = next(ln for ln in output.splitlines() if "learned combination" in ln)
    spec = line.split(":", 1)[1]
    return {name: float(w) for w, name in re.findall(r"(-?[\d.e+-]+) \* ([A-Z0-9-]+)", spec)}


def _learned(tmp_path: Path, *extra: str) -> dict[str, float]:
    res = runner.invoke(
        app,
        [*LEARNED, "-o", str(tmp_path / "out.trec"), *extra],
    )
    assert res.exit_code == 0, res.output
    return _weights(res.output)


def test_imitating_a_one_axiom_run_gives_that_axiom_the_largest_weight(tmp_path: Path) -> None:
    target = tmp_path / "prox1.trec"  # the BM25 run re-ranked by PROX1 alone
    res = runner.invoke(
        app, ["rerank", "-d", "demo", "-a", "PROX1", "--depth", "50", "-o", str(target)]
    )
    assert res.exit_code == 0, res.output
    oracle = _learned(tmp_path)  # the qrels prefer LNC1 on the demo
    assert max(oracle, key=oracle.__getitem__) == "LNC1"
    mimic = _learned(tmp_path, "--imitate", f"prox=run:{target}")
    assert max(mimic, key=mimic.__getitem__) == "PROX1"
    assert mimic != oracle


def test_imitate_a_run_of_another_dataset_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.trec"
    other.write_text("q-elsewhere Q0 d1 1 2.0 x\nq-elsewhere Q0 d2 2 1.0 x\n")
    res = runner.invoke(
        app,
        [*LEARNED, "--imitate", str(other), "-o", str(tmp_path / "out.trec")],
    )
    assert res.exit_code != 0
    assert "ranks none of the" in res.output and "q-elsewhere" in res.output
    assert not (tmp_path / "out.trec").exists()


def test_imitate_needs_learned_aggregation(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["rerank", "-d", "demo", "--imitate", "x.trec", "-o", str(tmp_path / "o.trec")]
    )
    assert res.exit_code != 0 and "--aggregation learned" in res.output

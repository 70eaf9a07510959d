"""Re-ranking and evaluating what the user means.

* ``rerank`` on a dataset defined by a run starts from that run (``--base dataset``, the
  default there), not from the project's BM25 over its pool;
* a first stage (``--first-stage bm25 --depth N`` or ``--candidates RUN``) for rank, evaluate,
  mine and diagnose, so that a model trained elsewhere is evaluated and diagnosed on a
  full-retrieval dataset from the CLI;
* ``model:RUN_FOLDER`` finds the model a training run saved in ``RUN_FOLDER/model``;
* ``axiomatic.evaluate({name: run}, ...)`` is the table of ``axiomatic evaluate``, and its
  warnings name the caller's line.
"""

from __future__ import annotations

import csv
import io
import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.instances import MANIFEST
from axiomatic.data.trec import read_run
from shared_data import require_collection

runner = CliRunner()

TEXTS = {
    "d1": "cats purr when they are content cats purr",
    "d2": "cats purr when they are content and calm",
    "d3": "dogs bark when they are content and calm",
    "d4": "a bicycle balances when it steers into the fall",
    "d5": "a bicycle balances when the rider steers and leans",
    "d6": "bicycles and cats and dogs in the city park",
    "d7": "the rider of a bicycle purrs like a cat",
}
QUERIES = {"1": "why do cats purr", "2": "how does a bicycle balance", "3": "dogs in the park"}
QRELS = "1 0 d1 2\n1 0 d2 1\n2 0 d4 2\n2 0 d5 1\n3 0 d6 1\n"
RUN = "".join(
    f"{q} Q0 {d} {r + 1} {10 - r} mysys\n"
    for q, docs in {
        "1": ["d3", "d1", "d2", "d6"],
        "2": ["d6", "d5", "d4", "d1"],
        "3": ["d3", "d6", "d1", "d2"],
    }.items()
    for r, d in enumerate(docs)
)


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, (args, res.output)
    return res.output


def _collection(tmp_path: Path, candidates: bool) -> Path:
    """A descriptor dataset: with candidates (from run.trec: a run-defined dataset) or without
    (a full-retrieval collection, as scifact/test)."""
    (tmp_path / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    (tmp_path / "passages.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "text": t}) + "\n" for d, t in TEXTS.items())
    )
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    desc = tmp_path / ("cands.toml" if candidates else "full.toml")
    _ok(["datasets", "init", str(desc)])
    text = desc.read_text()
    text = text.replace('documents = "passages.tsv"', 'documents = "passages.jsonl"')
    text = text.replace('# qrels = "qrels.txt"', 'qrels = "qrels.txt"')
    if candidates:
        text = text.replace('# candidates = "run.bm25.trec"', 'candidates = "run.trec"')
    desc.write_text(text)
    return desc


def _trained_model(tmp_path: Path) -> Path:
    """A training run folder as `axiomatic train --out RUN` leaves it: the model in RUN/model."""
    from axiomatic.models import build_model, save_model

    model = build_model("knrm", texts=list(TEXTS.values()), embeddings="random", embedding_dim=8)
    run_folder = tmp_path / "models" / "knrm-ar"
    save_model(model, run_folder / "model")
    (run_folder / "train_log.jsonl").write_text("")
    return run_folder


# ------------------------------------------------------------------ rerank --base dataset
def test_rerank_of_a_run_defined_dataset_starts_from_its_run(tmp_path: Path) -> None:
    desc = _collection(tmp_path, candidates=True)
    out = tmp_path / "ax.trec"
    text = _ok(["rerank", "-d", str(desc), "-a", "TFC1", "-o", str(out)])
    assert "base ranking: the run that defines" in " ".join(text.split())
    assert "base run.trec" in text  # the descriptor's run, not BM25(k1=0.9,b=0.4)
    explicit = _ok(["rerank", "-d", str(desc), "-a", "TFC1", "--base", "dataset", "-o", str(out)])
    assert "base run.trec" in explicit and "note: base ranking" not in explicit
    bm25 = _ok(["rerank", "-d", str(desc), "-a", "TFC1", "--base", "bm25", "-o", str(out)])
    assert "BM25" in bm25


def test_rerank_base_dataset_without_a_run_is_the_candidate_order(tmp_path: Path) -> None:
    out = str(tmp_path / "ax.trec")
    text = _ok(["rerank", "-d", "demo", "-a", "TFC1", "--base", "dataset", "-o", out])
    assert "base demo candidate order" in text


def test_rerank_base_accepts_a_path(tmp_path: Path) -> None:
    desc = _collection(tmp_path, candidates=True)
    out = tmp_path / "ax.trec"
    text = _ok(
        [
            "rerank",
            "-d",
            str(desc),
            "-a",
            "TFC1",
            "--base",
            str(tmp_path / "run.trec"),
            "-o",
            str(out),
        ]
    )
    assert "base mysys" in text  # named by its tag, as diagnose --run names it


def test_dl19_bm25_rerank_starts_from_anserini_bm25(tmp_path: Path) -> None:
    require_collection("msmarco-passage-trecdl")
    out = tmp_path / "ax.trec"
    text = _ok(["rerank", "-d", "trec-dl-2019/bm25", "-a", "TFC1", "--depth", "10", "-o", str(out)])
    row = next(line for line in text.splitlines() if line.startswith("| base "))
    # the run's nDCG@10 (ours re-scored: 0.481)
    assert row.startswith("| base trec-dl-2019/bm25 | 0.506 ")
    splade = _ok(
        [
            "rerank",
            "-d",
            "trec-dl-2019/bm25",
            "-a",
            "TFC1",
            "--depth",
            "10",
            "--base",
            "trec-dl-2019/splade-pp",
            "-o",
            str(out),
        ]
    )
    assert "| base trec-dl-2019/splade-pp | 0.731 " in splade


# ------------------------------------------------------------------ first stage
def test_a_trained_model_on_a_full_retrieval_dataset(tmp_path: Path) -> None:
    """train -> rank / evaluate -> mine -> diagnose on a dataset without candidate lists."""
    desc = _collection(tmp_path, candidates=False)
    model = _trained_model(tmp_path)
    res = runner.invoke(
        app, ["rank", "-d", str(desc), "-r", f"model:{model}", "-o", str(tmp_path / "x.trec")]
    )
    assert res.exit_code == 2 and "--first-stage bm25 --depth 100" in " ".join(res.output.split())

    run = tmp_path / "knrm.trec"
    text = _ok(
        [
            "rank",
            "-d",
            str(desc),
            "-r",
            f"model:{model}",
            "--first-stage",
            "bm25",
            "--depth",
            "3",
            "-o",
            str(run),
        ]
    )
    assert "candidates: --first-stage bm25 top 3" in " ".join(text.split())
    ranked = read_run(run)
    assert set(ranked) == set(QUERIES) and all(len(v) <= 3 for v in ranked.values())

    doc = json.loads(
        _ok(
            [
                "evaluate",
                "-d",
                str(desc),
                "-r",
                "bm25",
                "-r",
                f"knrm=model:{model}",
                "--first-stage",
                "bm25",
                "--depth",
                "3",
                "--baseline",
                "knrm",
                "--format",
                "json",
            ]
        )
    )
    assert doc["baseline"] == "knrm"
    assert [r["ranker"] for r in doc["results"]][::3] == ["BM25(k1=0.9,b=0.4)", "knrm"]
    assert "candidates: --first-stage bm25 top 3" in doc["notes"]

    inst = tmp_path / "inst"
    _ok(
        [
            "mine",
            "-d",
            str(desc),
            "-a",
            "TFC1,M-TDC",
            "--first-stage",
            "bm25",
            "--depth",
            "3",
            "-o",
            str(inst),
        ]
    )
    manifest = json.loads((inst / MANIFEST).read_text())
    assert manifest["first_stage"]["first_stage"] == "bm25"
    out = _ok(
        [
            "diagnose",
            "-i",
            str(inst),
            "-r",
            f"model:{model}",
            "-r",
            "bm25",
            "-o",
            str(tmp_path / "rep"),
            "--no-plots",
        ]
    )
    assert "candidates from the first stage recorded by mine: --first-stage bm25 --depth 3" in out
    assert "knrm:knrm-ar" in out


def test_candidates_from_a_run(tmp_path: Path) -> None:
    desc = _collection(tmp_path, candidates=False)
    run = tmp_path / "ql.trec"
    _ok(
        [
            "rank",
            "-d",
            str(desc),
            "-r",
            "ql",
            "--candidates",
            str(tmp_path / "run.trec"),
            "--depth",
            "2",
            "-o",
            str(run),
        ]
    )
    assert {q: set(v) for q, v in read_run(run).items()} == {
        "1": {"d3", "d1"},
        "2": {"d6", "d5"},
        "3": {"d3", "d6"},
    }
    res = runner.invoke(
        app,
        [
            "rank",
            "-d",
            str(desc),
            "--first-stage",
            "bm25",
            "--candidates",
            str(run),
            "-o",
            str(tmp_path / "y.trec"),
        ],
    )
    assert res.exit_code == 2 and "not both" in res.output


# ------------------------------------------------------------------ model:RUN_FOLDER
def test_model_spec_accepts_the_training_run_folder(tmp_path: Path) -> None:
    from axiomatic.data.demo import demo_dataset
    from axiomatic.rankers.registry import make_ranker

    model = _trained_model(tmp_path)
    ds = demo_dataset()
    assert make_ranker(f"model:{model}", ds).name == "knrm:knrm-ar"
    assert make_ranker(f"model:{model / 'model'}", ds).name == "knrm:knrm-ar"
    odd = tmp_path / "odd"
    (odd / "ckpt-7").mkdir(parents=True)
    (odd / "ckpt-7" / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"use 'model:.*ckpt-7'"):
        make_ranker(f"model:{odd}", ds)


# ------------------------------------------------------------------ ax.evaluate({name: run})
def _runs() -> tuple[dict, dict]:
    from axiomatic.data.demo import demo_dataset
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker

    ds = demo_dataset()
    return {
        "bm25": rerank(make_ranker("bm25", ds), ds),
        "ql": rerank(make_ranker("ql", ds), ds),
    }, ds.qrels


def test_evaluate_takes_several_named_runs_and_returns_the_cli_table(tmp_path: Path) -> None:
    import axiomatic as ax
    from axiomatic.data.trec import write_run

    runs, qrels = _runs()
    table = ax.evaluate(runs, qrels, "nDCG@10 AP", baseline="bm25")
    assert list(table.columns) == [
        "ranker",
        "measure",
        "value",
        "diff",
        "pvalue",
        "pvalue_holm",
        "significant",
        "baseline",
    ]
    assert list(table["ranker"]) == ["bm25", "bm25", "ql", "ql"]
    for name, run in runs.items():
        one = ax.evaluate(run, qrels, "nDCG@10 AP")
        got = table[table["ranker"] == name].set_index("measure")["value"].to_dict()
        assert got == pytest.approx(one)
    for name, run in runs.items():
        write_run(run, tmp_path / f"{name}.trec", tag=name)
    res = runner.invoke(
        app,
        [
            "evaluate",
            "-d",
            "demo",
            "--run",
            str(tmp_path / "bm25.trec"),
            "--run",
            str(tmp_path / "ql.trec"),
            "--measures",
            "nDCG@10 AP",
            "--format",
            "csv",
        ],
    )
    assert res.exit_code == 0, res.output
    cli = list(csv.DictReader(io.StringIO(res.output)))
    assert [r["ranker"] for r in cli] == list(table["ranker"])
    for row, (_, api) in zip(cli, table.iterrows(), strict=True):
        assert float(row["value"]) == pytest.approx(api["value"])
        if row["pvalue_holm"]:
            assert float(row["pvalue_holm"]) == pytest.approx(api["pvalue_holm"])
        assert row["significant"] == api["significant"]


def test_evaluate_warnings_name_the_callers_line() -> None:
    import axiomatic as ax
    from axiomatic.evaluate.metrics import NoMatchingQueriesWarning

    runs, qrels = _runs()
    other = {"zz": {"d1": 1.0}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax.evaluate(other, qrels, "nDCG@10")
        ax.evaluate({"bm25": runs["bm25"], "other": other}, qrels, "nDCG@10")
    hits = [w for w in caught if issubclass(w.category, NoMatchingQueriesWarning)]
    assert len(hits) == 2
    assert all(Path(w.filename) == Path(__file__) for w in hits), [w.filename for w in hits]


def test_evaluate_baseline_is_a_name(tmp_path: Path) -> None:
    import axiomatic as ax

    runs, qrels = _runs()
    with pytest.raises(KeyError, match="did you mean 'bm25'"):
        ax.evaluate(runs, qrels, "nDCG@10", baseline="bm26")
    with pytest.raises(TypeError, match="several runs"):
        ax.evaluate(runs["bm25"], qrels, "nDCG@10", baseline="bm25")

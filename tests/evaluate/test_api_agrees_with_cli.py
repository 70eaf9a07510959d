"""``axiomatic.evaluate(...)`` and ``axiomatic evaluate`` count relevance by one rule.

Both take the dataset's relevance threshold (2 on TREC DL: grade 1 is "related", not relevant)
through :func:`axiomatic.evaluate.metrics.relevance_threshold`; the API used to count grade 1 as
relevant, so its AP and RR@10 on TREC DL 2019 were higher than the CLI's for the same run.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import pickle
from pathlib import Path

import pytest
from typer.testing import CliRunner

import axiomatic as ax
from axiomatic.cli.main import app
from axiomatic.data.records import Dataset, DatasetQrels, Document, Query
from axiomatic.data.trec import write_run
from axiomatic.evaluate.metrics import relevance_threshold
from shared_data import require_collection

MEASURES = "AP RR@10 nDCG@10 P@10"


def _cli_table(args: list[str]) -> dict[tuple[str, str], float]:
    res = CliRunner().invoke(app, ["evaluate", *args, "--measures", MEASURES, "--format", "csv"])
    assert res.exit_code == 0, res.output
    rows = csv.DictReader(io.StringIO(res.output[res.output.index("ranker,") :]))
    return {(r["ranker"], r["measure"]): float(r["value"]) for r in rows}


def test_api_and_cli_give_identical_numbers_on_trec_dl_2019(tmp_path: Path) -> None:
    root = require_collection("msmarco-passage-trecdl").parent
    ds = ax.load_dataset("trec-dl-2019/bm25", data_root=root)
    assert ds.rel_threshold == 2
    run = {q: {d: float(len(c) - i) for i, d in enumerate(c)} for q, c in ds.candidates.items()}
    flat = {q: dict(list(docs.items())[::-1]) for q, docs in run.items()}  # another run
    write_run(run, tmp_path / "bm25.trec", tag="bm25")
    write_run(flat, tmp_path / "rev.trec", tag="rev")
    runs = ["--run", str(tmp_path / "bm25.trec"), "--run", str(tmp_path / "rev.trec")]
    cli = _cli_table(["-d", "trec-dl-2019/bm25", "--data-root", str(root), *runs])
    api = ax.evaluate(run, ds.qrels, MEASURES)
    assert api == {m: cli[("bm25", m)] for m in MEASURES.split()}
    assert ax.evaluate(run, ds, MEASURES) == api  # the dataset itself: the same rule
    table = ax.evaluate({"bm25": run, "rev": flat}, ds.qrels, MEASURES)
    assert {(r.ranker, r.measure): r.value for r in table.itertuples()} == cli
    # the override: trec_eval's default threshold counts grade 1 as relevant (higher AP)
    loose = ax.evaluate(run, ds.qrels, MEASURES, rel_threshold=1)
    assert loose["AP"] > api["AP"] and loose["nDCG@10"] == api["nDCG@10"]
    assert ax.evaluate(run, dict(ds.qrels), MEASURES) == loose  # a plain dict: threshold 1


def _tiny(rel_threshold: int) -> Dataset:
    return Dataset(
        name="tiny",
        queries={"q": Query("q", "x")},
        documents={"a": Document("a", "x"), "b": Document("b", "y")},
        qrels={"q": {"a": 1, "b": 2}},
        rel_threshold=rel_threshold,
    )


def test_dataset_qrels_follow_the_dataset_threshold() -> None:
    ds = _tiny(2)
    assert isinstance(ds.qrels, DatasetQrels) and relevance_threshold(ds.qrels) == 2
    run = {"q": {"a": 2.0, "b": 1.0}}
    assert ax.evaluate(run, ds.qrels, "RR") == {"RR": 0.5}  # only b (grade 2) is relevant
    assert ax.evaluate(run, ds.qrels, "RR", rel_threshold=1) == {"RR": 1.0}
    ds.rel_threshold = 1  # set later: the qrels follow
    assert ax.evaluate(run, ds.qrels, "RR") == {"RR": 1.0}
    assert relevance_threshold(dataclasses.replace(ds, rel_threshold=3).qrels) == 3
    ds.qrels = {"q": {"a": 2}}  # replaced: they carry the threshold too
    assert relevance_threshold(ds.qrels) == 1 and relevance_threshold(ds.subset(["q"])) == 1
    again = pickle.loads(pickle.dumps(_tiny(2).qrels))
    assert again == {"q": {"a": 1, "b": 2}} and again.rel_threshold == 2


def test_a_dataset_without_judgments_is_a_clear_error() -> None:
    ds = dataclasses.replace(_tiny(1), qrels=None)
    with pytest.raises(ValueError, match="has no relevance judgments"):
        ax.evaluate({"q": {"a": 1.0}}, ds, "AP")

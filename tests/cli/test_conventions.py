"""Conventions and small frictions.

--baseline NAME (evaluate, diagnose); catalog systems as runs with short names; trec_eval
measure names; a TSV header line is detected; flags show no ``<bool>``; ARES' query-pair
axioms have their own ``Q-`` prefix and ``axiomatic axioms`` shows every citation;
``Diagnosis.table()`` labels the relation of symmetric instances; PyTerrier inspection.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.records import Dataset, Document, Query
from shared_data import require_collection

runner = CliRunner()


def _run(args: list[str]):
    res = runner.invoke(app, args)
    assert "Traceback" not in res.output, res.output
    return res


def _ok(args: list[str]) -> str:
    res = _run(args)
    assert res.exit_code == 0, (args, res.output)
    return res.output


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("runs")
    bm25, ql = folder / "bm25.trec", folder / "ql.trec"
    _ok(["rank", "-d", "demo", "-r", "bm25", "--tag", "bm25", "-o", str(bm25)])
    _ok(["rank", "-d", "demo", "-r", "ql", "--tag", "ql", "-o", str(ql)])
    return bm25, ql


# ------------------------------------------------------------------ --baseline NAME
def test_evaluate_baseline_is_a_run_name(demo_runs) -> None:
    bm25, ql = demo_runs
    args = ["evaluate", "-d", "demo", "--run", str(bm25), "--run", str(ql), "--format", "json"]
    doc = json.loads(_ok([*args, "--baseline", "ql"]))
    assert doc["baseline"] == "ql"
    assert [r["ranker"] for r in doc["results"] if r["baseline"]] == ["ql"] * 3
    res = _run([*args, "--baseline", "qll"])
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert "--baseline 'qll' (did you mean 'ql'?) is not one of the runs (bm25, ql)" in text


def test_diagnose_baseline_is_a_ranker_name(tmp_path: Path) -> None:
    inst = tmp_path / "inst"
    _ok(["mine", "-d", "demo", "-a", "TFC1", "-o", str(inst)])
    args = ["diagnose", "-i", str(inst), "-r", "bm25", "-r", "ql", "--no-plots"]
    out = _ok([*args, "-o", str(tmp_path / "r1"), "--baseline", "ql"])  # the spec typed
    assert "worse than QL(mu=1000)" in " ".join(out.split())
    out = _ok([*args, "-o", str(tmp_path / "r2"), "--baseline", "QL(mu=1000)"])
    assert "worse than QL(mu=1000)" in " ".join(out.split())
    res = _run([*args, "-o", str(tmp_path / "r3"), "--baseline", "nope"])
    assert res.exit_code == 2 and "is not one of the rankers and runs" in res.output


# ------------------------------------------------------------------ catalog systems as runs
def test_catalog_systems_are_runs_named_by_their_catalog_names(tmp_path: Path) -> None:
    require_collection("msmarco-passage-trecdl")
    doc = json.loads(
        _ok(
            [
                "evaluate",
                "-d",
                "trec-dl-2019/bm25",
                "--run",
                "trec-dl-2019/bm25",
                "--run",
                "trec-dl-2019/splade-pp",
                "--measures",
                "nDCG@10",
                "--baseline",
                "trec-dl-2019/bm25",
                "--format",
                "json",
            ]
        )
    )
    values = {r["ranker"]: round(r["value"], 3) for r in doc["results"]}
    assert values == {"trec-dl-2019/bm25": 0.506, "trec-dl-2019/splade-pp": 0.731}
    assert doc["baseline"] == "trec-dl-2019/bm25"
    res = _run(["evaluate", "-d", "trec-dl-2019/bm25", "--run", "trec-dl-2019/union"])
    assert res.exit_code == 2 and "not defined by one system's run" in res.output


# ------------------------------------------------------------------ trec_eval measure names
def test_trec_eval_measure_names_are_accepted(demo_runs) -> None:
    from axiomatic.evaluate.metrics import parse_measures

    assert [str(m) for m in parse_measures("ndcg_cut_10 map recip_rank P_5")] == [
        "nDCG@10",
        "AP",
        "RR",
        "P@5",
    ]
    with pytest.raises(ValueError, match="ndcg_cut_10"):
        parse_measures("ndcg_cut")
    doc = json.loads(
        _ok(
            [
                "evaluate",
                "-d",
                "demo",
                "--run",
                str(demo_runs[0]),
                "--measures",
                "ndcg_cut_10,map",
                "--format",
                "json",
            ]
        )
    )
    assert [r["measure"] for r in doc["results"]] == ["nDCG@10", "AP"]


# ------------------------------------------------------------------ TSV header lines
def test_a_tsv_header_line_is_detected_and_skipped(tmp_path: Path) -> None:
    from axiomatic.data.errors import DataWarning
    from axiomatic.data.readers.tsv import read_tsv_documents
    from axiomatic.data.trec import read_topics

    docs = tmp_path / "docs.tsv"
    docs.write_text("docid\ttext\nd1\tcats purr\nd2\tdogs bark\n")
    with pytest.warns(DataWarning, match="looks like a column header") as caught:
        got = read_tsv_documents(docs)
    assert set(got) == {"d1", "d2"}
    assert Path(caught[0].filename) == Path(__file__)  # the caller's line
    topics = tmp_path / "topics.tsv"
    topics.write_text("qid\tquery\n1\twhy do cats purr\n")
    with pytest.warns(DataWarning, match="column header"):
        assert set(read_topics(topics)) == {"1"}
    plain = tmp_path / "plain.tsv"
    plain.write_text("id7\ttext of a document\n")  # an id that is no header word: kept
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        assert set(read_tsv_documents(plain)) == {"id7"}


# ------------------------------------------------------------------ flags
@pytest.mark.parametrize("command", [[], ["axioms"], ["mine"], ["evaluate"]])
def test_flags_show_no_value_type(command: list[str]) -> None:
    res = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    assert "<bool>" not in res.output
    if command == ["mine"]:
        assert "<int range>" in res.output  # options that take a value keep their type


# ------------------------------------------------------------------ axiom names and sources
def test_query_pair_axioms_have_their_own_prefix() -> None:
    from axiomatic.axioms import list_axioms, parse_axiom
    from axiomatic.axioms.query_pairs import parse_query_pair_axioms

    qp = [r["name"] for r in list_axioms(relates="queries")]
    assert qp == [
        "Q-RANK",
        "Q-REP-QL",
        "Q-REP-TFIDF",
        "Q-PROX-1",
        "Q-PROX-2",
        "Q-REG",
        "Q-STM-1",
        "Q-STM-2",
        "Q-STM-3",
    ]
    names = [r["name"] for r in list_axioms()]  # one catalogue: both kinds
    assert len(names) == len(set(names)) and set(qp) < set(names)  # REG and Q-REG, PROX1 ...
    assert not any(n.startswith("Q-") for n in names if n not in qp)
    assert parse_axiom("q-stm-3(threshold=0.4)").spec == "Q-STM-3(threshold=0.4)"
    with pytest.raises(ValueError, match="did you mean 'Q-REG'"):
        parse_query_pair_axioms("REG")


def test_one_catalogue_lists_what_each_axiom_relates_and_mine_refuses_the_other_kind(
    tmp_path,
) -> None:
    rows = {r["name"]: r for r in json.loads(_ok(["axioms", "--format", "json"]))}
    assert (rows["TFC1"]["relates"], rows["TFC1"]["arity"]) == ("documents", 2)
    assert (rows["TFC2"]["relates"], rows["TFC2"]["arity"]) == ("documents", 3)
    assert (rows["Q-RANK"]["relates"], rows["Q-RANK"]["arity"]) == ("queries", 2)
    for axioms, why in (
        ("TFC1 + 0.5*Q-RANK", "an axiom expression combines axioms of one kind"),
        ("TFC1,Q-RANK", "Q-RANK relates two queries for one document, but axioms relating "),
    ):
        res = _run(["mine", "-d", "demo", "-a", axioms, "-o", str(tmp_path / "inst")])
        assert res.exit_code != 0
        lines = [ln for ln in res.output.strip().splitlines() if ln.strip()]
        assert len(lines) == 1 and why in lines[0], res.output
    assert not (tmp_path / "inst").exists()


def test_axioms_command_shows_the_citation() -> None:
    out = _ok(["axioms"])
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert "source" in rows["name"]
    assert "Fang, Tao, Zhai 2004" in rows["TFC1"]
    assert "Zheng, Fang 2010" in rows["REG"]
    assert "ARES (SIGIR)" in rows["Q-REG"]


# ------------------------------------------------------------------ Diagnosis.table() relation
class _DictRanker:
    can_score_unseen_documents = False

    def __init__(self, name: str, scores: dict[str, float]) -> None:
        self.name, self.scores = name, scores

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        return np.asarray([self.scores.get(d.doc_id, np.nan) for d in documents], np.float64)


def test_diagnosis_table_labels_the_relation_of_symmetric_instances() -> None:
    from axiomatic.diagnose.diagnosis import diagnose

    docs = {"d1": Document("d1", "alpha alpha beta"), "d2": Document("d2", "alpha beta beta")}
    ds = Dataset(
        "swap", {"q": Query("q", "alpha beta")}, docs, {"q": {"d1": 1}}, {"q": ["d1", "d2"]}
    )
    spec = "M-TDC(variant='strict', delta=0)"
    rows = [
        dict(query_id="q", axiom="M-TDC", variant="strict", spec=spec, doc_a="d1", doc_b="d2",
             relation=rel)
        for rel in (">", "=")
    ]  # fmt: skip
    table = diagnose(pd.DataFrame(rows), [_DictRanker("r", {"d1": 2.0, "d2": 1.0})], ds).table()
    assert list(table.columns[:5]) == ["ranker", "axiom", "variant", "spec", "relation"]
    assert table["axiom"].tolist() == ["M-TDC", "M-TDC"]
    assert table.set_index("relation")["fraction"].to_dict() == {">": 1.0, "=": 0.0}


# ------------------------------------------------------------------ PyTerrier inspection
def test_pyterrier_transformers_declare_their_columns() -> None:
    pt = pytest.importorskip("pyterrier")
    from axiomatic.integrations.pyterrier import (
        AxiomaticRanker,
        AxiomaticReRanker,
        results_frame,
        topics_frame,
    )

    ranker, reranker = AxiomaticRanker("bm25", "demo"), AxiomaticReRanker("TFC1", "demo")
    topics = topics_frame("demo")
    first = ranker.transform(topics)
    assert pt.inspect.transformer_outputs(ranker, list(topics.columns)) == list(first.columns)
    empty = ranker.transform(topics.iloc[:0])
    assert list(empty.columns) == list(first.columns) and "docno" in empty.columns
    res = results_frame("demo")
    out = reranker.transform(res)
    assert pt.inspect.transformer_outputs(reranker, list(res.columns)) == list(out.columns)
    assert list(reranker.transform(res.iloc[:0]).columns) == list(out.columns)
    assert pt.inspect.transformer_outputs(ranker >> reranker, ["qid", "query"]) == list(
        first.columns
    )
    with pytest.raises(pt.validate.InputValidationError):
        pt.inspect.transformer_outputs(reranker, ["qid", "query"])
    assert pt.inspect.transformer_inputs(reranker) == [["qid", "query", "docno", "score"]]

"""CLI axiom commands (axioms, mine, diagnose, rerank) on the built-in demo dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app

runner = CliRunner()


def test_axioms_lists_catalogue_as_table_and_json() -> None:
    res = runner.invoke(app, ["axioms"])
    assert res.exit_code == 0, res.output
    assert "TFC1" in res.output and "LNC2" in res.output
    res = runner.invoke(app, ["axioms", "--format", "json"])
    assert res.exit_code == 0, res.output
    names = {r["name"] for r in json.loads(res.output)}
    assert {"TFC1", "TFC2", "M-TDC", "LNC2"} <= names


@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "inst"
    res = runner.invoke(
        app,
        [
            "mine",
            "--dataset",
            "demo",
            "--axioms",
            "TFC1,TFC2,M-TDC,LNC2",
            "--variant",
            "relaxed",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    return out


def test_mine_writes_shards_and_resumes(mined: Path) -> None:
    from axiomatic.data.instances import read_instances

    inst, art = read_instances(mined)
    assert len(inst) > 0 and set(inst["variant"]) == {"relaxed"}
    assert {"TFC1", "LNC2"} <= set(inst["axiom"])
    assert art  # LNC2 duplicates
    res = runner.invoke(
        app,
        [
            "mine",
            "-d",
            "demo",
            "-a",
            "TFC1,TFC2,M-TDC,LNC2",
            "--variant",
            "relaxed",
            "-o",
            str(mined),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "resumed 1" in res.output


def test_mine_rejects_bad_axiom_and_variant(tmp_path: Path) -> None:
    res = runner.invoke(app, ["mine", "-d", "demo", "-a", "TFC9", "-o", str(tmp_path / "x")])
    assert res.exit_code != 0
    res = runner.invoke(
        app, ["mine", "-d", "demo", "--variant", "relaxd", "-o", str(tmp_path / "y")]
    )
    assert res.exit_code != 0 and "relaxed" in res.output


def test_diagnose_rankers_and_run_file(mined: Path, tmp_path: Path) -> None:
    run_path = tmp_path / "ql.trec"
    assert (
        runner.invoke(app, ["rank", "-d", "demo", "-r", "ql", "-o", str(run_path)]).exit_code == 0
    )
    out = tmp_path / "rep"
    res = runner.invoke(
        app,
        [
            "diagnose",
            "--instances",
            str(mined),
            "--ranker",
            "bm25",
            "--ranker",
            "tfidf",
            "--run",
            str(run_path),
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    # a run is named by its tag column: `rank -r ql` tags its lines QL(mu=1000)
    assert "nDCG@10" in res.output and "QL(mu=1000)" in res.output
    assert "skipped" in res.output  # run file cannot score LNC2 duplicates
    table = pd.read_csv(out / "diagnosis.csv")
    assert set(table["ranker"]) >= {"QL(mu=1000)", "oracle"}
    lnc2_run = table[(table["ranker"] == "QL(mu=1000)") & (table["axiom"] == "LNC2")].iloc[0]
    assert lnc2_run["n"] == 0 and lnc2_run["skipped"] > 0
    assert (out / "report.html").is_file() and (out / "bars.png").is_file()


def test_diagnose_errors_are_clean(mined: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["diagnose", "-i", str(mined), "-o", str(tmp_path / "r")])
    assert res.exit_code != 0 and "--ranker" in res.output
    res = runner.invoke(
        app, ["diagnose", "-i", str(mined), "-r", "bm26", "-o", str(tmp_path / "r")]
    )
    assert res.exit_code != 0 and "bm26" in res.output
    res = runner.invoke(
        app, ["diagnose", "-i", str(tmp_path / "none"), "-r", "bm25", "-o", str(tmp_path / "r")]
    )
    assert res.exit_code != 0


def test_rerank_writes_a_run(tmp_path: Path) -> None:
    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.trec import read_run

    out = tmp_path / "axio.trec"
    res = runner.invoke(
        app, ["rerank", "--dataset", "demo", "--axioms", "TFC1,M-TDC", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    run = read_run(out)
    ds = demo_dataset()
    assert set(run) == set(ds.queries)
    for q, docs in run.items():
        assert set(docs) <= set(ds.candidate_ids(q))


def test_rerank_learned_needs_train_dataset(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["rerank", "-d", "demo", "--aggregation", "learned", "-o", str(tmp_path / "x.trec")]
    )
    assert res.exit_code != 0 and "--train-dataset" in res.output
    assert not (tmp_path / "x.trec").exists()


def test_counts_command_prints_the_stage_table() -> None:
    from axiomatic.cli.main import app as main_app

    res = CliRunner().invoke(main_app, ["counts", "--dataset", "demo", "--axioms", "TFC1,M-TDC"])
    assert res.exit_code == 0, res.output
    assert "| TFC1 |" in res.output and "extended+length" in res.output


def test_rerank_table_names_the_order_and_tests_it_against_the_base(tmp_path: Path) -> None:
    """Each re-ranked order is named by its aggregation and order, and compared with the base
    by the project's significance policy (paired t-test, Holm): the p-value is scipy's
    ttest_rel on the per-query values (one comparison: Holm leaves it as is)."""
    import json

    from scipy import stats as scipy_stats

    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.trec import read_run
    from axiomatic.evaluate.metrics import evaluate_per_query
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker

    out = tmp_path / "axio.trec"
    args = ["rerank", "-d", "demo", "-a", "TFC1,M-TDC", "--order", "pagerank", "-o", str(out)]
    res = runner.invoke(app, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output[res.output.index("{") :])
    rows = {(r["ranker"], r["measure"]): r for r in doc["results"]}
    name = "axiomatic (majority, pagerank)"
    assert {r for r, _ in rows} == {"base BM25(k1=0.9,b=0.4)", name}
    ds = demo_dataset()
    base = rerank(make_ranker("bm25", ds), ds)
    a = evaluate_per_query(base, ds.qrels, "AP", rel_threshold=ds.rel_threshold)
    b = evaluate_per_query(read_run(out), ds.qrels, "AP", rel_threshold=ds.rel_threshold)
    m = a.merge(b, on=["query_id", "measure"], suffixes=("_a", "_b"))
    want = scipy_stats.ttest_rel(m["value_b"], m["value_a"]).pvalue
    assert rows[(name, "AP")]["pvalue_holm"] == pytest.approx(want)
    assert "Holm" in rows[(name, "AP")]["family"]
    table = runner.invoke(app, [*args, "--format", "table"])
    assert name in table.output and "(p=" in table.output and "Holm" in table.output


def test_diagnose_scores_a_neural_model_once_per_pair(
    mined: Path, tmp_path: Path, monkeypatch
) -> None:
    """With qrels, diagnose scores a neural model's candidate lists once (its effectiveness
    run) and takes the instances' real documents from that run: the model is asked again only
    for documents outside the lists (artificial ones). The fractions are those of a diagnosis
    that scores every instance document with the model."""
    import axiomatic.rankers.base as base
    from axiomatic import diagnose, make_ranker, read_instances
    from axiomatic.data.demo import demo_dataset

    ds = demo_dataset()
    inst, art = read_instances(mined)
    want = diagnose(inst, [make_ranker("minilm", ds)], ds, art).table()
    calls: list[tuple[str, list[str]]] = []
    lists, cands = base.score_text_lists, base.score_candidates
    counted = {"candidates": 0}

    def text_lists(model, texts, *a, **k):  # type: ignore[no-untyped-def]
        calls.extend((q, list(d)) for q, d in texts)
        return lists(model, texts, *a, **k)

    def candidates(*a, **k):  # type: ignore[no-untyped-def]
        counted["candidates"] += 1
        return cands(*a, **k)

    monkeypatch.setattr(base, "score_text_lists", text_lists)
    monkeypatch.setattr(base, "score_candidates", candidates)
    out = tmp_path / "rep"
    res = runner.invoke(app, ["diagnose", "--instances", str(mined), "-r", "minilm",
                              "--no-plots", "-o", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert counted["candidates"] == 1
    by_text = {q.text: q.query_id for q in ds.queries.values()}
    for q, texts in calls:
        listed = {ds.documents[d].text for d in ds.candidate_ids(by_text[q])}
        assert not listed & set(texts), q  # no candidate scored a second time
    got = pd.read_csv(out / "diagnosis.csv")
    got = got[got["ranker"] != "oracle"].set_index("spec")["fraction"]
    ref = want.set_index("spec")["fraction"]
    assert got.to_dict() == pytest.approx(ref.to_dict())

"""``--analyzer`` reaches the index, BM25, mining, counts and diagnosis, and is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.instances import MANIFEST
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.text.analyzer import parse_analyzer

runner = CliRunner()

DOCS = [
    Document("d1", "The history of the bicycle in the city"),
    Document("d2", "A bicycle history: frames and wheels of a bicycle"),
    Document("d3", "History of art"),
    Document("d4", "Bicycles for the city and for the country"),
    Document("d5", "the the the city of the bicycle"),
]


def stopword_dataset() -> Dataset:
    """A query whose stopwords ('the', 'of') matter when they are kept (thesis setting)."""
    queries = {"q1": Query("q1", "the history of the bicycle"), "q2": Query("q2", "city of art")}
    cands = {"q1": [d.doc_id for d in DOCS], "q2": [d.doc_id for d in DOCS]}
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    return Dataset("stopwords-tiny", queries, {d.doc_id: d for d in DOCS}, qrels, cands)


@pytest.fixture()
def tiny(monkeypatch, tmp_path) -> Dataset:
    """The CLI's catalog lookups return the inline dataset (and indexes go to a temp cache)."""
    ds = stopword_dataset()
    import axiomatic.data.catalog as catalog

    monkeypatch.setattr(catalog, "load_dataset", lambda name, data_root=None, **kw: ds)
    monkeypatch.setenv("AXIOMATIC_CACHE", str(tmp_path / "cache"))
    return ds


def test_thesis_analyzer_reaches_index_and_bm25() -> None:
    from axiomatic.rankers.registry import make_ranker

    ds = stopword_dataset()
    thesis = make_ranker("bm25", ds, analyzer=parse_analyzer("thesis"))
    default = make_ranker("bm25", ds, analyzer=parse_analyzer("default"))
    assert thesis.index.analyzer.preset == "thesis"
    assert default.index.analyzer.preset == "default"
    from axiomatic.index.cache import cache_key

    assert cache_key(ds, thesis.index.analyzer) != cache_key(ds, default.index.analyzer)
    q = ds.queries["q1"]
    docs = [ds.documents[d] for d in ds.candidates["q1"]]
    s_thesis, s_default = thesis.score(q, docs), default.score(q, docs)
    assert list(s_thesis) != list(s_default)
    # 'the' and 'of' count only in the thesis setting: d5 (four 'the') gains on d1
    assert (s_thesis[4] - s_thesis[0]) > (s_default[4] - s_default[0])


def _run_scores(path: Path) -> dict[tuple[str, str], float]:
    out = {}
    for line in path.read_text().splitlines():
        qid, _, did, _, score, _ = line.split()
        out[(qid, did)] = float(score)
    return out


def test_rank_analyzer_option_changes_bm25_scores(tiny, tmp_path) -> None:
    runs = {}
    for spec in ("thesis", "default"):
        out = tmp_path / f"{spec}.trec"
        res = runner.invoke(app, ["rank", "-d", "x", "--analyzer", spec, "--out", str(out)])
        assert res.exit_code == 0, res.output
        runs[spec] = _run_scores(out)
    assert runs["thesis"] != runs["default"]


def test_mine_records_analyzer_and_diagnose_uses_it(tiny, tmp_path) -> None:
    inst = tmp_path / "inst"
    res = runner.invoke(
        app,
        ["mine", "-d", "x", "--axioms", "TFC1,M-TDC", "--analyzer", "thesis", "--out", str(inst)],
    )
    assert res.exit_code == 0, res.output
    cfg = json.loads((inst / MANIFEST).read_text())["config"]
    assert parse_analyzer(cfg["analyzer_spec"]) == parse_analyzer("thesis")
    assert cfg["analyzer"] == parse_analyzer("thesis").config_hash

    report = tmp_path / "report"
    res = runner.invoke(
        app,
        [
            "diagnose",
            "-i",
            str(inst),
            "-d",
            "x",
            "-r",
            "bm25",
            "--analyzer",
            "thesis",
            "--out",
            str(report),
            "--no-plots",
        ],
    )
    if res.exit_code != 0 and "no instances" in res.output:
        pytest.skip("the tiny dataset yields no instances")
    assert res.exit_code == 0, res.output
    meta = json.loads((report / "diagnosis.json").read_text())["metadata"]
    assert meta["analyzer"].startswith("thesis")
    assert "analyzer" in (report / "report.html").read_text()
    assert "analyzer: thesis" in " ".join(res.output.split())


def test_mine_with_default_analyzer_is_recorded_differently(tiny, tmp_path) -> None:
    inst = tmp_path / "inst"
    res = runner.invoke(
        app, ["mine", "-d", "x", "--axioms", "TFC1", "--analyzer", "default", "--out", str(inst)]
    )
    assert res.exit_code == 0, res.output
    cfg = json.loads((inst / MANIFEST).read_text())["config"]
    assert parse_analyzer(cfg["analyzer_spec"]).preset == "default"


def test_counts_thesis_preset_is_explicit_and_said(tiny) -> None:
    res = runner.invoke(app, ["counts", "-d", "x", "--axioms", "TFC1", "--analyzer", "thesis"])
    assert res.exit_code == 0, res.output
    assert "analyzer: thesis" in res.output


# ------------------------------------------------------- one default analyzer in every command
def test_every_command_defaults_to_the_default_analyzer(tiny, tmp_path) -> None:
    """mine, counts and diagnose analyze as rank and rerank do unless told otherwise, and each
    prints the analyzer in its table header."""
    inst = tmp_path / "inst"
    res = runner.invoke(app, ["mine", "-d", "x", "--axioms", "TFC1,M-TDC", "--out", str(inst)])
    assert res.exit_code == 0, res.output
    cfg = json.loads((inst / MANIFEST).read_text())["config"]
    assert parse_analyzer(cfg["analyzer_spec"]) == parse_analyzer("default")
    assert "(analyzer: default)" in " ".join(res.output.split())
    res = runner.invoke(app, ["counts", "-d", "x", "--axioms", "TFC1"])
    assert res.exit_code == 0, res.output
    assert "analyzer: default)" in res.output.splitlines()[0]
    report = tmp_path / "report"
    res = runner.invoke(
        app,
        ["diagnose", "-i", str(inst), "-d", "x", "-r", "bm25", "--out", str(report), "--no-plots"],
    )
    assert res.exit_code == 0, res.output
    meta = json.loads((report / "diagnosis.json").read_text())["metadata"]
    assert meta["analyzer"].startswith("default")
    assert "analyzer: default (lexical rankers); instances mined with: default" in res.output
    assert "warning" not in res.output


def test_diagnose_does_not_inherit_the_manifest_analyzer_and_warns(tiny, tmp_path) -> None:
    """Instances mined with 'thesis', diagnosed with the default BM25: the ranker is the
    BM25 of `rank` (not silently the manifest's), and a warning names both analyzers."""
    inst = tmp_path / "inst"
    res = runner.invoke(
        app,
        ["mine", "-d", "x", "--axioms", "TFC1,M-TDC", "--analyzer", "thesis", "--out", str(inst)],
    )
    assert res.exit_code == 0, res.output
    report = tmp_path / "report"
    res = runner.invoke(
        app,
        ["diagnose", "-i", str(inst), "-d", "x", "-r", "bm25", "--out", str(report), "--no-plots"],
    )
    assert res.exit_code == 0, res.output
    meta = json.loads((report / "diagnosis.json").read_text())["metadata"]
    assert meta["analyzer"].startswith("default")
    assert meta["instances_analyzer"].startswith("language=en") or "thesis" in str(
        meta["instances_analyzer"]
    )
    text = " ".join(res.output.split())
    assert "warning:" in text and "'default'" in text and "mined with 'thesis'" in text
    assert "--analyzer 'thesis'" in text


def test_diagnose_warns_when_runs_meet_thesis_instances(tiny, tmp_path) -> None:
    inst = tmp_path / "inst"
    res = runner.invoke(
        app, ["mine", "-d", "x", "-a", "TFC1", "--analyzer", "thesis", "--out", str(inst)]
    )
    assert res.exit_code == 0, res.output
    run = tmp_path / "r.trec"
    assert runner.invoke(app, ["rank", "-d", "x", "--out", str(run)]).exit_code == 0
    res = runner.invoke(
        app,
        [
            "diagnose",
            "-i",
            str(inst),
            "-d",
            "x",
            "--run",
            str(run),
            "-o",
            str(tmp_path / "rep"),
            "--no-plots",
        ],
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "does not record its text processing" in text and "'thesis'" in text


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["rank", "-d", "x", "--analyzer", "thesys"], "did you mean 'thesis'"),
        (["mine", "-d", "x", "--out", "OUT", "--analyzer", "stopword=false"], "stopwords"),
        (["counts", "-d", "x", "--analyzer", "stemmer=krovetz"], "unknown stemmer"),
        (["rerank", "-d", "x", "--out", "OUT", "--analyzer", "lowercase=2"], "true or false"),
    ],
)
def test_bad_analyzer_specs_fail_clearly(tiny, tmp_path, command, message) -> None:
    command = [str(tmp_path / "o") if c == "OUT" else c for c in command]
    res = runner.invoke(app, command)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())  # rich wraps long lines
    assert "bad --analyzer" in text and message in text


def test_train_config_validates_analyzer() -> None:
    from axiomatic.training.config import TrainConfig

    assert TrainConfig(analyzer="thesis").to_dict()["analyzer"] == "thesis"
    with pytest.raises(ValueError, match="did you mean 'thesis'"):
        TrainConfig(analyzer="thesys")

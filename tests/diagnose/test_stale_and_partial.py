"""Stale and partial mining outputs are refused, never used silently."""

from __future__ import annotations

import json

import pytest

from axiomatic.data.instances import ARTIFICIAL_DIR, ARTIFICIAL_FILE, MANIFEST, read_instances
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.mining import mine
from axiomatic.index.cache import dataset_index
from axiomatic.text.analyzer import Analyzer

AXIOMS = "TFC1,M-TDC,LNC2"


def _dataset(text_b: str = "solar solar panel efficiency is high", query: str = "solar panel"):
    docs = {
        "a": Document("a", "solar panel efficiency is high"),
        "b": Document("b", text_b),
        "c": Document("c", "panel maintenance and cleaning"),
        "d": Document("d", "solar power solar energy panel"),
    }
    queries = {f"q{i}": Query(f"q{i}", query if i % 2 else "panel cleaning") for i in range(6)}
    return Dataset(
        name="tiny",
        queries=queries,
        documents=docs,
        qrels={q: {"a": 1, "d": 0} for q in queries},
        candidates={q: ["a", "b", "c", "d"] for q in queries},
    )


def _mine(ds, out, **kw):
    index = kw.pop("index", None) or dataset_index(ds, cache_dir=False)
    return mine(ds, AXIOMS, out, index=index, shard_size=2, progress=False, **kw)


# ----------------------------------------------------------------------------- stale shards
def test_changed_document_text_refuses_to_resume_stale_shards(tmp_path):
    out = tmp_path / "inst"
    first = _mine(_dataset(), out)
    assert first["shards"] == 3
    changed = _dataset(text_b="solar panel efficiency is low and solar output drops")
    with pytest.raises(ValueError, match=r"document texts.*overwrite=True") as exc:
        _mine(changed, out)
    assert "another configuration" in str(exc.value) and "stale" in str(exc.value)
    # the refused run left the folder as it was
    assert json.loads((out / MANIFEST).read_text())["complete"] is True
    # --overwrite mines afresh: identical to a run into an empty folder
    again = _mine(changed, out, overwrite=True)
    fresh = _mine(changed, tmp_path / "fresh")
    assert again["shards_skipped"] == 0 and again["instances"] == fresh["instances"]
    df_again, _ = read_instances(out)
    df_fresh, _ = read_instances(tmp_path / "fresh")
    assert df_again.equals(df_fresh)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda ds: ds.queries.update({"q1": Query("q1", "solar cleaning")}), "query texts"),
        (lambda ds: ds.candidates.update({"q0": ["b", "a", "c", "d"]}), "candidate lists"),
        (lambda ds: ds.qrels["q2"].update({"b": 2}), "relevance labels"),
    ],
)
def test_every_input_is_fingerprinted(tmp_path, change, named):
    out = tmp_path / "inst"
    _mine(_dataset(), out)
    ds = _dataset()
    change(ds)
    with pytest.raises(ValueError, match=named):
        _mine(ds, out)


def test_analyzer_and_index_changes_are_detected(tmp_path):
    out = tmp_path / "inst"
    ds = _dataset()
    _mine(ds, out)
    other = dataset_index(ds, analyzer=Analyzer(stemmer=None), cache_dir=False)
    with pytest.raises(ValueError, match="analyzer"):
        _mine(ds, out, index=other)


def test_same_inputs_resume(tmp_path):
    out = tmp_path / "inst"
    first = _mine(_dataset(), out)
    again = _mine(_dataset(), out)  # equal content, new objects: resumed
    assert again["shards_skipped"] == first["shards"] == 3


def test_manifest_without_inputs_is_not_trusted(tmp_path):
    out = tmp_path / "inst"
    _mine(_dataset(), out)
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest["config"]["inputs"]  # written by a version that did not record them
    (out / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="not recorded"):
        _mine(_dataset(), out)


def test_leftover_temp_files_are_removed_on_resume(tmp_path):
    out = tmp_path / "inst"
    _mine(_dataset(), out)
    (out / "shard-00001.parquet").unlink()  # killed while writing shard 1 ...
    leftovers = [
        out / ".shard-00001.parquet.k3j9x0a2.tmp",
        out / ".manifest.json.abcdefgh.tmp",
        out / ARTIFICIAL_DIR / ".shard-00001.parquet.zz00zz00.tmp",
    ]
    for p in leftovers:
        p.write_bytes(b"half written")
    keep = out / "notes.tmp"  # not one of ours
    keep.write_text("user file")
    resumed = _mine(_dataset(), out)
    assert resumed["shards_skipped"] == 2
    assert not any(p.exists() for p in leftovers) and keep.exists()


# ----------------------------------------------------------------------------- partial outputs
@pytest.fixture(scope="module")
def unfinished(tmp_path_factory):
    """The demo mined in 3 shards, then 'killed': shard 2 missing, manifest incomplete."""
    from axiomatic.data.catalog import load_dataset

    out = tmp_path_factory.mktemp("partial") / "inst"
    ds = load_dataset("demo")
    mine(ds, AXIOMS, out, index=dataset_index(ds, cache_dir=False), shard_size=4, progress=False)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["complete"] = False
    manifest["shards"].pop("shard-00002")
    (out / MANIFEST).write_text(json.dumps(manifest))
    (out / "shard-00002.parquet").unlink()
    (out / ARTIFICIAL_FILE).unlink()  # consolidated only when a run finishes
    return out


def test_read_instances_refuses_an_unfinished_run(unfinished):
    from axiomatic.data.instances import IncompleteInstancesError

    with pytest.raises(IncompleteInstancesError, match=r"unfinished.*2 of 3 shards.*allow_partial"):
        read_instances(unfinished)
    df, arts = read_instances(unfinished, allow_partial=True)
    assert df.attrs["partial"] == "partial: 2 of 3 shards" and len(df) > 0 and arts


def test_partial_diagnosis_labels_every_table_and_the_report(unfinished, tmp_path):
    from rich.console import Console

    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.rankers.lexical import BM25Ranker
    from axiomatic.report.html import render_html
    from axiomatic.report.tables import print_tables
    from axiomatic.report.writer import write_report

    ds = load_dataset("demo")
    df, arts = read_instances(unfinished, allow_partial=True)
    diag = diagnose(df, [BM25Ranker(dataset_index(ds, cache_dir=False))], ds, arts)
    label = "partial: 2 of 3 shards"
    assert diag.partial == label and diag.summary()["partial"] == label
    console = Console(record=True, width=200)
    print_tables(diag, console=console)
    text = console.export_text()
    assert text.count(f"({label})") >= 1 and "unfinished mining output" in text
    page = render_html(diag, title="Axiomatic diagnosis: demo")
    assert f"<h1>Axiomatic diagnosis: demo ({label})</h1>" in page
    assert page.count("<h2>") == page.count(f"({label})</small></h2>") > 0
    paths = write_report(diag, None, tmp_path / "report", plots=False)
    csvs = [p for k, p in paths.items() if k.endswith("_csv")]
    assert csvs
    for p in csvs:
        lines = p.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("partial,"), p.name
        assert all(line.startswith(label) for line in lines[1:]), p.name
    saved = json.loads((tmp_path / "report" / "diagnosis.json").read_text())
    assert saved["summary"]["partial"] == label
    # a complete output is not labelled
    full, full_arts = read_instances(unfinished, allow_partial=True)
    full.attrs.clear()
    assert (
        diagnose(full, [BM25Ranker(dataset_index(ds, cache_dir=False))], ds, full_arts).partial
        is None
    )


def test_cli_diagnose_refuses_partial_unless_allowed(unfinished, tmp_path):
    from typer.testing import CliRunner

    from axiomatic.cli.main import app

    runner = CliRunner()
    args = ["diagnose", "-i", str(unfinished), "-d", "demo", "-r", "bm25", "--no-plots"]
    res = runner.invoke(app, [*args, "-o", str(tmp_path / "refused")])
    assert res.exit_code != 0
    assert "unfinished" in res.output and "--allow-partial" in res.output
    assert "allow_partial=True" not in res.output
    res = runner.invoke(app, [*args, "-o", str(tmp_path / "rep"), "--allow-partial"])
    assert res.exit_code == 0, res.output
    assert "partial: 2 of 3 shards" in res.output
    assert "partial: 2 of 3 shards" in (tmp_path / "rep" / "report.html").read_text()
    assert (tmp_path / "rep" / "diagnosis.csv").read_text().startswith("partial,")

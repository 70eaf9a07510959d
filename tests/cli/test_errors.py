"""No tracebacks, no aborts: every bad input ends as a short message.

Each test drives the real CLI with typer's CliRunner; a traceback or an uncaught exception
(``result.exception`` not a ``SystemExit``) fails it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.instances import ARTIFICIAL_DIR, ARTIFICIAL_FILE, MANIFEST

runner = CliRunner()


def _invoke(args: list[str], **kw):
    res = runner.invoke(app, args, **kw)
    # typer turns an uncaught exception into result.exception (not SystemExit)
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"uncaught {type(res.exception).__name__}: {res.exception}\n{res.output}"
    )
    assert "Traceback" not in res.output, res.output
    return res


def _demo_run(tmp_path: Path) -> Path:
    out = tmp_path / "bm25.trec"
    res = _invoke(["rank", "-d", "demo", "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out


# ----------------------------------------------------------------------------- top-level handler
def test_a_bug_is_a_message_with_report_hint_and_traceback_only_with_debug(monkeypatch) -> None:
    import axiomatic.data.catalog as catalog

    def boom(*a, **k):
        raise RuntimeError("boom [/x] inside")

    monkeypatch.setattr(catalog, "list_datasets", boom)
    res = _invoke(["datasets"])
    assert res.exit_code == 1
    assert "internal error: RuntimeError: boom [/x] inside" in res.output
    assert "This is a bug, please report it" in res.output and "--debug" in res.output
    res = runner.invoke(app, ["--debug", "datasets"])
    assert res.exit_code == 1
    assert "Traceback" in res.output and "boom" in res.output
    monkeypatch.setenv("AXIOMATIC_DEBUG", "1")
    assert "Traceback" in runner.invoke(app, ["datasets"]).output


def test_a_project_error_is_one_red_line_exit_2(monkeypatch) -> None:
    import axiomatic.data.catalog as catalog
    from axiomatic.data.errors import ParseError

    def bad(*a, **k):
        raise ParseError("found 2 columns in 'a [/x] b'", path="f.tsv", line=3, expected="3")

    monkeypatch.setattr(catalog, "list_datasets", bad)
    res = _invoke(["datasets"])
    assert res.exit_code == 2
    assert "error: f.tsv:3: found 2 columns in 'a [/x] b'; expected 3" in res.output
    assert "bug" not in res.output


def test_a_value_error_deep_in_a_library_is_a_bug_not_bad_input(monkeypatch) -> None:
    import pandas as pd

    import axiomatic.data.catalog as catalog

    def ambiguous(*a, **k):
        return bool(pd.Series([1, 2]))  # ValueError raised inside pandas

    monkeypatch.setattr(catalog, "list_datasets", ambiguous)
    res = _invoke(["datasets"])
    assert res.exit_code == 1
    assert "internal error: ValueError: The truth value of a Series" in res.output
    assert "This is a bug" in res.output


def test_undecodable_input_is_bad_input(tmp_path: Path) -> None:
    run = tmp_path / "latin1.trec"
    run.write_bytes(b"q1 Q0 d\xe9 1 1.0 t\n")
    res = _invoke(["evaluate", "-d", "demo", "--run", str(run)])
    assert res.exit_code == 2
    assert "latin1.trec" in res.output and "bug" not in res.output


# ----------------------------------------------------------------------------- rich markup
def test_markup_in_a_bad_line_is_printed_not_interpreted(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trec"
    bad.write_text("q1 Q0 d1 1 [/x] [bold]t\n", encoding="utf-8")
    res = _invoke(["evaluate", "-d", "demo", "--run", str(bad)])
    assert res.exit_code == 2
    assert "[/x]" in res.output and "bad.trec:1" in res.output
    assert "MarkupError" not in res.output


def test_markup_in_output_paths_is_printed_not_interpreted(tmp_path: Path) -> None:
    out = tmp_path / "[/x]run.trec"
    res = _invoke(["rank", "-d", "demo", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "[/x]run.trec" in res.output and out.is_file()
    inst = tmp_path / "[/x]inst"
    res = _invoke(["mine", "-d", "demo", "-o", str(inst), "-a", "TFC1"])
    assert res.exit_code == 0, res.output
    assert "[/x]inst" in res.output.replace("\n", "")


# ----------------------------------------------------------------------------- measures
@pytest.mark.parametrize("measure", ["P@0", "nDCG@0", "AP(rel=1.5)", "nDGC@10"])
def test_bad_measures_fail_before_any_work(tmp_path: Path, measure: str) -> None:
    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 d1 1 1.0 t\n", encoding="utf-8")
    # the dataset does not even exist: the measure must be refused first
    res = _invoke(["evaluate", "-d", "no-such-dataset", "--run", str(run), "--measures", measure])
    assert res.exit_code == 2
    assert "bad --measures" in res.output and measure in res.output


def test_a_run_matching_no_judged_query_warns_with_counts(tmp_path: Path) -> None:
    other = tmp_path / "other.trec"
    other.write_text("zz1 Q0 d1 1 1.0 t\nzz2 Q0 d1 1 1.0 t\n", encoding="utf-8")
    res = _invoke(["evaluate", "-d", "demo", "--run", str(other)])
    assert res.exit_code == 0, res.output
    assert "matches none of the 10 judged queries (it ranks 2 other queries;" in res.output


# ----------------------------------------------------------------------------- rank
def test_bad_ranker_parameter_value_is_a_message(tmp_path: Path) -> None:
    res = _invoke(["rank", "-d", "demo", "-r", "bm25:k1={[]:1}", "-o", str(tmp_path / "x")])
    assert res.exit_code == 2
    assert "the value of 'k1' must be a literal" in res.output


def test_bad_axiom_and_seed_values_are_messages(tmp_path: Path) -> None:
    res = _invoke(["mine", "-d", "demo", "-o", str(tmp_path / "m"), "-a", "TFC1(delta_rel={[]:1})"])
    assert res.exit_code == 2 and "must be a literal" in res.output
    res = _invoke(
        ["experiment", "rosset2019", "--quick", "-o", str(tmp_path / "e"), "--seeds", "a"]
    )
    assert res.exit_code == 2 and "--seeds 'a'" in res.output


@pytest.mark.parametrize("content", ["", "garbage line\n"])
def test_run_ranker_with_an_empty_or_bad_run_is_a_message(tmp_path: Path, content: str) -> None:
    run = tmp_path / "in.trec"
    run.write_text(content, encoding="utf-8")
    res = _invoke(["rank", "-d", "demo", "-r", f"run:{run}", "-o", str(tmp_path / "out.trec")])
    assert res.exit_code == 2
    assert "in.trec" in res.output
    assert not (tmp_path / "out.trec").exists()


def test_run_tag_with_whitespace_fails_before_ranking(tmp_path: Path, monkeypatch) -> None:
    import axiomatic.rankers.base as base

    def never(*a, **k):  # the tag must be refused before any ranking work
        raise AssertionError("ranked before validating the tag")

    monkeypatch.setattr(base, "rerank", never)
    out = tmp_path / "x.trec"
    res = _invoke(["rank", "-d", "demo", "-o", str(out), "--tag", "a b"])
    assert res.exit_code == 2
    assert "--tag 'a b'" in res.output and "whitespace" in res.output
    assert not out.exists()


def test_doc_ids_with_whitespace_fail_before_ranking(tmp_path: Path, monkeypatch) -> None:
    import axiomatic.cli.data_cmds as data_cmds
    import axiomatic.rankers.base as base
    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.records import Document

    ds = demo_dataset()
    qid = next(iter(ds.queries))
    ds.documents["bad id"] = Document("bad id", "some text")
    ds.candidates[qid] = [*ds.candidates[qid], "bad id"]
    monkeypatch.setattr(data_cmds, "load_dataset_or_exit", lambda *a: ds)
    monkeypatch.setattr(base, "rerank", lambda *a, **k: pytest.fail("ranked first"))
    res = _invoke(["rank", "-d", "demo", "-o", str(tmp_path / "x.trec")])
    assert res.exit_code == 2
    assert "doc id 'bad id'" in res.output


def test_output_paths_that_cannot_be_written(tmp_path: Path) -> None:
    res = _invoke(["rank", "-d", "demo", "-o", str(tmp_path)])
    assert res.exit_code == 2 and "is a folder" in res.output
    afile = tmp_path / "file.txt"
    afile.write_text("x", encoding="utf-8")
    res = _invoke(["rank", "-d", "demo", "-o", str(afile / "run.trec")])
    assert res.exit_code == 2 and "is a file, not a folder" in res.output


# ----------------------------------------------------------------------------- numeric ranges
@pytest.mark.parametrize(
    "args",
    [
        ["rank", "-d", "demo", "--depth", "-3"],
        ["rank", "-d", "demo", "--depth", "0"],
        ["mine", "-d", "demo", "-o", "OUT", "--max-per-query", "-1"],
        ["mine", "-d", "demo", "-o", "OUT", "--depth", "-5"],
        ["mine", "-d", "demo", "-o", "OUT", "--workers", "0"],
        ["mine", "-d", "demo", "-o", "OUT", "--seed", "-1"],
        ["rerank", "-d", "demo", "-o", "OUT", "--depth", "-1"],
        ["counts", "-d", "demo", "--depth", "-1"],
        ["train", "-d", "demo", "--steps", "-1"],
        ["train", "-d", "demo", "--batch-size", "0"],
        # evaluate --baseline is a run name (tests/cli/test_conventions.py: unknown names)
    ],
)
def test_negative_numbers_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    args = [str(tmp_path / "o") if a == "OUT" else a for a in args]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "Invalid value" in res.output
    assert not (tmp_path / "o").exists()


# ----------------------------------------------------------------------------- corrupt outputs
@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mined") / "inst"
    res = runner.invoke(app, ["mine", "-d", "demo", "-o", str(out), "-a", "TFC1,LNC2"])
    assert res.exit_code == 0, res.output
    return out


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_corrupt_manifest_names_the_file_and_overwrite(tmp_path: Path, mined: Path) -> None:
    inst = _copy(mined, tmp_path / "inst")
    (inst / MANIFEST).write_text("{not json", encoding="utf-8")
    res = _invoke(["diagnose", "-i", str(inst), "-o", str(tmp_path / "rep"), "-r", "bm25"])
    assert res.exit_code == 2
    assert "manifest.json is corrupt" in res.output and "--overwrite" in res.output
    res = _invoke(["mine", "-d", "demo", "-o", str(inst), "-a", "TFC1,LNC2"])
    assert res.exit_code == 2
    assert "manifest.json is corrupt" in res.output and "--overwrite" in res.output
    res = _invoke(["mine", "-d", "demo", "-o", str(inst), "-a", "TFC1,LNC2", "--overwrite"])
    assert res.exit_code == 0, res.output
    import json

    assert json.loads((inst / MANIFEST).read_text(encoding="utf-8"))["complete"]


def test_counts_checks_the_instances_folder_first(tmp_path: Path, monkeypatch) -> None:
    from axiomatic.diagnose import counts

    monkeypatch.setattr(counts, "variant_counts", lambda *a, **k: pytest.fail("counted first"))
    res = _invoke(["counts", "-d", "demo", "--instances", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "holds no mined instances" in res.output
    assert "axiomatic mine --dataset demo" in res.output


def test_corrupt_shard_names_the_file(tmp_path: Path, mined: Path) -> None:
    inst = _copy(mined, tmp_path / "inst")
    shard = sorted(inst.glob("shard-*.parquet"))[0]
    shard.write_bytes(shard.read_bytes()[:100])  # truncated
    res = _invoke(["diagnose", "-i", str(inst), "-o", str(tmp_path / "rep"), "-r", "bm25"])
    assert res.exit_code == 2
    assert f"{shard.name} is corrupt or truncated" in res.output and "--overwrite" in res.output


def test_diagnose_checks_measures_and_output_before_the_diagnosis(
    tmp_path: Path, mined: Path, monkeypatch
) -> None:
    from axiomatic.diagnose import diagnosis

    monkeypatch.setattr(diagnosis, "diagnose", lambda *a, **k: pytest.fail("diagnosed first"))
    args = ["diagnose", "-i", str(mined), "-r", "bm25"]
    res = _invoke([*args, "-o", str(tmp_path / "rep"), "--measures", "P@0"])
    assert res.exit_code == 2 and "bad --measures" in res.output
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    res = _invoke([*args, "-o", str(afile)])
    assert res.exit_code == 2 and "is a file; expected a folder" in res.output


@pytest.mark.parametrize(
    "args",
    [
        ["mine", "-d", "demo", "-a", "TFC1", "-o"],
        ["demo", "--no-neural", "-o"],
        ["train", "-d", "demo", "-o"],
        ["experiment", "rosset2019", "--quick", "-o"],
        ["evaluate", "-d", "demo", "--run", "r.trec", "--per-query"],
        ["rerank", "-d", "demo", "-o"],
    ],
)
def test_outputs_under_a_file_fail_before_the_work(tmp_path: Path, args: list[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    target = afile if args[0] in ("mine", "demo", "train", "experiment") else afile / "x.csv"
    res = _invoke([*args, str(target)])
    assert res.exit_code == 2, res.output
    assert "is a file" in res.output and str(afile) in res.output


def test_unreachable_scheduler_fails_fast_naming_the_address(tmp_path: Path, monkeypatch) -> None:
    import time

    from axiomatic.diagnose import dask_utils

    monkeypatch.setattr(dask_utils, "CONNECT_TIMEOUT_S", 1.0)
    t0 = time.perf_counter()
    out = str(tmp_path / "o")
    res = _invoke(
        ["mine", "-d", "demo", "-o", out, "-a", "TFC1", "--scheduler", "tcp://127.0.0.1:1"]
    )
    assert res.exit_code == 2
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1' within 1 s" in res.output
    assert time.perf_counter() - t0 < 20


def test_train_threads_option_is_validated() -> None:
    res = runner.invoke(app, ["train", "-d", "demo", "--threads", "0"])
    assert res.exit_code == 2 and "Invalid value" in res.output
    assert "--threads" in runner.invoke(app, ["experiment", "--help"]).output


# ----------------------------------------------------------------------------- CLI wording
def test_missing_artificial_documents_name_cli_flags(tmp_path: Path, mined: Path) -> None:
    import shutil

    inst = _copy(mined, tmp_path / "inst")
    (inst / ARTIFICIAL_FILE).unlink()
    shutil.rmtree(inst / ARTIFICIAL_DIR, ignore_errors=True)
    res = _invoke(["diagnose", "-i", str(inst), "-o", str(tmp_path / "rep"), "-r", "bm25"])
    assert res.exit_code == 2, res.output
    assert "lacks its artificial documents" in res.output and "--overwrite" in res.output
    assert "read_instances" not in res.output and "artificial_docs from" not in res.output


def test_a_partial_base_run_names_cli_flags(tmp_path: Path) -> None:
    base = tmp_path / "base.trec"
    base.write_text("q1 Q0 nosuchdoc 1 1.0 t\n", encoding="utf-8")
    res = _invoke(["rerank", "-d", "demo", "-o", str(tmp_path / "o.trec"), "--base", f"run:{base}"])
    assert res.exit_code == 2, res.output
    # the run's own ranking is the base: a document it brings that neither the
    # candidates nor the collection know is named, with the count
    assert "1 of the 1 documents" in res.output and "nosuchdoc" in res.output
    assert "missing='min'" not in res.output

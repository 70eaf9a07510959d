"""No stale instances, no torn or misplaced outputs.

* ``diagnose`` refuses instances mined before the collection changed (as ``mine`` does);
* ``mine`` re-mines a finished shard that is truncated on disk instead of resuming over it;
* a manifest whose ``config`` is not an object is one ``error:`` line, not a TypeError;
* output files: a FIFO / device is refused, a symbolic link is written through;
* the ``--per-query`` CSV is written atomically.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_cli_own_collection import RUN, _collection
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.instances import MANIFEST

runner = CliRunner()
MINE = ["--axioms", "TFC1,M-TDC,LNC2", "--variant", "relaxed"]


def _run(args: list[str]):
    res = runner.invoke(app, args)
    assert "Traceback" not in res.output and "internal error" not in res.output, res.output
    return res


def _ok(args: list[str]) -> str:
    res = _run(args)
    assert res.exit_code == 0, (args, res.output)
    return res.output


def _error_lines(output: str) -> list[str]:
    return [ln for ln in output.splitlines() if ln.startswith("error:")]


@pytest.fixture
def mined(tmp_path: Path) -> tuple[Path, Path]:
    desc = _collection(tmp_path)
    inst = tmp_path / "inst"
    _ok(["mine", "-d", str(desc), "--out", str(inst), "--shard-size", "1", *MINE])
    return desc, inst


# ----------------------------------------------------------------------------- diagnose
def test_diagnose_refuses_instances_mined_before_a_passage_changed(mined, tmp_path) -> None:
    desc, inst = mined
    args = ["diagnose", "-i", str(inst), "-r", "bm25", "--no-plots"]
    _ok([*args, "-o", str(tmp_path / "before")])  # current: diagnosed
    passages = tmp_path / "passages.jsonl"
    passages.write_text(passages.read_text().replace("cats purr when", "cats sleep when", 1))
    # mine refuses to resume ...
    res = _run(["mine", "-d", str(desc), "--out", str(inst), "--shard-size", "1", *MINE])
    assert res.exit_code == 2 and "document texts" in res.output, res.output
    # ... and diagnose refuses to score the stale instances
    res = _run([*args, "-o", str(tmp_path / "after")])
    assert res.exit_code == 2, res.output
    errors = _error_lines(res.output)
    assert len(errors) == 1, res.output
    assert "changed: document texts" in errors[0] and "--overwrite" in errors[0]
    assert str(inst) in errors[0] and "mine" in errors[0]
    assert not (tmp_path / "after" / "report.html").exists()
    # re-mined from the current text, it is diagnosed again
    _ok(["mine", "-d", str(desc), "--out", str(inst), "--overwrite", *MINE])
    _ok([*args, "-o", str(tmp_path / "after")])


def test_diagnose_refuses_instances_when_the_labels_changed(mined, tmp_path) -> None:
    _, inst = mined
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(qrels.read_text().replace("1 0 d2 1", "1 0 d2 0"))
    res = _run(["diagnose", "-i", str(inst), "-r", "bm25", "--no-plots", "-o", str(tmp_path / "r")])
    assert res.exit_code == 2 and "relevance labels" in res.output, res.output


def test_diagnose_notes_a_manifest_without_input_hashes(mined, tmp_path) -> None:
    _, inst = mined
    manifest = json.loads((inst / MANIFEST).read_text())
    del manifest["config"]["inputs"]  # mined by a version that did not record them
    (inst / MANIFEST).write_text(json.dumps(manifest))
    out = _ok(["diagnose", "-i", str(inst), "-r", "bm25", "--no-plots", "-o", str(tmp_path / "r")])
    assert "cannot check" in out


# ----------------------------------------------------------------------------- mine
def test_mine_redoes_a_truncated_shard_instead_of_resuming_over_it(mined) -> None:
    desc, inst = mined
    shard = inst / "shard-00000.parquet"
    whole = shard.read_bytes()
    shard.write_bytes(whole[: len(whole) // 2])  # cut short, the manifest says finished
    out = _ok(["mine", "-d", str(desc), "--out", str(inst), "--shard-size", "1", *MINE])
    assert "resumed 1" in out and "written 1" in out, out
    assert "shard-00000" in out and "truncated or corrupt" in out
    import pyarrow.parquet as pq

    manifest = json.loads((inst / MANIFEST).read_text())
    assert pq.read_table(shard).num_rows == manifest["shards"]["shard-00000"]["instances"] > 0


@pytest.mark.parametrize("config", [[1, 2], "x", 5])
def test_manifest_whose_config_is_not_an_object_is_one_error_line(mined, tmp_path, config):
    desc, inst = mined
    manifest = json.loads((inst / MANIFEST).read_text())
    manifest["config"] = config
    (inst / MANIFEST).write_text(json.dumps(manifest))
    for args in (
        ["mine", "-d", str(desc), "--out", str(inst), *MINE],
        ["diagnose", "-i", str(inst), "-d", str(desc), "-r", "bm25", "-o", str(tmp_path / "r")],
    ):
        res = _run(args)
        assert res.exit_code == 2, res.output
        errors = _error_lines(res.output)
        assert len(errors) == 1 and "corrupt" in errors[0] and '"config"' in errors[0], res.output
    # --overwrite mines afresh over it
    _ok(["mine", "-d", str(desc), "--out", str(inst), "--overwrite", *MINE])


def test_library_mine_refuses_a_config_that_is_not_an_object(tmp_path) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.mining import mine

    ds = load_dataset("demo")
    out = tmp_path / "inst"
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"config": [1], "shards": {}}))
    with pytest.raises(ValueError, match=r"corrupt.*\"config\" is list.*overwrite=True"):
        mine(ds, "TFC1", out, progress=False)
    assert mine(ds, "TFC1", out, progress=False, overwrite=True)["shards"] > 0


# ----------------------------------------------------------------------------- output files
def test_rank_writes_through_a_symlink(tmp_path) -> None:
    # (a FIFO is written straight into: tests/cli/test_pipes.py)
    desc = _collection(tmp_path)
    target = tmp_path / "runs" / "real.trec"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "link.trec"
    link.symlink_to(target)
    _ok(["rank", "-d", str(desc), "-r", "bm25", "-o", str(link)])
    assert link.is_symlink() and link.resolve() == target.resolve()  # the link stays
    assert "Q0" in target.read_text() and "old" not in target.read_text()
    assert [p.name for p in target.parent.iterdir()] == ["real.trec"]  # no temp file left


def test_atomic_writes_refuse_non_regular_targets(tmp_path) -> None:
    from axiomatic._atomic import NotARegularFileError, atomic_write_text

    with pytest.raises(NotARegularFileError, match="folder"):
        atomic_write_text(tmp_path, "x")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "f")
        with pytest.raises(NotARegularFileError, match="FIFO"):
            atomic_write_text(tmp_path / "f", "x")
        assert (tmp_path / "f").is_fifo()
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    with pytest.raises(NotARegularFileError, match="cannot be resolved"):
        atomic_write_text(loop, "x")
    # a dangling link: the write creates its target, the link stays
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "made.txt")
    atomic_write_text(dangling, "hello")
    assert dangling.is_symlink() and (tmp_path / "made.txt").read_text() == "hello"


def test_evaluate_per_query_csv_is_written_atomically(tmp_path, monkeypatch) -> None:
    import axiomatic._atomic as atomic

    desc = _collection(tmp_path)
    (tmp_path / "run.trec").write_text(RUN)
    calls: list[Path] = []
    real = atomic.atomic_path

    def spy(path):
        calls.append(Path(path))
        return real(path)

    monkeypatch.setattr(atomic, "atomic_path", spy)
    per_query = tmp_path / "pq.csv"
    args = ["evaluate", "-d", str(desc), "--run", str(tmp_path / "run.trec")]
    _ok([*args, "--per-query", str(per_query)])
    assert per_query in calls and per_query.read_text().startswith("ranker,")


# ----------------------------------------------------------------------------- atomic writes
def _spy_atomic(monkeypatch) -> list[Path]:
    """Record every path written through :func:`axiomatic._atomic.atomic_path`."""
    import axiomatic._atomic as atomic

    calls: list[Path] = []
    real = atomic.atomic_path

    def spy(path):
        calls.append(Path(path))
        return real(path)

    monkeypatch.setattr(atomic, "atomic_path", spy)
    return calls


def test_model_folder_is_written_atomically_with_its_config_last(tmp_path, monkeypatch) -> None:
    from axiomatic.models import build_model, load_model, save_model

    texts = ["neural ranking model", "kernel pooling of word signals"]
    calls = _spy_atomic(monkeypatch)
    save_model(build_model("knrm", texts=texts, embeddings="random"), tmp_path / "m")
    names = [p.name for p in calls]
    assert {"vocab.json", "model.safetensors", "config.json"} <= set(names), names
    assert names[-1] == "config.json"  # written last: it makes the folder a model
    assert not [p for p in (tmp_path / "m").iterdir() if p.name.endswith(".tmp")]
    # a save that fails part-way leaves a folder load_model refuses, never the old config
    # beside a new vocabulary
    import safetensors.torch

    def fail_weights(*_args, **_kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(safetensors.torch, "save_model", fail_weights)
    other = build_model("knrm", texts=[*texts, "many other words"], embeddings="random")
    with pytest.raises(RuntimeError, match="disk full"):
        save_model(other, tmp_path / "m")
    with pytest.raises(FileNotFoundError, match=r"config\.json not found"):
        load_model(tmp_path / "m")


def test_explanation_files_are_written_atomically(tmp_path, monkeypatch) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.explain import explain, write_explanation
    from axiomatic.rankers.registry import make_ranker

    ds = load_dataset("demo")
    expl = explain(ds, {"bm25": make_ranker("bm25", ds)}, axioms="TFC1,M-AND", n_estimators=5)
    calls = _spy_atomic(monkeypatch)
    files = write_explanation(expl, tmp_path / "w")
    for key in ("summary", "by_rank", "by_score", "importances", "markdown", "html"):
        assert files[key] in calls, key
    assert files["plot"].stat().st_size > 1000
    assert sorted(p.name for p in (tmp_path / "w").iterdir() if p.name.startswith(".")) == []

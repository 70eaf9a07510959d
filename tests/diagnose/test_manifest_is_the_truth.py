"""A mined folder is read as its manifest describes it, never as the files happen to lie.

The miner records, per finished shard, its file name, row count and SHA-256; the reader checks
them. A duplicated shard, a shard with duplicated rows, an edited or a missing shard would
otherwise change n (and narrow or widen every confidence interval) without a word.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from axiomatic.data.instances import (
    ARTIFICIAL_FILE,
    MANIFEST,
    IncompleteInstancesError,
    InstancesMismatchError,
    file_sha256,
    read_instances,
)
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.mining import mine
from axiomatic.index.cache import dataset_index

AXIOMS = "TFC1,M-TDC,LNC2"


def _dataset() -> Dataset:
    docs = {
        "a": Document("a", "solar panel efficiency is high"),
        "b": Document("b", "solar solar panel efficiency is high"),
        "c": Document("c", "panel maintenance and cleaning"),
        "d": Document("d", "solar power solar energy panel"),
    }
    queries = {
        f"q{i}": Query(f"q{i}", "solar panel" if i % 2 else "panel cleaning") for i in range(6)
    }
    return Dataset(
        name="tiny",
        queries=queries,
        documents=docs,
        qrels={q: {"a": 1, "d": 0} for q in queries},
        candidates={q: ["a", "b", "c", "d"] for q in queries},
    )


def _mine(out: Path, **kw) -> dict:
    ds = _dataset()
    return mine(ds, AXIOMS, out, index=dataset_index(ds, cache_dir=False), shard_size=2,
                progress=False, **kw)  # fmt: skip


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mined") / "inst"
    assert _mine(out)["shards"] == 3
    return out


@pytest.fixture
def inst(pristine: Path, tmp_path: Path) -> Path:
    out = tmp_path / "inst"
    shutil.copytree(pristine, out)
    return out


def _rows(path: Path) -> pa.Table:
    return pq.read_table(path)


def _duplicate_rows(path: Path) -> None:
    t = _rows(path)
    pq.write_table(pa.concat_tables([t, t]), path)


def _edit_keeping_the_count(path: Path) -> None:
    t = _rows(path)
    col = t.schema.get_field_index("rel_a")
    pq.write_table(t.set_column(col, "rel_a", pa.array([2] * t.num_rows, pa.int64())), path)


def test_the_manifest_records_name_rows_and_hash_of_every_shard(inst: Path) -> None:
    manifest = json.loads((inst / MANIFEST).read_text())
    assert set(manifest["shards"]) == {"shard-00000", "shard-00001", "shard-00002"}
    for sid, info in manifest["shards"].items():
        path = inst / f"{sid}.parquet"
        assert info["file"] == path.name
        assert info["rows"] == info["instances"] == pq.read_metadata(path).num_rows
        assert info["sha256"] == file_sha256(path)
    assert manifest["artificial_docs"]["sha256"] == file_sha256(inst / ARTIFICIAL_FILE)


def test_a_copied_shard_the_manifest_does_not_list_is_refused(inst: Path) -> None:
    n = len(read_instances(inst)[0])
    shutil.copy(inst / "shard-00000.parquet", inst / "shard-00003.parquet")
    with pytest.raises(InstancesMismatchError, match=r"shard-00003\.parquet is not listed in .*"
                       r"manifest\.json.*overwrite=True"):  # fmt: skip
        read_instances(inst)
    # the same mine call removes it (it is not vouched for) and the folder reads as before
    summary = _mine(inst)
    assert summary["shards_removed"] == ["shard-00003.parquet"] and summary["shards_skipped"] == 3
    assert len(read_instances(inst)[0]) == n


def test_duplicated_rows_are_refused(inst: Path) -> None:
    n = len(read_instances(inst)[0])
    _duplicate_rows(inst / "shard-00001.parquet")
    with pytest.raises(InstancesMismatchError, match=r"shard-00001\.parquet holds \d+ rows, "
                       r"the manifest recorded \d+"):  # fmt: skip
        read_instances(inst)
    summary = _mine(inst)
    assert summary["shards_redone"] == ["shard-00001"]
    assert len(read_instances(inst)[0]) == n


def test_an_edited_shard_with_the_same_row_count_is_refused(inst: Path) -> None:
    before = read_instances(inst)[0]
    _edit_keeping_the_count(inst / "shard-00002.parquet")
    with pytest.raises(InstancesMismatchError, match=r"shard-00002\.parquet has other content.*"
                       r"SHA-256"):  # fmt: skip
        read_instances(inst)
    assert _mine(inst)["shards_redone"] == ["shard-00002"]
    assert read_instances(inst)[0].equals(before)


def test_a_missing_shard_is_refused(inst: Path) -> None:
    (inst / "shard-00001.parquet").unlink()
    with pytest.raises(InstancesMismatchError, match=r"shard-00001\.parquet is listed in the "
                       r"manifest but missing"):  # fmt: skip
        read_instances(inst)


def test_edited_artificial_documents_are_refused(inst: Path) -> None:
    path = inst / ARTIFICIAL_FILE
    t = _rows(path)
    col = t.schema.get_field_index("text")
    pq.write_table(t.set_column(col, "text", pa.array(["x"] * t.num_rows)), path)
    with pytest.raises(InstancesMismatchError, match=r"artificial_docs\.parquet has other"):
        read_instances(inst)


def test_a_manifest_written_before_the_hashes_is_checked_on_row_counts(inst: Path) -> None:
    """Older manifests list shards with their ``instances`` count only: those are checked."""
    manifest = json.loads((inst / MANIFEST).read_text())
    for info in manifest["shards"].values():
        for key in ("file", "rows", "sha256", "artificial"):
            info.pop(key)
    manifest.pop("artificial_docs")
    (inst / MANIFEST).write_text(json.dumps(manifest))
    n = len(read_instances(inst)[0])
    _edit_keeping_the_count(inst / "shard-00002.parquet")
    assert len(read_instances(inst)[0]) == n  # content is not recorded: cannot be checked
    _duplicate_rows(inst / "shard-00000.parquet")
    with pytest.raises(InstancesMismatchError, match="holds"):
        read_instances(inst)
    shutil.copy(inst / "shard-00001.parquet", inst / "shard-00007.parquet")
    with pytest.raises(InstancesMismatchError, match="not listed"):
        read_instances(inst)


def test_a_job_killed_between_shard_and_manifest_resumes(inst: Path) -> None:
    """The shard file is written (atomically) before the manifest records it: a kill in between
    leaves an unlisted shard in an unfinished folder. Partial reads leave it out; mining again
    re-mines it and finishes."""
    before = read_instances(inst)[0]
    manifest = json.loads((inst / MANIFEST).read_text())
    manifest["complete"] = False
    manifest["shards"].pop("shard-00002")
    (inst / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(IncompleteInstancesError):
        read_instances(inst)
    part, _ = read_instances(inst, allow_partial=True)
    assert part.attrs["partial"] == "partial: 2 of 3 shards"
    assert set(part.query_id) == {"q0", "q1", "q2", "q3"}
    summary = _mine(inst)
    assert summary["shards_skipped"] == 2 and summary["shards_removed"] == ["shard-00002.parquet"]
    assert read_instances(inst)[0].equals(before)


def test_a_second_mine_into_a_folder_being_mined_is_refused_at_once(tmp_path) -> None:
    """Two mine processes into one folder: the second gets one clear error instead of doing
    every shard a second time; the lock is free again once the first is done (or killed)."""
    from filelock import FileLock
    from typer.testing import CliRunner

    from axiomatic.cli.main import app
    from axiomatic.diagnose.mining import LOCK_FILE, OutputLockedError, mine

    out = tmp_path / "inst"
    out.mkdir()
    args = ["mine", "-d", "demo", "-a", "TFC1", "-o", str(out)]
    with FileLock(out / LOCK_FILE):  # another process mining there
        from axiomatic.data.catalog import load_dataset

        with pytest.raises(OutputLockedError, match="is being mined by another process"):
            mine(load_dataset("demo"), "TFC1", out, progress=False)
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 2, res.output
        assert "error:" in res.output and "is being mined by another process" in res.output
        assert not list(out.glob("shard-*.parquet"))
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert list(out.glob("shard-*.parquet"))

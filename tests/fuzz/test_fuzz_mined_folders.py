"""Fuzz mined folders: copied, edited, cut, deleted or swapped shards are read as mined or refused.

A folder written by :func:`axiomatic.diagnose.mining.mine` is put through 1-4 random file
operations (a shard copied under a new name, rows duplicated or dropped, a value edited, a shard
deleted, two shards swapped, the artificial documents edited, a shard's axiom spec replaced with
the manifest's hash updated to match, the manifest nested a thousand levels deep).
:func:`read_instances` must then either return exactly the rows that were mined or raise
:class:`~axiomatic.data.instances.InstancesMismatchError` (or, for a manifest it cannot read, a
``ValueError``) naming the folder: never a table with other rows (another n), never an
internal error.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fuzz_helpers import FUZZ, fresh
from hypothesis import event, given
from hypothesis import strategies as st

from axiomatic.data.instances import (
    ARTIFICIAL_FILE,
    MANIFEST,
    InstancesMismatchError,
    read_instances,
)
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.mining import mine
from axiomatic.index.cache import dataset_index


@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> Path:
    docs = {
        "a": Document("a", "solar panel efficiency is high"),
        "b": Document("b", "solar solar panel efficiency is high"),
        "c": Document("c", "panel maintenance and cleaning"),
        "d": Document("d", "solar power solar energy panel"),
    }
    queries = {
        f"q{i}": Query(f"q{i}", "solar panel" if i % 2 else "panel cleaning") for i in range(6)
    }
    ds = Dataset(
        name="tiny",
        queries=queries,
        documents=docs,
        qrels={q: {"a": 1, "d": 0} for q in queries},
        candidates={q: ["a", "b", "c", "d"] for q in queries},
    )
    out = tmp_path_factory.mktemp("fuzz-mined") / "inst"
    mine(ds, "TFC1,M-TDC,LNC2", out, index=dataset_index(ds, cache_dir=False), shard_size=2,
         progress=False)  # fmt: skip
    return out


SHARDS = [f"shard-{i:05d}.parquet" for i in range(3)]
operations = st.tuples(
    st.sampled_from(
        [
            "copy",
            "dup_rows",
            "drop_rows",
            "edit",
            "delete",
            "swap",
            "rewrite",
            "art",
            "spec",
            "deep",
        ]
    ),
    st.sampled_from(SHARDS),
    st.sampled_from([*SHARDS, "shard-00003.parquet", "shard-00100.parquet"]),
    st.integers(0, 50),
)


def _apply(folder: Path, op: str, a: str, b: str, k: int) -> None:
    pa_, pb = folder / a, folder / b
    if not pa_.exists():
        return
    table = pq.read_table(pa_)
    if op == "copy" and pa_ != pb:
        shutil.copy(pa_, pb)
    elif op == "dup_rows":
        pq.write_table(pa.concat_tables([table, table.slice(0, k)]), pa_)
    elif op == "drop_rows":
        pq.write_table(table.slice(0, max(table.num_rows - 1 - k, 0)), pa_)
    elif op == "edit" and table.num_rows:
        i = table.schema.get_field_index("len_a")
        values = table.column("len_a").to_pylist()
        values[k % len(values)] += 1
        pq.write_table(table.set_column(i, "len_a", pa.array(values, pa.int64())), pa_)
    elif op == "delete":
        pa_.unlink()
    elif op == "swap" and pb.exists() and pa_ != pb:
        tmp = folder / "swap.tmp"
        pa_.rename(tmp)
        pb.rename(pa_)
        tmp.rename(pb)
    elif op == "rewrite":  # the same rows written again: may be byte-identical, or not
        pq.write_table(table, pa_)
    elif op == "spec" and table.num_rows:  # a consistent folder of axioms never mined
        import json

        from axiomatic.data.instances import file_sha256

        specs = ["TFC9()", "TFC1(", "", "LNC2(variant='relaxed')", "x" * 300]
        i = table.schema.get_field_index("spec")
        column = pa.array([specs[k % len(specs)]] * table.num_rows, pa.string())
        pq.write_table(table.set_column(i, "spec", column), pa_)
        manifest = folder / MANIFEST
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except RecursionError:  # made too deep by an earlier operation: left as it is
            return
        if pa_.stem in data.get("shards", {}):
            data["shards"][pa_.stem]["sha256"] = file_sha256(pa_)
            manifest.write_text(json.dumps(data), encoding="utf-8")
    elif op == "deep":
        manifest = folder / MANIFEST
        text = manifest.read_text(encoding="utf-8")
        deep = "[" * (900 + 50 * k) + "]" * (900 + 50 * k)
        manifest.write_text(text.replace("{", '{"zz": ' + deep + ", ", 1), encoding="utf-8")
    elif op == "art":
        art = folder / ARTIFICIAL_FILE
        docs = pq.read_table(art)
        if docs.num_rows:
            texts = docs.column("text").to_pylist()
            texts[k % len(texts)] += " more"
            i = docs.schema.get_field_index("text")
            pq.write_table(docs.set_column(i, "text", pa.array(texts, pa.string())), art)


@FUZZ
@given(st.lists(operations, min_size=1, max_size=4))
def test_fuzz_mined_folder(tmp_path: Path, mined: Path, ops: list) -> None:
    want, want_art = read_instances(mined)
    folder = fresh(tmp_path) / "inst"
    shutil.copytree(mined, folder)
    for op in ops:
        _apply(folder, *op)
    try:
        got, got_art = read_instances(folder)
    except InstancesMismatchError as exc:
        assert str(folder) in str(exc), exc
        event("outcome: refused")
        return
    except ValueError as exc:  # a manifest that cannot be read: "... is corrupt (...)"
        assert str(folder) in str(exc) and "is corrupt" in str(exc), exc
        event("outcome: refused (corrupt manifest)")
        return
    event("outcome: read")
    assert got.equals(want), f"rows differ from the mined ones after {ops}"
    assert {d: a.text for d, a in got_art.items()} == {d: a.text for d, a in want_art.items()}

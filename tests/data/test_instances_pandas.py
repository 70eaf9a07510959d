"""A mined folder is a Parquet dataset: pandas alone reads read_instances' rows, as
docs/axioms.md shows; a folder mined with the former file names still reads and resumes."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd
import pytest

from axiomatic import demo_dataset, mine, read_instances
from axiomatic.data.instances import (
    ARTIFICIAL_DIR,
    ARTIFICIAL_FILE,
    LEGACY_ARTIFICIAL_DIR,
    LEGACY_ARTIFICIAL_FILE,
    LEGACY_MANIFEST,
    MANIFEST,
    artificial_file_path,
    manifest_path,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "axioms.md"
AXIOMS = "TFC1,M-TDC,LNC2"
KEY = ["query_id", "axiom", "spec", "doc_a", "doc_b", "doc_c"]


def _rows(df: pd.DataFrame, cols: list[str]) -> list[list[object]]:
    """The rows in a canonical order, nulls as None (pandas reads nullable ints as float)."""
    df = df[cols].sort_values(KEY, ignore_index=True).astype(object)
    return df.where(df.notna(), None).values.tolist()


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mined") / "inst"
    mine(demo_dataset(), AXIOMS, folder, shard_size=4, progress=False)
    return folder


def test_pandas_reads_a_mined_folder_as_its_instances(mined: Path) -> None:
    want, arts = read_instances(mined)
    assert len(arts) > 0 and want["artificial"].any()  # artificial LNC2 documents beside
    assert (mined / ARTIFICIAL_FILE).is_file() and (mined / ARTIFICIAL_DIR).is_dir()
    got = pd.read_parquet(mined)
    cols = [c for c in want.columns if c in got.columns]
    assert cols == list(want.columns)
    assert len(got) == len(want) > 0
    assert _rows(got, cols) == _rows(want, cols)


def test_the_documented_pandas_line_reads_a_mined_folder(mined: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    (line,) = re.findall(r'^\s*instances = (pd\.read_parquet\("out/msmarco".*\))$', text, re.M)
    got = eval(line.replace('"out/msmarco"', repr(str(mined))), {"pd": pd})
    want, _ = read_instances(mined)
    assert _rows(got, list(want.columns)) == _rows(want, list(want.columns))


def test_a_folder_mined_with_the_former_names_reads_and_resumes(
    mined: Path, tmp_path: Path
) -> None:
    import shutil

    old = tmp_path / "old"
    shutil.copytree(mined, old)
    for new, legacy in (
        (MANIFEST, LEGACY_MANIFEST),
        (ARTIFICIAL_FILE, LEGACY_ARTIFICIAL_FILE),
        (ARTIFICIAL_DIR, LEGACY_ARTIFICIAL_DIR),
    ):
        os.replace(old / new, old / legacy)
    assert manifest_path(old) == old / LEGACY_MANIFEST
    assert artificial_file_path(old) == old / LEGACY_ARTIFICIAL_FILE
    want, want_arts = read_instances(mined)
    got, got_arts = read_instances(old)
    assert _rows(got, list(want.columns)) == _rows(want, list(want.columns))
    assert got_arts == want_arts
    before = {p.name: p.stat().st_mtime_ns for p in old.glob("shard-*.parquet")}
    summary = mine(demo_dataset(), AXIOMS, old, shard_size=4, progress=False)
    assert summary["shards_skipped"] == summary["shards"] == len(before) > 1  # nothing re-mined
    assert {p.name: p.stat().st_mtime_ns for p in old.glob("shard-*.parquet")} == before
    # the resumed folder now has the new names only, and reads the same
    assert (old / MANIFEST).is_file() and (old / ARTIFICIAL_FILE).is_file()
    assert not any((old / n).exists() for n in (LEGACY_MANIFEST, LEGACY_ARTIFICIAL_FILE))
    assert not (old / LEGACY_ARTIFICIAL_DIR).exists()
    again, again_arts = read_instances(old)
    assert _rows(again, list(want.columns)) == _rows(want, list(want.columns))
    assert again_arts == want_arts

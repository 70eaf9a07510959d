"""A report folder is written as a unit: a writer killed while computing the new report leaves
the earlier one complete, one killed while moving the new files in leaves the folder marked
incomplete (``INCOMPLETE.txt``), which ``Diagnosis.load`` refuses and the next report into the
folder repairs. Never the new ``diagnosis.csv`` beside the old ``diagnosis.json`` unmarked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from toy_report import LenRanker, instance_row, toy_dataset

import axiomatic.report.writer as writer
from axiomatic._atomic import INCOMPLETE_MARKER
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.result import Diagnosis, instance_frame
from axiomatic.report.writer import MANIFEST, STAGING, write_report


class Killed(Exception):
    pass


@pytest.fixture(scope="module")
def two_diagnoses():
    """Two diagnoses of the same toy data with different rankers (different files' content),
    and an effectiveness table (the first report also writes correlation files)."""
    rng = np.random.default_rng(0)
    ds = toy_dataset(rng)
    rows = []
    for q in ds.queries:
        for _ in range(30):
            a, b = rng.choice(30, 2, replace=False)
            rows.append(instance_row(ds, q, "TFC1", "relaxed", a, b))
    inst = instance_frame(rows)
    old = diagnose(inst, [LenRanker("tf", 1.0, 0.0), LenRanker("len", 0, 1)], ds)
    new = diagnose(inst, [LenRanker("tf-len", 1.0, -0.3), LenRanker("len", 0, 1)], ds)
    eff = pd.DataFrame({"tf": [0.3], "len": [0.1]}, index=["nDCG@10"]).T
    return old, new, eff


def _files(folder: Path) -> dict[str, bytes]:
    """Every file's bytes (the HTML page without its "generated <minute>" stamp)."""
    return {
        p.relative_to(folder).as_posix(): re.sub(rb" generated [0-9: -]+ UTC", b"", p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _old_report(folder: Path, two_diagnoses) -> dict[str, bytes]:
    old, _, eff = two_diagnoses
    write_report(old, eff, folder, plots=False)
    (folder / "notes.txt").write_text("mine", encoding="utf-8")  # not the report's: kept
    return _files(folder)


def test_a_writer_killed_while_computing_leaves_the_old_report_whole(
    tmp_path: Path, two_diagnoses, monkeypatch
) -> None:
    folder = tmp_path / "rep"
    before = _old_report(folder, two_diagnoses)
    assert "correlation.csv" in before and "diagnosis_state/outcomes.parquet" in before

    def crash(*args, **kwargs):
        raise Killed

    monkeypatch.setattr("axiomatic.report.html.render_html", crash)  # after the CSVs and JSON
    with pytest.raises(Killed):
        write_report(two_diagnoses[1], None, folder, plots=False)
    assert _files(folder) == before  # byte for byte; no staging folder, no mark
    Diagnosis.load(folder / "diagnosis_state")


def test_a_writer_killed_while_moving_in_leaves_the_folder_marked_and_a_rerun_repairs_it(
    tmp_path: Path, two_diagnoses, monkeypatch
) -> None:
    new = two_diagnoses[1]
    folder = tmp_path / "rep"
    _old_report(folder, two_diagnoses)
    moves = []
    real_move = writer._move

    def move_two(source: Path, target: Path) -> None:
        if len(moves) == 2:
            raise Killed
        moves.append(target.name)
        real_move(source, target)

    monkeypatch.setattr(writer, "_move", move_two)
    with pytest.raises(Killed):
        write_report(new, None, folder, plots=False)
    monkeypatch.setattr(writer, "_move", real_move)
    # two new files beside old ones: the folder says so
    assert (folder / INCOMPLETE_MARKER).is_file()
    assert "may mix two runs" in (folder / INCOMPLETE_MARKER).read_text(encoding="utf-8")
    with pytest.raises(ValueError, match=r"INCOMPLETE\.txt marks the folder incomplete"):
        Diagnosis.load(folder / "diagnosis_state")
    listed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
    assert "correlation.csv" in listed  # the old report's files stay listed until removed
    # the re-run repairs it: the new report alone (the old correlation files removed), the
    # user's own file kept, no mark, no staging folder
    paths = write_report(new, None, folder, plots=False)
    clean = tmp_path / "clean"
    write_report(new, None, clean, plots=False)
    repaired = _files(folder)
    assert repaired.pop("notes.txt") == b"mine"
    assert repaired == _files(clean)
    assert not (folder / STAGING).exists() and not (folder / INCOMPLETE_MARKER).exists()
    back = Diagnosis.load(paths["state"])
    assert back.rankers == new.rankers


def test_a_staging_folder_left_by_a_kill_is_cleared(tmp_path: Path, two_diagnoses) -> None:
    folder = tmp_path / "rep"
    (folder / STAGING).mkdir(parents=True)
    (folder / STAGING / "diagnosis.csv").write_text("half", encoding="utf-8")
    paths = write_report(two_diagnoses[1], None, folder, plots=False)
    assert not (folder / STAGING).exists()
    assert paths["diagnosis_csv"] == folder / "diagnosis.csv"
    assert paths["diagnosis_csv"].read_text(encoding="utf-8").startswith("view,")

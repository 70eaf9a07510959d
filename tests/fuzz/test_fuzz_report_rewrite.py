"""Fuzz killed report rewrites: a diagnosis report written over an earlier one and killed at a
random point (while computing a file, while moving the files in, while removing the old ones or
writing the manifest) leaves the earlier report byte for byte, or the folder marked
``INCOMPLETE.txt`` (which ``Diagnosis.load`` refuses); the next report into it repairs it to
exactly what a clean write gives. Never the new ``diagnosis.csv`` beside the old files unmarked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fuzz_helpers import FUZZ, FUZZ_ON, fresh
from hypothesis import event, given, settings
from hypothesis import strategies as st

import axiomatic.report.writer as writer
from axiomatic._atomic import INCOMPLETE_MARKER
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.result import Diagnosis, instance_frame
from axiomatic.report.writer import write_report

REPORT_FUZZ = settings(FUZZ, max_examples=30 if FUZZ_ON else 4)  # 2-10 s per example


class Killed(BaseException):
    """A kill: not an Exception, so no handler on the way catches it."""


class _Ranker:
    def __init__(self, name: str, weight: float, bias: float) -> None:
        self.name, self.weight, self.bias = name, weight, bias

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        w = query.text.split()
        return np.array(
            [
                self.weight * sum(d.text.split().count(t) for t in w)
                + self.bias * len(d.text.split())
                for d in documents
            ]
        )


@pytest.fixture(scope="module")
def reports():
    rng = np.random.default_rng(1)
    vocab = ["apple", "pie", "cake", "tree"]
    docs = {
        f"d{i}": Document(f"d{i}", " ".join(rng.choice(vocab, size=rng.integers(3, 9))))
        for i in range(12)
    }
    queries = {f"q{j}": Query(f"q{j}", vocab[j]) for j in range(2)}
    qrels = {q: {f"d{i}": int(rng.integers(0, 3)) for i in range(12)} for q in queries}
    ds = Dataset("toy", queries, docs, qrels, {q: list(docs) for q in queries})
    rows = []
    for q in queries:
        for _ in range(20):
            a, b = rng.choice(12, 2, replace=False)
            la, lb = (len(docs[f"d{k}"].text.split()) for k in (a, b))
            rows.append(
                {"query_id": q, "axiom": "TFC1", "variant": "relaxed",
                 "spec": "TFC1(variant='relaxed')", "doc_a": f"d{a}", "doc_b": f"d{b}",
                 "doc_c": None, "relation": ">", "len_a": la, "len_b": lb,
                 "len_diff_abs": abs(la - lb), "len_diff_rel": abs(la - lb) / max(la, lb),
                 "rel_a": qrels[q][f"d{a}"], "rel_b": qrels[q][f"d{b}"], "rel_c": None,
                 "split": "test", "artificial": False}
            )  # fmt: skip
    inst = instance_frame(rows)
    old = diagnose(inst, [_Ranker("tf", 1.0, 0.0), _Ranker("len", 0, 1)], ds)
    new = diagnose(inst, [_Ranker("tf-len", 1.0, -0.3), _Ranker("len", 0, 1)], ds)
    eff = pd.DataFrame({"tf": [0.3], "len": [0.1]}, index=["nDCG@10"]).T
    return old, new, eff


def _files(folder: Path) -> dict[str, bytes]:
    """Every file's bytes (the HTML page without its "generated <minute>" stamp)."""
    return {
        p.relative_to(folder).as_posix(): re.sub(rb" generated [0-9: -]+ UTC", b"", p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


KILL_POINTS = ["none", "render_html", "label", "move", "manifest", "mark_complete"]


@REPORT_FUZZ
@given(
    st.sampled_from(KILL_POINTS),
    st.integers(0, 20),
    st.booleans(),
    st.booleans(),
    st.sampled_from([False, False, False, True]),  # plots: slow, so drawn less often
)
def test_fuzz_killed_report_rewrite(
    tmp_path: Path, reports, kill: str, k: int, old_eff: bool, new_eff: bool, plots: bool
) -> None:
    old, new, eff = reports
    folder = fresh(tmp_path) / "rep"
    write_report(old, eff if old_eff else None, folder, plots=False)
    (folder / "mine.txt").write_text("user file", encoding="utf-8")
    before = _files(folder)
    clean = fresh(tmp_path) / "clean"
    write_report(new, eff if new_eff else None, clean, plots=plots)
    want = _files(clean)

    calls = {"n": 0}

    def killer(real):
        def wrapped(*args, **kwargs):
            calls["n"] += 1
            if kill == "move" and calls["n"] <= k:
                return real(*args, **kwargs)
            raise Killed

        return wrapped

    targets = {
        "render_html": ("axiomatic.report.html", "render_html"),
        "label": (writer, "_label_sample_csvs"),
        "move": (writer, "_move"),
        "manifest": (writer, "_write_manifest"),
        "mark_complete": (writer, "mark_complete"),
    }
    killed = False
    with pytest.MonkeyPatch.context() as mp:
        if kill != "none":
            owner, name = targets[kill]
            module = __import__(owner, fromlist=[name]) if isinstance(owner, str) else owner
            mp.setattr(module, name, killer(getattr(module, name)))
        try:
            write_report(new, eff if new_eff else None, folder, plots=plots)
        except Killed:
            killed = True
    now = _files(folder)
    marked = INCOMPLETE_MARKER in now
    event(f"kill {kill}: {'marked' if marked else 'unmarked'}")
    if marked:
        with pytest.raises(ValueError, match="marks the folder incomplete"):
            Diagnosis.load(folder / "diagnosis_state")
    else:  # the old report whole, or the new one whole
        now.pop("mine.txt")
        assert now == (want if not killed else {k: v for k, v in before.items()
                                                 if k != "mine.txt"}), kill  # fmt: skip
    # the next report repairs the folder
    write_report(new, eff if new_eff else None, folder, plots=plots)
    repaired = _files(folder)
    assert repaired.pop("mine.txt") == b"user file"
    assert repaired == want

"""Fuzz the TREC readers (runs, qrels, topics; plain and gzip): only our errors, naming the file.

See ``fuzz_helpers`` for the profiles (50 examples per reader by default, 1,000 with
``AXIOMATIC_FUZZ=1``) and the mutations.
"""

from __future__ import annotations

import math
from pathlib import Path

from fuzz_helpers import (
    FUZZ,
    check_reader,
    file_bytes,
    fresh,
    grades,
    gz_bytes,
    ids,
    scores,
    texts,
    write,
)
from hypothesis import given
from hypothesis import strategies as st

from axiomatic.data.trec import read_qrels, read_run, read_topics


def _lines(rows: list[str]) -> bytes:
    return ("\n".join(rows) + "\n").encode("utf-8")


run_files = st.lists(
    st.tuples(ids, ids, st.integers(0, 1000), scores, st.sampled_from(["tag", "bm25"])).map(
        lambda t: f"{t[0]} Q0 {t[1]} {t[2]} {t[3]} {t[4]}"
    ),
    max_size=12,
).map(_lines)
qrels_files = st.lists(
    st.tuples(ids, st.sampled_from(["0", "Q0"]), ids, grades).map(" ".join), max_size=12
).map(_lines)
tsv_topics = st.lists(st.tuples(ids, texts).map("\t".join), max_size=8).map(_lines)


@st.composite
def _sgml(draw: st.DrawFn) -> bytes:
    blocks = []
    for _ in range(draw(st.integers(0, 5))):
        num = draw(ids)
        prefix = draw(st.sampled_from(["", "Number: "]))
        close = draw(st.sampled_from(["", "</num>"]))
        title = draw(texts)
        desc = draw(st.none() | texts)
        body = f"<num> {prefix}{num}{close}\n<title> {title}\n"
        if desc is not None:
            body += f"<desc> Description:\n{desc}\n"
        blocks.append(f"<top>\n{body}</top>\n")
    return "\n".join(blocks).encode("utf-8")


sgml_topics = _sgml()


def _check_run(result: dict | None) -> None:
    if result is not None:
        for docs in result.values():
            assert all(isinstance(v, float) and math.isfinite(v) for v in docs.values())


def _check_qrels(result: dict | None) -> None:
    if result is not None:
        for docs in result.values():
            assert all(type(v) is int and abs(v) < 2**31 for v in docs.values())


@FUZZ
@given(file_bytes(run_files))
def test_fuzz_read_run(tmp_path: Path, data: bytes) -> None:
    _check_run(check_reader(read_run, write(fresh(tmp_path), "run.txt", data)))


@FUZZ
@given(gz_bytes(run_files))
def test_fuzz_read_run_gz(tmp_path: Path, data: bytes) -> None:
    _check_run(check_reader(read_run, write(fresh(tmp_path), "run.txt.gz", data)))


@FUZZ
@given(file_bytes(run_files))
def test_fuzz_read_run_skip_malformed(tmp_path: Path, data: bytes) -> None:
    p = write(fresh(tmp_path), "run.txt", data)
    _check_run(check_reader(lambda x: read_run(x, skip_malformed=True), p))


@FUZZ
@given(file_bytes(qrels_files))
def test_fuzz_read_qrels(tmp_path: Path, data: bytes) -> None:
    _check_qrels(check_reader(read_qrels, write(fresh(tmp_path), "qrels.txt", data)))


@FUZZ
@given(gz_bytes(qrels_files))
def test_fuzz_read_qrels_gz(tmp_path: Path, data: bytes) -> None:
    _check_qrels(check_reader(read_qrels, write(fresh(tmp_path), "qrels.txt.gz", data)))


@FUZZ
@given(file_bytes(tsv_topics | sgml_topics))
def test_fuzz_read_topics(tmp_path: Path, data: bytes) -> None:
    check_reader(read_topics, write(fresh(tmp_path), "topics.txt", data))


@FUZZ
@given(file_bytes(sgml_topics), st.sampled_from(["title", "desc", "title+desc", "narr"]))
def test_fuzz_read_topics_sgml(tmp_path: Path, data: bytes, field: str) -> None:
    p = write(fresh(tmp_path), "topics.trec", data)
    check_reader(lambda x: read_topics(x, format="trec", field=field), p)
    check_reader(lambda x: read_topics(x, format="trec", skip_malformed=True), p)


@FUZZ
@given(gz_bytes(tsv_topics | sgml_topics))
def test_fuzz_read_topics_gz(tmp_path: Path, data: bytes) -> None:
    check_reader(read_topics, write(fresh(tmp_path), "topics.txt.gz", data))


# Columns as trec_eval splits them: on spaces and tabs only. A line whose columns are joined by
# other whitespace (U+00A0, U+3000, U+0085, \x1c ...) is one trec_eval rejects: it must be an
# error naming the file and line, never read with the columns Python's str.split() finds.
SEPARATORS = [" ", "\t", "  ", " \t"]
ODD_SPACES = ["\u00a0", "\u3000", "\u0085", "\x1c", "\x1d", "\x1e", "\x1f", "\u2028", "\u2009"]


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2", "7"]),
            st.sampled_from(["d1", "d2", "d3", "x-y"]),
            st.lists(st.sampled_from(SEPARATORS + ODD_SPACES), min_size=5, max_size=5),
        ),
        min_size=1,
        max_size=6,
        unique_by=lambda t: (t[0], t[1]),
    ),
    st.booleans(),
)
def test_fuzz_columns_split_as_trec_eval(tmp_path: Path, rows: list, qrels: bool) -> None:
    lines, expect = [], {}
    for n, (qid, did, seps) in enumerate(rows):
        cols = [qid, "0", did, "1"] if qrels else [qid, "Q0", did, str(n + 1), "2.5", "tag"]
        lines.append(cols[0] + "".join(s + c for s, c in zip(seps, cols[1:], strict=False)))
        expect.setdefault(qid, {})[did] = 1 if qrels else 2.5
    odd = any(ch in line for line in lines for ch in ODD_SPACES)
    path = write(fresh(tmp_path), "q.txt" if qrels else "r.trec", _lines(lines))
    result = check_reader(read_qrels if qrels else read_run, path)
    if odd:
        assert result is None, f"read columns trec_eval does not split: {lines}"
    else:
        assert result == expect

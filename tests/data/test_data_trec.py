"""TREC qrels/run/topics readers and writers: inline fixtures, errors, property round-trips."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axiomatic.data.errors import ParseError
from axiomatic.data.records import Query
from axiomatic.data.trec import (
    read_qrels,
    read_run,
    read_topics,
    write_qrels,
    write_run,
    write_topics,
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_read_qrels_basic(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", "1 0 d1 2\n1 Q0 d2 0\r\n\n2 0 d1 1.0\n#3 0 d1 1\n")
    assert read_qrels(p) == {"1": {"d1": 2, "d2": 0}, "2": {"d1": 1}, "#3": {"d1": 1}}


def test_read_qrels_malformed_names_file_and_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", "1 0 d1 2\n1 0 d2\n")
    with pytest.raises(ParseError) as exc:
        read_qrels(p)
    assert exc.value.line == 2
    assert f"{p}:2" in str(exc.value)
    assert "query_id iteration doc_id relevance" in str(exc.value)


def test_read_qrels_non_integer_grade(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", "1 0 d1 high\n")
    with pytest.raises(ParseError, match="not an integer"):
        read_qrels(p)


def test_skip_malformed_counts_and_warns(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", "1 0 d1 2\nbroken\n1 0 d2 x\n1 0 d3 1\n")
    with pytest.warns(UserWarning, match="skipped 2 malformed"):
        q = read_qrels(p, skip_malformed=True)
    assert q == {"1": {"d1": 2, "d3": 1}}
    assert q.skipped == 2
    assert q.skipped_lines == [2, 3]


def test_non_utf8_reports_byte_offset(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(b"1 0 d1 1\n1 0 d\xe92 1\n")
    with pytest.raises(ParseError) as exc:
        read_qrels(p)
    assert "byte offset 14" in str(exc.value)
    assert exc.value.line == 2


def test_read_run_and_errors(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.txt", "1 Q0 a 1 2.5 t\n1 Q0 b 2 -1e3 t\n")
    assert read_run(p) == {"1": {"a": 2.5, "b": -1000.0}}
    bad = _write(tmp_path, "r2.txt", "1 Q0 a 1 nan-ish t\n")
    with pytest.raises(ParseError, match="score"):
        read_run(bad)
    short = _write(tmp_path, "r3.txt", "1 Q0 a 1 2.0\n")
    with pytest.raises(ParseError, match=r"r3.txt:1"):
        read_run(short)


def test_gzip_run(tmp_path: Path) -> None:
    p = tmp_path / "r.txt.gz"
    write_run({"q": {"a": 1.0, "b": 2.0}}, p, tag="x")
    with gzip.open(p, "rt") as fh:
        first = fh.readline().split()
    assert first[2] == "b" and first[3] == "1"
    assert read_run(p) == {"q": {"a": 1.0, "b": 2.0}}


def test_topics_sgml_and_tsv(tmp_path: Path) -> None:
    sgml = _write(
        tmp_path,
        "t.trec",
        "<top>\n<num> Number: 301\n<title> Topic: Foreign\n  minorities\n<desc> Description:\n"
        "Find documents.\n<narr> Narrative:\nAll.\n</top>\n\n"
        "<top><num>2</num><title>\nUPPER CASE\n</title></top>\n",
    )
    t = read_topics(sgml)
    assert t == {"301": Query("301", "Foreign minorities"), "2": Query("2", "UPPER CASE")}
    assert read_topics(sgml, field="title+desc")["301"].text == "Foreign minorities Find documents."
    tsv = _write(tmp_path, "t.tsv", "1\thello  world\n2\t\n")
    assert read_topics(tsv) == {"1": Query("1", "hello world"), "2": Query("2", "")}
    bad = _write(tmp_path, "t2.tsv", "1\tok\nno tab here\n")
    with pytest.raises(ParseError, match=r"t2.tsv:2"):
        read_topics(bad)


def test_sgml_missing_field(tmp_path: Path) -> None:
    p = _write(tmp_path, "t.trec", "<top><num>1</num><title>x</title></top>\n")
    with pytest.raises(ParseError, match="<desc>"):
        read_topics(p, field="desc")


def test_writers_reject_bad_ids_and_text(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="whitespace"):
        write_qrels({"a b": {"d": 1}}, tmp_path / "q")
    with pytest.raises(ValueError, match="tab, newline"):
        write_topics({"1": "two\nlines"}, tmp_path / "t")
    with pytest.raises(ValueError, match="NaN"):
        write_run({"1": {"d": float("nan")}}, tmp_path / "r")
    assert not (tmp_path / "r").exists()  # atomic: nothing half-written


def test_run_writer_orders_by_score_then_id(tmp_path: Path) -> None:
    p = write_run({"q": {"b": 1.0, "a": 1.0, "c": 3.0}}, tmp_path / "r.txt")
    lines = p.read_text().splitlines()
    assert [ln.split()[2] for ln in lines] == ["c", "a", "b"]
    assert [ln.split()[3] for ln in lines] == ["1", "2", "3"]


# ------------------------------------------------------------------------ property round-trips
_ids = st.text(alphabet=st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=8)
_texts = st.text(
    alphabet=st.characters(blacklist_categories=("C",), blacklist_characters="\t\n\r<"),
    max_size=30,
).map(lambda s: " ".join(s.split()))
_settings = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _nonempty(d: dict) -> dict:
    return {k: v for k, v in d.items() if v}


@_settings
@given(st.dictionaries(_ids, st.dictionaries(_ids, st.integers(-5, 5), max_size=5), max_size=5))
def test_qrels_roundtrip(tmp_path: Path, qrels: dict) -> None:
    p = write_qrels(qrels, tmp_path / "qrels.txt")
    assert read_qrels(p) == _nonempty(qrels)


@_settings
@given(
    st.dictionaries(
        _ids,
        st.dictionaries(
            _ids, st.floats(allow_nan=False, allow_infinity=False, width=64), max_size=5
        ),
        max_size=5,
    )
)
def test_run_roundtrip(tmp_path: Path, run: dict) -> None:
    p = write_run(run, tmp_path / "run.txt", tag="prop")
    assert read_run(p) == _nonempty(run)


@_settings
@given(
    st.dictionaries(_ids.filter(lambda s: "<" not in s), _texts, max_size=6),
    st.sampled_from(["tsv", "trec"]),
)
def test_topics_roundtrip(tmp_path: Path, topics: dict, fmt: str) -> None:
    p = write_topics(topics, tmp_path / f"topics.{fmt}", format=fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = read_topics(p)
    assert {k: v.text for k, v in back.items()} == topics

"""TREC qrels/run/topics readers and writers: inline fixtures, errors, property round-trips."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axiomatic.data.errors import DataWarning, InvalidIdError, ParseError
from axiomatic.data.records import Query
from axiomatic.data.trec import (
    check_trec_id,
    read_qrels,
    read_run,
    read_topics,
    validate_run_tag,
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
    if not _nonempty(qrels):  # nothing written: an empty qrels file is refused
        with pytest.raises(ParseError, match="no qrels lines"):
            read_qrels(p)
        return
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
    if not _nonempty(run):
        with pytest.raises(ParseError, match="no run lines"):
            read_run(p)
        return
    assert read_run(p) == _nonempty(run)


@_settings
@given(
    st.dictionaries(_ids.filter(lambda s: "<" not in s), _texts, max_size=6),
    st.sampled_from(["tsv", "trec"]),
)
def test_topics_roundtrip(tmp_path: Path, topics: dict, fmt: str) -> None:
    p = write_topics(topics, tmp_path / f"topics.{fmt}", format=fmt)
    if not topics:
        with pytest.raises(ParseError, match="no topic lines"):
            read_topics(p)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = read_topics(p)
    assert {k: v.text for k, v in back.items()} == topics


# --------------------------------------------------------------------------- strict readers
@pytest.mark.parametrize("score", ["inf", "-inf", "nan", "1e400", "1_0", "１", "Infinity", "0x10"])
def test_run_rejects_lenient_scores(tmp_path: Path, score: str) -> None:
    p = _write(tmp_path, "r.txt", f"1 Q0 a 1 2.0 t\n1 Q0 b 2 {score} t\n")
    with pytest.raises(ParseError) as exc:
        read_run(p)
    msg = str(exc.value)
    assert f"{p}:2" in msg and repr(score) in msg and "finite" in msg


@pytest.mark.parametrize("rank", ["1_0", "１", "1.5", "inf"])
def test_run_rejects_lenient_ranks(tmp_path: Path, rank: str) -> None:
    p = _write(tmp_path, "r.txt", f"1 Q0 a {rank} 2.0 t\n")
    with pytest.raises(ParseError, match=r"r.txt:1: rank"):
        read_run(p)


@pytest.mark.parametrize(
    "grade", ["inf", "nan", "1e400", "1_0", "１", "1e23", "2147483648", "-1e10"]
)
def test_qrels_rejects_lenient_grades(tmp_path: Path, grade: str) -> None:
    p = _write(tmp_path, "q.txt", f"1 0 d1 {grade}\n")
    with pytest.raises(ParseError) as exc:
        read_qrels(p)
    assert f"{p}:1" in str(exc.value) and repr(grade) in str(exc.value)
    assert "2**31" in str(exc.value)


def test_qrels_grade_range_edges(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", "1 0 a 2147483647\n1 0 b -2147483647\n1 0 c 3.0\n1 0 d +2\n")
    assert read_qrels(p) == {"1": {"a": 2**31 - 1, "b": -(2**31) + 1, "c": 3, "d": 2}}


def test_run_duplicate_with_other_score_is_an_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.txt", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 0.5 t\n")
    with pytest.raises(ParseError) as exc:
        read_run(p)
    assert f"{p}:3" in str(exc.value) and "line 1" in str(exc.value)
    with pytest.warns(DataWarning, match="skipped 1"):
        r = read_run(p, skip_malformed=True)
    assert r == {"1": {"a": 2.0, "b": 1.0}}  # the first line wins, the conflict is counted


def test_identical_duplicates_are_counted_and_warned(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.txt", "1 Q0 a 1 2.0 t\n1 Q0 a 1 2.0 t\n")
    with pytest.warns(DataWarning, match=r"r.txt: 1 duplicate"):
        r = read_run(p)
    assert r == {"1": {"a": 2.0}} and r.duplicates == 1
    q = _write(tmp_path, "q.txt", "1 0 a 1\n1 0 a 1\n1 0 a 1\n")
    with pytest.warns(DataWarning, match=r"q.txt: 2 duplicate"):
        assert read_qrels(q).duplicates == 2


def test_qrels_duplicate_with_other_grade_is_an_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", "1 0 a 1\n1 0 a 0\n")
    with pytest.raises(ParseError, match=r"q.txt:2: .*line 1"):
        read_qrels(p)


@pytest.mark.parametrize("reader", [read_run, read_qrels, read_topics])
@pytest.mark.parametrize("content", ["", "\n  \n\r\n"])
def test_empty_files_are_errors(tmp_path: Path, reader, content: str) -> None:
    p = _write(tmp_path, "empty.txt", content)
    with pytest.raises(ParseError, match=r"empty.txt.*no .*lines|empty.txt.*empty"):
        reader(p)


def test_junk_nine_column_qrels_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", "1 0 a 1\nthis is a junk line of nine columns here\n")
    with pytest.raises(ParseError, match=r"q.txt:2: found 9 column"):
        read_qrels(p)


def test_sgml_unclosed_top_is_an_error_not_a_lost_topic(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        "t.trec",
        "<top>\n<num> 1\n<title> first\n\n<top>\n<num> 2\n<title> second\n</top>\n",
    )
    with pytest.raises(ParseError) as exc:
        read_topics(p)
    assert f"{p}:1" in str(exc.value) and "line 5" in str(exc.value)
    with pytest.warns(DataWarning, match="skipped 1"):
        t = read_topics(p, skip_malformed=True)
    assert t == {"2": Query("2", "second")} and t.skipped_lines == [1]
    trunc = _write(tmp_path, "t2.trec", "<top>\n<num> 1\n<title> first\n</top>\n<top><num> 2\n")
    with pytest.raises(ParseError, match=r"t2.trec:5: .*not closed"):
        read_topics(trunc)


def test_sgml_title_with_less_than_is_kept(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        "t.trec",
        "<top>\n<num> 1\n<title> x<y and a <b\n<desc> d <= e\n</top>\n"
        "<top><num>2</num><title>C<D</title></top>\n",
    )
    t = read_topics(p, field="title+desc")
    assert t["1"].text == "x<y and a <b d <= e"
    assert t["2"].text == "C<D"


def test_topics_duplicate_id_with_other_text_is_an_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "t.tsv", "1\ta\n1\tb\n")
    with pytest.raises(ParseError, match=r"t.tsv:2: .*line 1"):
        read_topics(p)


def test_write_run_validates_tag_and_ids_before_writing(tmp_path: Path) -> None:
    out = tmp_path / "r.txt"
    with pytest.raises(InvalidIdError, match="run tag 'a b'"):
        write_run({"1": {"d": 1.0}}, out, tag="a b")
    with pytest.raises(InvalidIdError, match="doc id 'd 1'"):
        write_run({"1": {"d 1": 1.0}}, out)
    with pytest.raises(ValueError, match="finite"):
        write_run({"1": {"d": float("inf")}}, out)
    assert not out.exists()
    with pytest.raises(InvalidIdError, match="run tag ''"):
        validate_run_tag("")
    assert validate_run_tag("bm25") == "bm25"
    with pytest.raises(InvalidIdError, match="query id 'q\\\\t1'"):
        check_trec_id("q\t1", "query id")


# ---------------------------------------------------------- atomic writes (axiomatic._atomic)
def test_atomic_write_fsyncs_before_replace(tmp_path: Path, monkeypatch) -> None:
    import os

    from axiomatic import _atomic

    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(_atomic.os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd)))
    monkeypatch.setattr(
        _atomic.os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))
    )
    write_run({"q": {"d": 1.0}}, tmp_path / "r.txt")
    assert events[:2] == ["fsync", "replace"]  # file data on disk before the rename
    assert events.count("fsync") >= 1


def test_atomic_write_never_touches_the_umask(tmp_path: Path, monkeypatch) -> None:
    import os
    import stat

    from axiomatic import _atomic

    old = os.umask(0o027)  # the test's own setting; restored below
    try:

        def forbidden(mask: int) -> int:
            raise AssertionError("os.umask called: a race with other threads creating files")

        monkeypatch.setattr(_atomic.os, "umask", forbidden)
        p = _atomic.atomic_write_text(tmp_path / "f.txt", "x")
        assert stat.S_IMODE(p.stat().st_mode) == 0o640  # 0o666 & ~umask, as open() gives
    finally:
        monkeypatch.undo()
        os.umask(old)


def test_clean_stale_temp_files_after_a_kill(tmp_path: Path) -> None:
    import subprocess
    import sys

    from axiomatic._atomic import clean_stale_temp_files, is_stale_temp_file

    code = (
        "import os, sys\nfrom axiomatic._atomic import atomic_path\n"
        "with atomic_path(sys.argv[1]) as tmp:\n    tmp.write_text('half')\n    os._exit(9)\n"
    )
    target = tmp_path / "run.trec"
    target.write_text("old")
    rc = subprocess.run([sys.executable, "-c", code, str(target)], check=False).returncode
    assert rc == 9
    left = [p for p in tmp_path.iterdir() if p.name != "run.trec"]
    assert len(left) == 1 and is_stale_temp_file(left[0])  # what a kill leaves behind
    keep = [tmp_path / "notes.tmp", tmp_path / ".x.tmp", tmp_path / "sub" / ".a.b.12345678.tmp"]
    for p in keep:
        p.parent.mkdir(exist_ok=True)
        p.write_text("mine")
    assert clean_stale_temp_files(tmp_path) == left
    assert target.read_text() == "old" and all(p.exists() for p in keep)
    assert clean_stale_temp_files(tmp_path, recursive=True) == [keep[2]]
    assert clean_stale_temp_files(tmp_path / "missing") == []


# ------------------------------------------------------------------ gzip input (data/_io.py)
def test_truncated_gzip_is_a_parse_error(tmp_path: Path) -> None:
    p = tmp_path / "run.txt.gz"
    p.write_bytes(gzip.compress(b"1 Q0 a 1 2.0 t\n" * 50)[:-12])
    with pytest.raises(ParseError, match=r"run.txt.gz: .*truncated"):
        read_run(p)


def test_plain_file_named_gz_is_a_parse_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "qrels.txt.gz", "1 0 a 1\n")
    with pytest.raises(ParseError, match=r"qrels.txt.gz: not a gzip file"):
        read_qrels(p)


def test_corrupt_gzip_and_bad_utf8_inside_gzip(tmp_path: Path) -> None:
    packed = bytearray(gzip.compress(b"1\tquery one\n2\tquery two\n", mtime=0))
    packed[-6] ^= 0xFF  # CRC trailer
    p = tmp_path / "t.tsv.gz"
    p.write_bytes(bytes(packed))
    with pytest.raises(ParseError, match=r"t.tsv.gz"):
        read_topics(p)
    p.write_bytes(gzip.compress(b"1\tcaf\xe9\n"))
    with pytest.raises(ParseError, match=r"t.tsv.gz:1: byte 0xe9"):
        read_topics(p)

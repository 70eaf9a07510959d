"""Hostile input costs what the file says: ``.gz`` bombs are refused by their compression
ratio, a line without an end by the longest allowed line, a flood of line ends by the count of
blank lines; each a ParseError naming the file (and line), on every reader (they all read
through ``axiomatic.data._io``)."""

from __future__ import annotations

import gzip
import json
import time
import tracemalloc
from pathlib import Path

import pytest

from axiomatic.data._io import (
    DEFAULT_MAX_BLANK_LINES,
    InputLimits,
    iter_lines,
    read_bytes,
    read_text,
)
from axiomatic.data.errors import ParseError
from axiomatic.data.readers.rankllm import read_rankllm_results
from axiomatic.data.trec import read_qrels, read_run, read_topics

RUN_LINE = b"q1 Q0 d1 1 2.0 tag\n"
MiB = 1 << 20


def _bomb(path: Path, unit: bytes, mib: int, head: bytes = b"") -> Path:
    """``head`` then ``mib`` MiB of ``unit`` repeated, as concatenated gzip members (a valid
    gzip file: one MiB compressed once, so even a 256 MiB bomb is built in milliseconds)."""
    member = gzip.compress(unit * (MiB // len(unit)), compresslevel=9, mtime=0)
    path.write_bytes(gzip.compress(head, mtime=0) + member * mib)
    return path


def _lines(path: Path, limits: InputLimits | None = None) -> list[tuple[int, str]]:
    return list(iter_lines(path, limits=limits))


# ----------------------------------------------------------------------------- line length
def test_a_line_longer_than_the_limit_is_refused_with_its_line_number(tmp_path: Path) -> None:
    small = InputLimits(max_line=100)
    ok = tmp_path / "ok.txt"
    ok.write_bytes(b"a\n" + b"x" * 100 + b"\nb")
    assert _lines(ok, small) == [(1, "a"), (2, "x" * 100), (3, "b")]
    for name, data, line in (
        ("long.txt", b"a\nb\n" + b"x" * 101 + b"\nc\n", 3),  # inside one chunk
        ("tail.txt", b"a\n" + b"x" * 500, 2),  # never ends
        ("joined.txt", b"a\n" + b"x" * 99 + b"y" * 99 + b"\n", 2),  # across chunks
    ):
        for p in (tmp_path / name, tmp_path / (name + ".gz")):
            p.write_bytes(gzip.compress(data) if p.suffix == ".gz" else data)
            with pytest.raises(ParseError, match=rf"{p.name}:{line}: the line is longer than 100"):
                _lines(p, small)


def test_the_line_limit_reads_in_chunks_no_longer_than_a_line(tmp_path: Path) -> None:
    """Memory stays at the limit: a 64 MiB line without an end is refused after 32 MiB."""
    p = _bomb(tmp_path / "noline.txt.gz", b"x", 64)
    tracemalloc.start()
    try:
        with pytest.raises(ParseError, match=r"noline\.txt\.gz:1: the line is longer than 4 MiB"):
            _lines(p, InputLimits(max_line=4 * MiB, max_ratio=10**6))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12 * MiB, f"peak {peak / MiB:.1f} MiB"


def test_the_line_limit_comes_from_the_environment(tmp_path: Path, monkeypatch) -> None:
    p = tmp_path / "run.trec"
    p.write_bytes(RUN_LINE + b"q1 Q0 " + b"d" * 3000 + b" 2 1.0 tag\n")
    monkeypatch.setenv("AXIOMATIC_MAX_LINE", "2K")
    with pytest.raises(
        ParseError, match=r"run\.trec:2: the line is longer than 2 KiB.*AXIOMATIC_MAX_LINE"
    ):
        read_run(p)
    monkeypatch.setenv("AXIOMATIC_MAX_LINE", "4K")
    assert len(read_run(p)["q1"]) == 2
    monkeypatch.setenv("AXIOMATIC_MAX_LINE", "-1")
    with pytest.raises(ValueError, match="AXIOMATIC_MAX_LINE='-1' is not a size"):
        read_run(p)


# ----------------------------------------------------------------------------- blank lines
def test_blank_lines_are_counted_and_refused_past_the_limit(tmp_path: Path) -> None:
    small = InputLimits(max_blank_lines=5)
    p = tmp_path / "r.txt"
    p.write_bytes(b"a\n\n \n\t\r\nb\n\n\nc")  # 5 blank lines: 2, 3, 4, 6, 7
    assert [n for n, _ in _lines(p, small)] == [1, 2, 3, 4, 5, 6, 7, 8]
    p.write_bytes(b"a\n\n \n\t\r\nb\n\n\n\nc\n")  # the 6th blank line is line 8
    with pytest.raises(ParseError, match=r"r\.txt:8: more than 5 blank lines"):
        _lines(p, small)
    g = tmp_path / "r.txt.gz"
    g.write_bytes(gzip.compress(b"\n" * 50))
    with pytest.raises(ParseError, match=r"r\.txt\.gz:6: more than 5 blank lines"):
        _lines(g, small)


def test_a_non_streamed_encoding_has_the_same_limits(tmp_path: Path) -> None:
    p = tmp_path / "u16.txt"
    p.write_bytes("a\n\n\n\nb\n".encode("utf-16"))
    with pytest.raises(ParseError, match=r"u16\.txt:3: more than 1 blank lines"):
        list(iter_lines(p, "utf-16", InputLimits(max_blank_lines=1)))
    p.write_bytes(("a\n" + "x" * 50).encode("utf-16"))
    with pytest.raises(ParseError, match=r"u16\.txt:2: the line is longer than 20 bytes"):
        list(iter_lines(p, "utf-16", InputLimits(max_line=20)))


# ----------------------------------------------------------------------------- ratio
def test_a_gz_input_inflating_beyond_the_ratio_is_refused(tmp_path: Path, monkeypatch) -> None:
    data = RUN_LINE + b"q1 Q0 d2 2 1.0 tag\n" * 5000  # ~95 KB of a very repetitive run
    p = tmp_path / "r.trec.gz"
    p.write_bytes(gzip.compress(data, compresslevel=9))
    ratio = len(data) / p.stat().st_size
    assert 100 < ratio < 2000
    strict = InputLimits(max_ratio=50, ratio_floor=1024)
    for read in (
        lambda q: read_bytes(q, strict),
        lambda q: read_text(q, limits=strict),
        lambda q: _lines(q, strict),
    ):
        with pytest.raises(
            ParseError,
            match=r"r\.trec\.gz: decompresses to more than .* over 50 "
            r"times its compressed size .*AXIOMATIC_MAX_GZIP_RATIO",
        ):
            read(p)
    # below the floor any ratio is fine; a generous ratio reads it
    assert read_bytes(p, InputLimits(max_ratio=50, ratio_floor=MiB)) == data
    assert read_bytes(p, InputLimits(max_ratio=int(ratio) + 1, ratio_floor=1024)) == data
    # the environment sets the ratio the readers use
    monkeypatch.setattr("axiomatic.data._io.RATIO_FLOOR", 1024)
    monkeypatch.setenv("AXIOMATIC_MAX_GZIP_RATIO", "50")
    with pytest.raises(ParseError, match="over 50 times"):
        read_run(p)
    monkeypatch.setenv("AXIOMATIC_MAX_GZIP_RATIO", "5000")
    assert read_run(p)["q1"] == {"d1": 2.0, "d2": 1.0}
    monkeypatch.setenv("AXIOMATIC_MAX_GZIP_RATIO", "1.5")
    with pytest.raises(ValueError, match=r"AXIOMATIC_MAX_GZIP_RATIO='1\.5' is not a ratio"):
        read_run(p)


def test_every_kind_of_input_refuses_a_bomb(tmp_path: Path) -> None:
    """Runs, qrels, topics and rank_llm JSON: one bounded reader under all of them."""
    entry = json.dumps([{"query": "q", "hits": []}]).encode()
    cases = [
        (read_run, "run.trec.gz", RUN_LINE, b"\n"),
        (read_qrels, "qrels.txt.gz", b"q1 0 d1 1\n", b"\n"),
        (read_topics, "topics.tsv.gz", b"q1\tcats\n", b" \n"),
        (read_rankllm_results, "r.json.gz", entry, b" "),
    ]
    for read, name, head, unit in cases:
        p = _bomb(tmp_path / name, unit, 40, head)
        with pytest.raises(ParseError, match=rf"{name}.*(blank lines|over 100 times)"):
            read(p)


# ----------------------------------------------------------------------------- real size
@pytest.mark.parametrize(("unit", "what"), [(b"\n", "blank lines"), (b"x", "over 100 times")])
def test_a_256_mib_bomb_of_255_kb_is_refused_in_a_second(
    tmp_path: Path, unit: bytes, what: str
) -> None:
    """The two bombs that cost 956 MB and 17.7 s (no line end) and more than 300 s (line
    ends) before: refused within a second and a few MB, at the default limits."""
    p = _bomb(tmp_path / "bomb.trec.gz", unit, 256, RUN_LINE)
    assert p.stat().st_size < 300_000
    t0 = time.perf_counter()
    tracemalloc.start()
    try:
        with pytest.raises(ParseError, match=rf"bomb\.trec\.gz.*{what}"):
            read_run(p)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - t0 < 5
    assert peak < 64 * MiB, f"peak {peak / MiB:.1f} MiB"
    assert DEFAULT_MAX_BLANK_LINES == 1_000_000

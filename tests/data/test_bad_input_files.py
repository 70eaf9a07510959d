"""Bad input files end in the project's own errors (or counted warnings), never a
foreign exception: truncated and bomb ``.gz`` files, JSON integers beyond float range, a query
twice in a rank_llm file, symbolic link loops and unusable descriptor ``rel_threshold`` values."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import warnings
from pathlib import Path

import pytest

from axiomatic.data._io import InputLimits, iter_lines, json_number, read_bytes
from axiomatic.data.catalog import DatasetStore
from axiomatic.data.descriptor import DescriptorError, load_descriptor, load_rankllm_dataset
from axiomatic.data.errors import DataError, DataWarning, ParseError
from axiomatic.data.readers.rankllm import read_rankllm_results
from axiomatic.data.trec import read_run

RUN_LINE = b"q1 Q0 d1 1 2.0 tag\n"


# ----------------------------------------------------------------------------- gzip input
def test_run_tag_reads_a_truncated_gzip_with_the_run_reader(tmp_path: Path) -> None:
    from axiomatic.data.trec import run_tag

    p = tmp_path / "t.trec.gz"
    p.write_bytes(gzip.compress(RUN_LINE * 200)[:-12])
    with pytest.raises(ParseError, match=r"t\.trec\.gz: the gzip stream is truncated"):
        run_tag(p)  # was EOFError from a second gzip.open parser
    p.write_bytes(gzip.compress(RUN_LINE * 3))
    assert run_tag(p) == "tag"


def test_a_gzip_bomb_is_refused_at_the_size_limit(tmp_path: Path, monkeypatch) -> None:
    from axiomatic.data._io import max_decompressed

    p = tmp_path / "bomb.trec.gz"
    p.write_bytes(gzip.compress(RUN_LINE * ((3 << 20) // len(RUN_LINE)), compresslevel=9))
    assert p.stat().st_size < 30_000
    monkeypatch.setenv("AXIOMATIC_MAX_DECOMPRESSED", "1M")
    assert max_decompressed() == 1 << 20
    for read in (read_run, read_bytes, lambda q: list(iter_lines(q))):
        with pytest.raises(ParseError, match=r"bomb\.trec\.gz: decompresses to more than 1 MiB"):
            read(p)
    monkeypatch.setenv("AXIOMATIC_MAX_DECOMPRESSED", "4M")
    assert read_run(p) == {"q1": {"d1": 2.0}}
    monkeypatch.setenv("AXIOMATIC_MAX_DECOMPRESSED", "lots")
    with pytest.raises(ValueError, match="AXIOMATIC_MAX_DECOMPRESSED='lots' is not a size"):
        read_run(p)
    monkeypatch.delenv("AXIOMATIC_MAX_DECOMPRESSED")
    assert max_decompressed() == 2 * 1024**3


def test_line_readers_stream_instead_of_inflating_the_whole_file(tmp_path: Path) -> None:
    # 24 MiB of text in ~25 KiB: reading it line by line must hold a chunk, not the file (the
    # old reader held the bytes, the text and a list of every line: well over 50 MB)
    p = tmp_path / "wide.trec.gz"
    p.write_bytes(gzip.compress(RUN_LINE + (b" " * 255 + b"\n") * (96 << 10), compresslevel=9))
    tracemalloc.start()
    try:  # (about 1000:1: past the default ratio limit, which is not what this test is about)
        n = sum(1 for _ in iter_lines(p, limits=InputLimits(max_ratio=10_000)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == 1 + (96 << 10) + 1
    assert peak < 12 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_streamed_lines_equal_the_whole_text_split(tmp_path: Path, monkeypatch) -> None:
    import axiomatic.data._io as io_

    monkeypatch.setattr(io_, "_CHUNK", 3)  # lines and multi-byte characters across chunks
    data = "\ufeffa\r\nbé\n\nlong line over chunks\ncafé".encode()
    for name, raw in (("x.txt", data), ("x.txt.gz", gzip.compress(data))):
        (tmp_path / name).write_bytes(raw)
        text = data.decode("utf-8")[1:]
        expected = [(i, s.rstrip("\r")) for i, s in enumerate(text.split("\n"), start=1)]
        assert list(iter_lines(tmp_path / name)) == expected
    (tmp_path / "bad.txt").write_bytes(b"ok\nok\nb\xe9d\n")
    with pytest.raises(ParseError, match=r"bad\.txt:3: byte 0xe9 at byte offset 7"):
        list(iter_lines(tmp_path / "bad.txt"))


# ----------------------------------------------------------------------------- rank_llm JSON
def _hit(qid: int, did: str, score: object, content: str = "text") -> dict:
    return {"content": content, "qid": qid, "docid": did, "rank": 1, "score": score}


def _write_json(tmp_path: Path, name: str, data: object) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_a_json_integer_beyond_float_range_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"score 1000+\.\.\.\(401 digits\) is out of the"):
        json_number(10**400, "score")
    p = _write_json(tmp_path, "r.json", [{"query": "q", "hits": [_hit(1, "d1", 10**400)]}])
    with pytest.raises(ParseError, match=r"r\.json: entry 0 is malformed \(score 1000"):
        read_rankllm_results(p)  # was OverflowError
    assert json_number(10**300, "score") == 1e300


def test_a_query_repeated_exactly_is_counted_and_warned(tmp_path: Path) -> None:
    entry = {"query": "q one", "hits": [_hit(1, "d1", 2.0), _hit(1, "d2", 1.0)]}
    other = {"query": "q two", "hits": [_hit(2, "d1", 1.0)]}
    p = _write_json(tmp_path, "r.json", [entry, other, entry])
    with pytest.warns(DataWarning, match=r"r\.json: 1 entry repeat an earlier query's entry"):
        res = read_rankllm_results(p)
    assert res.duplicates == 1 and res.run == {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d1": 1.0}}


@pytest.mark.parametrize(
    ("second", "what"),
    [
        ({"query": "q one", "hits": [_hit(1, "d1", 5.0)]}, "other hits"),
        ({"query": "q one", "hits": [_hit(1, "d1", 2.0, "new text")]}, "other hits"),
        ({"query": "another text", "hits": [_hit(1, "d1", 2.0)]}, "other query text"),
    ],
)
def test_a_query_repeated_differently_is_an_error(tmp_path: Path, second: dict, what: str) -> None:
    first = {"query": "q one", "hits": [_hit(1, "d1", 2.0)]}
    p = _write_json(tmp_path, "r.json", [first, second])
    with pytest.raises(ParseError, match=rf"entry 1 repeats query '1' of entry 0 with {what}"):
        read_rankllm_results(p)  # was merged silently (text of one, scores of the other)


# ----------------------------------------------------------------------------- symlink loops
def test_a_descriptor_that_is_a_symlink_loop_is_a_data_error(tmp_path: Path) -> None:
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    with pytest.raises(DataError, match="symbolic link"):
        DatasetStore().load(str(loop))  # was RuntimeError from Path.resolve
    with pytest.raises(DescriptorError, match="link loop"):
        load_descriptor(loop)


def test_a_data_file_that_is_a_symlink_loop_names_the_link(tmp_path: Path) -> None:
    a, b = tmp_path / "a.trec", tmp_path / "b.trec"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(FileNotFoundError, match=r"a\.trec: a symbolic link to no readable file"):
        read_run(a)


# ----------------------------------------------------------------------------- rel_threshold
def _descriptor(tmp_path: Path, rel: str) -> Path:
    (tmp_path / "t.tsv").write_text("1\tcats\n", encoding="utf-8")
    (tmp_path / "d.tsv").write_text("d1\tcats purr\nd2\tdogs\n", encoding="utf-8")
    (tmp_path / "q.txt").write_text("1 0 d1 1\n1 0 d2 0\n", encoding="utf-8")
    p = tmp_path / "my.toml"
    p.write_text(
        '[dataset]\nqueries = "t.tsv"\ndocuments = "d.tsv"\nqrels = "q.txt"\n'
        f"rel_threshold = {rel}\n",
        encoding="utf-8",
    )
    return p


@pytest.mark.parametrize("rel", ["0", "-1", str(2**31), "true", "1.5"])
def test_unusable_rel_thresholds_are_refused_at_load_time(tmp_path: Path, rel: str) -> None:
    with pytest.raises(DescriptorError, match=r"my\.toml:5: rel_threshold must be"):
        load_descriptor(_descriptor(tmp_path, rel))


def test_a_threshold_no_judged_document_reaches_warns(tmp_path: Path) -> None:
    with pytest.warns(DataWarning, match=r"rel_threshold = 99 but no judged document has a grade"):
        ds = load_descriptor(_descriptor(tmp_path, "99"))
    assert ds.rel_threshold == 99
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        assert load_descriptor(_descriptor(tmp_path, "1")).rel_threshold == 1


def test_rank_llm_datasets_check_the_threshold_too(tmp_path: Path) -> None:
    p = _write_json(tmp_path, "r.json", [{"query": "q", "hits": [_hit(1, "d1", 1.0)]}])
    with pytest.raises(DescriptorError, match="rel_threshold must be a positive grade"):
        load_rankllm_dataset(p, rel_threshold=0)

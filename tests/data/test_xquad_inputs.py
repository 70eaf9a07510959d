"""Mutation testing of ``data/readers/xquad.py``: the input checks of the XQuAD reader,
value by value and message by message. ``read_xquad`` on a well-formed file (every field of
:class:`XQuADFile`), its refusal of each malformed shape (the whole ``ParseError`` text: file,
what is wrong, what was expected), ``check_xquad_aligned`` on misaligned language files and
``check_nr_pool``. Tiny synthetic files written to ``tmp_path``; no shared data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axiomatic.data.errors import ParseError
from axiomatic.data.readers.xquad import (
    NR_POOLS,
    XQuADFile,
    check_nr_pool,
    check_xquad_aligned,
    read_xquad,
)

EXPECTED = "SQuAD v1.1 JSON: data[].paragraphs[].{context, qas[].{id, question}}"
ALIGNED = (
    "an XQuAD file with the same articles, paragraphs and question ids, in the same order, "
    "as xquad.en.json. Replace the file with the released xquad.<lang>.json"
)


def _write(tmp_path: Path, text: str, name: str = "xquad.xx.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(ParseError) as exc:
        read_xquad(path)
    assert exc.value.path == str(path) and exc.value.expected == EXPECTED
    return str(exc.value)


# ------------------------------------------------------------------------------ read_xquad
def test_read_xquad_reads_every_field_of_a_well_formed_file(tmp_path: Path) -> None:
    data: dict[str, Any] = {
        "version": "1.1",
        "data": [
            {
                "title": "Solar",
                "paragraphs": [
                    {
                        "context": "  Panels \n convert\tsunlight  ",
                        "qas": [
                            {"id": "q1", "question": " What do \n panels convert? "},
                            {"id": 7, "question": "Where?"},
                        ],
                    },
                    {"context": "Second paragraph", "qas": []},
                ],
            },
            {  # no title: a positional one; a number context is text
                "paragraphs": [{"context": 42, "qas": [{"id": "q3", "question": 3.5}]}],
            },
        ],
    }
    got = read_xquad(_write(tmp_path, json.dumps(data)))
    assert got == XQuADFile(
        titles=["Solar", "article-1"],
        paragraphs={"0-0": "Panels convert sunlight", "0-1": "Second paragraph", "1-0": "42"},
        article_of={"0-0": 0, "0-1": 0, "1-0": 1},
        questions={"q1": "What do panels convert?", "7": "Where?", "q3": "3.5"},
        paragraph_of={"q1": "0-0", "7": "0-0", "q3": "1-0"},
    )
    assert list(got.paragraphs) == ["0-0", "0-1", "1-0"]  # file order
    assert list(got.questions) == ["q1", "7", "q3"]


def test_read_xquad_names_the_default_title_by_article_position(tmp_path: Path) -> None:
    data = {"data": [{"paragraphs": [{"context": f"c{a}", "qas": []}]} for a in range(3)]}
    assert read_xquad(_write(tmp_path, json.dumps(data))).titles == [
        "article-0",
        "article-1",
        "article-2",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[1]", "not SQuAD JSON (top-level JSON is a list, not an object)"),
        ('"data"', "not SQuAD JSON (top-level JSON is a str, not an object)"),
        ('{"x": 1}', "not SQuAD JSON (missing key 'data')"),
        ('{"data": {}}', "not SQuAD JSON ('data' is not a list)"),
        (
            '{"data": [[]]}',
            "not SQuAD JSON (unexpected structure (AttributeError: 'list' object has no "
            "attribute 'get'))",
        ),
        (
            '{"data": [{"title": [1], "paragraphs": []}]}',
            "not SQuAD JSON (title [1] is not a string)",
        ),
        ('{"data": [{"title": "T"}]}', "not SQuAD JSON (missing key 'paragraphs')"),
        (
            '{"data": [{"title": "T", "paragraphs": {}}]}',
            "not SQuAD JSON ('paragraphs' is not a list)",
        ),
        ('{"data": [{"paragraphs": [{"qas": []}]}]}', "not SQuAD JSON (missing key 'context')"),
        (
            '{"data": [{"paragraphs": [{"context": null, "qas": []}]}]}',
            "not SQuAD JSON (context None is not a string)",
        ),
        ('{"data": [{"paragraphs": [{"context": "c"}]}]}', "not SQuAD JSON (missing key 'qas')"),
        (
            '{"data": [{"paragraphs": [{"context": "c", "qas": "q"}]}]}',
            "not SQuAD JSON ('qas' is not a list)",
        ),
        (
            '{"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q"}]}]}]}',
            "not SQuAD JSON (missing key 'id')",
        ),
        (
            '{"data": [{"paragraphs": [{"context": "c", "qas": [{"id": 1.5, "question": "q"}]}]}]}',
            "not SQuAD JSON (question id 1.5 is not a string or integer id)",
        ),
        (
            '{"data": [{"paragraphs": [{"context": "c", "qas": [{"id": "a b", "question": "q"}]}]}]}',
            "not SQuAD JSON (question id 'a b' is empty or contains whitespace)",
        ),
        (
            '{"data": [{"paragraphs": [{"context": "c", "qas": [{"id": "q1"}]}]}]}',
            "not SQuAD JSON (missing key 'question')",
        ),
        (
            '{"data": [{"paragraphs": [{"context": "c", "qas": [{"id": "q1", "question": ["q"]}]}]}]}',
            "not SQuAD JSON (question ['q'] is not a string)",
        ),
        ('{"data": []}', "no paragraph"),
        ('{"data": [{"title": "T", "paragraphs": []}]}', "no paragraph"),
    ],
)
def test_read_xquad_refuses_each_malformed_shape_word_for_word(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = _write(tmp_path, text)
    assert _refusal(path) == f"{path}: {problem}; expected {EXPECTED}"


def test_read_xquad_refuses_a_later_malformed_article_too(tmp_path: Path) -> None:
    """The checks run for every article, paragraph and question, not the first only."""
    good = {"title": "A", "paragraphs": [{"context": "c", "qas": [{"id": "q0", "question": "q"}]}]}
    bad = {"title": "B", "paragraphs": [{"context": "c", "qas": [{"id": "q1", "question": None}]}]}
    path = _write(tmp_path, json.dumps({"data": [good, bad]}))
    assert _refusal(path) == (
        f"{path}: not SQuAD JSON (question None is not a string); expected {EXPECTED}"
    )


def test_read_xquad_invalid_json_names_the_line_and_the_expected_format(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"data": [\n')
    with pytest.raises(ParseError) as exc:
        read_xquad(path)
    assert str(exc.value) == (
        f"{path}:2: invalid JSON (Expecting value at column 1); expected {EXPECTED}"
    )
    assert exc.value.line == 2


# ------------------------------------------------------------------------------ check_nr_pool
def test_check_nr_pool_returns_the_accepted_pools() -> None:
    assert NR_POOLS == ("split", "all-leaky")
    assert check_nr_pool("split") == "split"
    assert check_nr_pool("all-leaky") == "all-leaky"


def test_check_nr_pool_refuses_the_old_leaky_name_word_for_word() -> None:
    with pytest.raises(ValueError) as exc:
        check_nr_pool("all")
    assert str(exc.value) == (
        "nr_pool='all' is no longer accepted: sampling NR paragraphs from all other articles "
        "leaks the test set into training (XQuAD has 240 paragraphs, so every dev/test "
        "paragraph becomes a grade-0 training candidate). Use the canonical nr_pool='split' "
        "(NR from the other articles of the same split), or nr_pool='all-leaky' to reproduce "
        "the old, leaky construction on purpose"
    )


@pytest.mark.parametrize("bad", ["train", "ALL", "Split", ""])
def test_check_nr_pool_refuses_unknown_pools_word_for_word(bad: str) -> None:
    with pytest.raises(ValueError) as exc:
        check_nr_pool(bad)
    assert str(exc.value) == f"nr_pool must be one of ['split', 'all-leaky'] (got {bad!r})"


# ------------------------------------------------------------------------------ alignment
def _squad(n_paras: list[int], prefix: str = "q") -> XQuADFile:
    """An XQuADFile with ``n_paras[a]`` paragraphs in article ``a`` and one question per
    paragraph, id ``<prefix><a>_<p>``."""
    out = XQuADFile([], {}, {}, {}, {})
    for a, n in enumerate(n_paras):
        out.titles.append(f"T{a}")
        for p in range(n):
            did = f"{a}-{p}"
            out.paragraphs[did] = f"text {a} {p}"
            out.article_of[did] = a
            qid = f"{prefix}{a}_{p}"
            out.questions[qid] = f"question {a} {p}"
            out.paragraph_of[qid] = did
    return out


def _misaligned(ref: XQuADFile, other: XQuADFile) -> str:
    with pytest.raises(ParseError) as exc:
        check_xquad_aligned(ref, other, "/raw/xquad.en.json", "/raw/xquad.de.json")
    assert exc.value.path == "/raw/xquad.de.json" and exc.value.line is None
    return str(exc.value)


def test_aligned_files_pass() -> None:
    ref = _squad([2, 3])
    check_xquad_aligned(ref, ref, "en.json", "en.json")  # no error
    check_xquad_aligned(ref, _squad([2, 3]), "en.json", "de.json")  # equal, not the same object


def test_a_missing_article_is_counted_and_its_ids_listed() -> None:
    ref, other = _squad([1, 1, 2]), _squad([1, 1])
    assert _misaligned(ref, other) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: 2 articles instead of 3; "
        "2 paragraph ids missing (first: ['2-0', '2-1']); 2 question ids missing (first: "
        f"['q2_0', 'q2_1']); expected {ALIGNED}"
    )


def test_only_the_article_count_differs() -> None:
    """Same paragraphs and questions, one extra (empty) article title: still refused."""
    ref, other = _squad([1, 1]), _squad([1, 1])
    other.titles.append("T2")
    assert _misaligned(ref, other) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: 3 articles instead of 2; "
        f"expected {ALIGNED}"
    )


def test_missing_and_extra_ids_list_the_first_five_in_file_order() -> None:
    ref, other = _squad([7, 1]), _squad([1, 8])  # ref 0-1..0-6 missing, other 1-1..1-7 extra
    assert _misaligned(ref, other) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: "
        "6 paragraph ids missing (first: ['0-1', '0-2', '0-3', '0-4', '0-5']); "
        "7 extra paragraph ids (first: ['1-1', '1-2', '1-3', '1-4', '1-5']); "
        "6 question ids missing (first: ['q0_1', 'q0_2', 'q0_3', 'q0_4', 'q0_5']); "
        "7 extra question ids (first: ['q1_1', 'q1_2', 'q1_3', 'q1_4', 'q1_5']); "
        f"expected {ALIGNED}"
    )


def test_extra_question_ids_only() -> None:
    ref, other = _squad([2]), _squad([2])
    other.questions["new"] = "an extra question"
    other.paragraph_of["new"] = "0-1"
    assert _misaligned(ref, other) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: 1 extra question ids "
        f"(first: ['new']); expected {ALIGNED}"
    )


def test_missing_question_ids_only() -> None:
    ref, other = _squad([2]), _squad([2])
    del other.questions["q0_0"], other.paragraph_of["q0_0"]
    assert _misaligned(ref, other) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: 1 question ids missing "
        f"(first: ['q0_0']); expected {ALIGNED}"
    )


def test_questions_in_another_paragraph_name_the_first_and_both_places() -> None:
    ref, other = _squad([3]), _squad([3])
    other.paragraph_of["q0_1"] = "0-2"
    other.paragraph_of["q0_2"] = "0-0"
    assert _misaligned(ref, other) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: 2 questions in another "
        "paragraph (first: 'q0_1' in '0-2', '0-1' in xquad.en.json); "
        f"expected {ALIGNED}"
    )


def test_a_question_missing_from_the_other_file_is_not_also_reported_as_moved() -> None:
    ref, other = _squad([2]), _squad([2])
    del other.questions["q0_0"], other.paragraph_of["q0_0"]
    other.paragraph_of["q0_1"] = "0-0"
    assert _misaligned(ref, other) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: 1 question ids missing "
        "(first: ['q0_0']); 1 questions in another paragraph (first: 'q0_1' in '0-0', '0-1' "
        f"in xquad.en.json); expected {ALIGNED}"
    )


def test_the_paths_may_be_path_objects() -> None:
    ref, other = _squad([1, 1]), _squad([1])
    with pytest.raises(ParseError) as exc:
        check_xquad_aligned(ref, other, Path("/raw/xquad.en.json"), Path("/raw/xquad.de.json"))
    assert str(exc.value) == (
        "/raw/xquad.de.json: not aligned with /raw/xquad.en.json: 1 articles instead of 2; "
        "1 paragraph ids missing (first: ['1-0']); 1 question ids missing (first: ['q1_0']); "
        f"expected {ALIGNED}"
    )

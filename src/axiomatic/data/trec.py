"""TREC file formats: qrels, runs and topics (read and write).

Formats
-------
- qrels: ``query_id iteration doc_id relevance`` (whitespace separated; ``iteration`` is ignored,
  usually ``0`` or ``Q0``; relevance an integer, ``1.0``-style integral floats are accepted).
- run: ``query_id Q0 doc_id rank score tag`` (the score decides the order; rank is informational).
- topics: the SGML ``<top> <num> <title> [<desc> <narr>] </top>`` format or tab-separated
  ``query_id<TAB>text`` (one topic per line). ``read_topics`` detects which.

Malformed lines raise :class:`~axiomatic.data.errors.ParseError` with ``file:line`` and the expected
shape, or, with ``skip_malformed=True``, are skipped with a warning; the returned dict then carries
``.skipped`` (count) and ``.skipped_lines``. Blank lines are ignored (there is no comment
syntax: ``#`` may start an id).
Duplicate ``(query_id, doc_id)`` lines: the last one wins. Empty topic texts are kept (a query with
no text is still a query; rankers score it as matching nothing). Writers are atomic
(temporary file + ``os.replace``) and write ``.gz`` when the name ends in ``.gz``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from axiomatic.data._io import ParsedDict, atomic_write_text, iter_lines, read_text, report_skipped
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Query

__all__ = [
    "read_qrels",
    "read_run",
    "read_topics",
    "write_qrels",
    "write_run",
    "write_topics",
]

_QRELS_EXPECTED = "4 whitespace-separated columns 'query_id iteration doc_id relevance' (int)"
_RUN_EXPECTED = "6 whitespace-separated columns 'query_id Q0 doc_id rank score tag'"
_TOPICS_EXPECTED = "'query_id<TAB>text' (tab-separated topics)"


def _parse_int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        f = float(value)  # "1.0" style grades
        if not f.is_integer():
            raise ValueError(value) from None
        return int(f)


def _skip(line: str) -> bool:
    return not line.strip()


def read_qrels(path: str | Path, *, skip_malformed: bool = False) -> ParsedDict:
    """Read TREC qrels into ``{query_id: {doc_id: relevance}}`` (see module docstring)."""
    qrels: ParsedDict = ParsedDict()
    for lineno, line in iter_lines(path):
        if _skip(line):
            continue
        parts = line.split()
        try:
            if len(parts) != 4:
                raise ValueError(f"found {len(parts)} column(s) in {line.strip()!r}")
            qid, _, did, rel = parts
            try:
                grade = _parse_int(rel)
            except ValueError:
                raise ValueError(f"relevance {rel!r} is not an integer") from None
        except ValueError as exc:
            if skip_malformed:
                qrels.skipped += 1
                qrels.skipped_lines.append(lineno)
                continue
            raise ParseError(
                str(exc),
                path,
                lineno,
                _QRELS_EXPECTED,
                hint="Fix the line or pass skip_malformed=True to skip such lines",
            ) from None
        qrels.setdefault(qid, {})[did] = grade
    report_skipped(qrels, path, "qrels")
    return qrels


def read_run(path: str | Path, *, skip_malformed: bool = False) -> ParsedDict:
    """Read a TREC run into ``{query_id: {doc_id: score}}`` (see module docstring)."""
    run: ParsedDict = ParsedDict()
    for lineno, line in iter_lines(path):
        if _skip(line):
            continue
        parts = line.split()
        try:
            if len(parts) != 6:
                raise ValueError(f"found {len(parts)} column(s) in {line.strip()!r}")
            qid, _, did, rank, score, _tag = parts
            try:
                int(rank)
            except ValueError:
                raise ValueError(f"rank {rank!r} is not an integer") from None
            try:
                value = float(score)
            except ValueError:
                raise ValueError(f"score {score!r} is not a number") from None
            if math.isnan(value):
                raise ValueError("score is NaN")
        except ValueError as exc:
            if skip_malformed:
                run.skipped += 1
                run.skipped_lines.append(lineno)
                continue
            raise ParseError(
                str(exc),
                path,
                lineno,
                _RUN_EXPECTED,
                hint="Fix the line or pass skip_malformed=True to skip such lines",
            ) from None
        run.setdefault(qid, {})[did] = value
    report_skipped(run, path, "run")
    return run


# ---------------------------------------------------------------------------------------- topics
_TOP_RE = re.compile(r"<top>(.*?)</top>", re.IGNORECASE | re.DOTALL)
_NUM_RE = re.compile(r"<num>\s*(?:Number:)?\s*([^\s<]+)", re.IGNORECASE)
_FIELD_PREFIX = {"title": r"(?:Topic:)?", "desc": r"(?:Description:)?", "narr": r"(?:Narrative:)?"}


def _field_re(field: str) -> re.Pattern[str]:
    prefix = _FIELD_PREFIX.get(field, "")
    return re.compile(rf"<{field}>\s*{prefix}(.*?)(?=<[a-z/]|\Z)", re.IGNORECASE | re.DOTALL)


def _looks_like_sgml(text: str) -> bool:
    return text.lstrip()[:5].lower() == "<top>"


def read_topics(
    path: str | Path,
    *,
    format: Literal["auto", "trec", "tsv"] = "auto",
    field: str = "title",
    skip_malformed: bool = False,
) -> ParsedDict:
    """Read topics into ``{query_id: Query}``.

    ``format="auto"`` picks the SGML ``<top>`` reader when the file starts with ``<top>``, else
    the tab-separated one. ``field`` selects the SGML field used as query text (``title``,
    ``desc``, ``narr``; several joined with ``+``, e.g. ``"title+desc"``: the first is required,
    the others are appended when present). Whitespace inside a
    text is collapsed to single spaces and the text is stripped.
    """
    text = read_text(path)
    if format not in ("auto", "trec", "tsv"):
        raise ValueError(f"unknown topics format {format!r}; expected 'auto', 'trec' or 'tsv'")
    if format == "trec" or (format == "auto" and _looks_like_sgml(text)):
        return _read_sgml_topics(text, path, field, skip_malformed)
    topics: ParsedDict = ParsedDict()
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if _skip(line):
            continue
        qid, sep, qtext = line.partition("\t")
        qid = qid.strip()
        if not sep or not qid or any(c.isspace() for c in qid):
            if skip_malformed:
                topics.skipped += 1
                topics.skipped_lines.append(lineno)
                continue
            raise ParseError(
                f"no tab-separated query id in {line[:60]!r}",
                path,
                lineno,
                _TOPICS_EXPECTED,
                hint="Separate id and text with a TAB, or pass format='trec' for <top> files",
            )
        topics[qid] = Query(qid, " ".join(qtext.split()))
    report_skipped(topics, path, "topic")
    return topics


def _read_sgml_topics(text: str, path: str | Path, field: str, skip_malformed: bool) -> ParsedDict:
    fields = [f.strip().lower() for f in field.split("+") if f.strip()]
    patterns = [_field_re(f) for f in fields]
    topics: ParsedDict = ParsedDict()
    for m in _TOP_RE.finditer(text):
        body = m.group(1)
        num = _NUM_RE.search(body)
        found = [p.search(body) for p in patterns]
        if num is None or found[0] is None:
            lineno = text.count("\n", 0, m.start()) + 1  # only on error: keeps reading linear
            missing = "<num>" if num is None else f"<{fields[0]}>"
            if skip_malformed:
                topics.skipped += 1
                topics.skipped_lines.append(lineno)
                continue
            raise ParseError(
                f"topic without {missing}",
                path,
                lineno,
                "<top> <num>ID</num> <title>TEXT</title> ... </top>",
                hint=f"Choose another field (field={field!r} was asked for) or fix the topic",
            )
        qid = num.group(1)
        qtext = " ".join(" ".join(f.group(1).split()) for f in found if f is not None)
        topics[qid] = Query(qid, qtext.strip())
    if not topics and not skip_malformed and text.strip():
        raise ParseError("no <top> ... </top> block found", path, 1, "TREC SGML topics")
    report_skipped(topics, path, "topic")
    return topics


# --------------------------------------------------------------------------------------- writers
def _check_id(value: str, what: str) -> str:
    value = str(value)
    if not value or any(c.isspace() for c in value):
        raise ValueError(
            f"{what} {value!r} is empty or contains whitespace; TREC files are whitespace "
            "separated, so ids must be non-empty and without spaces"
        )
    return value


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | Path) -> Path:
    """Write ``qid 0 docid relevance`` lines (queries and docs in the mapping's order)."""
    lines = []
    for qid, docs in qrels.items():
        q = _check_id(qid, "query id")
        for did, rel in docs.items():
            lines.append(f"{q} 0 {_check_id(did, 'doc id')} {int(rel)}\n")
    return atomic_write_text(path, "".join(lines))


def write_run(
    run: Mapping[str, Mapping[str, float]], path: str | Path, tag: str = "axiomatic"
) -> Path:
    """Write a TREC run; per query, documents are sorted by score (desc), ties by doc id.

    Scores are written with ``repr`` so that reading the file back gives the same floats.
    """
    tag = _check_id(tag, "run tag")
    lines = []
    for qid, docs in run.items():
        q = _check_id(qid, "query id")
        ranked = sorted(docs.items(), key=lambda kv: (-float(kv[1]), kv[0]))
        for rank, (did, score) in enumerate(ranked, start=1):
            s = float(score)
            if math.isnan(s):
                raise ValueError(f"score of ({qid!r}, {did!r}) is NaN; a run needs real scores")
            lines.append(f"{q} Q0 {_check_id(did, 'doc id')} {rank} {s!r} {tag}\n")
    return atomic_write_text(path, "".join(lines))


def write_topics(
    queries: Mapping[str, Query] | Mapping[str, str],
    path: str | Path,
    *,
    format: Literal["tsv", "trec"] = "tsv",
) -> Path:
    """Write topics as ``qid<TAB>text`` lines (``format="tsv"``) or SGML ``<top>`` blocks."""
    if format not in ("tsv", "trec"):
        raise ValueError(f"unknown topics format {format!r}; expected 'tsv' or 'trec'")
    out = []
    for qid, q in queries.items():
        text = q.text if isinstance(q, Query) else str(q)
        _check_id(qid, "query id")
        if format == "trec" and "<" in str(qid):
            raise ValueError(f"query id {qid!r} contains '<', which SGML topics cannot hold")
        if any(c in text for c in "\t\r\n") or (format == "trec" and "<" in text):
            raise ValueError(
                f"topic {qid!r}: text contains a tab, newline{' or <' if format == 'trec' else ''}"
                "; normalise it (e.g. ' '.join(text.split())) before writing"
            )
        if format == "tsv":
            out.append(f"{qid}\t{text}\n")
        else:
            out.append(f"<top>\n<num> Number: {qid}\n<title> {text}\n</top>\n\n")
    return atomic_write_text(path, "".join(out))

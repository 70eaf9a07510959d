"""Cystic Fibrosis collection (Shaw et al. 1991): ``cf74`` ... ``cf79`` and ``cfquery``.

Tagged records: a line starting with a two-letter tag (``PN``, ``RN``, ``TI``, ``AB`` ...) starts a
field; indented lines continue it. Documents are keyed by ``RN`` (record number 1..1239, the id
used in ``cfquery``); text = ``TI`` + ``AB`` (or ``EX`` when there is no abstract). Queries:
``QN`` id, ``QU`` text, ``RD`` pairs ``docid SSSS`` (four judges' scores 0/1/2). The graded label
is the sum of the four scores (1..8). The files are plain ASCII except one line of ``cf74`` whose
characters carry a set high bit (corrupt in the distributed copy); bytes are read as latin-1 and the
high bit is cleared, which restores that line (``EØ Onå`` -> ``EX One``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import iter_lines, parse_int
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query

_CLEAR_HIGH_BIT = {i: i & 0x7F for i in range(128, 256)}
_TAG = re.compile(r"^([A-Z]{2}) (.*)$|^([A-Z]{2})$")


def _records(path: str | Path) -> list[tuple[int, dict[str, str]]]:
    """Records as ``(first line, {tag: text})``; a record starts at ``PN`` or ``QN``."""
    out: list[tuple[int, dict[str, list[str]]]] = []
    tag: str | None = None
    for lineno, line in iter_lines(path, encoding="latin-1"):
        if not line.isascii():
            line = line.translate(_CLEAR_HIGH_BIT)
        if not line.strip():
            continue
        m = _TAG.match(line)
        if m:
            tag = m.group(1) or m.group(3)
            rest = m.group(2) or ""
            if tag in ("PN", "QN"):
                out.append((lineno, {}))
            if not out:
                raise ParseError(
                    f"tag {tag} before the first PN/QN record",
                    path,
                    lineno,
                    "records starting with 'PN' (documents) or 'QN' (queries)",
                )
            out[-1][1].setdefault(tag, []).append(rest)
        elif tag is not None and out:
            # continuation; a few lines in cf79 lost their indentation, hence no indent check
            out[-1][1][tag].append(line.strip())
        else:
            raise ParseError(
                f"unexpected line {line[:40]!r}",
                path,
                lineno,
                "a two-letter tag or an indented continuation line",
            )
    return [(ln, {k: " ".join(" ".join(v).split()) for k, v in rec.items()}) for ln, rec in out]


def _record_number(rec: dict[str, str], tag: str, path: str | Path, lineno: int) -> str:
    """The record's ``RN``/``QN`` number as a normalised id (``00017`` -> ``17``)."""
    value = rec.get(tag)
    if value is None:
        raise ParseError(f"record without {tag}", path, lineno, f"a '{tag} <number>' line")
    first = value.split()[0] if value.split() else ""
    try:
        return str(parse_int(first, tag, 10**9))
    except ValueError as exc:
        raise ParseError(
            str(exc), path, lineno, f"'{tag} <number>' such as '{tag} 00017'"
        ) from None


def read_cf_documents(paths: list[str | Path]) -> dict[str, Document]:
    docs: dict[str, Document] = {}
    for path in paths:
        records = _records(path)
        if not records:
            raise ParseError("no record", path, None, "records starting with 'PN'")
        for lineno, rec in records:
            did = _record_number(rec, "RN", path, lineno)
            body = rec.get("AB") or rec.get("EX") or ""
            docs[did] = Document(did, f"{rec.get('TI', '')} {body}".strip())
    return docs


@dataclass
class CFQueries:
    queries: dict[str, Query]
    qrels: Qrels
    judge_scores: dict[str, dict[str, tuple[int, int, int, int]]]


def read_cf_queries(path: str | Path) -> CFQueries:
    out = CFQueries({}, {}, {})
    for lineno, rec in _records(path):
        qid = _record_number(rec, "QN", path, lineno)
        out.queries[qid] = Query(qid, rec.get("QU", ""))
        tokens = rec.get("RD", "").split()
        if len(tokens) % 2:
            raise ParseError(
                f"query {qid}: odd number of RD tokens",
                path,
                lineno,
                "RD pairs 'docid SSSS' (four 0/1/2 digits)",
            )
        for did, scores in zip(tokens[::2], tokens[1::2], strict=True):
            if len(scores) != 4 or any(c not in "012" for c in scores):
                raise ParseError(
                    f"query {qid}: scores {scores!r} for doc {did}",
                    path,
                    lineno,
                    "four digits 0/1/2 (one per judge)",
                )
            try:
                d = str(parse_int(did, "RD doc id", 10**9))
            except ValueError as exc:
                raise ParseError(
                    f"query {qid}: {exc}", path, lineno, "RD pairs 'docid SSSS'"
                ) from None
            s = tuple(int(c) for c in scores)
            out.judge_scores.setdefault(qid, {})[d] = s  # type: ignore[assignment]
            out.qrels.setdefault(qid, {})[d] = sum(s)
    if not out.queries:
        raise ParseError("no query record", path, None, "records starting with 'QN'")
    return out

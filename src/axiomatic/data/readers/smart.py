"""SMART / Glasgow test-collection files (``.ALL``, ``.QRY``, ``.REL``; Cranfield, CISI, CACM,
ADI, MEDLINE).

Records start with ``.I <id>``; a field starts with a line ``.<LETTER>`` (``.T`` title, ``.W`` text,
``.A`` authors, ``.B`` bibliographic, ``.X`` cross references ...) and runs until the next marker.
A record whose ``.I`` header is split over two lines (CACM document 2856 is stored as ``.I 28``
followed by ``56``) is repaired: digit-only lines between ``.I`` and the first field marker continue
the id. Line endings may be CRLF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import (
    ParsedDict,
    iter_lines,
    parse_float,
    parse_grade,
    parse_int,
    report_skipped,
    require_nonempty,
)
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query

_FIELD = re.compile(r"^\.([A-Z])(?:\s+(.*?))?\s*$")


@dataclass
class SmartRecord:
    record_id: str
    line: int
    fields: dict[str, str]


def read_smart_records(path: str | Path, encoding: str = "utf-8") -> list[SmartRecord]:
    """Every ``.I`` record with its fields (field text: lines joined with newlines, stripped)."""
    records: list[SmartRecord] = []
    current: SmartRecord | None = None
    field: str | None = None
    buf: dict[str, list[str]] = {}

    def close() -> None:
        if current is not None:
            current.fields = {k: "\n".join(v).strip() for k, v in buf.items()}
            records.append(current)

    for lineno, line in iter_lines(path, encoding):
        m = _FIELD.match(line)
        if m and m.group(1) == "I":
            close()
            rid = (m.group(2) or "").strip()
            if not rid:
                raise ParseError("'.I' without an id", path, lineno, "'.I <id>'")
            current, field, buf = SmartRecord(rid, lineno, {}), None, {}
        elif m and current is not None:
            field = m.group(1)
            buf.setdefault(field, [])
            if m.group(2):
                buf[field].append(m.group(2))
        elif current is None:
            if line.strip():
                raise ParseError(
                    f"text before the first record: {line[:40]!r}",
                    path,
                    lineno,
                    "a file starting with '.I <id>'",
                )
        elif field is None:
            if line.strip().isdigit():  # split '.I' header (CACM 2856)
                current.record_id += line.strip()
            elif line.strip():
                raise ParseError(
                    f"text before any field marker: {line[:40]!r}",
                    path,
                    lineno,
                    "a field marker such as '.T' or '.W' after '.I <id>'",
                )
        else:
            buf[field].append(line)
    close()
    if not records:
        raise ParseError("no '.I' record", path, None, "records starting with '.I <id>'")
    return records


def records_to_documents(
    records: list[SmartRecord], fields: tuple[str, ...] = ("T", "W")
) -> dict[str, Document]:
    """Documents whose text joins ``fields`` (in that order) with blank lines collapsed to spaces.
    A record lacking all the fields gets empty text (kept, so that ids still match the qrels)."""
    docs: dict[str, Document] = {}
    for r in records:
        did = _norm_id(r.record_id)
        text = " ".join(" ".join(r.fields.get(f, "").split()) for f in fields if r.fields.get(f))
        docs[did] = Document(did, text)
    return docs


def records_to_queries(
    records: list[SmartRecord], fields: tuple[str, ...] = ("W",), sequential_ids: bool = False
) -> dict[str, Query]:
    """Queries from ``.QRY`` records; ``sequential_ids=True`` numbers them 1..n in file order
    (Cranfield's qrels use the position, not the ``.I`` number)."""
    out: dict[str, Query] = {}
    for pos, r in enumerate(records, start=1):
        qid = str(pos) if sequential_ids else _norm_id(r.record_id)
        text = " ".join(" ".join(r.fields.get(f, "").split()) for f in fields if r.fields.get(f))
        out[qid] = Query(qid, text)
    return out


def _norm_id(value: str) -> str:
    value = value.strip()
    # ASCII digits only: str.isdigit() is also true for '²' or '１', which int() refuses/accepts
    return str(int(value)) if value.isascii() and value.isdigit() and len(value) < 40 else value


def _add_judgment(qrels: ParsedDict, qid: str, did: str, grade: int) -> None:
    """Store a judgment; an identical repeat is counted, a different grade is refused."""
    docs = qrels.setdefault(qid, {})
    old = docs.get(did)
    if old is None:
        docs[did] = grade
    elif old == grade:
        qrels.duplicates += 1
    else:
        raise ValueError(f"({qid!r}, {did!r}) judged again with grade {grade} (before: {old})")


def read_smart_qrels(
    path: str | Path, layout: str = "qid docid", *, skip_malformed: bool = False
) -> ParsedDict:
    """Glasgow ``.REL`` files as binary qrels (grade 1 for every listed pair).

    ``layout="qid docid"``: ``qid docid [0 0.000000]`` (CISI, ADI, CACM, MED.REL.OLD; 2 to 4
    columns, the optional ones numbers; ids are normalised, ``01`` -> ``1``); ``layout="trec"``:
    ``qid 0 docid grade`` (MED.REL). An empty file, a line with other columns, a bad number or a
    pair judged twice with different grades raise :class:`ParseError` (identical repeats are
    counted in ``.duplicates`` and warned about).
    """
    expected = (
        "'qid 0 docid grade' (integer grade)"
        if layout == "trec"
        else "'qid docid' with up to two numeric columns after it"
    )
    qrels: ParsedDict = ParsedDict()
    for lineno, line in iter_lines(path):
        parts = line.split()
        if not parts:
            continue
        try:
            if layout == "trec":
                if len(parts) != 4:
                    raise ValueError(f"found {len(parts)} column(s) in {line.strip()[:80]!r}")
                qid, did, grade = parts[0], parts[2], parse_grade(parts[3], "grade")
            else:
                if not 2 <= len(parts) <= 4:
                    raise ValueError(f"found {len(parts)} column(s) in {line.strip()[:80]!r}")
                for extra in parts[2:]:
                    parse_float(extra, "extra column")
                qid, did, grade = parts[0], parts[1], 1
            _add_judgment(qrels, _norm_id(qid), _norm_id(did), grade)
        except ValueError as exc:
            if skip_malformed:
                qrels.skipped += 1
                qrels.skipped_lines.append(lineno)
                continue
            raise ParseError(str(exc), path, lineno, expected) from None
    report_skipped(qrels, path, "qrels")
    require_nonempty(len(qrels), path, "qrels", expected)
    return qrels


CRANFIELD_GRADE_MAP = {1: 4, 2: 3, 3: 2, 4: 1}
"""Cleverdon's scale (1 = complete answer ... 4 = minimum interest; 5 = no interest, never listed)
mapped to higher-is-better grades: ``new = 5 - old``. ``-1`` lines are markers, not judgments."""


def read_cranfield_qrels(path: str | Path) -> tuple[Qrels, int]:
    """``cranqrel`` (``qid docid code``) -> (higher-is-better qrels, number of ``-1`` markers).

    The qrels are a :class:`~axiomatic.data._io.ParsedDict` (``.duplicates`` counts identical
    repeated lines); a pair with two different codes or an empty file raise :class:`ParseError`.
    """
    expected = "'qid docid code' with code in 1..4 or -1"
    qrels: ParsedDict = ParsedDict()
    markers = 0
    for lineno, line in iter_lines(path):
        parts = line.split()
        if not parts:
            continue
        try:
            if len(parts) != 3:
                raise ValueError(f"found {len(parts)} column(s) in {line.strip()[:80]!r}")
            qid, did = parts[0], parts[1]
            code = parse_int(parts[2], "relevance code", 100)
            if code == -1:
                markers += 1
                continue
            if code not in CRANFIELD_GRADE_MAP:
                raise ValueError(f"relevance code {code} is not on Cleverdon's scale")
            _add_judgment(qrels, _norm_id(qid), _norm_id(did), CRANFIELD_GRADE_MAP[code])
        except ValueError as exc:
            raise ParseError(str(exc), path, lineno, expected) from None
    report_skipped(qrels, path, "qrels")
    require_nonempty(len(qrels) + markers, path, "qrels", expected)
    return qrels, markers

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

from axiomatic.data._io import ParsedDict, iter_lines, report_skipped
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
    return str(int(value)) if value.isdigit() else value


def read_smart_qrels(
    path: str | Path, layout: str = "qid docid", *, skip_malformed: bool = False
) -> ParsedDict:
    """Glasgow ``.REL`` files as binary qrels (grade 1 for every listed pair).

    ``layout="qid docid"``: ``qid docid 0 0.000000`` (CISI, ADI, CACM, MED.REL.OLD; ids are
    normalised, ``01`` -> ``1``); ``layout="trec"``: ``qid 0 docid 1`` (MED.REL).
    """
    qrels: ParsedDict = ParsedDict()
    for lineno, line in iter_lines(path):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 2 or (layout == "trec" and len(parts) != 4):
            if skip_malformed:
                qrels.skipped += 1
                qrels.skipped_lines.append(lineno)
                continue
            raise ParseError(
                f"found {len(parts)} column(s)",
                path,
                lineno,
                "'qid docid ...'" if layout != "trec" else "'qid 0 docid grade'",
            )
        qid, did = (parts[0], parts[2]) if layout == "trec" else (parts[0], parts[1])
        grade = int(parts[3]) if layout == "trec" else 1
        qrels.setdefault(_norm_id(qid), {})[_norm_id(did)] = grade
    report_skipped(qrels, path, "qrels")
    return qrels


CRANFIELD_GRADE_MAP = {1: 4, 2: 3, 3: 2, 4: 1}
"""Cleverdon's scale (1 = complete answer ... 4 = minimum interest; 5 = no interest, never listed)
mapped to higher-is-better grades: ``new = 5 - old``. ``-1`` lines are markers, not judgments."""


def read_cranfield_qrels(path: str | Path) -> tuple[Qrels, int]:
    """``cranqrel`` (``qid docid code``) -> (higher-is-better qrels, number of ``-1`` markers)."""
    qrels: Qrels = {}
    markers = 0
    for lineno, line in iter_lines(path):
        parts = line.split()
        if not parts:
            continue
        try:
            qid, did, code = parts[0], parts[1], int(parts[2])
        except (ValueError, IndexError):
            raise ParseError(
                f"malformed line {line!r}", path, lineno, "'qid docid code' with code in 1..4 or -1"
            ) from None
        if code == -1:
            markers += 1
            continue
        if code not in CRANFIELD_GRADE_MAP:
            raise ParseError(
                f"relevance code {code} is not on Cleverdon's scale",
                path,
                lineno,
                "a code in 1..4 (or the -1 marker)",
            )
        qrels.setdefault(_norm_id(qid), {})[_norm_id(did)] = CRANFIELD_GRADE_MAP[code]
    return qrels, markers

"""JSON-lines queries and documents (one JSON object a line), as BEIR, Pyserini and most
"bring your own collection" exports write them.

Field names: the id is the first of ``doc_id`` / ``docid`` / ``docno`` / ``_id`` / ``id``
(documents) or ``query_id`` / ``qid`` / ``_id`` / ``id`` (queries); the text is ``text``
(documents also ``contents`` / ``body``; queries also ``query`` / ``title``). A document's
``title`` (BEIR) is put in front of its text, as BEIR's evaluation does.
"""

from __future__ import annotations

from pathlib import Path

from axiomatic.data._io import (
    STRUCTURE_ERRORS,
    ParsedDict,
    iter_lines,
    json_id,
    json_str,
    loads_json,
    malformed,
    report_skipped,
    require_nonempty,
)
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Query

DOC_ID_FIELDS = ("doc_id", "docid", "docno", "_id", "id")
DOC_TEXT_FIELDS = ("text", "contents", "body")
QUERY_ID_FIELDS = ("query_id", "qid", "_id", "id")
QUERY_TEXT_FIELDS = ("text", "query", "title")


def _first(obj: dict, fields: tuple[str, ...], what: str) -> object:
    for f in fields:
        if f in obj:
            return obj[f]
    raise ValueError(f"no {what} field (one of {', '.join(fields)}; got {', '.join(obj)[:80]})")


def _read(
    path: str | Path,
    kind: str,
    id_fields: tuple[str, ...],
    text_fields: tuple[str, ...],
    skip_malformed: bool,
) -> ParsedDict:
    expected = f'one JSON object a line, e.g. {{"{id_fields[0]}": "1", "text": "..."}}'
    out: ParsedDict = ParsedDict()
    first_line: dict[str, int] = {}
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        try:
            obj = loads_json(line, path, lineno, expected)
        except ParseError:
            if skip_malformed:
                out.skipped += 1
                out.skipped_lines.append(lineno)
                continue
            raise
        try:
            if not isinstance(obj, dict):
                raise ValueError(f"line holds a JSON {type(obj).__name__}, not an object")
            rid = json_id(_first(obj, id_fields, "id"), "id")
            text = json_str(_first(obj, text_fields, "text"), "text")
            if kind == "document":
                title = obj.get("title")
                if isinstance(title, str) and title.strip():
                    text = f"{title.strip()} {text}"
            else:
                text = " ".join(text.split())
            old = out.get(rid)
            if old is not None:
                if old.text != text:
                    raise ValueError(
                        f"{kind} id {rid!r} again with another text (first at line "
                        f"{first_line[rid]})"
                    )
                out.duplicates += 1
                continue
        except STRUCTURE_ERRORS as exc:
            if skip_malformed:
                out.skipped += 1
                out.skipped_lines.append(lineno)
                continue
            raise ParseError(malformed(exc), path, lineno, expected) from None
        out[rid] = Document(rid, text) if kind == "document" else Query(rid, text)
        first_line[rid] = lineno
    report_skipped(out, path, kind)
    require_nonempty(len(out), path, kind, expected)
    return out


def read_jsonl_documents(path: str | Path, *, skip_malformed: bool = False) -> ParsedDict:
    """``{doc_id: Document}`` from a JSON-lines file (see the module docstring for fields).

    A malformed line, an id given twice with different texts and a file without documents raise
    :class:`ParseError` (``path:line``); ``skip_malformed=True`` skips and counts bad lines.
    """
    return _read(path, "document", DOC_ID_FIELDS, DOC_TEXT_FIELDS, skip_malformed)


def read_jsonl_queries(path: str | Path, *, skip_malformed: bool = False) -> ParsedDict:
    """``{query_id: Query}`` from a JSON-lines file (whitespace in texts collapsed)."""
    return _read(path, "query", QUERY_ID_FIELDS, QUERY_TEXT_FIELDS, skip_malformed)

"""QBQTC (CLUE / QQ Browser query-title corpus) JSON-lines files.

Listwise 2021-10 release: ``{"id", "query", "title", "relevant": "0"|"1"|"2"}``; final release:
the same with ``"label"``. Titles are documents keyed by the pair ``id``; queries are grouped by
their text and get the stable id ``q`` + first 12 hex digits of the SHA-1 of the text (the same
query has the same id in every split)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from axiomatic.data._io import (
    STRUCTURE_ERRORS,
    iter_lines,
    json_id,
    json_str,
    loads_json,
    malformed,
    parse_grade,
    require_nonempty,
)
from axiomatic.data.errors import ParseError
from axiomatic.data.readers.wikiqa import PairwiseSet
from axiomatic.data.records import Document, Query


def query_id_for(text: str) -> str:
    return "q" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def read_qbqtc(path: str | Path) -> PairwiseSet:
    out = PairwiseSet({}, {}, {}, {})
    expected = '{"id": int, "query": str, "title": str, "relevant"|"label": "0"|"1"|"2"} per line'
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        rec = loads_json(line, path, lineno, expected)
        try:
            if not isinstance(rec, dict):
                raise ValueError(f"record is a {type(rec).__name__}, not an object")
            label = parse_grade(rec["relevant"] if "relevant" in rec else rec["label"], "label")
            qtext = json_str(rec["query"], "query").strip()
            title = json_str(rec["title"], "title").strip()
            did = json_id(rec["id"], "id")
        except STRUCTURE_ERRORS as exc:
            raise ParseError(
                f"malformed record ({malformed(exc)})", path, lineno, expected
            ) from None
        qid = query_id_for(qtext)
        out.queries.setdefault(qid, Query(qid, qtext))
        out.documents[did] = Document(did, title)
        out.candidates.setdefault(qid, []).append(did)
        out.qrels.setdefault(qid, {})[did] = label
    require_nonempty(len(out.queries), path, "query-title", expected)
    return out

"""Sasaki et al. (2018) Wikipedia CLIR files: ``grade<TAB>english query<TAB>foreign document``.

Queries are grouped by text and numbered ``q1, q2, ...`` in order of first appearance; documents
get the id ``d<line number>`` (the same text for two queries is two documents)."""

from __future__ import annotations

from pathlib import Path

from axiomatic.data._io import iter_lines, parse_grade, require_nonempty
from axiomatic.data.errors import ParseError
from axiomatic.data.readers.wikiqa import PairwiseSet
from axiomatic.data.records import Document, Query


def read_sasaki_clir(path: str | Path) -> PairwiseSet:
    out = PairwiseSet({}, {}, {}, {})
    ids: dict[str, str] = {}
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ParseError(
                f"found {len(parts)} tab-separated column(s)",
                path,
                lineno,
                "'grade<TAB>query<TAB>document'",
            )
        try:
            grade = parse_grade(parts[0].strip(), "grade")
        except ValueError as exc:
            raise ParseError(
                str(exc), path, lineno, "'grade<TAB>query<TAB>document' with grade 0/1/2"
            ) from None
        qtext = " ".join(parts[1].split())
        qid = ids.setdefault(qtext, f"q{len(ids) + 1}")
        out.queries.setdefault(qid, Query(qid, qtext))
        did = f"d{lineno}"
        out.documents[did] = Document(did, " ".join(parts[2].split()))
        out.candidates.setdefault(qid, []).append(did)
        out.qrels.setdefault(qid, {})[did] = grade
    require_nonempty(len(out.queries), path, "CLIR pair", "'grade<TAB>query<TAB>document'")
    return out

"""WikiPassageQA (Cohen, Yang & Croft 2018).

``{train,dev,test}.tsv``: header ``QID Question DocumentID DocumentName RelevantPassages``
(comma-separated passage indices within the document). Passage texts come from the separately
distributed ``document_passages.json``: ``{DocumentID: {passage_index: text}}``. A question's
candidates are all passages of its document; passage doc ids are ``<DocumentID>_<index>``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import (
    json_id,
    json_str,
    parse_int,
    read_json,
    read_text,
    require_nonempty,
)
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query

_HEADER = ("QID", "Question", "DocumentID", "DocumentName", "RelevantPassages")


@dataclass
class WikiPassageQAQuestions:
    queries: dict[str, Query]
    document_of: dict[str, str]  # query id -> DocumentID
    qrels: Qrels


def read_wikipassageqa_questions(path: str | Path) -> WikiPassageQAQuestions:
    expected = "\t".join(_HEADER)
    reader = csv.reader(
        io.StringIO(read_text(path), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE
    )
    out = WikiPassageQAQuestions({}, {}, {})
    try:
        header = next(reader, None)
        if header is None or tuple(h.strip() for h in header) != _HEADER:
            raise ParseError(f"header is {header!r}"[:200], path, 1, expected)
        for row in reader:
            lineno = reader.line_num
            if not row or not "".join(row).strip():
                continue
            if len(row) != 5:
                raise ParseError(f"found {len(row)} column(s)", path, lineno, expected)
            qid, question, doc, _name, rel = (c.strip() for c in row)
            try:
                qid = json_id(qid, "QID")
                doc = json_id(doc, "DocumentID")
                idx = [parse_int(x.strip(), "passage index") for x in rel.split(",") if x.strip()]
            except ValueError as exc:
                raise ParseError(
                    str(exc),
                    path,
                    lineno,
                    "a QID and DocumentID without spaces, "
                    "RelevantPassages as comma-separated indices such as '3,4'",
                ) from None
            out.queries[qid] = Query(qid, question)
            out.document_of[qid] = doc
            out.qrels[qid] = {f"{doc}_{i}": 1 for i in idx}
    except csv.Error as exc:
        raise ParseError(f"bad TSV ({exc})", path, reader.line_num, expected) from None
    require_nonempty(len(out.queries), path, "question", expected)
    return out


def read_document_passages(path: str | Path) -> dict[str, dict[str, str]]:
    """``document_passages.json`` -> ``{DocumentID: {passage_index: text}}``."""
    expected = '{"DocumentID": {"passage_index": "text"}}'
    data = read_json(path, expected)
    if not isinstance(data, dict):
        raise ParseError("top-level JSON is not an object", path, 1, expected)
    out: dict[str, dict[str, str]] = {}
    for d, ps in data.items():
        try:
            if not isinstance(ps, dict):
                raise ValueError(f"document {d!r}: passages are not an object")
            out[json_id(d, "DocumentID")] = {
                json_id(i, "passage index"): json_str(t, "passage text") for i, t in ps.items()
            }
        except ValueError as exc:
            raise ParseError(str(exc)[:200], path, None, expected) from None
    if not out:
        raise ParseError("no document", path, None, expected)
    return out


def passages_to_documents(passages: dict[str, dict[str, str]]) -> dict[str, Document]:
    return {
        f"{d}_{i}": Document(f"{d}_{i}", " ".join(t.split()))
        for d, ps in passages.items()
        for i, t in ps.items()
    }


def candidates_for(
    questions: WikiPassageQAQuestions, passages: dict[str, dict[str, str]]
) -> dict[str, list[str]]:
    """Every passage of each question's document, in passage-index order."""
    out: dict[str, list[str]] = {}
    for qid, doc in questions.document_of.items():
        if doc not in passages:
            raise KeyError(
                f"question {qid}: document {doc} is not in document_passages.json; the file "
                "does not belong to this WikiPassageQA release"
            )
        keys = sorted(passages[doc], key=lambda k: (len(k), k))
        out[qid] = [f"{doc}_{k}" for k in keys]
    return out

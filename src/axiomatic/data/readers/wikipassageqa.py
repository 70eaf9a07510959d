"""WikiPassageQA (Cohen, Yang & Croft 2018).

``{train,dev,test}.tsv``: header ``QID Question DocumentID DocumentName RelevantPassages``
(comma-separated passage indices within the document). Passage texts come from the separately
distributed ``document_passages.json``: ``{DocumentID: {passage_index: text}}``. A question's
candidates are all passages of its document; passage doc ids are ``<DocumentID>_<index>``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import read_text
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query

_HEADER = ("QID", "Question", "DocumentID", "DocumentName", "RelevantPassages")


@dataclass
class WikiPassageQAQuestions:
    queries: dict[str, Query]
    document_of: dict[str, str]  # query id -> DocumentID
    qrels: Qrels


def read_wikipassageqa_questions(path: str | Path) -> WikiPassageQAQuestions:
    reader = csv.reader(
        io.StringIO(read_text(path), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE
    )
    header = next(reader, None)
    if header is None or tuple(h.strip() for h in header) != _HEADER:
        raise ParseError(f"header is {header!r}", path, 1, "\t".join(_HEADER))
    out = WikiPassageQAQuestions({}, {}, {})
    for lineno, row in enumerate(reader, start=2):
        if not row:
            continue
        if len(row) != 5:
            raise ParseError(f"found {len(row)} column(s)", path, lineno, "\t".join(_HEADER))
        qid, question, doc, _name, rel = (c.strip() for c in row)
        out.queries[qid] = Query(qid, question)
        out.document_of[qid] = doc
        try:
            idx = [int(x) for x in rel.split(",") if x.strip()]
        except ValueError:
            raise ParseError(
                f"RelevantPassages {rel!r}",
                path,
                lineno,
                "comma-separated passage indices such as '3,4'",
            ) from None
        out.qrels[qid] = {f"{doc}_{i}": 1 for i in idx}
    return out


def read_document_passages(path: str | Path) -> dict[str, dict[str, str]]:
    """``document_passages.json`` -> ``{DocumentID: {passage_index: text}}``."""
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"invalid JSON ({exc.msg})",
            path,
            exc.lineno,
            '{"DocumentID": {"passage_index": "text"}}',
        ) from None
    if not isinstance(data, dict):
        raise ParseError(
            "top-level JSON is not an object", path, 1, '{"DocumentID": {"passage_index": "text"}}'
        )
    return {str(d): {str(i): str(t) for i, t in ps.items()} for d, ps in data.items()}


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

"""SciFact exported from Hugging Face ``allenai/scifact`` to CSV (pandas).

``corpus_train.csv``: ``doc_id,title,abstract,structured`` where ``abstract`` is a numpy-style list
of sentence strings (``['s1'\\n 's2' ...]``); claims CSVs: one row per claim x evidence document with
``cited_doc_ids`` as a numpy-style int list (``[ 5152028 11705328]``). BEIR qrels are
(claim id, each cited doc id, 1).
"""

from __future__ import annotations

import ast
import csv
import io
import re
from pathlib import Path

from axiomatic.data._io import read_text
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query

_JOIN = re.compile(r"(['\"])\s*\n\s*(['\"])")


def _rows(path: str | Path, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise ParseError(
            f"missing column(s) {missing}", path, 1, f"a CSV header with {', '.join(required)}"
        )
    return [(reader.line_num, row) for row in reader]


def read_scifact_corpus(path: str | Path) -> dict[str, Document]:
    """Documents ``doc_id -> "title abstract"`` (sentences joined with single spaces)."""
    docs: dict[str, Document] = {}
    for line, row in _rows(path, ("doc_id", "title", "abstract")):
        try:
            sentences = ast.literal_eval(_JOIN.sub(r"\1, \2", row["abstract"]))
        except (ValueError, SyntaxError):
            raise ParseError(
                "abstract is not a list of sentence strings",
                path,
                line,
                "['sentence 1' 'sentence 2' ...]",
            ) from None
        text = " ".join(s.strip() for s in sentences)
        did = row["doc_id"].strip()
        docs[did] = Document(did, f"{row['title'].strip()} {text}".strip())
    return docs


def read_scifact_claims(path: str | Path) -> tuple[dict[str, Query], Qrels]:
    """Claims and BEIR-style qrels (claim, cited doc, 1); claims without citations get no qrels."""
    queries: dict[str, Query] = {}
    qrels: Qrels = {}
    for line, row in _rows(path, ("id", "claim", "cited_doc_ids")):
        qid = row["id"].strip()
        queries[qid] = Query(qid, row["claim"].strip())
        cited = row["cited_doc_ids"].strip()
        if not (cited.startswith("[") and cited.endswith("]")):
            raise ParseError(
                f"cited_doc_ids {cited!r} is not a list",
                path,
                line,
                "a numpy-style int list like '[ 5152028 11705328]'",
            )
        for did in cited[1:-1].replace(",", " ").split():
            qrels.setdefault(qid, {})[did] = 1
    return queries, qrels

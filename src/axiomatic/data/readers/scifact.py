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

from axiomatic.data._io import json_id, parse_int, read_text
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query

_JOIN = re.compile(r"(['\"])\s*\n\s*(['\"])")


def _rows(path: str | Path, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """Rows as ``(line, row)``; a short row, an over-long field or bad quoting is a
    :class:`ParseError` at its line (``csv`` itself would give ``None`` values or ``csv.Error``)."""
    expected = f"a CSV header with {', '.join(required)} and one row per record"
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    try:
        fields = reader.fieldnames or []
        missing = [c for c in required if c not in fields]
        if missing:
            raise ParseError(f"missing column(s) {missing}", path, 1, expected)
        out = []
        for row in reader:
            short = [c for c in required if not isinstance(row.get(c), str)]
            if short:
                raise ParseError(
                    f"row has {len(fields) - len(short)} of {len(fields)} columns "
                    f"(no {', '.join(short)})",
                    path,
                    reader.line_num,
                    expected,
                )
            out.append((reader.line_num, row))
    except csv.Error as exc:
        raise ParseError(f"bad CSV ({exc})", path, reader.line_num, expected) from None
    if not out:
        raise ParseError("no rows", path, None, expected)
    return out


def _sentences(text: str) -> list[str]:
    """The numpy-style list of sentence strings (``['s1'\\n 's2']``) as a list of strings."""
    try:
        value = ast.literal_eval(_JOIN.sub(r"\1, \2", text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError("abstract is not a list of sentence strings") from None
    if not isinstance(value, (list, tuple)) or not all(isinstance(s, str) for s in value):
        raise ValueError("abstract is not a list of sentence strings")
    return list(value)


def read_scifact_corpus(path: str | Path) -> dict[str, Document]:
    """Documents ``doc_id -> "title abstract"`` (sentences joined with single spaces)."""
    docs: dict[str, Document] = {}
    for line, row in _rows(path, ("doc_id", "title", "abstract")):
        try:
            sentences = _sentences(row["abstract"])
            did = json_id(row["doc_id"].strip(), "doc_id")
        except ValueError as exc:
            raise ParseError(
                str(exc), path, line, "a doc_id and an abstract like ['sentence 1' 'sentence 2']"
            ) from None
        text = " ".join(s.strip() for s in sentences)
        docs[did] = Document(did, f"{row['title'].strip()} {text}".strip())
    return docs


def read_scifact_claims(path: str | Path) -> tuple[dict[str, Query], Qrels]:
    """Claims and BEIR-style qrels (claim, cited doc, 1); claims without citations get no qrels."""
    queries: dict[str, Query] = {}
    qrels: Qrels = {}
    expected = "an id and cited_doc_ids as a numpy-style int list like '[ 5152028 11705328]'"
    for line, row in _rows(path, ("id", "claim", "cited_doc_ids")):
        cited = row["cited_doc_ids"].strip()
        try:
            qid = json_id(row["id"].strip(), "id")
            if not (cited.startswith("[") and cited.endswith("]")):
                raise ValueError(f"cited_doc_ids {cited[:60]!r} is not a list")
            dids = cited[1:-1].replace(",", " ").split()
            for d in dids:
                parse_int(d, "cited doc id")
        except ValueError as exc:
            raise ParseError(str(exc), path, line, expected) from None
        queries[qid] = Query(qid, row["claim"].strip())
        for did in dids:
            qrels.setdefault(qid, {})[did] = 1
    return queries, qrels

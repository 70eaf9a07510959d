"""TREC RAG 2024 retrieval JSONL (Webis ir_axioms study data):
``{"topic", "query", "references_ids": [20 ids], "references_texts": [20 texts]}`` per line."""

from __future__ import annotations

from pathlib import Path

from axiomatic.data._io import (
    STRUCTURE_ERRORS,
    iter_lines,
    json_id,
    json_str,
    loads_json,
    malformed,
    require_nonempty,
)
from axiomatic.data.errors import ParseError
from axiomatic.data.readers.rankllm import RetrievedResults
from axiomatic.data.records import Document, Query

_EXPECTED = '{"topic", "query", "references_ids": [...], "references_texts": [...]} per line'


def read_rag24_retrieval(path: str | Path) -> RetrievedResults:
    """Topics, segment texts and candidate lists (rank order; run scores = 1/rank)."""
    out = RetrievedResults({}, {}, {}, {})
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        rec = loads_json(line, path, lineno, _EXPECTED)
        try:
            if not isinstance(rec, dict):
                raise ValueError(f"record is a {type(rec).__name__}, not an object")
            qid = json_id(rec["topic"], "topic")
            qtext = json_str(rec["query"], "query")
            ids, texts = rec["references_ids"], rec["references_texts"]
            if not isinstance(ids, list) or not isinstance(texts, list):
                raise ValueError("references_ids and references_texts must be lists")
            if len(ids) != len(texts):
                raise ValueError(f"{len(ids)} ids but {len(texts)} texts")
            pairs = [
                (json_id(d, "reference id"), json_str(t, "reference text"))
                for d, t in zip(ids, texts, strict=True)
            ]
        except STRUCTURE_ERRORS as exc:
            raise ParseError(
                f"malformed record ({malformed(exc)})", path, lineno, _EXPECTED
            ) from None
        out.queries[qid] = Query(qid, " ".join(qtext.split()))
        cands = out.candidates.setdefault(qid, [])
        scores = out.run.setdefault(qid, {})
        for rank, (did, text) in enumerate(pairs, start=1):
            if did in scores:
                continue
            cands.append(did)
            scores[did] = 1.0 / rank
            out.documents.setdefault(did, Document(did, text))
    require_nonempty(len(out.queries), path, "retrieval record", _EXPECTED)
    return out

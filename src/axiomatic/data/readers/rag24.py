"""TREC RAG 2024 retrieval JSONL (Webis ir_axioms study data):
``{"topic", "query", "references_ids": [20 ids], "references_texts": [20 texts]}`` per line."""

from __future__ import annotations

import json
from pathlib import Path

from axiomatic.data._io import iter_lines
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
        try:
            rec = json.loads(line)
            qid = str(rec["topic"])
            ids, texts = rec["references_ids"], rec["references_texts"]
            if len(ids) != len(texts):
                raise ValueError(f"{len(ids)} ids but {len(texts)} texts")
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ParseError(f"malformed record ({exc})", path, lineno, _EXPECTED) from None
        out.queries[qid] = Query(qid, " ".join(str(rec["query"]).split()))
        cands = out.candidates.setdefault(qid, [])
        scores = out.run.setdefault(qid, {})
        for rank, (did, text) in enumerate(zip(ids, texts, strict=True), start=1):
            did = str(did)
            if did in scores:
                continue
            cands.append(did)
            scores[did] = 1.0 / rank
            out.documents.setdefault(did, Document(did, str(text)))
    return out

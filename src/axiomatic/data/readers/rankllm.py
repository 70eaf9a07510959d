"""rank_llm ``retrieve_results_*.json`` files (also NovelEval's ``data.json``).

Format: a JSON list, one element per query ``{"query": str, "hits": [{"content": str, "qid": int,
"docid": str, "rank": int, "score": float}, ...]}`` with hits in rank order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import read_text
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Query, Run

_EXPECTED = 'a JSON list of {"query": str, "hits": [{"content", "qid", "docid", "rank", "score"}]}'


@dataclass
class RetrievedResults:
    """Queries, passage texts, candidate lists (rank order) and scores of one retrieval run."""

    queries: dict[str, Query]
    documents: dict[str, Document]
    candidates: dict[str, list[str]]
    run: Run


def read_rankllm_results(path: str | Path, *, query_id_from: str = "qid") -> RetrievedResults:
    """Read a rank_llm retrieve-results JSON file.

    Duplicate doc ids within one query keep their first (best) rank. A passage id seen with two
    different texts keeps the first text.
    """
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON ({exc.msg})", path, exc.lineno, _EXPECTED) from None
    if not isinstance(data, list):
        raise ParseError(f"top-level JSON is {type(data).__name__}", path, 1, _EXPECTED)
    queries: dict[str, Query] = {}
    documents: dict[str, Document] = {}
    candidates: dict[str, list[str]] = {}
    run: Run = {}
    for i, entry in enumerate(data):
        try:
            hits = entry["hits"]
            qtext = str(entry["query"])
            if not hits:
                continue
            qid = str(hits[0][query_id_from])
            cands = candidates.setdefault(qid, [])
            scores = run.setdefault(qid, {})
            for hit in hits:
                did = str(hit["docid"])
                if did in scores:
                    continue
                cands.append(did)
                scores[did] = float(hit["score"])
                if did not in documents:
                    documents[did] = Document(did, str(hit["content"]))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ParseError(
                f"entry {i} is malformed ({type(exc).__name__}: {exc})", path, None, _EXPECTED
            ) from None
        queries[qid] = Query(qid, " ".join(qtext.split()))
    return RetrievedResults(queries, documents, candidates, run)

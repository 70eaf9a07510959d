"""rank_llm ``retrieve_results_*.json`` files (also NovelEval's ``data.json``).

Format: a JSON list, one element per query ``{"query": str, "hits": [{"content": str, "qid": int,
"docid": str, "rank": int, "score": float}, ...]}`` with hits in rank order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import (
    STRUCTURE_ERRORS,
    json_id,
    json_number,
    json_str,
    malformed,
    read_json,
)
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
    data = read_json(path, _EXPECTED)
    if not isinstance(data, list):
        raise ParseError(f"top-level JSON is {type(data).__name__}", path, 1, _EXPECTED)
    queries: dict[str, Query] = {}
    documents: dict[str, Document] = {}
    candidates: dict[str, list[str]] = {}
    run: Run = {}
    for i, entry in enumerate(data):
        try:
            if not isinstance(entry, dict):
                raise ValueError(f"entry is a {type(entry).__name__}, not an object")
            hits = entry["hits"]
            qtext = json_str(entry["query"], "query")
            if not isinstance(hits, list):
                raise ValueError(f"hits is a {type(hits).__name__}, not a list")
            if not hits:
                continue
            qid = json_id(hits[0][query_id_from], query_id_from)
            cands = candidates.setdefault(qid, [])
            scores = run.setdefault(qid, {})
            for hit in hits:
                did = json_id(hit["docid"], "docid")
                if did in scores:
                    continue
                score = json_number(hit["score"], "score")
                content = json_str(hit["content"], "content")
                cands.append(did)
                scores[did] = score
                if did not in documents:
                    documents[did] = Document(did, content)
        except STRUCTURE_ERRORS as exc:
            raise ParseError(
                f"entry {i} is malformed ({malformed(exc)})", path, None, _EXPECTED
            ) from None
        queries[qid] = Query(qid, " ".join(qtext.split()))
    if not queries:
        raise ParseError("no query with hits", path, None, _EXPECTED)
    return RetrievedResults(queries, documents, candidates, run)

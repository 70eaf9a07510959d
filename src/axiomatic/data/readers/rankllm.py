"""rank_llm ``retrieve_results_*.json`` files (also NovelEval's ``data.json``).

Format: a JSON list, one element per query ``{"query": str, "hits": [{"content": str, "qid": int,
"docid": str, "rank": int, "score": float}, ...]}`` with hits in rank order.

A query given by two entries is handled as the TREC readers handle a repeated line: an exact
repeat (same query text, same hits) is ignored and counted (``duplicates``, one
:class:`~axiomatic.data.errors.DataWarning`); a repeat with another text or other hits is a
:class:`~axiomatic.data.errors.ParseError` naming both entries (merging them silently would mix
the text of one with the scores of the other).
"""

from __future__ import annotations

import warnings
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
from axiomatic.data.errors import DataWarning, ParseError
from axiomatic.data.records import Document, Query, Run

_EXPECTED = 'a JSON list of {"query": str, "hits": [{"content", "qid", "docid", "rank", "score"}]}'


@dataclass
class RetrievedResults:
    """Queries, passage texts, candidate lists (rank order) and scores of one retrieval run;
    ``duplicates`` counts entries that repeated an earlier query's entry exactly (ignored)."""

    queries: dict[str, Query]
    documents: dict[str, Document]
    candidates: dict[str, list[str]]
    run: Run
    duplicates: int = 0


def read_rankllm_results(path: str | Path, *, query_id_from: str = "qid") -> RetrievedResults:
    """Read a rank_llm retrieve-results JSON file.

    Duplicate doc ids within one query keep their first (best) rank. A passage id seen with two
    different texts keeps the first text. A query in two entries: see the module docstring.
    """
    data = read_json(path, _EXPECTED)
    if not isinstance(data, list):
        raise ParseError(f"top-level JSON is {type(data).__name__}", path, 1, _EXPECTED)
    queries: dict[str, Query] = {}
    documents: dict[str, Document] = {}
    candidates: dict[str, list[str]] = {}
    run: Run = {}
    first: dict[str, tuple[int, list[tuple[str, float, str]]]] = {}  # qid -> (entry, hits)
    duplicates = 0
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
            scores: dict[str, float] = {}
            texts: dict[str, str] = {}
            for hit in hits:
                did = json_id(hit["docid"], "docid")
                if did in scores:
                    continue
                scores[did] = json_number(hit["score"], "score")
                texts[did] = json_str(hit["content"], "content")
        except STRUCTURE_ERRORS as exc:
            raise ParseError(
                f"entry {i} is malformed ({malformed(exc)})", path, None, _EXPECTED
            ) from None
        query = Query(qid, " ".join(qtext.split()))
        entry_hits = [(d, s, texts[d]) for d, s in scores.items()]
        if qid in queries:
            j, earlier = first[qid]
            if queries[qid].text == query.text and earlier == entry_hits:
                duplicates += 1
                continue
            what = "other query text" if queries[qid].text != query.text else "other hits"
            raise ParseError(
                f"entry {i} repeats query {qid!r} of entry {j} with {what}",
                path,
                None,
                _EXPECTED,
                hint="Remove one of the two entries (which one is right cannot be guessed)",
            )
        first[qid] = (i, entry_hits)
        queries[qid] = query
        candidates[qid] = list(scores)
        run[qid] = scores
        for did, content in texts.items():
            if did not in documents:
                documents[did] = Document(did, content)
    if not queries:
        raise ParseError("no query with hits", path, None, _EXPECTED)
    if duplicates:
        warnings.warn(
            f"{path}: {duplicates} entr{'y' if duplicates == 1 else 'ies'} repeat an earlier "
            "query's entry exactly and were ignored",
            DataWarning,
            stacklevel=2,
        )
    return RetrievedResults(queries, documents, candidates, run, duplicates)

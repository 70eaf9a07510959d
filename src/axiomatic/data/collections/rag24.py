"""TREC RAG 2024 retrieval top-20 segments with text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import spec_adder
from axiomatic.data.records import Dataset
from axiomatic.data.trec import read_qrels


def load_rag24(root: Path) -> Dataset:
    """TREC RAG 2024: 301 topics x top-20 MS MARCO v2.1 segments; NIST/UMBRELA qrels (0-3) for
    86 topics (unjudged topics have no qrels; rel_threshold=2 as TREC DL)."""
    from axiomatic.data.readers.rag24 import read_rag24_retrieval

    base = root / "trec-rag24-retrieval-top20" / "raw"
    res = read_rag24_retrieval(base / "study1_retrieval.jsonl.gz")
    qrels = dict(read_qrels(base / "2024-retrieval-qrels.txt"))
    return Dataset(
        name="trec-rag24",
        queries=res.queries,
        documents=res.documents,
        qrels={q: v for q, v in qrels.items() if q in res.queries},
        candidates=res.candidates,
        split="test",
        language="en",
        rel_threshold=2,
        description="TREC RAG 2024 top-20 segments with text; graded qrels for 86 topics",
        metadata={
            "source": "trec-rag24-retrieval-top20",
            "run": res.run,
            "judged_topics": sorted(q for q in qrels if q in res.queries),
        },
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    add(
        "trec-rag24",
        "TREC RAG 2024: 301 topics x top-20 segments, qrels for 86",
        "trec-rag24-retrieval-top20",
        load_rag24,
        ("raw/study1_retrieval.jsonl.gz", "raw/2024-retrieval-qrels.txt"),
    )
    return specs

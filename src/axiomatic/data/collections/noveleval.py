"""NovelEval-2306: 21 queries x 20 passages, graded 0/1/2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import spec_adder
from axiomatic.data.records import Dataset
from axiomatic.data.trec import read_qrels, read_topics


def load_noveleval(root: Path) -> Dataset:
    """NovelEval-2306: 21 queries x 20 passages, graded 0/1/2 (2 = relevant: rel_threshold=2);
    candidates in the BM25 order of ``data.json``."""
    from axiomatic.data.readers.rankllm import read_rankllm_results
    from axiomatic.data.readers.tsv import read_tsv_documents

    base = root / "noveleval-2306" / "raw"
    docs = read_tsv_documents(base / "corpus.tsv")
    queries = dict(read_topics(base / "queries.tsv", format="tsv"))
    qrels = dict(read_qrels(base / "qrels.txt"))
    res = read_rankllm_results(base / "data.json")
    candidates = {
        q: [d for d in res.candidates[q] if d in docs] for q in queries if q in res.candidates
    }
    for q in queries:  # a query missing from data.json: its judged passages, corpus order
        candidates.setdefault(q, [d for d in docs if d in qrels.get(q, {})])
    return Dataset(
        name="noveleval",
        queries=queries,
        documents=docs,
        qrels=qrels,
        candidates=candidates,
        split="test",
        language="en",
        rel_threshold=2,
        description="NovelEval-2306: 21 post-2023 queries x 20 passages, graded 0/1/2",
        metadata={"source": "noveleval-2306", "run": res.run},
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    add(
        "noveleval",
        "NovelEval-2306: 21 queries x 20 passages, graded 0/1/2",
        "noveleval-2306",
        load_noveleval,
        ("raw/corpus.tsv", "raw/queries.tsv", "raw/qrels.txt", "raw/data.json"),
    )
    return specs

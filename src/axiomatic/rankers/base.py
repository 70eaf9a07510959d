"""The ranker protocol: anything that scores candidate documents for a query.

A ranker scores :class:`~axiomatic.data.records.Document` objects, not ids, so that artificial
documents (duplicated for LNC2, perturbed for regularization) are scored exactly like real ones.
Lexical rankers score documents that are not in their index against the index's collection
statistics (Rennings 2019, section 4.1.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from axiomatic.data.records import Dataset, Document, Query, Run
from axiomatic.report.progress import track


@runtime_checkable
class Ranker(Protocol):
    """Scores documents for a query; higher is better."""

    name: str

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        """One float per document, in order."""
        ...


def rerank(ranker: Ranker, dataset: Dataset, depth: int | None = None) -> Run:
    """Score every query's candidate list (the first ``depth`` candidates) with ``ranker``."""
    run: Run = {}
    for query in track(list(dataset.iter_queries()), description=f"ranking with {ranker.name}"):
        ids = dataset.candidate_ids(query.query_id)
        if depth is not None:
            ids = ids[:depth]
        if not ids:
            run[query.query_id] = {}
            continue
        docs = [dataset.documents[d] for d in ids]
        scores = np.asarray(ranker.score(query, docs), dtype=np.float64)
        run[query.query_id] = {d: float(s) for d, s in zip(ids, scores, strict=True)}
    return run

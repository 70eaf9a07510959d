"""The qrels oracle: a reference "ranker" that scores documents by their relevance label."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from axiomatic.data.records import Document, Qrels, Query


class QrelsOracle:
    """A "ranker" that scores a document by its relevance label (unjudged = 0): the upper bound.

    Artificial documents (e.g. LNC2 duplicates) are not in the qrels: ``sources`` maps them to the
    document they were made from, and ``extra`` gives labels per query
    (``{query_id: {doc_id: label}}``, e.g. those the miner recorded in ``rel_a``), so that they
    inherit a label.
    """

    can_score_unseen_documents = True  # artificial documents inherit their source's label

    def __init__(
        self,
        qrels: Qrels,
        name: str = "oracle",
        sources: Mapping[str, str] | None = None,
        extra: Qrels | None = None,
    ) -> None:
        self.qrels = qrels
        self.name = name
        self.sources = sources
        self.extra = extra

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        judged = self.qrels.get(query.query_id, {})
        extra = (self.extra or {}).get(query.query_id, {})
        sources = self.sources or {}
        out = np.empty(len(documents), dtype=np.float64)
        for i, doc in enumerate(documents):
            did = doc.doc_id
            if did in judged:
                out[i] = float(judged[did])
            elif did in extra:
                out[i] = float(extra[did])
            else:
                out[i] = float(judged.get(sources.get(did, did), 0))
        return out

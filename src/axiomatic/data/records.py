"""Record types shared by every layer.

Field names follow ir_datasets / ir_measures (``query_id``, ``doc_id``, ``text``, ``relevance``,
``score``) so that records flow into those libraries without renaming.

Qrels and runs are plain nested dictionaries, ``{query_id: {doc_id: value}}``: the shape
ir_measures consumes directly and the cheapest one to build and look up.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

Qrels: TypeAlias = dict[str, dict[str, int]]
"""Graded judgments: ``qrels[query_id][doc_id] = relevance`` (int grade, higher = more relevant)."""

Run: TypeAlias = dict[str, dict[str, float]]
"""Scored candidates: ``run[query_id][doc_id] = score`` (higher = better)."""


@dataclass(frozen=True, slots=True)
class Query:
    query_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Document:
    doc_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ScoredDoc:
    query_id: str
    doc_id: str
    score: float


@dataclass(frozen=True, slots=True)
class Qrel:
    query_id: str
    doc_id: str
    relevance: int


@dataclass
class Dataset:
    """A retrieval or re-ranking dataset.

    ``candidates`` maps each query to its ordered candidate list (best first); when it is ``None``
    the dataset is a full-retrieval one (rank the whole of ``documents``). ``rel_threshold`` is the
    minimum grade counted as relevant by binary measures (e.g. 2 for TREC DL).
    ``language`` is the query language and ``doc_language`` the document language (they differ for
    cross-lingual sets).
    """

    name: str
    queries: dict[str, Query]
    documents: Mapping[str, Document]
    qrels: Qrels | None = None
    candidates: dict[str, list[str]] | None = None
    split: str | None = None
    language: str = "en"
    doc_language: str | None = None
    rel_threshold: int = 1
    description: str = ""
    metadata: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.doc_language is None:
            self.doc_language = self.language

    # ------------------------------------------------------------------ views
    @property
    def is_reranking(self) -> bool:
        return self.candidates is not None

    def candidate_ids(self, query_id: str) -> list[str]:
        """Candidate doc ids of a query (every document for a full-retrieval dataset)."""
        if self.candidates is None:
            return list(self.documents.keys())
        try:
            return self.candidates[query_id]
        except KeyError:
            raise KeyError(
                f"query {query_id!r} has no candidate list in dataset {self.name!r}"
            ) from None

    def candidate_documents(self, query_id: str) -> list[Document]:
        return [self.documents[d] for d in self.candidate_ids(query_id)]

    def iter_queries(self) -> Iterator[Query]:
        return iter(self.queries.values())

    def judged(self, query_id: str) -> dict[str, int]:
        if self.qrels is None:
            return {}
        return self.qrels.get(query_id, {})

    def subset(self, query_ids: Sequence[str], split: str | None = None) -> Dataset:
        """The same dataset restricted to ``query_ids`` (documents are shared, not copied)."""
        missing = [q for q in query_ids if q not in self.queries]
        if missing:
            raise KeyError(f"unknown query ids for {self.name!r}: {missing[:5]}")
        keep = list(dict.fromkeys(query_ids))
        return Dataset(
            name=self.name,
            queries={q: self.queries[q] for q in keep},
            documents=self.documents,
            qrels=None
            if self.qrels is None
            else {q: self.qrels[q] for q in keep if q in self.qrels},
            candidates=None
            if self.candidates is None
            else {q: self.candidates[q] for q in keep if q in self.candidates},
            split=split if split is not None else self.split,
            language=self.language,
            doc_language=self.doc_language,
            rel_threshold=self.rel_threshold,
            description=self.description,
            metadata=dict(self.metadata),
        )

    def counts(self) -> dict[str, int]:
        n_qrels = 0 if self.qrels is None else sum(len(v) for v in self.qrels.values())
        n_cand = 0 if self.candidates is None else sum(len(v) for v in self.candidates.values())
        return {
            "queries": len(self.queries),
            "documents": len(self.documents),
            "qrels": n_qrels,
            "candidates": n_cand,
        }

    def __repr__(self) -> str:
        c = self.counts()
        return (
            f"Dataset(name={self.name!r}, split={self.split!r}, queries={c['queries']}, "
            f"documents={c['documents']}, qrels={c['qrels']}, candidates={c['candidates']})"
        )

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


class DatasetQrels(dict):  # type: ignore[type-arg]
    """The qrels of a :class:`Dataset`: a plain ``{query_id: {doc_id: grade}}`` dict that also
    carries the dataset's ``rel_threshold`` (the grade from which binary measures count a
    document as relevant, e.g. 2 for TREC DL).

    So ``axiomatic.evaluate(run, ds.qrels, "AP")`` counts relevance as ``axiomatic evaluate -d``
    does (:func:`axiomatic.evaluate.metrics.relevance_threshold`), not with trec_eval's
    default of 1. :class:`Dataset` keeps it in step with its ``rel_threshold``.
    """

    rel_threshold: int

    def __init__(
        self, qrels: Mapping[str, dict[str, int]] | None = None, rel_threshold: int = 1
    ) -> None:
        super().__init__(qrels or {})
        self.rel_threshold = rel_threshold

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (dict(self), self.rel_threshold))


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

    def __setattr__(self, name: str, value: object) -> None:
        # ``qrels`` carries ``rel_threshold`` (DatasetQrels): evaluating ``ds.qrels`` counts
        # relevance as the dataset says, however either of them was set
        if name == "qrels" and value is not None:
            value = _with_threshold(value, self.__dict__.get("rel_threshold", 1))  # type: ignore[arg-type]
        object.__setattr__(self, name, value)
        if name == "rel_threshold" and self.__dict__.get("qrels") is not None:
            object.__setattr__(self, "qrels", _with_threshold(self.qrels, value))  # type: ignore[arg-type]

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


def _with_threshold(qrels: Mapping[str, dict[str, int]], rel_threshold: object) -> DatasetQrels:
    """``qrels`` as a :class:`DatasetQrels` of ``rel_threshold`` (itself when it is one)."""
    if isinstance(qrels, DatasetQrels) and qrels.rel_threshold == rel_threshold:
        return qrels
    return DatasetQrels(qrels, rel_threshold)  # type: ignore[arg-type]

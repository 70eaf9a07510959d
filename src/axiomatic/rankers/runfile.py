"""A "ranker" that reads its scores from a TREC run, so that external systems can be diagnosed.

Any system whose run file covers the candidates (BM25 from Anserini, SPLADE, TAS-B, an LLM
re-ranker, ...) can then be analyzed like a ranker of this toolkit. A run only scores the
documents it contains, so the ranker declares ``can_score_unseen_documents = False`` (see
:class:`axiomatic.rankers.base.Ranker`): documents absent from the run follow the ``missing``
policy (NaN by default), and artificial documents (LNC2 duplicates, perturbed copies) cannot be
scored at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from axiomatic._suggest import suggest
from axiomatic.data.records import Document, Query, Run

__all__ = ["ArtificialDocumentError", "RunFileRanker"]

MissingPolicy = Literal["nan", "error", "min"]
MISSING_POLICIES: tuple[str, ...] = ("nan", "error", "min")


class ArtificialDocumentError(ValueError):
    """A run-file ranker was asked to score a document that the run cannot contain."""


class RunFileRanker:
    """Scores candidates by looking them up in a TREC run.

    Parameters
    ----------
    run_or_path:
        A :data:`~axiomatic.data.records.Run` dict or the path of a TREC run file (read lazily
        with :func:`axiomatic.data.trec.read_run` on first use).
    name:
        Display name (default: the file name, or ``"run"``).
    missing:
        What to do with a document the run lacks for a query: ``"nan"`` (default) scores it NaN,
        "no score", the contract of a ranker that cannot score unseen documents (diagnosis skips
        and counts such instances; :func:`~axiomatic.rankers.base.rerank` refuses NaN with a
        clear message); ``"error"`` raises a ``KeyError`` naming the query and document;
        ``"min"`` scores it below the lowest score of that query in the run (``min - 1``; tied
        with other missing documents; ``0`` when the run has no entry for the query).
    collection:
        Optional mapping ``doc_id -> Document`` of the real collection (e.g. ``dataset.documents``).
        When given, a document whose id is not in the collection, or whose text differs from the
        collection's, is recognized as artificial: NaN under ``missing="nan"``, and an
        :class:`ArtificialDocumentError` under ``"error"`` and ``"min"`` (a floor score for a
        modified document would be a made-up result).

    ``can_score_unseen_documents`` is ``False``: callers (diagnosis) do not ask this ranker for
    artificial documents; they skip the instances that need one and report the skips.
    """

    can_score_unseen_documents = False

    def __init__(
        self,
        run_or_path: Run | str | os.PathLike[str],
        name: str | None = None,
        missing: MissingPolicy = "nan",
        collection: Mapping[str, Document] | None = None,
    ) -> None:
        self.run_or_path = run_or_path
        self.missing = missing
        self.collection = collection
        if name is None:
            name = Path(run_or_path).name if isinstance(run_or_path, (str, os.PathLike)) else "run"
        self.name = name
        self._run: Run | None = None

    @property
    def run(self) -> Run:
        """The run (read from disk on first access)."""
        if self._run is None:
            src = self.run_or_path
            if isinstance(src, (str, os.PathLike)):
                from axiomatic.data.trec import read_run

                if not Path(src).exists():
                    raise FileNotFoundError(
                        f"run file {os.fspath(src)!r} does not exist; pass a TREC run "
                        "('query_id Q0 doc_id rank score tag' per line) or a Run dict"
                    )
                self._run = read_run(Path(src))
            elif isinstance(src, Mapping):
                self._run = src  # type: ignore[assignment]
            else:
                raise TypeError(
                    "run_or_path must be a Run dict {query_id: {doc_id: score}} or a path "
                    f"(got {type(src).__name__})"
                )
        return self._run

    def _check(self) -> None:
        if self.missing not in MISSING_POLICIES:
            hint = suggest(self.missing, MISSING_POLICIES, n=1, cutoff=0.6)
            raise ValueError(
                f"missing must be 'nan', 'error' or 'min' (got {self.missing!r}){hint}"
            )

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        """The run's scores of ``documents`` for ``query`` (see ``missing``)."""
        self._check()
        unseen: list[int] = []
        if self.collection is not None:
            for i, doc in enumerate(documents):
                real = self.collection.get(doc.doc_id)
                if real is not None and real.text == doc.text:
                    continue
                if self.missing == "nan":
                    unseen.append(i)
                else:
                    raise ArtificialDocumentError(
                        f"{self.name}: document {doc.doc_id!r} (query {query.query_id!r}) is an "
                        "artificial or modified document; a run-file ranker can only score the "
                        "documents its run contains, not artificial ones (e.g. LNC2 duplicates or "
                        "perturbed copies). Diagnose this system on axioms without artificial "
                        "documents, or use a ranker that scores text (bm25, model:PATH)."
                    )
        per_q = self.run.get(query.query_id)
        out = np.empty(len(documents), dtype=np.float64)
        missing: list[int] = []
        for i, doc in enumerate(documents):
            s = None if per_q is None else per_q.get(doc.doc_id)
            if s is None:
                missing.append(i)
            else:
                out[i] = s
        out[unseen] = np.nan  # artificial or modified: the run's score is not theirs
        if missing and self.missing == "nan":
            out[missing] = np.nan
        elif missing:
            if self.missing == "error":
                d = documents[missing[0]].doc_id
                where = (
                    f"the run has no ranking for query {query.query_id!r}"
                    if per_q is None
                    else f"document {d!r} is not in the run for query {query.query_id!r}"
                )
                raise KeyError(
                    f"{self.name}: {where} ({len(missing)} of {len(documents)} documents missing). "
                    "A run-file ranker only scores documents its run contains, so it cannot score "
                    "artificial documents either. Use missing='min' to rank absent documents below "
                    "the run's lowest score for the query (registry spec: run:PATH,missing=min)."
                )
            floor = (min(per_q.values()) - 1.0) if per_q else 0.0
            out[missing] = floor
        return out

    def __repr__(self) -> str:
        return f"RunFileRanker(name={self.name!r}, missing={self.missing!r})"

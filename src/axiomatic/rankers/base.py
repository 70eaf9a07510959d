"""The ranker protocol: anything that scores candidate documents for a query.

A ranker scores :class:`~axiomatic.data.records.Document` objects, not ids, so that artificial
documents (duplicated for LNC2, perturbed for regularization) are scored exactly like real ones.
Lexical rankers score documents that are not in their index against the index's collection
statistics (Rennings 2019, section 4.1.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from axiomatic._progress import track
from axiomatic.data.records import Dataset, Document, Query, Run
from axiomatic.models.scoring import (
    MODEL_NAN_HINT,
    SCORE_BATCH_SIZE,
    nan_score_error,
    score_candidates,
    score_text_lists,
)


@runtime_checkable
class Ranker(Protocol):
    """Scores documents for a query; higher is better.

    Required: ``name`` and :meth:`score`.

    Optional declaration ``can_score_unseen_documents: bool`` (read it with
    :func:`ranker_can_score_unseen`; a ranker that does not declare it is taken to be ``True``):

    - ``True``: the ranker scores any text, including documents it has never seen (artificial
      LNC2 duplicates, perturbed copies). Lexical and neural rankers. Whatever ``score`` raises
      is a real error, and callers let it propagate.
    - ``False``: the ranker only knows a fixed set of documents (a TREC run file). It returns NaN
      for a document it does not have, and callers do not ask it for artificial documents at
      all: :func:`axiomatic.diagnose.diagnosis.diagnose` skips those instances, counts the skips
      and reports them.

    The flag is an optional declaration rather than a structural member of this protocol, so that
    any object with ``name`` and ``score`` stays a ``Ranker`` (``isinstance`` works).
    """

    name: str

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        """One float per document, in order."""
        ...


UNSEEN_CAPABILITY = "can_score_unseen_documents"
"""Name of the optional capability declaration of a :class:`Ranker`."""


def ranker_can_score_unseen(ranker: object) -> bool:
    """``ranker.can_score_unseen_documents``, ``True`` when the ranker does not declare it.

    The one place that reads the declaration: nothing guesses the capability from class names,
    other attribute spellings or the exceptions a ranker raises.
    """
    flag = getattr(ranker, UNSEEN_CAPABILITY, True)
    if not isinstance(flag, (bool, np.bool_)):
        raise TypeError(
            f"{type(ranker).__name__}.{UNSEEN_CAPABILITY} must be True or False (got {flag!r})"
        )
    return bool(flag)


def rerank(ranker: Ranker, dataset: Dataset, depth: int | None = None) -> Run:
    """Score every query's candidate list (the first ``depth`` candidates) with ``ranker``.

    A ranker that wraps a neural model (a ``model`` attribute that is a
    :class:`~axiomatic.models.base.NeuralRankingModel`, as
    :class:`~axiomatic.models.ranker.NeuralRanker` has) is scored by
    :func:`axiomatic.models.scoring.score_candidates` with the ranker's ``batch_size`` and
    ``bf16``: batched across queries, each distinct text encoded once by a bi-encoder, and the
    same scores, bit for bit, as an experiment table computes for that model. A ranker with a
    ``score_lists(lists)`` method of its own (the Hugging Face folder rankers, the LLM rankers)
    is asked once for every query's list, so that it batches its inputs across queries (a
    short candidate list alone rarely fills a batch): the scores of :func:`score_lists`, as a
    diagnosis computes them. Other rankers score query by query.

    A NaN score is an error (naming the query and documents), never a silently misordered run.
    """
    model = _neural_model(ranker)
    if model is not None:
        return score_candidates(
            model,
            dataset,
            depth,
            batch_size=getattr(ranker, "batch_size", SCORE_BATCH_SIZE),
            bf16=getattr(ranker, "bf16", None),
            name=ranker.name,
        )
    if callable(getattr(ranker, "score_lists", None)):
        return _rerank_lists(ranker, dataset, depth)
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
        error = nan_score_error(ranker.name, query.query_id, ids, scores, _RUN_FILE_NAN_HINT)
        if error is not None:
            raise error
        run[query.query_id] = {d: float(s) for d, s in zip(ids, scores, strict=True)}
    return run


def rank_dataset(ranker: Ranker, dataset: Dataset, depth: int = 1000) -> Run:
    """The run ``axiomatic rank`` writes: ``dataset``'s candidate lists re-ranked by ``ranker``
    (:func:`rerank`, each list cut to ``depth``), or, for a dataset without candidate lists,
    the top ``depth`` documents of the whole collection that ``ranker.retrieve(query, depth)``
    returns. A ranker that cannot retrieve on such a dataset is a ``ValueError`` that says what
    to use instead."""
    if dataset.is_reranking:
        return rerank(ranker, dataset, depth=depth)
    retrieve = getattr(ranker, "retrieve", None)
    if retrieve is None:
        raise ValueError(
            f"dataset {dataset.name!r} has no candidate lists and ranker {ranker.name!r} cannot "
            "retrieve from the whole collection; re-rank a first stage (--first-stage bm25 "
            "--depth 100, or --candidates RUN), use a lexical ranker (bm25, ql, rm3, tfidf) or "
            "a re-ranking dataset"
        )
    run: Run = {}
    for q in track(list(dataset.iter_queries()), description=f"retrieving with {ranker.name}"):
        run[q.query_id] = dict(retrieve(q, depth))
    return run


def _rerank_lists(ranker: Any, dataset: Dataset, depth: int | None) -> Run:
    """:func:`rerank` through the ranker's own ``score_lists``: every non-empty candidate list
    in one call."""
    lists = []
    for query in dataset.iter_queries():
        ids = list(dataset.candidate_ids(query.query_id))
        lists.append((query, ids[:depth] if depth is not None else ids))
    todo = [(q, [dataset.documents[d] for d in ids]) for q, ids in lists if ids]
    scores = iter(ranker.score_lists(todo)) if todo else iter(())
    run: Run = {}
    for query, ids in lists:
        if not ids:
            run[query.query_id] = {}
            continue
        got = np.asarray(next(scores), dtype=np.float64)
        error = nan_score_error(ranker.name, query.query_id, ids, got, MODEL_NAN_HINT)
        if error is not None:
            raise error
        run[query.query_id] = {d: float(s) for d, s in zip(ids, got, strict=True)}
    return run


def score_lists(
    ranker: Ranker, lists: Sequence[tuple[Query, Sequence[Document]]]
) -> list[np.ndarray]:
    """Scores (float64) of several queries' documents with ``ranker``, one array per list.

    A ranker that wraps a neural model (see :func:`rerank`) is scored by
    :func:`axiomatic.models.scoring.score_text_lists` with its ``batch_size`` and ``bf16``: all
    lists in one go, each distinct (query, document) text pair once (a bi-encoder: each
    distinct text once), longest inputs first. A ranker with a ``score_lists(lists)`` method of
    its own (the Hugging Face folder rankers) is asked through it. Any other ranker scores list
    by list with :meth:`Ranker.score`. Scores are returned as they come (NaN included).
    """
    model = _neural_model(ranker)
    if model is not None:
        texts = [(q.text, [d.text for d in docs]) for q, docs in lists]
        return score_text_lists(
            model,
            texts,
            getattr(ranker, "batch_size", SCORE_BATCH_SIZE),
            getattr(ranker, "bf16", None),
            name=ranker.name,
        )
    own = getattr(ranker, "score_lists", None)
    if callable(own):
        return [np.asarray(s, dtype=np.float64) for s in own(lists)]
    return [
        np.asarray(ranker.score(q, docs), dtype=np.float64) if docs else np.zeros(0)
        for q, docs in track(list(lists), description=f"scoring with {ranker.name}")
    ]


_RUN_FILE_NAN_HINT = (
    "A run-file ranker returns NaN for documents its run lacks: rank them below the run's "
    "lowest score with missing='min' (spec run:PATH,missing=min)."
)


def _neural_model(ranker: object) -> Any:
    """The neural model ``ranker`` scores with, or ``None`` (torch is imported only for a
    ranker that has a ``model``)."""
    model = getattr(ranker, "model", None)
    if model is None:
        return None
    from axiomatic.models.base import NeuralRankingModel

    return model if isinstance(model, NeuralRankingModel) else None

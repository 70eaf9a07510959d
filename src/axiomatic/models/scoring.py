"""One scoring path: a neural model's scores for a dataset's candidate lists (issue 25 s3).

:func:`score_candidates` is what a paper table, the trainer's dev evaluation and
``axiomatic rank`` / ``rerank`` (through :func:`axiomatic.rankers.base.rerank`, for a ranker that
wraps a model) all call, so one model scores one dataset identically, bit for bit, wherever it
is scored:

* pairs are batched across queries (one query's list rarely fills a batch);
* a model that encodes queries and documents separately (:class:`SeparateEncoder`, e.g. the
  MiniLM :class:`~axiomatic.models.transformer.BiEncoder`) encodes each distinct query text
  and each distinct document text once and scores the vectors, instead of encoding a document
  again for every query that retrieved it;
* a NaN score is an error naming the query and the documents (:func:`nan_score_error`), never a
  run that orders them arbitrarily;
* a query with no candidates gets an empty ranking ``{}``.

Float scores depend (in the last bits) on how pairs are grouped into padded batches, so the
batch size is part of the result: :data:`SCORE_BATCH_SIZE` is the one default of this function
and of :class:`~axiomatic.models.ranker.NeuralRanker`.

The module imports no torch at import time: :mod:`axiomatic.rankers.base` reads the NaN check
from here without making lexical ranking import torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from axiomatic._progress import track
from axiomatic.data.records import Dataset, Document, Run

if TYPE_CHECKING:
    import torch

    from axiomatic.models.base import NeuralRankingModel

SCORE_BATCH_SIZE = 128
"""Pairs (or texts, for a :class:`SeparateEncoder`) per forward pass, by default."""

MAX_DISTINCT_DOCUMENTS = 1 << 18
"""Document vectors a :class:`SeparateEncoder` holds at once (384-d float32: 384 MiB). A
dataset with more distinct candidate texts is scored in groups of whole queries; a document
shared by two groups is encoded once in each."""

#: pairs per ``score_pairs`` call (a multiple of the batch size, so batches are the same as in
#: one call): the progress bar advances between calls
_BATCHES_PER_CALL = 32


@runtime_checkable
class SeparateEncoder(Protocol):
    """A model whose score is a function of a query vector and a document vector.

    ``embed_texts(texts, batch_size, bf16, as_query)`` -> ``(N, H)`` CPU float tensor (queries
    truncated as queries with ``as_query``); ``score_embedded(query (H,), documents (N, H))``
    -> ``(N,)``, the model's score of each document for the query: the same values as its
    ``score_pairs`` up to the last float bits of batching.
    """

    def embed_texts(
        self,
        texts: Sequence[str],
        batch_size: int = ...,
        bf16: bool | None = ...,
        as_query: bool = ...,
    ) -> torch.Tensor: ...

    def score_embedded(self, query: torch.Tensor, documents: torch.Tensor) -> torch.Tensor: ...


def nan_score_error(
    scorer: str, query_id: str, ids: Sequence[str], scores: np.ndarray, hint: str = ""
) -> ValueError | None:
    """The error for NaN ``scores`` of the candidates ``ids`` of query ``query_id`` (``None``
    when every score is a number), naming the query and the first documents."""
    nan = np.isnan(scores)
    if not nan.any():
        return None
    bad = [d for d, b in zip(ids, nan, strict=True) if b]
    return ValueError(
        f"ranker {scorer!r} returned NaN for {len(bad)} of {len(ids)} candidates of query "
        f"{query_id!r} (e.g. {bad[:3]}); a run would order them arbitrarily."
        + (f" {hint}" if hint else "")
    )


_MODEL_NAN_HINT = (
    "A neural model scores NaN when its weights hold NaN (a training run that diverged: "
    "check the checkpoint) or its inputs do (e.g. embeddings read from a broken file)."
)


def score_candidates(
    model: NeuralRankingModel,
    dataset: Dataset,
    depth: int | None = None,
    batch_size: int = SCORE_BATCH_SIZE,
    documents: Mapping[str, Document] | None = None,
    bf16: bool | None = None,
    name: str | None = None,
) -> Run:
    """Score each query's first ``depth`` candidates with ``model`` (no grad) -> run.

    ``documents`` replaces ``dataset.documents`` as the source of texts; ``bf16`` is the
    model's ``score_pairs`` / ``embed_texts`` option (``None``: where the hardware is fast at
    it); ``name`` is how an error names the model (default: its ``model_type``). See the module
    docstring for batching, the separate-encoder path and the NaN check.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
    docs = documents if documents is not None else dataset.documents
    lists: list[tuple[str, list[str]]] = []
    for qid in dataset.queries:
        ids = list(dataset.candidate_ids(qid))
        lists.append((qid, ids[:depth] if depth is not None else ids))
    label = name or str(getattr(model, "model_type", type(model).__name__))
    if isinstance(model, SeparateEncoder):
        scores = _score_separately(model, dataset, lists, docs, batch_size, bf16, label)
    else:
        scores = _score_pairs(model, dataset, lists, docs, batch_size, bf16, label)
    run: Run = {}
    for (qid, ids), s in zip(lists, scores, strict=True):
        error = nan_score_error(label, qid, ids, s, _MODEL_NAN_HINT)
        if error is not None:
            raise error
        run[qid] = {d: float(v) for d, v in zip(ids, s, strict=True)}
    return run


def _score_pairs(
    model: Any,
    dataset: Dataset,
    lists: list[tuple[str, list[str]]],
    docs: Mapping[str, Document],
    batch_size: int,
    bf16: bool | None,
    label: str,
) -> list[np.ndarray]:
    """Every (query, candidate) pair through ``model.score_pairs``, batched across queries."""
    qs: list[str] = []
    ds: list[str] = []
    for qid, ids in lists:
        text = dataset.queries[qid].text
        qs.extend([text] * len(ids))
        ds.extend(docs[d].text for d in ids)
    step = batch_size * _BATCHES_PER_CALL
    # bf16 is passed only when asked for: None is every model's default
    options: dict[str, Any] = {"batch_size": batch_size, **({} if bf16 is None else {"bf16": bf16})}
    parts = [
        model.score_pairs(qs[i : i + step], ds[i : i + step], **options).numpy().astype(np.float64)
        for i in track(range(0, len(qs), step), description=f"scoring with {label}")
    ]
    flat = np.concatenate(parts) if parts else np.zeros(0)
    out = []
    start = 0
    for _qid, ids in lists:
        out.append(flat[start : start + len(ids)])
        start += len(ids)
    return out


def _score_separately(
    model: SeparateEncoder,
    dataset: Dataset,
    lists: list[tuple[str, list[str]]],
    docs: Mapping[str, Document],
    batch_size: int,
    bf16: bool | None,
    label: str,
) -> list[np.ndarray]:
    """Each distinct query text and document text encoded once (per group of queries holding at
    most :data:`MAX_DISTINCT_DOCUMENTS` distinct documents), then ``score_embedded``."""
    groups: list[list[int]] = [[]]
    seen: set[str] = set()
    for i, (_qid, ids) in enumerate(lists):
        new = {docs[d].text for d in ids} - seen
        if groups[-1] and len(seen) + len(new) > MAX_DISTINCT_DOCUMENTS:
            groups.append([])
            seen = {docs[d].text for d in ids}
        else:
            seen |= new
        groups[-1].append(i)
    out: list[np.ndarray] = [np.zeros(0)] * len(lists)
    for group in track(groups, description=f"scoring with {label}"):
        q_row: dict[str, int] = {}
        d_row: dict[str, int] = {}
        for i in group:
            qid, ids = lists[i]
            if ids:
                q_row.setdefault(dataset.queries[qid].text, len(q_row))
            for d in ids:
                d_row.setdefault(docs[d].text, len(d_row))
        if not d_row:
            continue
        q_vecs = model.embed_texts(list(q_row), batch_size, bf16, as_query=True)
        d_vecs = model.embed_texts(list(d_row), batch_size, bf16)
        for i in group:
            qid, ids = lists[i]
            if not ids:
                continue
            rows = [d_row[docs[d].text] for d in ids]
            q = q_vecs[q_row[dataset.queries[qid].text]]
            out[i] = model.score_embedded(q, d_vecs[rows]).numpy().astype(np.float64)
    return out

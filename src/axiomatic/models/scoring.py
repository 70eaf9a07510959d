"""One scoring path: a neural model's scores for a dataset's candidate lists.

:func:`score_candidates` is what a paper table, the trainer's dev evaluation and
``axiomatic rank`` / ``rerank`` (through :func:`axiomatic.rankers.base.rerank`, for a ranker that
wraps a model) all call, so one model scores one dataset identically, bit for bit, wherever it
is scored:

* pairs are batched across queries (one query's list rarely fills a batch), and each distinct
  ``(query text, document text)`` pair is scored once (a document text that two ids share, a
  query text that two queries share);
* a model that encodes queries and documents separately (:class:`SeparateEncoder`, e.g. the
  MiniLM :class:`~axiomatic.models.transformer.BiEncoder`) encodes each distinct query text
  and each distinct document text once and scores the vectors, instead of encoding a document
  again for every query that retrieved it;
* distinct inputs go to the model longest first (by characters; a transformer then sorts each
  call by word pieces, :mod:`axiomatic.models.batching`), so a padded batch holds inputs of
  about one length;
* a NaN score is an error naming the query and the documents (:func:`nan_score_error`), never a
  run that orders them arbitrarily;
* a query with no candidates gets an empty ranking ``{}``.

:func:`score_text_lists` is the same for raw texts: a list of ``(query text, document texts)``
per query, scored in one go. A diagnosis scores every ranker's documents of all queries (real
and LNC2's artificial ones) through it, so the distinct texts of one diagnosis call are its
cache: each is encoded once, and nothing outlives the call.

Float scores depend (in the last bits, ~1e-7 in float32, the default) on how inputs are
grouped into padded batches; with ``bf16=True`` by up to ~2e-3, so a pair scored with other
pairs around it (``rank`` against ``diagnose``, another probe set) then gets another score. The
batch size is part of the result: :data:`SCORE_BATCH_SIZE` is the one default of this function
and of :class:`~axiomatic.models.ranker.NeuralRanker`. With ``batch_size=1`` every input runs
alone, and the scores are those of scoring each pair by itself, bit for bit.

The module imports no torch at import time: :mod:`axiomatic.rankers.base` reads the NaN check
from here without making lexical ranking import torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from axiomatic._progress import track
from axiomatic.data.records import Dataset, Document, Query, Run

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


@runtime_checkable
class PairScorer(Protocol):
    """A model that scores text pairs: ``score_pairs(queries, documents, batch_size=...,
    bf16=...)`` -> ``(N,)`` CPU float tensor (every :class:`NeuralRankingModel`, the
    ``cross-encoder:`` folder ranker)."""

    def score_pairs(
        self,
        queries: Sequence[str],
        documents: Sequence[str],
        batch_size: int = ...,
        bf16: bool | None = ...,
    ) -> torch.Tensor: ...


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


MODEL_NAN_HINT = (
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
    model's ``score_pairs`` / ``embed_texts`` option (``None``: float32, the default;
    ``True``: bf16); ``name`` is how an error names the model (default: its ``model_type``). See the module
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
    texts = [(dataset.queries[qid].text, [docs[d].text for d in ids]) for qid, ids in lists]
    scores = score_text_lists(model, texts, batch_size, bf16, label)
    run: Run = {}
    for (qid, ids), s in zip(lists, scores, strict=True):
        error = nan_score_error(label, qid, ids, s, MODEL_NAN_HINT)
        if error is not None:
            raise error
        run[qid] = {d: float(v) for d, v in zip(ids, s, strict=True)}
    return run


def score_text_lists(
    model: PairScorer | SeparateEncoder,
    lists: Sequence[tuple[str, Sequence[str]]],
    batch_size: int = SCORE_BATCH_SIZE,
    bf16: bool | None = None,
    name: str | None = None,
) -> list[np.ndarray]:
    """Scores (float64, one array per list) of ``lists``: ``(query text, document texts)``.

    Each distinct pair is scored once (a :class:`SeparateEncoder`: each distinct query text and
    document text is encoded once), longest inputs first, in calls of
    ``batch_size`` x :data:`_BATCHES_PER_CALL` between which the progress bar (``name``)
    advances. NaN scores are returned as they are (:func:`score_candidates` refuses them).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
    label = name or str(getattr(model, "model_type", type(model).__name__))
    if isinstance(model, SeparateEncoder):
        return _score_separately(model, lists, batch_size, bf16, label)
    return _score_pairs(model, lists, batch_size, bf16, label)


class TextListScoring:
    """``score`` and ``score_lists`` of a ranker that is its own model (a
    :class:`PairScorer` or a :class:`SeparateEncoder` with ``name`` and ``batch_size``): the
    Hugging Face folder rankers and the pointwise LLM ranker score through this one path,
    :func:`score_text_lists` with the ranker's ``batch_size`` and ``bf16`` (``None``: the
    model's own default). :meth:`score` is :meth:`score_lists` of one list, so one query's
    scores are the same whichever of the two asks for them (up to the last float bits of
    batching, see the module docstring)."""

    name: str
    batch_size: int
    bf16: bool | None = None

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        if not documents:
            return np.zeros(0, dtype=np.float64)
        return self.score_lists([(query, documents)])[0]

    def score_lists(self, lists: Sequence[tuple[Query, Sequence[Document]]]) -> list[np.ndarray]:
        """Scores (float64) of several queries' documents, all lists in one go: each distinct
        (query text, document text) pair scored once (a separate encoder: each distinct text
        encoded once), batched across queries, longest inputs first."""
        texts = [(q.text, [d.text for d in docs]) for q, docs in lists]
        model: Any = self  # a PairScorer or SeparateEncoder by the subclass's methods
        return score_text_lists(model, texts, self.batch_size, self.bf16, self.name)


def _longest_first(lengths: Sequence[int]) -> np.ndarray:
    return np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")


def _score_pairs(
    model: Any,
    lists: Sequence[tuple[str, Sequence[str]]],
    batch_size: int,
    bf16: bool | None,
    label: str,
) -> list[np.ndarray]:
    """Each distinct ``(query, document)`` text pair through ``model.score_pairs`` once,
    batched across queries, longest pairs first."""
    row: dict[tuple[str, str], int] = {}
    rows = [
        np.fromiter(
            (row.setdefault((q, d), len(row)) for d in texts), dtype=np.int64, count=len(texts)
        )
        for q, texts in lists
    ]
    pairs = list(row)
    order = _longest_first([len(q) + len(d) for q, d in pairs])
    step = batch_size * _BATCHES_PER_CALL
    # bf16 is passed only when asked for: None is every model's default
    options: dict[str, Any] = {"batch_size": batch_size, **({} if bf16 is None else {"bf16": bf16})}
    flat = np.zeros(len(pairs))
    for i in track(range(0, len(pairs), step), description=f"scoring with {label}"):
        chunk = order[i : i + step]
        got = model.score_pairs(
            [pairs[j][0] for j in chunk], [pairs[j][1] for j in chunk], **options
        )
        flat[chunk] = got.numpy().astype(np.float64)
    return [flat[r] for r in rows]


def _score_separately(
    model: SeparateEncoder,
    lists: Sequence[tuple[str, Sequence[str]]],
    batch_size: int,
    bf16: bool | None,
    label: str,
) -> list[np.ndarray]:
    """Each distinct query text and document text encoded once (per group of queries holding at
    most :data:`MAX_DISTINCT_DOCUMENTS` distinct documents), longest first, then
    ``score_embedded``."""
    import torch

    groups: list[list[int]] = [[]]
    seen: set[str] = set()
    for i, (_q, texts) in enumerate(lists):
        new = set(texts) - seen
        if groups[-1] and len(seen) + len(new) > MAX_DISTINCT_DOCUMENTS:
            groups.append([])
            seen = set(texts)
        else:
            seen |= new
        groups[-1].append(i)
    del seen
    out: list[np.ndarray] = [np.zeros(0)] * len(lists)
    step = batch_size * _BATCHES_PER_CALL
    for group in groups:
        q_row: dict[str, int] = {}
        d_row: dict[str, int] = {}
        for i in group:
            query, texts = lists[i]
            if texts:
                q_row.setdefault(query, len(q_row))
            for d in texts:
                d_row.setdefault(d, len(d_row))
        if not d_row:
            continue
        q_vecs = model.embed_texts(list(q_row), batch_size, bf16, as_query=True)
        d_texts = list(d_row)
        order = _longest_first([len(d) for d in d_texts])
        parts = [
            model.embed_texts([d_texts[j] for j in order[i : i + step]], batch_size, bf16)
            for i in track(range(0, len(d_texts), step), description=f"scoring with {label}")
        ]
        d_vecs = torch.cat(parts)  # longest first
        where = np.empty_like(order)
        where[order] = np.arange(order.size)  # row of each distinct text in d_vecs
        for i in group:
            query, texts = lists[i]
            if not texts:
                continue
            q = q_vecs[q_row[query]]
            rows = where[[d_row[d] for d in texts]]
            out[i] = model.score_embedded(q, d_vecs[rows]).numpy().astype(np.float64)
    return out

"""Lexical rankers over a :class:`~axiomatic.index.collection.CollectionIndex`: BM25, QL, RM3, TF-IDF.

Every ranker does two jobs with the same per-posting kernel, so the two agree to float precision:

* **full-collection retrieval** (:meth:`retrieve`, :meth:`retrieve_many`, :meth:`retrieve_run`):
  a document x term weight matrix is computed once per parameter values (lazily, per ranker)
  from the index's CSR counts; a query's scores are one sparse product over the query terms'
  columns (no per-document Python). BM25 with numba (the ``fast`` extra) instead runs one
  compiled call for a batch of queries: an approximate pass over quantized per-posting weights
  (:meth:`BM25Ranker.impacts`), then the candidates that can be in the top k rescored from their
  counts with the same float operations, so the same scores and order
  (:mod:`axiomatic.rankers._bm25_kernel`);
* **re-ranking** (:meth:`score`): the candidates' count vectors over the query terms are read from
  the index rows; documents that are *not* in the index (artificial or perturbed documents, or an
  id whose text differs from the indexed one) are analyzed with :meth:`CollectionIndex.analyze_texts`
  and scored against the **original** collection statistics (N, df, avgdl and p(t|C) unchanged),
  as Rennings (2019, section 4.1.1) prescribes for diagnostic datasets.

All rankers share the index's one :class:`~axiomatic.text.analyzer.Analyzer`. Query terms are
counted: a term repeated in the query contributes once per occurrence (weight ``qtf``).
Retrieval returns only documents that contain at least one query term (as Lucene/Anserini do).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from axiomatic.data.records import Document, Query, Run
from axiomatic.index.collection import CollectionIndex
from axiomatic.rankers import _bm25_kernel

__all__ = [
    "BM25_VARIANTS",
    "BM25Ranker",
    "LexicalRanker",
    "QLRanker",
    "RM3Ranker",
    "TFIDFRanker",
    "bm25_absent",
    "bm25_idf",
    "bm25_tf_part",
    "bm25_weights",
    "ql_weights",
    "tfidf_weights",
]


#: queries per :meth:`LexicalRanker.retrieve_many` call in :meth:`LexicalRanker.retrieve_run`
_BATCH = 256


# ---------------------------------------------------------------------------- pure kernels
BM25_VARIANTS = {
    "lucene": "Lucene's: idf log(1 + (N - df + .5) / (df + .5)), tf / (tf + k1 (1 - b + b |d|/avgdl))",
    "robertson": "Robertson et al.'s: idf log((N - df + .5) / (df + .5)) floored at 0, the "
    "Lucene tf part",
    "atire": "ATIRE's: idf log(N / df), (k1 + 1) tf / (tf + k1 (1 - b + b |d|/avgdl))",
    "bm25l": "Lv & Zhai's BM25L: idf log((N + 1) / (df + .5)), (k1 + 1)(c + delta) / (k1 + c + "
    "delta) with c = tf / (1 - b + b |d|/avgdl), delta 0.5, also for tf = 0",
    "bm25+": "Lv & Zhai's BM25+: idf log((N + 1) / df), (k1 + 1) tf / (tf + k1 (1 - b + b "
    "|d|/avgdl)) + delta, delta 1, also for tf = 0",
}
"""The BM25 variants of Kamphuis, de Vries, Boytsov & Lin (ECIR 2020), as bm25s implements them
(``method=``), each a choice of idf and of term-frequency part."""

BM25_DELTA = {"bm25l": 0.5, "bm25+": 1.0}
"""The default ``delta`` of the variants that give a term absent from a document a score."""


def bm25_idf(df: np.ndarray, n_docs: int, variant: str = "lucene") -> np.ndarray:
    """The idf of a BM25 ``variant`` (:data:`BM25_VARIANTS`); Lucene's by default,
    ``log(1 + (N - df + 0.5) / (df + 0.5))`` (always positive)."""
    df = np.asarray(df, dtype=np.float64)
    n = float(n_docs)
    if variant == "lucene":
        return np.log1p((n - df + 0.5) / (df + 0.5))
    if variant == "robertson":
        return np.log(np.maximum((n - df + 0.5) / (df + 0.5), 1.0))
    if variant == "atire":
        return np.log(n / df)
    if variant == "bm25l":
        return np.log((n + 1.0) / (df + 0.5))
    if variant == "bm25+":
        return np.log((n + 1.0) / df)
    raise ValueError(_variant_message(variant))


def bm25_tf_part(
    tf: np.ndarray,
    doc_len: np.ndarray,
    avg_doc_len: float,
    k1: float,
    b: float,
    variant: str = "lucene",
    delta: float | None = None,
) -> np.ndarray:
    """The term-frequency part of a BM25 ``variant`` (the weight is ``idf * tf part``); defined
    for ``tf = 0`` too (non-zero for BM25L and BM25+ only)."""
    tf = np.asarray(tf, dtype=np.float64)
    rel = 1.0 - b + b * np.asarray(doc_len, dtype=np.float64) / max(avg_doc_len, 1e-12)
    if variant in ("lucene", "robertson"):
        return tf / (tf + k1 * rel)
    if variant == "atire":
        return (k1 + 1.0) * tf / (tf + k1 * rel)
    d = BM25_DELTA[variant] if delta is None else float(delta)
    if variant == "bm25l":
        c = tf / rel
        return (k1 + 1.0) * (c + d) / (k1 + c + d)
    if variant == "bm25+":
        return (k1 + 1.0) * tf / (k1 * rel + tf) + d
    raise ValueError(_variant_message(variant))


def bm25_absent(k1: float, variant: str = "lucene", delta: float | None = None) -> float:
    """The term-frequency part of a query term absent from a document (``tf = 0``): 0 but for
    BM25L (``(k1 + 1) delta / (k1 + delta)``) and BM25+ (``delta``)."""
    if variant not in BM25_DELTA:
        return 0.0
    d = BM25_DELTA[variant] if delta is None else float(delta)
    return (k1 + 1.0) * d / (k1 + d) if variant == "bm25l" else d


def _variant_message(variant: Any) -> str:
    from axiomatic._suggest import suggest

    return (
        f"unknown BM25 variant {variant!r}{suggest(str(variant), BM25_VARIANTS, n=1)}; "
        f"expected one of {', '.join(BM25_VARIANTS)} (e.g. bm25:variant=robertson)"
    )


def bm25_weights(
    tf: np.ndarray, doc_len: np.ndarray, idf: np.ndarray, avg_doc_len: float, k1: float, b: float
) -> np.ndarray:
    """Per-(document, term) BM25 weight, Lucene variant (Kamphuis et al., ECIR 2020).

    ``w(t, d) = idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))``; broadcasting: ``tf`` and
    ``doc_len``/``idf`` must broadcast together (e.g. ``n x q``, ``n x 1`` and ``q``).
    """
    tf = np.asarray(tf, dtype=np.float64)
    norm = k1 * (1.0 - b + b * np.asarray(doc_len, dtype=np.float64) / max(avg_doc_len, 1e-12))
    return np.asarray(idf, dtype=np.float64) * tf / (tf + norm)


def ql_weights(tf: np.ndarray, p_coll: np.ndarray, mu: float) -> np.ndarray:
    """Document-dependent part of Dirichlet QL for a matching term: ``log(1 + tf / (mu p(t|C)))``.

    The full Dirichlet log-likelihood of a term is
    ``log((tf + mu p(t|C)) / (|d| + mu)) = log(1 + tf / (mu p)) + log(mu p) - log(|d| + mu)``
    (Zhai & Lafferty, 2001); the last two parts are added per query / per document.
    """
    return np.log1p(np.asarray(tf, dtype=np.float64) / (mu * np.asarray(p_coll, dtype=np.float64)))


def tfidf_weights(tf: np.ndarray, idf: np.ndarray) -> np.ndarray:
    """Sublinear TF-IDF: ``(1 + ln tf) * idf`` for ``tf > 0``, else 0."""
    tf = np.asarray(tf, dtype=np.float64)
    with np.errstate(divide="ignore"):
        logtf = np.where(tf > 0, 1.0 + np.log(np.maximum(tf, 1.0)), 0.0)
    return logtf * np.asarray(idf, dtype=np.float64)


def _top_k(scores: np.ndarray, candidates: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` of ``scores[candidates]`` by score desc, ties by row asc (deterministic)."""
    if len(candidates) == 0 or k <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    s = scores[candidates]
    if len(candidates) > k:
        part = np.argpartition(-s, k - 1)[:k]
        # keep every document tied with the k-th score so the tie-break below is stable
        kth = s[part].min()
        part = np.nonzero(s >= kth)[0]
        candidates, s = candidates[part], s[part]
    order = np.lexsort((candidates, -s))[:k]
    return candidates[order], s[order]


def _postings(
    w: sp.csc_matrix, term_ids: np.ndarray, qw: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and ``qw``-weighted values of the postings of ``term_ids`` (CSC column slices)."""
    starts = w.indptr[term_ids]
    ends = w.indptr[term_ids + 1]
    lens = ends - starts
    total = int(lens.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    # gather positions start..end of every column without a Python loop over postings
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    pos = np.arange(total, dtype=np.int64) + offsets
    return w.indices[pos], w.data[pos] * np.repeat(qw, lens)


# ---------------------------------------------------------------------------- base class
class LexicalRanker:
    """Shared machinery: query analysis, candidate count vectors, retrieval by sparse products.

    Subclasses implement :meth:`_posting_weights` (weights of the non-zero (doc, term) counts,
    vectorized), :meth:`_doc_offset` (a per-document, per-query additive term, e.g. QL's length
    normalization) and optionally :meth:`_query_weights` (e.g. RM3's expanded query).
    """

    name: str = "lexical"

    def __init__(self, index: CollectionIndex) -> None:
        self.index = index
        self._weights: tuple[tuple[Any, ...], sp.csc_matrix] | None = None

    # -- hooks -------------------------------------------------------------------------
    def _check(self) -> None:
        """Validate parameters (called on first use; constructors only store them)."""

    def _posting_weights(
        self, tf: np.ndarray, doc_len: np.ndarray, term_ids: np.ndarray
    ) -> np.ndarray:
        raise NotImplementedError

    def _doc_offset(
        self, doc_len: np.ndarray, term_ids: np.ndarray, qw: np.ndarray
    ) -> np.ndarray | float:
        """Additive score term for documents of length ``doc_len`` (QL's normalization)."""
        return 0.0

    def _params(self) -> tuple[Any, ...]:
        """Every parameter :meth:`_posting_weights` depends on besides the index: the key of
        the cached :meth:`weight_matrix` (a parameter changed after use is honoured)."""
        return ()

    def _query_weights(self, query: Query) -> tuple[np.ndarray, np.ndarray]:
        """In-vocabulary term ids of the query and their weights (default: query term counts)."""
        return self._query_terms(query.text)

    # -- query ---------------------------------------------------------------------------
    def _query_terms(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        pairs = np.asarray(self._query_term_counts(text), dtype=np.int64).reshape(-1, 2)
        return pairs[:, 0], pairs[:, 1].astype(np.float64)

    def _query_term_counts(self, text: str) -> list[tuple[int, int]]:
        """``(term id, count)`` of the query's in-vocabulary terms, in order of first occurrence
        (plain Python: the batch retrieval gathers many queries' before one array each)."""
        counts: dict[str, int] = {}
        for term in self.index.analyzer.analyze(text):
            counts[term] = counts.get(term, 0) + 1
        get = self.index.vocab.get
        return [(tid, c) for term, c in counts.items() if (tid := get(term)) is not None]

    # -- re-ranking ---------------------------------------------------------------------
    def _candidate_counts(
        self, documents: Sequence[Document], term_ids: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Dense ``n x |q|`` counts and lengths; out-of-index documents analyzed on the fly."""
        index = self.index
        n = len(documents)
        counts = np.zeros((n, len(term_ids)), dtype=np.int64)
        lens = np.zeros(n, dtype=np.int64)
        in_index: list[int] = []
        rows: list[int] = []
        outside: list[int] = []
        texts = index.texts
        for i, doc in enumerate(documents):
            r = index.doc_index.get(doc.doc_id)
            if r is not None and (texts is None or texts[doc.doc_id] == doc.text):
                in_index.append(i)
                rows.append(r)
            else:
                outside.append(i)
        if in_index:
            r_arr = np.asarray(rows, dtype=np.int64)
            counts[in_index] = index.counts(r_arr, term_ids)
            lens[in_index] = index.doc_len[r_arr]
        if outside:
            analyzed = index.analyze_texts([documents[i].text for i in outside])
            if len(term_ids):
                counts[outside] = analyzed.tf[:, term_ids].toarray()
            lens[outside] = analyzed.doc_len
        return counts, lens

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        """Scores of ``documents`` for ``query`` (one float64 per document, in order)."""
        self._check()
        term_ids, qw = self._query_weights(query)
        counts, lens = self._candidate_counts(documents, term_ids)
        if len(documents) == 0:
            return np.zeros(0, dtype=np.float64)
        scores = np.zeros(len(documents), dtype=np.float64)
        if len(term_ids):
            w = np.zeros(counts.shape, dtype=np.float64)
            nz = counts > 0
            if nz.any():
                r, c = np.nonzero(nz)
                w[r, c] = self._posting_weights(counts[r, c], lens[r], term_ids[c])
            scores = w @ qw
        return scores + self._doc_offset(lens, term_ids, qw)

    # -- retrieval ---------------------------------------------------------------------
    def weight_matrix(self) -> sp.csc_matrix:
        """``n_docs x n_terms`` per-posting weights (CSC, float64), computed once per value of
        the parameters (:meth:`_params`)."""
        key = self._params()
        if self._weights is None or self._weights[0] != key:
            self._check()
            self._weights = None  # the old matrix is freed before the new one is built
            tf = self.index.tf.tocoo()
            data = self._posting_weights(
                tf.data, self.index.doc_len[tf.row], tf.col.astype(np.int64)
            )
            w = sp.csr_matrix((data, (tf.row, tf.col)), shape=tf.shape, dtype=np.float64)
            self._weights = (key, w.tocsc())
        return self._weights[1]

    def scores_all(self, query: Query) -> tuple[np.ndarray, np.ndarray]:
        """Scores of every document for ``query`` and the rows that match >= 1 query term."""
        self._check()
        term_ids, qw = self._query_weights(query)
        return self._scores_for(term_ids, qw)

    def _scores_for(self, term_ids: np.ndarray, qw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = self.index.n_docs
        if len(term_ids) == 0:
            return np.zeros(n, dtype=np.float64), np.empty(0, dtype=np.int64)
        w = self.weight_matrix()
        rows, contrib = _postings(w, term_ids, qw)
        scores = np.bincount(rows, weights=contrib, minlength=n)
        hit = np.zeros(n, dtype=bool)
        hit[rows] = True
        matched = np.flatnonzero(hit)
        scores = scores + self._doc_offset(self.index.doc_len, term_ids, qw)
        return scores, matched

    def retrieve(self, query: Query, k: int = 1000) -> list[tuple[str, float]]:
        """Top ``k`` documents of the whole collection as ``(doc_id, score)``, best first."""
        rows, scores, n = self.retrieve_many([query], k)
        ids = self.index.doc_ids
        m = int(n[0])
        return [
            (ids[r], float(v))
            for r, v in zip(rows[0, :m].tolist(), scores[0, :m].tolist(), strict=True)
        ]

    def retrieve_many(
        self, queries: Sequence[Query], k: int = 1000
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Top ``k`` of the whole collection for each query, as arrays: index rows
        (``n_q x k``, int64), their scores (float64) and how many of each row are filled (a
        query matches fewer than ``k`` documents when few contain its terms); best first, ties
        by row. The batch form of :meth:`retrieve` (no per-document Python)."""
        k = _positive_k(k)
        self._check()
        n_q = len(queries)
        out_rows = np.zeros((n_q, k), dtype=np.int64)
        out_scores = np.zeros((n_q, k), dtype=np.float64)
        out_n = np.zeros(n_q, dtype=np.int64)
        for i, q in enumerate(queries):
            scores, matched = self.scores_all(q)
            rows, s = _top_k(scores, matched, k)
            out_rows[i, : len(rows)] = rows
            out_scores[i, : len(rows)] = s
            out_n[i] = len(rows)
        return out_rows, out_scores, out_n

    def retrieve_run(self, queries: Iterable[Query] | Mapping[str, Query], k: int = 1000) -> Run:
        """Full-collection retrieval for many queries (a :data:`Run`, top ``k`` per query)."""
        from axiomatic._progress import track

        qs = list(queries.values()) if isinstance(queries, Mapping) else list(queries)
        run: Run = {}
        ids = self.index.doc_ids
        batches = [qs[i : i + _BATCH] for i in range(0, len(qs), _BATCH)]
        for batch in track(batches, description=f"retrieving with {self.name}", total=len(batches)):
            rows, scores, n = self.retrieve_many(batch, k)
            for q, r, s, m in zip(batch, rows.tolist(), scores.tolist(), n.tolist(), strict=True):
                run[q.query_id] = dict(zip([ids[x] for x in r[:m]], s[:m], strict=True))
        return run

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, index={self.index!r})"


# ---------------------------------------------------------------------------- BM25
class BM25Ranker(LexicalRanker):
    """Okapi BM25, Lucene variant (the one bm25s' ``method="lucene"`` implements) by default;
    ``variant`` selects another of :data:`BM25_VARIANTS` (Robertson, ATIRE, BM25L, BM25+: each
    equal to bm25s' method of that name), ``delta`` BM25L's / BM25+'s lower bound.

    BM25L and BM25+ score a query term that a document lacks too (``idf * tf part(0)``): every
    document gets that amount for every query term, and a posting adds its weight above it, so
    re-ranking, retrieval and bm25s give the same scores; retrieval still returns only the
    documents that contain a query term.

    ``score(q, d) = sum_{t in q} qtf(t) * idf(t) * tf(t,d) / (tf(t,d) + k1 * (1 - b + b |d|/avgdl))``
    with Lucene's ``idf(t) = log(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``. Like Lucene >= 8 the
    ``(k1 + 1)`` numerator factor is dropped (a constant factor: the ranking is unchanged).
    Robertson & Zaragoza (2009), *The Probabilistic Relevance Framework: BM25 and Beyond*;
    Kamphuis, de Vries, Boytsov & Lin (2020), *Which BM25 do you mean?*, ECIR.

    Parameters: ``k1 >= 0`` (term-frequency saturation), ``0 <= b <= 1`` (length normalization).
    Defaults ``k1=0.9, b=0.4`` (Anserini's).
    """

    def __init__(
        self,
        index: CollectionIndex,
        k1: float = 0.9,
        b: float = 0.4,
        variant: str = "lucene",
        delta: float | None = None,
    ) -> None:
        super().__init__(index)
        self.k1 = k1
        self.b = b
        self.variant = variant
        self.delta = delta
        self._norm_cache: tuple[tuple[float, float], np.ndarray] | None = None
        self._idf_cache: np.ndarray | None = None
        self._impact_cache: tuple[tuple[float, float], tuple[np.ndarray, ...]] | None = None

    @property
    def name(self) -> str:  # type: ignore[override]
        extra = "" if self.variant == "lucene" else f",variant={self.variant}"
        if self.delta is not None:
            extra += f",delta={self.delta:g}"
        return f"BM25(k1={self.k1:g},b={self.b:g}{extra})"

    def _check(self) -> None:
        _check_number("k1", self.k1, low=0.0)
        _check_number("b", self.b, low=0.0, high=1.0)
        if not isinstance(self.variant, str) or self.variant not in BM25_VARIANTS:
            raise ValueError(_variant_message(self.variant))
        if self.delta is not None:
            if self.variant not in BM25_DELTA:
                raise ValueError(
                    f"BM25 delta is a parameter of the bm25l and bm25+ variants, not of "
                    f"{self.variant!r}; drop it or choose variant=bm25l / variant=bm25+"
                )
            _check_number("delta", self.delta, low=0.0)

    def _params(self) -> tuple[Any, ...]:
        return (self.k1, self.b, self.variant, self.delta)

    def _posting_weights(
        self, tf: np.ndarray, doc_len: np.ndarray, term_ids: np.ndarray
    ) -> np.ndarray:
        if self.variant == "lucene":
            idf = bm25_idf(self.index.df[term_ids], self.index.n_docs)
            return bm25_weights(tf, doc_len, idf, self.index.avg_doc_len, self.k1, self.b)
        idf = bm25_idf(self.index.df[term_ids], self.index.n_docs, self.variant)
        part = bm25_tf_part(
            tf, doc_len, self.index.avg_doc_len, self.k1, self.b, self.variant, self.delta
        )
        # a posting adds what its term gives above the absent term's amount (_doc_offset)
        return idf * (part - bm25_absent(self.k1, self.variant, self.delta))

    def _doc_offset(
        self, doc_len: np.ndarray, term_ids: np.ndarray, qw: np.ndarray
    ) -> np.ndarray | float:
        absent = bm25_absent(self.k1, self.variant, self.delta)
        if absent == 0.0 or len(term_ids) == 0:
            return 0.0
        idf = bm25_idf(self.index.df[term_ids], self.index.n_docs, self.variant)
        return float(qw @ (idf * absent))

    def retrieve_many(
        self, queries: Sequence[Query], k: int = 1000, n_threads: int = 1
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As :meth:`LexicalRanker.retrieve_many`; with numba (the ``fast`` extra) one compiled
        call for every query (:mod:`~axiomatic.rankers._bm25_kernel`: the same scores and order
        as the numpy form), the queries split over ``n_threads`` threads (the numpy form runs
        in the calling thread)."""
        fn = _bm25_kernel.compiled()
        if fn is None or not self._compiled_path():
            return super().retrieve_many(queries, k)
        _check_int("n_threads", n_threads, low=1)
        return self._retrieve_kernel(fn, queries, _positive_k(k), n_threads)

    def _compiled_path(self) -> bool:
        """Whether the compiled kernel computes this ranker's scores (Lucene BM25, the hooks
        not overridden); otherwise the numpy form does."""
        cls = type(self)
        return (
            self.variant == "lucene"
            and cls._query_weights is LexicalRanker._query_weights
            and cls._posting_weights is BM25Ranker._posting_weights
            and cls._doc_offset is BM25Ranker._doc_offset
        )

    def _retrieve_kernel(
        self, fn: Any, queries: Sequence[Query], k: int, n_threads: int = 1, build: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run the top-``k`` kernel ``fn`` (compiled, or as plain Python in the tests) as
        :meth:`retrieve_many` does; ``build``: the impact-index builder (default: compiled)."""
        self._check()
        index = self.index
        q_ptr, q_ids = index.query_term_ids([q.text for q in queries])
        imp_ptr, imp_docs, imp_q, scale = self.impacts(build)
        tf = index.tf
        norm = self._norm()
        idf = self._idf()
        n_q = len(queries)
        out_rows = np.zeros((n_q, k), dtype=np.int64)
        out_scores = np.zeros((n_q, k), dtype=np.float64)
        out_n = np.zeros(n_q, dtype=np.int64)

        def run(lo: int, hi: int) -> None:
            fn(
                imp_ptr,
                imp_docs,
                imp_q,
                scale,
                tf.indptr,
                tf.indices,
                tf.data,
                norm,
                idf,
                q_ptr[lo : hi + 1] - q_ptr[lo],
                q_ids[q_ptr[lo] : q_ptr[hi]],
                k,
                out_rows[lo:hi],
                out_scores[lo:hi],
                out_n[lo:hi],
            )

        parts = min(n_threads, n_q)
        if parts <= 1:
            run(0, n_q)
        else:  # the kernel releases the GIL: one slice of the queries per thread
            from concurrent.futures import ThreadPoolExecutor

            cuts = np.linspace(0, n_q, parts + 1).astype(int).tolist()
            with ThreadPoolExecutor(parts) as pool:
                list(pool.map(run, cuts[:-1], cuts[1:]))
        return out_rows, out_scores, out_n

    def impacts(self, build: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The impact index the compiled retrieval reads, built once per ``(k1, b)``:
        ``(indptr, docs, quantized, scale)``, term ``t``'s postings are
        ``docs[indptr[t]:indptr[t + 1]]`` (rows ascending; ``uint16`` up to 65,536 documents,
        else ``uint32``) with weights ``quantized * scale[t]`` (``uint16``), each within
        ``scale[t]`` of the exact BM25 weight (:mod:`~axiomatic.rankers._bm25_kernel`). 4 bytes
        per posting up to 65,536 documents (6 above), beside the index's own counts.
        ``build``: the builder (default: the numpy form, which loads no compiler and keeps its
        temporaries to a chunk of postings; the compiled and plain Python forms give the same
        arrays)."""
        self._check()
        key = (self.k1, self.b)
        if self._impact_cache is None or self._impact_cache[0] != key:
            self._impact_cache = None  # freed before the new one is built
            if build is None:
                build = _bm25_kernel.bm25_impacts_numpy
            index = self.index
            tf = index.tf
            indptr = np.zeros(index.n_terms + 1, dtype=np.int64)
            np.cumsum(index.df, out=indptr[1:])
            n = int(indptr[-1])
            docs = np.empty(n, dtype=np.uint16 if index.n_docs <= 1 << 16 else np.uint32)
            quantized = np.empty(n, dtype=np.uint16)
            scale = np.zeros(index.n_terms, dtype=np.float64)
            build(
                tf.indptr, tf.indices, tf.data, self._norm(), self._idf(), indptr, docs,
                quantized, scale,
            )  # fmt: skip
            self._impact_cache = (key, (indptr, docs, quantized, scale))
        return self._impact_cache[1]  # type: ignore[return-value]

    def _idf(self) -> np.ndarray:
        """Lucene's idf of every term (depends on the index only)."""
        if self._idf_cache is None:
            self._idf_cache = bm25_idf(self.index.df, self.index.n_docs)
        return self._idf_cache

    def _norm(self) -> np.ndarray:
        """``k1 * (1 - b + b * |d| / avgdl)`` per document (as :func:`bm25_weights` computes it)."""
        key = (self.k1, self.b)
        if self._norm_cache is None or self._norm_cache[0] != key:
            doc_len = np.asarray(self.index.doc_len, dtype=np.float64)
            norm = self.k1 * (1.0 - self.b + self.b * doc_len / max(self.index.avg_doc_len, 1e-12))
            self._norm_cache = (key, norm)
        return self._norm_cache[1]


# ---------------------------------------------------------------------------- TF-IDF
class TFIDFRanker(LexicalRanker):
    """Sublinear TF-IDF without length normalization.

    ``score(q, d) = sum_{t in q, tf(t,d) > 0} qtf(t) * (1 + ln tf(t,d)) * ln(N / df(t))``
    (Salton & Buckley, 1988, *Term-weighting approaches in automatic text retrieval*; the "ltn"
    document weighting of SMART notation).
    """

    name = "TF-IDF"

    def _posting_weights(
        self, tf: np.ndarray, doc_len: np.ndarray, term_ids: np.ndarray
    ) -> np.ndarray:
        df = self.index.df[term_ids].astype(np.float64)
        idf = np.log(self.index.n_docs / np.maximum(df, 1.0))
        return tfidf_weights(tf, idf)


# ---------------------------------------------------------------------------- QL
class QLRanker(LexicalRanker):
    """Query likelihood with Dirichlet prior smoothing (Zhai & Lafferty, SIGIR 2001).

    ``score(q, d) = sum_{t in q} w(t) * log((tf(t,d) + mu p(t|C)) / (|d| + mu))`` with
    ``p(t|C) = cf(t) / |C|`` and ``w(t)`` the query-term count (or, for RM3, the weight of the
    expanded query model). Terms absent from the collection are skipped (their p(t|C) is 0).
    """

    def __init__(self, index: CollectionIndex, mu: float = 1000.0) -> None:
        super().__init__(index)
        self.mu = mu

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"QL(mu={self.mu:g})"

    def _check(self) -> None:
        _check_number("mu", self.mu, low=0.0, strict=True)

    def _params(self) -> tuple[Any, ...]:
        return (self.mu,)

    def _p_coll(self, term_ids: np.ndarray) -> np.ndarray:
        return self.index.cf[term_ids] / max(self.index.total_terms, 1)

    def _posting_weights(
        self, tf: np.ndarray, doc_len: np.ndarray, term_ids: np.ndarray
    ) -> np.ndarray:
        return ql_weights(tf, self._p_coll(term_ids), float(self.mu))

    def _doc_offset(
        self, doc_len: np.ndarray, term_ids: np.ndarray, qw: np.ndarray
    ) -> np.ndarray | float:
        if len(term_ids) == 0:
            return 0.0
        mu = float(self.mu)
        const = float(qw @ np.log(mu * self._p_coll(term_ids)))
        return const - qw.sum() * np.log(np.asarray(doc_len, dtype=np.float64) + mu)


# ---------------------------------------------------------------------------- RM3
class RM3Ranker(QLRanker):
    """RM3 pseudo-relevance feedback over Dirichlet QL (Lavrenko & Croft, SIGIR 2001;
    Abdul-Jaleel et al., *UMass at TREC 2004*).

    1. Retrieve the top ``fb_docs`` documents of the whole collection with QL(``mu``).
    2. Relevance model ``P(w|R) ∝ sum_{d in F} P(w|d) P(q|d)`` with ``P(w|d) = tf(w,d)/|d|`` and
       ``P(q|d)`` the documents' query likelihoods (softmax over the feedback set).
    3. Keep the ``fb_terms`` most probable terms, renormalize, and interpolate with the original
       query model: ``P'(w) = orig_weight * qtf(w)/|q| + (1 - orig_weight) * P(w|R)``.
    4. Score with Dirichlet QL using ``P'(w)`` as query-term weights.

    The expansion depends on the query and the collection only (never on the candidate list), so
    a document scores the same in any candidate list, artificial documents included.
    """

    def __init__(
        self,
        index: CollectionIndex,
        fb_docs: int = 10,
        fb_terms: int = 10,
        orig_weight: float = 0.5,
        mu: float = 1000.0,
    ) -> None:
        super().__init__(index, mu=mu)
        self.fb_docs = fb_docs
        self.fb_terms = fb_terms
        self.orig_weight = orig_weight
        self._expansions: OrderedDict[str, tuple[np.ndarray, np.ndarray]] = OrderedDict()

    @property
    def name(self) -> str:  # type: ignore[override]
        return (
            f"RM3(fb_docs={self.fb_docs},fb_terms={self.fb_terms},"
            f"orig_weight={self.orig_weight:g},mu={self.mu:g})"
        )

    def _check(self) -> None:
        super()._check()
        _check_int("fb_docs", self.fb_docs, low=1)
        _check_int("fb_terms", self.fb_terms, low=1)
        _check_number("orig_weight", self.orig_weight, low=0.0, high=1.0)

    def expand(self, query: Query) -> dict[str, float]:
        """The expanded query model ``{term: weight}`` (weights sum to 1)."""
        tids, w = self._query_weights(query)
        terms = self.index.terms
        return {terms[t]: float(x) for t, x in zip(tids.tolist(), w.tolist(), strict=True)}

    def _query_weights(self, query: Query) -> tuple[np.ndarray, np.ndarray]:
        key = query.text
        hit = self._expansions.get(key)
        if hit is not None:
            self._expansions.move_to_end(key)
            return hit
        out = self._expand(query)
        self._expansions[key] = out
        if len(self._expansions) > 4096:
            self._expansions.popitem(last=False)
        return out

    def _expand(self, query: Query) -> tuple[np.ndarray, np.ndarray]:
        tids, qtf = self._query_terms(query.text)
        if len(tids) == 0:
            return tids, qtf
        # 1. feedback documents by plain QL over the original query
        ql, matched = self._scores_for(tids, qtf)
        rows, loglik = _top_k(ql, matched, int(self.fb_docs))
        if len(rows) == 0:
            return tids, qtf / qtf.sum()
        # 2. relevance model over the feedback documents
        p_q = np.exp(loglik - loglik.max())
        p_q /= p_q.sum()
        fb = self.index.tf[rows]  # CSR, |F| x V
        lens = np.maximum(self.index.doc_len[rows], 1).astype(np.float64)
        p_wd = sp.diags(p_q / lens) @ fb
        rm = np.asarray(p_wd.sum(axis=0)).ravel()
        # 3. top terms, renormalized, interpolated with the original query model
        cand = np.nonzero(rm > 0)[0]
        n_keep = min(int(self.fb_terms), len(cand))
        top = cand[np.lexsort((cand, -rm[cand]))[:n_keep]]
        rm_top = rm[top] / rm[top].sum()
        alpha = float(self.orig_weight)
        model: dict[int, float] = {}
        for t, x in zip(tids.tolist(), (alpha * qtf / qtf.sum()).tolist(), strict=True):
            model[t] = model.get(t, 0.0) + x
        for t, x in zip(top.tolist(), ((1 - alpha) * rm_top).tolist(), strict=True):
            model[t] = model.get(t, 0.0) + x
        ids = np.fromiter(model.keys(), dtype=np.int64, count=len(model))
        ws = np.fromiter(model.values(), dtype=np.float64, count=len(model))
        keep = ws > 0
        return ids[keep], ws[keep]


# ---------------------------------------------------------------------------- validation
def _check_number(
    name: str, value: Any, low: float | None = None, high: float | None = None, strict: bool = False
) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number (got {value!r} of type {type(value).__name__})")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite (got {value!r})")
    if low is not None and (value <= low if strict else value < low):
        op = ">" if strict else ">="
        raise ValueError(f"{name} must be {op} {low:g} (got {value!r})")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high:g} (got {value!r})")


def _positive_k(k: Any) -> int:
    if int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer (got {k!r})")
    return int(k)


def _check_int(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer (got {value!r} of type {type(value).__name__})")
    if value < low:
        raise ValueError(f"{name} must be >= {low} (got {value!r})")

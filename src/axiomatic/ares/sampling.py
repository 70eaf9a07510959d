"""Pseudo-query sampling of ARES (Chen et al., SIGIR 2022, section 4.1, eqs. 3-8).

For every document ``D`` of a :class:`~axiomatic.index.collection.CollectionIndex`:

* corpus distribution from document frequency (eq. 4):
  ``P(w|C) = (DF(w) + 1) / (sum_w' DF(w') + |V|)``;
* Dirichlet-smoothed document language model (eq. 3):
  ``P(w|D) = (c(w, D) + mu P(w|C)) / (|D| + mu)``;
* contrastive weight (eq. 5) ``gamma_w = -P(w|D) log P(w|C)`` and the contrastive distribution
  (eq. 6) ``P(w|contrastive) = softmax_w(gamma_w)``;
* query length ``l ~ Poisson(lambda)`` restricted to ``l >= 1`` (eq. 7, lambda = 3), drawn
  **once per document** and shared by all its pseudo queries ("we sample queries with equal
  length (so that some axioms can be directly applied without modification)", sec. 4.1): the
  pre-training pairs compare two queries of one document, so a length per query would let the
  pairs teach a length preference (count-valued axioms such as Q-STM-2/Q-STM-3 grow with length);
  then ``l`` distinct terms drawn without replacement from the contrastive distribution (eq. 8:
  a query is an unordered word set);
* ``n_queries`` (10) *distinct* pseudo queries per document.

Our choices where the paper is silent (stated, not hidden):

* **support of the softmax**: eq. 6 sums over the whole vocabulary ``V``; taken literally every
  word outside ``D`` has ``gamma_w ~ 0`` hence weight ``exp(0) = 1``, while a word of ``D`` has
  at most ``exp(gamma) ~ 1.3`` on MS MARCO passages (the extreme): with |V| ~ 10^5 more than
  99.9 % of the
  mass would fall on words the document does not contain, and the Q-RANK/REP/PROX axioms would
  be undefined for almost every query. We normalise over the terms of ``D`` (the reading that
  gives queries "representative of the document"); PROP samples from the document vocabulary too.
* ``mu`` (the paper gives no value) defaults to ``"avgdl"``: the collection's mean document
  length (non-empty documents), so the collection prior weighs as much as one average document.
  Zhai & Lafferty's ``mu ~ 1000-2000`` was tuned on ~500-word news articles (a prior of 2-4
  documents); on ~36-term MS MARCO passages ``mu = 1000`` lets the prior take 97 % of the mass
  and eq. 6 becomes near uniform over ``D``, which defeats the *contrastive* sampling the
  paper names. The measured contrast (median over documents of the largest over the smallest
  term probability, :func:`distribution_contrast`, recorded in ``params["contrast"]``):
  msmarco-20k 1.93 / 1.36 / 1.025 and SciFact 1.66 / 1.26 / 1.063 for ``mu`` = 0 / avgdl /
  1000 (``distribution_contrast(contrastive_distribution(index, mu))`` on the index of
  :func:`axiomatic.ares.pipeline.load_collection`'s corpus; the avgdl value is also in
  ``docs/ares.md``). ``mu = 0`` (the most contrast) would drop eq. 3's smoothing altogether;
* lengths above ``max_length`` (10; ``P(l > 10) = 3e-4`` for lambda = 3) or above the number of
  distinct terms of ``D`` are clipped (a document's length is clipped once, so its queries stay
  of equal length); a short document may then have fewer than ``n_queries`` distinct sets of
  its length (``C(|D|, l)``): it keeps them and is counted below;
* a document whose sampling keeps producing repeated sets is re-sampled up to ``max_rounds``
  times; documents left with fewer than ``n_queries`` distinct pseudo queries (e.g. a three-term
  document has at most 3 sets of one length) keep what they have and are *counted* in
  :class:`SamplingReport`, as are empty documents (no index term after analysis: no query).

Sampling without replacement uses the Gumbel-top-k trick (Vieira 2014; Kool et al. 2019): the
``l`` largest of ``log p_w + G_w`` (``G`` i.i.d. standard Gumbel) are an exact sample of ``l``
items without replacement proportional to ``p``. Everything is array code over all documents at
once (one lexsort over the non-zeros of the CSR matrix per round), no loop per document.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from axiomatic.index.collection import CollectionIndex

__all__ = [
    "PseudoQueries",
    "SamplingReport",
    "contrastive_distribution",
    "corpus_distribution",
    "distribution_contrast",
    "document_lm",
    "resolve_mu",
    "sample_lengths",
    "sample_pseudo_queries",
]

SAMPLING_VERSION = 3
"""Bump when the sampler changes the queries it draws for a seed (part of every cache key).
Version 2: one length per document (version 1: one per query). Version 3: ``mu`` defaults to
the mean document length (version 2: 1000)."""


# ------------------------------------------------------------------------------ distributions
def corpus_distribution(df: np.ndarray) -> np.ndarray:
    """Eq. 4: ``P(w|C) = (DF(w) + 1) / (sum DF + |V|)`` (add-one smoothed document frequency)."""
    df = np.asarray(df, dtype=np.float64)
    if df.ndim != 1:
        raise ValueError(f"df must be a 1-d array of document frequencies (got shape {df.shape})")
    if len(df) == 0:
        return df.copy()
    return (df + 1.0) / (df.sum() + len(df))


def document_lm(
    tf: sp.csr_matrix, doc_len: np.ndarray, p_c: np.ndarray, mu: float
) -> sp.csr_matrix:
    """Eq. 3 on the terms of each document: ``(c(w,D) + mu P(w|C)) / (|D| + mu)``.

    Returns a CSR matrix with the sparsity pattern of ``tf``; a term absent from ``D`` has the
    implicit value ``mu P(w|C) / (|D| + mu)`` (not stored).
    """
    if not mu >= 0:
        raise ValueError(f"the Dirichlet parameter mu must be >= 0 (got {mu!r})")
    tf = sp.csr_matrix(tf)
    rows = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
    denom = np.asarray(doc_len, dtype=np.float64)[rows] + mu
    data = (tf.data.astype(np.float64) + mu * p_c[tf.indices]) / np.where(denom > 0, denom, 1.0)
    return sp.csr_matrix((data, tf.indices.copy(), tf.indptr.copy()), shape=tf.shape)


def resolve_mu(index: CollectionIndex, mu: float | str = "avgdl") -> float:
    """The Dirichlet ``mu`` as a number: ``"avgdl"`` is the mean length of the non-empty
    documents of ``index`` (see the module docstring), a number is returned as given."""
    if isinstance(mu, str):
        if mu != "avgdl":
            raise ValueError(f"mu must be a number >= 0 or 'avgdl' (got {mu!r})")
        dl = np.asarray(index.doc_len, dtype=np.float64)
        return float(dl[dl > 0].mean()) if (dl > 0).any() else 0.0
    return float(mu)


def contrastive_distribution(index: CollectionIndex, mu: float | str = "avgdl") -> sp.csr_matrix:
    """Eqs. 5-6: ``softmax(-P(w|D) log P(w|C))`` over the terms of each document (CSR).

    Each non-empty row sums to 1 (the softmax runs over the document's own terms; see the module
    docstring for why not over the whole vocabulary). Empty rows stay empty.
    """
    p_c = corpus_distribution(index.df)
    lm = document_lm(index.tf, index.doc_len, p_c, resolve_mu(index, mu))
    gamma = -lm.data * np.log(p_c[lm.indices])
    rows = np.repeat(np.arange(lm.shape[0]), np.diff(lm.indptr))
    # a numerically stable softmax per row: subtract the row maximum first
    row_max = np.full(lm.shape[0], -np.inf)
    np.maximum.at(row_max, rows, gamma)
    e = np.exp(gamma - row_max[rows])
    z = np.bincount(rows, weights=e, minlength=lm.shape[0])
    return sp.csr_matrix((e / z[rows], lm.indices.copy(), lm.indptr.copy()), shape=lm.shape)


def distribution_contrast(P: sp.csr_matrix) -> float:
    """Median over the documents with >= 2 terms of ``max_w P(w|D) / min_w P(w|D)`` of a
    row-stochastic CSR matrix (1.0 = uniform; NaN when no document has two terms)."""
    n = np.diff(P.indptr)
    ok = n >= 2
    if not ok.any():
        return float("nan")
    rows = np.repeat(np.arange(P.shape[0]), n)
    hi = np.full(P.shape[0], -np.inf)
    lo = np.full(P.shape[0], np.inf)
    np.maximum.at(hi, rows, P.data)
    np.minimum.at(lo, rows, P.data)
    return float(np.median(hi[ok] / lo[ok]))


def sample_lengths(
    rng: np.random.Generator, size: int | tuple[int, ...], lam: float = 3.0
) -> np.ndarray:
    """Eq. 7: Poisson(``lam``) lengths conditioned on ``l >= 1`` (zeros are redrawn)."""
    if not lam > 0:
        raise ValueError(f"the Poisson length parameter lambda must be > 0 (got {lam!r})")
    out = rng.poisson(lam, size=size)
    zero = out == 0
    while zero.any():
        out[zero] = rng.poisson(lam, size=int(zero.sum()))
        zero = out == 0
    return out.astype(np.int64)


# ------------------------------------------------------------------------------ result
@dataclass(frozen=True)
class SamplingReport:
    """What the sampler could not do as asked, counted (never silently dropped)."""

    n_docs: int
    n_queries: int
    n_empty_docs: int
    """documents without any index term (no pseudo query)"""
    n_one_term_docs: int
    """documents with exactly one distinct term (one possible query)"""
    n_short_docs: int
    """non-empty documents left with fewer than ``n_per_doc`` distinct pseudo queries"""
    n_per_doc: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    def describe(self) -> str:
        return (
            f"{self.n_queries} pseudo queries for {self.n_docs} documents; skipped "
            f"{self.n_empty_docs} empty document(s); {self.n_short_docs} document(s) with fewer "
            f"than {self.n_per_doc} distinct queries ({self.n_one_term_docs} with one term only)"
        )


@dataclass(frozen=True)
class PseudoQueries:
    """Pseudo queries as flat arrays (CSR-like): query ``k`` of document row ``doc[k]`` has the
    term ids ``term_ids[offsets[k]:offsets[k+1]]`` (sorted ascending: a query is a set).

    Queries of one document are contiguous and documents appear in index row order.
    """

    doc: np.ndarray
    offsets: np.ndarray
    term_ids: np.ndarray
    report: SamplingReport
    params: dict[str, Any]

    def __len__(self) -> int:
        return len(self.doc)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def terms(self, k: int) -> np.ndarray:
        return self.term_ids[self.offsets[k] : self.offsets[k + 1]]

    def texts(self, index: CollectionIndex, surface: dict[str, str] | None = None) -> list[str]:
        """Query strings: index terms (or their ``surface`` forms) joined by spaces."""
        words = index.terms if surface is None else [surface.get(t, t) for t in index.terms]
        return [" ".join(words[t] for t in self.terms(k)) for k in range(len(self))]

    # -- persistence (Parquet; the sampling parameters and report in the schema metadata)
    def write_parquet(self, path: str | Path) -> Path:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from axiomatic._atomic import atomic_path

        terms = pa.ListArray.from_arrays(
            pa.array(self.offsets.astype(np.int32)), pa.array(self.term_ids.astype(np.int32))
        )
        table = pa.table({"doc": pa.array(self.doc.astype(np.int64)), "terms": terms})
        meta = {"params": self.params, "report": self.report.to_dict()}
        table = table.replace_schema_metadata({"ares": json.dumps(meta)})
        with atomic_path(path) as tmp:
            pq.write_table(table, tmp)
        return Path(path)

    @classmethod
    def read_parquet(cls, path: str | Path) -> PseudoQueries:
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        raw = (table.schema.metadata or {}).get(b"ares")
        if raw is None:
            raise ValueError(f"{path}: not a pseudo-query file written by ARES (no metadata)")
        meta = json.loads(raw)
        col = table.column("terms").combine_chunks()
        return cls(
            doc=table.column("doc").to_numpy().astype(np.int64),
            offsets=np.asarray(col.offsets).astype(np.int64),
            term_ids=np.asarray(col.values).astype(np.int64),
            report=SamplingReport(**meta["report"]),
            params=meta["params"],
        )


# ------------------------------------------------------------------------------ sampler
def _draw(
    P: sp.csr_matrix, rows: np.ndarray, n_draw: int, lengths: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n_draw`` samples without replacement for each row in ``rows`` (Gumbel top-k).

    Returns (doc row, draw number, term id) of every selected term, grouped by (row, draw).
    """
    sub = P[rows]
    nnz_row = np.diff(sub.indptr)
    r_local = np.repeat(np.arange(len(rows)), nnz_row)
    keys = np.log(sub.data)[:, None] + rng.gumbel(size=(sub.nnz, n_draw))
    group = r_local[:, None] * n_draw + np.arange(n_draw)[None, :]
    order = np.lexsort((-keys.ravel(), group.ravel()))
    g_sorted = group.ravel()[order]
    # rank of each term inside its (row, draw) group: groups are contiguous after the sort
    sizes = np.repeat(nnz_row, n_draw)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rank = np.arange(len(order)) - starts[g_sorted]
    keep = rank < lengths.ravel()[g_sorted]
    sel = order[keep]
    term = sub.indices[sel // n_draw]
    g = g_sorted[keep]
    return rows[g // n_draw], g % n_draw, term.astype(np.int64)


def sample_pseudo_queries(
    index: CollectionIndex,
    n_queries: int = 10,
    lam: float = 3.0,
    mu: float | str = "avgdl",
    max_length: int = 10,
    max_rounds: int = 5,
    seed: int = 0,
) -> PseudoQueries:
    """Sample ``n_queries`` distinct pseudo queries per document of ``index`` (section 4.1).

    Deterministic for a given ``seed`` and index. See the module docstring for the formulas and
    for what happens to documents that cannot give ``n_queries`` distinct queries.
    """
    for name, value, low in (("n_queries", n_queries, 1), ("max_length", max_length, 1)):
        if int(value) != value or value < low:
            raise ValueError(f"{name} must be an integer >= {low} (got {value!r})")
    if int(max_rounds) != max_rounds or max_rounds < 1:
        raise ValueError(f"max_rounds must be an integer >= 1 (got {max_rounds!r})")
    mu = resolve_mu(index, mu)
    P = contrastive_distribution(index, mu)
    n_docs = P.shape[0]
    distinct = np.diff(P.indptr)
    width = int(max_length)
    # accumulated distinct queries: doc row, draw order, padded sorted term ids
    acc_doc = np.empty(0, dtype=np.int64)
    acc_ord = np.empty(0, dtype=np.int64)
    acc_pad = np.empty((0, width), dtype=np.int64)
    need = np.flatnonzero(distinct > 0)
    have = np.zeros(n_docs, dtype=np.int64)
    # one length per document (sec. 4.1: equal-length queries), drawn for every row so that a
    # document's length does not depend on which other documents are empty; round 0 goes on
    # with the same generator
    rng = np.random.default_rng([int(seed), SAMPLING_VERSION, 0])
    doc_length = np.minimum(sample_lengths(rng, n_docs, lam), np.minimum(distinct, width))
    for rnd in range(int(max_rounds)):
        if len(need) == 0:
            break
        if rnd > 0:
            rng = np.random.default_rng([int(seed), SAMPLING_VERSION, rnd])
        lengths = np.repeat(doc_length[need][:, None], int(n_queries), axis=1)
        d, k, t = _draw(P, need, int(n_queries), lengths, rng)
        # pad each (doc, draw) set to a fixed-width sorted row so sets can be compared as rows
        grp = d * n_queries + k
        o = np.lexsort((t, grp))
        d, k, t, grp = d[o], k[o], t[o], grp[o]
        first = np.concatenate(([True], grp[1:] != grp[:-1]))
        gid = np.cumsum(first) - 1
        col = np.arange(len(t)) - np.flatnonzero(first)[gid]
        pad = np.full((int(first.sum()), width), -1, dtype=np.int64)
        pad[gid, col] = t
        new_doc = d[first]
        new_ord = rnd * n_queries + k[first]
        acc_doc = np.concatenate((acc_doc, new_doc))
        acc_ord = np.concatenate((acc_ord, new_ord))
        acc_pad = np.concatenate((acc_pad, pad))
        # drop repeated sets within a document, keeping the earliest draw
        o = np.lexsort((acc_ord, acc_doc))
        acc_doc, acc_ord, acc_pad = acc_doc[o], acc_ord[o], acc_pad[o]
        key = np.concatenate((acc_doc[:, None], acc_pad), axis=1)
        _, first_idx = np.unique(key, axis=0, return_index=True)
        keep = np.sort(first_idx)
        acc_doc, acc_ord, acc_pad = acc_doc[keep], acc_ord[keep], acc_pad[keep]
        # keep the first n_queries distinct sets of each document (by draw order)
        o = np.lexsort((acc_ord, acc_doc))
        acc_doc, acc_ord, acc_pad = acc_doc[o], acc_ord[o], acc_pad[o]
        starts = np.searchsorted(acc_doc, acc_doc, side="left")
        within = np.arange(len(acc_doc)) - starts
        keep_mask = within < n_queries
        acc_doc, acc_ord, acc_pad = acc_doc[keep_mask], acc_ord[keep_mask], acc_pad[keep_mask]
        have = np.bincount(acc_doc, minlength=n_docs)
        need = np.flatnonzero((distinct > 0) & (have < n_queries))
    lengths_out = (acc_pad >= 0).sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(lengths_out))).astype(np.int64)
    term_ids = acc_pad[acc_pad >= 0]  # row-major: each row's sorted ids, in query order
    report = SamplingReport(
        n_docs=n_docs,
        n_queries=len(acc_doc),
        n_empty_docs=int((distinct == 0).sum()),
        n_one_term_docs=int((distinct == 1).sum()),
        n_short_docs=int(((distinct > 0) & (have < n_queries)).sum()),
        n_per_doc=int(n_queries),
    )
    params = {
        "n_queries": int(n_queries),
        "lambda": float(lam),
        "mu": float(mu),
        "contrast": distribution_contrast(P),
        "max_length": width,
        "max_rounds": int(max_rounds),
        "length": "per document",
        "seed": int(seed),
        "version": SAMPLING_VERSION,
        "analyzer": index.analyzer.config_hash,
        "n_docs": n_docs,
        "n_terms": index.n_terms,
    }
    return PseudoQueries(acc_doc.astype(np.int64), offsets, term_ids, report, params)

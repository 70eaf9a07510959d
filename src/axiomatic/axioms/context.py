"""Per-query arrays shared by every axiom kernel.

:class:`QueryContext` is computed once per (query, candidate list): the analyzed query terms, the
``n_docs x |q|`` query-term count matrix, document lengths, idf and collection probabilities.
Term positions, full term vectors and term similarities are computed lazily, only when an axiom
asks for them. Documents that are not in the index (artificial duplicates, perturbed documents)
are analyzed against the index vocabulary with the same analyzer (Rennings 2019, sec. 4.1.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, eq
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex

if TYPE_CHECKING:
    from axiomatic.axioms.similarity import TermSimilarity


@dataclass
class QueryContext:
    """Arrays of one query and its candidate documents.

    Attributes
    ----------
    query: the query.
    doc_ids: candidate ids, row order of every array.
    terms: unique analyzed query terms in order of first occurrence (``|q|`` of them).
    qtf: ``c(w, q)`` per unique term, shape ``(|q|,)``.
    counts: ``c(w, d)``, shape ``(n, |q|)`` int64.
    doc_len: analyzed document length ``|d|``, shape ``(n,)`` int64.
    df, idf: document frequency and ``idf(w) = log((N + 1) / (df(w) + 0.5))`` per term
        (only the order of idf matters to the axioms: it is the reverse order of df).
    p_c: collection probability ``p(w|C) = cf(w) / |C|`` per term.
    n_collection: number of documents in the index ``N``.
    """

    query: Query
    doc_ids: list[str]
    documents: list[Document]
    index: CollectionIndex
    terms: list[str]
    qtf: np.ndarray
    term_ids: np.ndarray
    counts: np.ndarray
    doc_len: np.ndarray
    df: np.ndarray
    idf: np.ndarray
    p_c: np.ndarray
    n_collection: int
    rows: np.ndarray  # index row per doc, -1 when the document is not in the index
    similarity: TermSimilarity | None = None
    scores: np.ndarray | None = None  # base ranker scores (LB1 compares similarly scored docs)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ build
    @classmethod
    def build(
        cls,
        query: Query,
        documents: Sequence[Document],
        index: CollectionIndex,
        similarity: TermSimilarity | None = None,
        scores: Sequence[float] | np.ndarray | None = None,
    ) -> QueryContext:
        """Analyze ``query`` and count its terms in ``documents`` against ``index``.

        ``similarity`` is the term similarity of the STMC/REG axioms (default: MiniLM input
        embeddings, loaded on first use); ``scores`` are base retrieval scores, one per document
        (only LB1 needs them).

        A document whose id is in the index *and* whose text is the indexed text reuses the index
        row; any other document (artificial, perturbed) is analyzed on the fly.
        """
        docs = list(documents)
        analyzed = index.analyzer.analyze(query.text)
        uniq: dict[str, int] = {}
        for t in analyzed:
            uniq[t] = uniq.get(t, 0) + 1
        terms = list(uniq)
        qtf = np.asarray([uniq[t] for t in terms], dtype=np.int64)
        term_ids = index.term_ids(terms)
        n = len(docs)
        doc_ids = [d.doc_id for d in docs]
        rows = np.fromiter(map(index.doc_index.get, doc_ids, repeat(-1)), np.int64, count=n)
        texts = index.texts
        if texts is not None:  # the indexed text, or the document is analyzed afresh
            same = map(eq, map(texts.get, doc_ids), map(attrgetter("text"), docs))
            rows[~np.fromiter(same, bool, count=n)] = -1
        counts = np.zeros((n, len(terms)), dtype=np.int64)
        doc_len = np.zeros(n, dtype=np.int64)
        known = np.nonzero(rows >= 0)[0]
        slots = None
        if len(known):
            slots = _index_counts(index, rows, term_ids, counts)
            doc_len[known] = index.doc_len[rows[known]]
        unknown = np.nonzero(rows < 0)[0]
        extra_tf = None
        if len(unknown):
            ad = index.analyze_texts([docs[i].text for i in unknown])
            doc_len[unknown] = ad.doc_len
            ok = np.nonzero(term_ids >= 0)[0]
            if len(ok):
                counts[np.ix_(unknown, ok)] = ad.tf[:, term_ids[ok]].toarray()
            extra_tf = ad.tf
        df = np.where(term_ids >= 0, index.df[np.maximum(term_ids, 0)], 0).astype(np.int64)
        n_coll = index.n_docs
        idf = np.log((n_coll + 1.0) / (df + 0.5))
        ctx = cls(
            query=query,
            doc_ids=doc_ids,
            documents=docs,
            index=index,
            terms=terms,
            qtf=qtf,
            term_ids=term_ids,
            counts=counts,
            doc_len=doc_len,
            df=df,
            idf=idf,
            p_c=index.collection_prob(term_ids),
            n_collection=n_coll,
            rows=rows,
            similarity=similarity,
            scores=None if scores is None else np.asarray(scores, dtype=np.float64),
        )
        if ctx.scores is not None and len(ctx.scores) != n:
            raise ValueError(
                f"got {len(ctx.scores)} scores for {n} documents; pass one per document"
            )
        if extra_tf is not None:
            ctx._cache["extra_tf"] = (unknown, extra_tf)
        ctx._cache["query_tokens"] = analyzed
        if slots is not None:
            ctx._cache["query_slots"] = slots
        return ctx

    @classmethod
    def from_arrays(
        cls,
        counts: np.ndarray,
        doc_len: np.ndarray,
        idf: np.ndarray | None = None,
        qtf: np.ndarray | None = None,
        terms: Sequence[str] | None = None,
    ) -> QueryContext:
        """A context from raw arrays (tests and property checks; no index, no positions)."""
        counts = np.asarray(counts, dtype=np.int64)
        n, m = counts.shape
        terms = list(terms) if terms is not None else [f"t{k}" for k in range(m)]
        idf = np.ones(m) if idf is None else np.asarray(idf, dtype=np.float64)
        qtf = np.ones(m, dtype=np.int64) if qtf is None else np.asarray(qtf, dtype=np.int64)
        return cls(
            query=Query("q", " ".join(terms)),
            doc_ids=[f"d{i}" for i in range(n)],
            documents=[],
            index=None,  # type: ignore[arg-type]
            terms=terms,
            qtf=qtf,
            term_ids=np.arange(m),
            counts=counts,
            doc_len=np.asarray(doc_len, dtype=np.int64),
            df=np.zeros(m, dtype=np.int64),
            idf=idf,
            p_c=np.zeros(m),
            n_collection=0,
            rows=np.full(n, -1, dtype=np.int64),
        )

    # ------------------------------------------------------------------ views
    @property
    def n(self) -> int:
        return len(self.doc_len)

    @property
    def n_terms(self) -> int:
        return len(self.terms)

    @property
    def qsum(self) -> np.ndarray:
        """``sum_{w in q} c(w, d)`` per document (unique terms)."""
        if "qsum" not in self._cache:
            self._cache["qsum"] = self.counts.sum(axis=1)
        return self._cache["qsum"]

    def full_tf(self) -> sp.csr_matrix:
        """``n x V`` term counts of every candidate over the index vocabulary (lazy)."""
        if "full_tf" not in self._cache:
            if self.index is None:
                raise ValueError("full term vectors need an index; build the context with one")
            known = np.nonzero(self.rows >= 0)[0]
            blocks = [sp.csr_matrix(self.index.tf[self.rows[known]], dtype=np.int64)]
            order = [known]
            if "extra_tf" in self._cache:
                unknown, tf = self._cache["extra_tf"]
                blocks.append(sp.csr_matrix(tf, dtype=np.int64))
                order.append(np.asarray(unknown))
            stacked = sp.vstack(blocks, format="csr")
            inv = np.argsort(np.concatenate(order), kind="stable")
            mat = stacked[inv]
            self._cache["full_tf"] = sp.csr_matrix(mat)
        return self._cache["full_tf"]

    def with_scaled_copies(
        self, sources: np.ndarray, ks: np.ndarray, documents: Sequence[Document]
    ) -> QueryContext:
        """This context with ``documents`` appended as candidates: ``documents[j]`` is the
        ``ks[j]``-fold concatenation of candidate ``sources[j]``, so its counts, length and
        full term vector are that candidate's times ``ks[j]`` (exact, no re-analysis; LNC2's
        artificial documents). Base ranker scores are not carried over."""
        sources = np.asarray(sources, dtype=np.int64)
        ks = np.asarray(ks, dtype=np.int64)
        full = self.full_tf()
        extra = sp.csr_matrix(sp.diags(ks, dtype=np.int64) @ full[sources])
        new = QueryContext(
            query=self.query,
            doc_ids=self.doc_ids + [d.doc_id for d in documents],
            documents=list(self.documents) + list(documents),
            index=self.index,
            terms=self.terms,
            qtf=self.qtf,
            term_ids=self.term_ids,
            counts=np.vstack([self.counts, self.counts[sources] * ks[:, None]]),
            doc_len=np.concatenate([self.doc_len, self.doc_len[sources] * ks]),
            df=self.df,
            idf=self.idf,
            p_c=self.p_c,
            n_collection=self.n_collection,
            rows=np.concatenate([self.rows, np.full(len(sources), -1, dtype=np.int64)]),
            similarity=self.similarity,
        )
        new._cache["full_tf"] = sp.vstack([full, extra], format="csr")
        return new

    def tokens(self, i: int) -> list[str]:
        """Analyzed tokens of candidate ``i`` (lazy, cached)."""
        key = "tokens"
        if key not in self._cache:
            self._cache[key] = [None] * self.n
        cache = self._cache[key]
        if cache[i] is None:
            if self.index is None:
                raise ValueError("token access needs an index; build the context with one")
            cache[i] = self.index.analyzer.analyze(self.documents[i].text)
        return cache[i]

    def token_ids(self, i: int) -> np.ndarray:
        """Candidate ``i`` as an ``int32`` array of term ids, one per token (its positional index).

        Indexed documents come from the index's per-document cache
        (:meth:`CollectionIndex.token_ids`: analyzed once, shared by every query); other
        documents (artificial, perturbed) are analyzed here. Tokens outside the index vocabulary
        get ids ``>= V``, consistent within this context (query terms included).
        """
        cache = self._cache.setdefault("token_ids", {})
        out = cache.get(i)
        if out is None:
            if self.index is None:
                raise ValueError("token access needs an index; build the context with one")
            r = int(self.rows[i])
            if r >= 0:
                text = None if self.index.texts is not None else self.documents[i].text
                out = self.index.token_ids(r, text)
            else:
                out = np.asarray(
                    [self._term_id(t) for t in self.index.analyzer.analyze(self.documents[i].text)],
                    dtype=np.int64,
                )
            cache[i] = out
        return out

    def _term_id(self, term: str) -> int:
        """Index term id of ``term``; a context-local id ``>= V`` for terms outside the index."""
        tid = self.index.vocab.get(term)
        if tid is not None:
            return tid
        oov = self._cache.setdefault("oov_ids", {})
        return oov.setdefault(term, self.index.n_terms + len(oov))

    def query_term_ids(self) -> np.ndarray:
        """Ids (in :meth:`token_ids`'s space) of the unique query terms, in ``terms`` order."""
        return self.cache(
            "query_term_ids", lambda: np.asarray([self._term_id(t) for t in self.terms], np.int64)
        )

    def positional_table(self, min_terms: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The candidates' positional indexes concatenated: ``(tokens, qterm, offsets)``.

        ``tokens`` holds the token ids of the candidates one after the other (candidate ``i`` is
        ``tokens[offsets[i]:offsets[i + 1]]``); ``qterm`` gives, per token, the index of its
        query term in ``terms`` or -1. One vectorized lookup for the whole candidate list.

        Only candidates that can matter are analyzed: those with at least ``min_terms`` distinct
        (indexed) query terms, and with ``min_terms <= 1`` every document outside the index
        (its query terms may be outside the index vocabulary); the others are empty here.
        """

        def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            use = (self.counts > 0).sum(axis=1) >= min_terms
            if min_terms <= 1:
                use |= self.rows < 0
            empty = np.zeros(0, dtype=np.int64)
            indexed = self.index is not None and self.index.token_slots is not None
            if indexed and self.n and (self.rows[use] >= 0).all():
                # every used candidate is indexed: one gather from the index's positional index
                toks, cnt = self.index.gather_token_ids(self.rows[use])
                lens = np.zeros(self.n, dtype=np.int64)
                lens[use] = cnt
                offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
            else:
                parts = [
                    np.asarray(self.token_ids(i), dtype=np.int64) if use[i] else empty
                    for i in range(self.n)
                ]
                lens = np.asarray([len(p) for p in parts], dtype=np.int64)
                offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
                toks = np.concatenate(parts) if parts else empty
            q = self.query_term_ids()
            if len(q) == 0 or len(toks) == 0:
                return toks, np.full(len(toks), -1, dtype=np.int64), offsets
            # one lookup per token in a table over every id of this context (index vocabulary
            # plus the context's out-of-vocabulary ids): a query term's index in ``terms``, or
            # -1 (a gather instead of a binary search per token: ~10x faster)
            size = max(self.index.n_terms + len(self._cache.get("oov_ids", ())), int(q.max()) + 1)
            lut = np.full(size, -1, dtype=np.int64)
            lut[q[::-1]] = np.arange(len(q))[::-1]  # a repeated id keeps its first term
            return toks, lut[toks], offsets

        return self.cache(("positional_table", min_terms), compute)

    def query_positions(self, i: int) -> np.ndarray:
        """Per token of candidate ``i``: the index of its query term in ``terms``, -1 for a
        non-query token (a view into :meth:`positional_table`)."""
        _, qterm, offsets = self.positional_table()
        return qterm[offsets[i] : offsets[i + 1]]

    def positions_of(self, i: int) -> list[np.ndarray]:
        """Sorted positions of every query term in document ``i`` (from the positional index)."""
        qp = self.query_positions(i)
        return [np.flatnonzero(qp == k) for k in range(self.n_terms)]

    def positions(self) -> list[list[np.ndarray]]:
        """``positions()[i][t]``: sorted positions of query term ``t`` in document ``i`` (lazy)."""
        return [self.positions_of(i) for i in range(self.n)]

    def doc_term_matrix(self) -> tuple[sp.csr_matrix, list[str]]:
        """Binary ``n x |V_q|`` matrix of which distinct terms each candidate contains, and the
        candidates' joint vocabulary ``V_q`` (its column order)."""

        def compute() -> tuple[sp.csr_matrix, list[str]]:
            if self.index is not None and self.n and (self.rows >= 0).all():
                return self._doc_term_matrix_from_index()
            uniq = self.unique_terms()
            vocab = sorted({t for u in uniq for t in u})
            pos = {t: k for k, t in enumerate(vocab)}
            cols = np.asarray([pos[t] for u in uniq for t in u], dtype=np.int64)
            indptr = np.concatenate([[0], np.cumsum([len(u) for u in uniq])])
            data = np.ones(len(cols))
            return sp.csr_matrix((data, cols, indptr), shape=(self.n, len(vocab))), vocab

        return self.cache("doc_term_matrix", compute)

    def vocabulary_ids(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(uid, inv, indptr)`` of the candidates' distinct terms, from the index rows (every
        candidate indexed): ``uid`` the index term ids (ascending), ``inv`` the position in
        ``uid`` of every stored (document, term) entry (documents in order, each row's entries
        in the index's stored order), ``indptr`` each document's entries
        (``inv[indptr[i]:indptr[i + 1]]``). Integers only; cached."""

        def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            if self.index is None or not (self.rows >= 0).all():
                raise ValueError("vocabulary ids need every candidate in the index")
            tf = self.index.tf
            starts = tf.indptr[self.rows]
            cnt = tf.indptr[self.rows + 1] - starts
            offs = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            ids = tf.indices[np.repeat(starts, cnt) + offs]
            V = self.index.n_terms
            if len(ids) * 16 + 1024 >= V:  # the table is at most 16 times the entries
                # np.unique(ids, return_inverse=True) by marking the ids in a table over the
                # index vocabulary: the same (sorted) ids and positions without a sort
                seen = np.zeros(V, dtype=bool)
                seen[ids] = True
                uid = np.flatnonzero(seen)
                at = np.empty(V, dtype=np.int64)
                at[uid] = np.arange(len(uid))
                inv = at[ids]
            else:  # a vocabulary much larger than the candidates': sort the ids
                uid, inv = np.unique(ids, return_inverse=True)
                inv = np.asarray(inv, dtype=np.int64).reshape(-1)
            indptr = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int64)
            return uid, inv, indptr

        return self.cache("vocabulary_ids", compute)

    def _doc_term_matrix_from_index(self) -> tuple[sp.csr_matrix, list[str]]:
        """:meth:`doc_term_matrix` straight from the index rows (every candidate indexed): the
        same matrix (columns in the stored order of each row, vocabulary sorted) without a
        Python string per (document, term)."""
        uid, inv, indptr = self.vocabulary_ids()
        terms = self.index.terms
        names = [terms[c] for c in uid.tolist()]  # Python ints: no numpy scalar per look-up
        perm = sorted(range(len(names)), key=names.__getitem__)
        rank = np.empty(len(uid), dtype=np.int64)
        rank[perm] = np.arange(len(uid))
        cols = rank[inv]
        data = np.ones(len(cols))
        vocab = [names[k] for k in perm]
        return sp.csr_matrix((data, cols, indptr), shape=(self.n, len(vocab))), vocab

    def first_positions(self) -> np.ndarray:
        """``n x |q|`` first position of each query term (``doc_len`` when absent)."""
        if "first_pos" not in self._cache:
            pos = self.positions()
            fp = np.empty((self.n, self.n_terms), dtype=np.float64)
            for i in range(self.n):
                for k in range(self.n_terms):
                    p = pos[i][k]
                    fp[i, k] = p[0] if len(p) else self.doc_len[i]
            self._cache["first_pos"] = fp
        return self._cache["first_pos"]

    def query_tokens(self) -> list[str]:
        """The analyzed query in order, duplicates kept (phrase axioms; analyzed once)."""
        if self.index is None:
            return list(self.terms)
        return list(
            self.cache("query_tokens", lambda: self.index.analyzer.analyze(self.query.text))
        )

    def unique_terms(self) -> list[list[str]]:
        """Distinct analyzed terms of every document (from the index rows where possible;
        documents not in the index are analyzed)."""

        def compute() -> list[list[str]]:
            out: list[list[str]] = []
            terms = self.index.terms if self.index is not None else []
            tf = self.index.tf if self.index is not None else None
            for i in range(self.n):
                r = int(self.rows[i])
                if r >= 0 and tf is not None:
                    cols = tf.indices[tf.indptr[r] : tf.indptr[r + 1]]
                    out.append([terms[c] for c in cols])
                else:
                    out.append(sorted(set(self.tokens(i))))
            return out

        return self.cache("unique_terms", compute)

    def doc_vocab_sizes(self) -> np.ndarray:
        """Number of distinct terms per document."""

        def compute() -> np.ndarray:
            if self.index is not None and (self.rows >= 0).all():
                # the stored entries of each index row (what unique_terms lists), no strings
                indptr = self.index.tf.indptr
                return np.asarray(indptr[self.rows + 1] - indptr[self.rows], dtype=np.int64)
            return np.asarray([len(u) for u in self.unique_terms()], np.int64)

        return self.cache("vocab_sizes", compute)

    def term_similarity(self) -> TermSimilarity:
        """The context's term similarity (default: packaged MiniLM input embeddings)."""
        if self.similarity is None:
            from axiomatic.axioms.similarity import default_similarity

            self.similarity = default_similarity()
        return self.similarity

    def length_close(self, delta: float | None, delta_rel: float | None) -> np.ndarray:
        """``bool[n, n]``: the pairs whose lengths are within the tolerance (computed once per
        context and tolerance, shared by every axiom evaluated on this context)."""
        from axiomatic.axioms.kernels import _common

        def compute() -> np.ndarray:
            return _common.lengths_close(self.doc_len, delta, delta_rel)

        return self.cache(("length_close", delta, delta_rel), compute)

    def cache(self, key: Any, fn: Any) -> Any:
        """Memoize an expensive per-query array under ``key``."""
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]


#: index vocabularies up to which the context's counts come from the compiled row scan (its
#: look-up table has one entry per index term)
LUT_TERMS = 1 << 22


def _index_counts(
    index: CollectionIndex, rows: np.ndarray, term_ids: np.ndarray, out: np.ndarray
) -> np.ndarray | None:
    """``out[rows >= 0] = index.counts(rows[rows >= 0], term_ids)``: the query terms' counts
    of the indexed candidates, by one compiled pass over their index rows where compiled
    kernels are on (the same integers), else by the index's sparse indexing.

    Returns, from the compiled pass of an index with positions, the slot of every query term
    in each candidate's row (``int32``, ``out``'s shape, -1 where absent or not indexed): the
    proximity kernel reads a row's query terms from it (``query_slots`` in the cache); else
    None."""
    from axiomatic.axioms.kernels import _jit

    known = np.nonzero(rows >= 0)[0]
    fn = _jit.loaded_kernel("row_counts")
    tf = index.tf
    if fn is None or index.n_terms > LUT_TERMS or not (sp.issparse(tf) and tf.format == "csr"):
        out[known] = index.counts(rows[known], term_ids)
        return None
    lut = np.full(index.n_terms, -1, dtype=np.int32)
    ok = np.nonzero(term_ids >= 0)[0]
    lut[term_ids[ok]] = ok
    if index.token_slots is None:  # no positions: no proximity pass to record slots for
        fn(tf.indptr, tf.indices, tf.data, rows, lut, out, np.zeros((0, 0), np.int32))
        return None
    slots = np.full(out.shape, -1, np.int32)
    fn(tf.indptr, tf.indices, tf.data, rows, lut, out, slots)
    return slots

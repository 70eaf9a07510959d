"""Orders of a pairwise preference matrix: how ``pref[i, j]`` (``> 0``: ``i`` before ``j``,
``0``: no preference; antisymmetric) over positions ``0..n-1`` of a base ranking becomes a
ranking. Axiomatic re-ranking (:mod:`axiomatic.diagnose.rerank`) and the pairwise LLM ranker
(:mod:`axiomatic.rankers.llm`) both order their preferences here.

* ``kwiksort`` (Ailon, Charikar, Newman 2008), with seeded random pivots: documents preferred
  over the pivot go before it, those it is preferred over go after it, and pairs without a
  preference keep their base-run order. Fast, but each intransitive triple is cut wherever a
  pivot falls.
* ``bradley-terry``: the strengths ``p`` maximizing the Bradley-Terry likelihood
  ``prod P(i beats j) = p_i / (p_i + p_j)`` of the pairwise outcomes (Gienapp et al., ICTIR
  2022, aggregate sparse pairwise preferences this way), a tie counting half a win each way and
  every pair carrying a pseudo-count :data:`BT_PRIOR` of wins both ways (without it a document
  that wins every comparison has an infinite strength); fitted with Hunter's (2004) MM
  iterations. Intransitive cycles get equal strengths instead of an arbitrary cut.
* ``pagerank``: PageRank (damping :data:`PAGERANK_DAMPING`) on the graph where every loser
  links to its winner (a tie links both ways with half weight); a document that never loses
  spreads its rank uniformly.
* ``wins``: the number of comparisons won, a tie counting half (Copeland's rule; the
  all-pairs aggregation of pairwise ranking prompting, Qin et al. 2023).

Equal scores (a cycle, all ties) keep the base-run order for all four.
:func:`intransitive_share` measures how far a preference matrix is from any order: the share of
its triples that form a cycle.
"""

from __future__ import annotations

import numpy as np

from axiomatic._suggest import suggest

__all__ = [
    "BT_PRIOR",
    "ORDERS",
    "PAGERANK_DAMPING",
    "bradley_terry",
    "intransitive_share",
    "kwiksort",
    "order_by",
    "pagerank",
    "win_counts",
]

ORDERS = ("kwiksort", "bradley-terry", "pagerank", "wins")
BT_PRIOR = 0.1
"""Pseudo-count of wins each way per compared pair in the Bradley-Terry fit."""
PAGERANK_DAMPING = 0.85


def _stable_order(score: np.ndarray, decimals: int = 9) -> np.ndarray:
    """Indices by descending ``score``; scores equal to ``decimals`` keep index (base) order."""
    key = np.round(np.asarray(score, dtype=np.float64), decimals)
    return np.lexsort((np.arange(len(key)), -key)).astype(np.int64)


def _wins(pref: np.ndarray) -> np.ndarray:
    """``W[i, j]``: wins of ``i`` over ``j`` (1 for a preference, 1/2 each way for a tie)."""
    pref = np.sign(np.asarray(pref, dtype=np.float64))
    w = (pref > 0).astype(np.float64) + 0.5 * (pref == 0)
    np.fill_diagonal(w, 0.0)
    return w


def bradley_terry(
    pref: np.ndarray, prior: float = BT_PRIOR, iters: int = 10_000, tol: float = 1e-12
) -> np.ndarray:
    """Bradley-Terry strengths (``log p``, mean 0) of the outcomes in ``pref`` (see the module
    docstring): MM updates ``p_i <- W_i / sum_j n_ij / (p_i + p_j)`` until the largest change
    of ``log p`` is below ``tol``."""
    n = pref.shape[0]
    if n == 0:
        return np.zeros(0)
    w = _wins(pref) + prior * (1.0 - np.eye(n))
    n_ij = w + w.T
    wins = w.sum(axis=1)
    p = np.ones(n)
    for _ in range(iters):
        denom = (n_ij / (p[:, None] + p[None, :])).sum(axis=1)
        new = wins / denom
        new /= np.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(p))) < tol
        p = new
        if done:
            break
    logp = np.log(p)
    return logp - logp.mean()


def pagerank(pref: np.ndarray, damping: float = PAGERANK_DAMPING, tol: float = 1e-13) -> np.ndarray:
    """PageRank of the win graph of ``pref`` (losers link to winners; see the module
    docstring); sums to 1."""
    n = pref.shape[0]
    if n == 0:
        return np.zeros(0)
    links = _wins(pref).T  # links[i, j]: i links to j with the weight of j's wins over i
    out = links.sum(axis=1)
    rank = np.full(n, 1.0 / n)
    for _ in range(100_000):
        flow = np.zeros(n)
        has = out > 0
        flow += (rank[has] / out[has]) @ links[has]
        flow += rank[~has].sum() / n  # a document that never loses spreads its rank
        new = (1.0 - damping) / n + damping * flow
        if np.abs(new - rank).sum() < tol:
            rank = new
            break
        rank = new
    return rank / rank.sum()


def order_by(pref: np.ndarray, order: str = "kwiksort", seed: int = 0) -> np.ndarray:
    """Positions ``0..n-1`` (the base order) ordered by ``pref`` with ``order`` (:data:`ORDERS`)."""
    if order == "kwiksort":
        return kwiksort(pref, seed=seed)
    if order == "bradley-terry":
        return _stable_order(bradley_terry(pref))
    if order == "pagerank":
        return _stable_order(pagerank(pref), decimals=12)
    if order == "wins":
        return _stable_order(win_counts(pref))
    raise ValueError(
        f"unknown order {order!r}{suggest(order, ORDERS, n=1)}; expected one of {', '.join(ORDERS)}"
    )


def kwiksort(pref: np.ndarray, seed: int = 0) -> np.ndarray:
    """Order ``0..n-1`` (the base order) by the antisymmetric preference ``pref``.

    ``pref[i, j] > 0``: ``i`` before ``j``. Ties (``0``) keep the base order. Seeded pivots.
    """
    n = pref.shape[0]
    rng = np.random.default_rng(seed)

    def sort(items: np.ndarray) -> list[int]:
        if len(items) <= 1:
            return items.tolist()
        p = items[rng.integers(len(items))]
        rest = items[items != p]
        s = pref[rest, p]
        before = rest[(s > 0) | ((s == 0) & (rest < p))]
        after = rest[(s < 0) | ((s == 0) & (rest > p))]
        return [*sort(before), int(p), *sort(after)]

    return np.asarray(sort(np.arange(n)), dtype=np.int64)


def win_counts(pref: np.ndarray) -> np.ndarray:
    """Comparisons each position wins in ``pref`` (a tie: half a win each way)."""
    return _wins(pref).sum(axis=1)


def intransitive_share(pref: np.ndarray) -> float:
    """The share of triples ``{i, j, k}`` of ``pref`` whose strict preferences form a cycle
    (``i > j > k > i`` or the reverse); a triple with a tie is not a cycle. ``nan`` for fewer
    than three positions."""
    s = np.sign(np.asarray(pref, dtype=np.float64))
    n = s.shape[0]
    if n < 3:
        return float("nan")
    i, j, k = (a.ravel() for a in np.meshgrid(*(np.arange(n),) * 3, indexing="ij"))
    keep = (i < j) & (j < k)
    i, j, k = i[keep], j[keep], k[keep]
    a, b, c = s[i, j], s[j, k], s[k, i]
    cycle = (a != 0) & (a == b) & (b == c)
    return float(cycle.mean())

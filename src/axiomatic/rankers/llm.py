"""The pairwise LLM ranker, and the LLM rankers of spec strings.

The registry (:mod:`axiomatic.rankers.registry`) parses the specs of three families and hands
them to :func:`build_llm_ranker`:

* ``llm:PATH`` (a local causal-LM folder or a GGUF file) and ``smollm2`` (the packaged
  SmolLM2-135M-Instruct): the pointwise :class:`~axiomatic.models.llm.LLMRanker`,
  ``logit(yes) - logit(no)``;
* ``prp:PATH`` or ``prp:smollm2``: :class:`PairwiseLLMRanker` (pairwise ranking prompting,
  Qin et al. 2023).

Parameters follow the path (or the name) after a comma: ``llm:models/qwen,template=monot5``,
``smollm2:max_doc_tokens=128``, ``prp:smollm2,k=10,order=bradley-terry``; a template with
commas is quoted: ``llm:DIR,template='Query: {query}, passage: {document}. Relevant:'``
(``axiomatic rankers`` lists every parameter).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from axiomatic._progress import track
from axiomatic.data.records import Document, Query
from axiomatic.rankers.orders import ORDERS, order_by

__all__ = ["METHODS", "PairwiseLLMRanker", "build_llm_ranker"]

METHODS = ("allpairs", "sliding")
"""How the pairwise ranker spends its prompts: every pair of the top ``k`` in both orders
(``k (k - 1)`` prompts per query), or ``passes`` bubble-sort passes of a sliding window from the
bottom of the top ``k`` up (``2 passes (k - 1)`` prompts per query)."""
_BATCHES_PER_CALL = 32


class PairwiseLLMRanker:
    """Pairwise ranking prompting (Qin et al. 2023) over a candidate list.

    Every compared pair ``(i, j)`` is asked in both orders: the preference of ``i`` over ``j``
    is ``(d_ij - d_ji) / 2``, the mean of the two orders' logit differences
    (:meth:`~axiomatic.models.llm.LLMPairwiseScorer.both_orders`). Its sign orders the top
    ``k`` documents of the list as given (the first-stage order) by ``order``
    (:data:`~axiomatic.rankers.orders.ORDERS`; ``wins`` is PRP's all-pairs aggregation), with
    ``method`` :data:`METHODS` deciding which pairs are asked; documents below ``k`` keep their
    order after the head. A score encodes the final position (``n - rank``).

    After each scoring call, :attr:`last_comparisons` holds per list the ``k x k`` matrix
    ``D[i, j] = d_ij`` of the prompts asked (NaN where not asked), for intransitivity and
    position-bias measures.
    """

    can_score_unseen_documents = True

    def __init__(
        self,
        scorer: Any,
        name: str | None = None,
        k: int = 10,
        method: str = "allpairs",
        passes: int = 3,
        order: str = "wins",
        seed: int = 0,
    ) -> None:
        from axiomatic._suggest import suggest

        if int(k) < 2:
            raise ValueError(f"k must be >= 2 (got {k}): a pairwise ranker compares documents")
        if method not in METHODS:
            raise ValueError(
                f"unknown method {method!r}{suggest(str(method), METHODS, n=1)}; expected one "
                f"of {', '.join(METHODS)}"
            )
        if order not in ORDERS:
            raise ValueError(
                f"unknown order {order!r}{suggest(str(order), ORDERS, n=1)}; expected one of "
                f"{', '.join(ORDERS)}"
            )
        if int(passes) < 1:
            raise ValueError(f"passes must be >= 1 (got {passes})")
        self.scorer = scorer
        self.name = name or f"prp:{scorer.name}"
        self.k = int(k)
        self.method = method
        self.passes = int(passes)
        self.order = order
        self.seed = int(seed)
        self.last_comparisons: list[np.ndarray] = []

    def both_orders(
        self, queries: Sequence[str], docs_a: Sequence[str], docs_b: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(d_ab, d_ba)`` of text pairs (:meth:`~axiomatic.models.llm.LLMPairwiseScorer.
        both_orders`): how :func:`~axiomatic.diagnose.diagnosis.diagnose` asks a pairwise ranker
        about an axiom instance."""
        return self.scorer.both_orders(queries, docs_a, docs_b)  # type: ignore[no-any-return]

    def prompts_per_query(self, n: int) -> int:
        """Prompts spent on a list of ``n`` documents (the stated budget)."""
        m = min(self.k, n)
        if m < 2:
            return 0
        return m * (m - 1) if self.method == "allpairs" else 2 * self.passes * (m - 1)

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        if not documents:
            return np.zeros(0, dtype=np.float64)
        return self.score_lists([(query, documents)])[0]

    def score_lists(self, lists: Sequence[tuple[Query, Sequence[Document]]]) -> list[np.ndarray]:
        """Scores of several queries' lists (the prompts of all lists batched together)."""
        heads = [[d.text for d in docs[: self.k]] if len(docs) >= 2 else [] for _, docs in lists]
        queries = [q.text for q, _ in lists]
        if self.method == "allpairs":
            comparisons = self._all_pairs(queries, heads)
            positions = [
                order_by(np.sign(_preference(D)), self.order, seed=self.seed) if len(D) else D
                for D in comparisons
            ]
        else:
            positions, comparisons = self._sliding(queries, heads)
        self.last_comparisons = comparisons
        out = []
        for (_, docs), pos in zip(lists, positions, strict=True):
            n = len(docs)
            order = [*np.asarray(pos, dtype=np.int64).tolist(), *range(len(pos), n)]
            scores = np.empty(n)
            scores[np.asarray(order, dtype=np.int64)] = n - np.arange(n, dtype=np.float64)
            out.append(scores)
        return out

    def _all_pairs(self, queries: list[str], heads: list[list[str]]) -> list[np.ndarray]:
        qs, a, b, where = [], [], [], []
        for li, (q, head) in enumerate(zip(queries, heads, strict=True)):
            for i in range(len(head)):
                for j in range(len(head)):
                    if i != j:
                        qs.append(q)
                        a.append(head[i])
                        b.append(head[j])
                        where.append((li, i, j))
        # calls of a few dozen batches, between which the progress bar advances
        step = int(getattr(self.scorer, "batch_size", 16)) * _BATCHES_PER_CALL
        got = np.zeros(len(qs))
        for s in track(range(0, len(qs), step), description=f"comparing with {self.name}"):
            got[s : s + step] = self.scorer.compare(
                qs[s : s + step], a[s : s + step], b[s : s + step]
            )
        out = [np.full((len(h), len(h)), np.nan) for h in heads]
        for (li, i, j), v in zip(where, got, strict=True):
            out[li][i, j] = v
        return out

    def _sliding(
        self, queries: list[str], heads: list[list[str]]
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Bubble-sort passes from the bottom of each head up, all lists advancing together:
        the better of the pair at positions ``(p, p + 1)`` moves up."""
        current = [list(range(len(h))) for h in heads]
        comps = [np.full((len(h), len(h)), np.nan) for h in heads]
        for _ in range(self.passes):
            for step in range(max((len(h) for h in heads), default=0) - 1):
                active = [li for li, h in enumerate(heads) if len(h) - 2 - step >= 0]
                if not active:
                    continue
                pairs = []
                for li in active:
                    p = len(heads[li]) - 2 - step
                    pairs.append((li, p, current[li][p], current[li][p + 1]))
                qs = [queries[li] for li, *_ in pairs]
                upper = [heads[li][u] for li, _, u, _ in pairs]
                lower = [heads[li][w] for li, _, _, w in pairs]
                d_ul, d_lu = self.scorer.both_orders(qs, upper, lower)
                for (li, p, u, w), x, y in zip(pairs, d_ul, d_lu, strict=True):
                    comps[li][u, w], comps[li][w, u] = x, y
                    if (y - x) / 2 > 0:  # the lower document is preferred: it moves up
                        current[li][p], current[li][p + 1] = w, u
        return [np.asarray(c, dtype=np.int64) for c in current], comps

    def __repr__(self) -> str:
        return (
            f"PairwiseLLMRanker({self.name!r}, k={self.k}, method={self.method!r}, "
            f"order={self.order!r})"
        )


def _preference(D: np.ndarray) -> np.ndarray:
    """``P[i, j] = (D[i, j] - D[j, i]) / 2``: the preference of ``i`` over ``j`` from both
    orders (0 on the diagonal)."""
    P = (D - D.T) / 2
    return np.nan_to_num(P, nan=0.0)


def build_llm_ranker(kind: str, source: str, spec: str, params: dict[str, Any]) -> Any:
    """The LLM ranker of a parsed spec (the registry's ``llm``, ``smollm2`` and ``prp``
    families, :mod:`axiomatic.rankers.registry`): ``source`` a causal-LM folder, a GGUF file or
    ``smollm2``, ``spec`` the spec as written (for messages), ``params`` all of the family's
    parameters. Checks the source and the parameters; weights load on first use."""
    from axiomatic.models.llm import LLMPairwiseScorer, LLMRanker

    params = dict(params)
    if params.get("device") == "auto":
        params["device"] = None
    what = f"LLM (from ranker spec {spec!r})"
    if kind != "prp":
        return LLMRanker(source, **params, what=what)
    ranking = {key: params.pop(key) for key in ("k", "method", "passes", "order", "seed")}
    return PairwiseLLMRanker(LLMPairwiseScorer(source, **params, what=what), **ranking)

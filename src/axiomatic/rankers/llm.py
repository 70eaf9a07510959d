"""LLM rankers from spec strings, and the pairwise LLM ranker.

Specs (``make_ranker`` hands every spec whose kind is in :data:`LLM_KINDS` to
:func:`make_llm_ranker`):

* ``llm:PATH`` (a local causal-LM folder or a GGUF file) and ``smollm2`` (the packaged
  SmolLM2-135M-Instruct): the pointwise :class:`~axiomatic.models.llm.LLMRanker`,
  ``logit(yes) - logit(no)``;
* ``prp:PATH`` or ``prp:smollm2``: :class:`PairwiseLLMRanker` (pairwise ranking prompting,
  Qin et al. 2023).

Parameters follow the path (or the name) after a comma: ``llm:models/qwen,template=monot5``,
``smollm2:max_doc_tokens=128``, ``prp:smollm2,k=10,order=bradley-terry``; a template with
commas is quoted: ``llm:DIR,template='Query: {query}, passage: {document}. Relevant:'``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic.data.records import Document, Query
from axiomatic.rankers.orders import ORDERS, order_by

__all__ = ["LLM_KINDS", "METHODS", "PairwiseLLMRanker", "make_llm_ranker"]

LLM_KINDS = ("llm", "smollm2", "prp")
METHODS = ("allpairs", "sliding")
"""How the pairwise ranker spends its prompts: every pair of the top ``k`` in both orders
(``k (k - 1)`` prompts per query), or ``passes`` bubble-sort passes of a sliding window from the
bottom of the top ``k`` up (``2 passes (k - 1)`` prompts per query)."""

_COMMON = {"max_doc_tokens": 256, "batch_size": 16, "device": "auto", "bf16": None}
_POINTWISE = {"template": "auto", "yes": None, "no": None, **_COMMON}
_PAIRWISE = {
    "template": "auto",
    "first": None,
    "second": None,
    "k": 10,
    "method": "allpairs",
    "passes": 3,
    "order": "wins",
    "seed": 0,
    **_COMMON,
}
_TEXT_KEYS = ("template", "yes", "no", "first", "second", "method", "order", "device")
_EXAMPLES = {
    "llm": "llm:models/qwen3-0.6b,template=monot5",
    "smollm2": "smollm2:max_doc_tokens=128",
    "prp": "prp:smollm2,k=10,order=wins",
}


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
        got = self.scorer.compare(qs, a, b)
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


def _split(spec: str, keys: Sequence[str]) -> tuple[str, str]:
    """``PATH,key=value,...`` -> ``(PATH, "key=value,...")``: parameters start at the first
    comma followed by a known key and ``=`` (a path may hold commas)."""
    m = re.search(r",\s*(?:" + "|".join(map(re.escape, keys)) + r")\s*=", spec)
    path, rest = (spec, "") if m is None else (spec[: m.start()], spec[m.start() + 1 :])
    if not Path(path.strip()).expanduser().exists():  # a misspelt key: say so, not "no such path"
        m = re.search(r",\s*[A-Za-z_]\w*\s*=", path)
        if m is not None:
            path, rest = path[: m.start()], path[m.start() + 1 :] + ("," + rest if rest else "")
    return path, rest


def _params(kind: str, text: str, defaults: dict[str, Any], spec: str) -> dict[str, Any]:
    from axiomatic._keyvalue import as_number, parse_keyvalues
    from axiomatic._suggest import suggest

    got = parse_keyvalues(
        text,
        what=f"ranker spec {spec!r}",
        example=_EXAMPLES[kind],
        error=ValueError,
        tokens=True,
    )
    out = {}
    for key, value in got.items():
        if key not in defaults:
            raise ValueError(
                f"unknown parameter {key!r} for ranker {kind!r} in spec {spec!r}"
                f"{suggest(key, defaults, n=2)}; parameters: "
                f"{', '.join(f'{k}={v!r}' for k, v in defaults.items())}"
            )
        default = defaults[key]
        if isinstance(default, int) and not isinstance(default, bool):
            value = as_number(
                value,
                what=f"parameter {key!r} of ranker {kind!r} in spec {spec!r} (e.g. {key}={default!r})",
                integer=True,
                error=ValueError,
            )
        elif key in _TEXT_KEYS and not isinstance(value, str):
            raise ValueError(
                f"parameter {key!r} of ranker {kind!r} in spec {spec!r} must be a string "
                f"(got {value!r}); quote it"
            )
        out[key] = value
    return out


def make_llm_ranker(spec: str) -> Any:
    """The LLM ranker of ``spec`` (module docstring). Checks the source (a causal-LM folder, a
    GGUF file, or the installed ``smollm2``) and the parameters; weights load on first use."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in LLM_KINDS:
        raise ValueError(f"{spec!r} is not an LLM ranker spec ({', '.join(LLM_KINDS)})")
    defaults = _PAIRWISE if kind == "prp" else _POINTWISE
    if kind == "smollm2":
        source, text = "smollm2", rest
    else:
        source, text = _split(rest, list(defaults))
        source = source.strip()
        if not source:
            raise ValueError(
                f"ranker spec {spec!r} needs a path: '{kind}:PATH' with PATH a causal LM folder "
                f"or a .gguf file, or '{kind}:smollm2' (e.g. {_EXAMPLES[kind]!r})"
            )
    params = _params(kind, text, defaults, spec)
    common = {k: params.pop(k) for k in list(params) if k in _COMMON}
    if common.get("device") == "auto":
        common["device"] = None
    from axiomatic.models.llm import LLMPairwiseScorer, LLMRanker

    what = f"LLM (from ranker spec {spec!r})"
    if kind != "prp":
        return LLMRanker(source, **params, **common, what=what)
    scorer_keys = ("template", "first", "second")
    scorer = LLMPairwiseScorer(
        source, **{k: params.pop(k) for k in scorer_keys if k in params}, **common, what=what
    )
    return PairwiseLLMRanker(scorer, **params)

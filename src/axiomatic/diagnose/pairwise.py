"""Diagnosis of pairwise rankers (pairwise ranking prompting) directly on axiom instances.

An axiom instance is a pair of documents for a query with a prescribed order, so a pairwise
ranker (one with ``both_orders(queries, docs_a, docs_b)``, e.g.
:class:`~axiomatic.rankers.llm.PairwiseLLMRanker`) is asked about the pair itself, in both
orders, with no aggregation in between:

* ``d_ab``: its preference of the first passage shown, with ``doc_a`` shown first;
* ``d_ba``: the same with ``doc_b`` shown first;
* the preference of ``doc_a`` over ``doc_b`` is ``(d_ab - d_ba) / 2``, judged as a score
  difference by :func:`~axiomatic.diagnose.relations.evaluate_relations` (``>``: it must be
  positive, ``>=`` non-negative, ``=`` within the tie tolerance);
* **position bias**: the two orders prefer the same *position* (``sign(d_ab) ==
  sign(d_ba) != 0``), so which document wins depends on the order it was shown in;
* **both orders**: each order alone agrees with the axiom (``d_ab > 0`` and ``d_ba < 0`` for a
  strict instance).

Triple instances (TFC2) are skipped: a pairwise ranker compares two documents.
:func:`axiomatic.diagnose.diagnosis.diagnose` judges a pairwise ranker this way (its fulfilment
in the ordinary tables, the position-bias rate per axiom in ``metadata["position_bias"]``);
:func:`pairwise_table` gives all three numbers per axiom. :func:`intransitivity` reads the
comparisons of the lists a pairwise ranker last re-ranked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from axiomatic.data.records import Dataset, Document
from axiomatic.diagnose.relations import (
    DEFAULT_TIE_TOLERANCE,
    GROUP_KEYS,
    SKIPPED,
    evaluate_relations,
)

__all__ = [
    "SKIP_TRIPLE",
    "instance_preferences",
    "intransitivity",
    "is_pairwise",
    "pairwise_table",
    "position_biased",
]

SKIP_TRIPLE = "triple instance (a pairwise ranker compares two documents)"


def is_pairwise(ranker: object) -> bool:
    """Whether ``ranker`` compares two documents (has a ``both_orders`` method)."""
    return callable(getattr(ranker, "both_orders", None))


def instance_preferences(
    ranker: Any,
    instances: pd.DataFrame,
    dataset: Dataset,
    artificial_docs: Mapping[str, Document] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(d_ab, d_ba)`` of every instance (NaN for triples): all pairs asked in one batched
    call of ``ranker.both_orders`` (each distinct prompt runs once)."""
    art = artificial_docs or {}
    n = len(instances)
    d_ab = np.full(n, np.nan)
    d_ba = np.full(n, np.nan)
    pair = np.ones(n, dtype=bool)
    if "doc_c" in instances:
        pair = instances["doc_c"].isna().to_numpy()
    rows = np.flatnonzero(pair)
    if not rows.size:
        return d_ab, d_ba

    def text(doc_id: str, qid: str) -> str:
        doc = art.get(doc_id)
        if doc is None:
            try:
                doc = dataset.documents[doc_id]
            except KeyError:
                raise KeyError(
                    f"document {doc_id!r} of query {qid!r} is neither in dataset "
                    f"{dataset.name!r} nor among the artificial documents"
                ) from None
        return doc.text

    qids = instances["query_id"].astype(str).to_numpy()[rows]
    a_ids = instances["doc_a"].astype(str).to_numpy()[rows]
    b_ids = instances["doc_b"].astype(str).to_numpy()[rows]
    for q in set(qids):
        if q not in dataset.queries:
            raise KeyError(f"instance query {q!r} is not in dataset {dataset.name!r}")
    queries = [dataset.queries[q].text for q in qids]
    a = [text(d, q) for d, q in zip(a_ids, qids, strict=True)]
    b = [text(d, q) for d, q in zip(b_ids, qids, strict=True)]
    got_ab, got_ba = ranker.both_orders(queries, a, b)
    d_ab[rows] = got_ab
    d_ba[rows] = got_ba
    return d_ab, d_ba


def position_biased(d_ab: np.ndarray, d_ba: np.ndarray) -> np.ndarray:
    """Whether the two orders prefer the same position (``sign(d_ab) == sign(d_ba) != 0``);
    False where a value is NaN."""
    sa, sb = np.sign(d_ab), np.sign(d_ba)
    with np.errstate(invalid="ignore"):
        return (sa == sb) & (sa != 0)  # type: ignore[no-any-return]


def pairwise_table(
    instances: pd.DataFrame,
    d_ab: np.ndarray,
    d_ba: np.ndarray,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """Per axiom group (``axiom``, ``variant``, ``spec``) over its pair instances: ``n``,
    ``fulfilment`` (of the mean preference ``(d_ab - d_ba) / 2``), ``both_orders`` (each order
    alone agrees: the share of instances whose ``d_ab`` and ``-d_ba`` both fulfil the
    relation) and ``position_bias`` (:func:`position_biased`). Symmetric instances (relation
    ``=``, or flagged ``symmetric``) are judged as ties."""
    relation = instances["relation"].astype(str).to_numpy().astype(object)
    if "symmetric" in instances:
        sym = instances["symmetric"].fillna(False).to_numpy(dtype=bool)
        relation = np.where(sym & (relation == ">="), "=", relation).astype(object)
    zero = np.zeros(len(instances))
    pref = (d_ab - d_ba) / 2
    out = evaluate_relations(relation, pref, zero, None, tie_tolerance)
    first = evaluate_relations(relation, d_ab, zero, None, tie_tolerance)
    second = evaluate_relations(relation, -d_ba, zero, None, tie_tolerance)
    frame = instances[GROUP_KEYS].copy()
    frame["ok"] = out == 1
    frame["both"] = (first == 1) & (second == 1)
    frame["bias"] = position_biased(d_ab, d_ba)
    frame = frame[out != SKIPPED]
    table = (
        frame.groupby(GROUP_KEYS, sort=True)
        .agg(
            n=("ok", "size"),
            fulfilment=("ok", "mean"),
            both_orders=("both", "mean"),
            position_bias=("bias", "mean"),
        )
        .reset_index()
    )
    return table


def intransitivity(comparisons: list[np.ndarray]) -> tuple[float, int]:
    """``(share, triples)``: the share of intransitive triples over all lists' ``k x k``
    comparison matrices ``D`` (``PairwiseLLMRanker.last_comparisons``; preference ``(D -
    D.T) / 2``, unasked pairs no preference), pooled over lists, and the number of triples."""
    from axiomatic.rankers.orders import intransitive_share

    cyclic = 0.0
    total = 0
    for D in comparisons:
        n = len(D)
        if n < 3:
            continue
        P = np.nan_to_num((D - D.T) / 2, nan=0.0)
        t = n * (n - 1) * (n - 2) // 6
        cyclic += intransitive_share(P) * t
        total += t
    return (cyclic / total if total else float("nan")), total

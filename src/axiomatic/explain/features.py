"""Pairwise axiom features of a ranking (Völske et al. 2021, "Towards Axiomatic Explanations for
Neural Ranking Models", ICTIR).

For each query the ranker's top-``depth`` documents form all pairs; each pair is described by the
ternary preferences (+1 / 0 / -1) of every pairwise axiom, and labelled with the ranker's own
order. Why pairs are *oriented at random* (seeded): listing a pair always as (higher, lower) would
make the target constant; with a random orientation the target is balanced (a constant guess has
accuracy ~0.5) and an axiom's preference is informative only through its sign relative to the
order, which is what an explanation should capture.

Which axioms: every pairwise axiom of the catalogue except three that cannot explain a ranking
of real candidates - ``LB1`` and ``ORIG`` read the ranker's own scores (the explanation would
leak its target), and ``LNC2`` compares a document with its own k-fold concatenation (never two
different candidates). Triple axioms (``TFC2``) have no pairwise preference and are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from axiomatic.axioms import Axiom, QueryContext, list_axioms, parse_axioms
from axiomatic.data.records import Dataset, Run

T = TypeVar("T")

#: catalogue axioms never used as explanation features (see the module docstring)
EXCLUDED = {
    "LB1": "reads the ranker's own scores (the target would leak into the features)",
    "ORIG": "is the base ranking itself (the target would leak into the features)",
    "LNC2": "compares a document with its own concatenation, never two real candidates",
}


def default_axioms() -> list[str]:
    """Names of the default explanation axioms: every catalogue axiom relating two documents
    but :data:`EXCLUDED`, each in its default variant (ARES' query-pair axioms relate two
    queries: no preference between two documents)."""
    rows = list_axioms(relates="documents")
    return [a["name"] for a in rows if a["arity"] == 2 and a["name"] not in EXCLUDED]


def explanation_axioms(axioms: str | Sequence[str | Axiom] | None = None) -> list[Axiom]:
    """Parsed explanation axioms (``None``: :func:`default_axioms`). A triple axiom or one of
    :data:`EXCLUDED` is a ``ValueError`` saying why."""
    if axioms is None:
        axioms = default_axioms()
    parsed = (
        parse_axioms(axioms, relates="documents")
        if isinstance(axioms, str)
        else [
            a if isinstance(a, Axiom) else parse_axioms(a, relates="documents")[0] for a in axioms
        ]
    )
    if not parsed:
        raise ValueError("no axioms given; pass e.g. 'TFC1,M-TDC,LNC1' or None for the default")
    for a in parsed:
        if a.arity != 2:
            raise ValueError(
                f"{a.name} is a triple axiom: explanations use pairwise preferences; drop it "
                "from the axiom list"
            )
        if a.name in EXCLUDED:
            raise ValueError(f"{a.name} cannot explain a ranking: it {EXCLUDED[a.name]}")
    return parsed


def feature_names(axioms: Sequence[Axiom]) -> list[str]:
    """Column names: the axiom name when unique in the list, else its full spec."""
    names = [a.name for a in axioms]
    out = [a.name if names.count(a.name) == 1 else a.spec for a in axioms]
    if len(set(out)) != len(out):
        dup = sorted({x for x in out if out.count(x) > 1})
        raise ValueError(f"axiom(s) {dup} given twice; each feature must be distinct")
    return out


def top_ranking(run: Mapping[str, float], dataset: Dataset, depth: int) -> list[tuple[str, float]]:
    """The run's ``depth`` best (doc_id, score) whose documents the dataset has, best first
    (ties broken by document id, so the order is reproducible)."""
    have = [(d, float(s)) for d, s in run.items() if d in dataset.documents and np.isfinite(s)]
    have.sort(key=lambda x: (-x[1], x[0]))
    return have[:depth]


def _each(items: Iterable[T], after: Callable[[], object] | None) -> Iterator[T]:
    """``items``, calling ``after`` once the loop body of each item has run."""
    for item in items:
        yield item
        if after is not None:
            after()


def pair_table(
    dataset: Dataset,
    run: Run,
    axioms: Sequence[Axiom],
    index: Any,
    depth: int = 20,
    seed: int = 0,
    random_target: bool = False,
    max_pairs: int | None = None,
    on_query: Callable[[], object] | None = None,
) -> pd.DataFrame:
    """One row per (query, unordered pair of top-``depth`` documents with different scores).

    Columns: ``query_id``, ``doc_a``, ``doc_b`` (the random orientation), ``rank_a``, ``rank_b``
    (1 = best), ``rank_diff``, ``score_diff`` (``|s_a - s_b|`` over the query's top-``depth``
    score range, in ``[0, 1]``), ``target`` (1 when the ranker puts ``doc_a`` above ``doc_b``)
    and one ``int8`` column per axiom: its preference for ``doc_a`` over ``doc_b``.

    ``max_pairs``: keep a seeded uniform sample of at most this many pairs per query (deep
    lists: all pairs of a top-100 are 4,950 per query).

    ``random_target``: the same pairs, but the target comes from a seeded random permutation of
    each query's top list instead of the ranker (the random-ranking baseline).

    ``on_query``: called after each query (progress reporting).
    """
    names = feature_names(axioms)
    rng = np.random.default_rng(seed)
    parts: list[pd.DataFrame] = []
    for query in _each(dataset.iter_queries(), on_query):
        ranked = top_ranking(run.get(query.query_id, {}), dataset, depth)
        n = len(ranked)
        if n < 2:
            continue
        ids = [d for d, _ in ranked]
        scores = np.asarray([s for _, s in ranked])
        ctx = QueryContext.build(query, [dataset.documents[d] for d in ids], index)
        i, j = np.triu_indices(n, 1)
        keep = scores[i] != scores[j]
        i, j = i[keep], j[keep]
        if not len(i):
            continue
        if max_pairs is not None and len(i) > max_pairs:
            pick = np.sort(rng.choice(len(i), size=int(max_pairs), replace=False))
            i, j = i[pick], j[pick]
        flip = rng.random(len(i)) < 0.5
        a = np.where(flip, j, i)
        b = np.where(flip, i, j)
        target = ~flip  # a is the higher-ranked document
        if random_target:  # the same pairs, ordered by a seeded random ranking instead
            rank = rng.permutation(n)
            target = rank[a] < rank[b]
        span = float(scores.max() - scores.min())
        frame: dict[str, Any] = {
            "query_id": query.query_id,
            "doc_a": [ids[k] for k in a],
            "doc_b": [ids[k] for k in b],
            "rank_a": a + 1,
            "rank_b": b + 1,
            "rank_diff": np.abs(a - b),
            "score_diff": np.abs(scores[a] - scores[b]) / span if span > 0 else 0.0,
            "target": target.astype(np.int8),
        }
        for name, ax in zip(names, axioms, strict=True):
            frame[name] = ax.preferences(ctx)[a, b].astype(np.int8)
        parts.append(pd.DataFrame(frame))
    if not parts:
        raise ValueError(
            f"no pairs to explain in {dataset.name!r}: no query has two ranked documents with "
            "different scores among the dataset's documents (is the run for this dataset?)"
        )
    return pd.concat(parts, ignore_index=True)

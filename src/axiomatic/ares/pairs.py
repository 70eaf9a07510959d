"""Which way do the pre-training pairs of each ARES variant point? Agreement with each axiom.

ARES pre-trains on ordered pseudo-query pairs ``(d, q+, q-)`` (:func:`~axiomatic.ares.pretrain.
ares_pairs`); a variant named after an axiom must teach that axiom in its direction. For the
pairs of a variant and every query-pair axiom ``A`` of Table 1: *decisive* = the pairs with
``M_A[q+, q-] != 0`` (eq. 9), *agreement* = the fraction of them with ``M_A[q+, q-] = +1``, i.e.
``q+`` is the query ``A`` prefers in ``A``'s direction (Q-RANK: the query under which BM25 ranks
``d`` higher; REP: the higher length-normalized score; ...). 100 % is an axiom the variant
orders by (Q-RANK for ARES_rank), about 50 % one the order ignores, below 50 % one the pairs teach
backwards (the project measured 0 % Q-RANK agreement for ARES_rank when a predictor trained on the
Q-RANK feature ordered its pairs). A ``LENGTH`` row (prefer the longer query) shows whether the
pairs teach a length preference; with one sampled length per document it has no decisive pair.

Everything is counted over all pairs of a variant (all collections pooled); the rows are plain
dictionaries for the experiment's JSON, :func:`agreement_markdown` lays them out for the docs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from axiomatic.ares.pipeline import Prepared
    from axiomatic.axioms.query_pairs import QueryPairContext
    from axiomatic.axioms.spec import Axiom

__all__ = [
    "LENGTH",
    "agreement_markdown",
    "axiom_agreement",
    "read_pairs",
    "variant_agreement",
]

LENGTH = "LENGTH"
"""Pseudo-axiom of the agreement table: prefer the query with more (analysed) terms."""

PREFERS = {
    "Q-RANK": "d ranked higher by BM25 (smaller rank)",
    "Q-REP-QL": "higher normalized query likelihood",
    "Q-REP-TFIDF": "higher normalized TF-IDF",
    "Q-PROX-1": "terms closer together in d",
    "Q-PROX-2": "terms first occur earlier in d",
    "Q-REG": "most diverse term more frequent in d",
    "Q-STM-1": "semantically closer to d",
    "Q-STM-2": "more terms in d (Q-STM-1 close)",
    "Q-STM-3": "more terms similar to d",
    LENGTH: "longer query",
}
"""What the query an axiom prefers has (the axiom's direction, as Table 1 words it)."""


def axiom_agreement(
    ctx: QueryPairContext,
    q_pos: np.ndarray,
    q_neg: np.ndarray,
    axioms: Sequence[Axiom | str] | str = "all",
    length: bool = True,
) -> list[dict[str, Any]]:
    """One row per axiom (and :data:`LENGTH` when ``length``) for the ordered pairs
    ``(q_pos[k], q_neg[k])`` of ``ctx``: ``axiom``, ``prefers`` (its direction), ``pairs``,
    ``decisive``, ``agree`` (decisive pairs whose ``q+`` the axiom prefers) and ``agree_pct``
    (None without a decisive pair)."""
    from axiomatic.axioms.query_pairs import parse_query_pair_axioms, preference_features

    axs = parse_query_pair_axioms(axioms)
    q_pos = np.asarray(q_pos, dtype=np.int64)
    q_neg = np.asarray(q_neg, dtype=np.int64)
    X = preference_features(ctx, q_pos, q_neg, axs).astype(np.int64)
    names = [a.name for a in axs]
    if length:
        X = np.concatenate((X, np.sign(ctx.q_len[q_pos] - ctx.q_len[q_neg])[:, None]), axis=1)
        names.append(LENGTH)
    return _rows(names, len(q_pos), (X != 0).sum(axis=0), (X > 0).sum(axis=0))


def _rows(
    names: Sequence[str], n: int, decisive: np.ndarray, agree: np.ndarray
) -> list[dict[str, Any]]:
    return [
        {
            "axiom": name,
            "prefers": PREFERS.get(name, ""),
            "pairs": int(n),
            "decisive": int(dec),
            "agree": int(ag),
            "agree_pct": round(100.0 * int(ag) / int(dec), 1) if dec else None,
        }
        for name, dec, ag in zip(names, decisive, agree, strict=True)
    ]


def variant_agreement(
    prepared: Sequence[Prepared],
    pairs: Mapping[str, Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]],
    axioms: Sequence[Axiom | str] | str = "all",
    length: bool = True,
) -> list[dict[str, Any]]:
    """:func:`axiom_agreement` of every variant, pooled over the collections: ``pairs`` maps a
    variant to one ``(doc, q_pos, q_neg)`` per collection of ``prepared`` (in that order; what
    :func:`~axiomatic.ares.pretrain.ares_pairs` returns or :func:`read_pairs` reads back).
    Rows as :func:`axiom_agreement`'s with ``variant`` first."""
    out: list[dict[str, Any]] = []
    for variant, parts in pairs.items():
        if len(parts) != len(prepared):
            raise ValueError(
                f"variant {variant!r}: pairs for {len(parts)} collection(s), but "
                f"{len(prepared)} prepared collection(s) given (one (doc, q_pos, q_neg) each)"
            )
        per = [
            axiom_agreement(p.ctx, qp, qn, axioms, length)
            for p, (_d, qp, qn) in zip(prepared, parts, strict=True)
        ]
        if not per:
            continue
        names = [r["axiom"] for r in per[0]]
        n = sum(rows[0]["pairs"] for rows in per)
        dec = np.array([[r["decisive"] for r in rows] for rows in per]).sum(axis=0)
        ag = np.array([[r["agree"] for r in rows] for rows in per]).sum(axis=0)
        out += [{"variant": variant, **r} for r in _rows(names, n, dec, ag)]
    return out


def read_pairs(
    path: str | Path, n_collections: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The ``(doc, q_pos, q_neg)`` of each collection from a ``pairs.parquet`` that
    :func:`~axiomatic.ares.pretrain.pretrain_ares` wrote (column ``collection`` = position in
    its ``prepared`` list)."""
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    col = t.column("collection").to_numpy()
    cols = [t.column(c).to_numpy().astype(np.int64) for c in ("doc", "q_pos", "q_neg")]
    return [(cols[0][col == k], cols[1][col == k], cols[2][col == k]) for k in range(n_collections)]


def agreement_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """A Markdown table of :func:`variant_agreement`'s rows: one line per variant, one column
    per axiom, a cell ``agree % (decisive pairs)``; a header line says each axiom's direction."""
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    axioms = list(dict.fromkeys(r["axiom"] for r in rows))
    cell = {(r["variant"], r["axiom"]): r for r in rows}

    def fmt(r: Mapping[str, Any] | None) -> str:
        if r is None:
            return ""
        pct = "-" if r["agree_pct"] is None else f"{r['agree_pct']:.1f} %"
        return f"{pct} ({r['decisive']:,})"

    lines = [
        "| variant | pairs | " + " | ".join(axioms) + " |",
        "|---|---|" + "---|" * len(axioms),
        "| *prefers* | | " + " | ".join(PREFERS.get(a, "") for a in axioms) + " |",
    ]
    for v in variants:
        n = next(r["pairs"] for r in rows if r["variant"] == v)
        lines.append(
            f"| ARES_{v} | {n:,} | " + " | ".join(fmt(cell.get((v, a))) for a in axioms) + " |"
        )
    return "\n".join(lines)

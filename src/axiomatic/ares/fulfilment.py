"""Does ARES pre-training teach the axioms it was trained on? Query-pair fulfilment.

ARES (Chen et al., SIGIR 2022, section 4.3) pre-trains a cross-encoder to score ``(q+, d)``
above ``(q-, d)`` where the pair of pseudo queries of one document was ordered by the
query-centric axioms of Table 1 (through the preference predictor). The direct diagnosis of that
training is therefore over *query* pairs, not document pairs: for fresh pseudo-query pairs of
the pre-training corpus, how often does a model order the two queries as each axiom prefers
(``M_A[i, j]`` of eq. 9), and as the predictor does?

For every axiom ``A`` and model ``m``: fulfilment = the fraction of the pairs where ``A`` is
decisive (``M_A != 0``) on which ``sign(s_m(q_i, d) - s_m(q_j, d)) == M_A[i, j]`` (a score tie
counts as not fulfilled). Pairs are drawn with their own seed, one per sampled document; with
10 pseudo queries per document (45 pairs) and 2 training pairs per document, about 4% of them
can coincide with a pre-training pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["query_pair_fulfilment", "sample_query_pairs"]


def sample_query_pairs(
    prepared: Any, n_docs: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(doc row, i, j)``: one random pair of distinct pseudo queries for each of ``n_docs``
    documents (drawn without replacement among those with at least two pseudo queries)."""
    doc = prepared.pseudo.doc
    order = np.argsort(doc, kind="stable")
    rows, first, counts = np.unique(doc[order], return_index=True, return_counts=True)
    ok = counts >= 2
    rows, first, counts = rows[ok], first[ok], counts[ok]
    if len(rows) == 0:
        raise ValueError(
            "no document has two pseudo queries: nothing to diagnose (sample more queries)"
        )
    rng = np.random.default_rng([int(seed), 77])
    pick = np.sort(rng.choice(len(rows), size=min(int(n_docs), len(rows)), replace=False))
    a = rng.integers(0, counts[pick])
    b = rng.integers(0, counts[pick] - 1)
    b = np.where(b >= a, b + 1, b)
    return rows[pick], order[first[pick] + a], order[first[pick] + b]


def query_pair_fulfilment(
    prepared: Any,
    models: Mapping[str, Any],
    n_docs: int = 300,
    seed: int = 1,
    predictor: Any = None,
    surface: Mapping[str, str] | None = None,
    batch_size: int = 64,
) -> dict[str, Any]:
    """Fulfilment of each query-pair axiom (and of the ``predictor``'s order, when given) by
    each model in ``models`` (name -> cross-encoder) on :func:`sample_query_pairs`.

    Returns ``{"pairs", "decisive": {axiom: n}, "fulfilment": {model: {axiom: fraction}}}``
    (plain, JSON-ready)."""
    import torch

    from axiomatic.axioms.query_pairs import parse_query_pair_axioms, preference_features
    from axiomatic.data.records import Dataset, Document, Query
    from axiomatic.models.scoring import score_candidates

    d, i, j = sample_query_pairs(prepared, n_docs, seed)
    axioms = parse_query_pair_axioms("all")
    X = preference_features(prepared.ctx, i, j, axioms).astype(np.int8)
    names = [a.name for a in axioms]
    targets = {n: X[:, k] for k, n in enumerate(names)}
    if predictor is not None:
        p = predictor.predict_proba(X)
        targets["predictor (setting I)"] = np.sign(p - 0.5).astype(np.int8)
    index = prepared.index
    words = index.terms if surface is None else [surface.get(t, t) for t in index.terms]
    texts = index.texts or {}
    pq = prepared.pseudo
    queries = {
        f"pq{k}": Query(f"pq{k}", " ".join(words[t] for t in pq.terms(int(k))))
        for k in np.unique(np.concatenate((i, j))).tolist()
    }
    doc_ids = [index.doc_ids[r] for r in d.tolist()]
    ds = Dataset(
        name="ares-query-pairs",
        queries=queries,
        documents={x: Document(x, texts[x]) for x in doc_ids},
        candidates={q: [] for q in queries},
    )
    for x, a, b in zip(doc_ids, i.tolist(), j.tolist(), strict=True):
        ds.candidates[f"pq{a}"].append(x)  # type: ignore[index]
        ds.candidates[f"pq{b}"].append(x)  # type: ignore[index]
    result: dict[str, Any] = {
        "pairs": len(d),
        "decisive": {n: int(np.count_nonzero(t)) for n, t in targets.items()},
        "fulfilment": {},
    }
    for mname, model in models.items():
        model.eval()
        with torch.inference_mode():
            run = score_candidates(model, ds, batch_size=batch_size)
        si = np.array([run[f"pq{a}"][x] for a, x in zip(i.tolist(), doc_ids, strict=True)])
        sj = np.array([run[f"pq{b}"][x] for b, x in zip(j.tolist(), doc_ids, strict=True)])
        pref = np.sign(si - sj).astype(np.int8)
        result["fulfilment"][mname] = {
            n: (float(np.mean(pref[t != 0] == t[t != 0])) if np.any(t != 0) else None)
            for n, t in targets.items()
        }
    return result

"""ARES stages 1-3 throughput on one core (prints JSON).

Pseudo-query sampling (10 per document) and all nine query-centric axiom scores for a corpus
(default: the 20k-passage MS MARCO subset ``msmarco-20k``), then the eq.-9 features of every
ordered pseudo-query pair of every document (``n_docs x 10 x 10``). Reports documents/s for
sampling + scoring and pairs/s for the feature matrices, with the load average.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_ares.py --collection msmarco-20k
"""

from __future__ import annotations

import argparse
import json
import os
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collection", default="msmarco-20k")
    ap.add_argument("--data-root", default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    import numpy as np

    from axiomatic.ares.pipeline import load_collection
    from axiomatic.ares.sampling import sample_pseudo_queries
    from axiomatic.axioms.query_pairs import (
        QueryPairContext,
        document_preferences,
        minilm_term_vectors,
        parse_query_pair_axioms,
    )
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover
        pass
    coll = load_collection(args.collection, args.data_root)
    out: dict[str, object] = {"collection": args.collection, "n_docs": len(coll.documents)}
    t0 = time.perf_counter()
    index = CollectionIndex.build(coll.documents.values(), Analyzer())
    out["index_s"] = time.perf_counter() - t0
    t = time.perf_counter()
    pq = sample_pseudo_queries(index, seed=args.seed)
    out["sampling_s"] = time.perf_counter() - t
    out["sampling_report"] = pq.report.to_dict()
    t = time.perf_counter()
    vectors = minilm_term_vectors(index.terms)  # includes loading MiniLM's embedding table
    out["term_vectors_s"] = time.perf_counter() - t
    ctx = QueryPairContext(index, pq.doc, pq.offsets, pq.term_ids, term_vectors=vectors)
    per_axiom = {}
    t = time.perf_counter()
    for ax in parse_query_pair_axioms("all"):
        ta = time.perf_counter()
        ctx.scores(ax)
        per_axiom[ax.name] = time.perf_counter() - ta
    out["scores_s"] = time.perf_counter() - t
    out["scores_per_axiom_s"] = per_axiom
    rank = ctx.scores("RANK")
    out["rank_distribution"] = {
        "1": float((rank == 1).mean()),
        "2-5": float(((rank >= 2) & (rank <= 5)).mean()),
        "6-10": float(((rank >= 6) & (rank <= 10)).mean()),
        "11-50": float(((rank >= 11) & (rank <= 50)).mean()),
        ">50": float(np.isinf(rank).mean()),
    }
    t = time.perf_counter()
    n_pairs = 0
    for ax in parse_query_pair_axioms("all"):
        _docs, M = document_preferences(ctx, ax)
        n_pairs = int(M.shape[0] * M.shape[1] * (M.shape[2] - 1))
    out["features_s"] = time.perf_counter() - t
    out["ordered_pairs"] = n_pairs
    total = time.perf_counter() - t0
    out["total_s"] = total
    stages_1_2 = out["sampling_s"] + out["term_vectors_s"] + out["scores_s"]  # type: ignore[operator]
    out["docs_per_s_sampling_and_scores"] = len(coll.documents) / stages_1_2
    out["pairs_per_s_features_9_axioms"] = n_pairs / max(out["features_s"], 1e-9)  # type: ignore[arg-type]
    out["pairs_per_s_end_to_end"] = n_pairs / total
    out["load_average"] = os.getloadavg()
    out["threads"] = 1
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

"""Effectiveness of the lexical rankers by full-collection retrieval (prints JSON; not run by CI).

Usage::

    .venv/bin/python benchmarks/lexical_effectiveness.py [--datasets scifact/test cranfield vaswani]
        [--rankers bm25 ql rm3 tfidf] [--measures "nDCG@10 AP RR@10 R@100"] [--k 1000]

Every ranker retrieves the top ``k`` of the whole collection for every query (default analyzer of
the dataset: packaged stopwords + Snowball), then the run is evaluated with the dataset's qrels and
relevance threshold (judged queries missing from the run count as 0).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

DEFAULT_DATASETS = ["scifact/test", "cranfield", "vaswani"]
DEFAULT_RANKERS = ["bm25", "ql", "rm3", "tfidf"]
DEFAULT_MEASURES = "nDCG@10 AP RR@10 R@100"


def effectiveness(
    dataset_name: str, rankers: list[str], measures: str, k: int = 1000
) -> dict[str, Any]:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.evaluate.metrics import evaluate
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.registry import make_ranker

    ds = load_dataset(dataset_name)
    t0 = time.perf_counter()
    index = dataset_index(ds, cache_dir=False)
    out: dict[str, Any] = {
        "dataset": dataset_name,
        "queries": len(ds.queries),
        "documents": len(ds.documents),
        "rel_threshold": ds.rel_threshold,
        "index_s": round(time.perf_counter() - t0, 2),
        "results": {},
    }
    for spec in rankers:
        ranker = make_ranker(spec, ds, index=index)
        t0 = time.perf_counter()
        run = ranker.retrieve_run(ds.queries, k=k)  # type: ignore[attr-defined]
        elapsed = time.perf_counter() - t0
        scores = evaluate(run, ds.qrels or {}, measures, rel_threshold=ds.rel_threshold)
        out["results"][ranker.name] = {
            **{m: round(v, 4) for m, v in scores.items()},
            "retrieve_s": round(elapsed, 2),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DEFAULT_DATASETS)
    ap.add_argument("--rankers", nargs="+", default=DEFAULT_RANKERS)
    ap.add_argument("--measures", default=DEFAULT_MEASURES)
    ap.add_argument("--k", type=int, default=1000)
    args = ap.parse_args(argv)
    report = []
    for name in args.datasets:
        try:
            report.append(effectiveness(name, args.rankers, args.measures, args.k))
        except Exception as exc:  # a dataset that is not available is reported, not fatal
            report.append({"dataset": name, "error": f"{type(exc).__name__}: {exc}"})
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

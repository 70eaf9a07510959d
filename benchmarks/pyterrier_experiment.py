"""pt.Experiment next to the axiomatic diagnosis of the same systems (docs/pyterrier.md).

Three systems re-rank the BM25 top-20 of ``msmarco-dev-top20/test`` (200 MS MARCO dev queries,
canonical split) inside PyTerrier pipelines, with no Java and no Terrier index:

* ``BM25``: ``AxiomaticRanker("bm25", ds)`` as the first stage (our BM25 over the candidates);
* ``BM25 >> MODEL``: a trained neural ranker (default: the packaged all-MiniLM-L6-v2 bi-encoder,
  ``minilm``; any ``model:DIR`` saved by ``axiomatic train`` works);
* ``BM25 >> axiomatic``: ``AxiomaticReRanker`` (KwikSort, majority of TFC1, M-TDC, LNC2).

``pt.Experiment`` evaluates them with ir_measures measures (nDCG@10, RR@10, AP; paired t-tests
against BM25); :func:`axiomatic.integrations.pyterrier.diagnose_frames` diagnoses the same
three result frames. Writes ``OUT/experiment.csv``, ``OUT/diagnosis.csv``, ``OUT/summary.json``
(timings, machine, load average) and the HTML report under ``OUT/report/``.

Usage: python benchmarks/pyterrier_experiment.py [--dataset msmarco-dev-top20/test]
       [--model minilm] [--threads 1] [--out outputs/pyterrier]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default="msmarco-dev-top20/test")
    ap.add_argument("--model", default="minilm", help="ranker spec of the trained model")
    ap.add_argument("--axioms", default="TFC1,M-TDC,LNC2", help="axioms of the re-ranker")
    ap.add_argument("--diagnose-axioms", default="TFC1,TFC2,M-TDC,LNC2")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="outputs/pyterrier")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    import pyterrier as pt

    from axiomatic.data.catalog import load_dataset
    from axiomatic.integrations.pyterrier import (
        AxiomaticRanker,
        AxiomaticReRanker,
        diagnose_frames,
        measures,
        qrels_frame,
        topics_frame,
    )

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ds = load_dataset(args.dataset)
    topics, qrels = topics_frame(ds), qrels_frame(ds)
    bm25 = AxiomaticRanker("bm25", ds, depth=20)
    model = bm25 >> AxiomaticRanker(args.model, ds)
    axio = bm25 >> AxiomaticReRanker(args.axioms, ds, depth=20)
    names = ["BM25", f"BM25 >> {args.model}", "BM25 >> axiomatic"]
    systems = [bm25, model, axio]

    timings: dict[str, float] = {}
    frames = {}
    for name, system in zip(names, systems, strict=True):
        t0 = time.perf_counter()
        frames[name] = system.transform(topics)
        timings[name] = round(time.perf_counter() - t0, 2)
        print(f"{name}: {timings[name]} s", flush=True)

    t0 = time.perf_counter()
    exp = pt.Experiment(
        list(frames.values()),
        topics,
        qrels,
        measures("nDCG@10 RR@10 AP"),
        names=names,
        baseline=0,
    )
    timings["pt.Experiment"] = round(time.perf_counter() - t0, 2)
    exp.to_csv(out / "experiment.csv", index=False)
    print(exp.to_string(index=False), flush=True)

    t0 = time.perf_counter()
    res = diagnose_frames(
        frames,
        ds,
        axioms=args.diagnose_axioms,
        analyzer="thesis",
        out=out / "report",
        plots=True,
    )
    timings["diagnose_frames"] = round(time.perf_counter() - t0, 2)
    table = res.table()
    table.to_csv(out / "diagnosis.csv", index=False)
    pivot = res.pivot()
    print(pivot.round(3).to_string(), flush=True)

    summary = {
        "dataset": args.dataset,
        "queries": len(ds.queries),
        "model": args.model,
        "reranker_axioms": args.axioms,
        "diagnosis_axioms": args.diagnose_axioms,
        "experiment": exp.to_dict(orient="records"),
        "diagnosis_fraction": {
            str(k): {str(c): (None if v != v else round(float(v), 4)) for c, v in row.items()}
            for k, row in pivot.to_dict(orient="index").items()
        },
        "seconds": timings,
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "torch_threads": args.threads,
            "loadavg_at_end": os.getloadavg(),
            "python": platform.python_version(),
            "pyterrier": pt.__version__,
            "java_started": bool(getattr(pt, "java", None) and pt.java.started()),
        },
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    print(json.dumps(summary["seconds"]), flush=True)


if __name__ == "__main__":
    main()

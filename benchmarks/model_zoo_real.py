"""Every model of the zoo trains and ranks on real data: a short run per model.

Trains each model on ``msmarco-dev-top20/train`` (pairwise hinge, Adam, seeded; a 50-query dev
hold-out) for a fixed number of steps, re-ranks ``msmarco-dev-top20/test`` (200 queries x BM25
top-20) with the saved model through ``make_ranker("model:DIR")`` and prints JSON: MRR@10 / AP /
nDCG@10, train and ranking seconds. A smoke-scale check that the whole path works on real text,
not a tuned comparison (steps are few; BM25 is listed for reference).

Usage: python benchmarks/model_zoo_real.py [--steps 100] [--transformer-steps 40]
       [--models knrm conv-knrm ...] [--out outputs/zoo]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

WORD_MODELS = ["knrm", "conv-knrm", "drmm", "matchpyramid", "duet", "anmm", "arc-i", "mv-lstm"]
TRANSFORMERS = ["cross-encoder", "bi-encoder"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--transformer-steps", type=int, default=40)
    ap.add_argument("--models", nargs="*", default=WORD_MODELS + TRANSFORMERS)
    ap.add_argument("--out", default="outputs/zoo")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from axiomatic.data.catalog import load_dataset
    from axiomatic.evaluate.metrics import evaluate
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker
    from axiomatic.training import TrainConfig
    from axiomatic.training.run import train_model

    test = load_dataset("msmarco-dev-top20/test")
    measures = ["RR@10", "AP", "nDCG@10"]
    results: dict[str, object] = {}
    bm25 = rerank(make_ranker("bm25", test), test)
    results["bm25"] = evaluate(bm25, test.qrels or {}, measures, rel_threshold=test.rel_threshold)
    for name in args.models:
        is_tf = name in TRANSFORMERS
        cfg = TrainConfig(
            dataset="msmarco-dev-top20/train",
            model=name,
            model_config={"max_length": 128} if is_tf else {"embeddings": "random"},
            loss="hinge",
            lr=2e-5 if is_tf else 1e-3,
            batch_size=8 if is_tf else 16,
            steps=args.transformer_steps if is_tf else args.steps,
            eval_every=10**6,  # no dev evaluation: the last weights are used
            dev_queries=50,
            checkpoint_every=10**6,
            seed=args.seed,
        )
        out = Path(args.out) / name
        t0 = time.perf_counter()
        train_model(cfg, out, resume=False)
        t_train = time.perf_counter() - t0
        t0 = time.perf_counter()
        run = rerank(make_ranker(f"model:{out / 'model'}", test), test)
        t_rank = time.perf_counter() - t0
        res = evaluate(run, test.qrels or {}, measures, rel_threshold=test.rel_threshold)
        results[name] = {
            **res,
            "steps": cfg.steps,
            "train_s": round(t_train, 1),
            "rank_s": round(t_rank, 1),
        }
        print(json.dumps({name: results[name]}), flush=True)
    print(json.dumps({"benchmark": "model_zoo_real", "results": results}))


if __name__ == "__main__":
    main()

"""Learning curves of the MiniLM starts on msmarco-dev-top20.

How many training examples does the plain MiniLM cross-encoder / bi-encoder need before it beats
BM25 on the dev queries, and does it get there at all on the 320 training queries? Each run
trains with the one trainer (``axiomatic.training.run.train_model``), evaluates dev MRR@10 every
``--eval-every`` steps without early stopping, then scores the test split with the best dev
checkpoint. BM25 (the candidates' own order) is measured on the same dev and test queries.

    python benchmarks/learning_curve.py --models cross-encoder,bi-encoder --seeds 0 \
        --steps 300 --out outputs/learning-curve            # CPU: hours at this size
    python benchmarks/learning_curve.py --steps 3000 --seeds 0,1,2   # on a GPU

Writes ``curves.json`` (per model and seed: step, examples seen, dev MRR@10; best step; test
MRR@10 / nDCG@10) and prints a summary. The machine (device, GPU name) is recorded.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

SETTINGS = {
    "cross-encoder": {"lr": 2e-5, "model_config": {"max_length": 192}},
    "bi-encoder": {"lr": 2e-5, "model_config": {"max_length": 192}},
}


def bm25_runs(dataset):
    """The candidates' BM25 order as a run (score = minus the rank)."""
    return {
        q: {d: -float(i) for i, d in enumerate(dataset.candidates[q])}
        for q in dataset.queries
        if dataset.candidates and q in dataset.candidates
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="cross-encoder,bi-encoder")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--dataset", default="msmarco-dev-top20")
    ap.add_argument("--data-root", default=None)
    ap.add_argument("--out", default="outputs/learning-curve")
    ap.add_argument("--lr", type=float, default=None, help="Override every model's lr.")
    ap.add_argument("--summary", default=None, help="Also write curves.json here.")
    args = ap.parse_args()

    import torch

    from axiomatic.data.catalog import load_dataset
    from axiomatic.evaluate.metrics import evaluate
    from axiomatic.models.scoring import score_candidates
    from axiomatic.training.config import TrainConfig
    from axiomatic.training.run import train_model
    from axiomatic.training.samplers import split_dev

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    train_all = load_dataset(f"{args.dataset}/train", data_root=args.data_root)
    test = load_dataset(f"{args.dataset}/test", data_root=args.data_root)
    measures = ["RR@10", "nDCG@10"]
    device = "cuda" if torch.cuda.is_available() else "cpu"
    result: dict = {
        "machine": {
            "device": device,
            "gpu": torch.cuda.get_device_name(0) if device == "cuda" else None,
            "cpu": platform.processor() or platform.machine(),
            "torch": torch.__version__,
        },
        "settings": {**vars(args), "per_model": SETTINGS},
        "runs": {},
    }

    # BM25 on the dev queries of seed 0's split (split_dev depends on the seed) and on test
    def evaluate_run(run, ds):
        return evaluate(run, ds.qrels or {}, measures, ds.rel_threshold)

    def write(data: dict) -> None:
        for path in filter(None, [out / "curves.json", args.summary]):
            Path(path).write_text(json.dumps(data, indent=1))

    result["bm25"] = {"test": evaluate_run(bm25_runs(test), test)}
    for seed in [int(s) for s in args.seeds.split(",")]:
        for model in args.models.split(","):
            cfg = TrainConfig(
                dataset=f"{args.dataset}/train",
                model=model,
                loss="hinge",
                optimizer="adamw",
                weight_decay=0.01,
                batch_size=args.batch_size,
                steps=args.steps,
                eval_every=args.eval_every,
                checkpoint_every=args.steps,
                patience=0,
                dev_queries=512,
                dev_depth=20,
                seed=seed,
                **{**SETTINGS[model], **({"lr": args.lr} if args.lr else {})},
            )
            _, dev = split_dev(train_all, cfg.dev_queries, seed=seed)
            # the start itself (step 0): the trainer's first evaluation is at eval_every
            from axiomatic.models.device import choose_device
            from axiomatic.models.io import build_model

            start = build_model(model, seed=seed, **SETTINGS[model]["model_config"])
            start.to(choose_device("auto"))
            start.eval()
            zero = {
                "dev": evaluate_run(score_candidates(start, dev, depth=20), dev) if dev else None,
                "test": evaluate_run(score_candidates(start, test, depth=20), test),
            }
            del start
            run_dir = out / f"{model}-seed{seed}"
            t0 = time.perf_counter()
            res = train_model(cfg, run_dir, data_root=args.data_root, resume=False)
            seconds = time.perf_counter() - t0
            from axiomatic.models.io import load_model

            best = load_model(run_dir / "model", device=device)
            test_run = score_candidates(best, test, depth=20)
            curve = [
                {
                    "step": r["step"],
                    "examples": r["step"] * args.batch_size,
                    "dev_mrr@10": r["dev_mrr@10"],
                }
                for r in res.history
                if "dev_mrr@10" in r
            ]
            result["runs"][f"{model}/seed{seed}"] = {
                "curve": curve,
                "start": zero,
                "best_step": res.best_step,
                "best_dev": res.best_dev,
                "dev_bm25": evaluate_run(bm25_runs(dev), dev) if dev else None,
                "test": evaluate_run(test_run, test),
                "seconds": round(seconds, 1),
            }
            summary = {
                k: v for k, v in result["runs"][f"{model}/seed{seed}"].items() if k != "curve"
            }
            print(model, seed, json.dumps(summary), flush=True)
            write(result)
    write(result)
    print("bm25", json.dumps(result["bm25"]))


if __name__ == "__main__":
    main()

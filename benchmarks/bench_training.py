"""Cost of an axiomatic-regularization (AR) training step relative to a plain hinge step.

An AR step scores four documents per pair (pos, neg and one perturbation of each) in one
forward pass, so the target is <= 2.2x the plain step at the same batch size. Prints JSON.

    .venv/bin/python benchmarks/bench_training.py --models conv-knrm,cross-encoder
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time

import numpy as np


def bench(
    model_name: str,
    dataset_name: str,
    batch_size: int,
    steps: int,
    warmup: int,
    threads: int | None,
) -> dict:
    import torch

    from axiomatic.data.catalog import load_dataset
    from axiomatic.training.config import TrainConfig
    from axiomatic.training.run import build_model_for
    from axiomatic.training.samplers import with_bm25_candidates
    from axiomatic.training.trainer import Trainer

    if threads:
        torch.set_num_threads(threads)
    tr_rng = np.random.default_rng(0)
    ds = with_bm25_candidates(load_dataset(dataset_name), 30)
    texts = [d.text for d in ds.documents.values()]
    cfg_extra = {"cross-encoder": {"max_length": 128}}.get(model_name, {"max_doc_len": 128})
    out: dict = {"model": model_name, "dataset": dataset_name, "batch_size": batch_size}
    trainers = {}
    tmp = tempfile.TemporaryDirectory()
    for variant, reg in (("plain", None), ("ar", "ar(lambda=0.1, mu=0.1)")):
        cfg = TrainConfig(
            dataset=dataset_name,
            model=model_name,
            model_config=cfg_extra,
            regularizer=reg,
            batch_size=batch_size,
            steps=1,
            seed=0,
        )
        tr = Trainer(build_model_for(cfg, texts), cfg, f"{tmp.name}/{variant}", ds)
        tr._setup()
        tr.model.train()
        trainers[variant] = tr
    times: dict[str, list[float]] = {"plain": [], "ar": []}
    ratios, pert, pert_s = [], [], []
    # plain and AR steps alternate so that load changes on a shared machine hit both alike
    for step in range(1, warmup + steps + 1):
        step_times = {}
        for variant, tr in trainers.items():
            batch = tr.sampler.next_batch()
            t0 = time.perf_counter()
            loss, info = tr._step_loss(batch, step)
            tr.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            tr.optimizer.step()
            step_times[variant] = time.perf_counter() - t0
            if variant == "ar" and step > warmup:
                pert.append(info.get("perturbed", 0.0))
                # the text-side cost alone: perturbing the batch's documents
                p = tr.perturber
                t1 = time.perf_counter()
                for pair in batch:
                    q = tr.train_data.queries[pair.query_id].text
                    for d in (pair.doc_hi, pair.doc_lo):
                        p.perturb_random(q, tr._text(d), tr.perturb_axioms, tr_rng)
                pert_s.append(time.perf_counter() - t1)
        if step > warmup:
            for v, t in step_times.items():
                times[v].append(t)
            ratios.append(step_times["ar"] / step_times["plain"])
    tmp.cleanup()
    for variant, ts in times.items():
        out[f"{variant}_step_s_median"] = statistics.median(ts)
    out["ar_perturbed_docs_per_step"] = statistics.fmean(pert)
    out["ar_perturbation_text_s_median"] = statistics.median(pert_s)
    out["ar_over_plain_median_of_ratios"] = statistics.median(ratios)
    out["ar_over_plain"] = out["ar_step_s_median"] / out["plain_step_s_median"]
    out["target"] = "<= 2.2"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="conv-knrm,cross-encoder")
    ap.add_argument("--dataset", default="scifact/train")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    import torch

    results = [
        bench(m.strip(), args.dataset, args.batch_size, args.steps, args.warmup, args.threads)
        for m in args.models.split(",")
    ]
    print(
        json.dumps(
            {
                "benchmark": "training_step_ar_vs_plain",
                "machine": {
                    "cpu": platform.processor() or platform.machine(),
                    "torch_threads": torch.get_num_threads(),
                    "cuda": torch.cuda.is_available(),
                },
                "results": results,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()

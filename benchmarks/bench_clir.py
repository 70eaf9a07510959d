"""Speed of the smooth CLIR model (Liu et al.): training examples per second of the
average-pooling dual encoder with SOSL on one core, and the Table 2 wall time (measured from a
finished ``axiomatic experiment liu-smooth`` output folder, and projected for the full grid).
Prints JSON.

    .venv/bin/python benchmarks/bench_clir.py --language de --steps 60 \
        --results outputs/liu-smooth/results.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def bench(language: str, steps: int, warmup: int, batch_size: int, threads: int) -> dict:
    import torch

    from axiomatic.experiments.liu_smooth import LiuPlan, LiuSmooth
    from axiomatic.models.clir import SmoothDualEncoder
    from axiomatic.training.smooth import SOSL, graded_points

    torch.set_num_threads(threads)
    plan = LiuPlan(embeddings="minilm", shared_embeddings=True, nr_pool="split")
    runner = LiuSmooth(plan, "/tmp/bench-clir-unused")
    data = runner.data("xquad", language)
    vocab, q_emb, _ = runner.vocab_and_embeddings("xquad", language)
    torch.manual_seed(0)
    model = SmoothDualEncoder(
        vocab, embedding_dim=64, eps=1.0, shared_embeddings=True, embeddings=q_emb
    ).train()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = SOSL((0.2, 0.7))
    train = data["train"]
    pts = graded_points(train)
    gen = torch.Generator().manual_seed(0)
    order = torch.randperm(len(pts), generator=gen).tolist()

    def step(i: int) -> None:
        batch = [pts[order[(i * batch_size + j) % len(pts)]] for j in range(batch_size)]
        enc = model.encode_batch(
            [train.queries[p.query_id].text for p in batch],
            [train.documents[p.doc_hi].text for p in batch],
        )
        y = torch.tensor([int(p.label_hi) for p in batch])
        loss = loss_fn(model(**enc), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for i in range(warmup):
        step(i)
    t0 = time.perf_counter()
    for i in range(warmup, warmup + steps):
        step(i)
    secs = time.perf_counter() - t0
    return {
        "examples_per_s": round(steps * batch_size / secs, 1),
        "ms_per_step": round(1000 * secs / steps, 2),
        "batch_size": batch_size,
        "train_examples_per_epoch": len(pts),
        "vocabulary": len(vocab),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--language", default="de")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--results", type=Path, default=Path("outputs/liu-smooth/results.json"))
    args = ap.parse_args()
    import os

    import torch

    from axiomatic.experiments.units import machine

    out: dict = {
        "benchmark": "bench_clir",
        "model": "clir-dual avg pooling + tanh, smooth cosine eps=1, SOSL, Adam",
        "data": f"xquad-clir en-{args.language} train (nr_pool=split)",
        "threads": args.threads,
        "machine": machine()["cpu"],
        "cpus": os.cpu_count(),
        "load_average_1m": os.getloadavg()[0],
        "torch": torch.__version__,
    }
    out.update(bench(args.language, args.steps, args.warmup, args.batch_size, args.threads))
    # full Table 2 of configs/liu-smooth-full.toml: 11 languages x 4 losses x 3 seeds x 30 epochs
    runs, epochs = 11 * 4 * 3, 30
    out["full_table2_projected_minutes"] = round(
        runs * epochs * out["train_examples_per_epoch"] / out["examples_per_s"] / 60, 1
    )
    out["full_table2_grid"] = f"{runs} runs x {epochs} epochs (training only, one core)"
    if args.results.exists():
        res = json.loads(args.results.read_text())
        out["measured_table2_seconds"] = res.get("table2_seconds")
        out["measured_table2_plan"] = {
            k: res["plan"][k] for k in ("languages", "losses", "seeds", "epochs")
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

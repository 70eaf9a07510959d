"""ACRank vs the plain MiniLM cross-encoder at the same batch and length: training pairs/s, the
E() overhead (target <= 20% over the encoder forward+backward), peak memory, the share of a step
spent on TFC-A / TFC-D text edits (target <= 5%), and inference pairs/s. Prints JSON.

    .venv/bin/python benchmarks/bench_acrank.py --threads 1

Both models get the same batch of (query, document) sequences (queries x [positive, TFC-A
edit, TFC-D edit, negatives]); timed steps alternate between them, so that load changes hit both
alike; the overhead is the median of per-step ratios. Peak memory (max RSS) is measured in one
subprocess per model (two steps each), as RSS cannot be split inside one process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np


def _batch(n_queries: int, negatives: int, seed: int = 0) -> list:
    """``(query, relevant passage, [negative passages])`` of seeded MS MARCO queries."""
    from axiomatic.data.catalog import load_dataset

    ds = load_dataset("msmarco-dev-top20/train")
    rng = np.random.default_rng(seed)
    qids = [q for q in sorted(ds.queries) if any(g >= 1 for g in ds.judged(q).values())]
    picked = [qids[int(i)] for i in rng.choice(len(qids), size=n_queries, replace=False)]
    items = []
    for q in picked:
        judged = ds.judged(q)
        rel = next(d for d, g in judged.items() if g >= 1)
        negs = [d for d in ds.candidate_ids(q) if judged.get(d, 0) < 1][:negatives]
        items.append(
            (ds.queries[q].text, ds.documents[rel].text, [ds.documents[d].text for d in negs])
        )
    return items


def _build(kind: str, max_length: int) -> Any:
    from axiomatic.models import build_model

    if kind == "cross-encoder":
        return build_model("cross-encoder", max_length=max_length, seed=0)
    return build_model("acrank", max_length=max_length, seed=0)


def _sequences(items: list, augmenter: Any, seed: int) -> tuple[list[str], list[str], float]:
    """Texts of one ACRank step (positive, TFC-A / TFC-D edits, negatives) and the seconds
    spent on the text edits."""
    rng = np.random.default_rng(seed)
    qs: list[str] = []
    ds: list[str] = []
    edit_s = 0.0
    for q, pos, negs in items:
        t = time.perf_counter()
        aug = augmenter.augment(q, pos, rng)
        edit_s += time.perf_counter() - t
        docs = [pos] + [e.text for e in (aug.plus, aug.minus) if e is not None] + negs
        qs += [q] * len(docs)
        ds += docs
    return qs, ds, edit_s


def _step(model: Any, opt: Any, qs: list[str], ds: list[str]) -> float:
    import torch

    t = time.perf_counter()
    enc = model.encode_batch(qs, ds)
    s = model(**enc).float()
    loss = torch.logsumexp(s, 0) - s[0]  # any scalar of all scores: same backward work
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return time.perf_counter() - t


def worker(kind: str, args: argparse.Namespace) -> None:
    """Subprocess: two training steps of one model; prints its max RSS (MiB)."""
    import torch

    from axiomatic.perturb.acrank import ACRankAugmenter

    torch.set_num_threads(args.threads)
    # the batch comes from the parent (loading MS MARCO here would dominate the RSS)
    with open(args.items, encoding="utf-8") as fh:
        items = json.load(fh)
    model = _build(kind, args.max_length)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-5)
    aug = ACRankAugmenter("TFC-A&D", 1.0, max_position=args.max_length // 2)
    import threading

    def rss_mib() -> float:  # current resident set (Linux /proc)
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    before = rss_mib()
    peak = [before]
    stop = threading.Event()

    def sample() -> None:  # the step's transient activations show up only while it runs
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mib())
            time.sleep(0.005)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    for i in range(2):
        qs, ds, _ = _sequences(items, aug, i)
        _step(model, opt, qs, ds)
    stop.set()
    th.join()
    print(json.dumps({"peak_rss_mib": round(peak[0], 1), "rss_after_load_mib": round(before, 1)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=4, help="queries per step")
    ap.add_argument("--negatives", type=int, default=3)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--inference-pairs", type=int, default=160)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--items", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args)
        return
    import torch

    from axiomatic.perturb.acrank import ACRankAugmenter

    torch.set_num_threads(args.threads)
    load_start = os.getloadavg()
    items = _batch(args.queries, args.negatives)
    models = {k: _build(k, args.max_length) for k in ("cross-encoder", "acrank")}
    opts = {k: torch.optim.Adam(m.parameters(), lr=1e-5) for k, m in models.items()}
    for m in models.values():
        m.train()
    aug = ACRankAugmenter("TFC-A&D", 1.0, max_position=args.max_length // 2)
    times: dict[str, list[float]] = {k: [] for k in models}
    ratios, shares, n_seq = [], [], []
    for i in range(args.warmup + args.steps):
        qs, ds, edit_s = _sequences(items, aug, i)
        step = {}
        for k in ("cross-encoder", "acrank") if i % 2 == 0 else ("acrank", "cross-encoder"):
            torch.manual_seed(i)
            step[k] = _step(models[k], opts[k], qs, ds)
        if i >= args.warmup:
            for k, t in step.items():
                times[k].append(t)
            ratios.append(step["acrank"] / step["cross-encoder"])
            shares.append(edit_s / (edit_s + step["acrank"]))
            n_seq.append(len(qs))
    # inference: unperturbed (query, document) pairs, float32 (bf16 only where the CPU is fast)
    qs = [q for q, _, negs in items for _ in range(1 + len(negs))]
    ds = [d for _, pos, negs in items for d in (pos, *negs)]
    reps = max(1, args.inference_pairs // len(qs))
    qs, ds = qs * reps, ds * reps
    infer = {}
    for k, m in models.items():
        m.eval()
        m.score_pairs(qs[:8], ds[:8], batch_size=32)
        t = time.perf_counter()
        m.score_pairs(qs, ds, batch_size=32)
        infer[k] = len(qs) / (time.perf_counter() - t)
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as tmp:
        json.dump(items, tmp)
    memory = {}
    for k in models:
        res = subprocess.run(
            [
                sys.executable,
                __file__,
                "--worker",
                k,
                "--threads",
                str(args.threads),
                "--queries",
                str(args.queries),
                "--negatives",
                str(args.negatives),
                "--max-length",
                str(args.max_length),
                "--items",
                tmp.name,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        memory[k] = json.loads(res.stdout.strip().splitlines()[-1])
        memory[k]["training_growth_mib"] = round(
            memory[k]["peak_rss_mib"] - memory[k]["rss_after_load_mib"], 1
        )
    os.unlink(tmp.name)
    from axiomatic.models.device import bf16_supported

    seq = statistics.fmean(n_seq)
    med = {k: statistics.median(v) for k, v in times.items()}
    out = {
        "benchmark": "acrank_vs_cross_encoder",
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
            "bf16_fast": bf16_supported("cpu"),
            "load_average_start": [round(x, 2) for x in load_start],
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
        },
        "setting": {
            "queries_per_step": args.queries,
            "sequences_per_step_mean": seq,
            "max_length": args.max_length,
            "timed_steps": args.steps,
            "augmentation": "TFC-A&D, p=1.0",
        },
        "train_step_s_median": med,
        "train_pairs_per_s": {k: round(seq / v, 2) for k, v in med.items()},
        "e_overhead_median_of_ratios": round(statistics.median(ratios) - 1.0, 4),
        "e_overhead_target": "<= 0.20",
        "augmentation_time_share_median": round(statistics.median(shares), 5),
        "augmentation_target": "<= 0.05",
        "inference_pairs_per_s": {k: round(v, 2) for k, v in infer.items()},
        "peak_memory": memory,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

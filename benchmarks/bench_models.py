"""Neural model speed and memory on this machine; prints one JSON object.

* cross-encoder inference throughput (pairs/s) at 128 and 256 word pieces, float32 vs bf16
  autocast;
* per model: forward+backward(+Adam) time of one training batch and the memory of its training
  step, in float32 as ``axiomatic train`` runs it (``--bf16-steps``: transformers under bf16
  autocast instead, which the trainer does not use), each model in its own subprocess: ``baseline_rss_mb`` is the resident set after building
  the model and the batch, ``peak_rss_mb`` the process's peak (``VmHWM``, reset just before the
  steps through ``/proc/self/clear_refs`` where the kernel allows it) and
  ``train_step_extra_mb`` their difference (activations, gradients, optimizer state).

Usage::

    .venv/bin/python benchmarks/bench_models.py                 # everything (~3-5 min on 2 cores)
    .venv/bin/python benchmarks/bench_models.py --quick         # fewer pairs/steps
    .venv/bin/python benchmarks/bench_models.py --skip-throughput --models knrm conv-knrm

Texts are synthetic (seeded pseudo-words), long enough that every pair fills ``max_length``.
The machine's load average is reported: other processes sharing the CPU slow every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from typing import Any

SYLLABLES = [
    "ra",
    "no",
    "ti",
    "ke",
    "ma",
    "lo",
    "pe",
    "su",
    "di",
    "va",
    "cor",
    "pus",
    "tem",
    "ber",
    "lin",
    "gua",
    "sta",
    "tis",
    "mer",
    "gen",
    "pro",
    "tal",
    "vin",
    "dor",
    "qua",
    "ble",
    "ment",
    "ing",
]


def synthetic_texts(n: int, n_words: int, seed: int, vocab_size: int = 3000) -> list[str]:
    import numpy as np

    rng = np.random.default_rng(seed)
    lexicon = [
        "".join(rng.choice(SYLLABLES, size=int(rng.integers(1, 4)))) for _ in range(vocab_size)
    ]
    ranks = np.arange(1, vocab_size + 1)
    p = (1.0 / ranks) / (1.0 / ranks).sum()  # Zipf
    return [" ".join(rng.choice(lexicon, size=n_words, p=p)) for _ in range(n)]


def _proc_status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False where not permitted."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def load_info() -> dict[str, Any]:
    one, five, _ = os.getloadavg()
    return {"loadavg_1m": round(one, 2), "loadavg_5m": round(five, 2), "cpus": os.cpu_count()}


# --------------------------------------------------------------------------- throughput
def cross_encoder_throughput(n_pairs: int, batch_size: int, lengths: list[int]) -> list[dict]:
    import torch

    from axiomatic.models import build_model
    from axiomatic.models.device import bf16_supported

    model = build_model("cross-encoder", max_length=max(lengths), seed=0).eval()
    queries = synthetic_texts(n_pairs, 8, seed=1)
    docs = synthetic_texts(n_pairs, 300, seed=2)
    results = []
    for length in lengths:
        model.max_length = length
        for bf16 in (False, True):
            if bf16 and not bf16_supported("cpu"):
                continue
            model.score_pairs(
                queries[:batch_size], docs[:batch_size], batch_size, bf16=bf16
            )  # warm-up
            n_tokens = int(model.encode_batch(queries[:1], docs[:1])["input_ids"].shape[1])
            before = load_info()
            start = time.perf_counter()
            model.score_pairs(queries, docs, batch_size, bf16=bf16)
            secs = time.perf_counter() - start
            results.append(
                {
                    "max_length": length,
                    "tokens_per_pair": n_tokens,
                    "bf16": bf16,
                    "batch_size": batch_size,
                    "pairs": n_pairs,
                    "seconds": round(secs, 3),
                    "pairs_per_s": round(n_pairs / secs, 1),
                    "load_before": before,
                    "torch_threads": torch.get_num_threads(),
                }
            )
            print(json.dumps(results[-1]), file=sys.stderr)
    return results


# --------------------------------------------------------------------------- training steps
WORD_CONFIG: dict[str, Any] = {"embedding_dim": 128, "max_query_len": 20, "max_doc_len": 200}


def train_step_worker(
    name: str, batch_size: int, steps: int, max_length: int, bf16: bool = False
) -> dict[str, Any]:
    """Runs in a fresh subprocess: build ``name``, time ``steps`` forward+backward+Adam steps
    (float32 as the trainer runs them; ``bf16``: a transformer under bf16 autocast)."""
    import torch

    from axiomatic.models import build_model
    from axiomatic.models.device import autocast
    from axiomatic.models.io import is_word_model

    torch.manual_seed(0)
    corpus = synthetic_texts(2000, 120, seed=3)
    queries = synthetic_texts(batch_size, 8, seed=4)
    docs = synthetic_texts(batch_size, 150, seed=5)
    if is_word_model(name):
        model = build_model(name, texts=corpus, seed=0, **WORD_CONFIG)
        use_bf16 = False
    else:
        model = build_model(name, max_length=max_length, seed=0)
        use_bf16 = bf16
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    batch = model.encode_batch(queries, docs)
    model.train()
    baseline = _proc_status_mb("VmRSS")
    reset = reset_peak_rss()
    if baseline is None:  # not Linux: ru_maxrss is the best we have (kB on Linux, bytes on macOS)
        baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    for _ in range(steps + 1):  # the first step is warm-up
        start = time.perf_counter()
        with autocast("cpu", enabled=use_bf16):
            scores = model(**batch)
        loss = torch.nn.functional.softplus(-scores.float()).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - start)
    peak = _proc_status_mb("VmHWM")
    if peak is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    step_times = sorted(times[1:])
    return {
        "model": name,
        "parameters": model.num_parameters(),
        "batch_size": batch_size,
        "input_shape": {k: list(v.shape) for k, v in batch.items()},
        "bf16_autocast": use_bf16,
        "fwd_bwd_step_ms_median": round(1000 * step_times[len(step_times) // 2], 1),
        "fwd_bwd_step_ms_min": round(1000 * step_times[0], 1),
        "baseline_rss_mb": round(baseline, 1),
        "peak_rss_mb": round(peak, 1),
        "train_step_extra_mb": round(peak - baseline, 1),
        "peak_reset_before_steps": reset,
        "torch_threads": torch.get_num_threads(),
        "load_after": load_info(),
    }


def run_worker_subprocess(
    name: str,
    batch_size: int,
    steps: int,
    max_length: int,
    threads: int | None = None,
    bf16: bool = False,
) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        name,
        "--batch-size",
        str(batch_size),
        "--steps",
        str(steps),
        "--max-length",
        str(max_length),
        *(["--threads", str(threads)] if threads else []),
        *(["--bf16-steps"] if bf16 else []),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"model": name, "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from axiomatic.models import list_models

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer pairs and steps")
    parser.add_argument("--models", nargs="*", default=None, help="models for the step benchmark")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-steps", action="store_true")
    parser.add_argument("--batch-size", type=int, default=32, help="training-step batch size")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--max-length", type=int, default=128, help="transformer step length")
    parser.add_argument("--pairs", type=int, default=None, help="pairs per throughput run")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's choice)"
    )
    parser.add_argument(
        "--bf16-steps",
        action="store_true",
        help="time the transformers' training steps under bf16 autocast (the trainer runs float32)",
    )
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.worker:
        print(
            json.dumps(
                train_step_worker(
                    args.worker, args.batch_size, args.steps, args.max_length, args.bf16_steps
                )
            )
        )
        return

    import torch

    report: dict[str, Any] = {
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor(),
            "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
            **load_info(),
        }
    }
    pairs = args.pairs or (64 if args.quick else 256)
    steps = args.steps or (2 if args.quick else 5)
    if not args.skip_throughput:
        report["cross_encoder_throughput"] = cross_encoder_throughput(pairs, 32, [128, 256])
    if not args.skip_steps:
        names = args.models or list_models()
        report["train_step"] = []
        for name in names:
            res = run_worker_subprocess(
                name, args.batch_size, steps, args.max_length, args.threads, args.bf16_steps
            )
            print(json.dumps(res), file=sys.stderr)
            report["train_step"].append(res)
    report["machine"]["load_at_end"] = load_info()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

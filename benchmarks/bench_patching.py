"""The demo's activation patching, timed as a user runs it; prints one JSON document.

Runs ``axiomatic patch -d demo -r minilm --threads THREADS --out DIR`` (``--pairs`` per axiom,
the CLI's default 50: 200 minimal pairs, 113 components of the MiniLM bi-encoder) ``--runs``
times, each in its own process, and reports per run and as the median with the minimum and
maximum:

* ``wall_s``: the whole command (imports, loading the model, building the pairs, patching,
  writing the report);
* ``cpu_s``: the child's user + system CPU seconds (what other jobs on the machine do not add);
* ``patch_s``: the patching alone, as the command reports it (``timing.seconds`` in
  ``patching.json``).

``machine``: cores, processor, torch threads and the 1/5/15-minute load average before and
after. ``same_numbers``: whether every run wrote the same ``patch_pairs.csv``,
``patch_fractions.csv``, ``patch_effects.csv`` and ``patch_attention.csv`` (byte for byte) as
the first. Other processes slow the wall time; compare CPU times. Not part of CI.

With ``--floor``, what the arithmetic alone costs on this machine: one more run of the command
under PyTorch's FLOP counter (``torch.utils.flop_counter.FlopCounterMode``: the floating-point
operations of every matrix product the patching does, ``flops``), and the float32 matrix
product rate of this machine at MiniLM's linear-layer shapes (4,096 rows x 384 -> 384, 384 ->
1,536 and 1,536 -> 384, as ``torch.nn.functional.linear`` runs them with ``THREADS`` threads:
``gemm_gflops``, the medians of 7 timings of 5 products each, and ``best``); ``floor_s`` is
``flops`` at the best of those rates: the seconds the matrix products alone take, before any
softmax, GELU, norm, copy, start-up or report. A run at the same numbers cannot be faster.

With ``--baseline-src DIR`` (another checkout's ``src``, e.g. the main branch's) the runs
alternate between that code and this one (the baseline first); ``baseline`` holds its figures,
``cpu_ratio`` the median of the per-pair ratios baseline CPU / ours, and ``same_as_baseline``
whether both wrote the same tables byte for byte.

    python benchmarks/bench_patching.py --runs 3             # the demo (minutes a run)
    python benchmarks/bench_patching.py --runs 1 --pairs 2   # a check
    python benchmarks/bench_patching.py --runs 3 --baseline-src ../main/src
    python benchmarks/bench_patching.py --runs 3 --threads 2 --floor
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TABLES = ("patch_pairs.csv", "patch_fractions.csv", "patch_effects.csv", "patch_attention.csv")


def one_run(out: Path, pairs: int | None, threads: int, src: Path) -> dict[str, Any]:
    """One ``axiomatic patch`` of the demo in its own process, into ``out``, with the package
    from ``src``."""
    cmd = [sys.executable, "-m", "axiomatic.cli.main", "patch", "-d", "demo", "-r", "minilm",
           "--threads", str(threads), "--out", str(out)]  # fmt: skip
    if pairs is not None:
        cmd += ["--pairs", str(pairs)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]),
    }
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(
            f"error: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-1000:]}"
        )
    report = json.loads((out / "patching.json").read_text(encoding="utf-8"))
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round((cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime), 2),
        "patch_s": round(float(report["models"][0]["timing"]["seconds"]), 2),
        "pairs": int(report["pairs"]),
    }


#: counts the demo's floating-point operations: the command in-process under the FLOP counter
_COUNT = """
import json, sys
import torch
from torch.utils.flop_counter import FlopCounterMode
from axiomatic.cli.main import app
counter = FlopCounterMode(display=False)
with counter:
    try:
        app(sys.argv[1:], standalone_mode=False)
    except SystemExit:
        pass
print(json.dumps({"flops": counter.get_total_flops(), "by_op": {
    str(k): v for k, v in counter.get_flop_counts().get("Global", {}).items()}}))
"""

#: MiniLM-L6's linear layers: hidden 384, feed-forward 1,536 (rows: word pieces of a batch)
_SHAPES = ((4096, 384, 384), (4096, 384, 1536), (4096, 1536, 384))


def gemm_rates(threads: int) -> dict[str, float]:
    """Float32 GFLOP/s of ``torch.nn.functional.linear`` at :data:`_SHAPES` with ``threads``
    torch threads: medians of 7 timings of 5 products each, after 3 warm-up products."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    rates: dict[str, float] = {}
    try:
        with torch.inference_mode():
            for m, k, n in _SHAPES:
                x = torch.randn(m, k, generator=gen)
                w = torch.randn(n, k, generator=gen)
                b = torch.randn(n, generator=gen)
                for _ in range(3):
                    torch.nn.functional.linear(x, w, b)
                times = []
                for _ in range(7):
                    t0 = time.perf_counter()
                    for _ in range(5):
                        torch.nn.functional.linear(x, w, b)
                    times.append((time.perf_counter() - t0) / 5)
                rates[f"{m}x{k}->{n}"] = round(2 * m * k * n / statistics.median(times) / 1e9, 1)
    finally:
        torch.set_num_threads(before)
    return rates


def floor(pairs: int | None, threads: int, src: Path) -> dict[str, Any]:
    """The demo's FLOPs (one counted run of the command) and the matrix products' floor at this
    machine's best float32 rate (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="bench_patching_floor_") as tmp:
        argv = ["patch", "-d", "demo", "-r", "minilm", "--threads", str(threads), "--out", tmp]
        if pairs is not None:
            argv += ["--pairs", str(pairs)]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]),
        }
        proc = subprocess.run(
            [sys.executable, "-c", _COUNT, *argv], capture_output=True, text=True, env=env
        )
    if proc.returncode != 0:
        raise SystemExit(
            f"error: the counted run failed ({proc.returncode}): {proc.stderr[-1000:]}"
        )
    counted = json.loads(proc.stdout.strip().splitlines()[-1])
    rates = gemm_rates(threads)
    best = max(rates.values())
    return {
        "flops": counted["flops"],
        "by_op": counted["by_op"],
        "threads": threads,
        "gemm_gflops": rates,
        "best_gflops": best,
        "floor_s": round(counted["flops"] / (best * 1e9), 1),
    }


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": min(values), "max": max(values)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="Runs of the command (default 3).")
    ap.add_argument("--pairs", type=int, default=None, help="Pairs per axiom (default: the CLI's).")
    ap.add_argument("--threads", type=int, default=1, help="Torch threads (default 1).")
    ap.add_argument(
        "--baseline-src", type=Path, default=None, help="Another checkout's src to alternate with."
    )
    ap.add_argument(
        "--floor",
        action="store_true",
        help="Also count the demo's FLOPs and time this machine's float32 matrix products.",
    )
    args = ap.parse_args(argv)
    if args.runs < 1 or args.threads < 1 or (args.pairs is not None and args.pairs < 1):
        print("error: --runs, --threads and --pairs must be >= 1", file=sys.stderr)
        return 2
    if args.baseline_src is not None and not (args.baseline_src / "axiomatic").is_dir():
        print(f"error: --baseline-src {args.baseline_src}: no axiomatic package there; give a "
              "checkout's src folder", file=sys.stderr)  # fmt: skip
        return 2
    load_before = [round(x, 2) for x in os.getloadavg()]
    sources = {"ours": REPO / "src"}
    if args.baseline_src is not None:
        sources = {"baseline": args.baseline_src.resolve(), **sources}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sources}
    tables: dict[str, list[dict[str, bytes]]] = {name: [] for name in sources}
    with tempfile.TemporaryDirectory(prefix="bench_patching_") as tmp:
        for i in range(args.runs):
            for name, src in sources.items():
                out = Path(tmp) / f"{name}{i}"
                runs[name].append(one_run(out, args.pairs, args.threads, src))
                tables[name].append({t: (out / t).read_bytes() for t in TABLES})

    def figures(name: str) -> dict[str, Any]:
        rs = runs[name]
        return {
            "runs": rs,
            "wall_s": spread([r["wall_s"] for r in rs]),
            "cpu_s": spread([r["cpu_s"] for r in rs]),
            "patch_s": spread([r["patch_s"] for r in rs]),
            "same_numbers": all(t == tables[name][0] for t in tables[name]),
            "src": str(sources[name]),
        }

    result: dict[str, Any] = {
        "command": "axiomatic patch -d demo -r minilm --threads "
        f"{args.threads}" + (f" --pairs {args.pairs}" if args.pairs else ""),
        "pairs": runs["ours"][0]["pairs"],
        **figures("ours"),
    }
    if "baseline" in sources:
        result["baseline"] = figures("baseline")
        ratios = [
            b["cpu_s"] / o["cpu_s"] for b, o in zip(runs["baseline"], runs["ours"], strict=True)
        ]
        result["cpu_ratio"] = spread([round(r, 3) for r in ratios])
        result["same_as_baseline"] = tables["baseline"][0] == tables["ours"][0]
    if args.floor:
        result["floor"] = floor(args.pairs, args.threads, sources["ours"])
    result["machine"] = {
        "cpu_count": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "threads": args.threads,
        "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

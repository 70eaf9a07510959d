"""Run the speed benchmarks and print one JSON document with their results, peers beside ours.

Usage::

    python benchmarks/run.py            # the speed figures README and docs quote (below)
    python benchmarks/run.py --quick    # the same with fewer runs and smaller inputs (a check)
    python benchmarks/run.py --all      # also every other bench_*.py script (hours)
    python benchmarks/run.py NAME ...   # only these (bm25, axioms-compare, axioms-mine, ...)

The default set is the speed comparison with the peer libraries: BM25 against bm25s (both
backends), the axiom engine against ir_axioms 1.2.5 and its mining throughput, neural diagnosis
against one batched pass over the texts it needs and the packaged bi-encoder against
sentence-transformers' ``encode``. Each benchmark runs in its own process, one after the other
(never side by side), and reports medians of alternating runs with their spread; the machine
(cores, load average before and after) is recorded here. Timings are only meaningful on an
otherwise idle machine. Not part of CI.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: name -> (script, arguments): the speed figures (issue 27), full and quick
SPEED: dict[str, tuple[str, list[str], list[str]]] = {
    "bm25": (
        "bench_bm25.py",
        ["--runs", "5"],
        ["--runs", "1", "--docs", "20000", "--queries", "200"],
    ),
    "axioms-compare": (
        "bench_axioms.py",
        ["compare", "--sizes", "100", "1000", "--runs", "3"],
        ["compare", "--sizes", "100", "--runs", "1"],
    ),
    "axioms-mine": (
        "bench_axioms.py",
        ["mine", "--synthetic-queries", "1000"],
        ["mine", "--synthetic-queries", "20"],
    ),
    "neural-diagnosis": (
        "bench_neural_diagnosis.py",
        ["--queries", "2", "--threads", "1", "--rounds", "3", "--repeats", "3"],
        ["--queries", "1", "--threads", "1", "--rounds", "1", "--skip-encode"],
    ),
}


def _parse(stdout: str) -> object:
    try:
        return json.loads(stdout)
    except json.JSONDecodeError:
        pass
    lines = [ln for ln in stdout.strip().splitlines() if ln.strip()]
    try:
        return json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        return None


def _machine() -> dict[str, object]:
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    every = "--all" in argv
    names = [a for a in argv if not a.startswith("--")]
    jobs: dict[str, list[str]] = {}
    for name, (script, full, short) in SPEED.items():
        if (HERE / script).exists():
            jobs[name] = [str(HERE / script), *(short if quick else full)]
    if every:
        for script in sorted(HERE.glob("bench_*.py")):
            if script.name not in {s for s, _, _ in SPEED.values()}:
                jobs[script.stem.removeprefix("bench_")] = [str(script)]
    if names:
        unknown = sorted(
            set(names)
            - set(jobs)
            - {p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py")}
        )
        if unknown:
            print(f"error: unknown benchmark(s) {unknown}; known: {sorted(jobs)}", file=sys.stderr)
            return 2
        for n in names:
            if n not in jobs:
                jobs[n] = [str(HERE / f"bench_{n}.py")]
        jobs = {n: jobs[n] for n in names}
    # one thread everywhere: BLAS/OpenMP here, numba and torch inside the scripts
    env = {**os.environ, **{v: "1" for v in THREAD_VARS}}
    results: dict[str, object] = {
        "machine_before": _machine(),
        "quick": quick,
        "thread_env": {v: "1" for v in THREAD_VARS},
    }
    for name, cmd in jobs.items():
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, *cmd], capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - t0
        results[name] = {
            "command": " ".join(["python", str(Path(cmd[0]).relative_to(HERE.parent)), *cmd[1:]]),
            "returncode": proc.returncode,
            "seconds": round(elapsed, 1),
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "result": _parse(proc.stdout),
            **({"stderr_tail": proc.stderr[-2000:]} if proc.returncode else {}),
        }
    results["machine_after"] = _machine()
    print(json.dumps(results, indent=1))
    return (
        0
        if all(
            r["returncode"] == 0  # type: ignore[index]
            for k, r in results.items()
            if isinstance(r, dict) and "returncode" in r
        )
        else 1
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

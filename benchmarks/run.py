"""Run the speed benchmarks and print one JSON document with their results, peers beside ours.

Usage::

    python benchmarks/run.py            # the speed figures README and docs quote (below)
    python benchmarks/run.py --quick    # the same with fewer runs and smaller inputs (a check)
    python benchmarks/run.py --all      # also every other bench_*.py script (hours)
    python benchmarks/run.py NAME ...   # only these (bm25, axioms-compare, axioms-mine, ...)
    python benchmarks/run.py --rows FILE   # the README rows of a saved output, again
    python benchmarks/run.py --axiom-table FILE   # its per-axiom table against ir_axioms

The JSON on stdout ends with ``readme_rows``: one line per README speed row, each from this run
alone (medians of alternating runs with their spread, CPU time beside wall time, the peer and
its version); the same lines go to stderr as the run finishes. Per benchmark the JSON records
its command, wall and CPU seconds (the child processes' user + system time), the load average
before and after, and which numba disk caches existed when it started (``numba_cache``: a
timing that includes compiling says so, one that loads a compiled cache says that).

The default set is the speed comparison with the peer libraries: BM25 against bm25s (both
backends), the axiom engine against ir_axioms 1.2.5 and its mining throughput, neural diagnosis
against one batched pass over the texts it needs and the packaged bi-encoder against
sentence-transformers' ``encode``, cross-encoder inference throughput (float32 and bf16, two
threads), the cost of an axiomatic-regularization training step over a plain one and the
demo's activation patching (``axiomatic patch -d demo -r minilm``, the whole command). Each
benchmark runs in its own process, one after the other
(never side by side), and reports medians of alternating runs with their spread; the machine
(cores, load average before and after) is recorded here. Timings are only meaningful on an
otherwise idle machine. Not part of CI.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: name -> (script, arguments): the speed figures, full and quick
SPEED: dict[str, tuple[str, list[str], list[str]]] = {
    "bm25": (
        "bench_bm25.py",
        ["--runs", "5"],
        ["--runs", "1", "--docs", "20000", "--queries", "200"],
    ),
    "axioms-compare": (
        "bench_axioms.py",
        ["compare", "--sizes", "100", "1000", "--runs", "3", "--runs-at", "100=9"],
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
    "models": (
        "bench_models.py",
        ["--skip-steps", "--threads", "2"],
        ["--skip-steps", "--threads", "2", "--quick"],
    ),
    "training": (
        "bench_training.py",
        ["--models", "conv-knrm,cross-encoder", "--steps", "10", "--threads", "1"],
        ["--models", "conv-knrm", "--steps", "2", "--warmup", "1", "--threads", "1"],
    ),
    "patching": (
        "bench_patching.py",
        ["--runs", "3"],
        ["--runs", "1", "--pairs", "2"],
    ),
    # the command as a user runs it on an idle 2-core machine: patch's default threads are the
    # idle cores (two here)
    # with the floor: the demo's matrix products counted, at this machine's best float32 rate
    "patching-2-threads": (
        "bench_patching.py",
        ["--runs", "3", "--threads", "2", "--floor"],
        ["--runs", "1", "--pairs", "2", "--threads", "2", "--floor"],
    ),
}


def run_script(script: str, argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """One benchmark script in its own process: its parsed JSON and what it cost (wall and CPU
    seconds of the child, the load average before and after, the numba caches it found)."""
    cmd = [str(HERE / script), *argv]
    cache = numba_cache_state()
    load_before = [round(x, 2) for x in os.getloadavg()]
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *cmd], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {
        "command": " ".join(["python", f"benchmarks/{script}", *argv]),
        "returncode": proc.returncode,
        "seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "load_average_before": load_before,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "numba_cache": cache,
        "result": _parse(proc.stdout),
        **({"stderr_tail": proc.stderr[-2000:]} if proc.returncode else {}),
    }


def measure_bm25(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """BM25 retrieval and index against bm25s: ``bench_bm25.py``'s entry point in its own
    process (the one line to change when that script offers a measuring function)."""
    return run_script("bench_bm25.py", argv, env)


def numba_cache_state() -> dict[str, str]:
    """Per module with compiled kernels, numba's disk cache as the benchmark finds it:
    ``"empty"`` (no index file beside the module: the first use compiles every kernel, tens of
    seconds), or ``"N fresh, M stale"`` kernels (fresh: an index file written after the
    module's source last changed, so the first use loads it, about a second; stale: only older
    ones, so numba compiles that kernel again). The benchmarks report that one-off cost apart
    (``ours.jit``), never inside a timing."""
    src = HERE.parent / "src" / "axiomatic"
    out = {}
    for module in ("axioms/kernels/_jit.py", "rankers/_bm25_kernel.py"):
        path = src / module
        found = list((path.parent / "__pycache__").glob(f"{path.stem}.*.nbi"))
        if not found:
            out[module] = "empty"
            continue
        changed = path.stat().st_mtime
        kernels: dict[str, bool] = {}  # kernel -> some index file is fresh
        for f in found:  # "<module>.<kernel>-<line>.py311.nbi"
            name = f.name.split(".", 1)[1].rsplit("-", 1)[0]
            kernels[name] = kernels.get(name, False) or f.stat().st_mtime >= changed
        fresh = sum(kernels.values())
        out[module] = f"{fresh} fresh, {len(kernels) - fresh} stale"
    return out


def peer_versions() -> dict[str, str | None]:
    """The versions of the libraries the benchmarks compare against (None: not installed)."""
    out: dict[str, str | None] = {}
    for name in ("bm25s", "sentence-transformers", "numba", "numpy", "torch"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    ref = HERE / "ir_axioms_ref" / ".venv" / "bin" / "python"
    out["ir_axioms"] = None
    if ref.exists():
        probe = "import importlib.metadata as m; print(m.version('ir_axioms'))"
        proc = subprocess.run([str(ref), "-c", probe], capture_output=True, text=True)
        out["ir_axioms"] = proc.stdout.strip() or None
    return out


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


def _x(v: float) -> str:
    return f"{v:,.0f}x" if v >= 100 else f"{v:.1f}x"


def _axiom_rows(r: dict[str, Any], peers: dict[str, Any]) -> list[str]:
    rows = []
    for e in r.get("results", []):
        n = e["candidates"]
        o = e["ours"]
        head = f"20 shared axioms, 1 query x {n:,} candidates"
        if "agreement" not in e:
            rows.append(f"{head}: ir_axioms not measured ({e.get('ir_axioms')})")
            continue
        ref = e["ir_axioms"]
        low = min(e["agreement"].items(), key=lambda kv: kv[1]["speedup_cpu_median"])
        loww = min(e["agreement"].items(), key=lambda kv: kv[1]["speedup_median"])
        jit = o["jit"]
        jit_runs = "/".join(f"{j.get('seconds', 0):.1f}" for j in o.get("runs_jit", [jit]))
        rows.append(
            f"{head}: ours {o['shared_axioms_s'] * 1e3:.1f} ms wall "
            f"({o['shared_axioms_s_min'] * 1e3:.1f}-{o['shared_axioms_s_max'] * 1e3:.1f}), "
            f"{o['shared_axioms_cpu_s'] * 1e3:.1f} ms CPU vs ir_axioms {peers.get('ir_axioms')} "
            f"{ref['shared_axioms_s']:.2f} s wall ({ref['shared_axioms_s_min']:.2f}-"
            f"{ref['shared_axioms_s_max']:.2f}), {ref['shared_axioms_cpu_s']:.2f} s CPU: "
            f"{_x(e['speedup_median'])} wall ({_x(e['speedup_min'])}-{_x(e['speedup_max'])}), "
            f"{_x(e['speedup_cpu_median'])} CPU ({_x(e['speedup_cpu_min'])}-"
            f"{_x(e['speedup_cpu_max'])}); slowest axiom by CPU {low[0]} "
            f"{_x(low[1]['speedup_cpu_median'])} ({_x(low[1]['speedup_cpu_min'])}-"
            f"{_x(low[1]['speedup_cpu_max'])}), by wall {loww[0]} "
            f"{_x(loww[1]['speedup_median'])}; medians of {e['runs']} alternating runs; "
            f"compiled kernels loaded before timing ({jit.get('cache')} numba cache, "
            f"{jit_runs} s per run, not in the figures)"
        )
    return rows


def axiom_table(saved: dict[str, Any]) -> str:
    """The per-axiom table of a saved run's ``axioms-compare`` (docs/speed.md): per axiom and
    size, our CPU ms and ir_axioms', the median of the runs' own CPU ratios with their minimum
    and maximum, and the wall ratio."""
    r = saved.get("axioms-compare", {}).get("result", {})
    entries = [e for e in r.get("results", []) if "agreement" in e]
    if not entries:
        return "no axioms-compare result with ir_axioms in this run"
    sizes = " | ".join(
        f"{e['candidates']:,}: ours ms CPU | ir_axioms ms CPU | CPU speed-up (min-max) | wall "
        "speed-up"
        for e in entries
    )
    lines = [f"| axiom | {sizes} |", "|---|" + "---|" * (4 * len(entries))]
    for spec in entries[0]["agreement"]:
        cells = []
        for e in entries:
            a = e["agreement"][spec]
            cells += [
                f"{a['ours_cpu_seconds'] * 1e3:,.3f}",
                f"{a['ref_cpu_seconds'] * 1e3:,.2f}",
                f"{_x(a['speedup_cpu_median'])} ({_x(a['speedup_cpu_min'])}-"
                f"{_x(a['speedup_cpu_max'])})",
                _x(a["speedup_median"]),
            ]
        lines.append(f"| {spec} | " + " | ".join(cells) + " |")
    runs = ", ".join(f"{e['runs']} at {e['candidates']:,}" for e in entries)
    lines.append("")
    lines.append(
        f"Medians over the runs ({runs}); the CPU speed-up is the median of the runs' ratios."
    )
    return "\n".join(lines)


def _neural_rows(r: dict[str, Any]) -> list[str]:
    """Diagnosis time over one batched pass of the inputs it needs, per model, and the packaged
    encoder against sentence-transformers' ``encode``."""
    rows = []
    for kind, m in r.get("models", {}).items():
        rows.append(
            f"diagnosing {m.get('ranker')} ({kind}, {m.get('dtype')}), {len(r.get('queries', []))}"
            f" queries of {r.get('dataset')}: {m.get('ratio')}x the time of one batched pass over "
            f"the inputs it needs ({m.get('diagnosis_s')} s vs {m.get('reference_s')} s, medians "
            f"of {len(m.get('diagnosis_runs_s', []))})"
        )
    enc = r.get("encode") or {}
    for dtype, e in enc.get("dtypes", {}).items():
        if isinstance(e, dict) and "speedup" in e:
            rows.append(
                f"packaged encoder vs sentence-transformers encode ({dtype}, {enc.get('texts')} "
                f"texts, medians of {len(e.get('packaged_runs_s', []))} alternating runs): "
                f"{e['speedup']}x (uncapped length {e.get('speedup_uncapped')}x), max abs "
                f"difference {e.get('max_abs_diff'):.1e}"
            )
    return rows


def _model_rows(r: dict[str, Any]) -> list[str]:
    """Cross-encoder inference throughput per length and dtype."""
    return [
        f"MiniLM cross-encoder inference, {t['max_length']} word pieces, "
        f"{'bf16' if t['bf16'] else 'float32'}, {t['torch_threads']} threads: "
        f"{t['pairs_per_s']} pairs/s ({t['pairs']} pairs)"
        for t in r.get("cross_encoder_throughput", [])
    ]


def _training_rows(r: dict[str, Any]) -> list[str]:
    """An axiomatic-regularization training step over a plain one, per model."""
    return [
        f"AR step / plain step ({t.get('model')}): {t['ar_over_plain_median_of_ratios']:.2f}x "
        f"(median of per-step ratios; plain {t['plain_step_s_median']:.3f} s, AR "
        f"{t['ar_step_s_median']:.3f} s)"
        for t in r.get("results", [])
    ]


def _patching_row(r: dict[str, Any]) -> str:
    """The demo's activation patching: the whole command, medians of its runs with the range."""
    m = r.get("machine", {})

    def fig(key: str) -> str:
        f = r[key]
        return f"{f['median']:.0f} s ({f['min']:.0f}-{f['max']:.0f})"

    row = (
        f"`{r['command']}` ({r['pairs']} pairs): {fig('wall_s')} wall, {fig('cpu_s')} CPU, "
        f"of which patching {fig('patch_s')} wall; medians of {len(r['runs'])} runs, "
        f"{m.get('threads')} thread(s), load {m.get('load_before', ['?'])[0]} -> "
        f"{m.get('load_after', ['?'])[0]}; the same tables every run: {r.get('same_numbers')}"
    )
    if "floor" in r:
        f = r["floor"]
        row += (
            f"; its linear layers' matrix products alone: {f['flops'] / 1e12:.2f} TFLOP (counted "
            f"by torch's FLOP counter), {f['floor_s']:.0f} s at this machine's best float32 rate "
            f"at MiniLM's shapes ({f['best_gflops']:.0f} GFLOP/s at {f['threads']} thread(s))"
        )
    if "baseline" in r:
        c = r["cpu_ratio"]
        row += (
            f"; CPU baseline / ours {c['median']:.2f}x ({c['min']:.2f}-{c['max']:.2f}), "
            f"same tables as the baseline: {r.get('same_as_baseline')}"
        )
    return row


def readme_rows(results: dict[str, Any]) -> list[str]:
    """One line per README speed row, from this run's results only."""
    peers = results.get("peers", {})
    rows: list[str] = []
    for name, entry in results.items():
        if not isinstance(entry, dict) or "returncode" not in entry:
            continue
        r = entry.get("result")
        cost = (
            f"[{entry['command']}: {entry['seconds']} s wall, {entry['cpu_seconds']} s CPU, load "
            f"{entry['load_average_before'][0]} -> {entry['load_average_after'][0]}]"
        )
        if entry["returncode"] != 0 or not isinstance(r, dict):
            rows.append(f"{name}: failed (returncode {entry['returncode']}) {cost}")
            continue
        if name == "axioms-compare":
            rows += [f"{row} {cost}" for row in _axiom_rows(r, peers)]
        elif name == "bm25":
            for run in r.get("runs", []):
                ratio = run.get("ratio", {})
                threads = sorted(
                    {k.split("_")[1] for k in ratio if k.startswith("retrieve_")} - {"queries"}
                )
                retrieval = ", ".join(
                    f"{t}: {ratio.get(f'retrieve_{t}_cpu_vs_fastest_bm25s')}x CPU "
                    f"({ratio.get(f'retrieve_{t}_wall_vs_fastest_bm25s')}x wall)"
                    for t in threads
                )
                rows.append(
                    f"BM25 vs bm25s {r.get('bm25s')} ({run.get('name', run.get('corpus', '?'))}):"
                    f" index {ratio.get('index_cpu_vs_fastest_bm25s')}x CPU, retrieval "
                    f"{retrieval} its fastest backend {cost}"
                )
            for mem in r.get("memory", []):
                rows.append(
                    f"BM25 index build memory ({mem.get('corpus')}), ours / bm25s: "
                    f"{mem.get('ratio_vs_bm25s', 'bm25s not run')} {cost}"
                )
            for key, why in r.items():  # a real collection whose data is absent
                if key.endswith("_skipped"):
                    rows.append(
                        f"BM25 vs bm25s {r.get('bm25s')} ({key.removesuffix('_skipped')}): "
                        f"not measured ({why}) {cost}"
                    )
        elif name.startswith("patching"):
            rows.append(_patching_row(r) + f" {cost}")
        elif name == "axioms-mine":
            for source, fig in (r.get("readme_figure") or {}).items():
                rows.append(f"mining ({source}): {fig} {cost}")
        elif name == "neural-diagnosis":
            rows += [f"{row} {cost}" for row in _neural_rows(r)]
        elif name == "models":
            rows += [f"{row} {cost}" for row in _model_rows(r)]
        elif name == "training":
            rows += [f"{row} {cost}" for row in _training_rows(r)]
        else:
            rows.append(f"{name}: see its JSON {cost}")
    return rows


#: name -> how it runs: (script arguments) -> result; bm25 through its adapter
RUNNERS: dict[str, Callable[[list[str], dict[str, str] | None], dict[str, Any]]] = {
    "bm25": measure_bm25,
}


def main(argv: list[str]) -> int:
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    if "--rows" in argv:
        saved = json.loads(Path(argv[argv.index("--rows") + 1]).read_text(encoding="utf-8"))
        print("\n".join(readme_rows(saved)))
        return 0
    if "--axiom-table" in argv:
        at = argv.index("--axiom-table") + 1
        saved = json.loads(Path(argv[at]).read_text(encoding="utf-8"))
        print(axiom_table(saved))
        return 0
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
    results: dict[str, Any] = {
        "machine_before": _machine(),
        "quick": quick,
        "thread_env": {v: "1" for v in THREAD_VARS},
        "peers": peer_versions(),
    }
    for name, cmd in jobs.items():
        script = Path(cmd[0]).name
        runner = RUNNERS.get(name)
        if runner is not None:
            results[name] = runner(cmd[1:], env)
        else:
            results[name] = run_script(script, cmd[1:], env)
    results["machine_after"] = _machine()
    try:
        results["readme_rows"] = readme_rows(results)
    except (KeyError, TypeError, ValueError) as exc:  # the measurements still print
        results["readme_rows"] = [f"error: no rows ({type(exc).__name__}: {exc})"]
    print("\n".join(results["readme_rows"]), file=sys.stderr)
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

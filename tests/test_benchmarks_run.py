"""``benchmarks/run.py``: the README rows come from the run's own results (medians, spread, CPU
beside wall, the peer's version, the load and the numba cache state), ``--rows FILE`` prints the
same rows again, ``--help`` runs nothing, and BM25 goes through its one adapter."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run_py() -> Any:
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _axioms_entry() -> dict[str, Any]:
    per = {
        "LB1": {"speedup_cpu_median": 31.0, "speedup_cpu_min": 25.0, "speedup_cpu_max": 40.0,
                "speedup_median": 28.0},
        "DIV": {"speedup_cpu_median": 55.0, "speedup_cpu_min": 50.0, "speedup_cpu_max": 60.0,
                "speedup_median": 21.5},
    }  # fmt: skip
    return {
        "command": "python benchmarks/bench_axioms.py compare --sizes 100 --runs 3",
        "returncode": 0,
        "seconds": 12.3,
        "cpu_seconds": 10.1,
        "load_average_before": [7.5, 7.0, 6.0],
        "load_average_after": [8.25, 7.0, 6.0],
        "numba_cache": {"axioms/kernels/_jit.py": "12 files"},
        "result": {
            "results": [
                {
                    "candidates": 100,
                    "runs": 3,
                    "ours": {
                        "shared_axioms_s": 0.0123,
                        "shared_axioms_s_min": 0.011,
                        "shared_axioms_s_max": 0.015,
                        "shared_axioms_cpu_s": 0.0101,
                        "jit": {"cache": "fresh", "seconds": 1.25},
                    },
                    "ir_axioms": {
                        "shared_axioms_s": 2.5,
                        "shared_axioms_s_min": 2.25,
                        "shared_axioms_s_max": 2.75,
                        "shared_axioms_cpu_s": 2.0,
                    },
                    "speedup_median": 203.0,
                    "speedup_min": 150.0,
                    "speedup_max": 250.0,
                    "speedup_cpu_median": 198.0,
                    "speedup_cpu_min": 180.0,
                    "speedup_cpu_max": 220.0,
                    "agreement": per,
                }
            ]
        },
    }


def test_the_axiom_row_quotes_the_runs_medians_spread_cpu_peer_and_cache(run_py: Any) -> None:
    results = {"peers": {"ir_axioms": "1.2.5"}, "axioms-compare": _axioms_entry()}
    (row,) = run_py.readme_rows(results)
    for text in (
        "1 query x 100 candidates",
        "ours 12.3 ms wall (11.0-15.0), 10.1 ms CPU",
        "ir_axioms 1.2.5 2.50 s wall (2.25-2.75), 2.00 s CPU",
        "203x wall (150x-250x), 198x CPU (180x-220x)",
        "slowest axiom by CPU LB1 31.0x (25.0x-40.0x), by wall DIV 21.5x",
        "medians of 3 alternating runs",
        "fresh numba cache, 1.2 s per run, not in the figures",
        "10.1 s CPU, load 7.5 -> 8.25",
    ):
        assert text in row, (text, row)


def test_a_failed_benchmark_is_a_row_that_says_so(run_py: Any) -> None:
    entry = {**_axioms_entry(), "returncode": 1, "result": None}
    (row,) = run_py.readme_rows({"axioms-compare": entry})
    assert row.startswith("axioms-compare: failed (returncode 1)")


def test_rows_of_a_saved_output_and_help_run_nothing(run_py: Any, tmp_path: Path) -> None:
    results = {"peers": {"ir_axioms": "1.2.5"}, "axioms-compare": _axioms_entry()}
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(results), encoding="utf-8")
    script = str(REPO / "benchmarks" / "run.py")
    out = subprocess.run(
        [sys.executable, script, "--rows", str(saved)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines() == run_py.readme_rows(results)
    help_ = subprocess.run(
        [sys.executable, script, "axioms-compare", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert help_.returncode == 0 and "--rows FILE" in help_.stdout


def test_bm25_goes_through_its_adapter(run_py: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, list[str]]] = []

    def fake(script: str, argv: list[str], env: Any = None) -> dict[str, Any]:
        calls.append((script, argv))
        return {"returncode": 0}

    monkeypatch.setattr(run_py, "run_script", fake)
    assert run_py.RUNNERS["bm25"](["--runs", "5"], None) == {"returncode": 0}
    assert calls == [("bench_bm25.py", ["--runs", "5"])]


def test_the_bm25_rows_name_each_collection_and_one_not_measured(run_py: Any) -> None:
    def run(corpus: str, cpu: tuple[float, float], wall: tuple[float, float], index: float):
        ratio = {f"retrieve_{t + 1}t_cpu_vs_fastest_bm25s": r for t, r in enumerate(cpu)}
        ratio |= {f"retrieve_{t + 1}t_wall_vs_fastest_bm25s": r for t, r in enumerate(wall)}
        return {"corpus": corpus, "ratio": {**ratio, "index_cpu_vs_fastest_bm25s": index}}

    result = {
        "bm25s": "0.3.16",
        "runs": [
            run("scifact", (1.5, 2.2), (1.6, 2.3), 1.45),
            run("trec-rag24", (1.9, 2.6), (2.0, 2.7), 1.2),
        ],
        "memory": [{"corpus": "trec-rag24", "ratio_vs_bm25s": {"axiomatic_peak_mb": 0.818}}],
        "nfcorpus_skipped": "FileNotFoundError: no folder nfcorpus-original",
    }
    rows = run_py.readme_rows({"bm25": {**_entry(result), "command": "python b.py"}})
    cost = " [python b.py: 5.0 s wall, 4.5 s CPU, load 1.5 -> 2.0]"
    assert rows == [
        "BM25 vs bm25s 0.3.16 (scifact): index 1.45x CPU, retrieval 1t: 1.5x CPU (1.6x wall), "
        "2t: 2.2x CPU (2.3x wall) its fastest backend" + cost,
        "BM25 vs bm25s 0.3.16 (trec-rag24): index 1.2x CPU, retrieval 1t: 1.9x CPU (2.0x wall), "
        "2t: 2.6x CPU (2.7x wall) its fastest backend" + cost,
        "BM25 index build memory (trec-rag24), ours / bm25s: {'axiomatic_peak_mb': 0.818}" + cost,
        "BM25 vs bm25s 0.3.16 (nfcorpus): not measured (FileNotFoundError: no folder "
        "nfcorpus-original)" + cost,
    ]


def _entry(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "command": "python benchmarks/bench_x.py",
        "returncode": 0,
        "seconds": 5.0,
        "cpu_seconds": 4.5,
        "load_average_before": [1.5, 1.0, 1.0],
        "load_average_after": [2.0, 1.0, 1.0],
        "numba_cache": {},
        "result": result,
    }


def test_the_neural_model_and_training_rows_quote_their_measurements(run_py: Any) -> None:
    neural = {
        "dataset": "trec-dl-2019/bm25",
        "queries": ["q1", "q2"],
        "models": {
            "bi-encoder": {"ranker": "minilm", "dtype": "float32", "ratio": 0.99,
                           "diagnosis_s": 1.98, "reference_s": 2.0,
                           "diagnosis_runs_s": [1.9, 1.98, 2.1]},
        },
        "encode": {"texts": 128, "dtypes": {"float32": {
            "speedup": 1.93, "speedup_uncapped": 1.01, "max_abs_diff": 2.5e-7,
            "packaged_runs_s": [1.0, 1.1, 1.2]}}},
    }  # fmt: skip
    models = {"cross_encoder_throughput": [
        {"max_length": 128, "bf16": False, "torch_threads": 2, "pairs_per_s": 150.5, "pairs": 256},
        {"max_length": 128, "bf16": True, "torch_threads": 2, "pairs_per_s": 203.0, "pairs": 256},
    ]}  # fmt: skip
    training = {"results": [
        {"model": "conv-knrm", "ar_over_plain_median_of_ratios": 1.9,
         "plain_step_s_median": 0.2, "ar_step_s_median": 0.38},
    ]}  # fmt: skip
    rows = run_py.readme_rows(
        {"neural-diagnosis": _entry(neural), "models": _entry(models), "training": _entry(training)}
    )
    expected = [
        "diagnosing minilm (bi-encoder, float32), 2 queries of trec-dl-2019/bm25: 0.99x the "
        "time of one batched pass over the inputs it needs (1.98 s vs 2.0 s, medians of 3)",
        "packaged encoder vs sentence-transformers encode (float32, 128 texts, medians of 3 "
        "alternating runs): 1.93x (uncapped length 1.01x), max abs difference 2.5e-07",
        "MiniLM cross-encoder inference, 128 word pieces, float32, 2 threads: 150.5 pairs/s "
        "(256 pairs)",
        "MiniLM cross-encoder inference, 128 word pieces, bf16, 2 threads: 203.0 pairs/s "
        "(256 pairs)",
        "AR step / plain step (conv-knrm): 1.90x (median of per-step ratios; plain 0.200 s, "
        "AR 0.380 s)",
    ]
    cost = " [python benchmarks/bench_x.py: 5.0 s wall, 4.5 s CPU, load 1.5 -> 2.0]"
    assert rows == [row + cost for row in expected]


def test_the_mining_row_names_each_source(run_py: Any) -> None:
    mine = {"readme_figure": {"synthetic-1000x1000": "10.7M pairs/s on one core, 585 MB peak"}}
    (row,) = run_py.readme_rows({"axioms-mine": _entry(mine)})
    assert row.startswith("mining (synthetic-1000x1000): 10.7M pairs/s on one core, 585 MB peak [")


def test_the_patching_row_quotes_the_runs_medians_spread_threads_load_and_baseline(
    run_py: Any,
) -> None:
    def spread(median: float, lo: float, hi: float) -> dict[str, float]:
        return {"median": median, "min": lo, "max": hi}

    result = {
        "command": "axiomatic patch -d demo -r minilm --threads 1",
        "pairs": 200,
        "runs": [{}, {}, {}],
        "wall_s": spread(150.4, 140.0, 171.6),
        "cpu_s": spread(130.2, 128.0, 133.0),
        "patch_s": spread(120.0, 110.0, 160.0),
        "same_numbers": True,
        "baseline": {},
        "cpu_ratio": spread(1.02, 0.99, 1.04),
        "same_as_baseline": True,
        "machine": {"threads": 1, "load_before": [4.5, 4.0, 3.0], "load_after": [5.0, 4.0, 3.0]},
    }
    entry = {**_axioms_entry(), "command": "python benchmarks/bench_patching.py --runs 3"}
    (row,) = run_py.readme_rows({"patching": {**entry, "result": result}})
    for text in (
        "`axiomatic patch -d demo -r minilm --threads 1` (200 pairs)",
        "150 s (140-172) wall, 130 s (128-133) CPU",
        "of which patching 120 s (110-160) wall",
        "medians of 3 runs, 1 thread(s), load 4.5 -> 5.0",
        "the same tables every run: True",
        "CPU baseline / ours 1.02x (0.99-1.04), same tables as the baseline: True",
        "[python benchmarks/bench_patching.py --runs 3: 12.3 s wall",
    ):
        assert text in row, (text, row)
    assert "patching" in run_py.SPEED and run_py.SPEED["patching"][0] == "bench_patching.py"
    # the command as a user runs it on an idle 2-core machine (the default threads: two)
    script, argv, _ = run_py.SPEED["patching-2-threads"]
    assert script == "bench_patching.py" and argv[argv.index("--threads") + 1] == "2"
    result["machine"] = {**result["machine"], "threads": 2}
    assert "--floor" in argv  # with the arithmetic's floor
    result["floor"] = {"flops": 11.24e12, "floor_s": 41.3, "best_gflops": 272.2, "threads": 2}
    (row,) = run_py.readme_rows({"patching-2-threads": {**entry, "result": result}})
    assert "medians of 3 runs, 2 thread(s)" in row, row
    assert (
        "matrix products alone: 11.24 TFLOP (counted by torch's FLOP counter), 41 s at this "
        "machine's best float32 rate at MiniLM's shapes (272 GFLOP/s at 2 thread(s))"
    ) in row, row


def test_the_axiom_table_of_a_saved_run_quotes_each_axiom_at_each_size(run_py: Any) -> None:
    """docs/speed.md's per-axiom table comes from ``run.py --axiom-table FILE``: our CPU ms,
    ir_axioms', the median CPU ratio with its range and the wall ratio, per size."""
    saved = json.loads(
        (REPO / "benchmarks" / "results" / "speed-run-2026-11-28-b.json").read_text("utf-8")
    )
    table = run_py.axiom_table(saved).splitlines()
    assert table[0].startswith("| axiom | 100: ours ms CPU | ir_axioms ms CPU | CPU speed-up")
    assert "| 1,000: ours ms CPU |" in table[0]
    assert "| LB1 | 0.052 | 0.95 | 18.5x (15.6x-24.2x) | 18.4x | 0.261 | 22.13 | 84.7x " in (
        "\n".join(table)
    )
    assert len([t for t in table if t.startswith("| ") and "axiom |" not in t]) == 20
    assert table[-1] == (
        "Medians over the runs (3 at 100, 3 at 1,000); the CPU speed-up is the median of the "
        "runs' ratios."
    )
    assert run_py.axiom_table({}) == "no axioms-compare result with ir_axioms in this run"

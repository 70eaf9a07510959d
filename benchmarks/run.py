"""Run every benchmark script in this folder and print one JSON document with their results.

Usage: ``python benchmarks/run.py [NAME ...]`` (names: bm25, axioms, models, training, ...).
Each ``bench_<name>.py`` prints one JSON document (the whole of stdout, or its last line). Scripts
with sub-commands run with the arguments in ``DEFAULT_ARGS``. Not part of CI.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_ARGS: dict[str, list[str]] = {"axioms": ["compare", "--sizes", "100", "1000"]}


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


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        wanted = set(argv)
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
    results: dict[str, object] = {}
    for script in scripts:
        name = script.stem.removeprefix("bench_")
        t0 = time.perf_counter()
        cmd = [sys.executable, str(script), *DEFAULT_ARGS.get(name, [])]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        elapsed = time.perf_counter() - t0
        payload = _parse(proc.stdout)
        results[name] = {
            "returncode": proc.returncode,
            "seconds": round(elapsed, 1),
            "result": payload,
            **({"stderr_tail": proc.stderr[-2000:]} if proc.returncode else {}),
        }
    print(json.dumps(results, indent=1))
    return 0 if all(r["returncode"] == 0 for r in results.values()) else 1  # type: ignore[index]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

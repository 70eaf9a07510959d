"""Compare the ``results.json`` of experiment runs made before and after a change of the code.

    python benchmarks/compare_experiment_results.py BEFORE AFTER [NAME ...]

``BEFORE`` and ``AFTER`` hold one output folder per experiment (``BEFORE/rosset2019``, ...;
by default every folder of ``BEFORE`` with a ``results.json``). Two runs agree when their
``results.json`` are equal once what measures the run rather than the results is left out:

- the engine's record of the invocation (``machine``, ``timing``) at the top level;
- wall-clock times, memory peaks and load averages wherever they are nested
  (:data:`TIMING_KEYS`);
- the output folder itself, where a value names a path inside it.

A key of the engine's record (``plan``, ``machine``, ``timing``) that only the later run has
is listed as added, not as a difference: the engine writes it for every experiment. Floats
must be equal exactly (same code path, same seeds, same machine). Prints one line per
experiment (and per difference); exits 1 when any experiment differs or is missing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

RECORD_KEYS = ("plan", "machine", "timing")
"""The keys the engine adds to every ``results.json``."""
TIMING_KEYS = frozenset(
    {
        *("machine", "timing", "load", "when", "wall_s", "wall_seconds", "seconds"),
        *("unit_seconds", "table2_seconds", "train_seconds_total", "seconds_per_1k_steps"),
        *("seconds_per_1k_examples", "pretrain_seconds_per_1k_examples"),
        *("peak_mib", "pretrain_peak_mib"),
    }
)
"""Keys whose values measure the invocation (wall time, memory peak, load, machine), left out at
any depth."""


def _drop(obj: Any, folder: str) -> Any:
    """``obj`` without :data:`TIMING_KEYS`, the run's own ``folder`` written as ``<out>``."""
    if isinstance(obj, dict):
        return {k: _drop(v, folder) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [_drop(v, folder) for v in obj]
    if isinstance(obj, str):
        return obj.replace(folder, "<out>")
    return obj


def differences(a: Any, b: Any, path: str = "") -> Iterator[str]:
    """Where ``a`` and ``b`` differ, as ``path: a != b`` lines (dict keys in any order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            where = f"{path}.{k}" if path else str(k)
            if k not in a:
                yield f"{where}: only after"
            elif k not in b:
                yield f"{where}: only before"
            else:
                yield from differences(a[k], b[k], where)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from differences(x, y, f"{path}[{i}]")
    elif a != b and not (a != a and b != b):  # NaN equals NaN here
        yield f"{path}: {a!r:.80} != {b!r:.80}"


def compare(before: Path, after: Path) -> tuple[list[str], list[str]]:
    """(differences, keys of the engine's record only the later run has)."""
    a = json.loads((before / "results.json").read_text(encoding="utf-8"))
    b = json.loads((after / "results.json").read_text(encoding="utf-8"))
    added = [k for k in RECORD_KEYS if k in b and k not in a]
    for k in added:
        b.pop(k)
    return list(differences(_drop(a, str(before)), _drop(b, str(after)))), added


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    before, after = Path(argv[0]), Path(argv[1])
    names = argv[2:] or sorted(p.parent.name for p in before.glob("*/results.json"))
    if not names:
        print(f"error: {before} has no <experiment>/results.json; run the experiments first")
        return 2
    bad = 0
    for name in names:
        if not (after / name / "results.json").is_file():
            print(f"{name}: MISSING {after / name / 'results.json'}")
            bad += 1
            continue
        diffs, added = compare(before / name, after / name)
        note = f" (the engine's record adds {', '.join(added)})" if added else ""
        print(f"{name}: {'identical' if not diffs else f'{len(diffs)} difference(s)'}{note}")
        for d in diffs[:20]:
            print(f"  {d}")
        bad += bool(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

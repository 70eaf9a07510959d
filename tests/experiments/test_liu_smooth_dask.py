"""liu-smooth ``--quick`` on two Dask worker processes gives the results.json of one process,
every metric equal (units are seeded and rebuild their data themselves,
so where a unit runs does not change its numbers)."""

from __future__ import annotations

import json
import math

from axiomatic.experiments.engine import run_experiment

#: what a run records about itself, not about its units: wall times, the machine and its load
VOLATILE = ("timing", "unit_seconds", "table2_seconds", "machine")


def _leaves(obj, path=""):
    """``{path: value}`` of every number, string, boolean and null in a JSON value."""
    if isinstance(obj, dict):
        return {k: v for key in obj for k, v in _leaves(obj[key], f"{path}/{key}").items()}
    if isinstance(obj, list):
        return {k: v for i, x in enumerate(obj) for k, v in _leaves(x, f"{path}[{i}]").items()}
    return {path: obj}


def test_liu_smooth_quick_on_two_workers_equals_one_process(tmp_path) -> None:
    run_experiment("liu-smooth", tmp_path / "one", quick=True, echo=lambda _m: None)
    lines: list[str] = []
    run_experiment("liu-smooth", tmp_path / "two", quick=True, echo=lines.append, workers=2)
    assert "20 liu-smooth units on 2 local worker processes" in lines
    assert sum(" finished (" in ln for ln in lines) == 20
    one = json.loads((tmp_path / "one" / "results.json").read_text())
    two = json.loads((tmp_path / "two" / "results.json").read_text())
    for key in VOLATILE:
        one.pop(key), two.pop(key)
    a, b = _leaves(one), _leaves(two)
    assert a.keys() == b.keys()
    measures = [k for k in a if k.rsplit("/", 1)[-1] in ("MRRmr", "NDCG@5", "MAP", "p NDCG@5")]
    assert len(measures) >= 40  # every table and figure of the quick plan is compared
    differ = {
        k: (a[k], b[k])
        for k in a
        if not (a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])))
    }
    assert not differ, f"results.json differs between 1 process and 2 workers: {differ}"

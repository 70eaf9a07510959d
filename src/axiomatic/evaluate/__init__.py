"""Evaluation: ir_measures with per-dataset relevance thresholds; paired significance tests.

The top-level ``axiomatic.evaluate(run, qrels, measures)`` is
:func:`axiomatic.evaluate.api.evaluate` (see ``axiomatic/__init__.py``): one
run gives ``{measure: mean}`` (:func:`axiomatic.evaluate.metrics.evaluate`), several named runs
``{name: run}`` the table of ``axiomatic evaluate`` (:func:`evaluation_table`).
:func:`compare_to_baseline` is the one significance policy of every table that compares systems
on a measure (paired test against a baseline, Holm over the systems compared on each measure).
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "compare_runs": "axiomatic.evaluate.significance",
    "compare_to_baseline": "axiomatic.evaluate.significance",
    "evaluate": "axiomatic.evaluate.api",
    "evaluate_per_query": "axiomatic.evaluate.metrics",
    "evaluation_table": "axiomatic.evaluate.significance",
    "holm": "axiomatic.evaluate.significance",
    "paired_test": "axiomatic.evaluate.significance",
    "parse_measures": "axiomatic.evaluate.metrics",
}
"""Names of the package, imported from their modules on first use (``import axiomatic``
imports this package, and must stay light)."""

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'axiomatic.evaluate' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

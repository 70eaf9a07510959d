"""Evaluation: ir_measures with per-dataset relevance thresholds; paired significance tests.

The package is callable: ``axiomatic.evaluate(run, qrels, measures)`` is
:func:`axiomatic.evaluate.api.evaluate` (the top-level API, see ``axiomatic/__init__.py``): one
run gives ``{measure: mean}`` (:func:`axiomatic.evaluate.metrics.evaluate`), several named runs
``{name: run}`` the table of ``axiomatic evaluate`` (:func:`evaluation_table`).
:func:`compare_to_baseline` is the one significance policy of every table that compares systems
on a measure (paired test against a baseline, Holm over the systems compared on each measure).
"""

from axiomatic._callable import make_callable
from axiomatic.evaluate.api import evaluate
from axiomatic.evaluate.metrics import evaluate_per_query, parse_measures
from axiomatic.evaluate.significance import (
    compare_runs,
    compare_to_baseline,
    evaluation_table,
    holm,
    paired_test,
)

__all__ = [
    "compare_runs",
    "compare_to_baseline",
    "evaluate",
    "evaluate_per_query",
    "evaluation_table",
    "holm",
    "paired_test",
    "parse_measures",
]

make_callable(__name__, "axiomatic.evaluate.api", "evaluate")

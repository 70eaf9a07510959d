"""Evaluation: ir_measures with per-dataset relevance thresholds; paired significance tests.

The package is callable: ``axiomatic.evaluate(run, qrels, measures)`` is
:func:`axiomatic.evaluate.api.evaluate` (the top-level API, see ``axiomatic/__init__.py``): one
run gives ``{measure: mean}`` (:func:`axiomatic.evaluate.metrics.evaluate`), several named runs
``{name: run}`` the table of ``axiomatic evaluate`` (:func:`evaluation_table`).
"""

from axiomatic._callable import make_callable
from axiomatic.evaluate.api import evaluate
from axiomatic.evaluate.metrics import evaluate_per_query, parse_measures
from axiomatic.evaluate.significance import compare_runs, evaluation_table, holm, paired_test

__all__ = [
    "compare_runs",
    "evaluate",
    "evaluate_per_query",
    "evaluation_table",
    "holm",
    "paired_test",
    "parse_measures",
]

make_callable(__name__, "axiomatic.evaluate.api", "evaluate")

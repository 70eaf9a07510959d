"""Evaluation: ir_measures with per-dataset relevance thresholds; paired significance tests.

The package is callable: ``axiomatic.evaluate(run, qrels, measures)`` is
:func:`axiomatic.evaluate.metrics.evaluate` (the top-level API, see ``axiomatic/__init__.py``).
"""

from axiomatic._callable import make_callable
from axiomatic.evaluate.metrics import evaluate, evaluate_per_query, parse_measures
from axiomatic.evaluate.significance import compare_runs, holm, paired_test

__all__ = [
    "compare_runs",
    "evaluate",
    "evaluate_per_query",
    "holm",
    "paired_test",
    "parse_measures",
]

make_callable(__name__, "axiomatic.evaluate.metrics", "evaluate")

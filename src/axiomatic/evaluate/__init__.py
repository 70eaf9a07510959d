"""Evaluation: ir_measures with per-dataset relevance thresholds; paired significance tests."""

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

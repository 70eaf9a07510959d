"""The trainer's dev metric is the reported RR@k (one reciprocal rank)."""

from __future__ import annotations

import pytest

from axiomatic.evaluate.metrics import evaluate
from axiomatic.training.trainer import mrr_at_k

QRELS = {"q1": {"d1": 1}, "q2": {"d2": 2}, "q3": {"d3": 1}}
# q3 is judged but missing from the run: it counts 0 (the mean is over 3 queries, not 2)
RUN = {"q1": {"d1": 2.0, "x": 1.0}, "q2": {"x": 3.0, "d2": 1.0}}


def test_mrr_at_k_equals_evaluate_on_a_run_missing_a_judged_query():
    reported = evaluate(RUN, QRELS, "RR@10")["RR@10"]
    assert reported == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert mrr_at_k(RUN, QRELS, 10) == pytest.approx(reported)
    # run queries without judgments are ignored by both
    unjudged = RUN | {"q9": {"d9": 1.0}}
    assert mrr_at_k(unjudged, QRELS, 10) == pytest.approx(reported)


def test_mrr_at_k_respects_k_and_threshold():
    assert mrr_at_k(RUN, QRELS, 1) == pytest.approx(evaluate(RUN, QRELS, "RR@1")["RR@1"])
    # with rel=2 only q2's d2 counts as relevant
    assert mrr_at_k(RUN, QRELS, 10, rel=2) == pytest.approx(
        evaluate(RUN, QRELS, "RR@10", rel_threshold=2)["RR@10"]
    )
    assert mrr_at_k({}, QRELS, 10) == 0.0

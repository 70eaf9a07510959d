"""Each CLIR measure of Liu et al. equals its definition computed by hand on a hand-made run."""

from __future__ import annotations

import math

import pytest

from axiomatic.evaluate.clir_metrics import clir_measures, evaluate_clir, evaluate_clir_per_query

# q1: ranking d1 (SR) d2 (NR) d3 (MR) d4 (SR) d5 (NR) d6 (NR)
# q2: ranking e1 (MR) e2 (NR) e3 (NR) e4 (NR) e5 (NR) e6 (SR)
RUN = {
    "q1": {"d1": 6.0, "d2": 5.0, "d3": 4.0, "d4": 3.0, "d5": 2.0, "d6": 1.0},
    "q2": {"e1": 6.0, "e2": 5.0, "e3": 4.0, "e4": 3.0, "e5": 2.0, "e6": 1.0},
}
QRELS = {
    "q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1, "d5": 0, "d6": 0},
    "q2": {"e1": 2, "e2": 0, "e3": 0, "e4": 0, "e5": 0, "e6": 1},
}


def _dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_each_measure_equals_its_definition() -> None:
    got = evaluate_clir_per_query(RUN, QRELS)
    # Pmr@1: top document is MR
    assert got["Pmr@1"] == {"q1": 0.0, "q2": 1.0}
    # Pmr@5: an MR document within the top 5
    assert got["Pmr@5"] == {"q1": 1.0, "q2": 1.0}
    # Pr@5: MR or SR among the top 5, divided by 5
    assert got["Pr@5"] == pytest.approx({"q1": 3 / 5, "q2": 1 / 5})
    # NDCG@5 with gains = grades, ideal order of all judged grades
    n1 = _dcg([1, 0, 2, 1, 0]) / _dcg([2, 1, 1, 0, 0])
    n2 = _dcg([2, 0, 0, 0, 0]) / _dcg([2, 1, 0, 0, 0])
    assert got["NDCG@5"] == pytest.approx({"q1": n1, "q2": n2})
    # MAP: AP with MR + SR relevant
    ap1 = (1 / 1 + 2 / 3 + 3 / 4) / 3
    ap2 = (1 / 1 + 2 / 6) / 2
    assert got["MAP"] == pytest.approx({"q1": ap1, "q2": ap2})
    # MRR of the first MR, of the first MR-or-SR
    assert got["MRRmr"] == pytest.approx({"q1": 1 / 3, "q2": 1.0})
    assert got["MRRr"] == pytest.approx({"q1": 1.0, "q2": 1.0})
    means = evaluate_clir(RUN, QRELS)
    assert means["MAP"] == pytest.approx((ap1 + ap2) / 2)


def test_relevance_levels_validated() -> None:
    assert clir_measures(3, 2)["Pmr@1"] == "P(rel=3)@1"
    with pytest.raises(ValueError, match="1 <= r <= mr"):
        clir_measures(1, 2)

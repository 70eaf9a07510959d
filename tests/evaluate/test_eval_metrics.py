"""Measures: thresholds on graded qrels, missing queries, per-query values, parsing."""

from __future__ import annotations

import math

import pytest

from axiomatic.evaluate.metrics import (
    NoMatchingQueriesWarning,
    evaluate,
    evaluate_per_query,
    parse_measures,
    run_coverage,
)

QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"x": 1}, "q3": {"y": 3}}
RUN = {
    "q1": {"b": 3.0, "a": 2.0, "c": 1.0},  # b (grade 1) first, a (grade 2) second
    "q2": {"z": 1.0, "x": 0.5},
    "q4": {"a": 1.0},  # not judged: ignored
}


def test_binary_measures_use_the_threshold():
    t1 = evaluate(RUN, QRELS, "RR@10 AP P@1", rel_threshold=1)
    t2 = evaluate(RUN, QRELS, "RR@10 AP P@1", rel_threshold=2)
    # threshold 1: q1 RR 1, q2 RR 1/2, q3 missing -> 0
    assert t1["RR@10"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert t1["P@1"] == pytest.approx((1 + 0 + 0) / 3)
    # threshold 2: only 'a' counts in q1 (rank 2); q2 has nothing relevant
    assert t2["RR@10"] == pytest.approx(0.5 / 3)
    assert t2["AP"] == pytest.approx(0.5 / 3)
    assert list(t2) == ["RR@10", "AP", "P@1"]


def test_ndcg_uses_grades_whatever_the_threshold():
    got = evaluate(RUN, QRELS, ["nDCG@10"], rel_threshold=2)["nDCG@10"]
    # trec_eval's nDCG: linear gains (the grade); q1: b=1 at rank 1, a=2 at rank 2; ideal a, b
    dcg = 1 / math.log2(2) + 2 / math.log2(3)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    q2 = (1 / math.log2(3)) / 1.0
    assert got == pytest.approx((dcg / idcg + q2 + 0) / 3, rel=1e-6)
    assert evaluate(RUN, QRELS, "nDCG@10", rel_threshold=1)["nDCG@10"] == pytest.approx(got)


def test_explicit_rel_parameter_wins():
    a = evaluate(RUN, QRELS, "AP(rel=2)", rel_threshold=1)
    assert a == {"AP(rel=2)": pytest.approx(0.5 / 3)}


def test_per_query_table_includes_missing_queries_as_zero():
    df = evaluate_per_query(RUN, QRELS, "RR@10 nDCG@10")
    assert list(df.columns) == ["query_id", "measure", "value"]
    assert len(df) == 2 * 3
    assert set(df["query_id"]) == {"q1", "q2", "q3"}
    row = df[(df.query_id == "q3") & (df.measure == "RR@10")]
    assert row["value"].item() == 0.0
    with pytest.warns(NoMatchingQueriesWarning):
        empty = evaluate_per_query({}, QRELS, "AP")
    assert (empty["value"] == 0).all() and len(empty) == 3


def test_parse_measures_forms_and_suggestions():
    ms = parse_measures("nDCG@10, RR@10 AP(rel=2)")
    assert [str(m) for m in ms] == ["nDCG@10", "RR@10", "AP(rel=2)"]
    with pytest.raises(ValueError, match="did you mean 'nDCG@10'"):
        parse_measures("nDGC@10")
    with pytest.raises(ValueError, match="no measures"):
        parse_measures("")
    with pytest.raises(ValueError, match="twice"):
        evaluate(RUN, QRELS, "AP AP")


def test_bad_inputs():
    with pytest.raises(TypeError, match="run must be a dict"):
        evaluate([("q1", "a", 1.0)], QRELS, "AP")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rel_threshold"):
        evaluate(RUN, QRELS, "AP", rel_threshold="2")  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["P@0", "nDCG@0", "RR@0", "P@1.5", "AP@0", "R@0"])
def test_cutoffs_below_one_are_refused_before_pytrec_eval(text):
    # P@0 used to abort the whole process inside pytrec_eval (SIGABRT), so this test could not
    # even report a failure; the check must happen in parse_measures.
    with pytest.raises(ValueError, match=r"cutoff after '@' must be a whole number >= 1"):
        parse_measures(text)
    with pytest.raises(ValueError, match="cutoff"):
        evaluate(RUN, QRELS, text)


def test_measure_parameters_and_providers_are_checked():
    with pytest.raises(ValueError, match="rel must be an integer"):
        parse_measures("AP(rel=1.5)")
    with pytest.raises(ValueError, match="no installed ir_measures provider"):
        parse_measures("alpha_nDCG@10")
    with pytest.raises(ValueError, match="did you mean"):
        parse_measures("nDCG10")


@pytest.mark.parametrize("grade", [10**23, -(10**23), 2**40, 1.5, "2", None])
def test_grades_out_of_range_are_value_errors_not_system_errors(grade):
    # 10**23 raised SystemError inside pytrec_eval
    with pytest.raises(ValueError, match="grade of \\('q1', 'a'\\)"):
        evaluate(RUN, {"q1": {"a": grade}}, "nDCG@10 P@5")


def test_integral_float_grades_and_large_small_grades_still_work():
    got = evaluate(RUN, {"q1": {"a": 2.0, "b": 2**31 - 1}}, "P@1")
    assert got == {"P@1": 1.0}


def test_run_matching_no_judged_query_warns_with_counts():
    with pytest.warns(NoMatchingQueriesWarning, match="none of the 3 judged queries.*for 2 other"):
        res = evaluate({"x1": {"a": 1.0}, "x2": {"b": 1.0}}, QRELS, "AP")
    assert res == {"AP": 0.0}
    assert run_coverage(RUN, QRELS) == {"judged": 3, "matched": 2, "missing": 1, "unjudged": 1}

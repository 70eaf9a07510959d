"""Paired tests (against scipy directly) and Holm's correction."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from axiomatic.evaluate.significance import compare_runs, holm, paired_test


def test_paired_t_and_wilcoxon_match_scipy():
    rng = np.random.default_rng(7)
    a = rng.uniform(size=40)
    b = a - 0.05 + rng.normal(scale=0.1, size=40)
    t = paired_test(a, b, test="t")
    assert t.pvalue == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert t.mean_diff == pytest.approx(float(np.mean(a - b)))
    w = paired_test(a, b, test="wilcoxon")
    assert w.pvalue == pytest.approx(stats.wilcoxon(a, b).pvalue)
    assert t.n == w.n == 40


def test_keyed_values_are_aligned_by_query_id():
    a = {"q1": 0.5, "q2": 0.9, "q3": 0.1}
    b = {"q3": 0.0, "q1": 0.4, "q2": 0.8}
    r = paired_test(a, b)
    assert r.mean_diff == pytest.approx(0.1)
    with pytest.raises(ValueError, match="only in a"):
        paired_test({"q1": 1.0, "q2": 0.0}, {"q1": 1.0, "q9": 0.0})


def test_identical_systems_are_not_different():
    x = np.linspace(0, 1, 10)
    for test in ("t", "wilcoxon"):
        r = paired_test(x, x.copy(), test=test)
        assert r.pvalue == 1.0 and not r.significant()


def test_unknown_test_name():
    with pytest.raises(ValueError, match="did you mean 'wilcoxon'"):
        paired_test([1, 2], [2, 1], test="wilcox")  # type: ignore[arg-type]


def test_holm_known_values_and_order():
    p = [0.04, 0.01, 0.03, 0.5]
    # sorted 0.01*4=0.04, 0.03*3=0.09, 0.04*2=0.08->0.09, 0.5*1=0.5
    np.testing.assert_allclose(holm(p), [0.09, 0.04, 0.09, 0.5])
    assert np.all(holm(p) >= np.asarray(p))
    assert holm([]).size == 0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.2, 1.5])


def test_compare_runs_table():
    qrels = {f"q{i}": {"rel": 1} for i in range(12)}
    good = {q: {"rel": 2.0, "junk": 1.0} for q in qrels}
    bad = {q: {"junk": 2.0, "rel": 1.0} for q in qrels}
    table = compare_runs(
        {"base": bad, "better": good, "same": bad}, qrels, "RR@10", baseline="base"
    )
    rows = table.set_index("system")
    assert rows.loc["better", "diff"] == pytest.approx(0.5)
    assert bool(rows.loc["better", "significant"])
    assert not bool(rows.loc["same", "significant"])
    assert rows.loc["better", "pvalue_holm"] >= rows.loc["better", "pvalue"]
    with pytest.raises(KeyError, match="did you mean 'base'"):
        compare_runs({"base": bad}, qrels, "RR@10", baseline="bse")


def test_holm_skips_nan_and_is_the_one_used_by_diagnosis():
    """One Holm implementation: NaN p-values are skipped (stay NaN, not counted in m)."""
    from axiomatic.diagnose import stats as diag_stats

    adj = holm([0.01, np.nan, 0.04])
    assert np.isnan(adj[1])
    # m = 2, not 3: 0.01*2 = 0.02, 0.04*1 = 0.04
    np.testing.assert_allclose(adj[[0, 2]], [0.02, 0.04])
    assert np.isnan(holm([np.nan, np.nan])).all()
    assert not hasattr(diag_stats, "holm")  # one import path
    with pytest.raises(ValueError, match=r"\[0, 1\] or be NaN"):
        holm([np.nan, -0.1])

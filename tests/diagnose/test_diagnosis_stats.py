"""Statistics used by the diagnosis: Wilson interval, McNemar, Holm, correlation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as st

from axiomatic.diagnose import stats
from axiomatic.evaluate.significance import holm


def test_wilson_interval_known_values_and_edges():
    lo, hi = stats.wilson_interval(np.array([5, 0, 10]), np.array([10, 10, 10]))
    # 5/10 at 95%: (0.2366, 0.7634) (Wilson 1927; e.g. statsmodels proportion_confint).
    assert lo[0] == pytest.approx(0.2366, abs=1e-4)
    assert hi[0] == pytest.approx(0.7634, abs=1e-4)
    assert lo[1] == 0.0 and 0.0 < hi[1] < 0.35
    assert hi[2] == pytest.approx(1.0) and lo[2] > 0.65
    lo0, hi0 = stats.wilson_interval(0, 0)
    assert float(lo0) == 0.0 and float(hi0) == 1.0
    with pytest.raises(ValueError, match="successes"):
        stats.wilson_interval(3, 2)


def test_mcnemar_exact_matches_binomial_and_chi2_for_large():
    a = np.array([1] * 8 + [0] * 2 + [1] * 5, dtype=bool)
    b = np.array([0] * 8 + [1] * 2 + [1] * 5, dtype=bool)
    r = stats.mcnemar(a, b)
    assert (r.a_only, r.b_only, r.exact) == (8, 2, True)
    assert r.pvalue == pytest.approx(st.binomtest(2, 10, 0.5).pvalue)
    big_a = np.r_[np.ones(60, bool), np.zeros(30, bool)]
    big_b = ~big_a
    rb = stats.mcnemar(big_a, big_b)
    assert not rb.exact
    assert rb.statistic == pytest.approx((30 - 1) ** 2 / 90)
    assert rb.pvalue == pytest.approx(st.chi2.sf((30 - 1) ** 2 / 90, 1))
    same = stats.mcnemar(a, a)
    assert same.pvalue == 1.0
    with pytest.raises(ValueError, match="same instances"):
        stats.mcnemar(a, b[:3])


def test_holm_step_down():
    p = [0.01, 0.04, 0.03, 0.005]
    adj = holm(p)
    # sorted: .005*4=.02, .01*3=.03, .03*2=.06, .04*1=.04 -> monotone .06
    assert adj.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert np.isnan(holm([np.nan, 0.2])[0])
    assert holm([0.2, np.nan])[0] == pytest.approx(0.2)


def test_correlation_and_trend():
    x = np.array([0.1, 0.2, 0.3, 0.4])
    y = 2 * x + 1
    r = stats.correlation(x, y)
    assert r["pearson"] == pytest.approx(1.0)
    assert r["spearman"] == pytest.approx(1.0)
    assert r["kendall"] == pytest.approx(1.0)
    assert r["slope"] == pytest.approx(2.0) and r["intercept"] == pytest.approx(1.0)
    flat = stats.correlation([1, 1, 1], [1, 2, 3])
    assert np.isnan(flat["pearson"]) and flat["n"] == 3


def test_delta_grid_is_thesis_grid():
    g = stats.DELTA_GRID
    assert g[:11] == tuple(round(i / 100, 2) for i in range(11))
    assert g[11:] == (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def test_holm_is_the_evaluate_implementation():
    """diagnose and evaluate share one Holm correction (they used to disagree on NaN): the
    McNemar table's adjusted p-values are evaluate's, and diagnose keeps no second name."""
    from axiomatic.diagnose import analyses

    assert analyses.holm is holm and not hasattr(stats, "holm")


def test_spearman_p_is_the_exact_permutation_p_for_a_handful_of_systems() -> None:
    """Over a few systems Spearman's t approximation is far too small (0 for a perfect order
    of 4); up to 8 points the p-value counts all n! orders (hand count: of the 24 orders of 4
    items 1 has rho = 1 and 1 has rho = -1, so p = 2/24)."""
    import itertools

    from axiomatic.diagnose.stats import correlation

    assert correlation([1, 2, 3, 4], [1, 2, 3, 4])["spearman_p"] == pytest.approx(2 / 24)
    x = [1.0, 2, 3, 4, 5, 6, 7]
    y = [2.0, 1, 3, 5, 4, 7, 6]

    def rho(a, b):
        ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
        return float(np.corrcoef(ra, rb)[0, 1])

    obs = rho(x, y)
    perms = [rho(x, list(p)) for p in itertools.permutations(y)]
    exact = np.mean([abs(r) >= abs(obs) - 1e-12 for r in perms])
    assert correlation(x, y)["spearman_p"] == pytest.approx(exact)
    # above the exact range the asymptotic p of SciFact-sized samples is kept
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=30), rng.normal(size=30)
    import scipy.stats as st

    assert correlation(a, b)["spearman_p"] == pytest.approx(st.spearmanr(a, b)[1])

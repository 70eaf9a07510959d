"""Statistics for axiomatic diagnosis: intervals, paired tests, multiple testing, correlation.

Pure functions on numpy arrays; no I/O. Used by :mod:`axiomatic.diagnose.diagnosis` and the
reports.

References
----------
- Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
- McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions
  or percentages. (Rennings 2019, section 4.2, compares axiomatic performance with this test.)
- Holm, S. (1979). A simple sequentially rejective multiple test procedure: one implementation
  for the project, :func:`axiomatic.evaluate.significance.holm`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as _st

__all__ = [
    "DELTA_GRID",
    "EXACT_MCNEMAR_BELOW",
    "MIN_P_N",
    "McNemarResult",
    "correlation",
    "mcnemar",
    "wilson_interval",
]

DELTA_GRID: tuple[float, ...] = tuple(round(0.01 * i, 2) for i in range(11)) + tuple(
    round(0.1 * i, 1) for i in range(2, 11)
)
"""delta* values of Rennings (2019) section 4.3.1: 0-0.1 step 0.01, then 0.2-1.0 step 0.1."""

EXACT_MCNEMAR_BELOW = 25
"""Discordant-pair count below which McNemar uses the exact binomial test."""


def wilson_interval(
    successes: np.ndarray | int, n: np.ndarray | int, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    r"""Wilson score interval for a binomial proportion (vectorised).

    .. math::
        \frac{\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}

    ``n == 0`` gives the uninformative interval ``(0, 1)``.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1) (got {confidence!r}); use e.g. 0.95")
    k = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    if np.any(k < 0) or np.any(k > m):
        raise ValueError("successes must lie in [0, n] for every entry")
    z = float(_st.norm.ppf(0.5 + confidence / 2.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(m > 0, k / np.where(m > 0, m, 1.0), 0.0)
        denom = 1.0 + z * z / m
        centre = (p + z * z / (2.0 * m)) / denom
        half = z * np.sqrt(p * (1.0 - p) / m + z * z / (4.0 * m * m)) / denom
        lo = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
        hi = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    return lo, hi


@dataclass(frozen=True)
class McNemarResult:
    """Outcome of McNemar's test on paired binary outcomes.

    ``a_only``: instances ranker A fulfils and B violates; ``b_only``: the reverse.
    """

    n: int
    a_only: int
    b_only: int
    statistic: float
    pvalue: float
    exact: bool

    def to_dict(self) -> dict[str, float | int | bool]:
        return asdict(self)


def mcnemar(a: np.ndarray, b: np.ndarray, exact: bool | None = None) -> McNemarResult:
    r"""McNemar's test of paired binary outcomes ``a`` and ``b`` (same instances, same order).

    With discordant counts :math:`n_{10}` (a only) and :math:`n_{01}` (b only):
    exact test :math:`p = \min(1, 2\,\mathrm{BinomCDF}(\min(n_{10}, n_{01}); n_{10}+n_{01}, 1/2))`,
    otherwise the continuity-corrected :math:`\chi^2 = (|n_{10}-n_{01}|-1)^2/(n_{10}+n_{01})`
    with one degree of freedom. ``exact=None`` picks the exact test when fewer than
    :data:`EXACT_MCNEMAR_BELOW` pairs are discordant (as statsmodels' recommendation).
    """
    a = np.asarray(a, dtype=bool)
    b = np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(
            f"mcnemar needs outcomes of the same instances: shapes {a.shape} and {b.shape} differ"
        )
    n10 = int(np.count_nonzero(a & ~b))
    n01 = int(np.count_nonzero(~a & b))
    disc = n10 + n01
    use_exact = disc < EXACT_MCNEMAR_BELOW if exact is None else bool(exact)
    if disc == 0:
        return McNemarResult(int(a.size), n10, n01, 0.0, 1.0, use_exact)
    if use_exact:
        stat = float(min(n10, n01))
        p = float(min(1.0, 2.0 * _st.binom.cdf(min(n10, n01), disc, 0.5)))
    else:
        stat = float((abs(n10 - n01) - 1.0) ** 2 / disc)
        p = float(_st.chi2.sf(stat, 1))
    return McNemarResult(int(a.size), n10, n01, stat, p, use_exact)


MIN_P_N = 4
"""Fewest points (systems) a correlation's p-values are given for (:func:`correlation`)."""


EXACT_SPEARMAN_N = 8
"""Up to this many points Spearman's p-value is the exact permutation p (all ``n!`` orders);
above it, SciPy's t approximation, which is far too small for a handful of systems (a perfect
order of 4 systems: t approximation 0, exact 2/24 = 0.083)."""


def _spearman_p(x: np.ndarray, y: np.ndarray, approx: float) -> float:
    if x.size > EXACT_SPEARMAN_N:
        return approx

    ry = _st.rankdata(y)
    ry = (ry - ry.mean()) / np.linalg.norm(ry - ry.mean())

    def rho(a: np.ndarray, axis: int = -1) -> np.ndarray:
        ra = _st.rankdata(a, axis=axis)
        ra = ra - ra.mean(axis=axis, keepdims=True)
        return (ra @ ry) / np.linalg.norm(ra, axis=axis)

    res = _st.permutation_test(
        (x,), rho, permutation_type="pairings", n_resamples=np.inf, alternative="two-sided",
        vectorized=True,
    )  # fmt: skip
    return float(res.pvalue)


def correlation(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> dict[str, float]:
    """Pearson, Spearman and Kendall correlation of ``x`` and ``y`` plus a least-squares trend line.

    Returns ``n, pearson, pearson_p, spearman, spearman_p, kendall, kendall_p, slope, intercept``;
    NaN where undefined (fewer than 3 points, or a constant variable). The p-values are NaN
    below :data:`MIN_P_N` points: over three systems no rank order can be significant (the
    smallest two-sided permutation p is 1/3), while Spearman's t approximation says 0 for a
    perfect order. Spearman's p is exact up to :data:`EXACT_SPEARMAN_N` points. The trend line is the
    ``numpy.polyfit`` degree-1 fit of Rennings (2019), Fig. 4.2.
    """
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if xa.shape != ya.shape:
        raise ValueError(f"x and y must have the same length (got {xa.size} and {ya.size})")
    keep = ~(np.isnan(xa) | np.isnan(ya))
    xa, ya = xa[keep], ya[keep]
    n = int(xa.size)
    res: dict[str, float] = {
        "n": n,
        "pearson": np.nan,
        "pearson_p": np.nan,
        "spearman": np.nan,
        "spearman_p": np.nan,
        "kendall": np.nan,
        "kendall_p": np.nan,
        "slope": np.nan,
        "intercept": np.nan,
    }
    if n < 2 or np.ptp(xa) == 0:
        return res
    slope, intercept = np.polyfit(xa, ya, 1)
    res["slope"], res["intercept"] = float(slope), float(intercept)
    if n < 3 or np.ptp(ya) == 0:
        return res
    pr = _st.pearsonr(xa, ya)
    sr = _st.spearmanr(xa, ya)
    kr = _st.kendalltau(xa, ya)
    res.update(
        pearson=float(pr[0]),
        pearson_p=float(pr[1]),
        spearman=float(sr[0]),
        spearman_p=_spearman_p(xa, ya, float(sr[1])),
        kendall=float(kr[0]),
        kendall_p=float(kr[1]),
    )
    if n < MIN_P_N:
        res.update(pearson_p=np.nan, spearman_p=np.nan, kendall_p=np.nan)
    return res

"""The comparison's statistics: verdicts that cannot say "does not help" for "did not measure".

Every method is compared with plain fine-tuning of the same start, size and seeds by a paired
t-test over the test queries (per-query values averaged over the seeds), Holm-corrected over
the methods compared on one measure (:func:`axiomatic.evaluate.significance.compare_to_baseline`,
the project's one significance policy). On top of that test:

* **did not train**: the method's selected model is its start in every seed (best dev step 0):
  nothing was learned, so nothing about the method was measured;
* **seed check**: a significant pooled difference counts only when, compared seed by seed with
  plain, more than half of the seeds whose models differ point the same way, and at least two
  of them (one lucky seed cannot carry it). A seed where the method and plain selected the very
  same model (both kept their start: a difference of exactly 0) carries no information about the
  method and is not counted either way;
* **minimal detectable effect** (MDE): the smallest mean difference the paired t-test finds at
  the stated power, at the strictest level Holm can apply (alpha / number of methods), given the
  observed spread of the per-query differences (statsmodels' ``TTestPower``). A non-significant
  result is "no detectable effect (MDE x)", never "does not help".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

HELPS = "helps"
HURTS = "hurts"
NO_EFFECT = "no detectable effect"
DID_NOT_TRAIN = "did not train"
NOT_ROBUST = "not robust over seeds"
VERDICTS = (HELPS, HURTS, NO_EFFECT, DID_NOT_TRAIN, NOT_ROBUST)


def minimal_detectable_effect(
    diffs: Sequence[float] | np.ndarray, alpha: float = 0.05, power: float = 0.8, tests: int = 1
) -> float:
    """The smallest mean paired difference a two-sided paired t-test at level
    ``alpha / tests`` detects with probability ``power``, for ``len(diffs)`` queries whose
    differences spread as ``diffs`` do: ``d * sd(diffs)`` with ``d`` the standardized effect
    from statsmodels' ``TTestPower.solve_power``. ``nan`` for fewer than 2 queries; 0 when
    every difference is the same (no spread: any change is detected)."""
    from statsmodels.stats.power import TTestPower

    d = np.asarray(diffs, dtype=float)
    if len(d) < 2 or tests < 1:
        return float("nan")
    if np.allclose(d, d[0], rtol=0.0, atol=1e-15):
        return 0.0
    sd = float(d.std(ddof=1))
    n, level = len(d), alpha / tests
    tt = TTestPower()

    def gap(effect: float) -> float:
        got = float(tt.power(effect_size=effect, nobs=n, alpha=level))
        if math.isnan(got):  # the noncentral t's tail is NaN far out for a handful of queries
            got = _power_by_integration(effect, n, level)
        return got - power

    effect = float(tt.solve_power(nobs=n, alpha=level, power=power, alternative="two-sided"))
    if not math.isfinite(effect) or abs(gap(effect)) > 1e-6:
        # solve_power does not always converge for a handful of queries at a strict level;
        # its power function does: solve on it directly
        from scipy.optimize import brentq

        hi = 1.0
        while gap(hi) < 0:
            hi *= 2.0
        effect = float(brentq(gap, 1e-9, hi, xtol=1e-12))
    return effect * sd


def _power_by_integration(effect: float, n: int, alpha: float) -> float:
    """The two-sided paired t-test's power at standardized ``effect`` for ``n`` queries, from
    its definition: ``T = (Z + effect sqrt(n)) / sqrt(V / df)`` with ``V ~ chi2(df)``, the
    normal tails integrated over ``V`` (where statsmodels' noncentral t returns NaN)."""
    from scipy import integrate, stats

    df = n - 1
    nc = effect * math.sqrt(n)
    crit = float(stats.t.ppf(1 - alpha / 2, df))

    def f(v: float) -> float:
        s = crit * math.sqrt(v / df)
        return float(stats.chi2.pdf(v, df) * (stats.norm.sf(s - nc) + stats.norm.cdf(-s - nc)))

    lo, hi = stats.chi2.ppf([1e-12, 1 - 1e-12], df)
    return float(integrate.quad(f, lo, hi, limit=200)[0])


def seed_agreement(seed_diffs: Sequence[float], direction: float) -> tuple[int, int]:
    """``(seeds that point the way of direction, seeds whose difference is not exactly 0)``: a
    seed where the method and plain kept the same model is left out of both counts."""
    sign = math.copysign(1.0, direction) if direction != 0 else 0.0
    informative = [x for x in seed_diffs if x != 0]
    agree = sum(1 for x in informative if sign != 0 and x * sign > 0)
    return agree, len(informative)


def robust_over_seeds(seed_diffs: Sequence[float], direction: float) -> bool:
    """The seed check (module docstring): more than half of the informative seeds agree, and at
    least two (one, where the plan has a single seed)."""
    agree, informative = seed_agreement(seed_diffs, direction)
    needed = max(min(2, len(seed_diffs)), informative // 2 + 1)
    return agree >= needed


def verdict(
    diff: float,
    p_holm: float,
    mde: float,
    seed_diffs: Sequence[float],
    trained: bool,
    alpha: float = 0.05,
) -> str:
    """The verdict of one method against plain on one measure (module docstring)."""
    if not trained:
        return DID_NOT_TRAIN
    if not math.isnan(p_holm) and p_holm < alpha and diff != 0:
        if seed_diffs and not robust_over_seeds(seed_diffs, diff):
            return NOT_ROBUST
        return HELPS if diff > 0 else HURTS
    return NO_EFFECT


def verdict_text(row: Mapping[str, Any]) -> str:
    """A verdict with its evidence: ``no detectable effect (MDE 0.021)``, ``helps (4/4
    seeds)``, ``not robust over seeds (2/4)``."""
    v = row["verdict"]
    if v == NO_EFFECT:
        mde = row.get("mde")
        return f"{v} (MDE {mde:.3f})" if mde is not None and not math.isnan(mde) else v
    if v in (HELPS, HURTS, NOT_ROBUST):
        agree, n = row.get("seeds_agree", [0, 0])[:2]
        return f"{v} ({agree}/{n} seeds that differ)"
    return str(v)


def did_train(best_steps: Sequence[int | None]) -> bool:
    """Whether a method's selected runs trained: some seed's selected model is not its start
    (best dev step > 0)."""
    return any(s is not None and s > 0 for s in best_steps)


def seed_differences(
    system: Mapping[int, Mapping[str, float]], baseline: Mapping[int, Mapping[str, float]]
) -> list[float]:
    """Per seed both have, the mean over the shared queries of ``system - baseline`` (the
    seed-level check pairs seed s of a method with seed s of plain)."""
    out = []
    for seed in sorted(set(system) & set(baseline)):
        a, b = system[seed], baseline[seed]
        qids = sorted(set(a) & set(b))
        if qids:
            out.append(float(np.mean([a[q] - b[q] for q in qids])))
    return out


def paired_control(
    a: Mapping[str, float], b: Mapping[str, float], alpha: float = 0.05, power: float = 0.8
) -> dict[str, Any]:
    """A positive control: the paired t-test of ``a`` against ``b`` (one test, no
    correction), its 95 % interval and the MDE; ``detected`` when p < alpha and a > b."""
    from axiomatic.evaluate.significance import paired_test

    qids = sorted(set(a) & set(b))
    d = np.array([a[q] - b[q] for q in qids], dtype=float)
    if len(d) < 2:
        return {"diff": float("nan"), "p": float("nan"), "n": len(d), "detected": False,
                "mde": float("nan"), "ci95": [float("nan"), float("nan")]}  # fmt: skip
    res = paired_test(d, np.zeros_like(d))
    lo, hi = interval(d)
    diff = float(d.mean())
    return {
        "diff": diff,
        "p": float(res.pvalue),
        "n": len(d),
        "ci95": [lo, hi],
        "mde": minimal_detectable_effect(d, alpha, power),
        "detected": bool(res.pvalue < alpha and diff > 0),
    }


def interval(d: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """95 % t-interval of the mean of ``d`` (unadjusted)."""
    from scipy import stats

    x = np.asarray(d, dtype=float)
    if len(x) < 2:
        return float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return float(x.mean() - half), float(x.mean() + half)

"""Paired significance tests over per-query values, with Holm's multiple-comparison correction.

Two systems are compared on the same queries: :func:`paired_test` aligns per-query values (by
query id when given mappings/Series), then runs the paired t-test (``scipy.stats.ttest_rel``) or
the Wilcoxon signed-rank test (``scipy.stats.wilcoxon``). :func:`holm` adjusts a family of
p-values (Holm, 1979, *A simple sequentially rejective multiple test procedure*), and
:func:`compare_runs` does both for several systems against a baseline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from axiomatic.data.records import Qrels, Run

__all__ = [
    "EVALUATION_COLUMNS",
    "PairedTestResult",
    "compare_runs",
    "evaluation_table",
    "holm",
    "paired_test",
]

TestName = Literal["t", "wilcoxon"]


@dataclass(frozen=True)
class PairedTestResult:
    """Outcome of a paired test of ``a`` against ``b`` (``mean_diff = mean(a - b)``)."""

    test: str
    statistic: float
    pvalue: float
    mean_a: float
    mean_b: float
    mean_diff: float
    n: int

    def significant(self, alpha: float = 0.05) -> bool:
        return self.pvalue < alpha


def _align(
    a: Sequence[float] | np.ndarray | Mapping[str, float] | pd.Series,
    b: Sequence[float] | np.ndarray | Mapping[str, float] | pd.Series,
) -> tuple[np.ndarray, np.ndarray]:
    keyed_a = isinstance(a, (Mapping, pd.Series))
    keyed_b = isinstance(b, (Mapping, pd.Series))
    if keyed_a != keyed_b:
        raise TypeError(
            "a and b must both be keyed by query id (dict / pandas Series) or both be arrays "
            f"in the same query order (got {type(a).__name__} and {type(b).__name__})"
        )
    if keyed_a:
        da = dict(a.items())  # type: ignore[union-attr]
        db = dict(b.items())  # type: ignore[union-attr]
        if set(da) != set(db):
            only_a = sorted(set(da) - set(db))[:5]
            only_b = sorted(set(db) - set(da))[:5]
            raise ValueError(
                "paired test needs values for the same queries; "
                f"only in a: {only_a}, only in b: {only_b} "
                "(evaluate both runs with the same qrels: missing queries then count as 0)"
            )
        keys = sorted(da)
        xa = np.asarray([da[k] for k in keys], dtype=np.float64)
        xb = np.asarray([db[k] for k in keys], dtype=np.float64)
    else:
        xa = np.asarray(a, dtype=np.float64).ravel()
        xb = np.asarray(b, dtype=np.float64).ravel()
        if xa.shape != xb.shape:
            raise ValueError(
                f"paired test needs equally long arrays (got {len(xa)} and {len(xb)} values)"
            )
    if not (np.isfinite(xa).all() and np.isfinite(xb).all()):
        raise ValueError("per-query values must be finite (found NaN or inf)")
    return xa, xb


def paired_test(
    a: Sequence[float] | np.ndarray | Mapping[str, float] | pd.Series,
    b: Sequence[float] | np.ndarray | Mapping[str, float] | pd.Series,
    test: TestName = "t",
) -> PairedTestResult:
    """Two-sided paired test of per-query values ``a`` vs ``b``.

    ``test="t"``: paired Student t-test, ``t = mean(d) / (sd(d) / sqrt(n))`` with ``d = a - b``.
    ``test="wilcoxon"``: Wilcoxon signed-rank test (zero differences dropped, "wilcox" method).
    When every difference is 0 the systems are indistinguishable: statistic 0, p-value 1.
    """
    from scipy import stats

    if test not in ("t", "wilcoxon"):
        import difflib

        close = difflib.get_close_matches(str(test), ["t", "wilcoxon"], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown test {test!r}: expected 't' or 'wilcoxon'{hint}")
    xa, xb = _align(a, b)
    n = len(xa)
    if n < 2:
        raise ValueError(f"a paired test needs at least 2 queries (got {n})")
    d = xa - xb
    if np.allclose(d, 0.0, atol=1e-15):
        stat, p = 0.0, 1.0
    elif test == "t":
        if np.allclose(d, d[0]):  # constant non-zero difference: zero variance
            stat, p = float(np.sign(d[0]) * np.inf), 0.0
        else:
            res = stats.ttest_rel(xa, xb)
            stat, p = float(res.statistic), float(res.pvalue)
    else:
        res = stats.wilcoxon(xa, xb, zero_method="wilcox")
        stat, p = float(res.statistic), float(res.pvalue)
    return PairedTestResult(
        test=test,
        statistic=stat,
        pvalue=p,
        mean_a=float(xa.mean()),
        mean_b=float(xb.mean()),
        mean_diff=float(d.mean()),
        n=n,
    )


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    r"""Holm-Bonferroni adjusted p-values, in the input order (the project's one implementation).

    Sorted ascending :math:`p_{(1)} \le \dots \le p_{(m)}`:
    :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\,p_{(j)})` (step-down, monotone,
    capped at 1). Rejecting where ``adj < alpha`` controls the family-wise error rate at ``alpha``.

    NaN p-values (a test that could not be run, e.g. no instances both rankers scored) are
    skipped: they stay NaN and do not count towards ``m``. Any other value outside ``[0, 1]`` is
    an error. Used by :func:`compare_runs`, the ``compare`` command and the McNemar tests of
    :mod:`axiomatic.diagnose` (re-exported as ``axiomatic.diagnose.stats.holm``).
    """
    p = np.asarray(pvalues, dtype=np.float64).ravel()
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        bad = p[ok][(p[ok] < 0) | (p[ok] > 1)]
        raise ValueError(
            f"p-values must lie in [0, 1] or be NaN (got {bad.tolist()[:5]} among {p.size})"
        )
    m = int(ok.sum())
    if m == 0:
        return out
    pv = p[ok]
    order = np.argsort(pv, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * pv[order])
    adj_sorted = np.maximum.accumulate(scaled)
    res = np.empty(m, dtype=np.float64)
    res[order] = adj_sorted
    out[ok] = res
    return out


def compare_runs(
    runs: Mapping[str, Run],
    qrels: Qrels,
    measures: str | Sequence[str],
    baseline: str,
    rel_threshold: int = 1,
    test: TestName = "t",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Mean of each measure per system, and paired tests of each system against ``baseline``.

    Holm's correction is applied per measure across the compared systems. Columns: ``system``,
    ``measure``, ``value``, ``diff`` (vs baseline), ``pvalue``, ``pvalue_holm``, ``significant``
    (``pvalue_holm < alpha``); the baseline row has NaN p-values.
    """
    from axiomatic.evaluate.metrics import evaluate_per_query

    if baseline not in runs:
        import difflib

        close = difflib.get_close_matches(baseline, list(runs), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"baseline {baseline!r} is not among the runs {sorted(runs)}{hint}")
    per = {
        name: evaluate_per_query(run, qrels, measures, rel_threshold) for name, run in runs.items()
    }
    rows = []
    base = per[baseline]
    for measure in dict.fromkeys(base["measure"]):
        b = base[base["measure"] == measure].set_index("query_id")["value"]
        others = [s for s in runs if s != baseline]
        results = {}
        for s in others:
            t = per[s]
            a = t[t["measure"] == measure].set_index("query_id")["value"]
            results[s] = paired_test(a, b, test=test)
        adj = holm([results[s].pvalue for s in others]) if others else np.empty(0)
        rows.append((baseline, measure, float(b.mean()), 0.0, np.nan, np.nan, False))
        for s, padj in zip(others, adj, strict=True):
            r = results[s]
            rows.append(
                (s, measure, r.mean_a, r.mean_diff, r.pvalue, float(padj), bool(padj < alpha))
            )
    return pd.DataFrame(
        rows,
        columns=["system", "measure", "value", "diff", "pvalue", "pvalue_holm", "significant"],
    )


EVALUATION_COLUMNS = (
    "ranker",
    "measure",
    "value",
    "diff",
    "pvalue",
    "pvalue_holm",
    "significant",
    "baseline",
)
"""Columns of :func:`evaluation_table` (and of ``axiomatic evaluate --format csv``, which adds
``path``)."""


def evaluation_table(
    runs: Mapping[str, Run],
    qrels: Qrels,
    measures: str | Sequence[str],
    baseline: str | None = None,
    test: TestName = "t",
    rel_threshold: int = 1,
    alpha: float = 0.05,
    per_query: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """The table of ``axiomatic evaluate``: one row per run and measure (runs in the given
    order), with the mean, ``diff`` to ``baseline`` (a run name; default the first run), the
    paired ``test``'s p-value and its Holm correction over **every** (run, measure) comparison,
    ``significant`` (``"up"`` / ``"down"`` when ``pvalue_holm < alpha``, else ``""``) and
    ``baseline`` (True on the baseline's rows). ``axiomatic.evaluate({name: run}, ...)`` returns
    it. ``per_query`` (``{name: evaluate_per_query(...)}``) skips the evaluation."""
    from axiomatic.evaluate.metrics import evaluate_per_query, measure_name, parse_measures

    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("evaluation_table needs at least one run: {name: run}")
    names = [measure_name(m) for m in parse_measures(measures)]
    order = [str(n) for n in runs]
    if baseline is None:
        baseline = order[0]
    elif baseline not in runs:
        import difflib

        close = difflib.get_close_matches(str(baseline), order, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"baseline {baseline!r} is not one of the runs ({', '.join(order)}){hint}")
    if test not in ("t", "wilcoxon"):
        raise ValueError(f"unknown test {test!r}: expected 't' or 'wilcoxon'")
    per = dict(per_query) if per_query is not None else {}
    for name, run in runs.items():
        if name not in per:
            per[name] = evaluate_per_query(run, qrels, names, rel_threshold)

    def values(name: str, m: str) -> dict[str, float]:
        df = per[name]
        sub = df[df["measure"] == m]
        return dict(zip(sub["query_id"], sub["value"].astype(float), strict=True))

    pvals: dict[tuple[str, str], float] = {}
    for name in order:
        if name == baseline:
            continue
        for m in names:
            pvals[(name, m)] = paired_test(values(name, m), values(baseline, m), test=test).pvalue
    adjusted = dict(zip(pvals, holm(list(pvals.values())), strict=True)) if pvals else {}
    rows = []
    for name in order:
        for m in names:
            v, b = values(name, m), values(baseline, m)
            mean = sum(v.values()) / max(len(v), 1)
            base_mean = sum(b.values()) / max(len(b), 1)
            p_adj = adjusted.get((name, m))
            sig = ""
            if p_adj is not None and p_adj < alpha:
                sig = "up" if mean > base_mean else "down"
            rows.append(
                (
                    name,
                    m,
                    mean,
                    None if name == baseline else mean - base_mean,
                    pvals.get((name, m)),
                    p_adj,
                    sig,
                    name == baseline,
                )
            )
    return pd.DataFrame(rows, columns=list(EVALUATION_COLUMNS))

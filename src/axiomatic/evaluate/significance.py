"""Paired significance tests over per-query values, with Holm's multiple-comparison correction.

Two systems are compared on the same queries: :func:`paired_test` aligns per-query values (by
query id when given mappings/Series), then runs the paired t-test (``scipy.stats.ttest_rel``) or
the Wilcoxon signed-rank test (``scipy.stats.wilcoxon``). :func:`holm` adjusts a family of
p-values (Holm, 1979, *A simple sequentially rejective multiple test procedure*).

**The one significance policy** of every table that compares systems on a measure (``axiomatic
evaluate``, ``axiomatic.evaluate({...})``, the diagnosis report, every paper experiment):
:func:`compare_to_baseline` tests each system against a named baseline on per-query values
(paired t-test by default, Wilcoxon where a paper used it) and corrects with Holm over a family
that the table chooses and states. The default family is *the systems compared with the
baseline on one measure*, so asking for more measures never changes a p-value; every table
prints :attr:`BaselineComparison.family` (e.g. ``"paired t-test vs BM25; Holm over the 3
systems compared on each measure"``) in its caption. :func:`compare_runs` and
:func:`evaluation_table` are that helper applied to runs and qrels.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd

from axiomatic._suggest import suggest
from axiomatic.data.records import Qrels, Run

__all__ = [
    "COMPARISON_COLUMNS",
    "EVALUATION_COLUMNS",
    "BaselineComparison",
    "Comparison",
    "PairedTestResult",
    "compare_runs",
    "compare_to_baseline",
    "describe_family",
    "evaluation_table",
    "holm",
    "paired_test",
]

TestName = Literal["t", "wilcoxon"]
FamilyName = Literal["measure", "table"]
PerQuery: TypeAlias = Sequence[float] | np.ndarray | Mapping[str, float] | pd.Series
"""Per-query values of one system on one measure: keyed by query id (dict / Series, aligned by
id) or an array in an agreed query order."""
FAMILIES: tuple[str, ...] = ("measure", "table")
TEST_PHRASES = {"t": "paired t-test", "wilcoxon": "paired Wilcoxon signed-rank test"}


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


def _check_test(test: str) -> None:
    if test not in TEST_PHRASES:
        hint = suggest(test, TEST_PHRASES, n=1, cutoff=0.6)
        raise ValueError(f"unknown test {test!r}{hint}: expected 't' or 'wilcoxon'")


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

    _check_test(test)
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
    an error. Used by :func:`compare_to_baseline` and the McNemar tests of
    :mod:`axiomatic.diagnose`.
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


COMPARISON_COLUMNS = (
    "system",
    "measure",
    "mean",
    "baseline_mean",
    "diff",
    "p",
    "p_holm",
    "n",
    "family",
)
"""Columns of :meth:`BaselineComparison.frame` (the fields of :class:`Comparison`)."""


@dataclass(frozen=True)
class Comparison:
    """One system against the baseline on one measure.

    ``mean`` / ``baseline_mean``: means over the ``n`` paired queries; ``diff = mean(system -
    baseline)``; ``p``: the paired test's two-sided p-value; ``p_holm``: Holm-adjusted over the
    family that ``family`` describes.
    """

    system: str
    measure: str
    mean: float
    baseline_mean: float
    diff: float
    p: float
    p_holm: float
    n: int
    family: str

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether the Holm-adjusted p-value is below ``alpha``."""
        return self.p_holm < alpha

    def direction(self, alpha: float = 0.05) -> str:
        """``"up"`` (significantly above the baseline), ``"down"`` (below) or ``""``."""
        if not self.significant(alpha):
            return ""
        return "up" if self.diff > 0 else "down"


@dataclass(frozen=True)
class BaselineComparison:
    """What :func:`compare_to_baseline` returns: the rows (system-major, in the order the
    systems and measures were given) and the one-line ``family`` description for the table's
    caption."""

    baseline: str
    test: str
    family: str
    rows: tuple[Comparison, ...]

    def __iter__(self) -> Iterator[Comparison]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def get(self, system: str, measure: str) -> Comparison:
        """The row of ``system`` on ``measure``."""
        for r in self.rows:
            if r.system == system and r.measure == measure:
                return r
        raise KeyError(
            f"no comparison of {system!r} on {measure!r}; compared: "
            f"{sorted({r.system for r in self.rows})} on {sorted({r.measure for r in self.rows})}"
        )

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (columns :data:`COMPARISON_COLUMNS`); ``attrs`` hold
        ``baseline``, ``test`` and ``family``."""
        df = pd.DataFrame(
            [tuple(getattr(r, c) for c in COMPARISON_COLUMNS) for r in self.rows],
            columns=list(COMPARISON_COLUMNS),
        )
        df.attrs.update(baseline=self.baseline, test=self.test, family=self.family)
        return df


def _singular(noun: str) -> str:
    if noun.endswith("sses"):  # losses -> loss
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


def describe_family(
    test: str,
    baseline: str,
    n_systems: int,
    family: str = "measure",
    n_measures: int = 1,
    noun: str = "systems",
    scope: str = "",
) -> str:
    """The one-line description of a comparison family, for a table's caption.

    ``describe_family("t", "BM25", 3)`` is ``"paired t-test vs BM25; Holm over the 3 systems
    compared on each measure"``; ``family="table"`` says ``"Holm over all 6 comparisons (3
    systems x 2 measures)"``; ``scope`` (e.g. ``"per language"``) is appended after a comma.
    """
    head = f"{TEST_PHRASES.get(test, test)} vs {baseline}"
    what = noun if n_systems != 1 else _singular(noun)
    if n_systems == 0:
        body = "nothing compared"
    elif family == "measure":
        body = f"Holm over the {n_systems} {what} compared on each measure"
    else:
        total = n_systems * n_measures
        body = (
            f"Holm over all {total} comparison{'s' if total != 1 else ''} "
            f"({n_systems} {what} x {n_measures} measure{'s' if n_measures != 1 else ''})"
        )
    return f"{head}; {body}" + (f", {scope}" if scope else "")


def compare_to_baseline(
    values: Mapping[str, Mapping[str, PerQuery]],
    baseline: str,
    *,
    test: TestName = "t",
    family: FamilyName = "measure",
    baseline_values: Mapping[str, Mapping[str, PerQuery]] | None = None,
    noun: str = "systems",
    scope: str = "",
) -> BaselineComparison:
    """Paired test of each system against ``baseline`` on every measure, Holm-corrected over a
    stated family: the project's one comparison helper (see the module docstring).

    ``values``: ``{system: {measure: per-query values}}`` (:data:`PerQuery`: keyed by query id
    or arrays in one query order). Every system other than ``baseline`` is compared, in the
    given order, on the baseline's measures (each system must have them all).

    ``family``: the set of tests one Holm correction runs over, chosen per table and stated in
    its caption (:attr:`BaselineComparison.family`):

    * ``"measure"`` (default, the policy): the systems compared with the baseline on one
      measure; asking for more measures never changes a p-value;
    * ``"table"``: every (system, measure) test of the call together.

    ``baseline_values``: per system, the baseline's values that system is paired with, when
    they differ by system (e.g. the baseline's ensemble over the seeds both finished, or the
    baseline trained on the same number of queries); then ``baseline`` is only the name in the
    description and need not be a key of ``values``. ``noun`` names the systems in the
    description (``"losses"``, ``"rankers"``), ``scope`` says where the family repeats
    (``"per language"``) when a table holds several baselines.

    ``test="t"``: paired t-test (:func:`paired_test`); ``"wilcoxon"``: signed-rank test.
    Raises ``ValueError`` when a pair cannot be tested (fewer than 2 queries, different query
    sets, NaN values).
    """
    _check_test(test)
    if family not in FAMILIES:
        raise ValueError(
            f"unknown family {family!r}{suggest(family, FAMILIES, n=1, cutoff=0.6)}: expected "
            "'measure' (Holm over the systems compared on each measure) or 'table' (over every "
            "test of the table)"
        )
    if baseline_values is None:
        if baseline not in values:
            hint = suggest(baseline, values, n=1, cutoff=0.6)
            raise KeyError(f"baseline {baseline!r} is not among the systems {list(values)}{hint}")
        measures = list(values[baseline])
        systems = [s for s in values if s != baseline]
        pair_with = {s: values[baseline] for s in systems}
    else:
        systems = [s for s in values if s != baseline]
        missing = [s for s in systems if s not in baseline_values]
        if missing:
            raise KeyError(f"baseline_values has no baseline values for {missing}")
        pair_with = {s: baseline_values[s] for s in systems}
        measures = list(dict.fromkeys(m for s in systems for m in values[s]))
    for s in systems:
        for side, table in (("system", values[s]), ("baseline", pair_with[s])):
            lacking = [m for m in measures if m not in table]
            if lacking:
                raise ValueError(
                    f"{s!r} has no {side} values for measure(s) {lacking}: every system is "
                    f"compared on the same measures ({measures})"
                )
    results = {
        (s, m): paired_test(values[s][m], pair_with[s][m], test=test)
        for s in systems
        for m in measures
    }
    keys = list(results)
    adjusted: dict[tuple[str, str], float] = {}
    if family == "table":
        adjusted = dict(zip(keys, holm([results[k].pvalue for k in keys]), strict=True))
    else:
        for m in measures:
            ks = [(s, m) for s in systems]
            adjusted.update(zip(ks, holm([results[k].pvalue for k in ks]), strict=True))
    desc = describe_family(test, str(baseline), len(systems), family, len(measures), noun, scope)
    rows = tuple(
        Comparison(
            system=s,
            measure=m,
            mean=results[(s, m)].mean_a,
            baseline_mean=results[(s, m)].mean_b,
            diff=results[(s, m)].mean_diff,
            p=results[(s, m)].pvalue,
            p_holm=float(adjusted[(s, m)]),
            n=results[(s, m)].n,
            family=desc,
        )
        for s, m in keys
    )
    return BaselineComparison(baseline=str(baseline), test=test, family=desc, rows=rows)


def _per_query_values(df: pd.DataFrame) -> dict[str, dict[str, float]]:
    """``{measure: {query_id: value}}`` of an :func:`evaluate_per_query` table."""
    out: dict[str, dict[str, float]] = {}
    for m, sub in df.groupby("measure", sort=False):
        out[str(m)] = dict(zip(sub["query_id"], sub["value"].astype(float), strict=True))
    return out


def compare_runs(
    runs: Mapping[str, Run],
    qrels: Qrels,
    measures: str | Sequence[str],
    baseline: str,
    rel_threshold: int | None = None,
    test: TestName = "t",
    alpha: float = 0.05,
    noun: str = "systems",
) -> pd.DataFrame:
    """Mean of each measure per system, and paired tests of each system against ``baseline``
    (:func:`compare_to_baseline`: Holm over the systems compared on each measure; ``noun``
    names them in the family line, ``rankers`` in the tables of the command line).

    Columns: ``system``, ``measure``, ``value``, ``diff`` (vs baseline), ``pvalue``,
    ``pvalue_holm``, ``significant`` (``pvalue_holm < alpha``); the baseline row has NaN
    p-values. ``attrs["family"]`` is the caption line naming the test and the Holm family.
    """
    from axiomatic.evaluate.metrics import evaluate_per_query

    if baseline not in runs:
        hint = suggest(baseline, runs, n=1, cutoff=0.6)
        raise KeyError(f"baseline {baseline!r} is not among the runs {sorted(runs)}{hint}")
    per = {
        name: _per_query_values(evaluate_per_query(run, qrels, measures, rel_threshold))
        for name, run in runs.items()
    }
    cmp = compare_to_baseline(per, baseline, test=test, noun=noun)
    rows = []
    for measure, b in per[baseline].items():
        rows.append(
            (baseline, measure, float(np.mean(list(b.values()))), 0.0, np.nan, np.nan, False)
        )
        for s in runs:
            if s == baseline:
                continue
            r = cmp.get(s, measure)
            rows.append((s, measure, r.mean, r.diff, r.p, r.p_holm, r.significant(alpha)))
    df = pd.DataFrame(
        rows,
        columns=["system", "measure", "value", "diff", "pvalue", "pvalue_holm", "significant"],
    )
    df.attrs.update(baseline=baseline, test=test, family=cmp.family)
    return df


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
    rel_threshold: int | None = None,
    alpha: float = 0.05,
    per_query: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """The table of ``axiomatic evaluate``: one row per run and measure (runs in the given
    order), with the mean, ``diff`` to ``baseline`` (a run name; default the first run), the
    paired ``test``'s p-value and its Holm correction over the runs compared with the baseline
    on that measure (:func:`compare_to_baseline`: the p-values do not depend on how many
    measures are asked for), ``significant`` (``"up"`` / ``"down"`` when ``pvalue_holm <
    alpha``, else ``""``) and ``baseline`` (True on the baseline's rows). ``attrs["family"]``
    is the caption line naming the test and the family. ``axiomatic.evaluate({name: run},
    ...)`` returns it. ``per_query`` (``{name: evaluate_per_query(...)}``) skips the
    evaluation."""
    from axiomatic.evaluate.metrics import evaluate_per_query, measure_name, parse_measures

    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("evaluation_table needs at least one run: {name: run}")
    names = [measure_name(m) for m in parse_measures(measures)]
    order = [str(n) for n in runs]
    if baseline is None:
        baseline = order[0]
    elif baseline not in runs:
        hint = suggest(baseline, order, n=1, cutoff=0.6)
        raise KeyError(f"baseline {baseline!r} is not one of the runs ({', '.join(order)}){hint}")
    if test not in ("t", "wilcoxon"):
        raise ValueError(f"unknown test {test!r}: expected 't' or 'wilcoxon'")
    per = dict(per_query) if per_query is not None else {}
    for name, run in runs.items():
        if name not in per:
            per[name] = evaluate_per_query(run, qrels, names, rel_threshold)
    values = {name: _per_query_values(per[name]) for name in order}
    values = {name: {m: v.get(m, {}) for m in names} for name, v in values.items()}
    cmp = compare_to_baseline(values, baseline, test=test, noun="rankers")
    rows: list[tuple[Any, ...]] = []
    for name in order:
        for m in names:
            v = values[name][m]
            mean = sum(v.values()) / max(len(v), 1)
            if name == baseline:
                rows.append((name, m, mean, None, None, None, "", True))
                continue
            r = cmp.get(name, m)
            rows.append((name, m, mean, r.diff, r.p, r.p_holm, r.direction(alpha), False))
    df = pd.DataFrame(rows, columns=list(EVALUATION_COLUMNS))
    df.attrs.update(baseline=baseline, test=test, family=cmp.family)
    return df

"""Analyses of a :class:`~axiomatic.diagnose.result.Diagnosis`: relevance-pair breakdown,
McNemar tests between rankers, the delta* length sweep and the correlation with effectiveness
(Rennings 2019, sections 4.2-4.3). ``Diagnosis`` methods of the same names call these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from axiomatic._suggest import suggest
from axiomatic.diagnose import stats
from axiomatic.diagnose.relations import (
    FULFILLED,
    GROUP_KEYS,
    REL_TYPES,
    SWEEP_EXCLUDED,
    SYMMETRIC_SUFFIX,
)
from axiomatic.evaluate.significance import holm

if TYPE_CHECKING:
    from axiomatic.diagnose.result import Diagnosis


def relevance_types(diag: Diagnosis) -> np.ndarray:
    """Relevance-pair type of every instance (one of :data:`REL_TYPES`), from doc_a's view."""
    inst = diag.instances
    t = diag.rel_threshold

    def col(name: str) -> np.ndarray:
        if name not in inst:
            return np.full(len(inst), np.nan)
        return pd.to_numeric(inst[name], errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan
        )

    ra, rb, rc = col("rel_a"), col("rel_b"), col("rel_c")
    has_c = inst["doc_c"].notna().to_numpy() if "doc_c" in inst else np.zeros(len(inst), bool)
    unjudged = np.isnan(ra) | np.isnan(rb) | (has_c & np.isnan(rc))
    a_rel = np.nan_to_num(ra, nan=-1) >= t
    b_rel = np.nan_to_num(rb, nan=-1) >= t
    out = np.select(
        [unjudged, a_rel & b_rel, a_rel & ~b_rel, ~a_rel & b_rel],
        [REL_TYPES[4], REL_TYPES[0], REL_TYPES[1], REL_TYPES[2]],
        default=REL_TYPES[3],
    )
    return out


def mcnemar(diag: Diagnosis, exact: bool | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """McNemar test between every two rankers on the instances both scored, per axiom group.

    p-values are Holm-corrected within each axiom group (the family is the set of ranker
    pairs compared on that group's instances). ``exact=None``: exact binomial test when
    fewer than 25 instances are discordant.
    """
    keys = diag.group_keys()
    codes, uniques = pd.factorize(pd.MultiIndex.from_frame(keys), sort=False)
    rows: list[dict[str, Any]] = []
    outs = {r: diag.outcomes[r].to_numpy() for r in diag.rankers}
    for g, key in enumerate(uniques):
        sel = codes == g
        start = len(rows)
        for i, ra in enumerate(diag.rankers):
            for rb in diag.rankers[i + 1 :]:
                oa, ob = outs[ra][sel], outs[rb][sel]
                both = (oa >= 0) & (ob >= 0)
                res = stats.mcnemar(oa[both] == FULFILLED, ob[both] == FULFILLED, exact=exact)
                frac_a = float(np.mean(oa[both] == FULFILLED)) if both.any() else np.nan
                frac_b = float(np.mean(ob[both] == FULFILLED)) if both.any() else np.nan
                rows.append(
                    dict(zip(GROUP_KEYS, key, strict=True))
                    | {
                        "ranker_a": ra,
                        "ranker_b": rb,
                        "fraction_a": frac_a,
                        "fraction_b": frac_b,
                    }
                    | res.to_dict()
                )
        if len(rows) > start:
            adj = holm([r["pvalue"] for r in rows[start:]])
            for r, p in zip(rows[start:], adj, strict=True):
                r["pvalue_holm"] = float(p)
                r["significant"] = bool(p < alpha)
    cols = [
        *GROUP_KEYS,
        "ranker_a",
        "ranker_b",
        "fraction_a",
        "fraction_b",
        "n",
        "a_only",
        "b_only",
        "statistic",
        "pvalue",
        "exact",
        "pvalue_holm",
        "significant",
    ]
    return pd.DataFrame(rows, columns=cols)


def delta_sweep(
    diag: Diagnosis,
    deltas: Sequence[float] = stats.DELTA_GRID,
    exclude_artificial: bool = True,
    exclude_axioms: Sequence[str] = SWEEP_EXCLUDED,
) -> pd.DataFrame:
    """Fulfilment among instances with ``len_diff_rel <= delta*`` for each delta*.

    Rennings (2019) section 4.3.1, Figs 4.5-4.8: columns ``delta``, ``n`` (instances at that
    delta*), ``fulfilled``, ``fraction`` and ``diff_vs_0`` (absolute difference from the
    fraction at the smallest delta*, Figs 4.7/4.8). Instances without a length difference
    and, with ``exclude_artificial``, instances on artificial documents are left out, and so
    are the axioms in ``exclude_axioms`` (LNC2, which does not ask for equal lengths), as in
    the thesis.
    """
    if "len_diff_rel" not in diag.instances:
        raise ValueError("instances lack the 'len_diff_rel' column needed for a delta* sweep")
    ldr = pd.to_numeric(diag.instances["len_diff_rel"], errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    if exclude_artificial and "artificial" in diag.instances:
        art = diag.instances["artificial"].fillna(False).to_numpy(dtype=bool)
        ldr = np.where(art, np.nan, ldr)
    if exclude_axioms:
        ldr = np.where(diag.instances["axiom"].isin(list(exclude_axioms)), np.nan, ldr)
    cols = [
        "delta",
        "ranker",
        *GROUP_KEYS,
        "n",
        "fulfilled",
        "skipped",
        "fraction",
        "ci_low",
        "ci_high",
        "diff_vs_0",
    ]
    codes, uniq = pd.factorize(pd.MultiIndex.from_frame(diag.group_keys()), sort=False)
    n_groups = len(uniq)
    rows = []
    # Counts per (delta, group) by bincount: one pass per ranker and delta, no regrouping.
    for name in diag.rankers:
        out = diag.outcomes[name].to_numpy()
        base: np.ndarray = np.full(n_groups, np.nan)
        for d in sorted(deltas):
            mask = ldr <= float(d) + 1e-9
            if not mask.any():
                continue
            g = codes[mask]
            o = out[mask]
            total = np.bincount(g, minlength=n_groups)
            n = np.bincount(g[o >= 0], minlength=n_groups)
            k = np.bincount(g[o == FULFILLED], minlength=n_groups)
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = np.where(n > 0, k / np.maximum(n, 1), np.nan)
            lo, hi = stats.wilson_interval(k, n, diag.confidence)
            base = np.where(np.isnan(base), frac, base)
            for gi in np.flatnonzero(total > 0):
                rows.append(
                    (
                        float(d),
                        name,
                        *uniq[gi],
                        int(n[gi]),
                        int(k[gi]),
                        int(total[gi] - n[gi]),
                        frac[gi],
                        lo[gi] if n[gi] else np.nan,
                        hi[gi] if n[gi] else np.nan,
                        abs(frac[gi] - base[gi]),
                    )
                )
    if not rows:
        return pd.DataFrame(columns=cols)
    return pd.DataFrame(rows, columns=cols)


def correlation(
    diag: Diagnosis,
    effectiveness: pd.DataFrame | Mapping[str, Any],
    measure: str | None = None,
) -> pd.DataFrame:
    """Correlation across rankers of axiomatic performance with retrieval effectiveness.

    ``effectiveness``: a DataFrame indexed by ranker name with one column per measure, or a
    mapping ranker -> {measure: value} (or ranker -> value). One row per axiom group plus a
    row ``axiom="mean"`` (mean fulfilment over the groups, as Rennings 2019 section 4.2.1),
    with Pearson, Spearman and Kendall coefficients, p-values and the trend line. Reference
    rankers (the oracle) are left out.
    """
    eff = effectiveness_series(effectiveness, measure)
    piv = diag.pivot(by="spec")
    keep = [r for r in piv.index if r in eff.index and r not in diag.references]
    piv = piv.loc[keep]
    y = eff.loc[keep].to_numpy(dtype=np.float64)
    rows = []
    spec_to_group = {g[2]: g for g in diag.groups()}
    for spec in piv.columns:
        axiom, variant, _ = spec_to_group.get(spec, (spec, "", spec))
        rows.append(
            {"axiom": axiom, "variant": variant, "spec": spec, "measure": eff.name}
            | stats.correlation(piv[spec].to_numpy(dtype=np.float64), y)
        )
    directional = [c for c in piv.columns if not str(c).endswith(SYMMETRIC_SUFFIX)]
    if len(directional) > 1:
        # the mean is over the axioms' directional instances; symmetric groups stay apart
        mean = piv[directional].mean(axis=1).to_numpy(dtype=np.float64)
        rows.append(
            {"axiom": "mean", "variant": "", "spec": "mean", "measure": eff.name}
            | stats.correlation(mean, y)
        )
    return pd.DataFrame(rows)


def effectiveness_series(
    effectiveness: pd.DataFrame | Mapping[str, Any], measure: str | None
) -> pd.Series:
    """One effectiveness value per ranker (a Series named after the measure)."""
    if isinstance(effectiveness, pd.DataFrame):
        frame = effectiveness
    else:
        first = next(iter(effectiveness.values()), None)
        if isinstance(first, Mapping):
            frame = pd.DataFrame.from_dict(effectiveness, orient="index")
        else:
            return pd.Series(effectiveness, dtype=np.float64, name=measure or "value")
    if frame.empty:
        return pd.Series(dtype=np.float64, name=measure or "value")
    if measure is None:
        measure = str(frame.columns[0])
    if measure not in frame.columns:
        raise KeyError(
            f"measure {measure!r}{suggest(measure, frame.columns, cutoff=0.6)} is not in the "
            f"effectiveness table; expected one of {', '.join(map(str, frame.columns))}"
        )
    return frame[measure].astype(np.float64).rename(measure)

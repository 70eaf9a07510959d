"""Result tables of a diagnosis: the layouts of Rennings (2019) Tables 4.5 and 4.6.

* :func:`overview_frame` - rows = rankers; columns = effectiveness measures (marked when a paired
  t-test with Holm correction over the rankers compared on that measure finds them better ``▲``
  / worse ``▼`` than the baseline ranker: :func:`effectiveness_family` states it),
  then the fraction of fulfilled instances per axiom (%; marked ``▲``/``▼`` when McNemar's test
  with Holm correction finds the ranker different from the baseline on that axiom).
* :func:`variant_frame` - rows = rankers; columns = axiom x variant (strict / extended /
  relaxed): the Table 4.6 comparison of the original axioms with their extended and relaxed forms.

Frames hold display strings; :func:`rich_table`, :func:`to_markdown` and :func:`to_html_table`
render them. :func:`effectiveness_table` computes the measures and tests from runs and qrels.

Every axiom label carries its length tolerance (``δ*=0`` for the strict / extended forms'
equal lengths, ``δ*≤0.1`` for a relaxed form mined with ``delta_rel=0.1``; the thesis'
Tables 4.5/4.6 are at ``δ* = 1.0``, no length limit): fulfilment moves by up to 20 points
between the two, so a number without its δ* cannot be compared. Diagnoses with two views of run
files (own list, union: :mod:`axiomatic.diagnose.diagnosis`) get one column per view, the
own-list view first, each labelled ``[view]``; symmetric instances (equal scores expected) are
a group of their own, labelled ``[equal]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from axiomatic._report import markdown_frame
from axiomatic.data.records import Qrels, Run
from axiomatic.diagnose.relations import SYMMETRIC_SUFFIX
from axiomatic.diagnose.result import Diagnosis

UP, DOWN = "▲", "▼"
THESIS_DELTA = 1.0
"""δ* of Rennings (2019) Tables 4.5 and 4.6: no length limit (section 4.3.1)."""
VARIANT_ORDER = {"strict": 0, "original": 0, "extended": 1, "relaxed": 2}
MIN_N = 20
"""Fewest instances a fulfilment fraction needs to count in a correlation (and the mean over
axioms), and below which a table shows the count next to it, ``"25.0 (n=4)"``: run files order
only the few real near-duplicates of LNC2 (n = 1-4), and such a fraction is noise, not a finding.
Every report states it; ``--min-n`` / ``min_n=`` change it."""
DEFAULT_MEASURE = "nDCG@10"
"""The effectiveness measure a report correlates with axiomatic performance unless told
otherwise (``--measure``): the same one in correlation.csv, correlation.png and the HTML."""
RANKER = "ranker"
"""The one name of "the thing being evaluated" in every table and CSV (evaluate, rerank,
diagnose, the report): a ranker spec, a run or a trained model alike."""
EFFECTIVENESS_COLUMNS = [
    RANKER,
    "measure",
    "value",
    "diff",
    "pvalue",
    "pvalue_holm",
    "significant",
]


# ----------------------------------------------------------------------------- effectiveness
def effectiveness_table(
    runs: Mapping[str, Run],
    qrels: Qrels,
    measures: str | Sequence[str] = ("nDCG@10", "AP", "RR@10"),
    baseline: str | None = None,
    rel_threshold: int | None = None,
    test: Any = "t",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Mean effectiveness per ranker and paired tests against ``baseline`` (Holm over the rankers
    compared on each measure).

    Long format with columns :data:`EFFECTIVENESS_COLUMNS` (``ranker`` is the ranker name); the
    baseline (default: the first run) has NaN p-values; ``attrs["family"]`` is the caption line
    naming the test and the family. Uses :func:`axiomatic.evaluate.significance.compare_runs`
    (the project's one significance policy, :func:`~axiomatic.evaluate.significance.compare_to_baseline`).
    """
    from axiomatic.evaluate.significance import compare_runs

    if not runs:
        raise ValueError("effectiveness_table needs at least one run")
    base = next(iter(runs)) if baseline is None else baseline
    df = compare_runs(
        runs,
        qrels,
        measures,
        base,
        rel_threshold=rel_threshold,
        test=test,
        alpha=alpha,
        noun="rankers",  # the family line names them as evaluate's does
    )
    attrs = dict(df.attrs)
    df = df.rename(columns={"system": RANKER})
    df.attrs.update(attrs, baseline=base)
    return df


def effectiveness_family(effectiveness: Any) -> str:
    """The caption line of an effectiveness table's significance marks: the family its
    :func:`effectiveness_table` stated (``attrs["family"]``), or, for a table without it (an
    older saved one), the policy in general words; ``""`` when the table has no tests."""
    eff = normalize_effectiveness(effectiveness)
    if not len(eff) or eff["pvalue_holm"].isna().all():
        return ""  # means only (e.g. a wide table, which may still carry the long one's attrs)
    family = eff.attrs.get("family")
    if family:
        return str(family)
    return "paired t-test vs the baseline; Holm over the rankers compared on each measure"


def normalize_effectiveness(effectiveness: Any) -> pd.DataFrame:
    """Long-format effectiveness from a long table, a wide one (index = ranker) or a mapping."""
    if effectiveness is None:
        return pd.DataFrame(columns=EFFECTIVENESS_COLUMNS)
    if (
        isinstance(effectiveness, pd.DataFrame)
        and "system" in effectiveness.columns
        and RANKER not in effectiveness.columns
    ):  # tables of earlier versions (and compare_runs) call the column "system"
        attrs = dict(effectiveness.attrs)
        effectiveness = effectiveness.rename(columns={"system": RANKER})
        effectiveness.attrs = attrs
    if isinstance(effectiveness, pd.DataFrame) and {RANKER, "measure", "value"} <= set(
        effectiveness.columns
    ):
        df = effectiveness.copy()
        for c in EFFECTIVENESS_COLUMNS:
            if c not in df:
                df[c] = False if c == "significant" else np.nan
        df.attrs = dict(effectiveness.attrs)
        return df
    if isinstance(effectiveness, Mapping):
        wide = pd.DataFrame.from_dict(dict(effectiveness), orient="index")
    elif isinstance(effectiveness, pd.DataFrame):
        wide = effectiveness
    else:
        raise TypeError(
            "effectiveness must be a DataFrame (long: system/measure/value..., or wide: index = "
            f"ranker, one column per measure) or a mapping ranker -> {{measure: value}} (got "
            f"{type(effectiveness).__name__})"
        )
    long = (
        wide.rename_axis(RANKER)
        .reset_index()
        .melt(id_vars=RANKER, var_name="measure", value_name="value")
    )
    for c in EFFECTIVENESS_COLUMNS[3:]:
        long[c] = False if c == "significant" else np.nan
    return long[EFFECTIVENESS_COLUMNS]


def effectiveness_wide(effectiveness: Any) -> pd.DataFrame:
    """Ranker x measure table of mean values."""
    long = normalize_effectiveness(effectiveness)
    if long.empty:
        return pd.DataFrame()
    return long.pivot_table(
        index=RANKER, columns="measure", values="value", aggfunc="first", sort=False
    )


def default_measure(effectiveness: Any, measure: str | None = None) -> str | None:
    """The measure to correlate with: ``measure`` when given (checked against the table, with
    suggestions), else :data:`DEFAULT_MEASURE` when the table has it, else its first measure;
    ``None`` without effectiveness."""
    from axiomatic.diagnose.analyses import effectiveness_series

    wide = effectiveness_wide(effectiveness)
    if wide.empty:
        return None
    if measure is None:
        measure = DEFAULT_MEASURE if DEFAULT_MEASURE in wide.columns else str(wide.columns[0])
    return str(effectiveness_series(wide, measure).name)


# ----------------------------------------------------------------------------- labels
def base_spec(spec: str) -> str:
    """The axiom spec of a group spec (drops the :data:`SYMMETRIC_SUFFIX` of equality groups)."""
    return spec[: -len(SYMMETRIC_SUFFIX)] if spec.endswith(SYMMETRIC_SUFFIX) else spec


def length_tolerance(spec: str) -> tuple[float | None, str]:
    """(δ*, label) of an axiom group: the relative length tolerance and how to show it.

    ``δ*`` is ``delta_rel`` for relaxed forms, 0 for the equal lengths of strict / extended ones
    (``delta=0``); ``None`` when the axiom takes no length parameter (LNC2) or has no limit.
    Labels: ``δ*=0``, ``δ*≤0.1``, ``δ*≤1.0`` (no limit: a difference never exceeds the longer
    length), ``|Δlen|≤5``, ``no length limit``, or ``""`` for axioms without a length parameter.
    """
    from axiomatic.axioms.spec import parse_axiom
    from axiomatic.diagnose.probes import PROBE_PREFIX

    if spec.startswith(PROBE_PREFIX):  # a text probe: no length parameter
        return None, ""
    try:
        ax = parse_axiom(base_spec(spec))
    except (ValueError, SyntaxError, KeyError):
        return None, "δ* ?"
    if not ax.definition.length:
        return None, ""
    d, r = ax.param("delta"), ax.param("delta_rel")
    parts = []
    star: float | None = None
    if r is not None:
        star = float(r)
        parts.append(f"δ*≤{star:.1f}" if star == round(star, 1) else f"δ*≤{star:g}")
    if d is not None:
        if float(d) == 0:
            star = 0.0
            parts = ["δ*=0"]
        else:
            parts.append(f"|Δlen|≤{float(d):g}")
    return star, ", ".join(parts) or "no length limit"


def layout_title(diagnosis: Diagnosis, table: str = "4.5") -> str:
    """``"layout of Rennings (2019) Table <table>"`` plus what was diagnosed: each variant of
    the axioms with the δ* it is at, text probes as such.

    The thesis tables are at δ* = 1.0 (no length limit); a diagnosis of relaxed axioms at
    another δ* says so, so that nobody compares its numbers with the thesis table unawares, and
    strict / extended axioms are named with their δ* = 0 (equal lengths) instead of the
    table's relaxed setting.
    """
    head = f"layout of Rennings (2019) Table {table}"
    return f"{head}, {mined_description(diagnosis)}"


def mined_description(diagnosis: Diagnosis) -> str:
    """What a diagnosis' instances are: ``relaxed axioms at the table's δ* = 1.0 (no length
    limit)``, ``extended axioms at δ* = 0 (equal lengths)``, ``text probes (no length
    parameter)``, joined by ``; `` (relaxed first)."""
    from axiomatic.diagnose.probes import PROBE_PREFIX

    groups = diagnosis.groups()
    probes = any(g[0].startswith(PROBE_PREFIX) for g in groups)
    axioms = [g for g in groups if not g[0].startswith(PROBE_PREFIX)]
    variants = sorted(
        {g[1] for g in axioms}, key=lambda v: (v != "relaxed", VARIANT_ORDER.get(v, 9))
    )
    parts = []
    for variant in variants:
        stars = {
            length_tolerance(g[2])[0]
            for g in axioms
            if g[1] == variant and length_tolerance(g[2])[1]
        }
        shown = ", ".join(
            "none" if x is None else f"{x:g}" for x in sorted(stars, key=lambda x: x or 0)
        )
        if variant == "relaxed":
            if not stars or stars == {THESIS_DELTA}:
                parts.append("relaxed axioms at the table's δ* = 1.0 (no length limit)")
            else:
                parts.append(
                    f"relaxed axioms at δ* ≤ {shown} (the thesis table: δ* = 1.0, no length limit)"
                )
        elif stars == {0.0}:
            parts.append(f"{variant} axioms at δ* = 0 (equal lengths)")
        elif stars:
            parts.append(f"{variant} axioms at δ* ≤ {shown}")
        else:
            parts.append(f"{variant} axioms")
    if probes:
        parts.append("text probes (no length parameter)")
    return "; ".join(parts) or "no instances"


def probe_note(diagnosis: Diagnosis, lead: str = "") -> str:
    """What the ``[equal]`` groups of invariance probes show (``""`` without them), after
    ``lead``: their % is the share of pairs scored unchanged (a tie), the outcome they look for."""
    from axiomatic.diagnose.probes import PROBE_PREFIX

    names = [
        g[0][len(PROBE_PREFIX) :]
        for g in diagnosis.groups()
        if g[0].startswith(PROBE_PREFIX) and g[2].endswith(SYMMETRIC_SUFFIX)
    ]
    if not names:
        return ""
    return (
        f"{lead}invariance probes ({', '.join(names)}; marked {SYMMETRIC_SUFFIX.strip()}): % of "
        "pairs scored unchanged (a tie), the outcome they look for; a tie is no violation"
    )


def view_diagnoses(diagnosis: Diagnosis) -> list[tuple[str, Diagnosis]]:
    """``[(view, diagnosis in that view)]``, own list first; ``[("", diagnosis)]`` without
    views (every ranker scored every document, so the views coincide)."""
    if not diagnosis.view and not diagnosis.views:
        return [("", diagnosis)]
    return [(v, diagnosis.in_view(v)) for v in diagnosis.view_names()]


def view_label(view: str) -> str:
    return f" [{view}]" if view else ""


def views_note() -> str:
    """What the two views of run files mean (printed next to every table that shows them)."""
    return (
        "[own list]: only instances whose documents are all in the ranker's own list (how it "
        "ordered what it retrieved); [union]: a document the ranker did not retrieve ranks below "
        "all it did (retrieval and ordering mixed; an instance with one unretrieved document "
        "is fulfilled or violated by construction). Rankers that score every document have "
        "the same value in both."
    )


def ordered_groups(diagnosis: Diagnosis) -> list[tuple[str, str, str]]:
    """Axiom groups by axiom (first seen), then strict / extended / relaxed."""
    groups = diagnosis.groups()
    first = {a: i for i, (a, _, _) in reversed(list(enumerate(groups)))}
    return sorted(groups, key=lambda g: (first[g[0]], VARIANT_ORDER.get(g[1], 9)))


def group_labels(diagnosis: Diagnosis) -> dict[str, str]:
    """Short column label of every axiom group (keyed by spec): the axiom name and its length
    tolerance, ``TFC1 (δ*≤0.1)``, with the variant when the axiom has several,
    ``TFC1 (strict, δ*=0)``, else the full spec; equality groups end in ``[equal]``."""
    groups = ordered_groups(diagnosis)
    by_axiom: dict[str, list[tuple[str, str, str]]] = {}
    for g in groups:
        by_axiom.setdefault(g[0], []).append(g)
    labels: dict[str, str] = {}
    for axiom, gs in by_axiom.items():
        one = len({base_spec(g[2]) for g in gs}) == 1
        mine: dict[str, str] = {}
        for _, v, s in gs:
            tol = length_tolerance(s)[1]
            inner = ", ".join(x for x in ("" if one else v, tol) if x)
            eq = SYMMETRIC_SUFFIX if s.endswith(SYMMETRIC_SUFFIX) else ""
            mine[s] = (f"{axiom} ({inner})" if inner else axiom) + eq
        clash = {lab for lab in mine.values() if list(mine.values()).count(lab) > 1}
        for _, _, s in gs:
            labels[s] = s if mine[s] in clash else mine[s]
    return labels


def _fmt(x: float, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def _pct(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{100 * x:.1f}"


def _ranker_order(diagnosis: Diagnosis, eff: pd.DataFrame) -> list[str]:
    names = list(diagnosis.rankers)
    for s in dict.fromkeys(eff[RANKER].astype(str)) if len(eff) else []:
        if s not in names:
            names.append(s)
    return names


# ----------------------------------------------------------------------------- frames
def overview_frame(
    diagnosis: Diagnosis,
    effectiveness: Any = None,
    baseline: str | None = None,
    alpha: float = 0.05,
    measures: Sequence[str] | None = None,
    min_n: int = 0,
) -> pd.DataFrame:
    """Table 4.5 layout as display strings (index = ranker).

    A fraction over fewer than ``min_n`` instances is shown with its count, ``"9.1 (n=11)"``.
    Axiom columns carry their δ*; with two views (run files: own list, union) each axiom has one
    column per view, own list first, labelled ``[own list]`` / ``[union]``.
    """
    eff = normalize_effectiveness(effectiveness)
    if baseline is None:
        baseline = eff.attrs.get("baseline") if len(eff) else None
        if baseline is None:
            baseline = next((r for r in diagnosis.rankers if r not in diagnosis.references), None)
    names = _ranker_order(diagnosis, eff)
    out = pd.DataFrame(index=pd.Index(names, name="ranker"))
    if len(eff):
        ms = list(dict.fromkeys(eff["measure"])) if measures is None else list(measures)
        for m in ms:
            sub = eff[eff["measure"] == m].set_index(RANKER)
            col = []
            for r in names:
                if r not in sub.index:
                    col.append("-")
                    continue
                row = sub.loc[r]
                mark = ""
                if bool(row["significant"]) and r != baseline:
                    mark = UP if float(row["diff"]) > 0 else DOWN
                col.append(_fmt(float(row["value"])) + mark)
            out[m] = col
    labels = group_labels(diagnosis)
    views = [
        (v, d.table(), d.mcnemar(alpha=alpha) if baseline in d.rankers else pd.DataFrame())
        for v, d in view_diagnoses(diagnosis)
    ]
    for spec, label, (view, table, mc) in ((s, lab, v) for s, lab in labels.items() for v in views):
        t = table[table["spec"] == spec].set_index("ranker")
        col = []
        for r in names:
            if r not in t.index:
                col.append("-")
                continue
            frac = float(t.loc[r, "fraction"])
            mark = ""
            if len(mc) and r != baseline and not np.isnan(frac):
                sel = mc[
                    (mc["spec"] == spec)
                    & (
                        ((mc["ranker_a"] == r) & (mc["ranker_b"] == baseline))
                        | ((mc["ranker_b"] == r) & (mc["ranker_a"] == baseline))
                    )
                ]
                if len(sel) and bool(sel.iloc[0]["significant"]):
                    base_frac = float(t.loc[baseline, "fraction"])
                    mark = UP if frac > base_frac else DOWN
            n = int(t.loc[r, "n"])
            small = f" (n={n})" if 0 < n < min_n else ""
            col.append(_pct(frac) + mark + small)
        out[label + view_label(view)] = col
    out.attrs["baseline"] = baseline
    out.attrs["family"] = effectiveness_family(eff)
    return out


def overview_numbers(diagnosis: Diagnosis, effectiveness: Any = None) -> pd.DataFrame:
    """Numeric version of :func:`overview_frame`: measures and fractions (0-1) per ranker."""
    eff = effectiveness_wide(effectiveness)
    labels = group_labels(diagnosis)
    piv = pd.concat(
        [
            d.pivot(by="spec").rename(
                columns=lambda c, v=v: str(labels.get(c) or c) + view_label(v)
            )
            for v, d in view_diagnoses(diagnosis)
        ],
        axis=1,
    )
    if eff.empty:
        return piv
    return eff.join(piv, how="outer").reindex(
        _ranker_order(diagnosis, normalize_effectiveness(effectiveness))
    )


def variant_frame(diagnosis: Diagnosis, with_counts: bool = False) -> pd.DataFrame:
    """Table 4.6 layout: fulfilment (%) per ranker for each axiom under each variant.

    Columns are ``"<axiom> <variant> (<δ*>)"`` ordered by axiom, then strict / extended /
    relaxed; a variant that was not mined for an axiom has no column. ``with_counts`` adds the
    instance count ``(n)`` to every cell. With two views, one column per view (own list first).
    """
    views = view_diagnoses(diagnosis)
    if len(views) > 1:
        parts = [
            variant_frame(d, with_counts).rename(columns=lambda c, v=v: c + view_label(v))
            for v, d in views
        ]
        cols = [c for pair in zip(*(f.columns for f in parts), strict=True) for c in pair]
        return pd.concat(parts, axis=1)[cols]
    t = diagnosis.table()
    keys = (
        t[["axiom", "variant", "spec"]]
        .drop_duplicates()
        .assign(_o=lambda d: d["variant"].map(VARIANT_ORDER).fillna(9))
    )
    axioms = list(dict.fromkeys(keys["axiom"]))
    keys["_a"] = keys["axiom"].map({a: i for i, a in enumerate(axioms)})
    keys = keys.sort_values(["_a", "_o"], kind="stable")
    keys["_eq"] = keys["spec"].astype(str).str.endswith(SYMMETRIC_SUFFIX)
    dup = keys.duplicated(["axiom", "variant", "_eq"], keep=False)
    out = pd.DataFrame(index=pd.Index(list(diagnosis.rankers), name="ranker"))
    for (_, row), is_dup in zip(keys.iterrows(), dup, strict=True):
        tol = length_tolerance(row["spec"])[1]
        eq = SYMMETRIC_SUFFIX if row["_eq"] else ""
        label = (
            row["spec"]
            if is_dup
            else f"{row['axiom']} {row['variant']}" + (f" ({tol})" if tol else "") + eq
        )
        sub = t[t["spec"] == row["spec"]].set_index("ranker")
        cells = []
        for r in out.index:
            if r not in sub.index:
                cells.append("-")
                continue
            cell = _pct(float(sub.loc[r, "fraction"]))
            if with_counts:
                cell += f" ({int(sub.loc[r, 'n'])})"
            cells.append(cell)
        out[label] = cells
    return out


def relevance_frame(diagnosis: Diagnosis) -> pd.DataFrame:
    """Fulfilment (%) with instance counts per ranker x axiom group x relevance-pair type."""
    from axiomatic.diagnose.relations import REL_TYPES

    br = diagnosis.by_relevance()
    labels = group_labels(diagnosis)
    br["group"] = br["spec"].map(labels)
    br["cell"] = [
        f"{_pct(f)} ({n})" if n else "-" for f, n in zip(br["fraction"], br["n"], strict=True)
    ]
    p = br.pivot_table(
        index=["ranker", "group"], columns="rel_type", values="cell", aggfunc="first", sort=False
    )
    p = p.reindex(columns=[c for c in REL_TYPES if c in p.columns]).fillna("-")
    return p.reset_index()


_TEST_LABEL = {"sign": "sign test", "t": "t-test"}


def effect_frame(diagnosis: Diagnosis) -> pd.DataFrame:
    """Calibrated effects (``diagnose(..., band=...)``) per view, ranker and axiom group:
    fulfilment (%), the ranker's band, pos / neg / neutral counts, the effect (pos - neg) / n
    with its interval, and the p-value of the band's test. Empty without a band."""
    if diagnosis.band is None:
        return pd.DataFrame()
    rows = []
    for view, d in view_diagnoses(diagnosis):
        t = d.table()
        labels = group_labels(d)
        for r in t.itertuples(index=False):
            rec = r._asdict()
            rows.append(
                {
                    **({"view": view} if len(diagnosis.views) else {}),
                    "ranker": rec["ranker"],
                    "axiom": labels.get(rec["spec"], rec["spec"]),
                    "fulfilled %": _pct(rec["fraction"]),
                    "δ (band)": f"{rec['delta']:.4g}",
                    "pos": rec["pos"],
                    "neg": rec["neg"],
                    "neutral": rec["neutral"],
                    "effect [95% CI]": "-"
                    if np.isnan(rec["effect"])
                    else f"{rec['effect']:+.3f} [{rec['effect_ci_low']:+.3f}, "
                    f"{rec['effect_ci_high']:+.3f}]",
                    f"{_TEST_LABEL.get(rec['effect_test'], rec['effect_test'])} p": "-"
                    if np.isnan(rec["effect_p"])
                    else ("< 1e-300" if rec["effect_p"] == 0 else f"{rec['effect_p']:.2g}"),
                }
            )
    return pd.DataFrame(rows)


EFFECT_NOTE = (
    "effect = (pos - neg) / n: pos = the ranker prefers the document the axiom expects by more "
    "than its band δ, neg = the other one by more than δ, neutral = within δ (ABNIRML, "
    "MacAvaney et al. 2022); 95% CI: Agresti-Min interval of a difference of matched "
    "proportions"
)
_TEST_NOTE = {
    "sign": "p: two-sided sign test of pos against neg",
    "t": "p: two-sided one-sample t-test of the score margins against 0 (ABNIRML's test)",
}


def effect_note(diagnosis: Diagnosis) -> str:
    """:data:`EFFECT_NOTE` and what the p-value of the effects table tests."""
    test = diagnosis.band_test
    return f"{EFFECT_NOTE}; {_TEST_NOTE.get(test, f'p: {test} test')}"


def sample_line(diagnosis: Diagnosis) -> str:
    """``probe sample sha256:... (N instances)``: the hash that says which pairs were judged."""
    return f"probe sample {diagnosis.sample} ({len(diagnosis.instances):,} instances)"


def band_line(diagnosis: Diagnosis) -> str | None:
    """The band of each ranker and how it was set (``None`` without a band)."""
    band = diagnosis.band
    if band is None:
        return None
    how = str((diagnosis.metadata or {}).get("band_calibration", ""))
    values = ", ".join(f"{r} {v:.4g}" for r, v in band.items())
    return f"no-difference band δ: {values}" + (f" ({how})" if how else "")


CORRELATION_COLUMNS = [
    "axiom",
    "variant",
    "spec",
    "label",
    "measure",
    "min_n",
    "n",
    "left_out",
    "spearman",
    "spearman_p",
    "kendall",
    "kendall_p",
    "pearson",
    "pearson_p",
    "slope",
    "intercept",
]


def correlation_inputs(
    diagnosis: Diagnosis,
    effectiveness: Any,
    measure: str | None = None,
    min_n: int = MIN_N,
    mean_over: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, dict[str, str]]:
    """See :func:`_correlation_inputs` (the same, without the unmasked fractions)."""
    return _correlation_inputs(diagnosis, effectiveness, measure, min_n, mean_over)[:4]


def _correlation_inputs(
    diagnosis: Diagnosis,
    effectiveness: Any,
    measure: str | None = None,
    min_n: int = MIN_N,
    mean_over: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, dict[str, str], pd.DataFrame]:
    """What a correlation of axiomatic performance with effectiveness is computed on.

    Returns ``(fractions, counts, effectiveness, labels)``: rankers (references left out, only
    those with effectiveness) x axiom groups, a fraction over fewer than ``min_n`` instances
    set to NaN (``counts`` keeps every count); a column ``"mean"`` holds the mean over
    ``mean_over`` (axiom names, e.g. ``["TFC1", "TFC2", "M-TDC"]``, the headline of
    docs/diagnosis.md) or, by default, over every directional group that each of these rankers
    has at least ``min_n`` instances of; ``labels`` maps each column to its display label, the
    mean's naming the axioms it averages (``"mean over TFC1, TFC2, M-TDC"``); then (private
    part) the fractions before masking, for the figure's hollow points.
    """
    from axiomatic.diagnose.analyses import effectiveness_series

    wide = effectiveness_wide(effectiveness)
    eff = effectiveness_series(wide, default_measure(wide, measure))
    t = diagnosis.table()  # once: fractions and counts from the same table
    piv = t.pivot_table(
        index="ranker", columns="spec", values="fraction", aggfunc="first", sort=False
    )
    piv = piv.reindex(index=[r for r in diagnosis.rankers if r in piv.index])
    counts = t.pivot_table(index="ranker", columns="spec", values="n", aggfunc="first", sort=False)
    counts = counts.reindex(index=piv.index, columns=piv.columns)
    keep = [r for r in piv.index if r in eff.index and r not in diagnosis.references]
    piv, counts = piv.loc[keep].astype(float), counts.loc[keep].fillna(0).astype(int)
    frac = piv.where(counts >= max(int(min_n), 1))
    labels = group_labels(diagnosis)
    directional = [c for c in piv.columns if not str(c).endswith(SYMMETRIC_SUFFIX)]
    if mean_over is not None:
        wanted = {str(a).strip().upper() for a in mean_over}
        groups = {g[2]: g[0] for g in diagnosis.groups()}
        cols = [c for c in directional if str(groups.get(c, c)).upper() in wanted]
    else:
        cols = [c for c in directional if len(keep) and bool((counts[c] >= min_n).all())]
    out_labels = {c: labels.get(c, c) for c in piv.columns}
    if len(cols) > 1 or (mean_over is not None and cols):
        frac["mean"] = frac[cols].mean(axis=1, skipna=mean_over is None)
        counts["mean"] = counts[cols].min(axis=1)
        names = list(dict.fromkeys(labels.get(c, c).split(" (")[0] for c in cols))
        out_labels["mean"] = "mean over " + ", ".join(names)
    return frac, counts, eff.loc[keep], out_labels, piv


def correlation_frame(
    diagnosis: Diagnosis,
    effectiveness: Any,
    measure: str | None = None,
    min_n: int = MIN_N,
    mean_over: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Correlation across rankers of fulfilment with one effectiveness ``measure`` (default
    :data:`DEFAULT_MEASURE`), per axiom group plus the mean (:func:`correlation_inputs`).

    One row per group with the measure, the ``min_n`` applied, ``n`` (systems counted),
    ``left_out`` (systems whose fraction rests on fewer than ``min_n`` instances, with their
    count), Spearman, Kendall and Pearson coefficients with p-values and the trend line
    (columns :data:`CORRELATION_COLUMNS`). With two views, one block per view (column ``view``).
    """
    from axiomatic.diagnose import stats

    frames = []
    for view, d in view_diagnoses(diagnosis):
        frac, counts, eff, labels = correlation_inputs(d, effectiveness, measure, min_n, mean_over)
        groups = {g[2]: g for g in d.groups()}
        y = eff.to_numpy(dtype=np.float64)
        rows = []
        for col in frac.columns:
            axiom, variant, _ = groups.get(col, (col, "", col))
            low = counts[col] < min_n
            rows.append(
                {
                    "axiom": axiom,
                    "variant": variant,
                    "spec": col,
                    "label": labels.get(col, col),
                    "measure": str(eff.name),
                    "min_n": int(min_n),
                    "left_out": "; ".join(f"{r} (n={int(n)})" for r, n in counts[col][low].items()),
                }
                | stats.correlation(frac[col].to_numpy(dtype=np.float64), y)
            )
        f = pd.DataFrame(rows, columns=[c for c in CORRELATION_COLUMNS])
        if view_label(view):
            f.insert(0, "view", view)
        frames.append(f)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def depth_note(runs: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str | None:
    """A warning when run files of different depths (documents per query) are compared, e.g.
    RepLLaMA's top-200 next to top-100 runs: a deeper run has more own-list instances, fewer
    union-view instances decided by retrieval, and a higher AP. ``None`` when the depths agree."""
    depth = {
        name: int(max((len(docs) for docs in run.values()), default=0))
        for name, run in runs.items()
        if run
    }
    if len(set(depth.values())) < 2:
        return None
    shown = ", ".join(f"{name}: {d}" for name, d in depth.items())
    return (
        f"the runs have different depths (documents per query; {shown}): own-list instance "
        "counts, union-view results and depth-sensitive measures (AP, recall) are not "
        "comparable between them; cut them to one depth to compare like with like"
    )


# ----------------------------------------------------------------------------- renderers
def rich_table(frame: pd.DataFrame, title: str = "", caption: str = "") -> Any:
    """A ``rich.table.Table`` of a display frame (index shown as the first column)."""
    from rich.markup import escape
    from rich.table import Table

    # labels such as "[own list]" must print as text, not be read as rich markup
    t = Table(
        title=escape(title) if title else None,
        caption=escape(caption) if caption else None,
        show_lines=False,
    )
    idx_name = frame.index.name or ""
    has_index = not isinstance(frame.index, pd.RangeIndex)
    if has_index:
        t.add_column(escape(str(idx_name)), style="bold")
    for c in frame.columns:
        t.add_column(escape(str(c)), justify="right")
    for idx, row in frame.iterrows():
        cells = [escape(str(v)) for v in row.tolist()]
        t.add_row(*(([escape(str(idx))] if has_index else []) + cells))
    return t


def to_markdown(frame: pd.DataFrame, index: bool = True) -> str:
    """GitHub-flavoured markdown table of a display frame: the index (unless a plain range) as
    the first column, the others right-aligned (:func:`axiomatic._report.markdown_frame`)."""
    has_index = index and not isinstance(frame.index, pd.RangeIndex)
    align = [""] * int(has_index) + ["right"] * len(frame.columns)
    return markdown_frame(frame, index=has_index, floats=_fmt, missing="-", align=align)


def to_html_table(frame: pd.DataFrame, index: bool = True, css_class: str = "tbl") -> str:
    """An escaped HTML table of a display frame (:func:`axiomatic._report.html_table`), a
    significance arrow's cell marked ``up`` / ``down``."""
    from axiomatic._report import html_table

    return html_table(frame, index=index, css_class=css_class, cell_class=_arrow_class)


def _arrow_class(text: str) -> str | None:
    return "up" if text.endswith(UP) else "down" if text.endswith(DOWN) else None


_TOLERANCE = re.compile(r"^(?:δ\*|\|Δlen\||no length limit)")
_LABEL = re.compile(r"^(?P<head>[^(\[]*?)(?: \((?P<inner>[^()]*)\))?(?P<rest>(?: \[[^\]]*\])*)$")


def compact_columns(columns: Sequence[str]) -> tuple[list[str], str]:
    """Narrow axiom headers for a terminal: ``"TFC1 (δ*≤1.0) [own list]"`` becomes
    ``"TFC1\nown list"`` (the view on a second line) and the length tolerance moves to the
    returned legend line (``"length tolerance: TFC1 δ*≤1.0; LNC2 -"``); a variant stays in the
    header (``"TFC1 strict"``). Other columns (measures) are kept as they are."""
    out: list[str] = []
    tol: dict[str, str] = {}
    for col in columns:
        m = _LABEL.match(str(col))
        if not m or not (m.group("inner") or m.group("rest")):
            out.append(str(col))
            continue
        parts = [x.strip() for x in (m.group("inner") or "").split(",") if x.strip()]
        keep = [x for x in parts if not _TOLERANCE.match(x)]
        tols = [x for x in parts if _TOLERANCE.match(x)]
        name = " ".join([m.group("head").strip(), *keep])
        views = re.findall(r"\[([^\]]*)\]", m.group("rest") or "")
        eq = " =" if "equal" in views else ""
        views = [v for v in views if v != "equal"]
        out.append(name + eq + ("\n" + " ".join(views) if views else ""))
        if m.group("inner") is not None or not tols:
            tol.setdefault(name, ", ".join(tols) or "-")
    legend = ""
    if any(v != "-" for v in tol.values()):
        legend = "length tolerance: " + "; ".join(f"{k} {v}" for k, v in tol.items())
    return out, legend


def _width(console: Any, table: Any) -> tuple[int, int]:
    from rich.measure import Measurement

    # measured without the console's limit (a table measures at most the width it is given)
    m = Measurement.get(console, console.options.update_width(100_000), table)
    return m.minimum, m.maximum


def print_fitted(console: Any, frame: pd.DataFrame, title: str = "", caption: str = "") -> None:
    """Print ``frame`` as a rich table that fits ``console.width`` without cutting a header:
    at its natural width when that fits, else with :func:`compact_columns` headers and their
    legend line, and when even that cannot fit and the columns hold two views (``[own list]``,
    ``[union]``), one table per view."""
    table = rich_table(frame, title=title, caption=caption)
    width = int(getattr(console, "width", 80) or 80)
    if _width(console, table)[1] <= width:
        console.print(table)
        return
    cols, legend = compact_columns([str(c) for c in frame.columns])
    narrow = frame.set_axis(cols, axis=1)
    cap = "; ".join(x for x in (caption, legend) if x)
    table = rich_table(narrow, title=title, caption=cap)
    views = [v for v in ("own list", "union") if any(c.endswith("\n" + v) for c in cols)]
    # long ranker names wrap or are cut either way: judge the data columns
    probe = narrow.set_axis([str(i)[:12] for i in narrow.index], axis=0)
    if _width(console, rich_table(probe))[0] <= width or len(views) < 2:
        console.print(table)
        return
    for view in views:
        other = [v for v in views if v != view]
        pick = [i for i, c in enumerate(cols) if not any(c.endswith("\n" + o) for o in other)]
        part = narrow.iloc[:, pick]
        part = part.set_axis([c.removesuffix("\n" + view) for c in part.columns], axis=1)
        console.print(rich_table(part, title=f"{title} [{view}]", caption=cap))


def _analyzer_note(diagnosis: Diagnosis) -> str:
    """``"; analyzer: thesis (...)"`` when the diagnosis records its text analysis."""
    an = (diagnosis.metadata or {}).get("analyzer")
    return f"; analyzer: {an}" if an else ""


class _PartialConsole:
    """Prints through ``console``, adding ``(partial: k of n shards)`` to every table's title, so
    that no table of an unfinished mining output can be read as the full result."""

    def __init__(self, console: Any, label: str) -> None:
        self._console = console
        self._label = label

    def print(self, *objects: Any, **kwargs: Any) -> None:
        from rich.table import Table

        for obj in objects:
            if isinstance(obj, Table):
                obj.title = f"{obj.title} ({self._label})" if obj.title else f"({self._label})"
        self._console.print(*objects, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._console, name)


def oracle_note(diagnosis: Diagnosis) -> str | None:
    """Why the qrels oracle fulfils strict axioms so rarely (``None`` without an oracle).

    The oracle scores a document by its label (unjudged = 0), so two unjudged or equally judged
    documents tie, and a strict relation (``>``) counts a tie as a violation. The note gives the
    share of the oracle's strict violations that are such ties."""
    name = next((r for r in diagnosis.references if r in diagnosis.outcomes), None)
    if name is None:
        return None
    inst = diagnosis.instances
    out = diagnosis.outcomes[name].to_numpy()
    strict = (inst["relation"].astype(str) == ">").to_numpy()
    violated = strict & (out == 0)
    n_viol = int(violated.sum())
    text = (
        f"{name}: scores each document by its relevance label (unjudged = 0), so documents "
        "with equal labels (both unjudged, or judged alike) tie, and a strict axiom (relation "
        "'>') counts a tie as a violation."
    )
    if n_viol and {"rel_a", "rel_b"} <= set(inst.columns):
        ra = pd.to_numeric(inst["rel_a"], errors="coerce").fillna(0).to_numpy()
        rb = pd.to_numeric(inst["rel_b"], errors="coerce").fillna(0).to_numpy()
        ties = int((violated & (ra == rb)).sum())
        text += (
            f" {ties:,} of its {n_viol:,} violated strict instances ({100 * ties / n_viol:.0f}%) "
            "are such ties"
        )
        text += (
            ": its low strict fulfilment measures how few instances separate judged-relevant "
            "from other documents, not a failure of the axioms."
        )
    return text


def legend_lines(diagnosis: Diagnosis) -> list[str]:
    """``name = spec`` for every ranker whose table name differs from what the user gave."""
    legend = (diagnosis.metadata or {}).get("legend") or {}
    return [f"{n} = {s}" for n, s in legend.items() if str(n) != str(s)]


def print_tables(
    diagnosis: Diagnosis,
    effectiveness: Any = None,
    console: Any = None,
    baseline: str | None = None,
    min_n: int = MIN_N,
) -> None:
    """Print the overview (Table 4.5 layout) and, with several variants, the variant table.

    Each table fits the console (:func:`print_fitted`): too wide for the terminal, the axiom
    headers lose their length tolerance to a legend line, and with two views of run files each
    view gets its own table, instead of headers cut to ``(δ*≤0…``.

    A diagnosis of an unfinished mining output (:attr:`Diagnosis.partial`) gets a warning line
    and its label on every table title.
    """
    if console is None:
        from rich.console import Console

        console = Console()
    partial = getattr(diagnosis, "partial", None)
    if partial:
        console.print(
            f"warning: diagnosed on an unfinished mining output ({partial}); the fractions "
            "cover only the queries of those shards",
            markup=False,
            style="yellow",
        )
        console = _PartialConsole(console, partial)
    ov = overview_frame(diagnosis, effectiveness, baseline=baseline, min_n=min_n)
    print_fitted(
        console,
        ov,
        title=f"Axiomatic diagnosis: {diagnosis.dataset_name} ({layout_title(diagnosis)})",
        caption=("measures, then " if len(normalize_effectiveness(effectiveness)) else "")
        + f"% fulfilled instances{probe_note(diagnosis, '; ')}; {UP}/{DOWN} = significantly "
        f"better/worse than {ov.attrs.get('baseline')} (Holm-corrected p<0.05; "
        + (f"measures: {ov.attrs['family']}; " if ov.attrs.get("family") else "")
        + "axioms: McNemar, Holm over the ranker pairs of each axiom); "
        f"(n=…): fewer than {min_n} instances" + _analyzer_note(diagnosis),
    )
    if len({g[1] for g in diagnosis.groups()}) > 1:
        print_fitted(
            console,
            variant_frame(diagnosis, with_counts=True),
            title="% fulfilled (instances) per axiom variant ("
            + layout_title(diagnosis, "4.6")
            + ")",
        )
    views = view_diagnoses(diagnosis)
    if len(views) > 1:
        console.print(views_note(), markup=False)
    note = oracle_note(diagnosis)
    if note:
        console.print(f"note: {note}", markup=False, highlight=False)
    legend = legend_lines(diagnosis)
    if legend:
        console.print("rankers: " + "; ".join(legend), markup=False, highlight=False)
    effects = effect_frame(diagnosis)
    if len(effects):
        print_fitted(
            console,
            effects.set_index(["view", "ranker"] if "view" in effects else ["ranker"]),
            title="Calibrated effects (no-difference band)",
            caption=effect_note(diagnosis),
        )
        console.print(band_line(diagnosis), markup=False, highlight=False)
    console.print(sample_line(diagnosis), markup=False, highlight=False)
    for view, d in views:
        for r, reasons in d.skips.items():
            for reason, n in reasons.items():
                if n:
                    console.print(
                        f"[yellow]note:[/] {r}: {n:,} instances skipped ({reason})"
                        + (f" in the {view} view" if view else "")
                    )

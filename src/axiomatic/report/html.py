"""A self-contained HTML report of a diagnosis: inline CSS, plots embedded as base64 PNG."""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from axiomatic._report import html_page, report_css
from axiomatic.diagnose.probes import PROBE_PREFIX
from axiomatic.diagnose.relations import SYMMETRIC_SUFFIX
from axiomatic.diagnose.result import Diagnosis
from axiomatic.diagnose.stats import MIN_P_N
from axiomatic.report import tables

CSS = report_css()
"""The page style of every HTML page (``axiomatic/resources/report.css``)."""


def _img(png: bytes, alt: str) -> str:
    b64 = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


def render_html(
    diagnosis: Diagnosis,
    effectiveness: Any = None,
    images: Mapping[str, bytes] | None = None,
    title: str = "Axiomatic diagnosis",
    notes: Sequence[str] = (),
    baseline: str | None = None,
    max_mcnemar_rows: int = 300,
    min_n: int = tables.MIN_N,
    measure: str | None = None,
    mean_over: Sequence[str] | None = None,
) -> str:
    """The report as one HTML string (no external resources). ``measure``: the effectiveness
    measure of the correlation section (default: nDCG@10 when present), the one of the
    correlation figure; ``min_n`` / ``mean_over``: as in :func:`~axiomatic.report.writer.write_report`."""
    esc = html.escape
    summ = diagnosis.summary()
    partial = getattr(diagnosis, "partial", None)
    if partial:  # an unfinished mining output: say so in the title and on every section
        title = f"{title} ({partial})"
    images = images or {}
    parts = [
        *(
            [
                f"<div class='note'>Diagnosed on an unfinished mining output ({esc(partial)}): "
                "the fractions cover only the queries of those shards.</div>"
            ]
            if partial
            else []
        ),
        f"<p class='meta'>dataset <b>{esc(str(summ['dataset']))}</b> · "
        f"{summ['instances']:,} instances over {summ['queries']:,} queries "
        f"({summ['artificial']:,} with artificial documents) · "
        f"rankers: {esc(', '.join(summ['rankers']))} · relevant = grade ≥ "
        f"{summ['rel_threshold']}"
        + (
            f" · analyzer <code>{esc(str(diagnosis.metadata['analyzer']))}</code>"
            if (diagnosis.metadata or {}).get("analyzer")
            else ""
        )
        + f" · generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC</p>",
        f"<p class='meta'>{esc(tables.sample_line(diagnosis))}: the SHA-256 of the instances' "
        "query ids, documents, axioms and expected directions and of the query and document "
        "texts, in any order (full digest: "
        "<code>summary.sample_sha256</code> in diagnosis.json)</p>",
    ]
    ov = tables.overview_frame(diagnosis, effectiveness, baseline=baseline, min_n=min_n)
    base = ov.attrs.get("baseline")
    probes = tables.probe_note(diagnosis)
    parts.append("<h2>Overview</h2>")
    parts.append(
        "<p>"
        + (
            "Effectiveness measures, then the fraction"
            if len(tables.normalize_effectiveness(effectiveness))
            else "The fraction"
        )
        + " of fulfilled diagnostic instances per axiom "
        f"(%). {tables.UP}/{tables.DOWN}: significantly better/worse than the baseline "
        f"<b>{esc(str(base))}</b> (Holm-corrected p &lt; 0.05; "
        + (f"effectiveness: {esc(str(ov.attrs['family']))}; " if ov.attrs.get("family") else "")
        + "axioms: McNemar, Holm over the ranker pairs of each axiom); "
        f"(n=…): fewer than {min_n} instances. "
        f"{esc(tables.layout_title(diagnosis)[:1].upper() + tables.layout_title(diagnosis)[1:])}"
        + (
            "; each axiom column names its δ* "
            "(maximum relative length difference of the documents of an instance)."
            if any(tables.length_tolerance(g[2])[1] for g in diagnosis.groups())
            else "."
        )
        + (f" {esc(probes[:1].upper() + probes[1:])}." if probes else "")
        + ("" if len(tables.view_diagnoses(diagnosis)) < 2 else " " + esc(tables.views_note()))
        + (
            f" Groups marked {esc(SYMMETRIC_SUFFIX.strip())}: instances whose preconditions "
            "hold both ways, so the axiom expects equal scores (only a tie fulfils them)."
            if any(
                g[2].endswith(SYMMETRIC_SUFFIX) and not g[0].startswith(PROBE_PREFIX)
                for g in diagnosis.groups()
            )
            else ""
        )
        + "</p>"
    )
    parts.append(f"<div class='scroll'>{tables.to_html_table(ov)}</div>")
    legend = (diagnosis.metadata or {}).get("legend") or {}
    if any(str(n) != str(v) for n, v in legend.items()):
        parts.append(
            "<p class='meta'>Rankers: "
            + " · ".join(
                f"<b>{esc(str(n))}</b> = <code>{esc(str(v))}</code>" for n, v in legend.items()
            )
            + "</p>"
        )
    note = tables.oracle_note(diagnosis)
    if note:
        parts.append(f"<div class='note'>{esc(note)}</div>")
    effects = tables.effect_frame(diagnosis)
    if len(effects):
        parts.append(
            f"<h2>Calibrated effects</h2><p>{esc(tables.effect_note(diagnosis))}. "
            f"{esc(str(tables.band_line(diagnosis)))}.</p>"
        )
        parts.append(f"<div class='scroll'>{tables.to_html_table(effects, index=False)}</div>")
    variants = {g[1] for g in diagnosis.groups()}
    if len(variants) > 1:
        parts.append(
            "<h2>Axiom variants</h2><p>Fulfilment (%) and instance counts per variant "
            f"(original = strict, extended, relaxed; {esc(tables.layout_title(diagnosis, '4.6'))})."
            "</p>"
        )
        parts.append(
            f"<div class='scroll'>{tables.to_html_table(tables.variant_frame(diagnosis, True))}</div>"
        )
    if "bars" in images:
        parts.append(_img(images["bars"], "fulfilment per axiom"))

    parts.append("<h2>Instances</h2>")
    counts = diagnosis.table()
    first = counts[counts["ranker"] == diagnosis.rankers[0]][["axiom", "variant", "spec"]].copy()
    first.insert(2, "δ*", [tables.length_tolerance(s)[1] or "-" for s in first["spec"]])
    keys = diagnosis.group_keys().assign(query_id=diagnosis.instances["query_id"].to_numpy())
    per = keys.groupby(["spec"], sort=False).agg(
        instances=("query_id", "size"), queries=("query_id", "nunique")
    )
    first = first.join(per, on="spec")
    parts.append(tables.to_html_table(first.reset_index(drop=True), index=False))

    skip_rows = [
        {"view": view or "-", "ranker": r, "reason": reason, "instances skipped": f"{n:,}"}
        for view, d in tables.view_diagnoses(diagnosis)
        for r, reasons in d.skips.items()
        for reason, n in reasons.items()
        if n
    ]
    if skip_rows:
        import pandas as pd

        parts.append("<p>Skipped instances (not counted in the fractions):</p>")
        parts.append(tables.to_html_table(pd.DataFrame(skip_rows), index=False))
    for line in notes:
        parts.append(f"<div class='note'>{esc(line)}</div>")

    if "delta_sweep" in images or "delta_diff" in images:
        parts.append(
            "<h2>Document length differences (δ*)"
            + esc(tables.view_label(diagnosis.view if diagnosis.views else ""))
            + "</h2><p>Fulfilment among instances "
            "whose relative length difference is at most δ* (Rennings 2019, Figs "
            "4.5–4.8), on a numeric δ* axis (linear to 0.1, logarithmic above) that ends at "
            "the δ* each axiom was mined at. Along the top: the rankers' instance counts at "
            "that δ* (lowest–highest: each ranker's own, in its own list); hollow points rest "
            f"on fewer than {int(min_n)} instances.</p>"
        )
        for key in ("delta_sweep", "delta_diff"):
            if key in images:
                parts.append(_img(images[key], key))
    corr_measure = (
        tables.default_measure(effectiveness, measure) if effectiveness is not None else None
    )
    if "correlation" in images or corr_measure is not None:
        parts.append(
            "<h2>Axiomatic performance vs effectiveness ("
            + esc(str(corr_measure or measure or ""))
            + ")</h2>"
        )
        if "correlation" in images:
            parts.append(_img(images["correlation"], f"correlation with {corr_measure}"))
        if corr_measure is not None:
            parts.append(
                f"<p>Effectiveness measure: <b>{esc(corr_measure)}</b> (in the figure, this "
                "table and correlation.csv alike; <code>--measure</code> chooses it). A "
                f"fulfilment fraction over fewer than {int(min_n)} instances is left out "
                "(hollow grey in the figure; column left_out) and so is its axiom from the mean, "
                "whose row names the axioms it averages. Rank correlations (Spearman ρ, "
                "Kendall τ, with p-values) first: with few systems, Pearson's r is driven by "
                "clusters (e.g. lexical vs neural) and says little about the order within them; "
                f"n = number of systems; p-values from {MIN_P_N} systems on (over fewer, "
                "no order can be significant: '-').</p>"
            )
            try:
                corr = tables.correlation_frame(
                    diagnosis, effectiveness, corr_measure, min_n, mean_over
                )
            except (KeyError, ValueError):
                corr = None
            if corr is not None and len(corr):
                cols = [
                    "n",
                    "spearman",
                    "spearman_p",
                    "kendall",
                    "kendall_p",
                    "pearson",
                    "pearson_p",
                    "left_out",
                ]
                show = corr[cols].copy()
                show.index = [
                    str(lab) + tables.view_label(str(v))
                    for lab, v in zip(
                        corr["label"],
                        corr["view"] if "view" in corr else [""] * len(corr),
                        strict=True,
                    )
                ]
                show.index.name = f"axiom (vs {corr_measure})"
                show["left_out"] = show["left_out"].replace("", "-")
                parts.append(f"<div class='scroll'>{tables.to_html_table(show)}</div>")

    parts.append(
        "<h2>By relevance of the documents"
        + esc(tables.view_label(tables.view_diagnoses(diagnosis)[0][0]))
        + "</h2><p>Fulfilment (%) and counts by the "
        "relevance of doc_a (prescribed higher) and doc_b"
        + (
            f", in the {esc(diagnosis.view)} view (the union view is in by_relevance.csv)"
            if diagnosis.views
            else ""
        )
        + ".</p>"
    )
    parts.append(
        f"<div class='scroll'>{tables.to_html_table(tables.relevance_frame(diagnosis), index=False)}</div>"
    )

    mc = diagnosis.mcnemar()
    if len(mc):
        labels = tables.group_labels(diagnosis)
        mc = mc.assign(axiom=mc["spec"].map(labels))
        show = mc[
            [
                "axiom",
                "ranker_a",
                "ranker_b",
                "fraction_a",
                "fraction_b",
                "n",
                "a_only",
                "b_only",
                "pvalue",
                "pvalue_holm",
                "significant",
            ]
        ]
        n_sig = int(mc["significant"].sum())
        parts.append(
            "<h2>McNemar tests"
            + esc(tables.view_label(diagnosis.view if diagnosis.views else ""))
            + f"</h2><details><summary>{len(mc)} pairwise tests, "
            f"{n_sig} significant after Holm correction</summary>"
        )
        parts.append(tables.to_html_table(show.head(max_mcnemar_rows), index=False))
        parts.append("</details>")
    page = html_page(title, parts, css=CSS)
    if partial:
        page = page.replace("</h2>", f" <small>({esc(partial)})</small></h2>")
    return page

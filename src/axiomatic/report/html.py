"""A self-contained HTML report of a diagnosis: inline CSS, plots embedded as base64 PNG."""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from axiomatic.diagnose.diagnosis import SYMMETRIC_SUFFIX, Diagnosis
from axiomatic.report import tables

CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2rem auto;
max-width:1200px;color:#222;line-height:1.45;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}
.meta{color:#666;font-size:.9rem}
table.tbl{border-collapse:collapse;font-size:.85rem;margin:.6rem 0;font-variant-numeric:tabular-nums}
table.tbl th,table.tbl td{padding:.25rem .55rem;border-bottom:1px solid #eee;text-align:right}
table.tbl thead th{background:#f5f6f8;border-bottom:2px solid #ccc;position:sticky;top:0}
table.tbl th.row{text-align:left}
table.tbl tbody tr:hover{background:#fafbff}
td.up{color:#0a7a2f;font-weight:600}td.down{color:#b3261e;font-weight:600}
.note{background:#fff8e1;border-left:4px solid #f2b705;padding:.5rem .8rem;margin:.6rem 0;
font-size:.9rem}
img{max-width:100%;border:1px solid #eee;margin:.4rem 0}
.scroll{overflow-x:auto}
details summary{cursor:pointer;color:#345}
"""


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
    min_n: int = 30,
) -> str:
    """The report as one HTML string (no external resources)."""
    esc = html.escape
    summ = diagnosis.summary()
    partial = getattr(diagnosis, "partial", None)
    if partial:  # an unfinished mining output: say so in the title and on every section
        title = f"{title} ({partial})"
    images = images or {}
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
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
    ]
    ov = tables.overview_frame(diagnosis, effectiveness, baseline=baseline, min_n=min_n)
    base = ov.attrs.get("baseline")
    parts.append("<h2>Overview</h2>")
    parts.append(
        "<p>Effectiveness measures, then the fraction of fulfilled diagnostic instances per axiom "
        f"(%). {tables.UP}/{tables.DOWN}: significantly better/worse than the baseline "
        f"<b>{esc(str(base))}</b> (effectiveness: paired t-test; axioms: McNemar; Holm-corrected, "
        f"p &lt; 0.05); (n=…): fewer than {min_n} instances. "
        f"{esc(tables.layout_title(diagnosis)[:1].upper() + tables.layout_title(diagnosis)[1:])}; "
        "each axiom column names its δ* "
        "(maximum relative length difference of the documents of an instance)."
        + ("" if len(tables.view_diagnoses(diagnosis)) < 2 else " " + esc(tables.views_note()))
        + (
            f" Groups marked {esc(SYMMETRIC_SUFFIX.strip())}: instances whose preconditions "
            "hold both ways, so the axiom expects equal scores (only a tie fulfils them)."
            if any(g[2].endswith(SYMMETRIC_SUFFIX) for g in diagnosis.groups())
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
    keys = diagnosis._keys().assign(query_id=diagnosis.instances["query_id"].to_numpy())
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
            "4.5–4.8); instance counts along the top axis.</p>"
        )
        for key in ("delta_sweep", "delta_diff"):
            if key in images:
                parts.append(_img(images[key], key))
    if "correlation" in images:
        parts.append("<h2>Axiomatic performance vs effectiveness</h2>")
        parts.append(_img(images["correlation"], "correlation"))
        if effectiveness is not None:
            parts.append(
                "<p>Rank correlations (Spearman ρ, Kendall τ, with p-values) first: with few "
                "systems, Pearson's r is driven by clusters (e.g. lexical vs neural) and says "
                "little about the order within them; n = number of systems.</p>"
            )
            for view, d in tables.view_diagnoses(diagnosis):
                try:
                    corr = d.correlation(tables.effectiveness_wide(effectiveness))
                except (KeyError, ValueError):
                    continue
                show = corr[
                    [
                        "spec",
                        "measure",
                        "n",
                        "spearman",
                        "spearman_p",
                        "kendall",
                        "kendall_p",
                        "pearson",
                        "pearson_p",
                    ]
                ].set_index("spec")
                labels = tables.group_labels(d) | {"mean": "mean over axioms"}
                show.index = [labels.get(s, s) + tables.view_label(view) for s in show.index]
                show.index.name = "axiom"
                parts.append(tables.to_html_table(show))

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
    parts.append("</body></html>")
    page = "\n".join(parts)
    if partial:
        page = page.replace("</h2>", f" <small>({esc(partial)})</small></h2>")
    return page

"""Writing an :class:`~axiomatic.explain.model.Explanation`: CSV tables, one PNG plot and a
markdown / HTML section (the only I/O of the package)."""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

import pandas as pd

from axiomatic._atomic import atomic_write_text
from axiomatic._report import (
    html_page,
    html_table,
    markdown_frame,
    new_figure,
    plain_text,
    save_figure,
)
from axiomatic.explain.model import Explanation

SUMMARY_COLUMNS = [
    "system",
    "queries",
    "pairs",
    "fidelity",
    "ci_low",
    "ci_high",
    "fidelity_decided",
    "share_undecided",
    "random_fidelity",
    "top_axioms",
]


def _md(frame: pd.DataFrame) -> str:
    return markdown_frame(frame, floats="{:.3f}")


def wide_importances(expl: Explanation, top: int | None = None) -> pd.DataFrame:
    """Axioms x systems table of importances (axioms ordered by their mean importance)."""
    w = expl.importances.pivot(index="axiom", columns="system", values="importance")
    w = w[list(dict.fromkeys(expl.summary["system"]))]
    w = w.loc[w.mean(axis=1).sort_values(ascending=False).index]
    if top is not None:
        w = w.head(top)
    return w


def wide_buckets(table: pd.DataFrame, key: str) -> pd.DataFrame:
    w = table.pivot(index=key, columns="system", values="fidelity")
    order = list(dict.fromkeys(table[key]))
    return w.loc[order, list(dict.fromkeys(table["system"]))]


def plot_explanation(expl: Explanation, path: str | Path) -> Path:
    """Fidelity by rank / score difference per system and the importance heat map (every
    system and axiom name escaped with :func:`~axiomatic._report.plain_text`), written
    atomically in the format the file name ends with."""
    path = Path(path)
    rank = wide_buckets(expl.by_rank, "rank_diff")
    score = wide_buckets(expl.by_score, "score_diff")
    imp = wide_importances(expl, top=12)
    fig, axes = new_figure(1, 3, figsize=(15, 4.2))
    for ax, table, xlabel in (
        (axes[0], rank, "rank difference"),
        (axes[1], score, "score difference (normalized)"),
    ):
        for system in table.columns:
            ax.plot(
                range(len(table)), table[system].to_numpy(), marker="o", label=plain_text(system)
            )
        ax.axhline(0.5, color="grey", ls=":", lw=0.8)
        ax.set_xticks(range(len(table)))
        ax.set_xticklabels([plain_text(b) for b in table.index], rotation=30, fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("fidelity (held-out)")
        ax.set_ylim(0.3, 1.0)
    axes[0].legend(fontsize=7)
    im = axes[2].imshow(imp.to_numpy(dtype=float), aspect="auto", cmap="viridis")
    axes[2].set_yticks(range(len(imp)))
    axes[2].set_yticklabels([plain_text(a) for a in imp.index], fontsize=8)
    axes[2].set_xticks(range(len(imp.columns)))
    axes[2].set_xticklabels(
        [plain_text(c) for c in imp.columns], rotation=30, fontsize=8, ha="right"
    )
    axes[2].set_title("axiom importance (mean decrease in impurity)", fontsize=9)
    fig.colorbar(im, ax=axes[2])
    fig.tight_layout()
    return save_figure(fig, path)


def markdown_section(
    expl: Explanation, image: str | None = None, title: str = "Axiomatic explanations"
) -> str:
    """A markdown section: summary, buckets, importances (and the plot when ``image``)."""
    s = expl.settings
    summ = expl.summary[[c for c in SUMMARY_COLUMNS if c in expl.summary.columns]]
    parts = [
        f"## {title}",
        "",
        f"Random forest ({s.get('n_estimators')} trees, seed {s.get('seed')}) over the ternary "
        f"preferences of {len(s.get('axioms', []))} pairwise axioms for "
        + (
            f"a seeded sample of at most {s['max_pairs']} pairs per query"
            if s.get("max_pairs")
            else "all pairs"
        )
        + f" of each system's top-{s.get('depth')} documents; fidelity = accuracy of held-out predictions "
        f"of the system's pairwise order ({s.get('folds')} query-grouped folds; 95% interval by "
        "query bootstrap). `fidelity_decided`: on the pairs where at least one axiom is decisive; "
        "`random_fidelity`: the same pipeline explaining a seeded random ranking (~0.5).",
        "",
        _md(summ),
        "",
        "Fidelity by rank difference:",
        "",
        _md(wide_buckets(expl.by_rank, "rank_diff").reset_index()),
        "",
        "Fidelity by normalized score difference:",
        "",
        _md(wide_buckets(expl.by_score, "score_diff").reset_index()),
        "",
        "Axiom importances (mean decrease in impurity, mean over folds; top 12):",
        "",
        _md(wide_importances(expl, top=12).reset_index()),
        "",
        "Coverage (share of pairs where the axiom is decisive) and agreement (share of its "
        "decisive pairs where it prefers the document the system ranks higher), top 5 axioms "
        "per system:",
        "",
        _md(
            expl.importances.groupby("system", sort=False)
            .head(5)[["system", "axiom", "importance", "coverage", "agreement"]]
            .reset_index(drop=True)
        ),
    ]
    if image:
        parts += ["", f"![explanations]({image})"]
    return "\n".join(parts) + "\n"


FIDELITY_TEXT = (
    "<b>Fidelity</b> is the share of a system's document pairs whose order a random forest over "
    "the axioms' preferences predicts correctly, on queries it was not trained on "
    "(query-grouped cross-validation): how much of the system's ranking the axioms explain. "
    "<b>Random fidelity</b> is the same pipeline on the same pairs ordered by a seeded random "
    "ranking instead of the system: it should be near 0.5, and only the margin above it is "
    "explained by the axioms. <code>fidelity_decided</code> counts only the pairs on which at "
    "least one axiom has a preference (<code>share_undecided</code>: the pairs with none, where "
    "the forest can only guess). Importances are the forest's mean decrease in impurity per "
    "axiom: which axioms the explanation leans on, not whether the system satisfies them."
)


def html_frame(frame: pd.DataFrame) -> str:
    """A table of the explanation pages (the one HTML table writer,
    :func:`axiomatic._report.html_table`; numbers to 3 decimals, no index), scrolling when
    wide."""
    return (
        "<div class='scroll'>"
        + html_table(frame, index=False, floats=_three_decimals, css_class="dataframe tbl")
        + "</div>"
    )


def _three_decimals(x: float) -> str:
    return "NaN" if math.isnan(x) else f"{x:.3f}"


def html_section(
    expl: Explanation, image: str | None = None, title: str = "Axiomatic explanations"
) -> str:
    """The same content as :func:`markdown_section` as a stand-alone HTML page (the one page
    shell, :func:`axiomatic._report.html_page`, styled as the diagnosis report) saying what
    fidelity and random fidelity mean."""
    s = expl.settings
    esc = html.escape
    setting = (
        f"Random forest ({s.get('n_estimators')} trees, seed {s.get('seed')}) over the ternary "
        f"preferences of {len(s.get('axioms', []))} pairwise axioms, "
        + (
            f"a seeded sample of at most {s['max_pairs']} pairs per query"
            if s.get("max_pairs")
            else "all pairs"
        )
        + f" of each system's top-{s.get('depth')} documents; {s.get('folds')} query-grouped "
        "folds; 95% interval by query bootstrap."
    )
    body = [
        f"<p class='meta'>{esc(setting)}</p>",
        f"<div class='note'>{FIDELITY_TEXT}</div>",
        "<h2>Fidelity per system</h2>",
        html_frame(expl.summary[[c for c in SUMMARY_COLUMNS if c in expl.summary.columns]]),
        "<h2>Fidelity by rank difference</h2>",
        "<p>Pairs far apart in the ranking are easier to order than neighbours.</p>",
        html_frame(wide_buckets(expl.by_rank, "rank_diff").reset_index()),
        "<h2>Fidelity by normalized score difference</h2>",
        html_frame(wide_buckets(expl.by_score, "score_diff").reset_index()),
        "<h2>Axiom importances</h2>",
        "<p>Mean decrease in impurity, mean over folds (top 12).</p>",
        html_frame(wide_importances(expl, top=12).reset_index()),
    ]
    if image:
        body.append(f'<img src="{esc(image)}" alt="explanations">')
    return html_page(title, body)


def write_explanation(
    expl: Explanation, out_dir: str | Path, title: str = "Axiomatic explanations"
) -> dict[str, Any]:
    """CSV tables, ``explanations.png``, ``explanations.md`` and ``explanations.html`` in
    ``out_dir`` (each written atomically); returns the written paths by kind."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Any] = {}
    for attr in ("summary", "by_rank", "by_score", "importances"):
        p = out / f"explanation_{attr}.csv"
        atomic_write_text(p, getattr(expl, attr).to_csv(index=False))
        files[attr] = p
    files["plot"] = plot_explanation(expl, out / "explanations.png")
    md = out / "explanations.md"
    atomic_write_text(md, markdown_section(expl, "explanations.png", title))
    files["markdown"] = md
    page = out / "explanations.html"
    atomic_write_text(page, html_section(expl, "explanations.png", title))
    files["html"] = page
    return files

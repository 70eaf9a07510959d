"""PNG plots of a diagnosis (matplotlib, Agg canvas; no pyplot global state).

* :func:`plot_delta_sweep` - fulfilment per delta* per axiom on a numeric δ* axis cut at the
  mined δ*, with each ranker's instance counts on top (Rennings 2019, Figs 4.5/4.6;
  ``value="diff_vs_0"`` gives Figs 4.7/4.8);
* :func:`plot_correlation` - axiomatic performance vs one effectiveness measure (named in the
  title) with a ``numpy.polyfit`` trend line (Fig. 4.2), cells under ``min_n`` instances hollow
  and left out, one legend for the rankers;
* :func:`plot_axiom_bars` - fulfilment per axiom and ranker with 95% Wilson intervals, a
  horizontal dot plot faceted over panels so that 25 axioms fit a laptop screen.

Each returns the PNG as bytes and writes it (atomically) when ``path`` is given. Titles sit in
a band of their own above the panels and legends in one below them, sized to their text
(:func:`_legend_layout`), so that nothing is clipped or drawn over a panel title. Every name a
user chose (rankers, run tags, axiom specs, measures) goes through :func:`plain_text` before it
reaches a title, label, tick or legend: matplotlib reads ``$...$`` as mathtext, and a run tagged
``$\\foo{$`` would otherwise crash the report after the work was done.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from axiomatic._atomic import atomic_write_bytes
from axiomatic._report import FIGURE_DPI, figure_bytes, new_figure, plain_text
from axiomatic.diagnose.result import Diagnosis

DPI = FIGURE_DPI


def _figure(n_panels: int, panel_w: float = 4.2, panel_h: float = 3.2, max_cols: int = 3) -> Any:
    cols = max(1, min(max_cols, n_panels))
    rows = max(1, math.ceil(n_panels / cols))
    fig, axes = new_figure(
        rows, cols, figsize=(panel_w * cols, panel_h * rows + 0.6), dpi=DPI, squeeze=False
    )
    axes = axes.ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _colors(names: list[str], references: list[str]) -> dict[str, Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    out: dict[str, Any] = {}
    i = 0
    for n in names:
        if n in references:
            out[n] = "0.35"
        else:
            out[n] = cmap(i % 10)
            i += 1
    return out


def _finish(fig: Any, path: str | os.PathLike[str] | None, diagnosis: Any = None) -> bytes:
    view = getattr(diagnosis, "view", "") if getattr(diagnosis, "views", None) else ""
    if view:  # a diagnosis with two views: say which one the figure shows
        fig.suptitle(plain_text(f"{view} view"), fontsize=9)
    fig.tight_layout()
    data = figure_bytes(fig, "png", DPI)
    if path is not None:
        atomic_write_bytes(Path(path), data)
    return data


def _labels(diagnosis: Diagnosis) -> dict[str, str]:
    from axiomatic.report.tables import group_labels

    return group_labels(diagnosis)


def plot_delta_sweep(
    diagnosis: Diagnosis,
    path: str | os.PathLike[str] | None = None,
    value: str = "fraction",
    sweep: pd.DataFrame | None = None,
    min_n: int | None = None,
) -> bytes:
    """Fulfilment (or ``diff_vs_0``) per delta* for every axiom group with a length difference.

    A numeric δ* axis (linear to 0.1, logarithmic above, so that the thesis grid's 0-0.1 steps
    of 0.01 and 0.2-1.0 steps of 0.1 both stay readable), cut at the δ* the group was mined
    with (beyond it every value repeats): the panel title names that δ*, so it never claims
    "δ*≤0.1" over an axis running to 1.0. Along the top: each δ*'s instance count per ranker
    (its own n in its own view; "lo-hi" when the rankers differ), and points over fewer than
    ``min_n`` instances (default :data:`axiomatic.report.tables.MIN_N`) are drawn hollow.
    Groups mined at δ* = 0 (strict / extended forms: equal lengths) have nothing to sweep and
    are left out, and so are groups with fewer than ``min_n`` instances at every δ* (named in
    the figure's head: a sweep over two instances is noise).
    """
    from matplotlib.ticker import NullLocator

    from axiomatic.report.tables import MIN_N, base_spec, length_tolerance

    if value not in ("fraction", "diff_vs_0"):
        raise ValueError(f"value must be 'fraction' or 'diff_vs_0' (got {value!r})")
    min_n = MIN_N if min_n is None else int(min_n)
    sw = diagnosis.delta_sweep() if sweep is None else sweep
    labels = _labels(diagnosis)
    # a group mined at δ*=0 (equal lengths) has nothing to sweep: it is left out
    specs = [s for s in labels if s in set(sw["spec"]) and length_tolerance(s)[0] != 0]
    # a sweep over a handful of instances is noise: a group whose largest count (at its mined
    # δ*) is under min_n gets no panel, and the figure names it
    own_sw = sw[~sw["ranker"].isin(diagnosis.references)]
    most = (own_sw if len(own_sw) else sw).groupby("spec")["n"].max()
    small = [s for s in specs if int(most.get(s, 0)) < min_n]
    specs = [s for s in specs if s not in small]
    left_out = (
        f"no panel (fewer than {min_n} instances): "
        + ", ".join(f"{plain_text(labels[s])} (n={int(most.get(s, 0))})" for s in small)
        if small
        else ""
    )
    fig, axes = _figure(max(1, len(specs)))
    if not specs:
        axes[0].text(
            0.5,
            0.5,
            "no axiom group with a length difference" + (f"\n{left_out}" if left_out else ""),
            ha="center",
            va="center",
            transform=axes[0].transAxes,
        )
        axes[0].set_axis_off()
        return _finish(fig, path, diagnosis)
    colors = _colors(diagnosis.rankers, diagnosis.references)
    for ax, spec in zip(axes, specs, strict=True):
        sub = sw[sw["spec"] == spec]
        mined, tol = length_tolerance(spec)
        deltas = sorted(set(sub["delta"]))
        if mined is not None and mined > 0:
            deltas = [d for d in deltas if d <= mined + 1e-9] or deltas[:1]
        sub = sub[sub["delta"].isin(deltas)]
        for r in diagnosis.rankers:
            s = sub[sub["ranker"] == r].sort_values("delta")
            if not s[value].notna().any():
                continue
            ls = "--" if r in diagnosis.references else "-"
            xs, ys = s["delta"].to_numpy(float), s[value].to_numpy(float)
            ax.plot(xs, ys, ls, lw=1.3, color=colors[r], label=plain_text(r))
            small = s["n"].to_numpy() < min_n
            ax.plot(xs[~small], ys[~small], "o", ms=3, color=colors[r])
            if small.any():
                ax.plot(xs[small], ys[small], "o", ms=3, mfc="white", color=colors[r])
        ax.set_xscale("symlog", linthresh=0.1, linscale=1.0)
        ax.set_xlim(-0.003, max(deltas) * 1.04 if max(deltas) > 0 else 0.01)
        ticks = [t for t in (0, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0) if t <= max(deltas) + 1e-9]
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}" for t in ticks], fontsize=7)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("δ* (max. relative length difference; log above 0.1)", fontsize=8)
        ax.set_ylabel(
            "fulfilled fraction" if value == "fraction" else "|Δ fraction| vs δ*=min", fontsize=8
        )
        if value == "fraction":
            ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        own = sub[~sub["ranker"].isin(diagnosis.references)]
        n_at = (own if len(own) else sub).groupby("delta")["n"].agg(["min", "max"])
        at_x = ax.get_xaxis_transform()  # x in data, y in axes coordinates
        for d in (t for t in (0.0, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0) if t in n_at.index):
            lo, hi = int(n_at.loc[d, "min"]), int(n_at.loc[d, "max"])
            ax.text(
                d,
                1.01,
                f"{lo}" if lo == hi else f"{lo}-{hi}",
                transform=at_x,
                rotation=90,
                fontsize=6,
                ha="center",
                va="bottom",
                color="0.3",
            )
        ax.text(-0.01, 1.01, "n:", transform=ax.transAxes, fontsize=6, ha="right", va="bottom")
        # the title sits above the rotated counts (~0.62 em per character of DejaVu Sans)
        longest = max((len(t.get_text()) for t in ax.texts), default=2)
        name = base_spec(labels[spec]).split(" (")[0]
        eq = " [equal]" if labels[spec].endswith("[equal]") else ""
        ax.set_title(
            plain_text(f"{name}{eq}: mined at {tol}" if tol else f"{name}{eq}"),
            fontsize=10,
            pad=6 + 0.62 * 6 * longest,
        )
    handles, _ = axes[0].get_legend_handles_labels()
    head = f"hollow: fewer than {min_n} instances" + (f"; {left_out}" if left_out else "")
    return _legend_layout(fig, handles, path, diagnosis, head, fontsize=8)


def _legend_columns(names: list[str], width_in: float, fontsize: float) -> tuple[list[str], int]:
    """As many legend columns as the figure's width holds, full names kept (a name longer than
    the whole width is cut with an ellipsis); matplotlib clips a figure legend that is too wide
    instead of wrapping it. Widths estimated from the name lengths (~0.6 em per character of
    DejaVu Sans)."""
    char_in = 0.6 * fontsize / 72
    fit = max(8, int((width_in - 0.9) / char_in))
    names = [_short(nm, fit) for nm in names]
    col_in = char_in * max(len(nm) for nm in names) + 0.7  # line handle and spacing
    return names, max(1, min(len(names), int((width_in - 0.2) // col_in)))


def _legend_layout(
    fig: Any,
    handles: list[Any],
    path: str | os.PathLike[str] | None,
    diagnosis: Any = None,
    head: str = "",
    fontsize: float = 8,
) -> bytes:
    """Lay out ``fig`` with a title band on top (``head`` and, for a diagnosis with two views,
    which view the figure shows) and a legend band at the bottom, then save as :func:`_finish`
    does. The legend gets as many columns as fit the figure's width, measured on the rendered
    legend (names kept whole unless one alone is wider than the figure), and the band is its
    measured height; ``tight_layout`` keeps the suptitle's room. So no title overlaps a panel
    title and no legend entry is clipped at the edges, whatever the number of rankers."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    view = getattr(diagnosis, "view", "") if getattr(diagnosis, "views", None) else ""
    title = "; ".join(x for x in (f"{view} view" if view else "", head) if x)
    width = fig.get_figwidth()
    if title:
        lines = _wrap(title, width, fontsize + 1)
        fig.set_figheight(fig.get_figheight() + 0.2 * len(lines) + 0.1)
        fig.suptitle(plain_text("\n".join(lines)), fontsize=fontsize + 1)
    band = 0.0
    if handles:
        renderer = FigureCanvasAgg(fig).get_renderer()
        names, _ = _legend_columns([h.get_label() for h in handles], width, fontsize)
        legend = None
        for ncol in range(min(len(names), 8), 0, -1):
            if legend is not None:
                legend.remove()
            legend = fig.legend(
                handles, names, loc="lower center", ncol=ncol, fontsize=fontsize, frameon=False
            )
            box = legend.get_window_extent(renderer)
            if box.width <= (width - 0.1) * fig.dpi:
                break
        assert legend is not None
        band = legend.get_window_extent(renderer).height / fig.dpi + 0.05
        fig.set_figheight(fig.get_figheight() + band)
    fig.tight_layout(rect=(0, band / fig.get_figheight(), 1, 1))  # suptitle room kept by it
    data = figure_bytes(fig, "png", DPI)
    if path is not None:
        atomic_write_bytes(Path(path), data)
    return data


def _wrap(text: str, width_in: float, fontsize: float) -> list[str]:
    """``text`` broken at spaces into lines that fit ``width_in`` inches (estimated widths)."""
    import textwrap

    chars = max(20, int((width_in - 0.3) / (0.6 * fontsize / 72)))
    return textwrap.wrap(text, chars) or [text]


MIN_CORRELATION_N = 5
"""Fewer systems than this: a panel shows n and the p-value, and no Pearson r or trend line."""


def plot_correlation(
    diagnosis: Diagnosis,
    effectiveness: Any,
    measure: str | None = None,
    path: str | os.PathLike[str] | None = None,
    min_n: int | None = None,
    mean_over: Any = None,
) -> bytes:
    """Axiomatic performance (x) vs retrieval effectiveness (y), one panel per axiom group plus
    the mean over groups (Rennings 2019, Fig. 4.2).

    One measure (default nDCG@10, as the report's tables), named in the figure title and on
    every y axis. Readable with many rankers: fixed-size panels (at most 4 per row), one marker
    shape and colour per ranker explained once in a shared legend, and each title leads with
    the rank correlation, its p-value and n. A fraction over fewer than ``min_n`` instances
    (default :data:`axiomatic.report.tables.MIN_N`) is drawn hollow and grey with its count and
    left out of the coefficients, the trend line and the mean, whose panel names the axioms it
    averages. With fewer than :data:`MIN_CORRELATION_N` systems the title says so and no trend
    line is drawn.
    """
    from matplotlib.lines import Line2D

    from axiomatic.diagnose import stats
    from axiomatic.report.tables import MIN_N, _correlation_inputs

    if isinstance(effectiveness, pd.Series):
        effectiveness = effectiveness.to_frame()
    min_n = MIN_N if min_n is None else int(min_n)
    frac, counts, eff, labels, raw = _correlation_inputs(
        diagnosis, effectiveness, measure, min_n, mean_over
    )
    keep = list(frac.index)
    specs = list(frac.columns)
    fig, axes = _figure(max(1, len(specs)), panel_w=3.4, panel_h=3.0, max_cols=4)
    colors = _colors(keep, [])
    markers = "osD^vP*Xh<>p"
    style = {r: markers[(i // 10) % len(markers)] for i, r in enumerate(keep)}
    y = eff.to_numpy(dtype=float)
    greyed = False
    for ax, spec in zip(axes, specs, strict=True):
        x = frac[spec].to_numpy(dtype=float)
        x_raw = raw[spec].to_numpy(dtype=float) if spec in raw else np.full(len(keep), np.nan)
        n_of = counts[spec].to_numpy()
        panel_grey = False
        for xi, xr, ni, yi, r in zip(x, x_raw, n_of, y, keep, strict=True):
            if not np.isnan(xi):
                ax.scatter([xi], [yi], color=colors[r], marker=style[r], s=30, zorder=3)
            elif not np.isnan(xr):  # below min_n: hollow grey, with its count, not counted
                greyed = panel_grey = True
                ax.scatter(
                    [xr],
                    [yi],
                    facecolors="none",
                    edgecolors="0.6",
                    marker=style[r],
                    s=30,
                    zorder=2,
                )
                ax.annotate(
                    f"n={int(ni)}",
                    (xr, yi),
                    textcoords="offset points",
                    xytext=(4, 3),
                    fontsize=6,
                    color="0.45",
                )
        c = pd.Series(stats.correlation(x, y))
        if c["n"] >= MIN_CORRELATION_N and not np.isnan(c["slope"]):
            xs = np.linspace(np.nanmin(x), np.nanmax(x), 20)
            ax.plot(xs, c["slope"] * xs + c["intercept"], "--", color="0.5", lw=1)
        title = correlation_title(labels.get(spec, spec), c)
        if c["n"] < 2 and panel_grey:
            title += f"\nfewer than 2 systems with ≥{min_n} instances"
        ax.set_title(title, fontsize=8)
        ax.margins(x=0.12, y=0.12)
        ax.set_xlabel("fulfilled fraction", fontsize=8)
        ax.set_ylabel(plain_text(eff.name), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    handles = [
        Line2D([], [], ls="", marker=style[r], color=colors[r], label=plain_text(r)) for r in keep
    ]
    head = f"fulfilment vs {eff.name}"
    if greyed:
        head += f"; hollow grey: fewer than {min_n} instances (n shown), not counted"
    return _legend_layout(fig, handles, path, diagnosis, head, fontsize=7)


def correlation_title(label: str, c: Any) -> str:
    """A correlation panel's title: the axiom, then Kendall's τ with its p-value and n (rank
    correlations first: with few systems in clusters, Pearson's r says little); below
    :data:`MIN_CORRELATION_N` systems it says so and shows no further coefficient. The label is
    escaped with :func:`plain_text` (the title goes straight into matplotlib)."""
    title = plain_text(_short(label, 34))
    if c is None:
        return title
    n = 0 if pd.isna(c["n"]) else int(c["n"])
    if not pd.isna(c["kendall"]):
        p = "" if pd.isna(c["kendall_p"]) else f" (p={c['kendall_p']:.2g})"
        title += f"\nτ={c['kendall']:.2f}{p}, n={n}"
        if n < MIN_CORRELATION_N:
            title += ": too few systems"
        else:
            title += f", ρ={c['spearman']:.2f}"
    elif n:
        title += f"\nn={n}: no correlation (constant values)"
    return title


def _short(text: str, n: int) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


AXES_PER_PANEL = 14
"""Axiom rows per panel of :func:`plot_axiom_bars`; more axioms are split over side-by-side
panels so that the figure fits a laptop screen (about 1,400 x 900 px)."""


def plot_axiom_bars(diagnosis: Diagnosis, path: str | os.PathLike[str] | None = None) -> bytes:
    """Fulfilled fraction per axiom group (rows) and ranker (markers), 95% Wilson intervals.

    A horizontal dot plot rather than grouped vertical bars: axiom names stay horizontal and
    readable, rankers are offset within each row, and many axioms are split over side-by-side
    panels (:data:`AXES_PER_PANEL` rows each, at most 3 across) instead of one strip thousands
    of pixels wide."""
    t = diagnosis.table()
    labels = _labels(diagnosis)
    specs = list(labels)
    rankers = list(diagnosis.rankers)
    n_panels = max(1, math.ceil(len(specs) / AXES_PER_PANEL))
    cols = min(3, n_panels)
    grid_rows = math.ceil(n_panels / cols)
    per = math.ceil(len(specs) / n_panels) if specs else 1
    row_h = 0.16 + 0.05 * min(len(rankers), 8)
    fig, axes = new_figure(
        grid_rows,
        cols,
        figsize=(4.4 * cols, grid_rows * (0.9 + row_h * per) + 0.1),
        dpi=DPI,
        squeeze=False,
    )
    axes = axes.ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    colors = _colors(rankers, diagnosis.references)
    frames = {r: t[t["ranker"] == r].set_index("spec").reindex(specs) for r in rankers}
    offsets = np.linspace(-0.3, 0.3, len(rankers)) if len(rankers) > 1 else np.zeros(1)
    for p, ax in enumerate(axes[:n_panels]):
        chunk = specs[p * per : (p + 1) * per]
        ys = np.arange(len(chunk))[::-1]  # first axiom on top
        for j, r in enumerate(rankers):
            sub = frames[r].loc[chunk]
            frac = sub["fraction"].to_numpy(dtype=float)
            lo = np.clip(np.nan_to_num(frac - sub["ci_low"].to_numpy(dtype=float)), 0, None)
            hi = np.clip(np.nan_to_num(sub["ci_high"].to_numpy(dtype=float) - frac), 0, None)
            ax.errorbar(
                frac,
                ys + offsets[j],
                xerr=np.vstack([lo, hi]),
                fmt="s" if r in diagnosis.references else "o",
                ms=4,
                color=colors[r],
                elinewidth=0.8,
                capsize=1.5,
                label=plain_text(r) if p == 0 else None,
                mfc="white" if r in diagnosis.references else colors[r],
            )
        ax.axvline(0.5, color="0.6", lw=0.8, ls=":")
        ax.set_yticks(ys)
        ax.set_yticklabels([plain_text(_short(labels[s], 34)) for s in chunk], fontsize=8)
        ax.set_ylim(-0.6, len(chunk) - 0.4)
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("fulfilled fraction (95% CI)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    handles, _ = axes[0].get_legend_handles_labels()
    return _legend_layout(fig, handles, path, diagnosis, fontsize=7)

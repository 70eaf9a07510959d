"""PNG plots of a diagnosis (matplotlib, Agg canvas; no pyplot global state).

* :func:`plot_delta_sweep` - fulfilment per delta* per axiom with instance counts on top
  (Rennings 2019, Figs 4.5/4.6; ``value="diff_vs_0"`` gives Figs 4.7/4.8);
* :func:`plot_correlation` - axiomatic performance vs retrieval effectiveness with a
  ``numpy.polyfit`` trend line (Fig. 4.2), one legend for the rankers;
* :func:`plot_axiom_bars` - fulfilment per axiom and ranker with 95% Wilson intervals, a
  horizontal dot plot faceted over panels so that 25 axioms fit a laptop screen.

Each returns the PNG as bytes and writes it (atomically) when ``path`` is given.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from axiomatic._atomic import atomic_write_bytes
from axiomatic.diagnose.diagnosis import SYMMETRIC_SUFFIX, Diagnosis, effectiveness_series

DPI = 110


def _figure(n_panels: int, panel_w: float = 4.2, panel_h: float = 3.2, max_cols: int = 3) -> Any:
    from matplotlib.figure import Figure

    cols = max(1, min(max_cols, n_panels))
    rows = max(1, math.ceil(n_panels / cols))
    fig = Figure(figsize=(panel_w * cols, panel_h * rows + 0.6), dpi=DPI)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
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
        fig.suptitle(f"{view} view", fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    data = buf.getvalue()
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
) -> bytes:
    """Fulfilment (or ``diff_vs_0``) per delta* for every axiom group with a length difference.

    The x axis is ordinal over the thesis grid (0-0.1 step 0.01, then 0.2-1.0 step 0.1); the
    number of instances at each delta* is printed along the top axis.
    """
    if value not in ("fraction", "diff_vs_0"):
        raise ValueError(f"value must be 'fraction' or 'diff_vs_0' (got {value!r})")
    sw = diagnosis.delta_sweep() if sweep is None else sweep
    labels = _labels(diagnosis)
    specs = [s for s in labels if s in set(sw["spec"])]
    fig, axes = _figure(max(1, len(specs)))
    if not specs:
        axes[0].text(
            0.5,
            0.5,
            "no instances with a length difference",
            ha="center",
            va="center",
            transform=axes[0].transAxes,
        )
        axes[0].set_axis_off()
        return _finish(fig, path, diagnosis)
    colors = _colors(diagnosis.rankers, diagnosis.references)
    deltas = sorted(set(sw["delta"]))
    pos = {d: i for i, d in enumerate(deltas)}
    for ax, spec in zip(axes, specs, strict=True):
        sub = sw[sw["spec"] == spec]
        for r in diagnosis.rankers:
            s = sub[sub["ranker"] == r].sort_values("delta")
            if s[value].notna().any():
                ls = "--" if r in diagnosis.references else "-"
                ax.plot(
                    [pos[d] for d in s["delta"]],
                    s[value],
                    ls,
                    marker="o",
                    ms=3,
                    lw=1.3,
                    color=colors[r],
                    label=r,
                )
        ax.set_title(labels[spec], fontsize=10, pad=22)
        ax.set_xticks(range(len(deltas)))
        ax.set_xticklabels([f"{d:g}" for d in deltas], rotation=90, fontsize=7)
        ax.set_xlabel("δ* (max. relative length difference)", fontsize=8)
        ax.set_ylabel(
            "fulfilled fraction" if value == "fraction" else "|Δ fraction| vs δ*=min", fontsize=8
        )
        if value == "fraction":
            ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        counts = sub.groupby("delta")["n"].max().reindex(deltas)
        top = ax.secondary_xaxis("top")
        top.set_xticks(range(len(deltas)))
        top.set_xticklabels(
            ["" if np.isnan(c) else f"{int(c)}" for c in counts], rotation=90, fontsize=6
        )
        top.tick_params(length=0, pad=1)
    handles, names = axes[0].get_legend_handles_labels()
    band = 0.0
    if handles:
        names, ncol = _legend_columns(names, fig.get_figwidth(), fontsize=8)
        band = 0.22 * math.ceil(len(names) / ncol) + 0.13
        fig.set_figheight(fig.get_figheight() - 0.35 + band)  # _figure keeps 0.35 in for it
        fig.legend(handles, names, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    data = _finish_legend(fig, path, band)
    return data


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


def _finish_legend(fig: Any, path: str | os.PathLike[str] | None, band_in: float) -> bytes:
    """tight_layout above a bottom band of ``band_in`` inches kept for a figure legend."""
    fig.tight_layout(rect=(0, band_in / fig.get_figheight(), 1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    data = buf.getvalue()
    if path is not None:
        atomic_write_bytes(Path(path), data)
    return data


MIN_CORRELATION_N = 5
"""Fewer systems than this: a panel shows n and the p-value, and no Pearson r or trend line."""


def plot_correlation(
    diagnosis: Diagnosis,
    effectiveness: Any,
    measure: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> bytes:
    """Axiomatic performance (x) vs retrieval effectiveness (y), one panel per axiom group plus
    the mean over groups (Rennings 2019, Fig. 4.2).

    Readable with many rankers: fixed-size panels (at most 4 per row), one marker shape and
    colour per ranker explained once in a shared legend (no labels printed over the points),
    and each title leads with the rank correlation, its p-value and n. With fewer than
    :data:`MIN_CORRELATION_N` systems the title says so and no Pearson r or trend line is drawn.
    """
    from matplotlib.lines import Line2D

    from axiomatic.report.tables import effectiveness_wide

    wide = (
        effectiveness_wide(effectiveness)
        if not isinstance(effectiveness, pd.Series)
        else (effectiveness.to_frame())
    )
    eff = effectiveness_series(wide, measure)
    corr = diagnosis.correlation(wide, eff.name)
    piv = diagnosis.pivot(by="spec")
    keep = [r for r in piv.index if r in eff.index and r not in diagnosis.references]
    labels = _labels(diagnosis) | {"mean": "mean over axioms"}
    piv = piv.loc[keep]
    directional = [c for c in piv.columns if not str(c).endswith(SYMMETRIC_SUFFIX)]
    if len(directional) > 1:
        piv["mean"] = piv[directional].mean(axis=1)
    specs = list(piv.columns)
    fig, axes = _figure(max(1, len(specs)), panel_w=3.4, panel_h=3.0, max_cols=4)
    colors = _colors(keep, [])
    markers = "osD^vP*Xh<>p"
    style = {r: markers[(i // 10) % len(markers)] for i, r in enumerate(keep)}
    y = eff.loc[keep].to_numpy(dtype=float)
    for ax, spec in zip(axes, specs, strict=True):
        x = piv[spec].to_numpy(dtype=float)
        for xi, yi, r in zip(x, y, keep, strict=True):
            if not np.isnan(xi):
                ax.scatter([xi], [yi], color=colors[r], marker=style[r], s=30, zorder=3)
        row = corr[corr["spec"] == spec]
        c = row.iloc[0] if len(row) else None
        if c is not None and c["n"] >= MIN_CORRELATION_N and not np.isnan(c["slope"]):
            xs = np.linspace(np.nanmin(x), np.nanmax(x), 20)
            ax.plot(xs, c["slope"] * xs + c["intercept"], "--", color="0.5", lw=1)
        ax.set_title(correlation_title(labels.get(spec, spec), c), fontsize=8)
        ax.margins(x=0.12, y=0.12)
        ax.set_xlabel("fulfilled fraction", fontsize=8)
        ax.set_ylabel(str(eff.name), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    handles = [
        Line2D([], [], ls="", marker=style[r], color=colors[r], label=_short(r, 28)) for r in keep
    ]
    if handles:
        fig.legend(
            handles=handles,
            loc="lower center",
            ncol=min(4, len(handles)),
            fontsize=7,
            frameon=False,
        )
    rows = math.ceil(len(handles) / 4) if handles else 0
    fig.set_figheight(fig.get_figheight() + 0.22 * rows)
    fig.tight_layout(rect=(0, 0.22 * rows / fig.get_figheight() + 0.01, 1, 1))
    return _save(fig, path, diagnosis)


def correlation_title(label: str, c: Any) -> str:
    """A correlation panel's title: the axiom, then Kendall's τ with its p-value and n (rank
    correlations first: with few systems in clusters, Pearson's r says little); below
    :data:`MIN_CORRELATION_N` systems it says so and shows no further coefficient."""
    title = _short(label, 34)
    if c is None:
        return title
    n = 0 if pd.isna(c["n"]) else int(c["n"])
    if not pd.isna(c["kendall"]):
        title += f"\nτ={c['kendall']:.2f} (p={c['kendall_p']:.2g}), n={n}"
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


def _save(fig: Any, path: str | os.PathLike[str] | None, diagnosis: Any = None) -> bytes:
    """Like :func:`_finish` but keeps the layout already made (room for a bottom legend)."""
    view = getattr(diagnosis, "view", "") if getattr(diagnosis, "views", None) else ""
    if view:
        fig.suptitle(f"{view} view", fontsize=9)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    data = buf.getvalue()
    if path is not None:
        atomic_write_bytes(Path(path), data)
    return data


AXES_PER_PANEL = 14
"""Axiom rows per panel of :func:`plot_axiom_bars`; more axioms are split over side-by-side
panels so that the figure fits a laptop screen (about 1,400 x 900 px)."""


def plot_axiom_bars(diagnosis: Diagnosis, path: str | os.PathLike[str] | None = None) -> bytes:
    """Fulfilled fraction per axiom group (rows) and ranker (markers), 95% Wilson intervals.

    A horizontal dot plot rather than grouped vertical bars: axiom names stay horizontal and
    readable, rankers are offset within each row, and many axioms are split over side-by-side
    panels (:data:`AXES_PER_PANEL` rows each, at most 3 across) instead of one strip thousands
    of pixels wide."""
    from matplotlib.figure import Figure

    t = diagnosis.table()
    labels = _labels(diagnosis)
    specs = list(labels)
    rankers = list(diagnosis.rankers)
    n_panels = max(1, math.ceil(len(specs) / AXES_PER_PANEL))
    cols = min(3, n_panels)
    grid_rows = math.ceil(n_panels / cols)
    per = math.ceil(len(specs) / n_panels) if specs else 1
    row_h = 0.16 + 0.05 * min(len(rankers), 8)
    legend_rows = math.ceil(len(rankers) / 4)
    fig = Figure(
        figsize=(4.4 * cols, grid_rows * (0.9 + row_h * per) + 0.3 + 0.2 * legend_rows), dpi=DPI
    )
    axes = fig.subplots(grid_rows, cols, squeeze=False).ravel()
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
                label=_short(r, 28) if p == 0 else None,
                mfc="white" if r in diagnosis.references else colors[r],
            )
        ax.axvline(0.5, color="0.6", lw=0.8, ls=":")
        ax.set_yticks(ys)
        ax.set_yticklabels([_short(labels[s], 26) for s in chunk], fontsize=8)
        ax.set_ylim(-0.6, len(chunk) - 0.4)
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("fulfilled fraction (95% CI)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    handles, names = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(
            handles, names, loc="lower center", ncol=min(4, len(names)), fontsize=7, frameon=False
        )
    fig.tight_layout(rect=(0, (0.2 * legend_rows + 0.05) / fig.get_figheight(), 1, 1))
    return _save(fig, path, diagnosis)

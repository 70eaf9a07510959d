"""PNG plots of a diagnosis (matplotlib, Agg canvas; no pyplot global state).

* :func:`plot_delta_sweep` - fulfilment per delta* per axiom with instance counts on top
  (Rennings 2019, Figs 4.5/4.6; ``value="diff_vs_0"`` gives Figs 4.7/4.8);
* :func:`plot_correlation` - axiomatic performance vs retrieval effectiveness with a
  ``numpy.polyfit`` trend line (Fig. 4.2);
* :func:`plot_axiom_bars` - fulfilment per axiom and ranker with 95% Wilson intervals.

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
    if handles:
        fig.legend(
            handles, names, loc="lower center", ncol=min(6, len(names)), fontsize=8, frameon=False
        )
        fig.subplots_adjust(bottom=0.2)
    data = _finish_legend(fig, path, bool(handles))
    return data


def _finish_legend(fig: Any, path: str | os.PathLike[str] | None, legend: bool) -> bytes:
    rows = max(1, round(fig.get_figheight() / 3.2))
    fig.tight_layout(rect=(0, 0.1 / rows if legend else 0, 1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    data = buf.getvalue()
    if path is not None:
        atomic_write_bytes(Path(path), data)
    return data


def plot_correlation(
    diagnosis: Diagnosis,
    effectiveness: Any,
    measure: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> bytes:
    """Axiomatic performance (x) vs retrieval effectiveness (y), one panel per axiom group plus
    the mean over groups, each with its trend line and Pearson r (Rennings 2019, Fig. 4.2)."""
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
    fig, axes = _figure(max(1, len(specs)), panel_w=3.8, panel_h=3.3)
    colors = _colors(keep, [])
    y = eff.loc[keep].to_numpy(dtype=float)
    for ax, spec in zip(axes, specs, strict=True):
        x = piv[spec].to_numpy(dtype=float)
        for xi, yi, r in zip(x, y, keep, strict=True):
            if np.isnan(xi):
                continue
            ax.scatter([xi], [yi], color=colors[r], s=28, zorder=3)
            ax.annotate(r, (xi, yi), textcoords="offset points", xytext=(4, 3), fontsize=7)
        row = corr[corr["spec"] == spec]
        title = labels.get(spec, spec)
        if len(row):
            c = row.iloc[0]
            if not np.isnan(c["slope"]):
                xs = np.linspace(np.nanmin(x), np.nanmax(x), 20)
                ax.plot(xs, c["slope"] * xs + c["intercept"], "--", color="0.5", lw=1)
            if not np.isnan(c["kendall"]):
                # rank correlations first: with few systems in clusters, r says little
                title += (
                    f"\nτ={c['kendall']:.2f} (p={c['kendall_p']:.2g}), "
                    f"ρ={c['spearman']:.2f}, r={c['pearson']:.2f}, n={int(c['n'])}"
                )
        ax.set_title(title, fontsize=8)
        ax.margins(x=0.18, y=0.12)
        ax.set_xlabel("fulfilled fraction", fontsize=8)
        ax.set_ylabel(str(eff.name), fontsize=8)
        ax.grid(alpha=0.3)
    return _finish(fig, path, diagnosis)


def plot_axiom_bars(diagnosis: Diagnosis, path: str | os.PathLike[str] | None = None) -> bytes:
    """Grouped bars: fulfilled fraction per axiom group (x) and ranker (bars), 95% intervals."""
    from matplotlib.figure import Figure

    t = diagnosis.table()
    labels = _labels(diagnosis)
    specs = list(labels)
    rankers = list(diagnosis.rankers)
    width = 0.8 / max(1, len(rankers))
    fig = Figure(
        figsize=(max(6.0, 1.0 + 1.1 * len(specs) * max(1, len(rankers)) * 0.35), 4.0), dpi=DPI
    )
    ax = fig.subplots()
    colors = _colors(rankers, diagnosis.references)
    for j, r in enumerate(rankers):
        sub = t[t["ranker"] == r].set_index("spec").reindex(specs)
        frac = sub["fraction"].to_numpy(dtype=float)
        lo = np.clip(np.nan_to_num(frac - sub["ci_low"].to_numpy(dtype=float)), 0, None)
        hi = np.clip(np.nan_to_num(sub["ci_high"].to_numpy(dtype=float) - frac), 0, None)
        xs = np.arange(len(specs)) - 0.4 + width * (j + 0.5)
        ax.bar(
            xs,
            np.nan_to_num(frac),
            width=width * 0.95,
            color=colors[r],
            label=r,
            yerr=np.vstack([lo, hi]),
            capsize=2,
            error_kw={"lw": 0.8},
            hatch="//" if r in diagnosis.references else None,
        )
    ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
    ax.set_xticks(range(len(specs)))
    ax.set_xticklabels([labels[s] for s in specs], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("fulfilled fraction (95% CI)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(
        fontsize=7,
        ncol=min(4, len(rankers)),
        loc="upper center",
        bbox_to_anchor=(0.5, -0.1),
        frameon=False,
    )
    return _finish(fig, path, diagnosis)

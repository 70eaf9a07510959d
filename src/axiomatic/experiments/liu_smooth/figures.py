"""Liu et al. (smooth cross-lingual retrieval): the figures of the finished units (Figures 3-5
analogues, training stability)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from axiomatic._report import new_figure
from axiomatic.experiments.common import read_json
from axiomatic.experiments.engine import smooth
from axiomatic.experiments.liu_smooth.plan import (
    _fmt,
)
from axiomatic.experiments.liu_smooth.run import LiuRun
from axiomatic.training.smooth import DISPLAY

FIGURES = {
    "fig3": "liu_fig3_density.png",
    "fig4": "liu_fig4_eps.png",
    "fig5": "liu_fig5_nr.png",
    "stability": "liu_stability.png",
}
"""The file name of each figure (in the output folder and the docs page's ``img/``)."""


class LiuFigures(LiuRun):
    """The figures of :class:`~axiomatic.experiments.liu_smooth.report.LiuSmooth`'s results."""

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """Figure 3 (score densities), 4 (eps sweep), 5 (NR per query) and the stability
        curves, where their units finished (file names: :data:`FIGURES`)."""
        summary = results
        import matplotlib  # the default colour cycle (rcParams: no pyplot, no backend switch)

        from axiomatic.training.checkpoint import read_log

        p = self.plan
        drawn: dict[str, Any] = {}

        # Figure 3: score densities per grade, per loss (training examples)
        units = [
            u for u in self.table2_units() if u.language == p.fig3_language and u.seed == p.seeds[0]
        ]
        have = [(u, self.out_dir / "runs" / u.path() / "train_scores.json") for u in units]
        have = [(u, f) for u, f in have if f.exists()]
        if have:
            n = len(have)
            cols = min(2, n)
            rows_ = math.ceil(n / cols)
            fig, axes = new_figure(rows_, cols, figsize=(4.2 * cols, 3.0 * rows_), squeeze=False)
            names = {0: "NR", 1: "SR", 2: "MR"}
            for ax, (u, f) in zip(axes.ravel(), have, strict=False):
                d = read_json(f)
                s, g = np.asarray(d["scores"]), np.asarray(d["grades"])
                bins = np.linspace(-1, 1, 61)
                for k in sorted(set(g.tolist())):
                    ax.hist(
                        s[g == k],
                        bins=bins,
                        density=True,
                        histtype="step",
                        lw=1.5,
                        label=names.get(k, str(k)),
                    )
                for t in u.thresholds:
                    ax.axvline(t, color="grey", ls=":", lw=0.8)
                ax.set_title(f"{DISPLAY.get(u.loss, u.loss)} (eps={_fmt(u.eps)})")
                ax.set_xlabel("predicted score r_eps")
                ax.legend(fontsize=7)
            for ax in axes.ravel()[len(have) :]:
                ax.axis("off")
            fig.suptitle(
                f"Fig. 3 analogue: score density per grade, training set, {p.setting} en-{p.fig3_language}"
            )
            fig.tight_layout()
            drawn[FIGURES["fig3"]] = fig
        if summary["fig4"]:
            fig, ax = new_figure(figsize=(5, 3.4))
            xs = [r["eps"] for r in summary["fig4"]]
            for m in ("Pmr@1", "NDCG@5", "MAP", "MRRmr"):
                ax.plot(xs, [r[m] for r in summary["fig4"]], marker="o", label=m)
            ax.set_xlabel("eps (0 = plain cosine)")
            ax.set_ylabel("test (thresholds chosen on dev)")
            ax.set_title(f"Fig. 4 analogue: en-{p.sweep_language}")
            ax.legend(fontsize=7)
            fig.tight_layout()
            drawn[FIGURES["fig4"]] = fig
        if summary["fig5"]:
            fig, ax = new_figure(figsize=(5, 3.4))
            pts = sorted(summary["fig5"], key=lambda r: r["NR per query"])
            for m in ("Pmr@1", "NDCG@5", "MAP", "MRRmr"):
                ax.plot([r["NR per query"] for r in pts], [r[m] for r in pts], marker="o", label=m)
            ax.set_xlabel("NR documents per query")
            ax.set_title(f"Fig. 5 analogue: en-{p.sweep_language}, SOSL")
            ax.legend(fontsize=7)
            fig.tight_layout()
            drawn[FIGURES["fig5"]] = fig
        # stability curves
        configs = [(e, c) for e in p.stability_eps for c in p.stability_clip]
        logs_by: dict[tuple[float, float], list[list[dict[str, Any]]]] = {}
        for e, c in configs:
            for u in self.stability_units():
                if u.eps == e and u.clip == c:
                    f = self.out_dir / "runs" / u.path() / "log.jsonl"
                    if f.exists():
                        logs_by.setdefault((e, c), []).append(read_log(f))
        if logs_by:
            fig, (a1, a2) = new_figure(1, 2, figsize=(9, 3.4))
            colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
            for i, ((e, c), logs) in enumerate(sorted(logs_by.items())):
                label = f"eps={_fmt(e)}, clip={'none' if c <= 0 else _fmt(c)}"
                for j, log in enumerate(logs):
                    steps = [r["step"] for r in log]
                    a1.plot(
                        steps,
                        smooth([r["loss"] for r in log], window=20),
                        color=colors[i % len(colors)],
                        lw=0.8,
                        alpha=0.8,
                        label=label if j == 0 else None,
                    )
                    a2.plot(
                        steps,
                        smooth([r.get("grad_norm", np.nan) for r in log], window=20),
                        color=colors[i % len(colors)],
                        lw=0.8,
                        alpha=0.8,
                        label=label if j == 0 else None,
                    )
            a1.set_xlabel("step")
            a1.set_ylabel("SOSL (smoothed, 20 steps)")
            a2.set_xlabel("step")
            a2.set_ylabel("gradient norm before clipping")
            a2.set_yscale("log")
            a1.legend(fontsize=7)
            fig.suptitle(
                f"Training stability over seeds (one line per seed), en-{p.sweep_language}"
            )
            fig.tight_layout()
            drawn[FIGURES["stability"]] = fig
        return drawn

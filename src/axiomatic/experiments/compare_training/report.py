"""The compare-training report: a pure function of the finished units (no training, no
scoring) to what ``results.json`` holds, and from that to the learning-curve figure; the
Markdown of ``summary.md`` and the plan's page is :mod:`.page` (the engine writes them)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from axiomatic.experiments.common import per_query, read_json
from axiomatic.experiments.compare_training.page import answer_sentence, render_markdown
from axiomatic.experiments.compare_training.plan import (
    BASELINE,
    DIAGNOSE_SEP,
    MEASURES,
    START_ROW,
    ComparePlan,
    point_name,
    slug,
)
from axiomatic.experiments.compare_training.stats import (
    HELPS,
    HURTS,
    did_train,
    interval,
    minimal_detectable_effect,
    paired_control,
    seed_agreement,
    seed_differences,
    verdict,
)
from axiomatic.experiments.engine import candidate_run

if TYPE_CHECKING:
    from axiomatic.experiments.compare_training.run import CompareTraining

BM25_ROW = "BM25 (candidate order)"


CURVES = "img/learning_curves.png"
"""The learning-curve figure in the output folder."""


def build_results(runner: CompareTraining) -> dict[str, Any]:
    """Summarize the finished units of the runner's plan (what ``results.json`` holds, before
    the engine's record)."""
    p = runner.plan
    tests = runner.test_sets()
    res: dict[str, Any] = {"plan": p.to_dict(), "starts": {}}
    for start in p.starts:
        sizes, plain = {}, {}
        for size in p.size_names():
            sizes[size], plain[size] = _size_report(runner, start, size, tests, DIAGNOSE_SEP)
        res["starts"][start] = {"sizes": sizes, "size_control": _size_control(p, plain)}
    if not any(sr["methods"] for s in res["starts"].values() for sr in s["sizes"].values()):
        raise FileNotFoundError(
            f"{runner.out_dir}: no finished unit of this plan to report; run the experiment "
            "first (without --report-only)"
        )
    res["primary"] = _primary(p, res)
    return res


# ---------------------------------------------------------------------- one size
def _size_report(
    runner: CompareTraining, start: str, size: str, tests: Mapping[str, Any], sep: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One size's report, and plain's seed-averaged per-query values per collection (for the
    size control)."""
    from axiomatic.evaluate.significance import compare_to_baseline

    p = runner.plan
    out: dict[str, Any] = {"methods": {}, "collections": {}, "curves": {}, "cost": {}}
    plain: dict[str, Any] = {}
    runs: dict[str, dict[int, Path]] = {}
    trained: dict[str, bool] = {}
    for method in p.methods[start]:
        pt = runner.select(start, size, method)
        if pt is None:
            continue
        rows = runner.unit_results(start, size, method, pt)
        grid = {
            point_name(g): _mean_or_none(
                [r["best_dev"] for r in runner.unit_results(start, size, method, g)]
            )
            for g in p.grid(start, method)
        }
        steps = [r["best_step"] for r in rows]
        trained[method] = did_train(steps)
        out["methods"][method] = {
            "point": pt,
            "point_name": point_name(pt),
            "dev_by_point": grid,
            "seeds": [r["seed"] for r in rows],
            "training_queries": next((r.get("training_queries") for r in rows), None),
            "best_dev": {str(r["seed"]): r["best_dev"] for r in rows},
            "best_step": {str(r["seed"]): r["best_step"] for r in rows},
            "weight_change": {
                str(r["seed"]): (r.get("weight_change") or {}).get("relative") for r in rows
            },
            "trained": trained[method],
        }
        runs[method] = {r["seed"]: runner.unit_dir(start, size, method, pt, r["seed"])
                        for r in rows}  # fmt: skip
        out["curves"][method] = {str(r["seed"]): _curve(runs[method][r["seed"]], p.batch_size)
                                 for r in rows}  # fmt: skip
        out["cost"][method] = _cost(rows)
    for name, ds in tests.items():
        s = slug(name)
        files: dict[str, dict[int, Path]] = {
            START_ROW: {seed: runner.start_dir(start, seed) / f"{s}.json" for seed in p.seeds},
            **{m: {seed: u / "test" / f"{s}.json" for seed, u in r.items()}
               for m, r in runs.items()},
        }  # fmt: skip
        per_seed: dict[str, dict[int, dict[str, dict[str, float]]]] = {}
        table: dict[str, Any] = {}
        for system, by_seed in files.items():
            ps = {seed: per_query(read_json(f), ds, MEASURES) for seed, f in by_seed.items()
                  if f.is_file()}  # fmt: skip
            if ps:
                per_seed[system] = ps
                table[system] = _seed_stats(ps)
        bm25 = per_query(candidate_run(ds), ds, MEASURES)
        table[BM25_ROW] = {m: {"mean": _mean(bm25[m]), "sd": 0.0, "seeds": 0} for m in MEASURES}
        averaged = {k: _seed_average(v) for k, v in per_seed.items()}
        tested = {k: v for k, v in averaged.items() if k in runs}
        comparison: dict[str, Any] = {"family": None, "rows": {}}
        if BASELINE in tested and len(tested) > 1:
            try:
                cmp = compare_to_baseline(
                    tested, BASELINE, noun="methods", scope="per start, size and collection"
                )
            except ValueError as exc:  # e.g. fewer than 2 queries
                comparison["family"] = f"not tested ({exc})"
            else:
                comparison["family"] = cmp.family
                n_tests = len(tested) - 1
                for c in cmp:
                    comparison["rows"].setdefault(c.system, {})[c.measure] = _row(
                        c, tested, per_seed, trained, n_tests, p
                    )
        controls: dict[str, Any] = {}
        if BASELINE in averaged and START_ROW in averaged:
            for m in MEASURES:
                controls[m] = paired_control(
                    averaged[BASELINE][m], averaged[START_ROW][m], p.alpha, p.power
                )
        out["collections"][name] = {
            "queries": len(next(iter(averaged.values()))[MEASURES[0]]) if averaged else 0,
            "table": table,
            "comparison": comparison,
            "plain_vs_start": controls,
        }
        if BASELINE in averaged:
            plain[name] = averaged[BASELINE]
    diag_file = runner.out_dir / "diagnosis" / start / f"n{size}" / "diagnosis.json"
    if diag_file.is_file():
        out["diagnosis"] = _diagnosis_means(read_json(diag_file), sep)
    return out, plain


def _row(c: Any, tested: Mapping[str, Any], per_seed: Mapping[str, Any],
         trained: Mapping[str, bool], n_tests: int, p: ComparePlan) -> dict[str, Any]:  # fmt: skip
    a, b = tested[c.system][c.measure], tested[BASELINE][c.measure]
    qids = sorted(set(a) & set(b))
    d = np.array([a[q] - b[q] for q in qids], dtype=float)
    lo, hi = interval(d)
    mde = minimal_detectable_effect(d, p.alpha, p.power, tests=n_tests)
    sd = seed_differences(
        {s: v[c.measure] for s, v in per_seed[c.system].items()},
        {s: v[c.measure] for s, v in per_seed[BASELINE].items()},
    )
    agree, n = seed_agreement(sd, c.diff)
    v = verdict(c.diff, c.p_holm, mde, sd, trained.get(c.system, True), p.alpha)
    return {
        "diff": c.diff, "p": c.p, "p_holm": c.p_holm, "n": c.n, "ci95": [lo, hi], "mde": mde,
        "seed_diffs": sd, "seeds_agree": [agree, n], "verdict": v,
        "baseline_trained": trained.get(BASELINE, True),
    }  # fmt: skip


def _size_control(p: ComparePlan, plain: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Plain at the largest size against plain at the smallest, per collection and measure
    (the positive control of "more training data helps"); empty for one size."""
    names = list(plain)
    if len(names) < 2:
        return {}
    small, large = names[0], names[-1]
    out: dict[str, Any] = {"small": small, "large": large, "collections": {}}
    for coll in p.test_sets:
        a, b = plain[large].get(coll), plain[small].get(coll)
        if a is not None and b is not None:
            out["collections"][coll] = {
                m: paired_control(a[m], b[m], p.alpha, p.power) for m in MEASURES
            }
    return out


def _primary(p: ComparePlan, res: Mapping[str, Any]) -> dict[str, Any]:
    cell = p.primary_cell()
    sr = res["starts"].get(cell["start"], {}).get("sizes", {}).get(cell["size"], {})
    cr = sr.get("collections", {}).get(cell["collection"], {})
    rows = {m: r[cell["measure"]] for m, r in cr.get("comparison", {}).get("rows", {}).items()
            if cell["measure"] in r}  # fmt: skip
    control = cr.get("plain_vs_start", {}).get(cell["measure"])
    return {**cell, "family": cr.get("comparison", {}).get("family"), "rows": rows,
            "plain_vs_start": control,
            "plain_trained": sr.get("methods", {}).get(BASELINE, {}).get("trained")}  # fmt: skip


# ---------------------------------------------------------------------- helpers
def _mean(values: Mapping[str, float]) -> float:
    return float(np.mean(list(values.values()))) if values else float("nan")


def _mean_or_none(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return float(np.mean(vals)) if vals else None


def _seed_stats(per_seed: Mapping[int, Mapping[str, Mapping[str, float]]]) -> dict[str, Any]:
    """Per measure: the mean over seeds of each seed's mean over queries, its sd (n - 1; 0 for
    one seed) and the number of seeds."""
    out: dict[str, Any] = {}
    for m in MEASURES:
        means = [_mean(v[m]) for v in per_seed.values()]
        sd = float(np.std(means, ddof=1)) if len(means) > 1 else 0.0
        out[m] = {"mean": float(np.mean(means)), "sd": sd, "seeds": len(means),
                  "per_seed": {str(s): _mean(v[m]) for s, v in per_seed.items()}}  # fmt: skip
    return out


def _seed_average(
    per_seed: Mapping[int, Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, float]]:
    """Per measure and query, the mean over the seeds (the values the paired test pairs)."""
    out: dict[str, dict[str, float]] = {}
    for m in MEASURES:
        qids = sorted(set.intersection(*(set(v[m]) for v in per_seed.values())))
        out[m] = {q: float(np.mean([v[m][q] for v in per_seed.values()])) for q in qids}
    return out


def _curve(unit: Path, batch_size: int) -> list[list[float]]:
    """``[examples seen, dev RR@10]`` of every dev evaluation in a unit's trainer log."""
    from axiomatic.training.checkpoint import read_log

    return [
        [int(r["step"]) * batch_size, float(r["dev_mrr@10"])]
        for r in read_log(unit / "log.jsonl")
        if "dev_mrr@10" in r
    ]


def mean_curve(curves: Any) -> tuple[list[float], list[float]]:
    """The mean dev metric at each number of examples every seed's curve reached (a seed that
    stopped early holds its last value: the model it keeps)."""
    curves = [c for c in curves if c]
    if not curves:
        return [], []
    xs = sorted({x for c in curves for x, _ in c})
    ys = []
    for x in xs:
        vals = []
        for c in curves:
            seen = [y for cx, y in c if cx <= x]
            vals.append(seen[-1] if seen else c[0][1])
        ys.append(float(np.mean(vals)))
    return [float(x) for x in xs], ys


def _cost(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    per_1k = [r["seconds_per_1k_examples"] for r in rows if r.get("seconds_per_1k_examples")]
    peak = [r["peak_mib"] for r in rows if r.get("peak_mib") is not None]
    out: dict[str, Any] = {
        "seconds_per_1k_examples": _mean_or_none(per_1k),
        "peak_mib": float(np.nanmax(peak)) if peak and not np.isnan(peak).all() else None,
        "memory": next((r.get("memory") for r in rows if r.get("memory")), None),
        "examples_seen": _mean_or_none([r["examples_seen"] for r in rows]),
        "device": next((r.get("machine", {}).get("device") for r in rows), None),
    }
    pre = [r["pretrain"] for r in rows if r.get("pretrain")]
    if pre:
        out["pretrain_seconds_per_1k_examples"] = _mean_or_none(
            [1000.0 * c["seconds"] / c["examples"] for c in pre if c.get("examples")]
        )
        out["pretrain_peak_mib"] = _mean_or_none([c.get("peak_mib") for c in pre])
    return out


def _diagnosis_means(diag: Mapping[str, Any], sep: str) -> dict[str, Any]:
    """Per method (the untrained start is ``start``): the mean over seeds of each axiom's
    fulfilment and perturbation agreement, and the instance counts."""
    out: dict[str, Any] = {"instances": diag.get("instances", {}), "fulfilment": {},
                           "agreement": {}}  # fmt: skip
    for part in ("fulfilment", "agreement"):
        groups: dict[str, list[Mapping[str, float]]] = {}
        for name, vals in (diag.get(part) or {}).items():
            groups.setdefault(name.rsplit(sep, 1)[0], []).append(vals)
        for method, rows in groups.items():
            keys = sorted({k for r in rows for k in r})
            out[part][method] = {
                k: _mean_or_none(
                    [r[k] for r in rows if r.get(k) is not None and not math.isnan(r[k])]
                )
                for k in keys
            }
    return out


def has_curves(res: Mapping[str, Any]) -> bool:
    """Whether :func:`curves_figure` draws anything."""
    return any(zr["curves"] for sr in res["starts"].values() for zr in sr["sizes"].values())


def curves_figure(res: Mapping[str, Any]) -> Any:
    """Dev RR@10 vs examples seen per (start, size) (mean over seeds at the selected point),
    one line per method; the start is the point at 0 examples. ``None`` without curves."""
    from axiomatic._report import new_figure

    panels = [(s, z, zr) for s, sr in res["starts"].items() for z, zr in sr["sizes"].items()
              if zr["curves"]]  # fmt: skip
    if not panels:
        return None
    fig, axes = new_figure(1, len(panels), figsize=(4.8 * len(panels), 3.6), squeeze=False)
    for ax, (start, size, zr) in zip(axes[0], panels, strict=True):
        for method, seeds in zr["curves"].items():
            xs, ys = mean_curve(seeds.values())
            if xs:
                ax.plot(xs, ys, marker=".", label=method)
        ax.set_title(f"{start}, {size} training queries")
        ax.set_xlabel("training examples seen")
        ax.set_ylabel("dev RR@10 (mean over seeds)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


__all__ = [
    "CURVES",
    "HELPS",
    "HURTS",
    "answer_sentence",
    "build_results",
    "curves_figure",
    "has_curves",
    "mean_curve",
    "render_markdown",
]  # fmt: skip

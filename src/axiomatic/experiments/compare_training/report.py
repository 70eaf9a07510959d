"""The compare-training report: a pure function of the finished units (no training, no
scoring) to what ``results.json`` holds, and from that to the learning-curve figure and the
Markdown of ``summary.md`` and the plan's page (the engine writes them)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from axiomatic.experiments.common import per_query, read_json
from axiomatic.experiments.compare_training.plan import (
    ADAPTED,
    BASELINE,
    DIAGNOSE_SEP,
    MEASURES,
    METHODS,
    START_ROW,
    ComparePlan,
    point_name,
    point_text,
    slug,
)
from axiomatic.experiments.compare_training.stats import (
    DID_NOT_TRAIN,
    HELPS,
    HURTS,
    NO_EFFECT,
    NOT_ROBUST,
    did_train,
    interval,
    minimal_detectable_effect,
    paired_control,
    seed_agreement,
    seed_differences,
    verdict,
    verdict_text,
)
from axiomatic.experiments.engine import candidate_run
from axiomatic.experiments.units import machine

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


# ---------------------------------------------------------------------- page
def _fmt(x: Any, spec: str = "{:.3f}") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return spec.format(x)


POLICY = (
    "Significance policy: paired t-test over the test queries (per-query values averaged over "
    "the seeds) of each method against plain of the same start, size and seeds; Holm over the "
    "methods compared on one measure, per start, size and collection; alpha {alpha}. A "
    "significant difference counts only when, compared seed by seed with plain, more than half "
    "of the seeds whose models differ, and at least two, point the same way (else *not robust "
    "over seeds*; a seed where both kept the same model, e.g. both their start, counts neither "
    "way). MDE: the smallest "
    "mean difference the test detects with power {power} at level alpha / (methods compared), "
    "given the observed spread of the per-query differences. *Did not train*: every seed's "
    "selected model is its start (best dev step 0). Only the declared primary comparison "
    "answers the page's question; every other table is secondary."
)


def render_markdown(plan: ComparePlan, res: Mapping[str, Any], figure: str | None) -> str:
    """The page: the primary answer first, then per start and size the selection, the test
    tables with their controls, the diagnosis, the cost and the curves."""
    from axiomatic._report import markdown_table

    p = plan
    steps = max(1, p.examples // p.batch_size)
    m = res.get("machine") or machine()
    lines = [
        f"# {p.title}",
        "",
        "Generated by `axiomatic experiment compare-training` (do not edit by hand; notes go "
        "in a `.notes.md` file beside this page).",
        "",
    ]
    if p.notes:
        lines += [p.notes.strip(), ""]
    lines += [
        f"Every method trains the same start on `{p.train}` ({p.dev_queries} training queries "
        f"held out as dev, the same for every run; training sizes {', '.join(p.size_names())}: "
        "nested "
        f"seeded subsets of the other training queries), sees at most {p.examples} training "
        f"examples ({steps} steps of {p.batch_size} pairs), is evaluated on dev (RR@10) at the "
        f"start and every {p.eval_every} steps and keeps its best dev checkpoint (which may be "
        f"the start itself; patience {p.patience}), for the seeds {p.seeds}. Each method's own "
        "hyper-parameters are chosen per start and size on dev only, from grids of the same "
        "size for every method (below). Test: every judged query of "
        + ", ".join(f"`{t}`" for t in p.test_sets)
        + (f" (the first {p.test_queries})" if p.test_queries else "")
        + f", top {p.test_depth} BM25 candidates re-ranked. Machine: {m.get('platform', '')}, "
        f"{m.get('cpu', '')}, {m.get('cpus', '')} cores, device {m.get('device', 'cpu')}"
        + _timing_text(res)
        + ".",
        "",
        POLICY.format(alpha=p.alpha, power=p.power),
        "",
    ]
    lines += _primary_lines(p, res)
    lines += ["## Methods and grids", ""]
    mrows = []
    for start in p.starts:
        for method in p.methods[start]:
            mrows.append({
                "start": start, "method": method, "setting": _method_text(method, p),
                "grid": "; ".join(point_text(g) for g in p.grid(start, method)),
                "adapted": ADAPTED.get(method, ""),
            })  # fmt: skip
    lines += [markdown_table(mrows, ["start", "method", "setting", "grid", "adapted"]), ""]
    for start, st in res["starts"].items():
        for size, sr in st["sizes"].items():
            lines += _size_lines(p, start, size, sr)
        lines += _size_control_lines(start, st.get("size_control") or {})
    lines += _cost_lines(res)
    if figure:
        lines += [
            "## Learning curves",
            "",
            "Dev RR@10 against training examples seen (mean over seeds, selected grid point; "
            "0 examples is the start).",
            "",
            f"![learning curves]({figure})",
            "",
        ]
    return "\n".join(lines) + "\n"


def _timing_text(res: Mapping[str, Any]) -> str:
    inv = (res.get("timing") or {}).get("invocations") or []
    secs = sum(float(i.get("wall_seconds", 0.0)) for i in inv if isinstance(i, Mapping))
    if not secs:
        return ""
    return (
        f"; wall time recorded by the {len(inv)} invocation(s) that ran to the end: "
        f"{secs / 3600:.1f} h (an interrupted invocation records none)"
    )


def _primary_lines(p: ComparePlan, res: Mapping[str, Any]) -> list[str]:
    from axiomatic._report import markdown_table

    pr = res["primary"]
    head = (
        f"## The answer: {pr['start']}, {pr['size']} training queries, {pr['collection']}, "
        f"{pr['measure']}"
    )
    lines = [head, "", "The primary comparison, declared in the plan before running.", ""]
    if not pr["rows"]:
        return [*lines, "Not run yet: no finished method of this cell was tested against plain.",
                ""]  # fmt: skip
    rows = [
        {"method": k, "vs plain": f"{r['diff']:+.4f}",
         "95% CI": f"[{r['ci95'][0]:+.4f}, {r['ci95'][1]:+.4f}]",
         "p (Holm)": _fmt(r["p_holm"], "{:.3g}"), "MDE": _fmt(r["mde"], "{:.4f}"),
         "seeds agreeing": f"{r['seeds_agree'][0]}/{r['seeds_agree'][1]}"
         + (f" (+{len(r['seed_diffs']) - r['seeds_agree'][1]} same model)"
            if len(r["seed_diffs"]) > r["seeds_agree"][1] else ""),
         "verdict": verdict_text(r)}
        for k, r in pr["rows"].items()
    ]  # fmt: skip
    lines += [markdown_table(rows, list(rows[0])), "", answer_sentence(pr), ""]
    return lines


def answer_sentence(pr: Mapping[str, Any]) -> str:
    """The one-sentence answer of the primary comparison, with the controls' reading."""
    rows = pr["rows"]
    ctl = pr.get("plain_vs_start")
    parts = []
    if pr.get("plain_trained") is False:
        parts.append(
            "Plain fine-tuning did not train (every seed kept its start), so this cell measures "
            "nothing about the methods"
        )
    elif ctl and not ctl.get("detected"):
        parts.append(
            f"The positive control failed: plain is not significantly above its untrained start "
            f"({ctl['diff']:+.4f}, p = {ctl['p']:.3g}), so this setup cannot show an effect of "
            "training at all"
        )
    by: dict[str, list[str]] = {}
    for k, r in rows.items():
        by.setdefault(r["verdict"], []).append(k)
    labels = {
        HELPS: ("helps", "help"),
        HURTS: ("hurts", "hurt"),
        NOT_ROBUST: ("is significant but not robust over seeds",
                     "are significant but not robust over seeds"),
        DID_NOT_TRAIN: ("did not train", "did not train"),
    }  # fmt: skip
    for v, (one, many) in labels.items():
        if by.get(v):
            parts.append(f"{', '.join(by[v])} {one if len(by[v]) == 1 else many}")
    if by.get(NO_EFFECT):
        mdes = [rows[k]["mde"] for k in by[NO_EFFECT] if not math.isnan(rows[k]["mde"])]
        rng = f" (MDE {min(mdes):.3f}-{max(mdes):.3f})" if mdes else ""
        parts.append(f"no detectable effect for {', '.join(by[NO_EFFECT])}{rng}")
    if ctl and ctl.get("detected"):
        parts.append(
            f"positive control passed: plain is {ctl['diff']:+.3f} above its untrained start "
            f"(p = {ctl['p']:.2g})"
        )
    return "**Answer:** " + "; ".join(parts) + "."


def _size_lines(p: ComparePlan, start: str, size: str, sr: Mapping[str, Any]) -> list[str]:
    from axiomatic._report import markdown_table

    n = next((v.get("training_queries") for v in sr["methods"].values()), None)
    lines = [f"## {start}, {size} training queries" + (f" ({n})" if n else ""), ""]
    if not sr["methods"]:
        return [*lines, "Not run: no finished unit.", ""]
    sel = []
    for k, v in sr["methods"].items():
        wc = [x for x in v["weight_change"].values() if x is not None]
        sel.append({
            "method": k, "selected": point_text(v["point"]),
            "dev RR@10 per grid point": "; ".join(
                f"{g}: {_fmt(d)}" for g, d in v["dev_by_point"].items()),
            "best step per seed": ", ".join(f"{s}: {b}" for s, b in v["best_step"].items()),
            "weights moved (rel.)": _fmt(float(np.mean(wc)) if wc else None, "{:.3g}"),
            "trained": "yes" if v["trained"] else "**did not train**",
        })  # fmt: skip
    cols = list(dict.fromkeys(c for r in sel for c in r))
    lines += [
        "Dev selection (mean best dev RR@10 over seeds per grid point) and the manipulation "
        "check (relative L2 distance of the selected weights from the start, mean over seeds):",
        "",
        markdown_table(sel, cols, missing=""),
        "",
    ]
    for coll, cr in sr["collections"].items():
        cmp = cr["comparison"]
        lines += [f"### {start}, {size} queries, on {coll} ({cr['queries']} queries)", "",
                  f"Mean (sd) over seeds; {cmp['family'] or 'no test'}.", ""]  # fmt: skip
        rows = []
        for system, stats in cr["table"].items():
            row: dict[str, Any] = {"method": system}
            for meas in MEASURES:
                s = stats[meas]
                row[meas] = _fmt(s["mean"]) + (f" ({_fmt(s['sd'])})" if s["seeds"] > 1 else "")
                c = cmp["rows"].get(system, {}).get(meas)
                if c is not None:
                    row[f"{meas} vs plain"] = (
                        f"{c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}] "
                        f"p={c['p_holm']:.3g}"
                    )
                    row[f"{meas} verdict"] = verdict_text(c)
            rows.append(row)
        cols = ["method"]
        for meas in MEASURES:
            cols += [meas, f"{meas} vs plain", f"{meas} verdict"]
        lines += [markdown_table(rows, cols, missing=""), ""]
        seeds = [str(x) for x in p.seeds]
        by_seed = [
            {"method": system, **{f"seed {x}": _fmt(stats[MEASURES[0]]["per_seed"].get(x))
                                  for x in seeds}}
            for system, stats in cr["table"].items() if stats[MEASURES[0]]["seeds"]
        ]  # fmt: skip
        lines += [f"{MEASURES[0]} per seed (mean over the test queries):", "",
                  markdown_table(by_seed, ["method", *(f"seed {x}" for x in seeds)],
                                 missing=""), ""]  # fmt: skip
        ctl = cr.get("plain_vs_start") or {}
        if ctl:
            lines += ["Positive control, plain vs its untrained start: " + "; ".join(
                f"{meas} {c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}] p={c['p']:.3g}"
                f" ({'detected' if c['detected'] else 'NOT detected'})"
                for meas, c in ctl.items()
            ) + ".", ""]  # fmt: skip
    diag = sr.get("diagnosis")
    if diag:
        lines += _diagnosis_lines(p, start, size, diag)
    return lines


def _size_control_lines(start: str, ctl: Mapping[str, Any]) -> list[str]:
    if not ctl or not ctl.get("collections"):
        return []
    lines = [f"### {start}: positive control, plain at {ctl['large']} vs {ctl['small']} "
             "training queries", ""]  # fmt: skip
    for coll, by in ctl["collections"].items():
        lines.append(f"- {coll}: " + "; ".join(
            f"{m} {c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}] p={c['p']:.3g} "
            f"({'detected' if c['detected'] else 'NOT detected'}; MDE {_fmt(c['mde'])})"
            for m, c in by.items()
        ))  # fmt: skip
    return [*lines, ""]


def _diagnosis_lines(p: ComparePlan, start: str, size: str, diag: Mapping[str, Any]) -> list[str]:
    from axiomatic._report import markdown_table

    ful, agr = diag["fulfilment"], diag["agreement"]
    methods = list(dict.fromkeys([*ful, *agr]))
    fcols = sorted({k for v in ful.values() for k in v})
    acols = sorted({k for v in agr.values() for k in v})
    base_f, base_a = ful.get("start", {}), agr.get("start", {})

    def cell(v: Any, b: Any, is_start: bool) -> str:
        if v is None:
            return ""
        if is_start or b is None:
            return _fmt(v)
        return f"{v:.3f} ({v - b:+.3f})"

    rows = [
        {"model": k,
         **{c: cell(ful.get(k, {}).get(c), base_f.get(c), k == "start") for c in fcols},
         **{f"agree {c}": cell(agr.get(k, {}).get(c), base_a.get(c), k == "start")
            for c in acols}}
        for k in methods
    ]  # fmt: skip
    return [
        f"### {start}, {size} queries: which axioms each method taught",
        "",
        f"Fulfilment: fraction of the mined {p.diagnose_axioms} instances (the first "
        f"{p.diagnose_queries} queries of {p.diagnose_set}, BM25 top {p.diagnose_depth}) each "
        f"model orders as the axiom says; Rosset agreement: fraction of {p.agreement_pairs} "
        "perturbation pairs scored in the axiom's direction. Means over seeds; in brackets the "
        "change from the untrained start. Instances: "
        + ", ".join(f"{k} {v}" for k, v in diag["instances"].items())
        + ".",
        "",
        markdown_table(rows, ["model", *fcols, *(f"agree {c}" for c in acols)], missing=""),
        "",
    ]


def _cost_lines(res: Mapping[str, Any]) -> list[str]:
    from axiomatic._report import markdown_table

    crow = []
    kinds = set()
    for start, st in res["starts"].items():
        for size, sr in st["sizes"].items():
            for method, c in sr["cost"].items():
                if c.get("memory"):
                    kinds.add(c["memory"])
                crow.append({
                    "start": start, "size": size, "method": method,
                    "s / 1k examples": _fmt(c["seconds_per_1k_examples"], "{:.1f}"),
                    "peak MiB": _fmt(c["peak_mib"], "{:.0f}"),
                    "examples seen (mean)": _fmt(c["examples_seen"], "{:.0f}"),
                    "pre-training s / 1k examples": _fmt(
                        c.get("pretrain_seconds_per_1k_examples"), "{:.1f}"),
                })  # fmt: skip
    if not crow:
        return []
    caption = (
        "Wall seconds of training per 1,000 examples seen (dev evaluations included: the same "
        "for every method), mean over the selected runs; peak memory: "
        + (", ".join(sorted(kinds)) or "not measured")
        + ", the largest over the seeds (on CPU the growth over the process' size when the run "
        "started, so compare CPU figures loosely; on CUDA the peak of allocated tensors)."
    )
    return ["## Cost", "", caption, "", markdown_table(crow, list(crow[0])), ""]


def _method_text(method: str, p: ComparePlan) -> str:
    own = {**METHODS[method], **p.method_config.get(method, {})}
    if method == "ares":
        return (
            f"ARES_{p.ares_variant} pre-training on {', '.join(p.ares_collections)} "
            f"({p.ares_steps} steps of {p.ares_batch_size}, lr {p.ares_lr:g}; a word-level "
            "start on the hinge alone), then plain fine-tuning"
        )
    if not own:
        return "pairwise hinge"
    text = ", ".join(f"{k}={v}" for k, v in own.items())
    if method == "rennings":
        text += f" (weak labeler {p.weak_axiom})"
    return text


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

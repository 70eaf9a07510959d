"""compare-training: the quick run covers every method's code path at two training sizes, and
its tables are recomputed here from the units' own outputs (test runs, trainer logs, diagnosis
files) with reference code (ir_measures through ``evaluate``, scipy's paired t-test, Holm
written out, the power of the t-test from the noncentral t distribution), not taken from the
experiment's helpers."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy import integrate, optimize, stats

from axiomatic.data.catalog import load_dataset
from axiomatic.evaluate.metrics import evaluate
from axiomatic.experiments.compare_training import (
    METHODS,
    ComparePlan,
    apply_point,
    minimal_detectable_effect,
    point_name,
    slug,
    verdict,
    weight_change,
)
from axiomatic.experiments.compare_training.report import answer_sentence
from axiomatic.experiments.compare_training.stats import (
    did_train,
    seed_agreement,
    seed_differences,
    verdict_text,
)
from axiomatic.experiments.engine import get_experiment, run_experiment
from axiomatic.experiments.units import UnitMismatchError
from axiomatic.models.io import load_model

MEASURES = ("nDCG@10", "RR@10")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("compare") / "out"
    res = run_experiment("compare-training", out, quick=True, echo=lambda _m: None)
    return out, res


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _unit(out: Path, start: str, size: str, method: str, point: dict, seed: int) -> Path:
    return out / "runs" / start / f"n{size}" / method / point_name(point) / f"seed{seed}"


def _holm(ps: list[float]) -> list[float]:
    order = np.argsort(ps)
    m = len(ps)
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adj[i] = running
    return list(adj)


def test_every_method_of_the_plan_ran_its_own_code_path(quick) -> None:
    out, _res = quick
    plan = ComparePlan.quick()
    assert {m for ms in plan.methods.values() for m in ms} == set(METHODS)
    for start, methods in plan.methods.items():
        for size in plan.size_names():
            for method in methods:
                for point in plan.grid(start, method):
                    for seed in plan.seeds:
                        unit = _unit(out, start, size, method, point, seed)
                        log = [json.loads(x) for x in (unit / "log.jsonl").read_text().splitlines()]
                        assert log[0]["step"] == 0 and "dev_mrr@10" in log[0]
                        trained = log[1]
                        if method == "ar":
                            assert "ar_loss" in trained
                        elif method == "ap":
                            assert trained["ap_pairs"] > 0
                        elif method in ("acrank", "acrank-hinge"):
                            assert trained["aug_plus"] > 0 and trained["aug_minus"] > 0
                        elif method == "infonce":
                            assert trained["aug_plus"] == 0 and trained["aug_minus"] == 0
                        elif method == "rennings":
                            assert _json(unit / "metrics.json")["pools"]["axiom"] > 0
                        else:
                            assert not {"ar_loss", "ap_pairs", "aug_plus"} & set(trained)
                        assert not (unit / "checkpoint.pt").exists()
                        assert (unit / "model").is_dir()
                        # the grid point reached the trainer
                        cfg = (unit / "config.toml").read_text(encoding="utf-8")
                        if "lambda" in point:
                            assert f"lambda={point['lambda']:g}" in cfg
    ares = _json(out / "ares" / f"{plan.ares_variant}-seed0" / "pretrain.json")
    assert ares["train"]["steps"] == plan.ares_steps
    # the word-level start is pre-trained from itself on the hinge alone, then fine-tuned from
    # the pre-trained weights (its units' manipulation check measures from there)
    for seed in plan.seeds:
        folder = out / "ares" / f"knrm-{plan.ares_variant}-seed{seed}"
        unit = _json(folder / "unit.json")
        assert unit["model"] == "knrm" and unit["mlm_weight"] == 0.0 and unit["seed"] == seed
        assert _json(folder / "pretrain.json")["train"]["steps"] == plan.ares_steps
        pre = load_model(folder / "encoder", device="cpu").state_dict()
        for point in plan.grid("knrm", "ares"):
            for size in plan.size_names():
                u = _unit(out, "knrm", size, "ares", point, seed)
                res = _json(u / "result.json")
                assert res["pretrain"]["examples"] == plan.ares_steps * plan.ares_batch_size
                if res["best_step"] == 0:  # kept its start: the pre-trained weights
                    sel = load_model(u / "model", device="cpu").state_dict()
                    assert all(torch.equal(pre[k], sel[k]) for k in pre)


def test_the_training_sizes_are_nested_subsets_of_the_queries_left_after_dev(quick) -> None:
    out, _res = quick
    plan = ComparePlan.quick()
    full = load_dataset(plan.train)
    queries = {}
    for size in plan.size_names():
        unit = _unit(out, "knrm", size, "plain", plan.grid("knrm", "plain")[0], 0)
        queries[size] = _json(unit / "result.json")["training_queries"]
    assert queries["4"] == 4
    judged = [q for q in full.queries if any(g >= 1 for g in full.judged(q).values())]
    assert queries["all"] == len(full.queries) - min(plan.dev_queries, len(judged) // 5)


def test_selection_and_learning_curves_come_from_the_trainer_logs(quick) -> None:
    out, res = quick
    plan = ComparePlan.quick()
    for start, st in res["starts"].items():
        for size, sr in st["sizes"].items():
            for method, info in sr["methods"].items():
                for seed in plan.seeds:
                    unit = _unit(out, start, size, method, info["point"], seed)
                    log = [json.loads(x) for x in (unit / "log.jsonl").read_text().splitlines()]
                    devs = [(r["step"], r["dev_mrr@10"]) for r in log if "dev_mrr@10" in r]
                    best = max(d for _s, d in devs)
                    first_best = next(s for s, d in devs if d == best)
                    assert info["best_dev"][str(seed)] == best
                    assert info["best_step"][str(seed)] == first_best
                    assert sr["curves"][method][str(seed)] == [
                        [s * plan.batch_size, d] for s, d in devs
                    ]
                # every grid point's mean best dev; the best one selected, only it tested
                grid = plan.grid(start, method)
                means = {}
                for g in grid:
                    rows = [_json(_unit(out, start, size, method, g, s) / "result.json")
                            for s in plan.seeds]  # fmt: skip
                    means[point_name(g)] = float(np.mean([r["best_dev"] for r in rows]))
                    assert info["dev_by_point"][point_name(g)] == pytest.approx(
                        means[point_name(g)]
                    )
                    scored = (_unit(out, start, size, method, g, 0) / "test").is_dir()
                    assert scored == (point_name(g) == info["point_name"])
                names = [point_name(g) for g in grid]
                assert info["point_name"] == max(names, key=lambda n: (means[n], -names.index(n)))
                assert info["trained"] == any(b > 0 for b in info["best_step"].values())


def test_the_tables_equal_a_recomputation_from_the_test_runs(quick) -> None:
    out, res = quick
    plan = ComparePlan.quick()
    for coll in plan.test_sets:
        ds = load_dataset(coll)
        s_ = slug(coll)
        for start, st in res["starts"].items():
            for size, sr in st["sizes"].items():
                cr = sr["collections"][coll]
                per_query: dict[str, dict[str, dict[str, float]]] = {}
                per_seed: dict[str, dict[str, list[float]]] = {}
                systems = {"start (no training)": [
                    out / "runs" / start / "start" / f"seed{s}" / f"{s_}.json" for s in plan.seeds
                ]}  # fmt: skip
                for method, info in sr["methods"].items():
                    systems[method] = [
                        _unit(out, start, size, method, info["point"], s) / "test" / f"{s_}.json"
                        for s in plan.seeds
                    ]
                for system, files in systems.items():
                    runs = [_json(f) for f in files]
                    for m in MEASURES:
                        means = [evaluate(r, ds.qrels, m)[m] for r in runs]
                        got = cr["table"][system][m]
                        assert got["mean"] == pytest.approx(np.mean(means))
                        assert got["sd"] == pytest.approx(np.std(means, ddof=1))
                        assert list(got["per_seed"].values()) == pytest.approx(means)
                        per_seed.setdefault(system, {})[m] = means
                        pq = [{q: evaluate({q: r[q]}, {q: ds.qrels[q]}, m)[m] for q in r}
                              for r in runs]  # fmt: skip
                        per_query.setdefault(system, {})[m] = {
                            q: float(np.mean([v[q] for v in pq])) for q in pq[0]
                        }
                others = [s for s in sr["methods"] if s != "plain"]
                for m in MEASURES:
                    base = per_query["plain"][m]
                    qids = sorted(base)
                    ps = []
                    for s in others:
                        a = np.array([per_query[s][m][q] for q in qids])
                        b = np.array([base[q] for q in qids])
                        p = stats.ttest_rel(a, b).pvalue
                        ps.append(1.0 if math.isnan(p) else float(p))
                        row = cr["comparison"]["rows"][s][m]
                        assert row["diff"] == pytest.approx(float(np.mean(a - b)))
                        # the seed-level check pairs seed s of the method with seed s of plain
                        want = [x - y for x, y in zip(per_seed[s][m], per_seed["plain"][m],
                                                      strict=True)]  # fmt: skip
                        assert row["seed_diffs"] == pytest.approx(want)
                        assert row["mde"] == pytest.approx(
                            _reference_mde(a - b, 0.05 / len(others), 0.8), rel=1e-4, abs=1e-12
                        )
                        trained = sr["methods"][s]["trained"]
                        assert row["verdict"] == verdict(
                            row["diff"], row["p_holm"], row["mde"], want, trained
                        )
                    for s, adj in zip(others, _holm(ps), strict=True):
                        got = cr["comparison"]["rows"][s][m]["p_holm"]
                        assert (math.isnan(got) and adj == 1.0) or got == pytest.approx(adj)
                # the positive control: plain against its untrained start, one paired t-test
                for m in MEASURES:
                    a = np.array([per_query["plain"][m][q] for q in sorted(per_query["plain"][m])])
                    b = np.array([per_query["start (no training)"][m][q]
                                  for q in sorted(per_query["plain"][m])])  # fmt: skip
                    ctl = cr["plain_vs_start"][m]
                    assert ctl["diff"] == pytest.approx(float(np.mean(a - b)))
                    p = stats.ttest_rel(a, b).pvalue
                    if not math.isnan(p) and not np.allclose(a, b):
                        assert ctl["p"] == pytest.approx(p)
                    assert ctl["detected"] == (ctl["p"] < 0.05 and ctl["diff"] > 0)


def test_the_primary_comparison_is_the_declared_cell(quick) -> None:
    _out, res = quick
    plan = ComparePlan.quick()
    pr = res["primary"]
    cell = plan.primary
    assert (pr["start"], pr["size"], pr["collection"], pr["measure"]) == (
        cell["start"], cell["size"], cell["collection"], cell["measure"])  # fmt: skip
    rows = res["starts"]["knrm"]["sizes"]["all"]["collections"]["demo/test"]["comparison"]["rows"]
    assert pr["rows"] == {m: r["nDCG@10"] for m, r in rows.items()}
    page = (_out / "summary.md").read_text(encoding="utf-8")
    assert "## The answer: knrm, all training queries, demo/test, nDCG@10" in page
    assert "does not help" not in page
    assert "Significance policy:" in page


def test_the_size_control_compares_plain_at_the_largest_and_smallest_size(quick) -> None:
    _out, res = quick
    ctl = res["starts"]["knrm"]["size_control"]
    assert (ctl["small"], ctl["large"]) == ("4", "all")
    assert set(ctl["collections"]["demo/test"]) == set(MEASURES)


def test_the_diagnosis_and_cost_tables_average_the_units(quick) -> None:
    out, res = quick
    plan = ComparePlan.quick()
    for start, st in res["starts"].items():
        for size, sr in st["sizes"].items():
            diag = _json(out / "diagnosis" / start / f"n{size}" / "diagnosis.json")
            assert set(diag["fulfilment"]) == {
                f"{m}/s{s}" for m in ["start", *plan.methods[start]] for s in plan.seeds
            }
            for part in ("fulfilment", "agreement"):
                for method, vals in sr["diagnosis"][part].items():
                    for axiom, v in vals.items():
                        seeds = [diag[part][f"{method}/s{s}"][axiom] for s in plan.seeds]
                        assert v == pytest.approx(np.mean(seeds))
            for method, cost in sr["cost"].items():
                rows = [_json(_unit(out, start, size, method, sr["methods"][method]["point"], s)
                              / "result.json") for s in plan.seeds]  # fmt: skip
                for r in rows:
                    assert r["seconds_per_1k_examples"] == pytest.approx(
                        1000 * r["seconds"] / r["examples_seen"]
                    )
                    assert r["examples_seen"] == plan.examples
                assert cost["seconds_per_1k_examples"] == pytest.approx(
                    np.mean([r["seconds_per_1k_examples"] for r in rows])
                )
    page = (out / "summary.md").read_text(encoding="utf-8")
    assert "## knrm, 4 training queries" in page and "## Cost" in page
    assert (out / "img" / "learning_curves.png").stat().st_size > 0


def test_the_manipulation_check_measures_how_far_the_selected_weights_moved(quick) -> None:
    """A unit whose best dev step is 0 saved its start: its weights moved exactly 0; one that
    trained moved them; the distance itself against a hand computation."""
    import torch

    out, _res = quick
    plan = ComparePlan.quick()
    seen = {"start": 0, "trained": 0}
    for size in plan.size_names():
        for method in ("plain", "ar"):
            for point in plan.grid("knrm", method):
                for seed in plan.seeds:
                    unit = _unit(out, "knrm", size, method, point, seed)
                    r = _json(unit / "result.json")
                    if r["best_step"] == 0:
                        assert r["weight_change"] == {"relative": 0.0, "max_abs": 0.0}
                        seen["start"] += 1
                    else:
                        assert r["weight_change"]["relative"] > 0
                        seen["trained"] += 1
    assert seen["start"] and seen["trained"]
    a = {"w": torch.tensor([3.0, 4.0]), "b": torch.tensor([0.0]), "ids": torch.tensor([1, 2])}
    b = {"w": torch.tensor([3.0, 5.0]), "b": torch.tensor([-2.0]), "ids": torch.tensor([7, 9])}
    got = weight_change(a, b)
    assert got["relative"] == pytest.approx(math.sqrt(1 + 4) / 5.0)
    assert got["max_abs"] == pytest.approx(2.0)


def test_the_test_runs_of_a_method_follow_its_last_unit(quick) -> None:
    """Each (start, size, method) is tested as soon as its units have all trained (a run cut
    short keeps the test runs of what it finished), before the next method trains."""
    out, _res = quick
    plan = ComparePlan.quick()
    test = slug(plan.test_sets[0])
    order = [(size, m) for size in plan.size_names() for m in plan.methods["knrm"]]
    for (size, method), nxt in itertools.pairwise(order):
        units = [_unit(out, "knrm", size, method, g, s) for g in plan.grid("knrm", method)
                 for s in plan.seeds]  # fmt: skip
        last = max((u / "result.json").stat().st_mtime_ns for u in units)
        scored = [u / "test" / f"{test}.json" for u in units if (u / "test").is_dir()]
        assert scored and all(f.stat().st_mtime_ns > last for f in scored)
        following = [_unit(out, "knrm", nxt[0], nxt[1], g, s) / "result.json"
                     for g in plan.grid("knrm", nxt[1]) for s in plan.seeds]  # fmt: skip
        first_next = min(f.stat().st_mtime_ns for f in following)
        assert all(f.stat().st_mtime_ns < first_next for f in scored)


def test_a_unit_without_a_dev_result_is_not_scored(tmp_path) -> None:
    out = tmp_path / "out"
    with pytest.raises(FileNotFoundError, match="no finished unit of this plan to report"):
        run_experiment(
            "compare-training", out, quick=True, starts=["knrm"], methods={"knrm": ["plain"]},
            lrs={"knrm": [1e-3]}, grids={}, seeds=[0], sizes=["all"], dev_queries=0,
            primary={}, echo=lambda _m: None,
        )  # fmt: skip
    unit = out / "runs" / "knrm" / "nall" / "plain" / "lr0.001" / "seed0"
    assert (unit / "result.json").is_file() and not (unit / "test").exists()


def test_report_only_reproduces_the_results(quick) -> None:
    out, res = quick
    again = run_experiment("compare-training", out, quick=True, report_only=True,
                           echo=lambda _m: None)  # fmt: skip
    assert json.dumps(again["starts"], sort_keys=True) == json.dumps(res["starts"], sort_keys=True)
    assert again["primary"] == res["primary"]


def test_a_unit_with_other_settings_is_refused(quick) -> None:
    out, _res = quick
    with pytest.raises(UnitMismatchError, match=r"patience 0 -> 3"):
        run_experiment("compare-training", out, quick=True, patience=3, echo=lambda _m: None)


def test_a_bad_plan_is_refused_before_any_work(tmp_path) -> None:
    exp = get_experiment("compare-training")
    with pytest.raises(ValueError, match=r"unknown compare-training method 'arr'.*'ar'"):
        exp.plan(True, methods={"knrm": ["plain", "arr"]})
    with pytest.raises(ValueError, match="lack the baseline 'plain'"):
        exp.plan(True, methods={"knrm": ["ar"], "cross-encoder": ["plain"]})
    with pytest.raises(ValueError, match="'ares' pre-trains a cross-encoder or a word-level"):
        exp.plan(
            True,
            starts=["bi-encoder"],
            methods={"bi-encoder": ["plain", "ares"]},
            primary={"start": "bi-encoder"},
        )
    with pytest.raises(ValueError, match="no methods"):
        exp.plan(True, starts=["bi-encoder"])
    with pytest.raises(ValueError, match=r"grids differ in size.*'ar': 3"):
        exp.plan(True, grids={"ar": [{"lambda": 0.1}, {"lambda": 0.5}, {"lambda": 1.0}]})
    with pytest.raises(ValueError, match=r"unknown parameter 'lamda'.*'lambda'"):
        exp.plan(True, grids={"ar": [{"lamda": 0.1}, {"lambda": 0.5}]})
    with pytest.raises(ValueError, match=r"'rate' is a parameter of ap, rennings, not of 'ar'"):
        exp.plan(True, grids={"ar": [{"rate": 0.1}, {"rate": 0.5}]})
    for bad in (True, float("nan"), -0.1, "0.1"):
        with pytest.raises(ValueError, match=r"grids\.ar\.lambda must be"):
            exp.plan(True, grids={"ar": [{"lambda": bad}, {"lambda": 0.5}]})
    with pytest.raises(ValueError, match="repeats a point"):
        exp.plan(True, grids={"ar": [{"lambda": 0.5}, {"lambda": 0.5}]})
    for bad_size in (0, -5, "most", True, 2.5):
        with pytest.raises(ValueError, match="compare-training sizes"):
            exp.plan(True, sizes=[bad_size])
    with pytest.raises(ValueError, match="sizes repeat"):
        exp.plan(True, sizes=[4, 4])
    with pytest.raises(ValueError, match=r"primary size '50' is not one the plan runs"):
        exp.plan(True, primary={"start": "knrm", "size": 50})
    with pytest.raises(ValueError, match=r"primary: unknown key\(s\) \['metric'\]"):
        exp.plan(True, primary={"metric": "nDCG@10"})
    with pytest.raises(ValueError, match=r"'alpha' must be a finite number > 0 and < 1 \(got 1.5"):
        exp.plan(True, alpha=1.5)
    with pytest.raises(ValueError, match=r"'examples' must be an integer >= 1 \(got -5"):
        exp.plan(True, examples=-5)
    assert not list(tmp_path.iterdir())


def test_a_grid_point_sets_the_methods_own_parameters() -> None:
    ar = METHODS["ar"]["regularizer"]
    assert apply_point(ar, {"lr": 1e-3, "lambda": 0.5, "mu": 0.25}) == (
        "ar(lambda=0.5, mu=0.25, axioms=TFC1-A,TFC1-D,TFC3,LNC)"
    )
    assert apply_point(ar, {"lr": 1e-3}) == ar
    ap = METHODS["ap"]["augmentation"]
    assert apply_point(ap, {"rate": 0.5}) == "perturb(rate=0.5, axioms=TFC1-A,TFC1-D,TFC3,LNC)"
    acr = METHODS["acrank"]["augmentation"]
    assert apply_point(acr, {"p": 0.3}) == (
        "acrank(p=0.3, rule='TFC-A&D', loss=infonce, negatives=3)"
    )
    from axiomatic.experiments.compare_training.plan import train_config

    plan = ComparePlan.quick()
    cfg = train_config(plan, "knrm", "ar", {"lr": 2e-3, "lambda": 0.7, "mu": 0.3}, 0)
    assert (cfg.lr, cfg.ar.lambda_, cfg.ar.mu) == (2e-3, 0.7, 0.3)
    cfg = train_config(plan, "knrm", "ap", {"lr": 1e-3, "rate": 0.25}, 0)
    assert cfg.augment.rate == 0.25
    cfg = train_config(plan, "knrm", "rennings", {"lr": 1e-3, "rate": 2.0}, 0, "inst")
    assert (cfg.augment.rate, cfg.augment.instances) == (2.0, "inst")
    assert point_name({"lr": 1e-3, "lambda": 0.5, "mu": 0.5}) == "lr0.001-lambda0.5-mu0.5"


# ---------------------------------------------------------------------- the statistics
def _reference_mde(d: np.ndarray, alpha: float, power: float) -> float:
    """The MDE from the noncentral t distribution (independent of statsmodels): the mean
    difference delta at which a two-sided paired t-test at ``alpha`` has ``power``."""
    n = len(d)
    sd = float(np.std(d, ddof=1))
    if sd == 0:
        return 0.0
    crit = stats.t.ppf(1 - alpha / 2, n - 1)

    def gap(effect: float) -> float:
        # T = (Z + nc) / sqrt(V / df), V ~ chi2(df): the power integrated over V
        nc, df = effect * math.sqrt(n), n - 1

        def f(v: float) -> float:
            s = crit * math.sqrt(v / df)
            return float(stats.chi2.pdf(v, df) * (stats.norm.sf(s - nc) + stats.norm.cdf(-s - nc)))

        lo, hi = stats.chi2.ppf([1e-12, 1 - 1e-12], df)
        return integrate.quad(f, lo, hi, limit=200)[0] - power

    hi = 0.01
    while gap(hi) < 0:
        hi *= 2
    return float(optimize.brentq(gap, 1e-9, hi, xtol=1e-12)) * sd


def test_the_minimal_detectable_effect_equals_the_noncentral_t_reference() -> None:
    rng = np.random.default_rng(3)
    for n, tests in ((300, 4), (43, 1), (12, 6)):
        d = rng.normal(0.01, 0.2, n)
        got = minimal_detectable_effect(d, 0.05, 0.8, tests=tests)
        assert got == pytest.approx(_reference_mde(d, 0.05 / tests, 0.8), rel=1e-4)
    # a handful of queries at a strict level (statsmodels' solver does not converge there):
    # simulated paired t-tests at the MDE reject in 80 % of the cases
    d = rng.normal(0.01, 0.2, 3)
    mde = minimal_detectable_effect(d, 0.05, 0.8, tests=6)
    sims = rng.normal(mde, d.std(ddof=1), size=(200_000, 3))
    t = sims.mean(axis=1) / (sims.std(axis=1, ddof=1) / math.sqrt(3))
    assert np.mean(np.abs(t) > stats.t.ppf(1 - 0.05 / 12, 2)) == pytest.approx(0.8, abs=0.005)
    # more queries, smaller MDE; a stricter family, larger MDE
    d = rng.normal(0, 0.2, 200)
    assert minimal_detectable_effect(d[:50]) > minimal_detectable_effect(d)
    assert minimal_detectable_effect(d, tests=4) > minimal_detectable_effect(d, tests=1)
    assert math.isnan(minimal_detectable_effect([0.1]))
    assert minimal_detectable_effect([0.1, 0.1, 0.1]) == 0.0


def test_the_verdicts() -> None:
    # significant after Holm, most seeds agree: helps / hurts
    assert verdict(0.02, 0.01, 0.015, [0.01, 0.03, 0.02, -0.01], True) == "helps"
    assert verdict(-0.02, 0.01, 0.015, [-0.01, -0.03, -0.02, 0.01], True) == "hurts"
    # the unadjusted p is not the verdict's: p_holm decides
    assert verdict(0.02, 0.2, 0.015, [0.01, 0.03, 0.02, 0.02], True) == "no detectable effect"
    # one lucky seed cannot carry a verdict: half the seeds is not enough
    assert verdict(0.02, 0.01, 0.015, [0.08, 0.01, -0.01, -0.02], True) == "not robust over seeds"
    assert verdict(0.02, 0.01, 0.015, [0.08, -0.01], True) == "not robust over seeds"
    # a seed where both kept the same model counts neither way; two agreeing of three decide
    assert verdict(0.07, 1e-9, 0.02, [0.0, 0.20, -0.01, 0.10], True) == "helps"
    # ... but one agreeing seed never does, however many others tie
    assert verdict(0.07, 1e-9, 0.02, [0.0, 0.0, 0.0, 0.30], True) == "not robust over seeds"
    assert verdict(0.07, 1e-9, 0.02, [0.0, 0.0, -0.01, 0.30], True) == "not robust over seeds"
    # with a single seed in the plan, that seed is the check
    assert verdict(0.07, 1e-9, 0.02, [0.05], True) == "helps"
    # nothing trained: never "no effect"
    assert verdict(0.0, 1.0, 0.01, [0.0, 0.0], False) == "did not train"
    assert verdict(0.05, 0.001, 0.01, [0.05, 0.05], False) == "did not train"
    assert verdict(0.0, float("nan"), 0.01, [], True) == "no detectable effect"
    assert seed_agreement([0.1, -0.2, 0.0, 0.3], 0.5) == (2, 3)
    assert seed_agreement([0.1, -0.2], -1.0) == (1, 2)
    assert did_train([0, 0, None]) is False and did_train([0, 50]) is True
    assert seed_differences(
        {0: {"a": 1.0, "b": 0.0}, 1: {"a": 0.5, "b": 0.5}, 2: {"a": 1.0}},
        {0: {"a": 0.0, "b": 0.0}, 1: {"a": 0.0, "b": 1.0}},
    ) == [0.5, 0.0]
    text = verdict_text({"verdict": "no detectable effect", "mde": 0.0213})
    assert text == "no detectable effect (MDE 0.021)"
    assert verdict_text({"verdict": "helps", "seeds_agree": [3, 4]}) == (
        "helps (3/4 seeds that differ)"
    )


def test_the_answer_sentence_says_when_nothing_was_measured() -> None:
    row = {"diff": 0.0, "mde": 0.02, "verdict": "no detectable effect"}
    failed = {"diff": 0.001, "p": 0.6, "detected": False}
    s = answer_sentence({"rows": {"ar": row}, "plain_vs_start": failed, "plain_trained": True})
    assert "positive control failed" in s and "cannot show an effect" in s
    s = answer_sentence({"rows": {"ar": row}, "plain_vs_start": failed, "plain_trained": False})
    assert "did not train" in s
    passed = {"diff": 0.1, "p": 0.001, "detected": True}
    s = answer_sentence({"rows": {"ar": {**row, "verdict": "helps", "diff": 0.03}},
                         "plain_vs_start": passed, "plain_trained": True})  # fmt: skip
    assert "ar helps" in s and "positive control passed" in s
    assert "does not help" not in s


# ---------------------------------------------------------------------- the configs
def _config(name: str):
    from axiomatic.training.config import read_toml

    data = read_toml(ROOT / "configs" / f"compare-training-{name}.toml")["plan"]
    return get_experiment("compare-training").plan(False, **data)


def test_the_scifact_knrm_config_is_the_declared_regime_a_plan() -> None:
    plan = _config("scifact-knrm")
    assert plan.docs == "docs/comparison.md"
    assert plan.starts == ["knrm"] and plan.embeddings == "word2vec"
    assert plan.methods["knrm"] == ["plain", "ar", "ap", "rennings", "acrank", "ares"]
    assert plan.size_names() == ["50", "200", "all"] and plan.dev_queries == 100
    assert len(plan.seeds) >= 4 and plan.test_queries is None
    assert plan.primary_cell() == {"start": "knrm", "size": "50", "collection": "scifact/test",
                                   "measure": "nDCG@10"}  # fmt: skip
    assert {len(plan.grid("knrm", m)) for m in plan.methods["knrm"]} == {2}
    # ARES without real queries: no training claim beyond the size's is seen
    assert plan.ares_variant == "strict" and plan.ares_collections == ["scifact"]


def test_the_msmarco_knrm_config_is_the_scifact_plan_on_ms_marco() -> None:
    knrm, ms = _config("scifact-knrm"), _config("msmarco-knrm")
    assert ms.train == "msmarco-dev-top20/train" and ms.dev_queries == 30
    assert ms.size_names() == ["50"] and ms.docs == "docs/comparison-msmarco.md"
    assert ms.test_sets == ["msmarco-dev-top20/test", "trec-dl-2019/bm25"]
    assert ms.primary_cell() == {"start": "knrm", "size": "50",
                                 "collection": "msmarco-dev-top20/test", "measure": "RR@10"}  # fmt: skip
    # ARES on MS MARCO passages, pseudo queries only (no training query beyond the size's)
    assert ms.ares_variant == "strict" and ms.ares_collections == ["msmarco-20k"]
    for name in ("methods", "lrs", "grids", "examples", "batch_size", "eval_every", "seeds",
                 "embeddings", "optimizer", "ares_steps", "ares_lr"):  # fmt: skip
        assert getattr(ms, name) == getattr(knrm, name), name


def test_the_conv_knrm_config_is_the_knrm_plans_primary_cell() -> None:
    knrm, conv = _config("scifact-knrm"), _config("scifact-conv-knrm")
    assert conv.starts == ["conv-knrm"] and conv.size_names() == ["50"]
    assert conv.primary_cell() == {**knrm.primary_cell(), "start": "conv-knrm"}
    for name in ("train", "depth", "dev_queries", "examples", "batch_size", "eval_every",
                 "seeds", "test_sets", "embeddings", "optimizer"):  # fmt: skip
        assert getattr(conv, name) == getattr(knrm, name), name
    assert {len(conv.grid("conv-knrm", m)) for m in conv.methods["conv-knrm"]} == {1}


def test_the_gpu_configs_are_valid_plans() -> None:
    full = ComparePlan.full()
    plan = _config("gpu")
    assert set(plan.starts) == {"bi-encoder", "cross-encoder"}
    assert dataclasses.replace(plan, docs=None, seeds=full.seeds) == full
    ce = _config("cross-encoder")
    assert ce.starts == ["cross-encoder"]
    assert ce.methods == {"cross-encoder": full.methods["cross-encoder"]}
    assert ce.docs == "docs/comparison-cross-encoder.md"
    assert len(ce.seeds) >= 4


def test_the_positive_control_is_one_uncorrected_paired_t_test() -> None:
    from axiomatic.experiments.compare_training.stats import interval, paired_control

    rng = np.random.default_rng(5)
    qids = [f"q{i}" for i in range(40)]
    b = {q: float(x) for q, x in zip(qids, rng.uniform(0, 1, 40), strict=True)}
    for shift, detected in ((0.2, True), (-0.2, False), (0.0, False)):
        a = {q: min(1.0, max(0.0, b[q] + shift + rng.normal(0, 0.05))) for q in qids}
        d = np.array([a[q] - b[q] for q in qids])
        got = paired_control(a, {**b, "extra": 0.5}, alpha=0.05, power=0.8)
        assert got["n"] == 40 and got["diff"] == pytest.approx(d.mean())
        assert got["p"] == pytest.approx(stats.ttest_rel(d, np.zeros(40)).pvalue)
        assert got["detected"] is detected
        assert got["mde"] == pytest.approx(_reference_mde(d, 0.05, 0.8), rel=1e-4)
        half = stats.t.ppf(0.975, 39) * d.std(ddof=1) / math.sqrt(40)
        assert got["ci95"] == pytest.approx([d.mean() - half, d.mean() + half])
    assert interval([0.3]) != interval([0.3])  # nan for one query (nan != nan)
    one = paired_control({"q": 1.0}, {"q": 0.0})
    assert one["n"] == 1 and one["detected"] is False and math.isnan(one["p"])


def test_the_statistics_boundaries_and_defaults() -> None:
    from axiomatic.experiments.compare_training.stats import interval, paired_control

    # Holm-adjusted p exactly at alpha is not significant; one step past the start trained
    assert verdict(0.05, 0.05, 0.01, [0.05, 0.05], True) == "no detectable effect"
    assert verdict(0.05, 0.0499, 0.01, [0.05, 0.05], True) == "helps"
    assert did_train([0, 1]) is True and did_train([]) is False
    # no direction: nothing agrees
    assert seed_agreement([0.1, -0.1], 0.0) == (0, 2)
    # the defaults are alpha 0.05 and power 0.8
    rng = np.random.default_rng(9)
    d = rng.normal(0.02, 0.1, 60)
    assert minimal_detectable_effect(d) == pytest.approx(_reference_mde(d, 0.05, 0.8), rel=1e-4)
    a = {f"q{i}": float(x) for i, x in enumerate(d)}
    z = {f"q{i}": 0.0 for i in range(60)}
    got = paired_control(a, z)
    assert got["mde"] == pytest.approx(_reference_mde(d, 0.05, 0.8), rel=1e-4)
    p = stats.ttest_rel(d, np.zeros(60)).pvalue
    assert got["detected"] == (p < 0.05 and d.mean() > 0)
    # integer inputs are differences of floats, not of integers
    lo, hi = interval([1, 2])
    assert lo < 1.5 < hi and isinstance(lo, float)


def test_the_power_integral_and_the_seed_differences_on_their_own() -> None:
    from statsmodels.stats.power import TTestPower

    from axiomatic.experiments.compare_training.stats import _power_by_integration

    for n, effect, alpha in ((12, 1.0, 0.05), (40, 0.3, 0.01), (5, 2.0, 0.0125)):
        want = TTestPower().power(effect_size=effect, nobs=n, alpha=alpha)
        assert _power_by_integration(effect, n, alpha) == pytest.approx(want, abs=1e-6)
    # only the queries both runs of a seed have are paired
    got = seed_differences({0: {"a": 1.0, "b": 0.5}}, {0: {"a": 0.25, "c": 9.0}})
    assert got == [0.75]

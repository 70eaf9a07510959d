"""compare-training (issue 26): the quick run covers every method's code path, and its tables
are recomputed here from the units' own outputs (test runs, trainer logs, diagnosis files)
with reference code (ir_measures through ``evaluate``, scipy's paired t-test, Holm written
out), not taken from the experiment's helpers."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from axiomatic.data.catalog import load_dataset
from axiomatic.evaluate.metrics import evaluate
from axiomatic.experiments.compare_training import METHODS, ComparePlan, _slug
from axiomatic.experiments.engine import get_experiment, run_experiment
from axiomatic.experiments.units import UnitMismatchError

MEASURES = ("nDCG@10", "RR@10")


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("compare") / "out"
    res = run_experiment("compare-training", out, quick=True, echo=lambda _m: None)
    return out, res


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


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
        for method in methods:
            for lr in plan.lrs[start]:
                for seed in plan.seeds:
                    unit = out / "runs" / start / method / f"lr{lr:g}" / f"seed{seed}"
                    log = [json.loads(x) for x in (unit / "log.jsonl").read_text().splitlines()]
                    assert log[0] == {"step": 0, "epoch": 0.0, "dev_mrr@10": log[0]["dev_mrr@10"]}
                    trained = log[1]
                    # what only this method's strategy logs (or its pools, for Rennings)
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
                    # finished: no resume state kept, the best model saved
                    assert not (unit / "checkpoint.pt").exists()
                    assert (unit / "model").is_dir()
    lr = f"lr{plan.lrs['cross-encoder'][0]:g}"
    ares = _json(out / "ares" / f"{plan.ares_variant}-seed0" / "pretrain.json")
    assert ares["train"]["steps"] == plan.ares_steps
    # the ARES unit fine-tunes the pre-trained encoder, not a fresh cross-encoder
    assert (
        _json(out / "runs" / "cross-encoder" / "ares" / lr / "seed0" / "result.json")["pretrain"][
            "examples"
        ]
        == plan.ares_steps * plan.ares_batch_size
    )
    assert not Path("docs/comparison.md").exists() or plan.docs is None


def test_selection_and_learning_curves_come_from_the_trainer_logs(quick) -> None:
    out, res = quick
    plan = ComparePlan.quick()
    for start, sr in res["starts"].items():
        for method, info in sr["methods"].items():
            lr = f"lr{info['lr']:g}"
            for seed in plan.seeds:
                unit = out / "runs" / start / method / lr / f"seed{seed}"
                log = [json.loads(x) for x in (unit / "log.jsonl").read_text().splitlines()]
                devs = [(r["step"], r["dev_mrr@10"]) for r in log if "dev_mrr@10" in r]
                best = max(d for _s, d in devs)
                first_best = next(s for s, d in devs if d == best)
                assert info["best_dev"][str(seed)] == best
                assert info["best_step"][str(seed)] == first_best
                assert sr["curves"][method][str(seed)] == [
                    [s * plan.batch_size, d] for s, d in devs
                ]
            # every grid point's mean best dev; the best one selected, only it scored on test
            dev_by_lr = {}
            for g in plan.lrs[start]:
                rows = [
                    _json(out / "runs" / start / method / f"lr{g:g}" / f"seed{s}" / "result.json")
                    for s in plan.seeds
                ]
                dev_by_lr[g] = float(np.mean([r["best_dev"] for r in rows]))
                assert info["dev_by_lr"][f"{g:g}"] == pytest.approx(dev_by_lr[g])
                scored = (out / "runs" / start / method / f"lr{g:g}" / "seed0" / "test").is_dir()
                assert scored == (g == info["lr"])
            assert info["lr"] == max(
                dev_by_lr, key=lambda g: (dev_by_lr[g], -plan.lrs[start].index(g))
            )


def test_the_tables_equal_a_recomputation_from_the_test_runs(quick) -> None:
    out, res = quick
    plan = ComparePlan.quick()
    for coll in plan.test_sets:
        ds = load_dataset(coll)
        slug = coll.replace("/", "_")
        for start, sr in res["starts"].items():
            cr = sr["collections"][coll]
            per_query: dict[str, dict[str, dict[str, float]]] = {}
            systems = {"start (no training)": [
                out / "runs" / start / "start" / f"seed{s}" / f"{slug}.json" for s in plan.seeds
            ]}  # fmt: skip
            for method, info in sr["methods"].items():
                systems[method] = [
                    out / "runs" / start / method / f"lr{info['lr']:g}" / f"seed{s}" / "test"
                    / f"{slug}.json"
                    for s in plan.seeds
                ]  # fmt: skip
            for system, files in systems.items():
                runs = [_json(f) for f in files]
                for m in MEASURES:
                    means = [evaluate(r, ds.qrels, m)[m] for r in runs]
                    got = cr["table"][system][m]
                    assert got["mean"] == pytest.approx(np.mean(means))
                    assert got["sd"] == pytest.approx(np.std(means, ddof=1))
                    # per query, averaged over the seeds (what the paired test pairs)
                    pq = [{q: evaluate({q: r[q]}, {q: ds.qrels[q]}, m)[m] for q in r} for r in runs]
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
                    d = a - b
                    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
                    assert row["ci95"] == pytest.approx([d.mean() - half, d.mean() + half])
                for s, adj in zip(others, _holm(ps), strict=True):
                    got = cr["comparison"]["rows"][s][m]["p_holm"]
                    assert (math.isnan(got) and adj == 1.0) or got == pytest.approx(adj)
            assert f"Holm over the {len(others)} method" in cr["comparison"]["family"]


def test_the_diagnosis_and_cost_tables_average_the_units(quick) -> None:
    out, res = quick
    plan = ComparePlan.quick()
    for start, sr in res["starts"].items():
        diag = _json(out / "diagnosis" / start / "diagnosis.json")
        assert set(diag["fulfilment"]) == {
            f"{m}/s{s}" for m in ["start", *plan.methods[start]] for s in plan.seeds
        }
        for part in ("fulfilment", "agreement"):
            for method, vals in sr["diagnosis"][part].items():
                for axiom, v in vals.items():
                    seeds = [diag[part][f"{method}/s{s}"][axiom] for s in plan.seeds]
                    assert v == pytest.approx(np.mean(seeds))
        for method, cost in sr["cost"].items():
            rows = [
                _json(out / "runs" / start / method / f"lr{sr['methods'][method]['lr']:g}"
                      / f"seed{s}" / "result.json")
                for s in plan.seeds
            ]  # fmt: skip
            for r in rows:
                assert r["seconds_per_1k_examples"] == pytest.approx(
                    1000 * r["seconds"] / r["examples_seen"]
                )
                assert r["examples_seen"] == plan.examples  # one step of one batch
            assert cost["seconds_per_1k_examples"] == pytest.approx(
                np.mean([r["seconds_per_1k_examples"] for r in rows])
            )
    page = (out / "summary.md").read_text(encoding="utf-8")
    assert "## Start: knrm" in page and "## Cost" in page and "img/learning_curves.png" in page
    assert (out / "img" / "learning_curves.png").stat().st_size > 0


def test_a_one_point_grid_scores_each_unit_before_the_next_trains(quick) -> None:
    """With one learning rate every unit is selected, so its test runs are written right after
    it trains (a run cut short keeps them); with a grid, only after every unit has trained."""
    out, _res = quick
    plan = ComparePlan.quick()
    test = _slug(plan.test_sets[0])

    def units(start: str, lr: float) -> list[Path]:
        methods = plan.methods[start]
        return [out / "runs" / start / m / f"lr{lr:g}" / f"seed{s}" for m in methods
                for s in plan.seeds]  # fmt: skip

    def trained(unit: Path) -> int:
        return (unit / "result.json").stat().st_mtime_ns

    def scored(unit: Path) -> int:
        return (unit / "test" / f"{test}.json").stat().st_mtime_ns

    (lr,) = plan.lrs["cross-encoder"]
    ce = units("cross-encoder", lr)  # in training order
    for unit, following in itertools.pairwise(ce):
        assert trained(unit) < scored(unit) < trained(following)
    knrm = [u for lr in plan.lrs["knrm"] for u in units("knrm", lr)]
    last = max(trained(u) for u in knrm)
    assert all(scored(u) > last for u in knrm if (u / "test" / f"{test}.json").is_file())


def test_a_unit_without_a_dev_result_is_not_scored(tmp_path) -> None:
    """Without dev queries no unit has a dev result, so none is selected: nothing is tested
    (one learning rate: the early test runs follow the selection too), nothing reported."""
    out = tmp_path / "out"
    with pytest.raises(FileNotFoundError, match="no finished unit of this plan to report"):
        run_experiment(
            "compare-training", out, quick=True, starts=["knrm"], methods={"knrm": ["plain"]},
            lrs={"knrm": [1e-3]}, seeds=[0], dev_queries=0, echo=lambda _m: None,
        )  # fmt: skip
    unit = out / "runs" / "knrm" / "plain" / "lr0.001" / "seed0"
    assert (unit / "result.json").is_file() and not (unit / "test").exists()


def test_report_only_reproduces_the_results(quick) -> None:
    out, res = quick
    again = run_experiment("compare-training", out, quick=True, report_only=True,
                           echo=lambda _m: None)  # fmt: skip
    assert json.dumps(again["starts"], sort_keys=True) == json.dumps(res["starts"], sort_keys=True)


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
    with pytest.raises(ValueError, match="'ares' pre-trains a cross-encoder"):
        exp.plan(True, methods={"knrm": ["plain", "ares"], "cross-encoder": ["plain"]})
    with pytest.raises(ValueError, match="no methods"):
        exp.plan(True, starts=["bi-encoder"])
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["reduced", "gpu"])
def test_the_configs_are_valid_plans_that_write_the_page(name: str) -> None:
    from axiomatic.training.config import read_toml

    root = Path(__file__).resolve().parents[2]
    data = read_toml(root / "configs" / f"compare-training-{name}.toml")["plan"]
    plan = get_experiment("compare-training").plan(False, **data)
    assert plan.docs == "docs/comparison.md"
    # the reduced config runs the bi-encoder start only (the cross-encoder's rows stay in it)
    want = {"bi-encoder"} if name == "reduced" else {"bi-encoder", "cross-encoder"}
    assert set(plan.starts) == want
    assert {m for ms in plan.methods.values() for m in ms} == set(METHODS)
    assert plan.seeds == [0, 1, 2]
    if name == "gpu":  # the paper-scale config is the plan's defaults (--full), page added
        assert dataclasses.replace(plan, docs=None) == ComparePlan.full()


def test_the_cross_encoder_config_is_the_gpu_plan_cut_to_its_start_and_budget() -> None:
    """configs/compare-training-cross-encoder.toml: the cross-encoder's five methods on the GPU
    plan's data, tests and dev split, at 200 steps of 32 and the one lr the H200 curves chose."""
    from axiomatic.training.config import read_toml

    root = Path(__file__).resolve().parents[2]
    data = read_toml(root / "configs" / "compare-training-cross-encoder.toml")["plan"]
    plan = get_experiment("compare-training").plan(False, **data)
    full = ComparePlan.full()
    assert plan.starts == ["cross-encoder"]
    assert plan.methods == {"cross-encoder": full.methods["cross-encoder"]}
    assert plan.lrs == {"cross-encoder": [5e-5]}
    assert (plan.examples, plan.batch_size, plan.eval_every) == (6400, 32, 50)
    assert plan.docs == "docs/comparison-cross-encoder.md"
    same = ("train", "depth", "dev_queries", "seeds", "test_sets", "test_depth", "test_queries",
            "ares_collections", "ares_variant", "diagnose_queries", "agreement_pairs")  # fmt: skip
    assert {k: getattr(plan, k) for k in same} == {k: getattr(full, k) for k in same}
    assert plan.model_config["cross-encoder"] == full.model_config["cross-encoder"]

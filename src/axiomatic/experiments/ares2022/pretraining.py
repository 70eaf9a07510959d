"""ARES (Chen et al. 2022): the first stages - collections, the preference predictor,
pre-training and zero-shot re-ranking."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic.experiments.ares2022.plan import (
    MEASURES,
    AresPlan,
    _encoder_inputs,
    _file_unit,
    _prepared_inputs,
    _settings,
)
from axiomatic.experiments.common import (
    on_device,
    per_query,
    read_json,
    write_json,
)
from axiomatic.experiments.units import (
    UnitRecord,
    UnitStore,
    dataset_fingerprint,
)


def _prepared(plan: AresPlan, out: Path, data_root: Any = None) -> list[Any]:
    from axiomatic.ares.pipeline import load_collection, prepare

    return [
        prepare(load_collection(c, data_root), cache_dir=out / "cache", seed=plan.seed)
        for c in plan.collections
    ]


def run_predictor_stage(
    plan: AresPlan,
    out: Path,
    prepared: Sequence[Any],
    echo: Callable[[str], None],
    store: UnitStore | None = None,
) -> dict[str, Any]:
    """AUC per setting (pooled over the collections) and per collection, importances."""
    from axiomatic.ares.pipeline import rank_first_shares, setting_pairs
    from axiomatic.ares.predictor import evaluate_setting, roc_auc
    from axiomatic.axioms.query_pairs import parse_query_pair_axioms, preference_features

    path = out / "predictor.json"
    record = UnitRecord(
        _settings(
            "predictor",
            collections=list(plan.collections),
            settings=list(plan.settings),
            auc_seeds=list(plan.auc_seeds),
            seed=plan.seed,
            report=2,  # 2: per-collection length control, RANK-first shares, contrast
        ),
        _prepared_inputs(prepared),
    )
    if _file_unit(store or UnitStore(out), path, record):
        return dict(read_json(path))
    names = [a.name for a in parse_query_pair_axioms("all")]
    results: dict[str, Any] = {"features": names, "settings": {}, "collections": {}}
    for p in prepared:
        results["collections"][p.collection.name] = {
            "documents": len(p.collection.documents),
            "real_queries": len(p.real_doc),
            "mu": p.pseudo.params.get("mu"),
            "contrast": p.pseudo.params.get("contrast"),
            **rank_first_shares(p),
        }
    for s in plan.settings:
        Xs, ys, per = [], [], {}
        lens = []
        for p in prepared:
            # one draw of the setting's pairs: its features and its length-only control
            i, j, y = setting_pairs(p, s, seed=plan.seed)
            Xs.append(preference_features(p.ctx, i, j))
            ys.append(y)
            lens.append((p.ctx.q_len[i] - p.ctx.q_len[j]).astype(np.float64))
            per[p.collection.name] = {"n_positives": len(p.real_doc), "n_pairs": len(y)}
        X, y = np.concatenate(Xs), np.concatenate(ys)
        r = evaluate_setting(s, X, y, names, seeds=plan.auc_seeds).to_dict()
        r["per_collection"] = per
        r["auc_length_only"] = roc_auc(y, np.concatenate(lens))
        # trained and reported per collection, each next to its length-only control
        r["auc_per_collection"] = {}
        r["auc_length_only_per_collection"] = {}
        for p, Xc, yc, lc in zip(prepared, Xs, ys, lens, strict=True):
            r["auc_length_only_per_collection"][p.collection.name] = roc_auc(yc, lc)
            if len(yc) >= 20:
                rc = evaluate_setting(s, Xc, yc, names, seeds=plan.auc_seeds)
                r["auc_per_collection"][p.collection.name] = [rc.auc_mean, rc.auc_sd]
        results["settings"][s] = r
        echo(f"setting {s}: AUC {r['auc_mean']:.4f} +- {r['auc_sd']:.4f} ({r['n_pairs']} pairs)")
    write_json(path, results)
    return results


def dev_subset(name: str, n: int, data_root: Any = None) -> Any:
    """The first ``n`` judged queries (sorted ids) of a *training* split, for zero-shot
    checkpoint selection as the paper (5,000 MS MARCO training queries)."""
    from axiomatic.experiments.common import load_split

    ds = load_split(name, data_root, 100)
    qids = sorted(q for q in ds.queries if (ds.qrels or {}).get(q))[:n]
    return ds.subset(qids)


def _pretrain(plan: AresPlan, out: Path, prepared: Sequence[Any], v: str, dev: Any) -> Any:
    """One variant pre-trained with the plan's budget (cached under ``out/pretrain/<v>``)."""
    from axiomatic.ares.pretrain import pretrain_ares

    return pretrain_ares(
        prepared, out / "pretrain" / v, v, dev=dev, steps=plan.steps,
        batch_size=plan.batch_size, lr=plan.lr, max_length=plan.max_length,
        eval_every=plan.eval_every, checkpoint_every=plan.checkpoint_every,
        mlm_weight=plan.mlm_weight, seed=plan.seed, head=plan.head, masking=plan.masking,
    )  # fmt: skip


def run_pretrain_stage(
    plan: AresPlan, out: Path, prepared: Sequence[Any], echo: Callable[[str], None],
    data_root: Any = None,
) -> dict[str, Any]:  # fmt: skip
    dev = dev_subset(plan.dev_dataset, plan.dev_queries, data_root)
    summaries = {}
    for v in plan.variants:
        t = time.perf_counter()
        s = _pretrain(plan, out, prepared, v, dev)
        s["wall_s"] = time.perf_counter() - t
        summaries[v] = s
        echo(f"pre-trained ARES_{v}: {s['n_pairs']} pairs, {s['train']}")
    return summaries


def run_zero_shot(
    plan: AresPlan, out: Path, pretrain: dict[str, Any], echo: Callable[[str], None],
    data_root: Any = None, store: UnitStore | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Zero-shot re-ranking of each eval set's BM25 top-``eval_depth`` candidates."""
    from axiomatic.experiments.common import load_split, mean_values
    from axiomatic.models.io import load_model
    from axiomatic.models.scoring import score_candidates
    from axiomatic.models.transformer import BiEncoder, CrossEncoder

    path = out / "zero_shot.json"
    sets = {name: load_split(name, data_root, plan.eval_depth) for name in plan.eval_sets}
    record = UnitRecord(
        _settings(
            "zero-shot",
            eval_sets=list(plan.eval_sets),
            eval_depth=plan.eval_depth,
            max_length=plan.max_length,
            seed=plan.seed,
            head=plan.head,
            variants=sorted(pretrain),
        ),
        {
            **_encoder_inputs(pretrain),
            **{f"data {n}": dataset_fingerprint(ds, plan.eval_depth) for n, ds in sets.items()},
        },
    )
    if _file_unit(store or UnitStore(out), path, record):
        return dict(read_json(path))

    def bm25_run(ds: Any) -> dict[str, dict[str, float]]:
        run = {}
        for q in ds.queries:
            ids = ds.candidate_ids(q)[: plan.eval_depth]
            run[q] = {d: float(len(ids) - r) for r, d in enumerate(ids)}
        return run

    import torch

    models: dict[str, Callable[[], Any]] = {
        "MiniLM cross-encoder (no pre-training)": lambda: on_device(
            _seeded(lambda: CrossEncoder(max_length=plan.max_length, head=plan.head), plan.seed)
        ),
        "MiniLM bi-encoder (zero-shot)": lambda: on_device(BiEncoder(max_length=plan.max_length)),
    }

    def loader(enc: str) -> Callable[[], Any]:
        return lambda: load_model(enc, device="auto")

    for v, s in pretrain.items():
        models[f"ARES_{v}"] = loader(str(s["encoder"]))
    results: dict[str, Any] = {}
    for name in plan.eval_sets:
        ds = sets[name]
        runs = {"BM25": bm25_run(ds)}
        for mname, make in models.items():
            t = time.perf_counter()
            model = make()
            model.eval()
            with torch.inference_mode():
                runs[mname] = score_candidates(model, ds, depth=plan.eval_depth)
            echo(f"{name}: scored with {mname} in {time.perf_counter() - t:.0f} s")
        per = {m: per_query(r, ds, MEASURES) for m, r in runs.items()}
        table = {m: mean_values(v) for m, v in per.items()}
        ref = next((m for m in runs if m.startswith("ARES_")), None)
        tests = _tests_against(per, ref) if ref is not None else {}
        results[name] = {
            "n_queries": len(ds.queries),
            "depth": plan.eval_depth,
            "means": table,
            "tests_vs": ref,
            "tests": tests,
        }
    write_json(path, results)
    return results


def _tests_against(per: dict[str, Any], ref: str) -> dict[str, Any]:
    """Paired t-test of every system against ``per[ref]``, per measure, Holm over the systems
    compared on that measure (the project's one policy, :func:`~axiomatic.evaluate.
    significance.compare_to_baseline`): ``{measure: {system: {"p", "p_holm"}}, "family":
    caption}``. A query missing from a system's values counts 0 (it returned nothing)."""
    from axiomatic.evaluate.significance import compare_to_baseline

    vals = {s: {m: {q: per[s][m].get(q, 0.0) for q in per[ref][m]} for m in MEASURES} for s in per}
    if len(vals) < 2:
        return {}
    cmp = compare_to_baseline(vals, ref, test="t")
    tests: dict[str, Any] = {
        m: {c.system: {"p": c.p, "p_holm": c.p_holm} for c in cmp.rows if c.measure == m}
        for m in MEASURES
    }
    tests["family"] = cmp.family
    return tests


def _seeded(make: Callable[[], Any], seed: int) -> Any:
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        return make()

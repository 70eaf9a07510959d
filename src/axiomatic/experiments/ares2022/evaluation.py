"""ARES (Chen et al. 2022): the later stages - few-shot fine-tuning, the ablation of the
variants and the axiomatic diagnosis."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from axiomatic.experiments.ares2022.plan import (
    MEASURES,
    AresPlan,
    _encoder_inputs,
    _file_unit,
    _prepared_inputs,
    _settings,
)
from axiomatic.experiments.ares2022.pretraining import (
    _pretrain,
    _seeded,
    _tests_against,
    dev_subset,
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
    files_fingerprint,
)


def run_few_shot(
    plan: AresPlan, out: Path, pretrain: dict[str, Any], echo: Callable[[str], None],
    data_root: Any = None, store: UnitStore | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Figure 3: fine-tune each starting point on nested subsets of training queries (hinge,
    the project's Trainer, no dev selection: the last step is kept) and re-rank the test split's
    BM25 top-``eval_depth``. Each run is cached in its own folder (resumable)."""
    from axiomatic.experiments.common import load_split, mean_values, nested_subsets
    from axiomatic.models.io import load_model
    from axiomatic.models.scoring import score_candidates
    from axiomatic.models.transformer import CrossEncoder
    from axiomatic.training.config import TrainConfig
    from axiomatic.training.trainer import Trainer

    path = out / "few_shot.json"
    results: dict[str, Any] = dict(read_json(path)) if path.exists() else {}
    train = load_split(plan.few_shot_train, data_root, plan.eval_depth)
    test = load_split(plan.few_shot_test, data_root, plan.eval_depth)
    judged = sorted(q for q in train.queries if (train.qrels or {}).get(q))
    subsets = nested_subsets(judged, plan.few_shot_sizes, plan.seed)
    starts: dict[str, Callable[[], Any]] = {
        "MiniLM cross-encoder": lambda: _seeded(
            lambda: CrossEncoder(max_length=plan.max_length, head=plan.head), plan.seed
        )
    }
    start_inputs = {"MiniLM cross-encoder": f"MiniLM, seed {plan.seed}, head {plan.head}"}
    for v, s in pretrain.items():
        if v in plan.few_shot_variants:
            starts[f"ARES_{v}"] = (lambda enc: lambda: load_model(enc, device="auto"))(
                str(s["encoder"])
            )
            start_inputs[f"ARES_{v}"] = files_fingerprint(str(s["encoder"]))
    store = store or UnitStore(out)
    test_fp = dataset_fingerprint(test, plan.eval_depth)
    planned: list[str] = []
    for mname, make in starts.items():
        for n, qids in subsets.items():
            key = f"{mname}|{n}"
            planned.append(key)
            cfg = TrainConfig(
                dataset=plan.few_shot_train, model="cross-encoder",
                model_config={"max_length": plan.max_length}, loss="hinge", optimizer="adamw",
                lr=plan.few_shot_lr, batch_size=plan.batch_size, steps=plan.few_shot_steps,
                eval_every=plan.few_shot_steps, checkpoint_every=max(1, plan.few_shot_steps // 2),
                patience=0, candidate_depth=plan.eval_depth, seed=plan.seed,
            )  # fmt: skip
            folder = _few_shot_dir(out, mname, n)
            sub = train.subset(qids)
            record = UnitRecord(
                _settings(
                    "few-shot", start=mname, n=n, few_shot_steps=plan.few_shot_steps,
                    few_shot_lr=plan.few_shot_lr, few_shot_train=plan.few_shot_train,
                    few_shot_test=plan.few_shot_test, eval_depth=plan.eval_depth,
                    train_config=cfg.to_dict(),
                ),
                {
                    "start": start_inputs[mname],
                    "training data": dataset_fingerprint(sub, plan.eval_depth),
                    "test data": test_fp,
                },
            )  # fmt: skip
            if store.enter(folder, record, done="run_test.json") == "done" and key in results:
                continue
            results.pop(key, None)
            model = make()
            t = time.perf_counter()
            Trainer(model, cfg, folder, sub).fit()
            run = score_candidates(model, test, depth=plan.eval_depth)
            write_json(folder / "run_test.json", run)
            results[key] = {
                "model": mname,
                "n_queries": len(qids),
                "means": mean_values(per_query(run, test, MEASURES)),
                "seconds": time.perf_counter() - t,
            }
            write_json(path, results)
            echo(f"few-shot {mname} n={len(qids)}: {results[key]['means']}")
    # this plan's points only (few_shot.json keeps the points of earlier plans)
    return {k: results[k] for k in planned if k in results}


def _cached_run(
    run_file: Path, encoder: str | Path, ds: Any, depth: int, echo: Callable[[str], None],
    label: str, store: UnitStore | None = None, record: UnitRecord | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The run of the saved model ``encoder`` on ``ds`` (top ``depth``), scored once and kept
    in ``run_file`` (with ``store`` and ``record``: a file unit, reused only when the record
    matches; else the file belongs to a unit checked by the caller)."""
    if store is not None and record is not None:
        if _file_unit(store, run_file, record):
            return dict(read_json(run_file))
    elif run_file.exists():
        return dict(read_json(run_file))
    import torch

    from axiomatic.models.io import load_model
    from axiomatic.models.scoring import score_candidates

    t = time.perf_counter()
    model = load_model(str(encoder), device="auto")
    model.eval()
    with torch.inference_mode():
        run = score_candidates(model, ds, depth=depth)
    write_json(run_file, run)
    echo(f"{label} scored in {time.perf_counter() - t:.0f} s")
    return run


def _few_shot_dir(out: Path, model: str, n: int | str) -> Path:
    return out / "few_shot" / model.replace(" ", "_") / f"n{n}"


def few_shot_tests(
    plan: AresPlan, out: Path, few: dict[str, Any], echo: Callable[[str], None],
    data_root: Any = None,
) -> dict[str, Any]:  # fmt: skip
    """Paired t-tests of every pre-trained starting point against the un-pre-trained
    cross-encoder at the same number of training queries, Holm-corrected over all points of a
    measure: ``{"model|n": {measure: {"p", "p_holm"}}}``. Each point's test run is read from
    its folder (re-scored from its saved model when an older run did not keep it)."""
    from axiomatic.evaluate.significance import compare_to_baseline
    from axiomatic.experiments.common import load_split

    if not few:
        return {}
    test = load_split(plan.few_shot_test, data_root, plan.eval_depth)
    size = {k: k.rsplit("|", 1)[1] for k in few}  # the requested n of each point
    per: dict[str, Any] = {}
    for key, r in few.items():
        folder = _few_shot_dir(out, r["model"], size[key])
        run = _cached_run(
            folder / "run_test.json", folder / "model", test, plan.eval_depth, echo,
            f"few-shot {key}: saved model",
        )  # fmt: skip
        per[key] = per_query(run, test, MEASURES)
    base = "MiniLM cross-encoder"
    pairs = [
        (k, f"{base}|{size[k]}")
        for k in few
        if few[k]["model"] != base and f"{base}|{size[k]}" in per
    ]
    tests: dict[str, Any] = {k: {} for k, _ in pairs}
    if pairs:
        cmp = compare_to_baseline(
            {k: per[k] for k, _ in pairs},
            "the MiniLM cross-encoder at the same n",
            baseline_values={k: per[b] for k, b in pairs},
            noun="pre-trained points",
        )
        for c in cmp.rows:
            tests[c.system][c.measure] = {"p": c.p, "p_holm": c.p_holm}
        tests["family"] = cmp.family
    write_json(out / "few_shot_tests.json", tests)
    return tests


def run_ablation(
    plan: AresPlan, out: Path, prepared: Sequence[Any], echo: Callable[[str], None],
    data_root: Any = None, store: UnitStore | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Table 7: every variant in ``ablation_variants`` pre-trained with the same budget as the
    main run (ARES_REP / ARES_RANK use one group of axioms, strict / hard / simple all of them)
    and re-ranking ``ablation_set``'s BM25 top ``eval_depth`` zero-shot; paired t-tests of each
    variant against ARES_simple (Holm). A finished variant's pre-training and its per-query
    run are cached, so adding a variant scores only that one."""
    if not plan.ablation_variants:
        return {}
    from axiomatic.ares.pretrain import check_variant
    from axiomatic.experiments.common import load_split, mean_values

    variants = [check_variant(v) for v in plan.ablation_variants]
    dev = dev_subset(plan.dev_dataset, plan.dev_queries, data_root)
    ds = load_split(plan.ablation_set, data_root, plan.eval_depth)
    data_fp = dataset_fingerprint(ds, plan.eval_depth)
    runs_dir = out / "ablation" / "runs"
    per: dict[str, Any] = {}
    train: dict[str, Any] = {}
    for v in variants:
        s = _pretrain(plan, out, prepared, v, dev)
        train[v] = {k: s[k] for k in ("setting", "features", "n_pairs") if k in s}
        train[v].update(best_step=s["train"]["best_step"], best_dev=s["train"]["best_dev"])
        record = UnitRecord(
            _settings("ablation run", variant=v, set=plan.ablation_set, depth=plan.eval_depth),
            {"encoder": files_fingerprint(str(s["encoder"])), "data": data_fp},
        )
        run = _cached_run(
            runs_dir / f"{v}.json", s["encoder"], ds, plan.eval_depth, echo,
            f"ablation: {plan.ablation_set} with ARES_{v}", store or UnitStore(out), record,
        )  # fmt: skip
        per[v] = per_query(run, ds, MEASURES)
    means = {v: mean_values(per[v]) for v in variants}
    tests = _tests_against(per, "simple") if "simple" in per else {}
    from axiomatic.ares.pairs import read_pairs, variant_agreement

    # which way each variant's pre-training pairs point, axiom by axiom
    agreement = variant_agreement(
        prepared,
        {
            v: read_pairs(out / "pretrain" / v / "pairs.parquet", len(prepared))
            for v in variants
            if (out / "pretrain" / v / "pairs.parquet").is_file()
        },
    )
    result = {
        "set": plan.ablation_set,
        "n_queries": len(ds.queries),
        "depth": plan.eval_depth,
        "means": means,
        "tests": tests,
        "pretrain": train,
        "agreement": agreement,
    }
    write_json(out / "ablation" / "ablation.json", result)
    return result


def run_diagnosis(
    plan: AresPlan, out: Path, pretrain: dict[str, Any], echo: Callable[[str], None],
    data_root: Any = None, prepared: Sequence[Any] = (), store: UnitStore | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Does ARES pre-training raise fulfilment of the axioms? The pre-trained cross-encoders
    next to the un-pre-trained MiniLM cross-encoder (the zero-shot baseline, same seed):

    - on the axioms it was trained on: query-pair fulfilment of the nine Table 1 axioms and of
      the setting-I predictor on fresh pseudo-query pairs of the first pre-training collection
      (:func:`axiomatic.ares.fulfilment.query_pair_fulfilment`);
    - on the document-pair axioms: the first ``diagnose_queries`` test queries (sorted ids),
      BM25 top ``diagnose_depth``: mined fulfilment and Rosset perturbation agreement, the
      diagnosis of acrank2023 (:func:`axiomatic.experiments.diagnosis.diagnose_models`).

    Each part is cached in ``out/diagnosis``."""
    path = out / "diagnosis" / "diagnosis.json"
    qp_path = out / "diagnosis" / "query_pairs.json"
    if not pretrain:
        return {}
    from axiomatic.models.io import load_model
    from axiomatic.models.transformer import CrossEncoder

    cache: dict[str, Any] = {}

    def models() -> dict[str, Any]:
        if not cache:
            cache["MiniLM cross-encoder (no pre-training)"] = on_device(
                _seeded(lambda: CrossEncoder(max_length=plan.max_length, head=plan.head), plan.seed)
            )
            for v, s in pretrain.items():
                cache[f"ARES_{v}"] = load_model(str(s["encoder"]), device="auto")
            for m in cache.values():
                m.eval()
        return cache

    from axiomatic.experiments.common import load_split
    from axiomatic.experiments.diagnosis import ROSSET_AXIOMS, diagnose_models

    store = store or UnitStore(out)
    encoders = _encoder_inputs(pretrain)
    ds = load_split(plan.diagnose_set, data_root, plan.diagnose_depth)
    test = ds.subset(sorted(ds.queries)[: plan.diagnose_queries])
    if test.candidates is not None:
        test.candidates = {q: c[: plan.diagnose_depth] for q, c in test.candidates.items()}
    record = UnitRecord(
        _settings(
            "diagnosis", set=plan.diagnose_set, queries=plan.diagnose_queries,
            depth=plan.diagnose_depth, axioms=plan.diagnose_axioms,
            analyzer=plan.diagnose_analyzer, agreement_pairs=plan.agreement_pairs,
            agreement_axioms=list(ROSSET_AXIOMS), max_length=plan.max_length, seed=plan.seed,
            head=plan.head,
        ),
        {**encoders, "data": dataset_fingerprint(test, plan.diagnose_depth)},
    )  # fmt: skip
    if _file_unit(store, path, record, also=("instances", "mcnemar.csv")):
        result = dict(read_json(path))
    else:
        t0 = time.perf_counter()
        result = diagnose_models(
            test, models(), path.parent, plan.diagnose_axioms, plan.diagnose_depth,
            plan.agreement_pairs, ROSSET_AXIOMS, analyzer=plan.diagnose_analyzer,
        )  # fmt: skip
        result.update(
            set=plan.diagnose_set,
            queries=len(test.queries),
            depth=plan.diagnose_depth,
            analyzer=plan.diagnose_analyzer,
            seconds=round(time.perf_counter() - t0, 1),
        )
        write_json(path, result)
        echo(
            f"diagnosis: {len(cache)} models on {len(test.queries)} queries in {result['seconds']} s"
        )
    qp_record = UnitRecord(
        _settings(
            "query-pair fulfilment", docs=plan.query_pair_docs, seed=plan.seed + 1,
            max_length=plan.max_length, head=plan.head,
            collection=prepared[0].collection.name if prepared else None,
        ),
        {
            **encoders,
            **_prepared_inputs(prepared[:1]),
            "predictor": files_fingerprint(out / "pretrain" / "simple" / "predictor.txt"),
        },
    )  # fmt: skip
    if not (prepared and plan.query_pair_docs > 0):
        pass  # not planned
    elif _file_unit(store, qp_path, qp_record):
        result["query_pairs"] = read_json(qp_path)
    else:
        from axiomatic.ares.fulfilment import query_pair_fulfilment
        from axiomatic.ares.predictor import PreferencePredictor
        from axiomatic.ares.pretrain import surface_forms

        t0 = time.perf_counter()
        pfile = out / "pretrain" / "simple" / "predictor.txt"
        predictor = PreferencePredictor.load(pfile) if pfile.exists() else None
        first = prepared[0]
        qp = query_pair_fulfilment(
            first, models(), n_docs=plan.query_pair_docs, seed=plan.seed + 1,
            predictor=predictor, surface=surface_forms(first),
        )  # fmt: skip
        qp.update(collection=first.collection.name, seconds=round(time.perf_counter() - t0, 1))
        write_json(qp_path, qp)
        result["query_pairs"] = qp
        echo(f"query-pair fulfilment: {qp['pairs']} pairs in {qp['seconds']} s")
    return result

"""Chen et al. (2022), "Axiomatically Regularized Pre-training for Ad hoc Search" (ARES).

``axiomatic experiment ares2022 [--quick]`` runs, each stage cached and resumable:

1. pseudo queries and query-centric axiom scores for the pre-training collections
   (:mod:`axiomatic.ares.pipeline`);
2. the preference predictor per negative-sampling setting I-IV: AUC (9:1 split, two-fold CV,
   several seeds) next to Table 2 of the paper, gain importances (Figure 2, plotted);
3. ARES pre-training of the MiniLM cross-encoder (:mod:`axiomatic.ares.pretrain`), checkpoint
   selected on zero-shot dev queries (``msmarco-dev-top20/train``, never a test split);
4. zero-shot re-ranking of BM25 candidates (MRR@10, nDCG@10) of BM25, the un-pre-trained MiniLM
   cross-encoder, the zero-shot MiniLM bi-encoder and ARES, with paired t-tests (Holm).
5. few-shot fine-tuning curves (Figure 3);
6. the axiomatic diagnosis of ARES vs the un-pre-trained cross-encoder (mined document-pair
   axiom fulfilment and Rosset perturbation agreement, shared with acrank2023).

all-MiniLM-L6-v2 was itself trained contrastively on about a billion sentence pairs including
MS MARCO: "zero-shot" here means "no training on our qrels", not "never saw MS MARCO-like data".
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from axiomatic._params import param_meta
from axiomatic.experiments.common import (
    markdown_table,
    on_device,
    per_query,
    read_json,
    write_json,
)
from axiomatic.experiments.engine import THREADS, Plan, Runner, register_experiment
from axiomatic.experiments.units import (
    UnitRecord,
    UnitStore,
    dataset_fingerprint,
    files_fingerprint,
)
from axiomatic.training.config import TRAIN_PARAMS

PAPER_TABLE2 = {"I": 0.9027, "II": 0.8714, "III": 0.7734, "IV": 0.8258}
MEASURES = ("RR@10", "nDCG@10")
UNIT_CODE = 1
"""Version of how the cached stages are computed (in every record): bump it when a change of the
code changes their results, so that results of the older code are refused instead of reused."""


def _settings(part: str, **kw: Any) -> dict[str, Any]:
    """A stage's record settings: the experiment, the code versions, the part and ``kw``."""
    from axiomatic.ares.pretrain import pair_versions

    return {"experiment": "ares2022", "code": UNIT_CODE, **pair_versions(), "part": part, **kw}


def _file_unit(store: UnitStore, path: Path, record: UnitRecord, also: Sequence[str] = ()) -> bool:
    """Check a cached stage file against its record (``<name>.unit.json`` beside it; refused or,
    with overwrite, removed when it differs); write the record when it is to be computed.
    Returns whether the cached file is current (reuse it)."""
    kw: dict[str, Any] = {"done": path.name, "record_name": path.stem + ".unit.json"}
    return store.enter(path.parent, record, owns_folder=False, also=also, **kw) == "done"


def _prepared_inputs(prepared: Sequence[Any]) -> dict[str, str]:
    """Content hashes of the pre-training collections (documents and real queries) and the
    pseudo-query sample sizes (the sample itself is keyed by the pipeline's cache)."""
    from axiomatic.data.fingerprint import hash_fields

    out: dict[str, str] = {}
    for p in prepared:
        c = p.collection
        out[f"collection {c.name}"] = c.fingerprint()
        out[f"queries {c.name}"] = hash_fields(
            [[*map(str, q)] for q in c.positives] + [["pseudo", str(p.n_pseudo)]]
        )
    return out


def _encoder_inputs(pretrain: dict[str, Any]) -> dict[str, str]:
    """Content hashes of the pre-trained encoders (their saved files)."""
    return {f"ARES_{v}": files_fingerprint(str(s["encoder"])) for v, s in pretrain.items()}


@dataclass
class AresPlan(Plan):
    """What to run; ``quick()`` is the CI-sized plan on the demo data, ``full()`` (the
    defaults) the paper-shaped one."""

    # the experiment command's generic options, in this plan's terms
    ALIASES: ClassVar = {"seeds": "auc_seeds", "models": "variants"}

    collections: list[str] = field(default_factory=lambda: ["msmarco-20k", "scifact"])
    settings: list[str] = field(default_factory=lambda: ["I", "II", "III", "IV"])
    auc_seeds: list[int] = field(
        default_factory=lambda: [0, 1, 2, 3, 4],
        metadata=TRAIN_PARAMS["seed"].meta(description="seeds of the preference predictor's AUC"),
    )
    variants: list[str] = field(default_factory=lambda: ["simple"])
    seed: int = field(default=0, metadata=TRAIN_PARAMS["seed"].meta())
    steps: int = field(
        default=400, metadata=TRAIN_PARAMS["steps"].meta(description="pre-training steps")
    )
    batch_size: int = field(default=16, metadata=TRAIN_PARAMS["batch_size"].meta())
    lr: float = field(default=2e-5, metadata=TRAIN_PARAMS["lr"].meta())
    max_length: int = field(
        default=128, metadata=param_meta(ge=1, description="tokens of query and document kept")
    )
    eval_every: int = field(default=100, metadata=TRAIN_PARAMS["eval_every"].meta())
    checkpoint_every: int = field(default=50, metadata=TRAIN_PARAMS["checkpoint_every"].meta())
    mlm_weight: float = field(
        default=1.0,
        metadata=param_meta(ge=0, description="weight of the masked-language-model loss"),
    )
    head: str = "mlp"
    """scoring head of ARES and of its un-pre-trained baseline: the paper's MLP(h_CLS)"""
    masking: str = field(default="input", metadata=param_meta(choices=("input", "document-wwm")))
    """MLM masking (``axiomatic.ares.pretrain``): "input" (the paper's text) or "document-wwm" """
    dev_dataset: str = "msmarco-dev-top20/train"
    dev_queries: int = field(default=50, metadata=TRAIN_PARAMS["dev_queries"].meta())
    eval_sets: list[str] = field(
        default_factory=lambda: ["msmarco-dev-top20/test", "trec-dl-2019/bm25", "scifact/test"]
    )
    eval_depth: int = field(
        default=20, metadata=param_meta(ge=1, description="candidates re-ranked per test query")
    )
    threads: int = field(default=1, metadata=THREADS.meta())
    few_shot_train: str = "msmarco-dev-top20/train"
    few_shot_test: str = "msmarco-dev-top20/test"
    few_shot_sizes: list[int] = field(
        default_factory=lambda: [10, 50, 100, 200, 400],
        metadata=param_meta(ge=1, description="training queries of the few-shot runs"),
    )
    few_shot_steps: int = field(
        default=100,
        metadata=TRAIN_PARAMS["steps"].meta(description="fine-tuning steps of the few-shot runs"),
    )
    few_shot_lr: float = field(
        default=2e-5,
        metadata=TRAIN_PARAMS["lr"].meta(description="learning rate of the few-shot runs"),
    )
    few_shot_variants: list[str] = field(default_factory=lambda: ["simple"])
    ablation_variants: list[str] = field(
        default_factory=lambda: ["rep", "rank", "strict", "hard", "simple"]
    )
    ablation_set: str = "msmarco-dev-top20/test"
    diagnose_set: str = "msmarco-dev-top20/test"
    diagnose_queries: int = field(
        default=50, metadata=param_meta(ge=1, description="queries diagnosed")
    )
    diagnose_depth: int = field(
        default=10, metadata=param_meta(ge=1, description="candidates diagnosed per query")
    )
    diagnose_axioms: str = "TFC1,TFC2,M-TDC,LNC2"
    diagnose_analyzer: str = "thesis"
    agreement_pairs: int = field(
        default=200,
        metadata=param_meta(ge=0, description="document pairs of the axiom-agreement table"),
    )
    query_pair_docs: int = field(
        default=300,
        metadata=param_meta(
            ge=1, description="documents per collection the query pairs are drawn from"
        ),
    )
    data_root: str | None = None
    docs: str | None = None
    """also write the report (and its figures) to this Markdown page (e.g. docs/ares.md)"""

    @classmethod
    def quick(cls) -> AresPlan:
        return cls(
            collections=["demo"],
            settings=["I", "IV"],
            auc_seeds=[0],
            steps=2,
            batch_size=2,
            max_length=48,
            eval_every=100,
            checkpoint_every=1,
            dev_dataset="demo/train",
            dev_queries=3,
            eval_sets=["demo/test"],
            eval_depth=10,
            few_shot_train="demo/train",
            few_shot_test="demo/test",
            few_shot_sizes=[2],
            few_shot_steps=2,
            ablation_variants=["rep", "simple"],
            ablation_set="demo/test",
            diagnose_set="demo/test",
            diagnose_queries=2,
            diagnose_depth=4,
            diagnose_axioms="TFC1,LNC2",
            agreement_pairs=6,
            query_pair_docs=10,
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


def plot_importances(results: dict[str, Any], path: Path) -> Path:
    """:func:`importances_figure` saved to ``path``."""
    from axiomatic._report import save_figure

    return save_figure(importances_figure(results), path)


def importances_figure(results: Mapping[str, Any]) -> Any:
    """Figure 2: gain importance per axiom (normalized by the largest), one bar per setting."""
    from axiomatic._report import new_figure

    names = results["features"]
    settings = list(results["settings"])
    fig, ax = new_figure(figsize=(9, 3.6))
    w = 0.8 / max(len(settings), 1)
    x = np.arange(len(names))
    for k, s in enumerate(settings):
        imp = results["settings"][s]["importance"]
        ax.bar(x + k * w, [imp[n] for n in names], w, label=f"setting {s}")
    ax.set_xticks(x + w * (len(settings) - 1) / 2)
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("gain importance (max = 1)")
    ax.set_title("ARES preference predictor: axiom importance (cf. Chen et al. 2022, Fig. 2)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


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


def _ablation_lines(abl: dict[str, Any]) -> list[str]:
    lines = [
        f"## Ablation of ARES variants (Table 7): {abl['set']}",
        "",
        f"{abl['n_queries']} queries, BM25 top {abl['depth']} re-ranked zero-shot; every "
        "variant pre-trained with the same budget (steps, batch, length, seed) as above. "
        "ARES_rep / ARES_rank: pairs ordered by their axioms directly, in the axioms' "
        "direction (REP: the better length-normalized REP scores, a pair on which Q-REP-QL and "
        "Q-REP-TFIDF disagree dropped; RANK: the better BM25 rank); strict: no axiom "
        "disagrees and at least 3 are decisive (our reading); hard / simple: the monotone "
        "predictor of setting IV / I. p: paired t-test against ARES_simple, Holm-corrected.",
        "",
    ]
    rows = []
    for v, vals in abl["means"].items():
        row: dict[str, Any] = {"variant": f"ARES_{v}"}
        for meas in MEASURES:
            row[meas] = vals.get(meas)
            t = abl["tests"].get(meas, {}).get(v)
            row[f"p vs simple ({meas}, Holm)"] = f"{t['p_holm']:.3g}" if t else ""
        info = abl.get("pretrain", {}).get(v, {})
        row["best dev step"] = info.get("best_step")
        row["pairs"] = info.get("n_pairs")
        rows.append(row)
    if rows:
        lines += [markdown_table(rows, list(rows[0])), ""]
    if abl["tests"].get("family"):
        lines += [f"Significance: {abl['tests']['family']}.", ""]
    if abl.get("agreement"):
        from axiomatic.ares.pairs import agreement_markdown

        lines += [
            "### Which way the pre-training pairs point",
            "",
            "For each variant's ordered pairs (q+, q-) of one document and each axiom: the share "
            "of the axiom's decisive pairs in which q+ is the query the axiom prefers (cell: "
            "agreement % (decisive pairs)). 100 % = the variant teaches the axiom, ~50 % = it "
            "ignores it, < 50 % = it teaches it backwards. LENGTH (prefer the longer query) has "
            "no decisive pair: a document's pseudo queries share one length (section 4.1).",
            "",
            agreement_markdown(abl["agreement"]),
            "",
        ]
    return lines


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


def plot_few_shot(few: dict[str, Any], zero: dict[str, Any], test: str, path: Path) -> Path | None:
    """:func:`few_shot_figure` saved to ``path`` (``None``: no few-shot results)."""
    from axiomatic._report import save_figure

    fig = few_shot_figure(few, zero, test)
    return None if fig is None else save_figure(fig, path)


def few_shot_figure(few: Mapping[str, Any], zero: Mapping[str, Any], test: str) -> Any:
    """Figure 3: test MRR@10 against the number of training queries (0 = zero-shot); ``None``
    without few-shot results."""
    from axiomatic._report import new_figure

    if not few:
        return None
    fig, ax = new_figure(figsize=(6, 3.6))
    zmeans = zero.get(test, {}).get("means", {})
    for m in sorted({r["model"] for r in few.values()}):
        pts = sorted((r["n_queries"], r["means"]["RR@10"]) for r in few.values() if r["model"] == m)
        z = zmeans.get(m if m.startswith("ARES_") else f"{m} (no pre-training)", {}).get("RR@10")
        if z is not None:
            pts = [(0, z), *pts]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=m)
    if "BM25" in zmeans:
        ax.axhline(zmeans["BM25"]["RR@10"], color="grey", ls="--", label="BM25")
    ax.set_xlabel("training queries")
    ax.set_ylabel(f"MRR@10 ({test})")
    ax.set_title("Few-shot fine-tuning (cf. Chen et al. 2022, Fig. 3)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _seeded(make: Callable[[], Any], seed: int) -> Any:
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        return make()


def _collection_row(c: str, v: dict[str, Any]) -> dict[str, Any]:
    return {
        "collection": c,
        "documents": v["documents"],
        "real queries": v["real_queries"],
        "real: rank 1": f"{100 * v['real_first']:.1f} %",
        "pseudo: rank 1": f"{100 * v['pseudo_first']:.1f} %",
        "mu": round(float(v["mu"]), 1),
        "contrast": round(float(v["contrast"]), 3),
    }


def render_markdown(
    plan: AresPlan, predictor: dict[str, Any], pretrain: dict[str, Any], zero: dict[str, Any],
    meta: dict[str, Any], bench: dict[str, Any] | None = None, few: dict[str, Any] | None = None,
    diagnosis: dict[str, Any] | None = None, ablation: dict[str, Any] | None = None,
    few_tests: dict[str, Any] | None = None,
) -> str:  # fmt: skip
    lines = [
        "# ARES: axiomatically regularized pre-training (Chen et al., SIGIR 2022)",
        "",
        "Generated by `axiomatic experiment ares2022"
        + (" --quick" if meta.get("quick") else "")
        + f"` on {meta['machine']} ({meta['threads']} thread(s), load average "
        f"{meta['load']}), {meta['date']}; this invocation took {meta['wall_s']:.0f} s "
        "(finished stages are read from the output folder, not recomputed).",
        "",
        "Pipeline (each stage cached and resumable under the output folder): pseudo-query "
        "sampling (section 4.1, `axiomatic.ares.sampling`) -> nine query-centric axioms "
        "(Table 1, `axiomatic.axioms.query_pairs`, family `query-pair`) -> preference predictor "
        "(section 4.2, LightGBM) -> pre-training with hinge + MLM (section 4.3) -> zero-shot "
        "re-ranking.",
        "",
        "all-MiniLM-L6-v2 was itself trained contrastively on ~1B sentence pairs that include "
        "MS MARCO: 'zero-shot' here means no training on our qrels, not unseen data.",
        "",
        f"Pre-training collections: {', '.join(plan.collections)}.",
        "",
        "## Preference predictor (Table 2)",
        "",
        "Positives: real training queries with a relevant document (msmarco-dev-top20/train, "
        "scifact/train); negatives: that document's pseudo queries under each setting. AUC: "
        f"9:1 split, two-fold CV on the 90 %, best fold model on the 10 %, seeds {plan.auc_seeds}.",
        "",
    ]
    rows = []
    for s, r in predictor["settings"].items():
        row = {
            "setting": s,
            "pairs": r["n_pairs"],
            "AUC (ours)": f"{r['auc_mean']:.4f} +- {r['auc_sd']:.4f}",
            "AUC (paper)": f"{PAPER_TABLE2[s]:.4f}",
        }
        for c, (m, sd) in r.get("auc_per_collection", {}).items():
            row[f"AUC {c}"] = f"{m:.4f} +- {sd:.4f}"
        rows.append(row)
    cols = list(rows[0]) if rows else []
    lines += [markdown_table(rows, cols), ""]
    colls = predictor.get("collections") or {}
    if colls:
        lines += [
            "### Per collection, with a query-length control",
            "",
            "The predictor trained and scored on each collection alone (same protocol), next to "
            "the AUC of query length alone (|q_real| - |q_pseudo| in analysed terms, no "
            "training): where the two are close, length, not the axioms, separates real from "
            "pseudo queries. Pseudo queries have Poisson(3) lengths, real ones their own.",
            "",
        ]
        lrows = []
        for s, r in predictor["settings"].items():
            for c in colls:
                auc = r.get("auc_per_collection", {}).get(c)
                lo = r.get("auc_length_only_per_collection", {}).get(c)
                lrows.append({
                    "setting": s, "collection": c,
                    "pairs": r["per_collection"].get(c, {}).get("n_pairs"),
                    "AUC predictor": f"{auc[0]:.4f} +- {auc[1]:.4f}" if auc else "",
                    "AUC length alone": f"{lo:.4f}" if lo is not None else "",
                })  # fmt: skip
        lines += [markdown_table(lrows, list(lrows[0])), ""]
        lines += [
            "The corpus for Q-RANK and the sampler, per collection: share of real and of pseudo "
            "queries whose own document BM25 ranks first in the collection, and the contrast of "
            "the sampling distribution (median over documents of max/min term probability, "
            "eq. 6; 1 = uniform) at the Dirichlet mu used (the mean document length).",
            "",
            markdown_table(
                [_collection_row(c, v) for c, v in colls.items()],
                [
                    "collection",
                    "documents",
                    "real queries",
                    "real: rank 1",
                    "pseudo: rank 1",
                    "mu",
                    "contrast",
                ],
            ),
            "",
        ]
    lines += [
        "![axiom importance](img/ares_fig2_importance.png)",
        "",
        "Gain importance per axiom, normalized by the largest (Figure 2 of the paper):",
        "",
    ]
    names = predictor["features"]
    imp_rows = [
        {"setting": s, **{n: round(r["importance"][n], 3) for n in names}}
        for s, r in predictor["settings"].items()
    ]
    lines += [markdown_table(imp_rows, ["setting", *names]), ""]
    from axiomatic.ares.pretrain import per_1k_steps

    lines += ["## Pre-training", ""]
    for v, s in pretrain.items():
        t = s["train"]
        lines.append(
            f"- ARES_{v}: predictor setting {s['setting']}, features {s['features']}, "
            f"{s['n_pairs']} ordered pseudo-query pairs; {t['steps']} steps of batch "
            f"{plan.batch_size}, max length {plan.max_length}, lr {plan.lr}, MLM weight "
            f"{plan.mlm_weight}, {plan.head} head, masking {plan.masking}; best zero-shot dev MRR@10 {t['best_dev']} at step "
            f"{t['best_step']} ({plan.dev_queries} queries of {plan.dev_dataset}); "
            f"{t['seconds']:.0f} s ({per_1k_steps(t)} s per 1,000 steps, dev evaluations "
            "included)."
        )
    lines += ["", "## Zero-shot re-ranking (Table 6)", ""]
    for name, r in zero.items():
        lines += [f"### {name} ({r['n_queries']} queries, BM25 top {r['depth']})", ""]
        rows = []
        for m, vals in r["means"].items():
            row = {"model": m}
            for meas in MEASURES:
                row[meas] = vals.get(meas)
                t = r["tests"].get(meas, {}).get(m)
                row[f"p vs {r['tests_vs']} ({meas}, Holm)"] = f"{t['p_holm']:.3g}" if t else ""
            rows.append(row)
        lines += [markdown_table(rows, list(rows[0])), ""]
        if r["tests"].get("family"):
            lines += [f"Significance: {r['tests']['family']}.", ""]
    if few:
        lines += [
            f"## Few-shot fine-tuning (Figure 3): {plan.few_shot_train} -> {plan.few_shot_test}",
            "",
            f"Nested subsets of judged training queries (seed {plan.seed}); {plan.few_shot_steps} "
            f"hinge steps of batch {plan.batch_size}, lr {plan.few_shot_lr}, the last step kept; "
            f"BM25 top {plan.eval_depth} re-ranked. One seed (CPU budget).",
            "",
            "![few-shot](img/ares_fig3_few_shot.png)",
            "",
        ]
        tests = few_tests or {}
        pcol = "p vs cross-encoder, same n (RR@10, Holm)"
        rows = [
            {"model": r["model"], "training queries": r["n_queries"],
             **{m: r["means"].get(m) for m in MEASURES},
             pcol: (f"{tests[k]['RR@10']['p_holm']:.3g}" if "RR@10" in tests.get(k, {}) else "")}
            for k, r in sorted(few.items(), key=lambda kr: (kr[1]["model"], kr[1]["n_queries"]))
        ]  # fmt: skip
        lines += [markdown_table(rows, ["model", "training queries", *MEASURES, pcol]), ""]
        if tests.get("family"):
            lines += [f"Significance: {tests['family']}.", ""]
    if ablation:
        lines += _ablation_lines(ablation)
    if diagnosis:
        lines += _diagnosis_lines(diagnosis)
    if bench:
        lines += [
            "## Speed (benchmarks/bench_ares.py, one core)",
            "",
            "```json",
            json.dumps(bench, indent=1),
            "```",
            "",
        ]
    lines += [
        "## Not reproduced / differences",
        "",
        "- Scale: the paper pre-trains BERT-base on 3.2M MS MARCO documents for two days on six "
        "GPUs; here MiniLM-L6 on a 20k-passage MS MARCO subset plus SciFact for minutes on one "
        "CPU core; the few-shot curve and the ablation (Table 7) have one seed and few steps.",
        "- Predictor data: ~1.3k real queries (the paper: > 150k cases per setting); LightGBM "
        "instead of XGBoost (same model family, gain importance).",
        "- Eq. 6 is normalized over the document's own terms (the literal sum over V puts almost "
        "all mass on words outside the document); mu = the collection's mean document length "
        "(the paper gives none; see `axiomatic.ares.sampling`); STM thresholds 0.02/0.35 are "
        "ours.",
        "- Corpus for Q-RANK: the paper ranks in the full 8.8M-passage MS MARCO corpus; "
        "msmarco-20k holds the training positives, the test queries' and TREC DL 2019/2021 "
        "candidates, and none of the training queries' own BM25 lists (which made real queries "
        "meet their strongest competitors while pseudo queries met none, and the predictor "
        "learn RANK backwards). In a 20k corpus both ranks are optimistic; the table above "
        "gives the shares.",
        "",
    ]
    return "\n".join(lines)


def _diagnosis_lines(diag: dict[str, Any]) -> list[str]:
    from axiomatic.experiments.diagnosis import diagnosis_tables

    lines = ["## Axiomatic diagnosis: does pre-training raise axiom fulfilment?", ""]
    qp = diag.get("query_pairs") or {}
    if qp.get("fulfilment"):
        cols = list(qp["decisive"])
        lines += [
            f"**The axioms it was trained on** (query pairs): {qp['pairs']} fresh pairs of "
            f"pseudo queries, one per sampled document of {qp.get('collection')}; fulfilment = "
            "fraction of the pairs where the axiom (or the setting-I predictor that ordered the "
            "pre-training pairs) is decisive on which the model scores the preferred query "
            "higher for the document (a tie counts as not fulfilled). Decisive pairs per "
            f"column: {qp['decisive']}.",
            "",
            markdown_table(
                [{"model": k, **v} for k, v in qp["fulfilment"].items()], ["model", *cols]
            ),
            "",
        ]
    lines += [
        f"**Document-pair axioms**: {diag['queries']} queries of {diag['set']} (first by sorted id), BM25 top "
        f"{diag['depth']}; document-pair instances mined with the {diag['analyzer']} analyzer "
        f"(default variants: LNC2 and M-TDC relaxed), per axiom: {diag.get('instances')}. "
        "Fulfilment: fraction of an axiom's instances the model orders as the axiom prefers "
        "(McNemar tests in diagnosis/mcnemar.csv of the output folder):",
        "",
        *diagnosis_tables(diag, "pairs of a document and its edit"),
    ]
    return lines


STAGES = ("predictor", "pretrain", "zero-shot", "few-shot", "diagnosis", "ablation")


@register_experiment(
    "ares2022",
    summary="axiomatically regularized pre-training: predictor, zero-/few-shot, ablation",
    paper="Chen et al., SIGIR 2022 (ARES)",
    dask=False,
    in_process="pre-training feeds every later stage; docs/training.md 'Units on Dask'",
)
class Ares2022(Runner):
    """Runner: ``run()`` computes (or reuses) every stage, ``report()`` re-renders the tables
    and figures from the stage outputs in the folder."""

    plan_class = AresPlan
    plan: AresPlan

    def note(self, msg: str) -> None:
        self.echo(msg)  # the stages name themselves ("setting I: AUC ...")

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        p: AresPlan = plan
        return [
            f"  collections {', '.join(p.collections)}; predictor settings "
            f"{', '.join(p.settings)}; variants {', '.join(p.variants)}; {p.steps} "
            f"pre-training steps; ablation {', '.join(p.ablation_variants)}",
            f"  evaluation on {', '.join(p.eval_sets)}; few-shot sizes {p.few_shot_sizes}; "
            "time: see docs/ares.md",
        ]

    def _quick(self) -> bool:
        """Whether the plan is ``AresPlan.quick()`` (for the page's "Generated by" line)."""
        a, b = asdict(self.plan), asdict(AresPlan.quick())
        return all(a[k] == b[k] for k in a if k not in ("data_root", "docs", "threads"))

    def compute(self) -> None:
        """Run (or resume) the stages (:data:`STAGES`) into the output folder."""
        import torch

        plan, out, echo, store = self.plan, self.out_dir, self.echo, self.store
        stages = STAGES
        data_root = plan.data_root
        torch.set_num_threads(int(plan.threads))
        self.write_config()
        prepared = _prepared(plan, out, data_root)
        for p in prepared:
            echo(
                f"{p.collection.name}: {p.pseudo.report.describe()}; {len(p.real_doc)} real queries"
            )
        if "predictor" in stages:
            run_predictor_stage(plan, out, prepared, echo, store)
        pretrain = (
            run_pretrain_stage(plan, out, prepared, echo, data_root) if "pretrain" in stages else {}
        )
        if "zero-shot" in stages:
            run_zero_shot(plan, out, pretrain, echo, data_root, store)
        few = (
            run_few_shot(plan, out, pretrain, echo, data_root, store)
            if "few-shot" in stages
            else {}
        )
        if few:
            few_shot_tests(plan, out, few, echo, data_root)
        if "diagnosis" in stages:
            run_diagnosis(plan, out, pretrain, echo, data_root, prepared, store)
        if "ablation" in stages:
            run_ablation(plan, out, prepared, echo, data_root, store)

    def results(self) -> dict[str, Any]:
        """The stage outputs in the folder, computing nothing: the predictor, the
        pre-training of the plan's variants and the zero-shot stage must have finished (each
        refused, naming the file, when absent); few-shot, diagnosis and ablation are shown when
        present."""
        plan, out = self.plan, self.out_dir

        def need(path: Path, stage: str) -> Any:
            if not path.is_file():
                raise FileNotFoundError(
                    f"{path}: the {stage} stage has not finished in {out}; run `axiomatic "
                    "experiment ares2022` without --report-only first (--report-only only "
                    "re-renders the tables from the stages' outputs)"
                )
            return read_json(path)

        def have(path: Path) -> Any:
            return read_json(path) if path.is_file() else {}

        predictor = need(out / "predictor.json", "predictor")
        pretrain = {
            v: need(out / "pretrain" / v / "pretrain.json", f"pre-training ({v})")
            for v in plan.variants
        }
        zero = need(out / "zero_shot.json", "zero-shot")
        missing = sorted(set(plan.eval_sets) - set(zero))
        if missing:
            raise FileNotFoundError(
                f"{out / 'zero_shot.json'} has no results for {missing} (it was computed with "
                "another plan's eval_sets); run the experiment without --report-only"
            )
        starts = ["MiniLM cross-encoder"]
        starts += [f"ARES_{v}" for v in pretrain if v in plan.few_shot_variants]
        found = have(out / "few_shot.json")
        few = {
            k: found[k]
            for k in (f"{m}|{n}" for m in starts for n in plan.few_shot_sizes)
            if k in found
        }
        few_t = have(out / "few_shot_tests.json") if few else {}
        diagnosis = have(out / "diagnosis" / "diagnosis.json")
        if diagnosis and (out / "diagnosis" / "query_pairs.json").is_file():
            diagnosis["query_pairs"] = read_json(out / "diagnosis" / "query_pairs.json")
        ablation = have(out / "ablation" / "ablation.json") if plan.ablation_variants else {}
        res = {
            "plan": asdict(plan),
            "predictor": predictor,
            "pretrain": pretrain,
            "zero_shot": zero,
            "few_shot": few,
            "few_shot_tests": few_t,
            "ablation": ablation,
            "diagnosis": diagnosis,
        }
        return res

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """Figure 2 (axiom importance of the predictor) and Figure 3 (few-shot curves)."""
        out: dict[str, Any] = {}
        if results["predictor"]:
            out["img/ares_fig2_importance.png"] = importances_figure(results["predictor"])
        few = few_shot_figure(results["few_shot"], results["zero_shot"], self.plan.few_shot_test)
        if few is not None:
            out["img/ares_fig3_few_shot.png"] = few
        return out

    def summary(self, results: Mapping[str, Any]) -> str:
        """The page (the docs page too): every stage's tables, the machine and this
        invocation's time."""
        plan, m = self.plan, results["machine"]
        meta = {
            "quick": self._quick(),
            "machine": f"{m['platform']}, {m['cpu']}, {m['cpus']} cores",
            "threads": plan.threads,
            "load": tuple(m["load"] or ()),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "wall_s": time.perf_counter() - self.started,
        }
        bench_file = self.out_dir / "bench_ares.json"
        bench = read_json(bench_file) if bench_file.exists() else None
        return render_markdown(
            plan,
            results["predictor"] or {"features": [], "settings": {}},
            results["pretrain"],
            results["zero_shot"],
            meta,
            bench,
            results["few_shot"],
            results["diagnosis"],
            results["ablation"],
            results["few_shot_tests"],
        )

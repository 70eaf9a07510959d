"""Rennings (2019), section 4.4 / Table 4.9: fixing neural rankers by training on diagnostic
instances, plus the perturbation-augmentation (AP) baseline of Cheng & Fang (2020).

For each model (Duet and Conv-KNRM by default) and each training scheme

- ``regular``: the relevance pairs only;
- ``multi-graded``: labels 2 / 1 (axiom-preferred non-relevant) / 0, all pairs;
- ``paired``: axiom pairs mixed 1:1 with the regular pairs;
- ``paired-delta``: the same with delta* (relative length difference) <= 0.1;
- ``perturb``: axiomatic perturbations of the training documents as extra pairs (AP);

the runner trains the model, re-ranks the test split and reports MAP / MRR@10 / P@5 (Wilcoxon
test against ``regular``, as the thesis; Holm over the schemes compared on each measure) and
the fraction of TFC1, TFC2 and M-TDC instances of the test split each model fulfils (McNemar
tests, via :func:`axiomatic.diagnose.diagnosis.diagnose`).
The weak labeler is TFC1 mined on the training queries (the thesis' choice).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axiomatic._atomic import atomic_write_text
from axiomatic._params import param_meta
from axiomatic._report import markdown_table
from axiomatic.experiments.common import (
    load_split,
    mean_values,
    per_query,
    read_json,
    write_json,
)
from axiomatic.experiments.engine import Runner, TrainingPlan, estimate_line, register_experiment
from axiomatic.experiments.schedule import run_runner_units
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
    fingerprint,
    inference_dtype_settings,
)
from axiomatic.training.config import TRAIN_PARAMS

SCHEMES = ("regular", "multi-graded", "paired", "paired-delta", "perturb")
MEASURES = ("AP", "RR@10", "P@5")
UNIT_CODE = 1
"""Version of how a unit is computed (in every unit's record): bump it when a change of the code
changes a unit's results, so that units of the older code are refused instead of reused."""


@dataclass
class RenningsPlan(TrainingPlan):
    train: str = "msmarco-dev-top20/train"
    test: str = "msmarco-dev-top20/test"
    models: list[str] = field(default_factory=lambda: ["duet", "conv-knrm"])
    schemes: list[str] = field(default_factory=lambda: list(SCHEMES))
    weak_axiom: str = "TFC1(delta_rel=0.5)"
    diagnose_axioms: str = "TFC1,TFC2,M-TDC"
    delta_max: float = field(
        default=0.1,
        metadata=param_meta(
            ge=0, description="largest relative length difference of a mined instance"
        ),
    )
    steps: int = field(default=400, metadata=TRAIN_PARAMS["steps"].meta())
    dev_queries: int = field(default=50, metadata=TRAIN_PARAMS["dev_queries"].meta())
    depth: int = field(
        default=20, metadata=param_meta(ge=1, description="BM25 candidates per query")
    )
    # analyzer: "thesis" is Rennings' sec. 3.4.1 processing (the published runs used "default")

    @classmethod
    def quick(cls) -> RenningsPlan:
        return cls(
            train="demo/train", test="demo/test", steps=10, eval_every=5, **cls.ci_training()
        )


@register_experiment(
    "rennings-augment",
    summary="training on mined diagnostic instances vs the AP perturbation baseline (Table 4.9)",
    paper="Rennings, MSc thesis 2019",
    dask=True,
)
class RenningsAugment(Runner):
    """Runner (see the module docstring): the engine's ``run()`` computes every unit not done
    yet, then reports."""

    unit_code = UNIT_CODE
    plan_class = RenningsPlan
    unit_done = "test_run.json"
    plan: RenningsPlan

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        p: RenningsPlan = plan
        runs = [(m, p.steps) for m in p.models for _ in p.schemes for _ in p.seeds]
        return [
            f"  {p.train} -> {p.test}: models {', '.join(p.models)}; schemes "
            f"{', '.join(p.schemes)}; seeds {p.seeds}; {p.steps} steps",
            estimate_line(runs),
        ]

    def _datasets(self) -> tuple[Any, Any, Any, list[str]]:
        """Training, dev and test data and the vocabulary texts (loaded once per runner)."""
        if self.__dict__.get("_loaded") is None:
            from axiomatic.training.samplers import split_dev

            p = self.plan
            train_all = load_split(p.train, p.data_root, p.depth)
            test = load_split(p.test, p.data_root, p.depth)
            train, dev = split_dev(train_all, p.dev_queries, seed=0)
            texts = [d.text for d in train_all.documents.values()]
            self._loaded = (train, dev, test, texts)
        return self._loaded

    def _train_unit(self, item: tuple[Any, ...]) -> dict[str, Any]:
        """Train one unit ``(model, scheme, seed, folder, trainer config, record)`` (or resume
        it) and score the test split; returns its per-query values and best dev metric."""
        import torch

        from axiomatic.models import build_model
        from axiomatic.models.scoring import score_candidates
        from axiomatic.training.trainer import Trainer

        p = self.plan
        model, scheme, seed, unit, cfg, record = item
        train, dev, test, texts = self._datasets()
        if p.threads:
            torch.set_num_threads(p.threads)
        self.store.enter(unit, record)
        t0 = time.perf_counter()
        net = build_model(
            model, texts=texts, seed=seed, embeddings=p.embeddings, **cfg.model_config
        )
        res = Trainer(net, cfg, unit, train, dev).fit(resume=True)
        run_file = unit / "test_run.json"
        if run_file.exists():
            run = read_json(run_file)
        else:
            run = score_candidates(net, test, depth=p.depth)
            write_json(run_file, run)
        pq = per_query(run, test, MEASURES)
        self.echo(
            f"[rennings-augment] {model} {scheme} seed={seed}: "
            f"{mean_values(pq)} ({time.perf_counter() - t0:.0f}s)"
        )
        return {"per_query": pq, "best_dev": res.best_dev}

    def _mine(self, dataset: Any, axioms: str, name: str) -> Path:
        from axiomatic.diagnose.mining import mine

        out = self.out_dir / "instances" / name
        mine(
            dataset,
            axioms,
            out,
            depth=self.plan.depth,
            artificial=False,
            progress=False,
            analyzer=self.plan.analyzer,
            overwrite=self.overwrite,
        )
        return out

    def unit_record(
        self, cfg: dict[str, Any], inputs: dict[str, str], model: str, scheme: str, seed: int
    ) -> UnitRecord:
        """Every setting that determines a unit (its trainer configuration among them) and the
        fingerprints of its data and of the training instances it learns from."""
        p = self.plan
        mined = scheme not in ("regular", "perturb")
        settings = self.record_settings(
            *("train", "test", "steps", "lr", "batch_size", "embeddings", "depth"),
            *("dev_queries", "analyzer"),
            model=model,
            scheme=scheme,
            seed=seed,
            weak_axiom=p.weak_axiom if mined else None,
            delta_max=p.delta_max if mined else None,
            model_config=dict(p.model_config.get(model, {})),
            train_config=cfg,
            **inference_dtype_settings(model),
        )
        if scheme in ("regular", "perturb"):
            inputs = {k: v for k, v in inputs.items() if k != "training instances"}
        return UnitRecord(settings, inputs)

    def compute(self) -> None:
        import torch

        from axiomatic.training.config import TrainConfig

        p = self.plan
        if p.threads:
            torch.set_num_threads(p.threads)
        train, dev, test, texts = self._datasets()
        # mined here, before any unit: the units read the training instances
        train_inst = self._mine(train, p.weak_axiom, "train")
        # the weak labeler may carry parameters, e.g. TFC1(delta_rel=0.5) for wider length
        # differences (the thesis' TFC1 instances mostly had delta* > 0.1)
        weak_name = p.weak_axiom.split("(")[0].strip()
        self._mine(test, p.diagnose_axioms, "test")
        from axiomatic.data.fingerprint import hash_fields
        from axiomatic.data.instances import manifest_path

        manifest = read_json(manifest_path(train_inst))
        inputs = {
            "training data": dataset_fingerprint(train, p.depth),
            "dev data": "none" if dev is None else dataset_fingerprint(dev, p.depth),
            "test data": dataset_fingerprint(test, p.depth),
            "vocabulary texts": hash_fields([t] for t in texts),
            "training instances": fingerprint({"config": manifest.get("config")}),
        }
        planned = []
        for model in p.models:
            for scheme in p.schemes:
                for seed in p.seeds:
                    unit = self.out_dir / "runs" / model / scheme / f"seed{seed}"
                    aug = None
                    if scheme == "perturb":
                        aug = "perturb(axioms=TFC1-A,TFC1-D,TFC3,LNC)"
                    elif scheme != "regular":
                        # delta_max is paired-delta's filter; the other modes refuse it
                        bound = f"delta_max={p.delta_max}, " if scheme == "paired-delta" else ""
                        aug = (
                            f"diagnostic(mode={scheme}, instances={train_inst}, "
                            f"{bound}axioms={weak_name})"
                        )
                    cfg = TrainConfig(
                        dataset=p.train,
                        model=model,
                        model_config=dict(p.model_config.get(model, {})),
                        augmentation=aug,
                        steps=p.steps,
                        dev_depth=p.depth,
                        candidate_depth=p.depth,
                        seed=seed,
                        **p.trainer_settings(),
                    )
                    # the record names the instances by content, not by this folder's path
                    rcfg = cfg.to_dict()
                    if aug is not None:
                        rcfg["augmentation"] = aug.replace(str(train_inst), "instances/train")
                    record = self.unit_record(rcfg, inputs, model, scheme, seed)
                    planned.append((model, scheme, seed, unit, cfg, record))
        # every unit is compared with its record before any training: a unit computed with
        # other settings or data is refused here (or cleared with overwrite)
        for *_, unit, _cfg, record in planned:
            self.store.check(unit, record)
        self.write_config()
        # independent units (here one after another, or on Dask); the report's diagnosis
        # reads their saved models
        run_runner_units(
            self,
            planned,
            "_train_unit",
            label=lambda item: item[3].relative_to(self.out_dir).as_posix(),
            what="rennings-augment unit",
        )

    def results(self) -> dict[str, Any]:
        """Summarize the units finished so far with this plan's settings (their saved models
        and test runs; the test split's mined instances), without training or mining."""
        from axiomatic.data.instances import manifest_path, read_instances
        from axiomatic.models import NeuralRanker, load_model

        p = self.plan
        test_inst_dir = self.out_dir / "instances" / "test"
        if not manifest_path(test_inst_dir).is_file():
            raise FileNotFoundError(
                f"{test_inst_dir}: no mined test instances; run the experiment first (without "
                "--report-only)"
            )
        test = load_split(p.test, p.data_root, p.depth)
        test_instances, test_art = read_instances(test_inst_dir)
        rows: list[dict[str, Any]] = []
        runs: dict[tuple[str, str, int], dict[str, dict[str, float]]] = {}
        rankers: dict[str, Any] = {}
        stale: list[Path] = []
        for model in p.models:
            for scheme in p.schemes:
                for seed in p.seeds:
                    unit = self.out_dir / "runs" / model / scheme / f"seed{seed}"
                    if not (unit / "test_run.json").is_file() or not (unit / "model").exists():
                        continue
                    if not self.store.matches(unit, self.report_settings(model, scheme, seed)):
                        stale.append(unit)
                        continue
                    pq = per_query(read_json(unit / "test_run.json"), test, MEASURES)
                    runs[(model, scheme, seed)] = pq
                    name = f"{model}/{scheme}/s{seed}"
                    rankers[name] = NeuralRanker(
                        load_model(unit / "model", device="auto"), name=name
                    )
                    metrics = unit / "metrics.json"
                    best = read_json(metrics).get("best_dev") if metrics.is_file() else None
                    rows.append(
                        {"model": model, "scheme": scheme, "seed": seed, **mean_values(pq),
                         "best_dev": best}
                    )  # fmt: skip
        if stale:
            self.note(
                f"{len(stale)} finished unit(s) in {self.out_dir} were computed with other "
                f"settings than this plan's and are not reported (e.g. "
                f"{stale[0].relative_to(self.out_dir).as_posix()}); run the experiment with "
                "--overwrite to redo them"
            )
        if not rows:
            raise FileNotFoundError(
                f"{self.out_dir}: no finished unit of this plan to report; run the experiment "
                "first (without --report-only)"
            )
        return self._summarize(rows, runs, rankers, test, test_instances, test_art)

    def report_settings(self, model: str, scheme: str, seed: int) -> dict[str, Any]:
        """The settings of a unit a report compares with its record (no data needed)."""
        rec = self.unit_record({}, {}, model, scheme, seed).settings
        return {k: v for k, v in rec.items() if k != "train_config"}

    def _summarize(
        self,
        rows: list[dict[str, Any]],
        runs: dict[tuple[str, str, int], dict[str, dict[str, float]]],
        rankers: dict[str, Any],
        test: Any,
        test_instances: Any,
        test_art: Any,
    ) -> dict[str, Any]:
        """Significance and diagnosis (``diagnosis/``, ``mcnemar.csv``) of finished units."""
        from axiomatic.diagnose.diagnosis import diagnose
        from axiomatic.evaluate.significance import compare_to_baseline

        p = self.plan
        # Wilcoxon against `regular` (the thesis' test), Holm over the schemes compared with
        # `regular` on one measure, per model and seed (the project's one policy)
        families: list[str] = []
        for model in p.models:
            for seed in p.seeds:
                if (model, "regular", seed) not in runs:
                    continue
                vals = {s: runs[(model, s, seed)] for s in p.schemes if (model, s, seed) in runs}
                by_scheme = {
                    r["scheme"]: r for r in rows if r["model"] == model and r["seed"] == seed
                }
                try:
                    cmp = compare_to_baseline(
                        vals,
                        "regular",
                        test="wilcoxon",
                        noun="schemes",
                        scope="per model and seed",
                    )
                except ValueError:  # e.g. fewer than 2 test queries: no test
                    for s in vals:
                        if s != "regular":
                            by_scheme[s].update({f"{m} p": None for m in MEASURES})
                    continue
                families.append(cmp.family)
                for c in cmp:
                    by_scheme[c.system][f"{c.measure} p"] = c.p_holm
                    by_scheme[c.system][f"{c.measure} p raw"] = c.p
        family = " | ".join(dict.fromkeys(families)) or "nothing compared"
        diag = diagnose(test_instances, rankers, test, test_art)
        piv = diag.pivot("axiom")
        diag.save(self.out_dir / "diagnosis")
        for r in rows:
            key = f"{r['model']}/{r['scheme']}/s{r['seed']}"
            if key in piv.index:
                for ax in piv.columns:
                    r[f"{ax} fulfilled"] = float(piv.loc[key, ax])
        mc = diag.mcnemar()
        atomic_write_text(self.out_dir / "mcnemar.csv", mc.to_csv(index=False))
        return {"rows": rows, "significance": family}

    def summary(self, results: Mapping[str, Any]) -> str:
        p, rows, family = self.plan, results["rows"], results["significance"]
        cols = ["model", "scheme", "seed", *MEASURES, *(f"{m} p" for m in MEASURES)]
        cols += [c for c in rows[0] if c.endswith(" fulfilled")] if rows else []
        text = [
            "# Rennings 2019, Table 4.9 analogue: training on diagnostic instances",
            "",
            f"Train {p.train} (weak labeler {p.weak_axiom}), test {p.test} (re-ranking depth "
            f"{p.depth}). p (Holm-adjusted; results.json keeps the unadjusted 'p raw'): "
            f"{family}. Fulfilment: fraction of the test split's {p.diagnose_axioms} instances "
            "each model satisfies (McNemar tests in mcnemar.csv).",
            "",
            markdown_table(rows, cols),
        ]
        return "\n".join(text) + "\n"

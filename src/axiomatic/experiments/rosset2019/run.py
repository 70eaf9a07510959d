"""Rosset et al. (2019): the runner (training units, agreement, tuning) and its entry point."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axiomatic.data.records import Dataset
from axiomatic.experiments.common import (
    load_split,
    mean_values,
    nested_subsets,
    per_query,
    read_json,
    write_json,
)
from axiomatic.experiments.engine import Runner, estimate_line, register_experiment
from axiomatic.experiments.rosset2019.plan import (
    AGREEMENT_VERSION,
    ALL_AXIOMS,
    MEASURES,
    DatasetPlan,
    RossetPlan,
    _fmt,
    _slug,
)
from axiomatic.experiments.rosset2019.report import RossetReport
from axiomatic.experiments.schedule import run_runner_units
from axiomatic.experiments.units import UnitRecord, dataset_fingerprint, inference_dtype_settings

UNIT_CODE = 1
"""Version of how a unit is computed (in every unit's record): bump it when a change of the code
changes a unit's results, so that units of the older code are refused instead of reused."""


@dataclass
class _Data:
    train_pool: Dataset
    dev: Dataset | None
    test: Dataset
    subsets: dict[int, list[str]]
    vocab_texts: list[str]
    fingerprints: dict[str, str] = field(default_factory=dict)
    """Content hashes of the data (unit inputs), computed once per dataset / training size."""


@register_experiment(
    "rosset2019",
    summary="axiomatic regularization (AR) of KNRM / Conv-KNRM: Figure 1, Table 2, Figure 2",
    paper="Rosset et al., SIGIR 2019",
    dask=True,
)
class Rosset2019(RossetReport, Runner):
    """Runner (see the module docstring). ``run()`` does everything that is not done yet."""

    plan: RossetPlan

    unit_code = UNIT_CODE
    plan_class = RossetPlan

    @classmethod
    def plan_lines(cls, plan: RossetPlan, out: Path) -> list[str]:
        p = plan
        lines: list[str] = []
        runs: list[tuple[str, int]] = []  # (model, steps) per training run
        for i, dp in enumerate(p.datasets):
            for model in p.models:
                steps = p.steps_per_model.get(model, p.steps)
                for size in dp.sizes:
                    n = len(p.tune_grid) ** 2 if p.tune else 0
                    variants = 2
                    if p.ablation and i == 0 and size == (p.ablation_size or dp.sizes[0]):
                        variants += len(p.axioms)
                    n += len(p.seeds) * variants
                    runs += [(model, steps)] * n
            lines.append(f"  {dp.train} -> {dp.test}: training sizes {dp.sizes}")
        lines.append(
            f"  models {', '.join(p.models)}; seeds {p.seeds}; {p.steps} steps; "
            f"lambda/mu grid {'tuned' if p.tune else 'fixed'}; ablation {p.ablation}"
        )
        return [*lines, estimate_line(runs)]

    # ------------------------------------------------------------------ data
    def _data_at(self, i: int) -> _Data:
        """The data of the plan's ``i``-th dataset (loaded once per runner)."""
        datas: dict[int, _Data] = self.__dict__.setdefault("_datas", {})
        if i not in datas:
            datas[i] = self._data(self.plan.datasets[i])
        return datas[i]

    def _data(self, dp: DatasetPlan) -> _Data:
        from axiomatic.training.samplers import split_dev

        p = self.plan
        train_all = load_split(dp.train, p.data_root, p.train_depth)
        test = load_split(dp.test, p.data_root, p.test_depth)
        pool, dev = split_dev(train_all, p.dev_queries, seed=0)
        if dev is not None and dev.candidates is not None:
            dev.candidates = {q: c[: p.test_depth] for q, c in dev.candidates.items()}
        usable = [
            q for q in pool.queries if any(g >= pool.rel_threshold for g in pool.judged(q).values())
        ]
        subsets = nested_subsets(usable, dp.sizes, seed=0)
        texts = [d.text for d in train_all.documents.values()]
        from axiomatic.data.fingerprint import hash_fields

        fps = {
            "dev data": "none" if dev is None else dataset_fingerprint(dev, p.test_depth),
            "test data": dataset_fingerprint(test, p.test_depth),
            "vocabulary texts": hash_fields([t] for t in texts),
        }
        return _Data(pool, dev, test, subsets, texts, fps)

    # ------------------------------------------------------------------ unit records
    def _train_config(self, dp: DatasetPlan, model: str, seed: int, regularizer: str | None) -> Any:
        from axiomatic.training.config import TrainConfig

        p = self.plan
        return TrainConfig(
            dataset=dp.train,
            model=model,
            model_config=dict(p.model_config.get(model, {})),
            loss="hinge",
            margin=p.margin,
            regularizer=regularizer,
            steps=p.steps_per_model.get(model, p.steps),
            dev_depth=p.test_depth,
            candidate_depth=p.train_depth,
            seed=seed,
            **p.trainer_settings(),
        )

    def plan_settings(self, model: str) -> dict[str, Any]:
        """The plan's settings shared by every unit of ``model`` (a report compares these)."""
        p = self.plan
        return self.record_settings(
            *("lr", "batch_size", "margin", "embeddings", "eval_every", "patience"),
            *("dev_queries", "train_depth", "test_depth", "analyzer"),
            steps=p.steps_per_model.get(model, p.steps),
            model_config=dict(p.model_config.get(model, {})),
            **inference_dtype_settings(model),
        )

    def unit_record(
        self,
        data: _Data,
        dp: DatasetPlan,
        size: int,
        model: str,
        variant: str,
        seed: int,
        regularizer: str | None,
    ) -> UnitRecord:
        """Every setting that determines a unit and the fingerprints of its data."""
        key = f"training data n{size}"
        if key not in data.fingerprints:
            train = data.train_pool.subset(data.subsets[size], split="train")
            data.fingerprints[key] = dataset_fingerprint(train, self.plan.train_depth)
        settings = {
            **self.plan_settings(model),
            "train": dp.train,
            "test": dp.test,
            "size": size,
            "model": model,
            "variant": variant,
            "seed": seed,
            "regularizer": regularizer,
            "train_config": self._train_config(dp, model, seed, regularizer).to_dict(),
        }
        inputs = {
            "training data": data.fingerprints[key],
            **{k: data.fingerprints[k] for k in ("dev data", "test data", "vocabulary texts")},
        }
        return UnitRecord(settings, inputs)

    def _unit_dir(self, dp: DatasetPlan, size: int, model: str, variant: str, seed: int) -> Path:
        return (
            self.out_dir / "runs" / _slug(dp.train) / f"n{size}" / model / variant / f"seed{seed}"
        )

    # ------------------------------------------------------------------ one run
    def _unit(
        self,
        data: _Data,
        dp: DatasetPlan,
        size: int,
        model: str,
        variant: str,
        seed: int,
        regularizer: str | None,
        score_test: bool = True,
    ) -> dict[str, Any]:
        import torch

        from axiomatic.models import build_model
        from axiomatic.models.scoring import score_candidates
        from axiomatic.training.trainer import Trainer

        p = self.plan
        unit = self._unit_dir(dp, size, model, variant, seed)
        done = unit / ("test_metrics.json" if score_test else "metrics.json")
        record = self.unit_record(data, dp, size, model, variant, seed, regularizer)
        if self.store.enter(unit, record, done=done.name) == "done":
            return read_json(done)
        if p.threads:
            torch.set_num_threads(p.threads)
        t0 = time.perf_counter()
        train = data.train_pool.subset(data.subsets[size], split="train")
        cfg = self._train_config(dp, model, seed, regularizer)
        # embeddings pinned by the plan (build_model's default may change between versions)
        net = build_model(
            model, texts=data.vocab_texts, seed=seed, embeddings=p.embeddings, **cfg.model_config
        )
        result = Trainer(net, cfg, unit, train, data.dev).fit(resume=True)
        out: dict[str, Any] = {
            "dataset": dp.train,
            "size": size,
            "n_queries": len(train.queries),
            "model": model,
            "variant": variant,
            "seed": seed,
            "regularizer": regularizer,
            **result.to_dict(),
        }
        if score_test:
            run = score_candidates(net, data.test, depth=p.test_depth)
            write_json(unit / "test_run.json", run)
            out["test"] = mean_values(per_query(run, data.test, MEASURES))
            out["seconds_total"] = round(time.perf_counter() - t0, 1)
            write_json(done, out)
        self.echo(
            f"[rosset2019] {dp.train} n={size} {model} {variant} seed={seed}: "
            f"dev={out.get('best_dev')} test={out.get('test')} ({time.perf_counter() - t0:.0f}s)"
        )
        return out

    def _agreement(self, unit: Path, test: Dataset) -> None:
        """Add the trained model's agreement with each perturbation axiom on test pairs."""
        f = unit / "test_metrics.json"
        u = read_json(f)
        if u.get("agreement_version") == AGREEMENT_VERSION or not (unit / "model").exists():
            return
        from axiomatic.models import load_model
        from axiomatic.perturb import DocumentPerturber, build_vocabulary
        from axiomatic.text.analyzer import parse_analyzer
        from axiomatic.training.analysis import perturbation_agreement
        from axiomatic.training.augmenters import visible_tokens

        model = load_model(unit / "model", device="auto")
        an = parse_analyzer(self.plan.analyzer, language=test.language)
        texts = [
            test.documents[d].text
            for q in sorted(test.queries)[:50]
            for d in test.candidate_ids(q)[:10]
        ]
        perturber = DocumentPerturber(
            an,
            build_vocabulary(texts, an, min_count=1),
            lnc_terms=3,
            max_position=visible_tokens(model),
        )
        u["agreement"] = perturbation_agreement(model, test, perturber, ALL_AXIOMS, n_pairs=200)
        u["agreement_version"] = AGREEMENT_VERSION
        write_json(f, u)

    def _ar(self, lam: float, mu: float, axioms: Sequence[str]) -> tuple[str, str]:
        norm = self.plan.ar_normalize
        spec = f"ar(lambda={_fmt(lam)}, mu={_fmt(mu)}, axioms={','.join(axioms)}, normalize={norm})"
        tag = "all" if tuple(axioms) == ALL_AXIOMS else "+".join(axioms)
        suffix = "" if norm == "batch" else f"-n{norm}"
        return f"ar-{tag}-l{_fmt(lam)}-m{_fmt(mu)}{suffix}", spec

    # ------------------------------------------------------------------ scheduling
    def _schedule(self, items: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        return run_runner_units(
            self, items, "_run_item", label=self._item_label, what="rosset2019 unit"
        )

    def _run_item(self, item: tuple[Any, ...]) -> dict[str, Any]:
        """``(dataset index, size, model, variant, seed, regularizer, score_test)``: one unit."""
        i, size, model, variant, seed, spec, score_test = item
        dp = self.plan.datasets[i]
        return self._unit(self._data_at(i), dp, size, model, variant, seed, spec, score_test)

    def _item_label(self, item: tuple[Any, ...]) -> str:
        i, size, model, variant, seed, *_ = item
        d = self._unit_dir(self.plan.datasets[i], size, model, variant, seed)
        return d.relative_to(self.out_dir).as_posix()

    # ------------------------------------------------------------------ everything
    def compute(self) -> None:
        p = self.plan
        if p.threads:  # as in every unit: the agreement of the report computes here
            import torch

            torch.set_num_threads(p.threads)
        datas = {id(dp): self._data_at(i) for i, dp in enumerate(p.datasets)}
        self._check_units(datas)  # before any work: a unit of other settings is refused here
        self.write_config()
        groups = [
            (i, size, model)
            for i, dp in enumerate(p.datasets)
            for model in p.models
            for size in dp.sizes
        ]
        # two phases of independent units (here one after another, or on Dask): the lambda /
        # mu grid of every (dataset, size, model) on its first seed (dev metric only), then the
        # baselines and regularized variants with the lambda, mu chosen on dev
        grid = [(lam, mu) for lam in p.tune_grid for mu in p.tune_grid] if p.tune else []
        tuning = [
            (i, size, model, variant, p.seeds[0], spec, False)
            for i, size, model in groups
            for variant, spec in (self._ar(lam, mu, p.axioms) for lam, mu in grid)
        ]
        tuned = iter(self._schedule(tuning))
        chosen: dict[str, Any] = {}
        items: list[tuple[Any, ...]] = []
        for i, size, model in groups:
            dp = p.datasets[i]
            lam, mu = p.lambda_, p.mu
            if p.tune:
                best: tuple[float, float, float] | None = None
                for lam_, mu_ in grid:  # the first of equal dev metrics wins
                    dev = next(tuned).get("best_dev")
                    if dev is not None and (best is None or dev > best[0]):
                        best = (dev, lam_, mu_)
                lam, mu = (best[1], best[2]) if best else (p.lambda_, p.mu)
                self.echo(
                    f"[rosset2019] tuned {dp.train} n={size} {model}: lambda, mu = {(lam, mu)}"
                )
            chosen[f"{dp.train}|{size}|{model}"] = {"lambda": lam, "mu": mu}
            variants = [("base", None), self._ar(lam, mu, p.axioms)]
            if p.ablation and size == (p.ablation_size or dp.sizes[0]) and dp is p.datasets[0]:
                variants += [self._ar(lam, mu, (ax,)) for ax in p.axioms]
            items += [
                (i, size, model, v, seed, spec, True) for seed in p.seeds for v, spec in variants
            ]
        write_json(self.out_dir / "chosen_lambda_mu.json", chosen)
        units = self._schedule(items)
        write_json(self.out_dir / "units.json", units)

    def _check_units(self, datas: dict[int, _Data]) -> None:
        """Compare the units known before training (the tuning grid, the baselines and, with
        fixed lambda / mu, the regularized variants) with their records: a unit computed with
        other settings or data is refused (or cleared with overwrite) before any work. Units
        of tuned variants are compared when they are reached."""
        p = self.plan
        for dp in p.datasets:
            data = datas[id(dp)]
            for model in p.models:
                for size in dp.sizes:
                    todo: list[tuple[str, str | None, int]] = []
                    if p.tune:
                        todo += [
                            (*self._ar(lam, mu, p.axioms), p.seeds[0])
                            for lam in p.tune_grid
                            for mu in p.tune_grid
                        ]
                    variants: list[tuple[str, str | None]] = [("base", None)]
                    if not p.tune:
                        variants.append(self._ar(p.lambda_, p.mu, p.axioms))
                        if (
                            p.ablation
                            and size == (p.ablation_size or dp.sizes[0])
                            and dp is p.datasets[0]
                        ):
                            variants += [self._ar(p.lambda_, p.mu, (ax,)) for ax in p.axioms]
                    todo += [(v, spec, seed) for seed in p.seeds for v, spec in variants]
                    for variant, spec, seed in todo:
                        d = self._unit_dir(dp, size, model, variant, seed)
                        rec = self.unit_record(data, dp, size, model, variant, seed, spec)
                        # tuning units finish at metrics.json, the others at test_metrics.json
                        done = "test_metrics.json" if (d / "test_metrics.json").exists() else None
                        self.store.check(d, rec, done=done or "metrics.json")

    def unit_groups(self) -> tuple[dict[tuple[str, int, str, str], list[Path]], list[Path]]:
        """The finished units computed with this plan's settings, by (dataset, size, model,
        variant), and those of other settings (not reported)."""
        groups: dict[tuple[str, int, str, str], list[Path]] = {}
        stale: list[Path] = []
        for f in sorted((self.out_dir / "runs").glob("*/n*/*/*/seed*/test_metrics.json")):
            u = read_json(f)
            if not self.store.matches(f.parent, self.plan_settings(u["model"])):
                stale.append(f.parent)
                continue
            key = (u["dataset"], int(u["size"]), u["model"], u["variant"])
            groups.setdefault(key, []).append(f.parent)
        return groups, stale

    def results(self) -> dict[str, Any]:
        """Summarize every finished run found on disk (works while runs are still missing)
        that was computed with this plan's settings."""
        groups, stale = self.unit_groups()
        if stale:
            self.echo(
                f"[rosset2019] {len(stale)} finished unit(s) in {self.out_dir} were computed "
                f"with other settings than this plan's and are not reported (e.g. "
                f"{stale[0].relative_to(self.out_dir).as_posix()}); run the experiment with "
                "--overwrite to redo them"
            )
        tests = {
            dp.train: load_split(dp.test, self.plan.data_root, self.plan.test_depth)
            for dp in self.plan.datasets
            if any(k[0] == dp.train for k in groups)
        }
        for (ds_name, *_), dirs in groups.items():
            for d in dirs:
                self._agreement(d, tests[ds_name])
        chosen_file = self.out_dir / "chosen_lambda_mu.json"
        chosen = read_json(chosen_file) if chosen_file.exists() else {}
        return self.summarize(groups, tests, chosen)

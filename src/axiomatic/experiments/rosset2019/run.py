"""Rosset et al. (2019): the runner (training units, agreement, tuning) and its entry point."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
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
from axiomatic.experiments.rosset2019.plan import (
    AGREEMENT_VERSION,
    ALL_AXIOMS,
    MEASURES,
    DatasetPlan,
    RossetPlan,
    _fmt,
    _plain,
    _slug,
)
from axiomatic.experiments.rosset2019.report import RossetReport


@dataclass
class _Data:
    train_pool: Dataset
    dev: Dataset | None
    test: Dataset
    subsets: dict[int, list[str]]
    vocab_texts: list[str]


class Rosset2019(RossetReport):
    """Runner (see the module docstring). ``run()`` does everything that is not done yet."""

    def __init__(
        self, plan: RossetPlan, out_dir: str | Path, echo: Callable[[str], None] = print
    ) -> None:
        self.plan = plan
        self.out_dir = Path(out_dir)
        self.echo = echo

    # ------------------------------------------------------------------ data
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
        return _Data(pool, dev, test, subsets, texts)

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
        from axiomatic.training.config import TrainConfig
        from axiomatic.training.trainer import Trainer, score_dataset

        p = self.plan
        unit = (
            self.out_dir / "runs" / _slug(dp.train) / f"n{size}" / model / variant / f"seed{seed}"
        )
        done = unit / ("test_metrics.json" if score_test else "metrics.json")
        if done.exists():
            return read_json(done)
        if p.threads:
            torch.set_num_threads(p.threads)
        t0 = time.perf_counter()
        train = data.train_pool.subset(data.subsets[size], split="train")
        cfg = TrainConfig(
            dataset=dp.train,
            model=model,
            model_config=dict(p.model_config.get(model, {})),
            loss="hinge",
            margin=p.margin,
            regularizer=regularizer,
            lr=p.lr,
            batch_size=p.batch_size,
            steps=p.steps_per_model.get(model, p.steps),
            eval_every=p.eval_every,
            patience=p.patience,
            dev_queries=p.dev_queries,
            dev_depth=p.test_depth,
            candidate_depth=p.train_depth,
            checkpoint_every=p.eval_every,
            seed=seed,
            analyzer=p.analyzer,
        )
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
            run = score_dataset(net, data.test, depth=p.test_depth)
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
        from axiomatic.training.trainer import visible_tokens

        model = load_model(unit / "model")
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

    # ------------------------------------------------------------------ tuning
    def _tune(self, data: _Data, dp: DatasetPlan, size: int, model: str) -> tuple[float, float]:
        p = self.plan
        if not p.tune:
            return p.lambda_, p.mu
        best: tuple[float, float, float] | None = None
        for lam in p.tune_grid:
            for mu in p.tune_grid:
                variant, spec = self._ar(lam, mu, p.axioms)
                r = self._unit(data, dp, size, model, variant, p.seeds[0], spec, score_test=False)
                dev = r.get("best_dev")
                if dev is not None and (best is None or dev > best[0]):
                    best = (dev, lam, mu)
        chosen = (best[1], best[2]) if best else (p.lambda_, p.mu)
        self.echo(f"[rosset2019] tuned {dp.train} n={size} {model}: lambda, mu = {chosen}")
        return chosen

    # ------------------------------------------------------------------ everything
    def run(self) -> dict[str, Any]:
        p = self.plan
        self.out_dir.mkdir(parents=True, exist_ok=True)
        from axiomatic.training.config import write_toml

        write_toml(
            {"experiment": "rosset2019", **_plain(p.to_dict())}, self.out_dir / "config.toml"
        )
        units: list[dict[str, Any]] = []
        chosen: dict[str, Any] = {}
        for dp in p.datasets:
            data = self._data(dp)
            for model in p.models:
                for size in dp.sizes:
                    lam, mu = self._tune(data, dp, size, model)
                    chosen[f"{dp.train}|{size}|{model}"] = {"lambda": lam, "mu": mu}
                    write_json(self.out_dir / "chosen_lambda_mu.json", chosen)
                    variants = [("base", None), self._ar(lam, mu, p.axioms)]
                    if (
                        p.ablation
                        and size == (p.ablation_size or dp.sizes[0])
                        and dp is p.datasets[0]
                    ):
                        variants += [self._ar(lam, mu, (ax,)) for ax in p.axioms]
                    for seed in p.seeds:
                        for variant, spec in variants:
                            units.append(self._unit(data, dp, size, model, variant, seed, spec))
        write_json(self.out_dir / "units.json", units)
        return self.report()

    def report(self) -> dict[str, Any]:
        """Summarize every finished run found on disk (works while runs are still missing)."""
        groups: dict[tuple[str, int, str, str], list[Path]] = {}
        for f in sorted((self.out_dir / "runs").glob("*/n*/*/*/seed*/test_metrics.json")):
            u = read_json(f)
            key = (u["dataset"], int(u["size"]), u["model"], u["variant"])
            groups.setdefault(key, []).append(f.parent)
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


def run_rosset2019(
    out_dir: str | Path,
    quick: bool = False,
    echo: Callable[[str], None] = print,
    **overrides: Any,
) -> dict[str, Any]:
    """Run (or resume) the experiment; ``overrides`` replace plan fields (e.g. ``seeds=[0, 1]``)."""
    plan = RossetPlan.quick() if quick else RossetPlan.full()
    report_only = overrides.pop("report_only", False)
    if overrides.get("datasets"):
        overrides["datasets"] = [
            d if isinstance(d, DatasetPlan) else DatasetPlan(**d) for d in overrides["datasets"]
        ]
    if isinstance(overrides.get("axioms"), list):
        overrides["axioms"] = tuple(overrides["axioms"])
    unknown = sorted(set(overrides) - set(RossetPlan.__dataclass_fields__))
    if unknown:
        raise ValueError(
            f"unknown rosset2019 setting(s) {unknown}; expected some of "
            f"{sorted(RossetPlan.__dataclass_fields__)}"
        )
    plan = replace(plan, **{k: v for k, v in overrides.items() if v is not None})
    runner = Rosset2019(plan, out_dir, echo)
    return runner.report() if report_only else runner.run()

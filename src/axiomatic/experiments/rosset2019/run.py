"""Rosset et al. (2019), "An Axiomatic Approach to Regularizing Neural Ranking Models".

Reproduces, at the scale of the staged collections:

- Figure 1: KNRM / Conv-KNRM with and without axiomatic regularization (AR) on nested training
  subsets, each point the score-averaged ensemble of the seeds' models, MRR@10 and MAP on the
  test split, with a paired t-test of AR against the non-regularized ensemble;
- Table 2: the add-one-in ablation (each perturbation alone, then all);
- Figure 2: training curves (hinge loss without the AR term, dev MRR@10) of both variants;
- lambda / mu tuned over {0.001, 0.01, 0.1, 0.25, 0.5, 1.0} on the dev queries only.

Every training run has its own directory (``runs/<dataset>/n<size>/<model>/<variant>/seed<k>``)
and is skipped when finished, resumed from its checkpoint when interrupted, so the whole
experiment can be stopped and restarted at any point.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from axiomatic.data.records import Dataset, Run
from axiomatic.experiments.common import (
    ensemble,
    load_split,
    markdown_table,
    mean_values,
    nested_subsets,
    per_query,
    read_json,
    write_json,
)

ALL_AXIOMS = ("TFC1-A", "TFC1-D", "TFC3", "LNC")
GRID = (0.001, 0.01, 0.1, 0.25, 0.5, 1.0)
MEASURES = ("RR@10", "AP")
AGREEMENT_VERSION = 3  # bump when the perturbations change: cached agreements are recomputed
# 3: perturbations edit the original text in place (no NFKC/lowercasing of the document)


@dataclass
class DatasetPlan:
    train: str
    test: str
    sizes: list[int]


@dataclass
class RossetPlan:
    """What to run. ``full()`` is the paper-shaped grid; ``quick()`` a CI-sized one."""

    datasets: list[DatasetPlan]
    models: list[str] = field(default_factory=lambda: ["knrm", "conv-knrm"])
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3])
    lambda_: float = 0.1
    mu: float = 0.1
    axioms: tuple[str, ...] = ALL_AXIOMS
    tune: bool = False
    tune_grid: tuple[float, ...] = GRID
    ablation: bool = True
    ablation_size: int | None = None
    steps: int = 300
    steps_per_model: dict[str, int] = field(default_factory=dict)
    batch_size: int = 16
    lr: float = 1e-3
    margin: float = 1.0
    eval_every: int = 50
    patience: int = 4
    dev_queries: int = 100
    train_depth: int = 30
    test_depth: int = 30
    model_config: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "knrm": {"max_doc_len": 128},
            "conv-knrm": {"max_doc_len": 128, "n_filters": 64},
            "cross-encoder": {"max_length": 192},
        }
    )
    embeddings: str = "random"
    threads: int | None = 1
    data_root: str | None = None
    # Text analysis of the perturbations (query-term membership); the published runs used
    # "default". Recorded in every unit's config.toml.
    analyzer: str = "default"
    # How the AR term averages over perturbations that applied (AxiomaticRegularizationLoss):
    # pinned to "batch", the setting of the published runs, so finished units stay comparable;
    # "applicable" runs go to their own unit folders (variant suffix "-napplicable").
    ar_normalize: str = "batch"

    @classmethod
    def full(cls) -> RossetPlan:
        return cls(
            datasets=[
                DatasetPlan("scifact/train", "scifact/test", [50, 100, 200, 400, 809]),
                DatasetPlan("msmarco-dev-top20/train", "msmarco-dev-top20/test", [100, 200, 400]),
            ],
            tune=True,
            ablation_size=200,
        )

    @classmethod
    def quick(cls) -> RossetPlan:
        return cls(
            datasets=[DatasetPlan("demo/train", "demo/test", [6])],
            models=["knrm"],
            seeds=[0, 1],
            steps=20,
            batch_size=8,
            eval_every=10,
            patience=0,
            dev_queries=1,
            ablation=False,
            lambda_=0.5,
            mu=0.5,
            model_config={"knrm": {"embedding_dim": 16, "max_doc_len": 64}},
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _slug(name: str) -> str:
    return name.replace("/", "_")


def _fmt(x: float) -> str:
    return f"{x:g}"


@dataclass
class _Data:
    train_pool: Dataset
    dev: Dataset | None
    test: Dataset
    subsets: dict[int, list[str]]
    vocab_texts: list[str]


class Rosset2019:
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

    # ------------------------------------------------------------------ reporting
    def summarize(
        self,
        groups: dict[tuple[str, int, str, str], list[Path]],
        tests: dict[str, Dataset],
        chosen: dict[str, Any],
    ) -> dict[str, Any]:
        from axiomatic.evaluate.significance import paired_test

        p = self.plan
        rows: list[dict[str, Any]] = []
        for key, dirs in groups.items():
            ds_name, size, model, variant = key
            test = tests[ds_name]
            runs: list[Run] = [read_json(d / "test_run.json") for d in dirs]
            values = per_query(ensemble(runs), test, MEASURES)
            seed_vals = [read_json(d / "test_metrics.json")["test"]["RR@10"] for d in dirs]
            rows.append(
                {
                    "dataset": ds_name,
                    "size": size,
                    "model": model,
                    "variant": variant,
                    "seeds": len(dirs),
                    "MRR@10": mean_values(values)["RR@10"],
                    "MAP": mean_values(values)["AP"],
                    "MRR@10 per-seed mean": sum(seed_vals) / len(seed_vals),
                    **{f"agree {ax}": _mean_key(dirs, ax) for ax in ALL_AXIOMS},
                }
            )
        rows.sort(
            key=lambda r: (
                r["dataset"],
                r["size"],
                r["model"],
                r["variant"] != "base",
                r["variant"],
            )
        )

        def seeds_of(dirs: Sequence[Path]) -> dict[int, Path]:
            return {int(read_json(d / "test_metrics.json")["seed"]): d for d in dirs}

        for r in rows:
            key = (r["dataset"], r["size"], r["model"], r["variant"])
            base_key = (*key[:3], "base")
            if r["variant"] == "base" or base_key not in groups:
                continue
            mine_s, base_s = seeds_of(groups[key]), seeds_of(groups[base_key])
            common = sorted(set(mine_s) & set(base_s))
            if not common:
                continue
            # compare ensembles over the same seeds (a finished AR seed without its base twin
            # would otherwise bias the comparison)
            test = tests[r["dataset"]]
            mine = per_query(
                ensemble([read_json(mine_s[k] / "test_run.json") for k in common]), test, MEASURES
            )
            base = per_query(
                ensemble([read_json(base_s[k] / "test_run.json") for k in common]), test, MEASURES
            )
            r["seeds compared"] = len(common)
            for m, label in (("RR@10", "MRR@10"), ("AP", "MAP")):
                t = paired_test(mine[m], base[m], test="t")
                r[f"{label} diff"] = t.mean_diff
                r[f"{label} p"] = t.pvalue
        bm25 = []
        for test in tests.values():
            means = mean_values(per_query(_candidate_run(test), test, MEASURES))
            bm25.append({"dataset": test.name, "MRR@10": means["RR@10"], "MAP": means["AP"]})
        summary = {"rows": rows, "bm25": bm25, "chosen_lambda_mu": chosen, "plan": p.to_dict()}
        write_json(self.out_dir / "results.json", summary)
        self._figures(rows, groups)
        self._markdown(summary)
        return summary

    def _figures(
        self, rows: list[dict[str, Any]], groups: dict[tuple[str, int, str, str], list[Path]]
    ) -> None:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:  # pragma: no cover - matplotlib is a dependency
            return
        main = [r for r in rows if r["variant"] == "base" or r["variant"].startswith("ar-all")]
        for ds in sorted({r["dataset"] for r in main}):
            fig, ax = plt.subplots(figsize=(5, 3.5))
            for model in sorted({r["model"] for r in main}):
                for kind in ("base", "ar"):
                    pts = sorted(
                        (r["size"], r["MRR@10"])
                        for r in main
                        if r["dataset"] == ds
                        and r["model"] == model
                        and (r["variant"] == "base") == (kind == "base")
                    )
                    if pts:
                        ax.plot(
                            *zip(*pts, strict=True),
                            marker="o",
                            ls="-" if kind == "ar" else "--",
                            label=f"{model} {kind}",
                        )
            ax.set_xscale("log")
            ax.set_xlabel("training queries")
            ax.set_ylabel("MRR@10 (ensemble)")
            ax.set_title(f"Fig. 1 analogue: {ds}")
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(self.out_dir / f"fig1_{_slug(ds)}.png", dpi=120)
            plt.close(fig)
        # Fig. 2: training curves of seed 0 at the largest size run for each model
        for (ds, size, model, variant), dirs in groups.items():
            if variant != "base":
                continue
            ar_key = next(
                (k for k in groups if k[:3] == (ds, size, model) and k[3].startswith("ar-all")),
                None,
            )
            if ar_key is None or size != max(k[1] for k in groups if k[0] == ds):
                continue
            fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.2))
            for label, d in (("base", dirs[0]), ("AR", groups[ar_key][0])):
                log = _read_log(d / "log.jsonl")
                steps = [r["step"] for r in log]
                a1.plot(steps, _smooth([r["base_loss"] for r in log]), label=label)
                ev = [(r["step"], r["dev_mrr@10"]) for r in log if "dev_mrr@10" in r]
                if ev:
                    a2.plot(*zip(*ev, strict=True), marker="o", label=label)
            a1.set_xlabel("step")
            a1.set_ylabel("hinge loss (no AR term)")
            a2.set_xlabel("step")
            a2.set_ylabel("dev MRR@10")
            a1.legend()
            a2.legend()
            fig.suptitle(f"Fig. 2 analogue: {model}, {ds}, {size} queries")
            fig.tight_layout()
            fig.savefig(self.out_dir / f"fig2_{_slug(ds)}_{model}.png", dpi=120)
            plt.close(fig)

    def _markdown(self, summary: dict[str, Any]) -> None:
        rows = summary["rows"]
        main = [r for r in rows if r["variant"] == "base" or r["variant"].startswith("ar-all")]
        abl = [r for r in rows if r not in main]
        cols = [
            "dataset",
            "size",
            "model",
            "variant",
            "seeds",
            "MRR@10",
            "MAP",
            "seeds compared",
            "MRR@10 diff",
            "MRR@10 p",
            "MAP p",
            "MRR@10 per-seed mean",
        ]
        agree_cols = ["dataset", "size", "model", "variant"] + [f"agree {a}" for a in ALL_AXIOMS]
        text = [
            "# Rosset et al. 2019 - axiomatic regularization (reproduction)",
            "",
            "Ensembles average the z-normalized scores of the seeds' models. p: paired t-test "
            "of the AR ensemble against the non-regularized ensemble over test queries, both "
            "ensembles built from the seeds finished for both ('seeds compared'). "
            f"Re-ranking depth {self.plan.test_depth} (BM25 candidates).",
            "",
            "## Figure 1 (MRR@10 / MAP by training-set size)",
            "",
            markdown_table(main, cols),
            "",
            "BM25 (candidate order): "
            + "; ".join(
                f"{b['dataset']}: MRR@10 {b['MRR@10']:.4f}, MAP {b['MAP']:.4f}"
                for b in summary["bm25"]
            ),
        ]
        if abl:
            text += ["", "## Table 2 (add-one-in ablation)", "", markdown_table(abl, cols)]
        text += [
            "",
            "## Do the models follow the perturbation axioms? (test pairs, mean over seeds)",
            "",
            "Fraction of 200 (query, candidate) test pairs where delta * (s(d) - s(d')) > 0.",
            "",
            markdown_table(rows, agree_cols),
        ]
        text += [
            "",
            "lambda, mu per (dataset, size, model): "
            + ", ".join(f"{k}: {v}" for k, v in summary["chosen_lambda_mu"].items()),
        ]
        (self.out_dir / "summary.md").write_text("\n".join(text) + "\n", encoding="utf-8")


def _mean_key(dirs: Sequence[Path], axiom: str) -> float | None:
    vals = [read_json(d / "test_metrics.json").get("agreement", {}).get(axiom) for d in dirs]
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def _candidate_run(ds: Dataset) -> Run:
    return {
        q: {d: float(len(c) - i) for i, d in enumerate(c)} for q, c in (ds.candidates or {}).items()
    }


def _read_log(path: Path) -> list[dict[str, Any]]:
    from axiomatic.training.trainer import _read_log as rl

    return rl(path)


def _smooth(xs: list[float], w: int = 10) -> list[float]:
    out, acc = [], 0.0
    for i, x in enumerate(xs):
        acc += x
        if i >= w:
            acc -= xs[i - w]
        out.append(acc / min(i + 1, w))
    return out


def _plain(d: Any) -> Any:
    """Plan dict -> TOML-writable values (tuples to lists, None dropped by the writer)."""
    if isinstance(d, dict):
        return {k: _plain(v) for k, v in d.items()}
    if isinstance(d, (list, tuple)):
        return [_plain(v) for v in d]
    return d


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

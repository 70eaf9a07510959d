"""The compare-training units' common ground: their folders and settings, the data, the
grid point each (start, size, method) selects on dev and its test runs (the runner,
:class:`~axiomatic.experiments.compare_training.run.CompareTraining`, trains them)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from axiomatic.experiments.common import load_split, nested_subsets, read_json, write_json
from axiomatic.experiments.compare_training.plan import (
    ALL,
    DIAGNOSE_SEP,
    ComparePlan,
    point_name,
    size_name,
    slug,
    train_config,
)
from axiomatic.experiments.engine import Runner
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
    files_fingerprint,
    inference_dtype_settings,
)


class CompareUnits(Runner):
    """Base of :class:`~axiomatic.experiments.compare_training.run.CompareTraining`: where
    each unit lives, what determines it, and which finished units the report reads."""

    plan: ComparePlan

    # ------------------------------------------------------------------ folders
    def unit_dir(self, start: str, size: str, method: str, point: Mapping[str, Any],
                 seed: int) -> Path:  # fmt: skip
        return (
            self.out_dir / "runs" / start / f"n{size}" / method / point_name(dict(point))
            / f"seed{seed}"
        )  # fmt: skip

    def start_dir(self, start: str, seed: int) -> Path:
        return self.out_dir / "runs" / start / "start" / f"seed{seed}"

    def settings(self, start: str, size: str, method: str, point: Mapping[str, Any],
                 seed: int) -> dict[str, Any]:  # fmt: skip
        """Every setting that determines a training unit (its trainer configuration with the
        instances named by content, not by this folder)."""
        p = self.plan
        cfg = train_config(p, start, method, dict(point), seed).to_dict()
        extra = self._ares_settings(seed, start) if method == "ares" else None
        return self.record_settings(
            "train", "depth", "dev_queries",
            start=start, size=size, method=method, point=dict(point), seed=seed,
            weak_axiom=p.weak_axiom if method == "rennings" else None,
            embeddings=p.embeddings, ares=extra, train_config=cfg,
            **inference_dtype_settings(start),
        )  # fmt: skip

    def ares_dir(self, start: str, seed: int) -> Path:
        """The ARES pre-training folder of ``start`` and ``seed`` (the cross-encoder's keeps
        its original name)."""
        from axiomatic.models.io import is_word_model

        p = self.plan
        prefix = f"{start}-" if is_word_model(start) else ""
        return self.out_dir / "ares" / f"{prefix}{p.ares_variant}-seed{seed}"

    def _ares_settings(self, seed: int, start: str = "cross-encoder") -> dict[str, Any]:
        from axiomatic.models.io import is_word_model

        p = self.plan
        if is_word_model(start):  # pre-trained from the start itself, hinge only
            return {
                "start": start,
                "model_config": dict(p.model_config.get(start, {})),
                "embeddings": p.embeddings,
                "collections": list(p.ares_collections),
                "variant": p.ares_variant,
                "steps": p.ares_steps,
                "batch_size": p.ares_batch_size,
                "lr": p.ares_lr,
                "eval_every": p.ares_eval_every,
                "mlm_weight": 0.0,
                "seed": seed,
            }
        mc = p.model_config.get("cross-encoder", {})
        return {
            "collections": list(p.ares_collections),
            "variant": p.ares_variant,
            "steps": p.ares_steps,
            "batch_size": p.ares_batch_size,
            "lr": p.ares_lr,
            "eval_every": p.ares_eval_every,
            "max_length": int(mc.get("max_length", 128)),
            "head": str(mc.get("head", "mlp")),
            "seed": seed,
        }

    # ------------------------------------------------------------------ data
    def data(self) -> dict[str, Any]:
        """The training pool and dev split, the training subsets per size, the test sets and
        the vocabulary texts (the whole training collection)."""
        from axiomatic.training.samplers import split_dev

        p = self.plan
        full = load_split(p.train, p.data_root, p.depth)
        pool, dev = split_dev(full, p.dev_queries, seed=0)
        qids = sorted(pool.queries)
        numbered = [int(s) for s in p.sizes if size_name(s) != ALL]
        subsets = nested_subsets(qids, numbered, seed=0)
        trains: dict[str, Any] = {}
        for s in p.sizes:
            name = size_name(s)
            trains[name] = pool if name == ALL else pool.subset(subsets[int(s)], split="train")
        texts = [d.text for d in full.documents.values()]
        return {"trains": trains, "dev": dev, "tests": self.test_sets(), "texts": texts}

    def test_sets(self) -> dict[str, Any]:
        p = self.plan
        tests = {}
        for name in p.test_sets:
            ds = load_split(name, p.data_root, p.test_depth)
            if p.test_queries is not None:
                judged = sorted(q for q in ds.queries if ds.judged(q))
                ds = ds.subset(judged[: p.test_queries])
            tests[name] = ds
        return tests

    # ------------------------------------------------------------------ selection
    def unit_results(self, start: str, size: str, method: str,
                point: Mapping[str, Any]) -> list[dict[str, Any]]:  # fmt: skip
        """The finished, matching training units of one grid point (one per seed)."""
        out = []
        for seed in self.plan.seeds:
            unit = self.unit_dir(start, size, method, point, seed)
            done = unit / "result.json"
            if done.is_file() and self.store.matches(
                unit, self._report_settings(start, size, method, point, seed)
            ):
                out.append(read_json(done))
        return out

    def _report_settings(self, start: str, size: str, method: str, point: Mapping[str, Any],
                         seed: int) -> dict[str, Any]:  # fmt: skip
        rec = self.settings(start, size, method, point, seed)
        return {k: v for k, v in rec.items() if k != "train_config"}

    def select(self, start: str, size: str, method: str) -> dict[str, Any] | None:
        """The grid point with the best mean best-dev RR@10 over the seeds finished at every
        point (dev only; a tie goes to the first in the grid)."""
        best, best_pt = -math.inf, None
        grid = self.plan.grid(start, method)
        done = [(pt, self.unit_results(start, size, method, pt)) for pt in grid]
        seeds = set.intersection(*({r["seed"] for r in rows} for _, rows in done))
        for pt, rows in done:
            vals = [r["best_dev"] for r in rows if r["seed"] in seeds and r["best_dev"] is not None]
            if vals and sum(vals) / len(vals) > best:
                best, best_pt = sum(vals) / len(vals), pt
        return best_pt

    # ------------------------------------------------------------------ test runs
    def _score_selected(self, start: str, size: str, method: str, tests: Mapping[str, Any]) -> None:
        """Once every unit of (start, size, method) is finished, the test runs of the point
        it selects: a run cut short (a time limit) keeps what it finished, scored."""
        p = self.plan
        grid = p.grid(start, method)
        if any(len(self.unit_results(start, size, method, pt)) < len(p.seeds) for pt in grid):
            return
        chosen = self.select(start, size, method)
        if chosen is None:
            return
        for r in self.unit_results(start, size, method, chosen):
            unit = self.unit_dir(start, size, method, chosen, r["seed"])
            self._score_tests(unit, tests, start)

    def _test_record(self, name: str, ds: Any, model_fp: str, **extra: Any) -> UnitRecord:
        p = self.plan
        return UnitRecord(
            self.record_settings(
                "test_depth", "test_queries", collection=name, part="test run", **extra
            ),
            {"test data": dataset_fingerprint(ds, p.test_depth), "model": model_fp},
        )

    def _score_tests(self, unit: Path, tests: Mapping[str, Any], start: str) -> None:
        from axiomatic.models.io import load_model
        from axiomatic.models.scoring import score_candidates

        model = None
        model_fp = files_fingerprint(unit / "model")
        for name, ds in tests.items():
            s = slug(name)
            record = self._test_record(name, ds, model_fp, **inference_dtype_settings(start))
            state = self.store.enter(
                unit / "test", record, done=f"{s}.json", record_name=f"{s}.unit.json",
                owns_folder=False,
            )  # fmt: skip
            if state == "done":
                continue
            model = model or load_model(unit / "model", device="auto")
            run = score_candidates(model, ds, depth=self.plan.test_depth)
            write_json(unit / "test" / f"{s}.json", run)

    # ------------------------------------------------------------------ diagnosis
    def diagnosis_models(self, start: str, size: str) -> dict[str, Path | None]:
        """Name -> saved model folder (``None``: the untrained start) of the selected units."""
        p = self.plan
        out: dict[str, Path | None] = {f"start{DIAGNOSE_SEP}{s}": None for s in p.seeds}
        for method in p.methods[start]:
            pt = self.select(start, size, method)
            if pt is None:
                continue
            for r in self.unit_results(start, size, method, pt):
                out[f"{method}{DIAGNOSE_SEP}{r['seed']}"] = (
                    self.unit_dir(start, size, method, pt, r["seed"]) / "model"
                )
        return out


__all__ = ["CompareUnits"]

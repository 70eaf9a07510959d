"""The compare-training runner: training units, test runs, the untrained starts, diagnosis.

Units (cached, fingerprinted, resumable; :mod:`axiomatic.experiments.units`): one training run
per (start, training size, method, grid point, seed) under ``runs/<start>/n<size>/``; the test
runs of the selected point inside it (``test/``); the untrained start per seed
(``runs/<start>/start/``); the Rennings instances mined per size (``instances/n<size>``); ARES
pre-training per seed (``ares/``); the diagnosis per start and size (``diagnosis/``). Their
folders, settings, selection and test runs are :mod:`.units`. The report is a pure function
of the finished units (:mod:`.report`).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from axiomatic.experiments.common import (
    load_split,
    on_device,
    read_json,
    write_json,
)
from axiomatic.experiments.compare_training.cost import device, estimate, peak_memory
from axiomatic.experiments.compare_training.plan import (
    BASELINE,
    DIAGNOSE_SEP,
    DOCS_PER_PAIR,
    ComparePlan,
    point_name,
    slug,
    train_config,
)
from axiomatic.experiments.compare_training.units import CompareUnits
from axiomatic.experiments.compare_training.validation import check_plan
from axiomatic.experiments.engine import estimate_line, register_experiment
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
    files_fingerprint,
    fingerprint,
    inference_dtype_settings,
    machine,
)

UNIT_CODE = 2
"""Version of how a unit is computed (in every unit's record): 2 adds training sizes, grid
points and the weight-change manipulation check."""


@register_experiment(
    "compare-training",
    summary="every axiomatic training method on the same data, start, budget and seeds",
    paper="the papers above, compared on equal terms",
    dask=False,
    in_process="its units are trained one after another by the calling process",
)
class CompareTraining(CompareUnits):
    """Runner (see the package docstring). ``run()`` does everything not done yet."""

    plan_class = ComparePlan
    unit_done = "result.json"
    unit_code = UNIT_CODE
    plan: ComparePlan

    # ------------------------------------------------------------------ plan
    @classmethod
    def check_plan(cls, plan: Any) -> None:
        p: ComparePlan = plan
        check_plan(p)
        for s in p.starts:  # a bad method setting fails here, before any work
            for m in p.methods[s]:
                for pt in p.grid(s, m):
                    train_config(p, s, m, pt, p.seeds[0])

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        p: ComparePlan = plan
        steps = p.examples // p.batch_size
        runs = [
            (s, steps * DOCS_PER_PAIR[m] // 2)
            for s in p.starts
            for m in p.methods[s]
            for _ in p.grid(s, m)
            for _ in p.seeds
            for _ in p.sizes
        ]
        cell = p.primary_cell()
        return [
            f"  {p.train} (dev: {p.dev_queries} held-out queries; training sizes "
            f"{p.size_names()}) -> {', '.join(p.test_sets)}",
            *(
                f"  {s}: {', '.join(p.methods[s])}; {len(p.grid(s, p.methods[s][0]))} grid "
                "points per method"
                for s in p.starts
            ),
            f"  {p.examples} examples ({steps} steps of {p.batch_size}), seeds {p.seeds}",
            f"  primary comparison: {cell['start']}, {cell['size']} training queries, "
            f"{cell['collection']}, {cell['measure']}",
            estimate_line(runs).split(";")[0] + f"; estimated time: {estimate(p)}",
        ]

    # ------------------------------------------------------------------ starts
    def _mine_instances(self, train: Any, size: str) -> Path:
        from axiomatic.diagnose.mining import mine

        p = self.plan
        out = self.out_dir / "instances" / f"n{size}"
        mine(
            train, p.weak_axiom, out, depth=p.depth, artificial=False, progress=False,
            analyzer=p.analyzer, overwrite=self.overwrite,
        )  # fmt: skip
        return out

    def build_start(self, start: str, seed: int, texts: Sequence[str]) -> Any:
        """The untrained start (a word-level model's vocabulary and embeddings from ``texts``,
        the training collection)."""
        import copy

        from axiomatic.models import build_model
        from axiomatic.models.io import is_word_model

        # a word-level start trains its word2vec embeddings once per seed and process
        cache: dict[tuple[str, int], Any] = self.__dict__.setdefault("_built", {})
        key = (start, seed)
        if key not in cache:
            config = dict(self.plan.model_config.get(start, {}))
            if is_word_model(start):
                cache[key] = build_model(
                    start, texts=texts, seed=seed, embeddings=self.plan.embeddings, **config
                )
            else:
                return build_model(start, seed=seed, **config)
        return copy.deepcopy(cache[key])

    def _pretrain_ares(
        self, start: str, seed: int, dev: Any, texts: Sequence[str]
    ) -> dict[str, Any]:
        """ARES pre-training of ``start`` for ``seed`` (cached; its folder refuses other
        settings itself), checkpoint selected on the shared dev queries: the cross-encoder
        with MLM beside the hinge, a word-level start from its untrained self (the same
        embeddings as every other method's) with the hinge alone."""
        from axiomatic.ares.pipeline import load_collection, prepare
        from axiomatic.ares.pretrain import pretrain_ares
        from axiomatic.models.io import is_word_model

        p = self.plan
        a = self._ares_settings(seed, start)
        prepared = [
            prepare(load_collection(c, p.data_root), cache_dir=self.out_dir / "ares" / "cache")
            for c in p.ares_collections
        ]
        t = time.perf_counter()
        folder = self.ares_dir(start, seed)
        with peak_memory(device()) as mem:
            if is_word_model(start):
                s = pretrain_ares(
                    prepared, folder, p.ares_variant, dev=dev, steps=a["steps"],
                    batch_size=a["batch_size"], lr=a["lr"], eval_every=a["eval_every"],
                    checkpoint_every=max(1, a["eval_every"]), seed=seed, mlm_weight=0.0,
                    model=self.build_start(start, seed, texts),
                )  # fmt: skip
            else:
                s = pretrain_ares(
                    prepared, folder, p.ares_variant, dev=dev, steps=a["steps"],
                    batch_size=a["batch_size"], lr=a["lr"], max_length=a["max_length"],
                    eval_every=a["eval_every"], checkpoint_every=max(1, a["eval_every"]),
                    seed=seed, head=a["head"],
                )  # fmt: skip
        for name in ("checkpoint.pt", "best.pt"):  # the encoder is exported
            (folder / "train" / name).unlink(missing_ok=True)
        cost = folder / "cost.json"
        if not cost.is_file():  # measured when it ran (a cached stage is not re-measured)
            write_json(
                cost,
                {"seconds": time.perf_counter() - t, "peak_mib": mem["peak_mib"],
                 "memory": mem.get("kind"), "examples": a["steps"] * a["batch_size"]},
            )  # fmt: skip
        return dict(s)

    # ------------------------------------------------------------------ run
    def compute(self) -> None:
        from axiomatic.data.fingerprint import hash_fields
        from axiomatic.models.io import is_word_model
        from axiomatic.training.trainer import set_training_threads

        p = self.plan
        set_training_threads(p.threads)
        data = self.data()
        trains, dev, tests, texts = data["trains"], data["dev"], data["tests"], data["texts"]
        methods = {m for s in p.starts for m in p.methods[s]}
        instances: dict[str, Path] = {}
        if "rennings" in methods:
            from axiomatic.data.instances import manifest_path

            for size, train in trains.items():
                instances[size] = self._mine_instances(train, size)
        vocab_fp = hash_fields([t] for t in texts)
        dev_fp = "none" if dev is None else dataset_fingerprint(dev, p.depth)
        planned = []
        for start in p.starts:
            for size, train in trains.items():
                inputs = {"training data": dataset_fingerprint(train, p.depth), "dev data": dev_fp}
                if is_word_model(start):
                    inputs["vocabulary texts"] = vocab_fp
                for method in p.methods[start]:
                    unit_inputs = dict(inputs)
                    if method == "rennings":
                        manifest = read_json(manifest_path(instances[size]))
                        unit_inputs["training instances"] = fingerprint(
                            {"config": manifest.get("config")}
                        )
                    if method == "ares":
                        unit_inputs["ares collections"] = hash_fields(
                            [[c] for c in p.ares_collections]
                        )
                    for point in p.grid(start, method):
                        for seed in p.seeds:
                            rec = UnitRecord(
                                self.settings(start, size, method, point, seed), unit_inputs
                            )
                            planned.append((start, size, method, point, seed, rec))
        # every unit is compared with its record before any work: a unit of other settings or
        # data is refused here (or cleared with overwrite)
        for start, size, method, point, seed, rec in planned:
            self.store.check(self.unit_dir(start, size, method, point, seed), rec)
        self.write_config()
        for start in p.starts:  # the untrained starts first (cheap; every table needs them)
            for seed in p.seeds:
                self._score_start(start, seed, tests, texts)
        ares_starts: dict[tuple[str, int], dict[str, Any]] = {}
        warm: set[str] = set()
        total = len(planned)
        for i, (start, size, method, point, seed, rec) in enumerate(planned, 1):
            unit = self.unit_dir(start, size, method, point, seed)
            if self.store.enter(unit, rec) == "done":
                continue
            if start not in warm:  # one-time costs (weights from disk, kernels) not charged
                warm.add(start)
                self._warm_up(start, seed, trains[size], dev, texts)
            if method == "ares" and (start, seed) not in ares_starts:
                ares_starts[start, seed] = self._pretrain_ares(start, seed, dev, texts)
            self.note(f"unit {i}/{total}: {start} n={size} {method} {point_name(point)} "
                      f"seed={seed}")  # fmt: skip
            self._train_unit(
                start, size, method, point, seed, unit, trains[size], dev,
                instances.get(size), ares_starts, texts,
            )  # fmt: skip
            self._score_selected(start, size, method, tests)
        # the untrained starts and the test runs of the point each (start, size, method)
        # selects on dev
        for start in p.starts:
            for size in trains:
                for method in p.methods[start]:
                    chosen = self.select(start, size, method)
                    if chosen is None:
                        continue
                    for r in self.unit_results(start, size, method, chosen):
                        unit = self.unit_dir(start, size, method, chosen, r["seed"])
                        self._score_tests(unit, tests, start)
        self._diagnose(texts)

    # ------------------------------------------------------------------ report
    def results(self) -> dict[str, Any]:
        from .report import build_results

        return build_results(self)

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        from .report import CURVES, curves_figure

        fig = curves_figure(results)
        return {} if fig is None else {CURVES: fig}

    def summary(self, results: Mapping[str, Any]) -> str:
        from .report import CURVES, has_curves, render_markdown

        have = has_curves(results)
        return render_markdown(self.plan, results, CURVES if have else None)

    def docs_page(self, results: Mapping[str, Any], page: Path) -> str:
        from .report import has_curves, render_markdown

        have = has_curves(results)
        figure = f"img/{self.docs_figure('', page)}"
        return render_markdown(self.plan, results, figure if have else None)

    def docs_figure(self, name: str, page: Path) -> str:
        return f"{page.stem}_learning_curves.png"

    def _warm_up(self, start: str, seed: int, train: Any, dev: Any, texts: Sequence[str]) -> None:
        """One untimed plain step of the start in a throwaway folder before the first timed
        run: one-time costs (weights from disk, imports, kernels) are charged to no method."""
        import shutil
        import tempfile

        from axiomatic.training.trainer import Trainer

        p = self.plan
        cfg = train_config(p, start, BASELINE, p.grid(start, BASELINE)[0], seed)
        cfg = dataclasses.replace(cfg, steps=1, eval_every=1, checkpoint_every=1, patience=0)
        one = None if dev is None or not dev.queries else dev.subset(sorted(dev.queries)[:1])
        folder = Path(tempfile.mkdtemp(prefix="warm-up-", dir=self.out_dir))
        try:
            Trainer(self.build_start(start, seed, texts), cfg, folder, train, one).fit(False)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _train_unit(
        self, start: str, size: str, method: str, point: Mapping[str, Any], seed: int,
        unit: Path, train: Any, dev: Any, instances: Path | None,
        ares_starts: Mapping[tuple[str, int], Mapping[str, Any]], texts: Sequence[str],
    ) -> None:  # fmt: skip
        from axiomatic.models.io import load_model
        from axiomatic.training.trainer import Trainer

        p = self.plan
        cfg = train_config(p, start, method, dict(point), seed, str(instances or ""))
        if method == "ares":
            model = load_model(str(ares_starts[start, seed]["encoder"]), device="auto")
        else:
            model = self.build_start(start, seed, texts)
        initial = {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}
        t = time.perf_counter()
        with peak_memory(device()) as mem:
            res = Trainer(model, cfg, unit, train, dev).fit(resume=True)
        seconds = time.perf_counter() - t
        examples = int(res.steps) * p.batch_size
        selected = load_model(unit / "model", device="cpu")
        change = weight_change(initial, selected.state_dict())
        result = {
            "start": start,
            "size": size,
            "method": method,
            "point": dict(point),
            "lr": float(point["lr"]),
            "seed": seed,
            "training_queries": len(train.queries),
            "best_step": res.best_step,
            "best_dev": res.best_dev,
            "steps": res.steps,
            "stopped_early": res.stopped_early,
            "examples_seen": examples,
            "best_examples": None if res.best_step is None else res.best_step * p.batch_size,
            "weight_change": change,
            "seconds": seconds,
            "seconds_per_1k_examples": 1000.0 * seconds / examples if examples else None,
            "peak_mib": mem["peak_mib"],
            "memory": mem.get("kind"),
            "machine": machine(),
        }
        if method == "ares":
            cost = read_json(self.ares_dir(start, seed) / "cost.json")
            result["pretrain"] = cost
        write_json(unit / "result.json", result)
        for name in ("checkpoint.pt", "best.pt"):  # the best weights are in model/
            (unit / name).unlink(missing_ok=True)
        dev_text = res.best_dev if res.best_dev is None else round(res.best_dev, 4)
        self.note(
            f"{start} n={size} {method} {point_name(dict(point))} seed={seed}: best dev RR@10 "
            f"{dev_text} at step {res.best_step}, weights moved "
            f"{change['relative']:.3g} of their norm ({seconds:.0f}s)"
        )

    def _score_start(
        self, start: str, seed: int, tests: Mapping[str, Any], texts: Sequence[str]
    ) -> None:
        """The untrained start's test runs (its seed decides the random initialization)."""
        from axiomatic.models.scoring import score_candidates

        folder = self.start_dir(start, seed)
        model = None
        for name, ds in tests.items():
            s = slug(name)
            settings = {"start": start, "seed": seed, "embeddings": self.plan.embeddings,
                        "model_config": dict(self.plan.model_config.get(start, {})),
                        **inference_dtype_settings(start)}  # fmt: skip
            record = self._test_record(name, ds, "untrained start", **settings)
            state = self.store.enter(
                folder, record, done=f"{s}.json", record_name=f"{s}.unit.json",
                owns_folder=False,
            )  # fmt: skip
            if state == "done":
                continue
            model = model or on_device(self.build_start(start, seed, texts))
            model.eval()
            write_json(folder / f"{s}.json", score_candidates(model, ds, self.plan.test_depth))

    # ------------------------------------------------------------------ diagnosis
    def _diagnose(self, texts: Sequence[str]) -> None:
        from axiomatic.experiments.diagnosis import diagnose_models
        from axiomatic.models.io import load_model

        p = self.plan
        ds = load_split(p.diagnose_set, p.data_root, p.diagnose_depth)
        test = ds.subset(sorted(ds.queries)[: p.diagnose_queries])
        if test.candidates is not None:
            test.candidates = {q: c[: p.diagnose_depth] for q, c in test.candidates.items()}
        for start in p.starts:
            for size in p.size_names():
                folder = self.out_dir / "diagnosis" / start / f"n{size}"
                paths = self.diagnosis_models(start, size)
                record = UnitRecord(
                    self.record_settings(
                        *("diagnose_set", "diagnose_queries", "diagnose_depth"),
                        *("diagnose_axioms", "diagnose_analyzer", "agreement_pairs"),
                        part="diagnosis", start=start, size=size, models=sorted(paths),
                        embeddings=p.embeddings,
                        model_config=dict(p.model_config.get(start, {})),
                        **inference_dtype_settings(start),
                    ),
                    {
                        "test data": dataset_fingerprint(test, p.diagnose_depth),
                        **{k: files_fingerprint(v) for k, v in paths.items() if v is not None},
                    },
                )  # fmt: skip
                state = self.store.enter(
                    folder, record, done="diagnosis.json", record_name="diagnosis.unit.json",
                    owns_folder=False, also=("instances", "mcnemar.csv"),
                )  # fmt: skip
                if state == "done":
                    continue
                models = {}
                for name, path in paths.items():
                    if path is None:
                        seed = int(name.rsplit(DIAGNOSE_SEP, 1)[1])
                        models[name] = on_device(self.build_start(start, seed, texts))
                    else:
                        models[name] = load_model(path, device="auto")
                    models[name].eval()
                diag = diagnose_models(
                    test, models, folder, p.diagnose_axioms, p.diagnose_depth,
                    p.agreement_pairs, analyzer=p.diagnose_analyzer,
                )  # fmt: skip
                write_json(folder / "diagnosis.json", diag)


def weight_change(initial: Mapping[str, Any], final: Mapping[str, Any]) -> dict[str, float]:
    """How far training moved the weights (the manipulation check): over the floating-point
    tensors both state dicts hold with one shape, ``relative`` = ||w - w0|| / ||w0|| (L2 over
    all of them), ``max_abs`` = the largest single change. 0 and 0 for the start itself."""
    import torch

    diff2 = 0.0
    base2 = 0.0
    max_abs = 0.0
    for k, w0 in initial.items():
        w = final.get(k)
        if w is None or not torch.is_floating_point(w0) or tuple(w.shape) != tuple(w0.shape):
            continue
        a = w0.detach().double().cpu()
        d = w.detach().double().cpu() - a
        diff2 += float((d * d).sum())
        base2 += float((a * a).sum())
        if d.numel():
            max_abs = max(max_abs, float(d.abs().max()))
    rel = math.sqrt(diff2) / math.sqrt(base2) if base2 > 0 else (0.0 if diff2 == 0 else math.inf)
    return {"relative": rel, "max_abs": max_abs}

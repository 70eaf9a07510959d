"""ACRank (Bo et al. 2023): data, units, diagnosis and their computation."""

from __future__ import annotations

import time
from dataclasses import asdict
from functools import cached_property
from pathlib import Path
from typing import Any

from axiomatic.data.records import Dataset
from axiomatic.experiments.acrank2023.plan import (
    LABELS,
    MEASURES,
    UNIT_CODE,
    ACRankPlan,
    SettingPlan,
    Unit,
    _cap_queries,
    _Data,
    _slug,
    row_unit,
)
from axiomatic.experiments.common import (
    load_split,
    mean_values,
    per_query,
    read_json,
    write_json,
)
from axiomatic.experiments.diagnosis import ROSSET_AXIOMS
from axiomatic.experiments.engine import Runner
from axiomatic.experiments.schedule import run_runner_units
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
    fingerprint,
    inference_dtype_settings,
)


class ACRankRun(Runner):
    """The computing half of :class:`~axiomatic.experiments.acrank2023.report.ACRank2023`:
    data, the units of every row, the diagnosis and :meth:`compute`."""

    unit_code = UNIT_CODE
    plan_class = ACRankPlan
    plan: ACRankPlan

    @cached_property
    def _data_cache(self) -> dict[str, _Data]:
        return {}  # setting name -> its data, loaded once

    @classmethod
    def check_plan(cls, plan: Any) -> None:
        from axiomatic.perturb.acrank import check_probability

        check_probability(plan.p, "plan p")
        for sp in plan.settings:
            for r in [*sp.rows, *sp.ablation_rows, *(sp.zero_shot_rows or []), *plan.diagnose_rows]:
                row_unit(r, plan.p)
            for pv in sp.p_sweep:
                check_probability(pv, f"settings {sp.name}: p_sweep value")

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        ap: ACRankPlan = plan
        a = cls(ap, out, lambda _m: None)
        n = sum(len(a.units_of(sp)) for sp in ap.settings) * len(ap.seeds)
        return [
            f"  settings {', '.join(sp.name for sp in ap.settings)}; seeds {ap.seeds}",
            f"  training runs: {n}; time: see docs/training.md",
        ]

    # ------------------------------------------------------------------ data
    def _data(self, sp: SettingPlan) -> _Data:
        if sp.name in self._data_cache:
            return self._data_cache[sp.name]
        p = self.plan
        train_all = load_split(sp.train, p.data_root, p.train_depth)
        test_all = load_split(sp.test, p.data_root, p.test_depth)
        train = _cap_queries(train_all, sp.train_queries, 0, "train")
        test = _cap_queries(test_all, sp.test_queries, 1, "test")
        if test.candidates is not None:
            test.candidates = {q: c[: p.test_depth] for q, c in test.candidates.items()}
        zero = {}
        for name in sp.zero_shot:
            ds = _cap_queries(
                load_split(name, p.data_root, p.zero_shot_depth), sp.zero_shot_queries, 2, "test"
            )
            if ds.candidates is not None:
                ds.candidates = {q: c[: p.zero_shot_depth] for q, c in ds.candidates.items()}
            zero[name] = ds
        lang = str(train_all.doc_language or train_all.language or "en")
        if lang.startswith("zh"):
            from axiomatic.perturb.acrank import require_jieba

            require_jieba()  # a Chinese setting without jieba fails before any training
        texts = [d.text for d in train_all.documents.values()]
        from axiomatic.data.fingerprint import hash_fields

        fps = {
            "train data": dataset_fingerprint(train, p.train_depth),
            "test data": dataset_fingerprint(test, p.test_depth),
            "vocabulary texts": hash_fields([t] for t in texts),
        }
        data = _Data(train, test, zero, texts, lang, fps)
        self._data_cache[sp.name] = data
        return data

    # ------------------------------------------------------------------ one unit
    def _unit_dir(self, sp: SettingPlan, unit: Unit, seed: int) -> Path:
        return self.out_dir / "runs" / sp.name / unit.slug / f"seed{seed}"

    def _build(self, unit: Unit, data: _Data, seed: int, max_length: int) -> Any:
        from axiomatic.models import build_model

        p = self.plan
        if unit.model in ("knrm", "conv-knrm"):
            from axiomatic.models.vocab import model_analyzer

            return build_model(
                unit.model,
                texts=data.vocab_texts,
                seed=seed,
                # jieba words for Chinese (the paper's KNRM used segmented Baidu-Baike vectors)
                analyzer=model_analyzer("zh" if data.language.startswith("zh") else "en"),
                embeddings=p.embeddings,
                **p.word_model_config.get(unit.model, {}),
            )
        if unit.model == "cross-encoder":
            return build_model("cross-encoder", seed=seed, max_length=max_length)
        signal = "cls" if unit.model == "acrank-cls" else "kernel"
        extra: dict[str, Any] = dict(p.acrank_config)
        if p.encoder_path:
            extra["encoder_path"] = p.encoder_path
        return build_model("acrank", seed=seed, max_length=max_length, signal=signal, **extra)

    def _train_config(self, sp: SettingPlan, unit: Unit, seed: int) -> Any:
        """The trainer configuration of one unit."""
        from axiomatic.training.config import TrainConfig

        p = self.plan
        word = unit.model in ("knrm", "conv-knrm")
        max_length = sp.max_length or p.max_length
        rule = unit.rule if unit.rule != "none" else "none"
        aug = f"acrank(rule='{rule}', p={unit.p:g}, loss={unit.loss}, negatives={p.negatives})"
        steps = p.steps_per_model.get(unit.model, p.steps)
        return TrainConfig(
            dataset=sp.train,
            model="acrank" if unit.model.startswith("acrank") else unit.model,
            model_config={} if word else {"max_length": max_length},
            loss="contrastive" if unit.loss == "infonce" else "hinge",
            augmentation=aug,
            lr=p.lr_word if word else p.lr,
            batch_size=p.batch_size,
            steps=steps,
            eval_every=max(1, min(p.eval_every, steps)),
            checkpoint_every=max(1, min(p.eval_every, steps)),
            patience=0,
            dev_queries=0,
            candidate_depth=p.train_depth,
            seed=seed,
        )

    def unit_settings(self, sp: SettingPlan, unit: Unit, seed: int) -> dict[str, Any]:
        """Every setting that determines a unit's model and test metrics (its record; no data
        is loaded: the data's content is in :meth:`unit_record`'s inputs)."""
        p = self.plan
        cfg = self._train_config(sp, unit, seed)
        word = unit.model in ("knrm", "conv-knrm")
        acrank = unit.model.startswith("acrank")
        return self.record_settings(
            *("batch_size", "negatives", "train_depth", "test_depth"),
            **{"setting": sp.name, "train": sp.train, "test": sp.test, "seed": seed},
            **{"model": unit.model, "rule": unit.rule, "loss": unit.loss, "p": unit.p},
            **{"steps": cfg.steps, "lr": cfg.lr, "train_config": cfg.to_dict()},
            **{"train_queries": sp.train_queries, "test_queries": sp.test_queries},
            max_length=None if word else sp.max_length or p.max_length,
            embeddings=p.embeddings if word else None,
            word_model_config=dict(p.word_model_config.get(unit.model, {})) if word else None,
            acrank_config=dict(p.acrank_config) if acrank else None,
            encoder_path=p.encoder_path if acrank else None,
            **inference_dtype_settings(unit.model),
        )

    def unit_record(self, sp: SettingPlan, unit: Unit, seed: int) -> UnitRecord:
        """The unit's settings and the fingerprints of its data (loads the setting's data)."""
        fps = self._data(sp).fingerprints
        inputs = {"train data": fps["train data"], "test data": fps["test data"]}
        if unit.model in ("knrm", "conv-knrm"):
            inputs["vocabulary texts"] = fps["vocabulary texts"]
        return UnitRecord(self.unit_settings(sp, unit, seed), inputs)

    def _train_unit(self, sp: SettingPlan, unit: Unit, seed: int) -> dict[str, Any]:
        import torch

        from axiomatic.models.scoring import score_candidates
        from axiomatic.training.trainer import Trainer

        p = self.plan
        d = self._unit_dir(sp, unit, seed)
        done = d / "test_metrics.json"
        if self.store.enter(d, self.unit_record(sp, unit, seed)) == "done":
            return read_json(done)
        data = self._data(sp)
        if p.threads:
            torch.set_num_threads(p.threads)
        t0 = time.perf_counter()
        max_length = sp.max_length or p.max_length
        cfg = self._train_config(sp, unit, seed)
        net = self._build(unit, data, seed, max_length)
        trainer = Trainer(net, cfg, d, data.train, None)
        result = trainer.fit(resume=True)
        stats = trainer.strategy.stats() if hasattr(trainer.strategy, "stats") else {}
        train_s = time.perf_counter() - t0
        out: dict[str, Any] = {
            "setting": sp.name,
            "unit": unit.slug,
            **asdict(unit),
            "seed": seed,
            "n_train_queries": len(data.train.queries),
            "augmentation_stats": stats,
            "train_seconds": round(train_s, 1),
            **result.to_dict(),
        }
        # zero-shot sets are scored later, by _zero_shot_unit, after every setting has trained
        run = score_candidates(net, data.test, depth=p.test_depth)
        write_json(d / f"run_{_slug(sp.test)}.json", run)
        out["test"] = {sp.test: mean_values(per_query(run, data.test, MEASURES))}
        out["score_seconds"] = round(time.perf_counter() - t0 - train_s, 1)
        write_json(done, out)
        # the unit is finished (test_metrics.json): its model/ folder is what later steps use;
        # the checkpoint (weights + Adam state, ~3x the model) is not needed any more
        for name in ("checkpoint.pt", "best.pt"):
            (d / name).unlink(missing_ok=True)
        self.echo(
            f"[acrank2023] {sp.name} {unit.slug} seed={seed}: "
            + "; ".join(
                f"{k}: " + ", ".join(f"{LABELS[m]} {v:.4f}" for m, v in vals.items())
                for k, vals in out["test"].items()
            )
            + f" ({train_s:.0f}s train, {out['score_seconds']:.0f}s scoring)"
        )
        return out

    def _zero_shot_units(self, sp: SettingPlan) -> list[Unit]:
        """The units scored on ``sp.zero_shot`` (all of the setting's, or those of
        ``zero_shot_rows``)."""
        if sp.zero_shot_rows is None:
            return self.units_of(sp)
        units: list[Unit] = []
        for r in sp.zero_shot_rows:
            u = row_unit(r, self.plan.p)
            if u not in units:
                units.append(u)
        return units

    def _zero_shot_unit(self, sp: SettingPlan, unit: Unit, seed: int) -> None:
        """Score a finished unit (its saved ``model/``) on the setting's zero-shot sets at the
        plan's ``zero_shot_depth``.

        Separate from training so that (a) a plan that adds zero-shot rows or changes the depth
        re-uses finished units instead of retraining them, and (b) the zero-shot pass, the most
        expendable part of a tight budget, runs after every setting has trained. The depth is
        recorded in ``test_metrics.json`` (``zero_shot_depth``); a run at another depth (from an
        earlier plan) is kept as ``run_<set>_depth<k>.json`` and no longer reported. So is a
        run of other zero-shot data (``zero_shot_fingerprint``: the set's content after
        ``zero_shot_queries``, and the depth); a run recorded before fingerprints counts as
        current when its depth matches."""
        p = self.plan
        d = self._unit_dir(sp, unit, seed)
        done = d / "test_metrics.json"
        if not sp.zero_shot or not done.exists():
            return
        out = read_json(done)
        depths: dict[str, int] = out.setdefault("zero_shot_depth", {})
        fps: dict[str, str] = out.setdefault("zero_shot_fingerprint", {})
        data = self._data(sp)
        want = {n: self._zero_shot_fingerprint(data.zero_shot[n], unit) for n in sp.zero_shot}
        todo = [
            n
            for n in sp.zero_shot
            if depths.get(n) != p.zero_shot_depth or fps.get(n, want[n]) != want[n]
        ]
        if not todo:
            if any(n not in fps for n in sp.zero_shot):  # recorded before fingerprints
                fps.update({n: want[n] for n in sp.zero_shot if n not in fps})
                write_json(done, out)
            return
        if not (d / "model").is_dir():
            raise FileNotFoundError(
                f"{d / 'model'} is missing: the finished unit {unit.slug} cannot be scored on "
                f"{', '.join(todo)}; delete {d} to retrain it"
            )
        from axiomatic.models import load_model
        from axiomatic.models.scoring import score_candidates

        t0 = time.perf_counter()
        net = load_model(d / "model", device="auto")
        for name in todo:
            f = d / f"run_{_slug(name)}.json"
            if f.exists():  # an earlier plan's run (depth unrecorded before: its longest list)
                old = read_json(f)
                k = depths.get(name) or max((len(v) for v in old.values()), default=0)
                f.replace(d / f"run_{_slug(name)}_depth{k}.json")
            ds = data.zero_shot[name]
            run = score_candidates(net, ds, depth=p.zero_shot_depth)
            write_json(f, run)
            out["test"][name] = mean_values(per_query(run, ds, MEASURES))
            depths[name] = p.zero_shot_depth
            fps[name] = want[name]
        out.setdefault("zero_shot_seconds", {})[",".join(todo)] = round(time.perf_counter() - t0, 1)
        write_json(done, out)
        self.echo(
            f"[acrank2023] {sp.name} {unit.slug} seed={seed} zero-shot (top-{p.zero_shot_depth}): "
            + "; ".join(f"{n}: NDCG@10 {out['test'][n]['nDCG@10']:.4f}" for n in todo)
            + f" ({time.perf_counter() - t0:.0f}s)"
        )

    def _zero_shot_fingerprint(self, ds: Dataset, unit: Unit) -> str:
        return fingerprint(
            {
                "depth": self.plan.zero_shot_depth,
                "code": UNIT_CODE,
                **inference_dtype_settings(unit.model),
            },
            {"data": dataset_fingerprint(ds, self.plan.zero_shot_depth)},
        )

    def units_of(self, sp: SettingPlan) -> list[Unit]:
        p = self.plan
        units: list[Unit] = []
        for row in [*sp.rows, *sp.ablation_rows]:
            u = row_unit(row, p.p)
            if u not in units:
                units.append(u)
        for pv in sp.p_sweep:
            u = Unit("acrank", sp.p_sweep_rule, "infonce", float(pv))
            if u not in units:
                units.append(u)
        return units

    # ------------------------------------------------------------------ everything
    def compute(self) -> None:
        p = self.plan
        t0 = time.perf_counter()
        if p.threads:  # as in every unit: the diagnosis and the report compute here
            import torch

            torch.set_num_threads(p.threads)
        self._check_units()  # before any work: a unit of other settings is refused here
        self.write_config()
        # three phases, each independent units (here one after another, or on Dask): every
        # training unit; the diagnosis of each setting (here: it reads the setting's trained
        # models); the zero-shot scoring of each trained unit (reads its model)
        train = [
            ("train", sp.name, u, s)
            for sp in p.settings
            for s in p.seeds
            for u in self.units_of(sp)
        ]
        self._schedule(train)
        for sp in p.settings:
            if sp.diagnose:
                self._diagnose(sp)
        zero = [
            ("zero-shot", sp.name, u, s)
            for sp in p.settings
            if sp.zero_shot
            for s in p.seeds
            for u in self._zero_shot_units(sp)
        ]
        self._schedule(zero)
        self.echo(f"[acrank2023] all units done ({time.perf_counter() - t0:.0f}s this call)")

    def _schedule(self, items: list[tuple[str, str, Unit, int]]) -> None:
        run_runner_units(self, items, "_run_item", label=self._item_label, what="acrank2023 unit")

    def _run_item(self, item: tuple[str, str, Unit, int]) -> dict[str, Any] | None:
        """``("train" | "zero-shot", setting name, unit, seed)``: one scheduled unit."""
        kind, name, unit, seed = item
        sp = next(sp for sp in self.plan.settings if sp.name == name)
        if kind == "train":
            return self._train_unit(sp, unit, seed)
        self._zero_shot_unit(sp, unit, seed)
        return None

    def _item_label(self, item: tuple[str, str, Unit, int]) -> str:
        kind, name, unit, seed = item
        sp = next(sp for sp in self.plan.settings if sp.name == name)
        where = self._unit_dir(sp, unit, seed).relative_to(self.out_dir).as_posix()
        return where if kind == "train" else f"{where} (zero-shot)"

    def _check_units(self) -> None:
        """Compare every planned unit (training units and diagnoses) with its stored record
        before anything runs: a unit computed with other settings or data is refused (one
        line naming the fields) or, with ``overwrite``, cleared to be computed again."""
        for sp in self.plan.settings:
            for seed in self.plan.seeds:
                for unit in self.units_of(sp):
                    self.store.check(
                        self._unit_dir(sp, unit, seed), self.unit_record(sp, unit, seed)
                    )
            if sp.diagnose and self._diagnose_rows(sp):
                self.store.check(
                    self.out_dir / "diagnosis" / sp.name,
                    self._diagnosis_record(sp),
                    done="diagnosis.json",
                )

    # ------------------------------------------------------------------ diagnosis
    def _diagnose_rows(self, sp: SettingPlan) -> list[str]:
        return [r for r in self.plan.diagnose_rows if r in [*sp.rows, *sp.ablation_rows]]

    def _diagnosis_settings(self, sp: SettingPlan) -> dict[str, Any]:
        p = self.plan
        return self.record_settings(
            *("test_depth", "diagnose_axioms", "diagnose_queries", "diagnose_depth"),
            "agreement_pairs",
            part="diagnosis",
            setting=sp.name,
            test=sp.test,
            test_queries=sp.test_queries,
            seed=p.seeds[0],
            rows=self._diagnose_rows(sp),
            agreement_axioms=list(ROSSET_AXIOMS),
            **inference_dtype_settings(*(row_unit(r, p.p).model for r in self._diagnose_rows(sp))),
        )

    def _diagnosis_record(self, sp: SettingPlan) -> UnitRecord:
        """A diagnosis is a unit too: its settings and the fingerprints of the units whose
        models it diagnoses (a retrained model is diagnosed again)."""
        p = self.plan
        seed = p.seeds[0]
        rows = self._diagnose_rows(sp)
        settings = self._diagnosis_settings(sp)
        inputs = {
            f"unit {r}": self.unit_record(sp, row_unit(r, p.p), seed).fingerprint for r in rows
        }
        inputs["test data"] = self._data(sp).fingerprints["test data"]
        return UnitRecord(settings, inputs)

    def _diagnose(self, sp: SettingPlan) -> dict[str, Any] | None:
        """Axiom fulfilment (mined TFC1/TFC2/M-TDC/LNC2 instances on test queries) and Rosset
        perturbation agreement of the trained models (seed 0) next to the cross-encoder."""
        p = self.plan
        out_file = self.out_dir / "diagnosis" / sp.name / "diagnosis.json"
        rows = self._diagnose_rows(sp)
        if not rows:
            return None
        record = self._diagnosis_record(sp)
        if self.store.enter(out_file.parent, record, done=out_file.name) == "done":
            return read_json(out_file)
        seed = p.seeds[0]
        dirs = {r: self._unit_dir(sp, row_unit(r, p.p), seed) for r in rows}
        dirs = {r: d for r, d in dirs.items() if (d / "model").is_dir()}
        if not dirs:
            return None
        from axiomatic.experiments.diagnosis import diagnose_models
        from axiomatic.models import load_model

        t0 = time.perf_counter()
        data = self._data(sp)
        test = _cap_queries(data.test, p.diagnose_queries, 3, "test")
        if test.candidates is not None:
            test.candidates = {q: c[: p.diagnose_depth] for q, c in test.candidates.items()}
        models = {r: load_model(d / "model", device="auto") for r, d in dirs.items()}
        result = diagnose_models(
            test,
            models,
            out_file.parent,
            p.diagnose_axioms,
            p.diagnose_depth,
            p.agreement_pairs,
            ROSSET_AXIOMS,
        )
        result["seconds"] = round(time.perf_counter() - t0, 1)
        result["queries"] = len(test.queries)
        write_json(out_file, result)
        self.echo(f"[acrank2023] diagnosis {sp.name}: {result['seconds']:.0f}s")
        return result

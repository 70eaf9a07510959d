"""Which axiomatic training helps? Every method on the same data, start, budget and seeds
(issue 26).

``axiomatic experiment compare-training [--quick]`` fine-tunes strong starts with each way the
toolkit puts axioms into a ranker and compares each with the *plain* fine-tuning of the same
start, selected the same way:

- the MiniLM **bi-encoder** (zero-shot already above BM25 on MS MARCO): ``plain`` fine-tuning,
  ``ar`` (Rosset et al. 2019, axiomatic regularization), ``rennings`` (Rennings 2019, mined
  diagnostic instances mixed 1:1 with the relevance pairs), ``ap`` (Cheng & Fang 2020,
  perturbed documents as extra pairs);
- the MiniLM **cross-encoder**: ``plain``, ``acrank`` (Bo et al. 2023: TFC-A&D edits with the
  contrastive loss), ``acrank-hinge`` (the same edits as extra hinge pairs), ``infonce`` (the
  contrastive loss without edits: what the loss alone does), ``ares`` (Chen et al. 2022:
  axiomatic pre-training, then plain fine-tuning).

Equal terms: the same training queries and held-out dev queries, the same number of training
examples seen (``examples``: steps = examples / batch size), the same dev evaluation every
``eval_every`` steps *including the start itself* (``TrainConfig.eval_at_start``: a method
whose training only hurts keeps the start), the same early stopping, the same seeds and the
same learning-rate grid, chosen per (start, method) on the dev queries only. Each method's
own settings are its paper's defaults (:data:`METHODS`; ``method_config`` overrides them).

Units (cached, fingerprinted, resumable; :mod:`axiomatic.experiments.units`): one training run
per (start, method, learning rate, seed) under ``runs/``; the test runs of the selected
learning rate per collection inside it; the untrained start per seed; ARES pre-training per
seed under ``ares/``; the diagnosis per start under ``diagnosis/``. The report: per start and
collection, the mean and sd over seeds of nDCG@10 and RR@10, a paired t-test of each method
against ``plain`` on the per-query values averaged over the seeds (Holm over the methods per
measure and collection, :func:`axiomatic.evaluate.significance.compare_to_baseline`) with the
95 % interval of the difference; the axiom diagnosis of every trained model (mined TFC1, TFC2,
M-TDC, LNC2 fulfilment and the Rosset perturbation agreement,
:func:`axiomatic.experiments.diagnosis.diagnose_models`); the cost (seconds per 1,000
examples, peak memory); the learning curves (dev RR@10 vs examples seen, from the trainer's
``log.jsonl``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from axiomatic.experiments.common import load_split, on_device, per_query, read_json, write_json
from axiomatic.experiments.engine import Plan, Runner, candidate_run, estimate_line
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
    files_fingerprint,
    fingerprint,
    machine,
)

__all__ = ["METHODS", "STARTS", "ComparePlan", "CompareTraining"]

UNIT_CODE = 1
"""Version of how a unit is computed (in every unit's record)."""

STARTS = ("bi-encoder", "cross-encoder")
"""The starts of the comparison (any registry name of :func:`axiomatic.models.build_model`
may be a start: the quick plan uses KNRM to keep CI short)."""

INSTANCES = "{instances}"
"""Placeholder of the mined training instances' folder in a method's augmentation."""

METHODS: dict[str, dict[str, Any]] = {
    "plain": {},
    "ar": {"regularizer": "ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)"},
    "rennings": {
        "augmentation": f"diagnostic(mode=paired, instances={INSTANCES}, delta_max=0.1, "
        "axioms=TFC1)"
    },
    "ap": {"augmentation": "perturb(axioms=TFC1-A,TFC1-D,TFC3,LNC)"},
    "acrank": {
        "loss": "contrastive",
        "augmentation": "acrank(rule='TFC-A&D', p=0.5, loss=infonce, negatives=3)",
    },
    "acrank-hinge": {"augmentation": "acrank(rule='TFC-A&D', p=0.5, loss=hinge)"},
    "infonce": {
        "loss": "contrastive",
        "augmentation": "acrank(rule=none, loss=infonce, negatives=3)",
    },
    "ares": {},
}
"""Method -> the :class:`~axiomatic.training.config.TrainConfig` fields it sets on top of the
shared ones (each paper's defaults; ``ares`` fine-tunes plainly from its pre-trained start).
Everything else (loss, optimizer, budget, dev selection) is the same for every method."""

DOCS_PER_PAIR = {
    "plain": 2, "ar": 4, "rennings": 2, "ap": 4, "acrank": 6, "acrank-hinge": 4,
    "infonce": 4, "ares": 2,
}  # fmt: skip
"""Documents scored per training pair (the step cost relative to ``plain``'s 2): AR and AP add
a perturbed copy of both documents, ACRank the two edits and 3 negatives, InfoNCE 3 negatives;
Rennings swaps half the pairs for axiom pairs."""

BASELINE = "plain"
START_ROW = "start (no training)"
MEASURES = ("nDCG@10", "RR@10")
DIAGNOSE_SEP = "/s"


@dataclass
class ComparePlan(Plan):
    """What to run; ``quick()`` is the CI-sized plan on the demo data, ``full()`` (the
    defaults) the GPU-scale one (configs/compare-training-gpu.toml)."""

    ALIASES: ClassVar = {"models": "starts"}

    starts: list[str] = field(default_factory=lambda: list(STARTS))
    methods: dict[str, list[str]] = field(
        default_factory=lambda: {
            "bi-encoder": ["plain", "ar", "rennings", "ap"],
            "cross-encoder": ["plain", "acrank", "acrank-hinge", "infonce", "ares"],
        }
    )
    """Per start, the methods compared (``plain`` is the baseline and always runs)."""
    model_config: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "bi-encoder": {"max_length": 192},
            "cross-encoder": {"max_length": 192, "head": "mlp"},
        }
    )
    """Per start, the model's settings (the cross-encoder's MLP head is ARES' head, so the
    plain cross-encoder and ARES differ only in the pre-training)."""
    method_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per method, TrainConfig fields that replace :data:`METHODS`' (e.g. ``{ar =
    {regularizer = "ar(lambda=0.5, mu=0.1)"}}``)."""
    train: str = "msmarco-dev-top20/train"
    depth: int = 20
    """Candidates per training query (and dev query)."""
    dev_queries: int = 80
    """Training queries held out for dev selection (the same for every unit)."""
    examples: int = 32000
    """Training examples (pairs drawn by the sampler) every run sees at most: 1,000 steps of
    32, past the cross-encoder's best dev point of the learning curves (28,800-35,200)."""
    batch_size: int = 32
    eval_every: int = 50
    """Dev evaluation every this many steps (and at the start)."""
    patience: int = 6
    lrs: dict[str, list[float]] = field(
        default_factory=lambda: {
            "bi-encoder": [1e-6, 3e-6, 1e-5],
            "cross-encoder": [1e-5, 2e-5, 5e-5],
        }
    )
    """Per start, the learning-rate grid, the same for every method of that start; the best
    on dev is reported (the bi-encoder only loses from 2e-5 on, docs/training.md)."""
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    optimizer: str = "adamw"
    weight_decay: float = 0.01
    margin: float = 1.0
    test_sets: list[str] = field(
        default_factory=lambda: ["msmarco-dev-top20/test", "trec-dl-2019/bm25", "scifact/test"]
    )
    test_depth: int = 100
    """Candidates re-ranked per test query (BM25 top-k for full-retrieval sets; a set with
    fewer candidates, msmarco-dev-top20, re-ranks all it has)."""
    test_queries: int | None = None
    """Judged test queries per collection (the first by id; ``None``: all)."""
    weak_axiom: str = "TFC1(delta_rel=0.5)"
    """Rennings' weak labeler, mined on the training queries."""
    ares_collections: list[str] = field(default_factory=lambda: ["msmarco-20k"])
    ares_variant: str = "simple"
    ares_steps: int = 2000
    ares_batch_size: int = 16
    ares_lr: float = 2e-5
    ares_eval_every: int = 100
    diagnose_set: str = "msmarco-dev-top20/test"
    diagnose_queries: int = 50
    diagnose_depth: int = 10
    diagnose_axioms: str = "TFC1,TFC2,M-TDC,LNC2"
    diagnose_analyzer: str = "thesis"
    agreement_pairs: int = 200
    embeddings: str = "random"
    """Word embeddings of a word-level start (KNRM, ...; the MiniLM starts ignore it)."""
    threads: int | None = None
    analyzer: str = "default"
    data_root: str | None = None
    docs: str | None = None
    """Also write the report to this Markdown page (its figure beside it, under ``img/``)."""

    @classmethod
    def quick(cls) -> ComparePlan:
        """CI-sized: the demo data, one step per run, two seeds; every method's code path runs
        (a small KNRM stands in for the bi-encoder, the MiniLM cross-encoder keeps ARES')."""
        return cls(
            starts=["knrm", "cross-encoder"],
            methods={
                "knrm": ["plain", "ar", "rennings", "ap", "acrank", "acrank-hinge", "infonce"],
                "cross-encoder": ["plain", "ares"],
            },
            model_config={
                "knrm": {"embedding_dim": 16, "max_doc_len": 64},
                "cross-encoder": {"max_length": 32, "head": "mlp"},
            },
            train="demo/train",
            depth=10,
            dev_queries=2,
            examples=2,
            batch_size=2,
            eval_every=1,
            patience=0,
            lrs={"knrm": [1e-3, 1e-2], "cross-encoder": [1e-4]},
            seeds=[0, 1],
            test_sets=["demo/test"],
            test_depth=10,
            ares_collections=["demo"],
            ares_variant="strict",
            ares_steps=1,
            ares_batch_size=2,
            ares_eval_every=100,
            diagnose_set="demo/test",
            diagnose_queries=2,
            diagnose_depth=4,
            diagnose_axioms="TFC1,LNC2",
            agreement_pairs=4,
            threads=1,
        )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _lr_name(lr: float) -> str:
    return f"lr{lr:g}"


@contextmanager
def peak_memory(device: Any) -> Iterator[dict[str, float]]:
    """Peak memory while the block runs, in MiB, into the yielded dict's ``"peak_mib"``.

    On CUDA the peak of allocated tensor memory (``torch.cuda.max_memory_allocated``, reset on
    entry); on CPU the peak growth of the process' resident set over its size on entry, sampled
    every 20 ms from ``/proc/self/statm`` (``nan`` where that file does not exist)."""
    import torch

    out: dict[str, float] = {"peak_mib": float("nan")}
    if getattr(device, "type", str(device)) == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        yield out
        out["peak_mib"] = torch.cuda.max_memory_allocated(device) / 2**20
        out["kind"] = "CUDA allocated"  # type: ignore[assignment]
        return
    statm = Path("/proc/self/statm")
    if not statm.is_file():
        yield out
        return
    page = os.sysconf("SC_PAGE_SIZE")
    _release_freed_memory()  # so that the growth counts this block's allocations

    def rss() -> int:
        return int(statm.read_text().split()[1]) * page

    base = rss()
    peak = [base]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.02):
            peak[0] = max(peak[0], rss())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield out
    finally:
        stop.set()
        thread.join()
        peak[0] = max(peak[0], rss())
        out["peak_mib"] = (peak[0] - base) / 2**20
        out["kind"] = "CPU resident-set growth"  # type: ignore[assignment]


class CompareTraining(Runner):
    """Runner (see the module docstring). ``run()`` does everything not done yet."""

    name = "compare-training"
    plan_class = ComparePlan
    unit_done = "result.json"
    unit_code = UNIT_CODE
    plan: ComparePlan

    # ------------------------------------------------------------------ plan
    @classmethod
    def check_plan(cls, plan: Any) -> None:
        from axiomatic._suggest import suggest
        from axiomatic.models.io import resolve_model_name

        p: ComparePlan = plan

        for s in p.starts:
            resolve_model_name(s)  # an unknown model is refused with the close matches
            if s not in p.methods:
                raise ValueError(
                    f"compare-training start {s!r} has no methods: add it to the plan's "
                    f'methods table (e.g. methods.{s} = ["plain", "ar"])'
                )
            for m in p.methods[s]:
                if m not in METHODS:
                    raise ValueError(
                        f"unknown compare-training method {m!r}{suggest(m, METHODS)} for start "
                        f"{s!r}; expected some of {list(METHODS)}"
                    )
            if BASELINE not in p.methods[s]:
                raise ValueError(
                    f"compare-training start {s!r}: the methods {p.methods[s]} lack the "
                    f"baseline {BASELINE!r}, which every method is compared with; add it"
                )
            if "ares" in p.methods[s] and resolve_model_name(s) != "cross-encoder":
                raise ValueError(
                    f"compare-training method 'ares' pre-trains a cross-encoder: it cannot "
                    f"start from the {s}; list it under methods.cross-encoder"
                )
        for m in p.method_config:
            if m not in METHODS:
                raise ValueError(
                    f"compare-training method_config names unknown method {m!r}"
                    f"{suggest(m, METHODS)}; expected some of {list(METHODS)}"
                )
        if not p.seeds:
            raise ValueError("compare-training needs at least one seed")
        for s in p.starts:
            if not p.lrs.get(s):
                raise ValueError(
                    f"compare-training start {s!r} has no learning rates: add it to the plan's "
                    f"lrs table (e.g. lrs.{s} = [1e-6, 5e-6])"
                )
        if p.examples < p.batch_size:
            raise ValueError(
                f"compare-training examples ({p.examples}) is below one batch "
                f"({p.batch_size}); raise examples"
            )
        for _ in (cls._train_config(p, s, m, lr, 0) for s in p.starts for m in p.methods[s]
                  for lr in p.lrs[s]):  # fmt: skip
            pass  # a bad method setting fails here, before any work

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        p: ComparePlan = plan
        steps = p.examples // p.batch_size
        runs = [
            (s, steps) for s in p.starts for _m in p.methods[s] for _ in p.lrs[s] for _ in p.seeds
        ]
        lines = [
            f"  {p.train} (dev: {p.dev_queries} held-out queries) -> {', '.join(p.test_sets)}",
            *(f"  {s}: {', '.join(p.methods[s])}; lr grid {p.lrs[s]}" for s in p.starts),
            f"  {p.examples} examples ({steps} steps of {p.batch_size}), seeds {p.seeds}",
            estimate_line(runs).split(";")[0] + f"; estimated time: {_estimate(p)}",
        ]
        return lines

    @staticmethod
    def _train_config(
        p: ComparePlan, start: str, method: str, lr: float, seed: int, instances: str = ""
    ) -> Any:
        """The trainer configuration of one unit: the shared settings, then the method's."""
        from axiomatic.training.config import TrainConfig

        steps = max(1, p.examples // p.batch_size)
        own = {**METHODS[method], **p.method_config.get(method, {})}
        if isinstance(own.get("augmentation"), str):
            own["augmentation"] = own["augmentation"].replace(
                INSTANCES, instances or "instances/train"
            )
        base: dict[str, Any] = {
            "dataset": p.train,
            "model": start,
            "model_config": dict(p.model_config.get(start, {})),
            "loss": "hinge",
            "margin": p.margin,
            "optimizer": p.optimizer,
            "weight_decay": p.weight_decay,
            "lr": lr,
            "batch_size": p.batch_size,
            "steps": steps,
            "eval_every": max(1, min(p.eval_every, steps)),
            "checkpoint_every": max(1, min(p.eval_every, steps)),
            "patience": p.patience,
            "dev_queries": p.dev_queries,
            "dev_depth": p.depth,
            "candidate_depth": p.depth,
            "eval_at_start": True,
            "seed": seed,
            "analyzer": p.analyzer,
        }
        try:
            return TrainConfig(**{**base, **own})
        except TypeError as exc:
            raise ValueError(f"compare-training method {method!r}: {exc}") from None

    def settings(self, start: str, method: str, lr: float, seed: int) -> dict[str, Any]:
        """Every setting that determines a training unit (its trainer configuration with the
        instances named by content, not by this folder)."""
        p = self.plan
        cfg = self._train_config(p, start, method, lr, seed).to_dict()
        extra: dict[str, Any] = {}
        if method == "ares":
            extra = self._ares_settings(seed)
        return self.record_settings(
            "train", "depth", "dev_queries",
            start=start, method=method, lr=lr, seed=seed,
            weak_axiom=p.weak_axiom if method == "rennings" else None,
            ares=extra or None, train_config=cfg,
        )  # fmt: skip

    def _ares_settings(self, seed: int) -> dict[str, Any]:
        p = self.plan
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

    def unit_dir(self, start: str, method: str, lr: float, seed: int) -> Path:
        return self.out_dir / "runs" / start / method / _lr_name(lr) / f"seed{seed}"

    def start_dir(self, start: str, seed: int) -> Path:
        return self.out_dir / "runs" / start / "start" / f"seed{seed}"

    # ------------------------------------------------------------------ data
    def _data(self) -> dict[str, Any]:
        from axiomatic.training.samplers import split_dev

        p = self.plan
        full = load_split(p.train, p.data_root, p.depth)
        train, dev = split_dev(full, p.dev_queries, seed=0)
        texts = [d.text for d in full.documents.values()]
        tests = {}
        for name in p.test_sets:
            ds = load_split(name, p.data_root, p.test_depth)
            if p.test_queries is not None:
                judged = sorted(q for q in ds.queries if ds.judged(q))
                ds = ds.subset(judged[: p.test_queries])
            tests[name] = ds
        return {"train": train, "dev": dev, "tests": tests, "texts": texts}

    def _mine_training_instances(self, train: Any) -> Path:
        from axiomatic.diagnose.mining import mine

        p = self.plan
        out = self.out_dir / "instances" / "train"
        mine(
            train, p.weak_axiom, out, depth=p.depth, artificial=False, progress=False,
            analyzer=p.analyzer, overwrite=self.overwrite,
        )  # fmt: skip
        return out

    def _build_start(self, start: str, seed: int, texts: Sequence[str]) -> Any:
        """The untrained start (a word-level model's vocabulary from ``texts``, the training
        collection)."""
        from axiomatic.models import build_model
        from axiomatic.models.io import is_word_model

        config = dict(self.plan.model_config.get(start, {}))
        if is_word_model(start):
            return build_model(
                start, texts=texts, seed=seed, embeddings=self.plan.embeddings, **config
            )
        return build_model(start, seed=seed, **config)

    def _pretrain_ares(self, seed: int, dev: Any) -> dict[str, Any]:
        """ARES pre-training of the cross-encoder for ``seed`` (cached; its folder refuses
        other settings itself), checkpoint selected on the shared dev queries."""
        from axiomatic.ares.pipeline import load_collection, prepare
        from axiomatic.ares.pretrain import pretrain_ares

        p = self.plan
        a = self._ares_settings(seed)
        prepared = [
            prepare(load_collection(c, p.data_root), cache_dir=self.out_dir / "ares" / "cache")
            for c in p.ares_collections
        ]
        t = time.perf_counter()
        folder = self.out_dir / "ares" / f"{p.ares_variant}-seed{seed}"
        with peak_memory(_device()) as mem:
            s = pretrain_ares(
                prepared, folder, p.ares_variant, dev=dev, steps=a["steps"],
                batch_size=a["batch_size"], lr=a["lr"], max_length=a["max_length"],
                eval_every=a["eval_every"], checkpoint_every=max(1, a["eval_every"]),
                seed=seed, head=a["head"],
            )  # fmt: skip
        # the encoder is exported: the pre-training's resume state (~440 MB) is not needed
        for name in ("checkpoint.pt", "best.pt"):
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
    def run(self) -> dict[str, Any]:
        from axiomatic.data.fingerprint import hash_fields
        from axiomatic.models.io import is_word_model
        from axiomatic.training.trainer import set_training_threads

        p = self.plan
        t0 = time.perf_counter()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        set_training_threads(p.threads)
        data = self._data()
        train, dev, tests, texts = data["train"], data["dev"], data["tests"], data["texts"]
        methods = {m for s in p.starts for m in p.methods[s]}
        instances = self._mine_training_instances(train) if "rennings" in methods else None
        inputs = {
            "training data": dataset_fingerprint(train, p.depth),
            "dev data": "none" if dev is None else dataset_fingerprint(dev, p.depth),
        }
        vocab_fp = hash_fields([t] for t in texts)
        inst_fp = None
        if instances is not None:
            manifest = read_json(instances / "manifest.json")
            inst_fp = fingerprint({"config": manifest.get("config")})
        planned = []
        for start in p.starts:
            for method in p.methods[start]:
                for lr in p.lrs[start]:
                    for seed in p.seeds:
                        unit_inputs = dict(inputs)
                        if is_word_model(start):
                            unit_inputs["vocabulary texts"] = vocab_fp
                        if method == "rennings" and inst_fp is not None:
                            unit_inputs["training instances"] = inst_fp
                        if method == "ares":
                            unit_inputs["ares collections"] = hash_fields(
                                [[c] for c in p.ares_collections]
                            )
                        record = UnitRecord(self.settings(start, method, lr, seed), unit_inputs)
                        planned.append((start, method, lr, seed, record))
        # every unit is compared with its record before any work: a unit of other settings or
        # data is refused here (or cleared with overwrite)
        for start, method, lr, seed, record in planned:
            self.store.check(self.unit_dir(start, method, lr, seed), record)
        self.write_config()
        ares_starts: dict[int, dict[str, Any]] = {}
        warm: set[str] = set()
        for start, method, lr, seed, record in planned:
            unit = self.unit_dir(start, method, lr, seed)
            if self.store.enter(unit, record) == "done":
                continue
            if start not in warm:  # one-time costs (weights from disk, kernels) not charged
                warm.add(start)
                self._warm_up(start, seed, train, dev, texts)
            if method == "ares" and seed not in ares_starts:
                ares_starts[seed] = self._pretrain_ares(seed, dev)
            self._train_unit(
                start, method, lr, seed, unit, train, dev, instances, ares_starts, texts
            )
            if len(p.lrs[start]) == 1 and self._select_lr(start, method) == lr:
                # a one-point grid selects every unit it can select (one with a dev result): its
                # test runs now, so a run cut short (a lent GPU's time limit) keeps them
                self._score_tests(unit, tests)
        # the test runs of the learning rate each (start, method) selects on dev
        for start in p.starts:
            for seed in p.seeds:
                self._score_start(start, seed, tests, texts)
            for method in p.methods[start]:
                chosen = self._select_lr(start, method)
                if chosen is None:
                    continue
                for r in self._results(start, method, chosen):
                    self._score_tests(self.unit_dir(start, method, chosen, r["seed"]), tests)
        self._diagnose(data)
        self.record_timing(time.perf_counter() - t0)
        return self.report()

    def _warm_up(self, start: str, seed: int, train: Any, dev: Any, texts: Sequence[str]) -> None:
        """One untimed plain training step of the start (with a one-query dev evaluation) in a
        throwaway folder before the first timed run of a start: the one-time costs (weights
        from disk, imports, kernels) are not charged to whichever method runs first."""
        import shutil
        import tempfile

        from axiomatic.training.trainer import Trainer

        p = self.plan
        cfg = self._train_config(p, start, BASELINE, p.lrs[start][0], seed)
        cfg = dataclasses.replace(cfg, steps=1, eval_every=1, checkpoint_every=1, patience=0)
        one = None if dev is None or not dev.queries else dev.subset(sorted(dev.queries)[:1])
        folder = Path(tempfile.mkdtemp(prefix="warm-up-", dir=self.out_dir))
        try:
            Trainer(self._build_start(start, seed, texts), cfg, folder, train, one).fit(False)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _train_unit(
        self, start: str, method: str, lr: float, seed: int, unit: Path, train: Any, dev: Any,
        instances: Path | None, ares_starts: Mapping[int, Mapping[str, Any]],
        texts: Sequence[str],
    ) -> None:  # fmt: skip
        from axiomatic.models.io import load_model
        from axiomatic.training.trainer import Trainer

        p = self.plan
        cfg = self._train_config(p, start, method, lr, seed, str(instances or ""))
        if method == "ares":
            model = load_model(str(ares_starts[seed]["encoder"]), device="auto")
        else:
            model = self._build_start(start, seed, texts)
        t = time.perf_counter()
        with peak_memory(_device()) as mem:
            res = Trainer(model, cfg, unit, train, dev).fit(resume=True)
        seconds = time.perf_counter() - t
        examples = int(res.steps) * p.batch_size
        result = {
            "start": start,
            "method": method,
            "lr": lr,
            "seed": seed,
            "best_step": res.best_step,
            "best_dev": res.best_dev,
            "steps": res.steps,
            "stopped_early": res.stopped_early,
            "examples_seen": examples,
            "best_examples": None if res.best_step is None else res.best_step * p.batch_size,
            "seconds": seconds,
            "seconds_per_1k_examples": 1000.0 * seconds / examples if examples else None,
            "peak_mib": mem["peak_mib"],
            "memory": mem.get("kind"),
            "machine": machine(),
        }
        if method == "ares":
            cost = read_json(self.out_dir / "ares" / f"{p.ares_variant}-seed{seed}" / "cost.json")
            result["pretrain"] = cost
        write_json(unit / "result.json", result)
        # the best weights are in model/: the resume state is not needed once result.json marks
        # the unit done (a MiniLM checkpoint with its optimizer state is ~270 MB)
        for name in ("checkpoint.pt", "best.pt"):
            (unit / name).unlink(missing_ok=True)
        self.note(
            f"{start} {method} lr={lr:g} seed={seed}: best dev RR@10 "
            f"{res.best_dev if res.best_dev is None else round(res.best_dev, 4)} at step "
            f"{res.best_step} ({seconds:.0f}s)"
        )

    def _results(self, start: str, method: str, lr: float) -> list[dict[str, Any]]:
        """The finished, matching training units of one grid point (one per seed)."""
        out = []
        for seed in self.plan.seeds:
            unit = self.unit_dir(start, method, lr, seed)
            done = unit / "result.json"
            if done.is_file() and self.store.matches(unit, self._report_settings(unit)):
                out.append(read_json(done))
        return out

    def _report_settings(self, unit: Path) -> dict[str, Any]:
        """The settings of a unit a report compares with its record (no data needed)."""
        start, method, lr_dir, seed_dir = unit.relative_to(self.out_dir / "runs").parts
        rec = self.settings(start, method, float(lr_dir[2:]), int(seed_dir[4:]))
        return {k: v for k, v in rec.items() if k != "train_config"}

    def _select_lr(self, start: str, method: str) -> float | None:
        """The grid's learning rate with the best mean best-dev RR@10 over the seeds finished
        at every grid point (dev only; a tie goes to the first in the grid)."""
        best, best_lr = -math.inf, None
        done = {lr: self._results(start, method, lr) for lr in self.plan.lrs[start]}
        seeds = set.intersection(*({r["seed"] for r in v} for v in done.values()))
        for lr, rows in done.items():
            vals = [r["best_dev"] for r in rows if r["seed"] in seeds and r["best_dev"] is not None]
            if vals and float(np.mean(vals)) > best:
                best, best_lr = float(np.mean(vals)), lr
        return best_lr

    def _test_record(self, name: str, ds: Any, model_fp: str, **extra: Any) -> UnitRecord:
        p = self.plan
        return UnitRecord(
            self.record_settings(
                "test_depth", "test_queries", collection=name, part="test run", **extra
            ),
            {"test data": dataset_fingerprint(ds, p.test_depth), "model": model_fp},
        )

    def _score_tests(self, unit: Path, tests: Mapping[str, Any]) -> None:
        from axiomatic.models.io import load_model
        from axiomatic.models.scoring import score_candidates

        model = None
        model_fp = files_fingerprint(unit / "model")
        for name, ds in tests.items():
            slug = _slug(name)
            record = self._test_record(name, ds, model_fp)
            state = self.store.enter(
                unit / "test", record, done=f"{slug}.json", record_name=f"{slug}.unit.json",
                owns_folder=False,
            )  # fmt: skip
            if state == "done":
                continue
            model = model or load_model(unit / "model", device="auto")
            run = score_candidates(model, ds, depth=self.plan.test_depth)
            write_json(unit / "test" / f"{slug}.json", run)

    def _score_start(
        self, start: str, seed: int, tests: Mapping[str, Any], texts: Sequence[str]
    ) -> None:
        """The untrained start's test runs (its seed decides a fresh scoring head)."""
        from axiomatic.models.scoring import score_candidates

        folder = self.start_dir(start, seed)
        model = None
        for name, ds in tests.items():
            slug = _slug(name)
            settings = {"start": start, "seed": seed,
                        "model_config": dict(self.plan.model_config.get(start, {}))}  # fmt: skip
            record = self._test_record(name, ds, "untrained start", **settings)
            state = self.store.enter(
                folder, record, done=f"{slug}.json", record_name=f"{slug}.unit.json",
                owns_folder=False,
            )  # fmt: skip
            if state == "done":
                continue
            model = model or on_device(self._build_start(start, seed, texts))
            model.eval()
            write_json(folder / f"{slug}.json", score_candidates(model, ds, self.plan.test_depth))

    # ------------------------------------------------------------------ diagnosis
    def _diagnosis_models(self, start: str) -> dict[str, Path | None]:
        """Name -> saved model folder (``None``: the untrained start) of the selected units."""
        p = self.plan
        out: dict[str, Path | None] = {}
        for seed in p.seeds:
            out[f"start{DIAGNOSE_SEP}{seed}"] = None
        for method in p.methods[start]:
            lr = self._select_lr(start, method)
            if lr is None:
                continue
            for r in self._results(start, method, lr):
                out[f"{method}{DIAGNOSE_SEP}{r['seed']}"] = (
                    self.unit_dir(start, method, lr, r["seed"]) / "model"
                )
        return out

    def _diagnose(self, data: Mapping[str, Any]) -> None:
        from axiomatic.experiments.diagnosis import diagnose_models
        from axiomatic.models.io import load_model

        p = self.plan
        ds = load_split(p.diagnose_set, p.data_root, p.diagnose_depth)
        test = ds.subset(sorted(ds.queries)[: p.diagnose_queries])
        if test.candidates is not None:
            test.candidates = {q: c[: p.diagnose_depth] for q, c in test.candidates.items()}
        for start in p.starts:
            folder = self.out_dir / "diagnosis" / start
            paths = self._diagnosis_models(start)
            record = UnitRecord(
                self.record_settings(
                    *("diagnose_set", "diagnose_queries", "diagnose_depth", "diagnose_axioms"),
                    *("diagnose_analyzer", "agreement_pairs"),
                    part="diagnosis", start=start, models=sorted(paths),
                    model_config=dict(p.model_config.get(start, {})),
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
                    models[name] = on_device(self._build_start(start, seed, data["texts"]))
                else:
                    models[name] = load_model(path, device="auto")
                models[name].eval()
            diag = diagnose_models(
                test, models, folder, p.diagnose_axioms, p.diagnose_depth, p.agreement_pairs,
                analyzer=p.diagnose_analyzer,
            )  # fmt: skip
            write_json(folder / "diagnosis.json", diag)

    # ------------------------------------------------------------------ report
    def report(self) -> dict[str, Any]:
        """Summarize the finished units of this plan (no training, no scoring): the tables,
        the learning-curve figure, ``results.json``, ``summary.md`` and the plan's page."""
        from axiomatic._atomic import atomic_write_text

        p = self.plan
        tests = {n: load_split(n, p.data_root, p.test_depth) for n in p.test_sets}
        if p.test_queries is not None:
            for n, ds in list(tests.items()):
                judged = sorted(q for q in ds.queries if ds.judged(q))
                tests[n] = ds.subset(judged[: p.test_queries])
        res: dict[str, Any] = {"plan": p.to_dict(), "starts": {}}
        for start in p.starts:
            res["starts"][start] = self._start_report(start, tests)
        if not any(s["methods"] for s in res["starts"].values()):
            raise FileNotFoundError(
                f"{self.out_dir}: no finished unit of this plan to report; run the experiment "
                "first (without --report-only)"
            )
        res["machine"] = machine()
        fig = self._plot_curves(res, self.out_dir / "img" / "learning_curves.png")
        write_json(self.out_dir / "results.json", res)
        md = render_markdown(p, res, "img/learning_curves.png" if fig else None)
        atomic_write_text(self.out_dir / "summary.md", md)
        if p.docs is not None:
            page = Path(p.docs)
            figure = page.parent / "img" / "comparison_learning_curves.png"
            self._plot_curves(res, figure)
            notes = page.with_suffix(".notes.md")
            text = render_markdown(p, res, "img/comparison_learning_curves.png")
            if notes.is_file():
                text = text.rstrip("\n") + "\n\n" + notes.read_text(encoding="utf-8")
            atomic_write_text(page, text)
        return res

    def _start_report(self, start: str, tests: Mapping[str, Any]) -> dict[str, Any]:
        """One start: the selection, per-seed test means, mean/sd, the tests against plain, the
        curves, the costs and the diagnosis."""
        from axiomatic.evaluate.significance import compare_to_baseline

        p = self.plan
        out: dict[str, Any] = {"methods": {}, "collections": {}, "curves": {}, "cost": {}}
        per_method_runs: dict[str, dict[int, Path]] = {}
        for method in p.methods[start]:
            lr = self._select_lr(start, method)
            if lr is None:
                continue
            grid = {
                f"{g:g}": _mean_or_none([r["best_dev"] for r in self._results(start, method, g)])
                for g in p.lrs[start]
            }
            rows = self._results(start, method, lr)
            out["methods"][method] = {
                "lr": lr,
                "dev_by_lr": grid,
                "seeds": [r["seed"] for r in rows],
                "best_dev": {str(r["seed"]): r["best_dev"] for r in rows},
                "best_step": {str(r["seed"]): r["best_step"] for r in rows},
            }
            per_method_runs[method] = {
                r["seed"]: self.unit_dir(start, method, lr, r["seed"]) for r in rows
            }
            out["curves"][method] = {
                str(r["seed"]): _curve(self.unit_dir(start, method, lr, r["seed"]), p.batch_size)
                for r in rows
            }
            out["cost"][method] = _cost(rows)
        for name, ds in tests.items():
            slug = _slug(name)
            values: dict[str, dict[str, dict[str, float]]] = {}
            table: dict[str, Any] = {}
            systems: dict[str, dict[int, Path]] = {
                START_ROW: {s: self.start_dir(start, s) / f"{slug}.json" for s in p.seeds},
                **{
                    m: {s: u / "test" / f"{slug}.json" for s, u in runs.items()}
                    for m, runs in per_method_runs.items()
                },
            }
            for system, files in systems.items():
                per_seed = {
                    s: per_query(read_json(f), ds, MEASURES)
                    for s, f in files.items()
                    if f.is_file()
                }
                if not per_seed:
                    continue
                table[system] = _seed_stats(per_seed)
                values[system] = _seed_average(per_seed)
            bm25 = per_query(candidate_run(ds), ds, MEASURES)
            table["BM25 (candidate order)"] = {m: {"mean": _mean(bm25[m]), "sd": 0.0,
                                                   "seeds": 0} for m in MEASURES}  # fmt: skip
            tested = {k: v for k, v in values.items() if k in per_method_runs}
            comparison: dict[str, Any] = {"family": None, "rows": {}}
            if BASELINE in tested and len(tested) > 1:
                try:
                    cmp = compare_to_baseline(
                        tested, BASELINE, noun="methods", scope="per start and collection"
                    )
                except ValueError as exc:  # e.g. fewer than 2 queries
                    comparison["family"] = f"not tested ({exc})"
                else:
                    comparison["family"] = cmp.family
                    for c in cmp:
                        lo, hi = _interval(tested[c.system][c.measure], tested[BASELINE][c.measure])
                        comparison["rows"].setdefault(c.system, {})[c.measure] = {
                            "diff": c.diff, "p": c.p, "p_holm": c.p_holm, "n": c.n,
                            "ci95": [lo, hi], "verdict": _verdict(c.diff, c.p_holm, lo, hi),
                        }  # fmt: skip
            out["collections"][name] = {
                "queries": len(next(iter(values.values()))[MEASURES[0]]) if values else 0,
                "table": table,
                "comparison": comparison,
            }
        diag_file = self.out_dir / "diagnosis" / start / "diagnosis.json"
        if diag_file.is_file():
            out["diagnosis"] = _diagnosis_means(read_json(diag_file))
        return out

    @staticmethod
    def _plot_curves(res: Mapping[str, Any], path: Path) -> Path | None:
        """Dev RR@10 vs examples seen per start (mean over seeds at the selected learning
        rate), one line per method; the start is the point at 0 examples."""
        from axiomatic._report import new_figure, save_figure

        starts = [s for s, v in res["starts"].items() if v["curves"]]
        if not starts:
            return None
        fig, axes = new_figure(1, len(starts), figsize=(5.2 * len(starts), 3.6), squeeze=False)
        for ax, start in zip(axes[0], starts, strict=True):
            for method, seeds in res["starts"][start]["curves"].items():
                xs, ys = _mean_curve(seeds.values())
                if xs:
                    ax.plot(xs, ys, marker=".", label=method)
            ax.set_title(f"{start}: dev RR@10 (mean over seeds)")
            ax.set_xlabel("training examples seen")
            ax.set_ylabel("dev RR@10")
            ax.legend(fontsize=8)
        fig.tight_layout()
        save_figure(fig, path)
        return path


# ---------------------------------------------------------------------- helpers
def _release_freed_memory() -> None:
    """Collect garbage and hand freed heap pages back to the OS (glibc's ``malloc_trim``;
    nothing elsewhere), so that a resident-set growth measured next starts from what is live."""
    import contextlib
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    name = ctypes.util.find_library("c")
    if name is None:
        return
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL(name).malloc_trim(0)


CPU_SECONDS_PER_PAIR = {"knrm": 0.004, "conv-knrm": 0.012, "transformer": 0.6}
"""CPU seconds per training pair (2 documents) of one step at 128 word pieces, as measured on
this 2-core machine under its usual shared load (load average 4-5, one torch thread): a MiniLM
cross-encoder hinge step of 16 pairs at 96 word pieces took 7.4 s (AR: 14.4 s), a bi-encoder
step 18-20 s (a quiet core: 3.4 s at 128, docs/training.md "Speed"). Scaled linearly with
``max_length``."""
CPU_SCORES_PER_SECOND = {
    "knrm": 2000.0, "conv-knrm": 800.0, "transformer": 12.0, "bi-encoder": 15.0,
}  # fmt: skip
"""CPU (query, document) pairs scored per second at 128 word pieces under the same load (the
MiniLM cross-encoder 15-17 pairs/s at 96 pieces, the bi-encoder 11-25; 21 pairs/s on a quieter
core, docs/acrank.md)."""


def _estimate(p: ComparePlan) -> str:
    """Rough CPU hours of a plan: training steps (scaled by each method's documents per pair),
    dev evaluations (the start and every ``eval_every`` steps, without early stopping), ARES
    pre-training and the test scoring of the selected runs and the starts."""
    from axiomatic.models.io import is_word_model, resolve_model_name

    steps = max(1, p.examples // p.batch_size)
    evals = 1 + steps // max(1, p.eval_every)
    test_pairs = len(p.test_sets) * (p.test_queries or 200) * p.test_depth
    total = 0.0
    for s in p.starts:
        scale = 1.0
        if not is_word_model(s):
            kind = "transformer"
            scale = float(p.model_config.get(s, {}).get("max_length", 128)) / 128
        else:
            kind = s if s in CPU_SECONDS_PER_PAIR else "conv-knrm"
        pair = CPU_SECONDS_PER_PAIR[kind] * scale
        bi = resolve_model_name(s) == "bi-encoder"
        rate = CPU_SCORES_PER_SECOND["bi-encoder" if bi else kind] / scale
        for m in p.methods.get(s, []):
            runs = len(p.lrs.get(s, [])) * len(p.seeds)
            train = steps * p.batch_size * pair * DOCS_PER_PAIR[m] / 2
            dev = evals * p.dev_queries * p.depth / rate
            total += runs * (train + dev) + len(p.seeds) * test_pairs / rate
            if m == "ares":
                total += len(p.seeds) * p.ares_steps * p.ares_batch_size * pair * 2
        total += len(p.seeds) * test_pairs / rate  # the untrained start
    return (
        f"~{total / 3600:.1f} h on this 2-core CPU under its shared load (rough: {steps} "
        "steps x documents per pair, "
        f"{evals} dev evaluations per run without early stopping, test scoring; one H100 is "
        "several hundred times faster: 1,500 MiniLM steps of 32 pairs took ~70 s there)"
    )


def _device() -> Any:
    from axiomatic.models.device import choose_device

    return choose_device("auto")


def _mean(values: Mapping[str, float]) -> float:
    return float(np.mean(list(values.values()))) if values else float("nan")


def _mean_or_none(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return float(np.mean(vals)) if vals else None


def _seed_stats(per_seed: Mapping[int, Mapping[str, Mapping[str, float]]]) -> dict[str, Any]:
    """Per measure: the mean over seeds of each seed's mean over queries, its sd (n - 1; 0 for
    one seed) and the number of seeds."""
    out: dict[str, Any] = {}
    for m in MEASURES:
        means = [_mean(v[m]) for v in per_seed.values()]
        sd = float(np.std(means, ddof=1)) if len(means) > 1 else 0.0
        out[m] = {"mean": float(np.mean(means)), "sd": sd, "seeds": len(means)}
    return out


def _seed_average(
    per_seed: Mapping[int, Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, float]]:
    """Per measure and query, the mean over the seeds (the values the paired test pairs)."""
    out: dict[str, dict[str, float]] = {}
    for m in MEASURES:
        qids = sorted(set.intersection(*(set(v[m]) for v in per_seed.values())))
        out[m] = {q: float(np.mean([v[m][q] for v in per_seed.values()])) for q in qids}
    return out


def _interval(a: Mapping[str, float], b: Mapping[str, float]) -> tuple[float, float]:
    """95 % t-interval of the mean per-query difference ``a - b`` (unadjusted)."""
    from scipy import stats

    qids = sorted(set(a) & set(b))
    d = np.array([a[q] - b[q] for q in qids], dtype=float)
    if len(d) < 2:
        return float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)))
    return float(d.mean() - half), float(d.mean() + half)


def _verdict(diff: float, p_holm: float, lo: float, hi: float) -> str:
    if p_holm < 0.05:
        return "helps" if diff > 0 else "hurts"
    return f"does not help (95% CI {lo:+.3f} to {hi:+.3f})"


def _curve(unit: Path, batch_size: int) -> list[list[float]]:
    """``[examples seen, dev RR@10]`` of every dev evaluation in a unit's trainer log."""
    from axiomatic.training.checkpoint import read_log

    return [
        [int(r["step"]) * batch_size, float(r["dev_mrr@10"])]
        for r in read_log(unit / "log.jsonl")
        if "dev_mrr@10" in r
    ]


def _mean_curve(curves: Any) -> tuple[list[float], list[float]]:
    """The mean dev metric at each number of examples every seed's curve reached (a seed that
    stopped early holds its last value: the model it keeps)."""
    curves = [c for c in curves if c]
    if not curves:
        return [], []
    xs = sorted({x for c in curves for x, _ in c})
    ys = []
    for x in xs:
        vals = []
        for c in curves:
            seen = [y for cx, y in c if cx <= x]
            vals.append(seen[-1] if seen else c[0][1])
        ys.append(float(np.mean(vals)))
    return [float(x) for x in xs], ys


def _cost(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    per_1k = [r["seconds_per_1k_examples"] for r in rows if r.get("seconds_per_1k_examples")]
    peak = [r["peak_mib"] for r in rows if r.get("peak_mib") is not None]
    out: dict[str, Any] = {
        "seconds_per_1k_examples": _mean_or_none(per_1k),
        "peak_mib": float(np.nanmax(peak)) if peak and not np.isnan(peak).all() else None,
        "memory": next((r.get("memory") for r in rows if r.get("memory")), None),
        "examples_seen": _mean_or_none([r["examples_seen"] for r in rows]),
        "device": next((r.get("machine", {}).get("device") for r in rows), None),
    }
    pre = [r["pretrain"] for r in rows if r.get("pretrain")]
    if pre:
        out["pretrain_seconds_per_1k_examples"] = _mean_or_none(
            [1000.0 * c["seconds"] / c["examples"] for c in pre if c.get("examples")]
        )
        out["pretrain_peak_mib"] = _mean_or_none([c.get("peak_mib") for c in pre])
    return out


def _diagnosis_means(diag: Mapping[str, Any]) -> dict[str, Any]:
    """Per method (the untrained start is ``start``): the mean over seeds of each axiom's
    fulfilment and perturbation agreement, and the instance counts."""
    out: dict[str, Any] = {"instances": diag.get("instances", {}), "fulfilment": {},
                           "agreement": {}}  # fmt: skip
    for part in ("fulfilment", "agreement"):
        groups: dict[str, list[Mapping[str, float]]] = {}
        for name, vals in (diag.get(part) or {}).items():
            groups.setdefault(name.rsplit(DIAGNOSE_SEP, 1)[0], []).append(vals)
        for method, rows in groups.items():
            keys = sorted({k for r in rows for k in r})
            out[part][method] = {
                k: _mean_or_none(
                    [r[k] for r in rows if r.get(k) is not None and not math.isnan(r[k])]
                )
                for k in keys
            }
    return out


# ---------------------------------------------------------------------- page
def _fmt(x: Any, spec: str = "{:.3f}") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return spec.format(x)


def render_markdown(plan: ComparePlan, res: Mapping[str, Any], figure: str | None) -> str:
    """The page: one table per start and collection, the diagnosis, the cost, the curves."""
    from axiomatic._report import markdown_table

    p = plan
    steps = max(1, p.examples // p.batch_size)
    m = res.get("machine") or machine()
    lines = [
        "# Which axiomatic training helps? Every method on equal terms",
        "",
        "Generated by `axiomatic experiment compare-training` (do not edit by hand; notes go "
        "in a `.notes.md` file beside this page). Every method fine-tunes the same start on "
        f"`{p.train}` ({p.dev_queries} training queries held out as dev, the same for every "
        f"run), sees at most {p.examples} training examples ({steps} steps of {p.batch_size} "
        f"pairs), is evaluated on dev (RR@10) at the start and every {p.eval_every} steps and "
        f"keeps its best dev checkpoint (which may be the start itself; patience "
        f"{p.patience}), for the seeds {p.seeds}. The learning rate is chosen per (start, "
        "method) on dev only, from the same grid for every method of a start ("
        + "; ".join(f"{s}: {p.lrs.get(s)}" for s in p.starts)
        + "); each method's own settings are its "
        "paper's defaults (below). Machine: "
        f"{m.get('platform', '')}, {m.get('cpu', '')}, {m.get('cpus', '')} cores, device "
        f"{m.get('device', 'cpu')}.",
        "",
        "Methods: " + "; ".join(f"`{k}`: {_method_text(k, p)}" for k in _listed_methods(p)) + ".",
        "",
    ]
    for start, sr in res["starts"].items():
        lines += [f"## Start: {start}", ""]
        sel = [
            {"method": k, "lr (dev-selected)": f"{v['lr']:g}",
             **{f"dev @ lr {g}": _fmt(d) for g, d in v["dev_by_lr"].items()},
             "best step per seed": ", ".join(f"{s}: {b}" for s, b in v["best_step"].items())}
            for k, v in sr["methods"].items()
        ]  # fmt: skip
        if sel:
            cols = list(sel[0])
            lines += ["Dev selection (mean best dev RR@10 over seeds per learning rate):", "",
                      markdown_table(sel, cols), ""]  # fmt: skip
        for coll, cr in sr["collections"].items():
            cmp = cr["comparison"]
            lines += [
                f"### {start} on {coll} ({cr['queries']} queries)",
                "",
                f"Mean (sd) over seeds; p: {cmp['family'] or 'no test (no plain baseline)'}; "
                "95% CI: t-interval of the mean per-query difference to plain (seed-averaged, "
                "unadjusted).",
                "",
            ]
            rows = []
            for system, stats in cr["table"].items():
                row: dict[str, Any] = {"method": system}
                for meas in MEASURES:
                    s = stats[meas]
                    row[meas] = _fmt(s["mean"]) + (f" ({_fmt(s['sd'])})" if s["seeds"] > 1 else "")
                    c = cmp["rows"].get(system, {}).get(meas)
                    if c is not None:
                        row[f"{meas} vs plain"] = (
                            f"{c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}] "
                            f"p={c['p_holm']:.3g}"
                        )
                        row[f"{meas} verdict"] = c["verdict"].split(" (")[0]
                rows.append(row)
            cols = ["method"]
            for meas in MEASURES:
                cols += [meas, f"{meas} vs plain", f"{meas} verdict"]
            lines += [markdown_table(rows, cols), "", _answer(cmp), ""]
        diag = sr.get("diagnosis")
        if diag:
            lines += [
                f"### {start}: what the methods did to the axioms",
                "",
                f"Fulfilment: fraction of the mined {p.diagnose_axioms} instances (the first "
                f"{p.diagnose_queries} queries of {p.diagnose_set}, BM25 top {p.diagnose_depth}, "
                f"own-list view) each model orders as the axiom says; Rosset agreement: "
                f"fraction of {p.agreement_pairs} perturbation pairs scored in the axiom's "
                "direction. Means over seeds (`start`: the untrained start). Instances: "
                + ", ".join(f"{k} {v}" for k, v in diag["instances"].items())
                + ".",
                "",
            ]
            ful = diag["fulfilment"]
            agr = diag["agreement"]
            methods = list(dict.fromkeys([*ful, *agr]))
            fcols = sorted({k for v in ful.values() for k in v})
            acols = sorted({k for v in agr.values() for k in v})
            rows = [
                {"model": k, **{c: _fmt(ful.get(k, {}).get(c)) for c in fcols},
                 **{f"agree {c}": _fmt(agr.get(k, {}).get(c)) for c in acols}}
                for k in methods
            ]  # fmt: skip
            lines += [markdown_table(rows, ["model", *fcols, *(f"agree {c}" for c in acols)]), ""]
    lines += ["## Cost", "", _cost_caption(res), ""]
    crow = []
    for start, sr in res["starts"].items():
        for method, c in sr["cost"].items():
            crow.append({
                "start": start, "method": method,
                "s / 1k examples": _fmt(c["seconds_per_1k_examples"], "{:.1f}"),
                "peak MiB": _fmt(c["peak_mib"], "{:.0f}"),
                "examples seen (mean)": _fmt(c["examples_seen"], "{:.0f}"),
                "pre-training s / 1k examples": _fmt(
                    c.get("pretrain_seconds_per_1k_examples"), "{:.1f}"
                ),
            })  # fmt: skip
    if crow:
        lines += [markdown_table(crow, list(crow[0])), ""]
    if figure:
        lines += [
            "## Learning curves",
            "",
            "Dev RR@10 against training examples seen (mean over seeds, selected learning "
            "rate; 0 examples is the start).",
            "",
            f"![learning curves]({figure})",
            "",
        ]
    return "\n".join(lines) + "\n"


def _answer(cmp: Mapping[str, Any]) -> str:
    """One sentence per table: which methods beat plain significantly, by how much."""
    if not cmp.get("rows"):
        return "No method was tested against plain here."
    parts: dict[str, list[str]] = {"helps": [], "hurts": []}
    for system, by_measure in cmp["rows"].items():
        for meas, c in by_measure.items():
            v = c["verdict"].split(" (")[0]
            if v in parts:
                parts[v].append(f"{system} on {meas} ({c['diff']:+.3f}, p={c['p_holm']:.3g})")
    text = "Significantly above plain (Holm p < 0.05): " + ("; ".join(parts["helps"]) or "none")
    if parts["hurts"]:
        text += ". Significantly below plain: " + "; ".join(parts["hurts"])
    return text + "."


def _listed_methods(p: ComparePlan) -> list[str]:
    return list(dict.fromkeys(m for s in p.starts for m in p.methods.get(s, [])))


def _method_text(method: str, p: ComparePlan) -> str:
    own = {**METHODS[method], **p.method_config.get(method, {})}
    if method == "ares":
        return (
            f"ARES_{p.ares_variant} pre-training on {', '.join(p.ares_collections)} "
            f"({p.ares_steps} steps of {p.ares_batch_size}, lr {p.ares_lr:g}; extra compute, "
            "in the cost table), then plain fine-tuning"
        )
    if not own:
        return "pairwise hinge fine-tuning"
    text = ", ".join(f"{k}={v}" for k, v in own.items())
    if method == "rennings":
        text += f" (weak labeler {p.weak_axiom}, mined on the training queries)"
    return text


def _cost_caption(res: Mapping[str, Any]) -> str:
    kinds = {c.get("memory") for s in res["starts"].values() for c in s["cost"].values()}
    kinds.discard(None)
    return (
        "Wall seconds of training per 1,000 examples seen (dev evaluations included: the same "
        "for every method), mean over the selected runs; peak memory: "
        + (", ".join(sorted(kinds)) or "not measured")
        + ", the largest over the seeds (on CPU the growth over the process' size when the run "
        "started: memory an earlier run freed and this one reused is not counted, so compare "
        "CPU figures loosely; on CUDA the peak of allocated tensors, reset per run). Runs of "
        "one invocation run one after the other on the same machine."
    )

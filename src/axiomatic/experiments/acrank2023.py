"""Bo et al. (2023), "ACRank: contrastive learning of axiomatic matching signals" (in Chinese;
English summary in docs/acrank.md, "The method in English"), at the scale of the staged data.

What runs (every part configurable in a plan TOML, ``[plan]`` table):

- Tables 3 / 4: rows KNRM, Conv-KNRM, the MiniLM cross-encoder ("BERT"), AP(TFC-A / TFC-D /
  TFC-A&D) and ACRank(TFC-A / TFC-D / TFC-A&D) per setting (English MS MARCO with zero-shot TREC
  DL 2019, English SciFact, Chinese QBQTC); NDCG@1, NDCG@10, MAP; paired t-test of every row
  against each ACRank variant over the test queries, Holm-corrected per ACRank variant and
  measure.
- Tables 5 / 6: ablations w/E() (signal extraction + baseline hinge loss), w/L() ([CLS] + MLP
  with the contrastive loss), w/E()&L() (= ACRank) on original and on augmented data.
- Figure 4: the effect of p for one rule.
- Diagnosis of the trained models (TFC1, TFC2, M-TDC, LNC2 relaxed, mined on the test queries)
  and the Rosset perturbation agreement (TFC1-A, TFC1-D, TFC3, LNC), next to the plain
  cross-encoder: does ACRank raise TFC fulfilment?

A row is a *unit* ``(model, rule, loss, p, seed)``; units shared by rows (ACRank(TFC-A&D) is also
"w/E()&L() TFC-A&D") train once. Each unit has its own folder
(``runs/<setting>/<unit>/seed<k>``), is reused when finished and resumed from its checkpoint
when interrupted, both only when its record (``unit.json``: every setting and the data's
fingerprints, :mod:`axiomatic.experiments.units`) equals the plan's: a unit of other settings
is refused, naming what differs (``--overwrite`` redoes it). ``--report-only`` summarizes the
finished units of the plan's settings.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from axiomatic._params import param_meta
from axiomatic._report import markdown_table, new_figure
from axiomatic._suggest import suggest
from axiomatic.data.records import Dataset
from axiomatic.experiments.common import (
    load_split,
    mean_values,
    per_query,
    read_json,
    write_json,
)
from axiomatic.experiments.diagnosis import ROSSET_AXIOMS, diagnosis_tables
from axiomatic.experiments.engine import THREADS, Plan, Runner, candidate_run, register_experiment
from axiomatic.experiments.schedule import run_runner_units
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
    fingerprint,
)
from axiomatic.training.config import TRAIN_PARAMS

MEASURES = ("nDCG@1", "nDCG@10", "AP")
LABELS = {"nDCG@1": "NDCG@1", "nDCG@10": "NDCG@10", "AP": "MAP"}
ACRANK_ROWS = ("ACRank(TFC-A)", "ACRank(TFC-D)", "ACRank(TFC-A&D)")
CANDIDATES_ROW = "candidate order"
"""The re-ranked list in its given order (BM25 for msmarco-dev-top20 and trec-dl-2019/bm25)."""
DOCS_BEGIN = "<!-- BEGIN GENERATED (axiomatic experiment acrank2023) -->"
DOCS_END = "<!-- END GENERATED -->"
UNIT_CODE = 1
"""Version of how a unit is computed (in every unit's record): bump it when a change of the code
changes a unit's results, so that units of the older code are refused instead of reused."""


@dataclass(frozen=True)
class Unit:
    """One training run: ``model`` is knrm, conv-knrm, cross-encoder, acrank (E()) or
    acrank-cls (w/L()); ``loss`` infonce (L()) or hinge (baseline; edits as extra pairs)."""

    model: str
    rule: str = "none"
    loss: str = "hinge"
    p: float = 0.5

    @property
    def slug(self) -> str:
        rule = self.rule.replace("&", "").lower()
        p = "" if self.rule == "none" else f"-p{self.p:g}"
        return f"{self.model}-{rule}-{self.loss}{p}"


def row_unit(row: str, p: float) -> Unit:
    """The unit behind a table row name (see :data:`ROW_NAMES`)."""
    rows = {
        "KNRM": Unit("knrm"),
        "Conv-KNRM": Unit("conv-knrm"),
        "cross-encoder": Unit("cross-encoder"),
        "w/E() original": Unit("acrank", "none", "hinge"),
        "w/L() original": Unit("acrank-cls", "none", "infonce"),
        "w/E()&L() original": Unit("acrank", "none", "infonce"),
    }
    for rule in ("TFC-A", "TFC-D", "TFC-A&D"):
        rows[f"AP({rule})"] = Unit("cross-encoder", rule, "hinge", p)
        rows[f"ACRank({rule})"] = Unit("acrank", rule, "infonce", p)
        rows[f"w/E() {rule}"] = Unit("acrank", rule, "hinge", p)
        rows[f"w/L() {rule}"] = Unit("acrank-cls", rule, "infonce", p)
        rows[f"w/E()&L() {rule}"] = Unit("acrank", rule, "infonce", p)
    if row not in rows:
        raise ValueError(
            f"unknown acrank2023 row {row!r}{suggest(row, rows, n=2)}; "
            f"expected one of {', '.join(rows)}"
        )
    return rows[row]


MAIN_ROWS = (
    "KNRM",
    "Conv-KNRM",
    "cross-encoder",
    "AP(TFC-A)",
    "AP(TFC-D)",
    "AP(TFC-A&D)",
    *ACRANK_ROWS,
)


@dataclass
class SettingPlan:
    """One dataset setting: train on ``train``, test on ``test`` and zero-shot on
    ``zero_shot``; ``train_queries`` / ``test_queries`` cap the query counts (seeded subsets)."""

    name: str
    train: str
    test: str
    zero_shot: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=lambda: list(MAIN_ROWS))
    ablation_rows: list[str] = field(default_factory=list)
    p_sweep: list[float] = field(default_factory=list)
    p_sweep_rule: str = "TFC-D"
    train_queries: int | None = None
    test_queries: int | None = None
    zero_shot_queries: int | None = None
    zero_shot_rows: list[str] | None = None
    max_length: int | None = None
    diagnose: bool = True


@dataclass
class ACRankPlan(Plan):
    """What to run. ``full()`` is the paper-shaped plan; ``quick()`` a CI-sized one."""

    TABLES: ClassVar = {"settings": SettingPlan}
    REFUSED: ClassVar = {
        "models": "acrank2023 selects rows per setting: set settings.rows in --config"
    }

    settings: list[SettingPlan]
    seeds: list[int] = field(
        default_factory=lambda: [0],
        metadata=TRAIN_PARAMS["seed"].meta(description="training seeds: one run per seed"),
    )
    p: float = field(
        default=0.5,
        metadata=param_meta(
            ge=0, le=1, description="probability of perturbing each query term (TFC-A / TFC-D)"
        ),
    )
    steps: int = field(default=300, metadata=TRAIN_PARAMS["steps"].meta())
    steps_per_model: dict[str, int] = field(default_factory=dict)
    batch_size: int = field(default=8, metadata=TRAIN_PARAMS["batch_size"].meta())
    negatives: int = field(
        default=3,
        metadata=param_meta(ge=1, description="non-relevant documents per contrastive example"),
    )
    lr: float = field(
        default=2e-5,
        metadata=TRAIN_PARAMS["lr"].meta(description="learning rate of the BERT-based rows"),
    )
    lr_word: float = field(
        default=1e-3,
        metadata=TRAIN_PARAMS["lr"].meta(
            description="learning rate of the word-level rows (KNRM, Conv-KNRM)"
        ),
    )
    max_length: int = field(
        default=256, metadata=param_meta(ge=1, description="tokens of query and document kept")
    )
    train_depth: int = field(
        default=20, metadata=param_meta(ge=1, description="BM25 candidates per training query")
    )
    test_depth: int = field(
        default=20, metadata=param_meta(ge=1, description="BM25 candidates per test query")
    )
    zero_shot_depth: int = field(
        default=100, metadata=param_meta(ge=1, description="BM25 candidates per zero-shot query")
    )
    dev_queries: int = field(default=0, metadata=TRAIN_PARAMS["dev_queries"].meta())
    eval_every: int = field(default=100, metadata=TRAIN_PARAMS["eval_every"].meta())
    embeddings: str = "word2vec"
    word_model_config: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "knrm": {"max_doc_len": 128},
            "conv-knrm": {"max_doc_len": 128, "n_filters": 64},
        }
    )
    acrank_config: dict[str, Any] = field(default_factory=dict)
    encoder_path: str | None = None
    diagnose_axioms: str = "TFC1,TFC2,M-TDC,LNC2"
    diagnose_queries: int = field(
        default=30, metadata=param_meta(ge=1, description="queries diagnosed")
    )
    diagnose_depth: int = field(
        default=10, metadata=param_meta(ge=1, description="candidates diagnosed per query")
    )
    diagnose_rows: list[str] = field(
        default_factory=lambda: ["cross-encoder", "AP(TFC-A&D)", *ACRANK_ROWS]
    )
    agreement_pairs: int = field(
        default=100,
        metadata=param_meta(ge=0, description="document pairs of the axiom-agreement table"),
    )
    threads: int | None = field(default=1, metadata=THREADS.meta())
    data_root: str | None = None
    docs: str | None = None
    budget_note: str = ""

    @classmethod
    def full(cls) -> ACRankPlan:
        abl = [
            "w/E() original",
            "w/L() original",
            "w/E()&L() original",
            *[f"{a} {r}" for r in ("TFC-A", "TFC-D", "TFC-A&D") for a in ("w/E()", "w/L()")],
        ]
        return cls(
            settings=[
                SettingPlan(
                    "msmarco",
                    "msmarco-dev-top20/train",
                    "msmarco-dev-top20/test",
                    zero_shot=["trec-dl-2019/bm25"],
                    ablation_rows=abl,
                    p_sweep=[0.1, 0.3, 0.5, 0.7, 1.0],
                ),
                SettingPlan("scifact", "scifact/train", "scifact/test"),
                SettingPlan("qbqtc", "qbqtc/train", "qbqtc/test", ablation_rows=abl),
            ],
            seeds=[0, 1],
        )

    @classmethod
    def quick(cls) -> ACRankPlan:
        return cls(
            settings=[
                SettingPlan(
                    "demo",
                    "demo/train",
                    "demo/test",
                    rows=["KNRM", "cross-encoder", "AP(TFC-A&D)", *ACRANK_ROWS],
                    ablation_rows=["w/L() TFC-A&D"],
                    p_sweep=[1.0],
                    p_sweep_rule="TFC-A&D",
                )
            ],
            steps=2,
            batch_size=2,
            negatives=2,
            max_length=48,
            lr=1e-4,
            embeddings="random",
            word_model_config={"knrm": {"embedding_dim": 16, "max_doc_len": 48}},
            diagnose_queries=2,
            diagnose_depth=4,
            diagnose_axioms="TFC1,LNC2",
            diagnose_rows=["cross-encoder", "ACRank(TFC-A&D)"],
            agreement_pairs=6,
        )


def _slug(name: str) -> str:
    return name.replace("/", "_")


@dataclass
class _Data:
    train: Dataset
    test: Dataset
    zero_shot: dict[str, Dataset]
    vocab_texts: list[str]
    language: str
    fingerprints: dict[str, str] = field(default_factory=dict)
    """Content hashes of the training / test data and the vocabulary texts (unit inputs)."""


def _cap_queries(ds: Dataset, n: int | None, seed: int, split: str) -> Dataset:
    usable = sorted(
        q for q in ds.queries if any(g >= ds.rel_threshold for g in ds.judged(q).values())
    )
    if n is None or n >= len(usable):
        return ds.subset(usable, split=split)
    order = np.random.default_rng([seed, 8081]).permutation(len(usable))
    return ds.subset(sorted(usable[int(i)] for i in order[:n]), split=split)


@register_experiment(
    "acrank2023",
    summary="contrastive learning of axiomatic matching signals (Tables 3-6, Figure 4)",
    paper="Bo et al., 2023 (ACRank)",
    dask=True,
)
class ACRank2023(Runner):
    """Runner (see the module docstring). ``run()`` does everything not done yet."""

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
        want = {n: self._zero_shot_fingerprint(data.zero_shot[n]) for n in sp.zero_shot}
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

    def _zero_shot_fingerprint(self, ds: Dataset) -> str:
        return fingerprint(
            {"depth": self.plan.zero_shot_depth, "code": UNIT_CODE},
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

    # ------------------------------------------------------------------ reporting
    def _current(self, sp: SettingPlan, unit: Unit, seed: int, stale: set[Path]) -> bool:
        """Whether the unit is finished with this plan's settings (a unit of another plan in
        the same folder is not reported under this one; it is added to ``stale``)."""
        d = self._unit_dir(sp, unit, seed)
        if not (d / "test_metrics.json").exists():
            return False
        if self.store.matches(d, self.unit_settings(sp, unit, seed)):
            return True
        stale.add(d)
        return False

    def _zero_shot_done(self, run_file: Path, name: str) -> bool:
        """Whether ``run_file`` was scored at the plan's ``zero_shot_depth`` (an unrecorded or
        other depth is an earlier plan's run, not comparable with this plan's rows)."""
        f = run_file.parent / "test_metrics.json"
        depths = read_json(f).get("zero_shot_depth", {}) if f.exists() else {}
        return bool(depths.get(name) == self.plan.zero_shot_depth)

    def results(self) -> dict[str, Any]:
        """Summarize every finished unit on disk (works while units are still missing)."""
        from axiomatic.evaluate.significance import compare_to_baseline

        p = self.plan
        tables: list[dict[str, Any]] = []
        # "setting|test set|ACRank variant" -> the caption line of its p-values
        families: dict[str, str] = {}
        sweep: list[dict[str, Any]] = []
        diagnosis: dict[str, Any] = {}
        total_train = 0.0
        aug_stats: dict[str, dict[str, int]] = {}
        stale: set[Path] = set()
        for sp in p.settings:
            row_names = [*sp.rows, *sp.ablation_rows]
            units = {r: row_unit(r, p.p) for r in row_names}
            metrics: dict[str, list[dict[str, Any]]] = {}
            for r, u in units.items():
                ms = []
                for seed in p.seeds:
                    f = self._unit_dir(sp, u, seed) / "test_metrics.json"
                    if self._current(sp, u, seed, stale):
                        ms.append(read_json(f))
                metrics[r] = ms
            for u in self.units_of(sp):
                for seed in p.seeds:
                    f = self._unit_dir(sp, u, seed) / "test_metrics.json"
                    if self._current(sp, u, seed, stale):
                        m = read_json(f)
                        total_train += float(m.get("train_seconds", 0.0))
                        if u.rule != "none":
                            aug_stats[f"{sp.name} {u.slug} seed{seed}"] = _log_counts(
                                f.parent / "log.jsonl", p.batch_size
                            )
            test_sets: list[str] = [sp.test, *sp.zero_shot]
            needs_data = any(metrics.values())
            data = self._data(sp) if needs_data else None
            for ts in test_sets:
                if data is None:
                    break
                ds = data.test if ts == sp.test else data.zero_shot[ts]
                pq: dict[str, dict[str, dict[str, float]]] = {}
                for r in row_names:
                    vals = []
                    for seed in p.seeds:
                        f = self._unit_dir(sp, units[r], seed) / f"run_{_slug(ts)}.json"
                        if not self._current(sp, units[r], seed, stale):
                            continue
                        if f.exists() and (ts == sp.test or self._zero_shot_done(f, ts)):
                            vals.append(per_query(read_json(f), ds, MEASURES))
                    if vals:  # mean over seeds, per query
                        pq[r] = {
                            m: {q: float(np.mean([v[m][q] for v in vals])) for q in vals[0][m]}
                            for m in MEASURES
                        }
                if pq:  # the first-stage order the models re-rank (BM25 for MS MARCO, DL19)
                    pq = {CANDIDATES_ROW: per_query(candidate_run(ds), ds, MEASURES), **pq}
                for r, vals_r in pq.items():
                    row: dict[str, Any] = {
                        "setting": sp.name,
                        "test": ts,
                        "row": r,
                        "table": "ablation" if r in sp.ablation_rows else "main",
                        "seeds": len(metrics[r]) if r in metrics else None,
                        "queries": len(next(iter(vals_r.values()))),
                    }
                    for m in MEASURES:
                        row[LABELS[m]] = float(np.mean(list(vals_r[m].values())))
                    tables.append(row)
                # paired t-tests of every row against each ACRank variant: Holm over the rows
                # compared with that variant on one measure (the project's one policy)
                for ac in ACRANK_ROWS:
                    if ac not in pq:
                        continue
                    cmp = compare_to_baseline(pq, ac, test="t", noun="rows")
                    families[f"{sp.name}|{ts}|{ac}"] = cmp.family
                    for c in cmp:
                        row = next(
                            x
                            for x in tables
                            if x["test"] == ts and x["row"] == c.system and x["setting"] == sp.name
                        )
                        row[f"p {LABELS[c.measure]} vs {ac}"] = float(c.p_holm)
                        row[f"diff {LABELS[c.measure]} vs {ac}"] = float(c.diff)
            if data is not None:
                for pv in sorted({*sp.p_sweep, p.p}):
                    u = Unit("acrank", sp.p_sweep_rule, "infonce", float(pv))
                    f = self._unit_dir(sp, u, p.seeds[0]) / "test_metrics.json"
                    if sp.p_sweep and self._current(sp, u, p.seeds[0], stale):
                        m = read_json(f)["test"][sp.test]
                        sweep.append(
                            {"setting": sp.name, "rule": sp.p_sweep_rule, "p": pv}
                            | {LABELS[k]: v for k, v in m.items()}
                        )
            dfile = self.out_dir / "diagnosis" / sp.name / "diagnosis.json"
            if dfile.exists() and self.store.matches(dfile.parent, self._diagnosis_settings(sp)):
                diagnosis[sp.name] = read_json(dfile)
        if stale:
            self.note(
                f"{len(stale)} finished unit(s) in {self.out_dir} were computed with other "
                "settings than this plan's and are not reported (e.g. "
                f"{self.store._name(min(stale))}); run the experiment with --overwrite to redo them"
            )
        return {
            "rows": tables,
            "significance": families,
            "p_sweep": sweep,
            "diagnosis": diagnosis,
            "augmentation_stats": aug_stats,
            "train_seconds_total": round(total_train, 1),
        }

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """The main rows per (setting, test set), the p sweep and the diagnosis per setting."""
        summary = results
        out: dict[str, Any] = {}
        rows = [r for r in summary["rows"] if r["table"] == "main"]
        for setting, ts in sorted({(r["setting"], r["test"]) for r in rows}):
            sel = [r for r in rows if r["setting"] == setting and r["test"] == ts]
            fig, ax = new_figure(figsize=(7, 3.4))
            x = np.arange(len(sel))
            for i, m in enumerate(("NDCG@1", "NDCG@10", "MAP")):
                ax.bar(x + (i - 1) * 0.27, [r[m] for r in sel], width=0.27, label=m)
            ax.set_xticks(x, [r["row"] for r in sel], rotation=35, ha="right", fontsize=7)
            ax.set_title(f"ACRank rows: {setting}, test {ts}", fontsize=9)
            ax.legend(fontsize=7)
            fig.tight_layout()
            out[f"acrank_main_{setting}_{_slug(ts)}.png"] = fig
        if summary["p_sweep"]:
            for setting in sorted({r["setting"] for r in summary["p_sweep"]}):
                pts = sorted(
                    (r for r in summary["p_sweep"] if r["setting"] == setting),
                    key=lambda r: r["p"],
                )
                fig, ax = new_figure(figsize=(4.5, 3.2))
                for m in ("NDCG@1", "NDCG@10", "MAP"):
                    ax.plot([r["p"] for r in pts], [r[m] for r in pts], marker="o", label=m)
                ax.set_xlabel(f"p ({pts[0]['rule']})")
                ax.set_title(f"Fig. 4 analogue: effect of p, {setting}", fontsize=9)
                ax.legend(fontsize=7)
                fig.tight_layout()
                out[f"acrank_p_{setting}.png"] = fig
        for setting, diag in summary["diagnosis"].items():
            ful = diag.get("fulfilment") or {}
            agr = diag.get("agreement") or {}
            if not ful and not agr:
                continue
            fig, (a1, a2) = new_figure(1, 2, figsize=(9, 3.2))
            for ax, data, title in ((a1, ful, "mined axioms"), (a2, agr, "perturbation agreement")):
                names = list(data)
                cols = sorted({c for v in data.values() for c in v})
                x = np.arange(len(cols))
                w = 0.8 / max(1, len(names))
                for i, n in enumerate(names):
                    ax.bar(x + i * w, [data[n].get(c, np.nan) for c in cols], width=w, label=n)
                ax.set_xticks(x + 0.4 - w / 2, cols, fontsize=7)
                ax.set_ylim(0, 1)
                ax.set_title(title, fontsize=9)
            a2.legend(fontsize=6)
            fig.suptitle(f"Diagnosis of trained models: {setting}", fontsize=9)
            fig.tight_layout()
            out[f"acrank_diagnosis_{setting}.png"] = fig
        return out

    def summary(self, results: Mapping[str, Any]) -> str:
        summary, figs = results, list(self.drawn(results))
        p = self.plan
        text = [
            "# ACRank (Bo et al. 2023) - reproduction at the staged data's scale",
            "",
            f"Seeds {p.seeds}; p = {p.p}; {p.steps} steps (per model: {p.steps_per_model or 'same'}), "
            f"batch {p.batch_size} queries, {p.negatives} sampled negatives (InfoNCE), max length "
            f"{p.max_length} word pieces (per setting: "
            + ", ".join(f"{s.name} {s.max_length or p.max_length}" for s in p.settings)
            + f"), lr {p.lr} (transformers) / {p.lr_word} (word models), threads {p.threads}. "
            f"Training time of all finished units: {summary['train_seconds_total']:.0f} s. "
            + (p.budget_note or ""),
            "",
            "Metric values are means over test queries (per-query values averaged over seeds). "
            "p: paired t-test over test queries against the named ACRank variant, Holm-corrected "
            "over the rows compared with that variant on one measure (main and ablation rows of "
            "a test set together; each table states its family); diff = row - ACRank.",
        ]
        for table, title in (
            ("main", "Tables 3/4: main rows"),
            ("ablation", "Tables 5/6: ablations"),
        ):
            rows = [r for r in summary["rows"] if r["table"] == table]
            if not rows:
                continue
            text += ["", f"## {title}", ""]
            for setting, ts in sorted({(r["setting"], r["test"]) for r in rows}):
                sel = [r for r in rows if r["setting"] == setting and r["test"] == ts]
                text += [f"### {setting}: test {ts} ({sel[0]['queries']} queries)", ""]
                cols = ["row", "seeds", "NDCG@1", "NDCG@10", "MAP"]
                stated = []
                for ac in ACRANK_ROWS:
                    if any(f"p NDCG@10 vs {ac}" in r for r in sel):
                        cols.append(f"p NDCG@10 vs {ac}")
                        fam = summary.get("significance", {}).get(f"{setting}|{ts}|{ac}")
                        if fam:
                            stated.append(fam)
                text += [markdown_table(sel, cols), ""]
                if stated:
                    text += ["p: " + " | ".join(stated) + ".", ""]
        if summary["p_sweep"]:
            text += [
                "## Figure 4: effect of p",
                "",
                markdown_table(
                    summary["p_sweep"], ["setting", "rule", "p", "NDCG@1", "NDCG@10", "MAP"]
                ),
                "",
            ]
        for setting, diag in summary["diagnosis"].items():
            text += [
                f"## Diagnosis of the trained models: {setting}",
                "",
                f"{diag.get('queries')} test queries, first {p.diagnose_depth} candidates; "
                f"instances per axiom: {diag.get('instances')}. Fraction of instances each "
                "model orders as the axiom says (LNC2 relaxed, default variants of the "
                "catalogue):",
                "",
                *diagnosis_tables(diag, "test pairs"),
            ]
        if summary["augmentation_stats"]:
            text += [
                "## Augmentation counts (summed over each unit's log.jsonl)",
                "",
                "documents: relevant documents drawn for training; plus / minus: TFC-A / TFC-D "
                "edits made (the rest: no term drawn, or for TFC-D no visible query-term "
                "occurrence = no_query_term); all_stopword_queries: no edit possible. Items "
                "without an edit were trained on their original list only.",
                "",
                markdown_table(
                    [{"unit": k, **v} for k, v in summary["augmentation_stats"].items()],
                    [
                        "unit",
                        "documents",
                        "plus",
                        "minus",
                        "no_query_term",
                        "all_stopword_queries",
                    ],
                ),
                "",
            ]
        m = summary["machine"]
        text += [
            "## Machine",
            "",
            f"{m['platform']}; {m['cpus']} CPUs ({m['cpu']}); torch {m['torch']} "
            f"({m['device']}); load average at report time {m['load']}.",
            "",
            "Figures: " + ", ".join(figs),
        ]
        return "\n".join(text) + "\n"

    docs_notes = False  # the page's own text surrounds the generated block

    def docs_page(self, results: Mapping[str, Any], page: Path) -> str:
        """``page`` (created when missing) with its generated block replaced by the report
        (figures in the page's ``img/``) and the plan as run."""
        body = self.summary(results).replace(
            "# ACRank (Bo et al. 2023) - reproduction", "### Reproduction", 1
        )
        for name in self.drawn(results):
            body += f"\n![{Path(name).stem}](img/{name})\n"
        cfg = (self.out_dir / "config.toml").read_text(encoding="utf-8")
        block = f"{DOCS_BEGIN}\n\n{body}\nPlan (as run):\n\n```toml\n{cfg}```\n\n{DOCS_END}"
        old = page.read_text(encoding="utf-8") if page.exists() else "# ACRank\n\n"
        if DOCS_BEGIN in old and DOCS_END in old:
            head, rest = old.split(DOCS_BEGIN, 1)
            tail = rest.split(DOCS_END, 1)[1]
            return head + block + tail
        return old.rstrip() + "\n\n" + block + "\n"


def _log_counts(log: Path, batch_size: int) -> dict[str, int]:
    """Augmentation counts summed over a unit's ``log.jsonl`` (every step, across resumes)."""
    from axiomatic.training.checkpoint import read_log

    recs = read_log(log)
    out = {"documents": len(recs) * batch_size}
    for key in ("aug_plus", "aug_minus", "aug_no_query_term", "aug_all_stopword_queries"):
        out[key.removeprefix("aug_")] = int(sum(r.get(key, 0) for r in recs))
    return out

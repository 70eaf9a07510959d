"""Liu et al., "Cross-Lingual Document Retrieval with Smooth Learning" (smooth cosine similarity
+ Smooth Ordinal Search Loss), reproduced at the scale of the staged collections.

Parts (``plan.parts``):

- ``table2``: losses (SOSL, 3PartL2, MSE, PO) x document languages, eps = 1, average pooling;
- ``table3``: encoders (average pooling, DSSM-CNN, DSSM-LSTM) with SOSL;
- ``fig3``: density of the predicted scores on training examples, per grade and loss;
- ``fig4``: eps sweep 0 .. 2 with the thresholds grid-searched on **dev** (test never used);
- ``fig5``: number of NR documents per query (20 .. 100);
- ``stability``: loss and gradient-norm curves, eps = 0 vs eps > 0, with and without gradient
  clipping, over several seeds (variance across seeds, divergences counted);
- ``nfcorpus``: the losses on NFCorpus (monolingual, grades 3-2-1 + unjudged 0: K = 4);
- ``sasaki``: SOSL vs MSE on a user's Sasaki et al. (2018) files (``--sasaki DIR``).

Every training run is a unit with its own folder (``runs/<setting>/<language>/<encoder>/<loss>/
<variant>/seed<k>``) holding the trainer's checkpoint, log and model (loadable as
``model:DIR/model``); finished units are reused and interrupted ones resumed, so the command
can be stopped and restarted at any point, both only when the unit's record (``unit.json``:
every setting and the data's fingerprints, :mod:`axiomatic.experiments.units`) equals the
plan's: a unit of other settings is refused, naming what differs (``--overwrite`` redoes it).
The engine's ``report()`` summarizes whatever is finished with the plan's settings.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic._params import param_meta
from axiomatic._report import markdown_table, new_figure
from axiomatic.data.records import Dataset
from axiomatic.evaluate.clir_metrics import (
    CLIR_MEASURE_NAMES,
    evaluate_clir_per_query,
    relevance_levels,
)
from axiomatic.experiments.common import read_json, write_json
from axiomatic.experiments.engine import THREADS, Plan, Runner, register_experiment, smooth
from axiomatic.experiments.schedule import run_runner_units
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
)
from axiomatic.training.config import TRAIN_PARAMS
from axiomatic.training.smooth import DISPLAY, validate_thresholds

PARTS = ("table2", "table3", "fig3", "fig4", "fig5", "stability", "nfcorpus", "sasaki")
HIGH_RESOURCE = ("de", "es", "ru", "zh", "fr", "it")
SIG = "significant (Holm p<0.05; ref+ = reference higher)"
UNIT_CODE = 1
"""Version of how a unit is computed (in every unit's record): bump it when a change of the code
changes a unit's results, so that units of the older code are refused instead of reused."""
# NR documents per query of the main units (Unit.nr, in the unit's folder name): the paper's 40,
# the generated CI set's 8 (it has few paragraphs)
DEFAULT_NR = {"synthetic": 8}
EMBEDDING_SETTINGS = (
    "embedding_dim",
    "embeddings",
    "shared_embeddings",
    "max_query_len",
    "max_doc_len",
)
"""The plan settings of the towers every unit (and zero-shot scoring) records."""


@dataclass
class LiuPlan(Plan):
    """What to run. ``full()`` is the paper-shaped configuration (configs/liu-smooth-full.toml);
    ``quick()`` a CI-sized one on a generated graded set."""

    setting: str = "xquad"  # "xquad" or "synthetic" (generated, CI)
    query_language: str = "en"
    languages: list[str] = field(default_factory=lambda: ["de", "es", "zh", "ru", "ar", "hi"])
    losses: list[str] = field(default_factory=lambda: ["sosl", "3partl2", "mse", "po"])
    thresholds: list[float] = field(default_factory=lambda: [0.2, 0.7])
    eps: float = field(
        default=1.0,
        metadata=param_meta(ge=0, description="smoothing of the smooth cosine similarity"),
    )
    seeds: list[int] = field(
        default_factory=lambda: [0],
        metadata=TRAIN_PARAMS["seed"].meta(description="training seeds: one run per seed"),
    )
    epochs: float = field(default=30.0, metadata=TRAIN_PARAMS["epochs"].meta())
    batch_size: int = field(default=128, metadata=TRAIN_PARAMS["batch_size"].meta())
    lr: float = field(default=0.01, metadata=TRAIN_PARAMS["lr"].meta())
    # 0 = no clipping (the paper's main runs)
    grad_clip: float = field(
        default=0.0,
        metadata=TRAIN_PARAMS["grad_clip"].meta(
            description="clip the total gradient norm to this (0: no clipping, the paper's main runs)"
        ),
    )
    embedding_dim: int = field(
        default=64, metadata=param_meta(ge=1, description="word embedding size")
    )
    # or "minilm" (MiniLM word-piece means) or "random"
    embeddings: str = field(
        default="word2vec", metadata=param_meta(choices=("word2vec", "minilm", "random"))
    )
    word2vec_epochs: int = field(
        default=10, metadata=param_meta(ge=1, description="word2vec training epochs")
    )
    shared_embeddings: bool = False  # one embedding table for both towers (not the paper's)
    # XQuAD NR documents: "split" (canonical: other articles of the same split) or "all-leaky"
    # (all other articles: puts every test paragraph into training as NR; old name "all" refused)
    nr_pool: str = "split"
    max_query_len: int = field(
        default=32, metadata=param_meta(ge=1, description="query tokens kept")
    )
    max_doc_len: int = field(
        default=160, metadata=param_meta(ge=1, description="document tokens kept")
    )
    encoders: list[str] = field(default_factory=lambda: ["avg", "cnn", "lstm"])
    encoder_languages: list[str] = field(default_factory=lambda: ["de", "hi"])
    encoder_settings: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "cnn": {"lr": 0.001, "batch_size": 128, "epochs": 30},
            "lstm": {"lr": 0.001, "batch_size": 64, "epochs": 15},
        }
    )
    sweep_language: str = "de"
    eps_grid: list[float] = field(
        default_factory=lambda: [0.0, 0.25, 0.5, 1.0, 1.5, 2.0],
        metadata=param_meta(ge=0, description="eps values of the sweep (Figure 4)"),
    )
    threshold_grid: list[list[float]] = field(
        default_factory=lambda: [[0.2, 0.7], [0.0, 0.5], [0.4, 0.8]]
    )
    sweep_epochs: float | None = field(
        default=None,
        metadata=TRAIN_PARAMS["epochs"].meta(description="epochs of the sweeps (None: epochs)"),
    )
    selection_measure: str = "NDCG@5"  # dev measure choosing the thresholds of Figure 4
    nr_grid: list[int] = field(
        default_factory=lambda: [20, 40, 60, 80, 100],
        metadata=param_meta(ge=1, description="non-relevant documents per query of the NR sweep"),
    )
    nr_epochs: float | None = field(
        default=None,
        metadata=TRAIN_PARAMS["epochs"].meta(description="epochs of the NR sweep (None: epochs)"),
    )
    stability_eps: list[float] = field(
        default_factory=lambda: [0.0, 1.0],
        metadata=param_meta(ge=0, description="eps values of the stability runs"),
    )
    stability_clip: list[float] = field(
        default_factory=lambda: [0.0, 1.0],
        metadata=param_meta(ge=0, description="gradient clipping of the stability runs (0: none)"),
    )
    stability_seeds: list[int] = field(
        default_factory=lambda: [0, 1, 2],
        metadata=TRAIN_PARAMS["seed"].meta(description="seeds of the stability runs"),
    )
    stability_epochs: float = field(
        default=3.0,
        metadata=TRAIN_PARAMS["epochs"].meta(description="epochs of the stability runs"),
    )
    stability_lr: float = field(
        default=0.01,
        metadata=TRAIN_PARAMS["lr"].meta(description="learning rate of the stability runs"),
    )
    fig3_language: str = "de"
    nfcorpus_train_queries: int = field(
        default=500, metadata=param_meta(ge=1, description="NFCorpus training queries")
    )
    nfcorpus_depth: int = field(
        default=30, metadata=param_meta(ge=1, description="BM25 candidates per NFCorpus query")
    )
    nfcorpus_thresholds: list[float] = field(default_factory=lambda: [0.0, 0.4, 0.7])
    nfcorpus_epochs: float | None = field(
        default=None,
        metadata=TRAIN_PARAMS["epochs"].meta(
            description="epochs of the NFCorpus runs (None: epochs)"
        ),
    )
    sasaki: str | None = None
    sasaki_epochs: float | None = field(
        default=None,
        metadata=TRAIN_PARAMS["epochs"].meta(
            description="epochs of the Sasaki runs (None: epochs)"
        ),
    )
    parts: list[str] = field(
        default_factory=lambda: list(PARTS),
        metadata=param_meta(choices=PARTS, description="parts of the report to compute"),
    )
    threads: int | None = field(default=1, metadata=THREADS.meta())
    data_root: str | None = None
    docs: str | None = None  # also write the report (and its plots) to this markdown file
    note: str = ""  # free text for the report (what was reduced and why)

    @classmethod
    def quick(cls) -> LiuPlan:
        return cls(
            setting="synthetic",
            languages=["xx"],
            epochs=4,
            batch_size=32,
            lr=0.05,
            embedding_dim=16,
            word2vec_epochs=3,
            encoder_languages=["xx"],
            encoder_settings={
                "cnn": {"lr": 0.01, "batch_size": 32, "epochs": 2},
                "lstm": {"lr": 0.01, "batch_size": 32, "epochs": 2},
            },
            sweep_language="xx",
            eps_grid=[0.0, 1.0],
            threshold_grid=[[0.2, 0.7], [0.0, 0.5]],
            sweep_epochs=3,
            nr_grid=[4, 8],
            nr_epochs=3,
            stability_seeds=[0, 1],
            stability_epochs=2,
            fig3_language="xx",
            parts=[p for p in PARTS if p != "nfcorpus"],
            note="CI-sized run on a generated cross-lingual graded set (not a reproduction).",
        )


def _fmt(x: float) -> str:
    return f"{x:g}"


def _resource(lang: str) -> str:
    return "high" if lang in HIGH_RESOURCE else "low"


@dataclass(frozen=True)
class Unit:
    """One training run (the folder name is derived from these fields)."""

    setting: str
    language: str
    encoder: str = "avg"
    loss: str = "sosl"
    thresholds: tuple[float, ...] = (0.2, 0.7)
    eps: float = 1.0
    nr: int = 40
    clip: float = 0.0
    seed: int = 0
    epochs: float = 30.0
    lr: float = 0.01
    batch_size: int = 128

    def path(self) -> Path:
        th = "-".join(_fmt(t) for t in self.thresholds)
        variant = (
            f"eps{_fmt(self.eps)}_th{th}_nr{self.nr}_clip{_fmt(self.clip)}_"
            f"ep{_fmt(self.epochs)}_lr{_fmt(self.lr)}_bs{self.batch_size}"
        )
        return (
            Path(self.setting)
            / self.language
            / self.encoder
            / self.loss
            / variant
            / f"seed{self.seed}"
        )


@register_experiment(
    "liu-smooth",
    summary="smooth cosine + Smooth Ordinal Search Loss for cross-lingual graded retrieval",
    paper="Liu et al., Cross-Lingual Document Retrieval with Smooth Learning",
    dask=True,
    options=("sasaki",),
)
class LiuSmooth(Runner):
    """Runner (see the module docstring). ``run()`` does everything not done yet."""

    unit_code = UNIT_CODE
    plan_class = LiuPlan
    plan: LiuPlan

    @cached_property
    def _data(self) -> dict[tuple[str, str, int], dict[str, Dataset]]:
        return {}  # (setting, language, NR documents) -> splits, loaded once

    @cached_property
    def _emb(self) -> dict[tuple[str, str], tuple[Any, Any, Any]]:
        return {}  # (setting, language) -> vocabulary and embeddings, built once

    @classmethod
    def check_plan(cls, plan: Any) -> None:
        validate_thresholds(plan.thresholds)
        from axiomatic.data.readers.xquad import check_nr_pool

        check_nr_pool(plan.nr_pool)  # before any training (the old "all" is a test-set leak)

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        lp: LiuPlan = plan
        r = cls(lp, out, lambda _m: None)
        n = sum(
            len(getattr(r, f"{part}_units")())
            for part in ("table2", "table3", "fig4", "fig5", "stability", "nfcorpus")
            if part in lp.parts or (part == "table2" and "fig3" in lp.parts)
        )
        return [
            f"  parts {', '.join(lp.parts)}; languages {', '.join(lp.languages)}",
            f"  training runs: {n}; time: docs/clir.md (Table 2 alone ~3.5 h)",
        ]

    # ------------------------------------------------------------------ data
    def data(self, setting: str, lang: str, nr: int | None = None) -> dict[str, Dataset]:
        nr = DEFAULT_NR.get(setting, 40) if nr is None else nr
        key = (setting, lang, nr)
        if key in self._data:
            return self._data[key]
        p = self.plan
        if setting == "xquad":
            from axiomatic.experiments.clir_data import xquad_graded

            out = {
                s: xquad_graded(p.data_root, p.query_language, lang, s, nr, p.nr_pool)
                for s in ("train", "dev", "test")
            }
        elif setting == "synthetic":
            from axiomatic.experiments.clir_data import synthetic_graded_clir

            out = synthetic_graded_clir(n_negatives=nr, seed=0)
        elif setting == "nfcorpus":
            from axiomatic.experiments.clir_data import nfcorpus_graded

            out = {
                "train": nfcorpus_graded(
                    p.data_root, "train", p.nfcorpus_depth, p.nfcorpus_train_queries
                ),
                "dev": nfcorpus_graded(p.data_root, "dev", p.nfcorpus_depth, None),
                "test": nfcorpus_graded(p.data_root, "test", p.nfcorpus_depth, None),
            }
        elif setting == "sasaki":
            from axiomatic.experiments.clir_data import sasaki_splits

            if not p.sasaki:
                raise ValueError("the sasaki part needs a folder: --sasaki DIR")
            out = sasaki_splits(p.sasaki)
        else:
            raise ValueError(f"unknown setting {setting!r}")
        self._data[key] = out
        return out

    def _query_side_texts(self, setting: str, train: Dataset) -> list[str]:
        texts = [q.text for q in train.queries.values()]
        if setting == "xquad":
            from axiomatic.experiments.clir_data import english_paragraphs

            texts += english_paragraphs(self.plan.data_root)
        elif setting == "nfcorpus":
            texts += [d.text for d in train.documents.values()]
        return texts

    def vocab_and_embeddings(self, setting: str, lang: str) -> tuple[Any, Any, Any]:
        """Vocabulary (train queries + all documents; the document language's analyzer) and the
        initial query / document embedding tables (word2vec trained per language, or MiniLM)."""
        key = (setting, lang)
        if key in self._emb:
            return self._emb[key]
        from axiomatic.models.embeddings import make_embeddings, train_word2vec
        from axiomatic.models.vocab import Vocabulary, model_analyzer

        p = self.plan
        d = self.data(setting, lang)
        train = d["train"]
        doc_texts = [x.text for x in train.documents.values()]
        qtexts = [q.text for q in train.queries.values()]
        analyzer = model_analyzer(train.doc_language or "en")
        vocab = Vocabulary.build(qtexts + doc_texts, analyzer, max_size=60_000)
        dim = p.embedding_dim
        if p.embeddings == "word2vec":
            ep = p.word2vec_epochs
            q_texts = self._query_side_texts(setting, train)
            q_emb = train_word2vec(q_texts, vocab, dim, epochs=ep, sample=0.0)
            d_emb = train_word2vec(doc_texts, vocab, dim, epochs=ep, sample=0.0, seed=1)
        else:
            q_emb = make_embeddings(p.embeddings, vocab, dim, seed=0)
            d_emb = q_emb
        self._emb[key] = (vocab, q_emb, d_emb)
        return self._emb[key]

    # ------------------------------------------------------------------ one run
    def _train_config(self, u: Unit) -> Any:
        """The trainer configuration of a unit (one dev evaluation and checkpoint per epoch:
        needs the unit's training data)."""
        from axiomatic.training.config import TrainConfig

        p = self.plan
        data = self.data(u.setting, u.language, u.nr)
        n_points = sum(len(data["train"].candidate_ids(q)) for q in data["train"].queries)
        per_epoch = max(1, math.ceil(n_points / u.batch_size))
        spec = self._loss_spec(u)
        return TrainConfig(
            dataset=data["train"].name,
            model="clir-dual",
            model_config={"encoder": u.encoder, "eps": u.eps, "embedding_dim": p.embedding_dim},
            loss="graded",
            graded_loss=spec,
            lr=u.lr,
            # the paper's DSSM-CNN / DSSM-LSTM: initial lr 0.001, exponential decay 0.95 (read
            # as per epoch); the average towers train at a fixed lr
            lr_schedule="exponential(gamma=0.95)" if u.encoder in ("cnn", "lstm") else "constant",
            batch_size=u.batch_size,
            epochs=u.epochs,
            eval_every=per_epoch,
            checkpoint_every=per_epoch,
            patience=0,
            candidate_depth=10_000,
            dev_depth=10_000,
            grad_clip=u.clip if u.clip > 0 else None,
            log_grad_norm=True,
            seed=u.seed,
        )

    def unit_settings(self, u: Unit) -> dict[str, Any]:
        """Every plan setting that determines a unit's result, without loading data (the
        folder name holds only some of them; a report compares these)."""
        p = self.plan
        return self.record_settings(
            *EMBEDDING_SETTINGS,
            **asdict(u),
            loss_spec=self._loss_spec(u),
            word2vec_epochs=p.word2vec_epochs if p.embeddings == "word2vec" else None,
            **self._data_settings(u.setting),
        )

    def _data_settings(self, setting: str) -> dict[str, Any]:
        p = self.plan
        if setting == "xquad":
            return {"query_language": p.query_language, "nr_pool": p.nr_pool}
        if setting == "nfcorpus":
            return {
                "nfcorpus_depth": p.nfcorpus_depth,
                "nfcorpus_train_queries": p.nfcorpus_train_queries,
            }
        return {}

    def _data_inputs(self, setting: str, lang: str, nr: int | None = None) -> dict[str, str]:
        """Content hashes of a unit's train / dev / test data (and of a Sasaki folder)."""
        data = self.data(setting, lang, nr)
        return {f"{s} data": dataset_fingerprint(data[s]) for s in ("train", "dev", "test")}

    def unit_record(self, u: Unit) -> UnitRecord:
        """The unit's settings, its trainer configuration and the fingerprints of its data."""
        settings = self.unit_settings(u)
        settings["train_config"] = self._train_config(u).to_dict()
        return UnitRecord(settings, self._data_inputs(u.setting, u.language, u.nr))

    def unit(self, u: Unit, train_scores: bool = False) -> dict[str, Any]:
        import torch

        from axiomatic.models.clir import SmoothDualEncoder
        from axiomatic.models.scoring import score_candidates
        from axiomatic.training.trainer import NonFiniteLossError, Trainer

        p = self.plan
        folder = self.out_dir / "runs" / u.path()
        done = folder / "test_metrics.json"
        state = self.store.enter(folder, self.unit_record(u))
        if state == "done" and (not train_scores or (folder / "train_scores.json").exists()):
            return read_json(done)
        if p.threads:
            torch.set_num_threads(p.threads)
        t0 = time.perf_counter()
        data = self.data(u.setting, u.language, u.nr)
        vocab, q_emb, d_emb = self.vocab_and_embeddings(u.setting, u.language)
        spec = self._loss_spec(u)
        cfg = self._train_config(u)
        torch.manual_seed(u.seed)
        model = SmoothDualEncoder(
            vocab,
            embedding_dim=p.embedding_dim,
            max_query_len=p.max_query_len,
            max_doc_len=p.max_doc_len,
            encoder=u.encoder,
            eps=u.eps,
            shared_embeddings=p.shared_embeddings,
            embeddings=q_emb,
            doc_embeddings=d_emb,
        )
        model.build_info = {"seed": u.seed, "embeddings": p.embeddings}
        out: dict[str, Any] = {"unit": asdict(u), "embeddings": p.embeddings, "loss_spec": spec}
        try:
            result = Trainer(model, cfg, folder, data["train"], data["dev"]).fit(resume=True)
            out.update(result.to_dict())
            out["diverged"] = False
        except NonFiniteLossError as exc:
            out.update({"diverged": True, "message": str(exc)})
        if not out["diverged"]:
            mr, r = relevance_levels(*(d.qrels for d in data.values()))  # top grade = MR
            test_run = score_candidates(model, data["test"])
            dev_run = score_candidates(model, data["dev"])
            per_q = evaluate_clir_per_query(test_run, data["test"].qrels or {}, mr, r)
            out["test_per_query"] = per_q
            out["test"] = {k: float(np.mean(list(v.values()))) for k, v in per_q.items()}
            dev_q = evaluate_clir_per_query(dev_run, data["dev"].qrels or {}, mr, r)
            out["dev"] = {k: float(np.mean(list(v.values()))) for k, v in dev_q.items()}
            if train_scores:
                self._train_scores(model, data["train"], folder, u.seed)
        out["seconds_total"] = round(time.perf_counter() - t0, 2)
        write_json(done, out)
        test = out.get("test", {})
        self.echo(
            f"[liu-smooth] {u.setting}/{u.language} {u.encoder} {u.loss} eps={_fmt(u.eps)} "
            f"th={list(u.thresholds)} nr={u.nr} clip={_fmt(u.clip)} seed={u.seed}: "
            f"MRRmr={test.get('MRRmr', float('nan')):.4f} NDCG@5={test.get('NDCG@5', float('nan')):.4f}"
            f"{' DIVERGED' if out['diverged'] else ''} ({out['seconds_total']:.0f}s)"
        )
        return out

    def zero_shot(self, lang: str) -> dict[str, Any]:
        """Test measures of the untrained model (the initial embeddings, seed 0): the floor that
        training has to beat."""
        import torch

        from axiomatic.models.clir import SmoothDualEncoder
        from axiomatic.models.scoring import score_candidates

        p = self.plan
        f = self._zero_shot_file(lang)
        record = UnitRecord(self._zero_shot_settings(lang), self._data_inputs(p.setting, lang))
        kw: dict[str, Any] = {"done": f.name, "record_name": f.stem + ".unit.json"}
        if self.store.enter(f.parent, record, owns_folder=False, **kw) == "done":
            return read_json(f)
        if p.threads:
            torch.set_num_threads(p.threads)
        data = self.data(p.setting, lang)
        vocab, q_emb, d_emb = self.vocab_and_embeddings(p.setting, lang)
        torch.manual_seed(0)
        model = SmoothDualEncoder(
            vocab,
            embedding_dim=p.embedding_dim,
            max_query_len=p.max_query_len,
            max_doc_len=p.max_doc_len,
            eps=p.eps,
            shared_embeddings=p.shared_embeddings,
            embeddings=q_emb,
            doc_embeddings=d_emb,
        )
        run = score_candidates(model, data["test"])
        per_q = evaluate_clir_per_query(run, data["test"].qrels or {})
        out = {
            "unit": {"language": lang, "seed": 0},
            "test_per_query": per_q,
            "test": {k: float(np.mean(list(v.values()))) for k, v in per_q.items()},
        }
        write_json(f, out)
        return out

    def _zero_shot_file(self, lang: str) -> Path:
        p = self.plan
        return (
            self.out_dir
            / "runs"
            / p.setting
            / lang
            / f"zero_shot_{p.embeddings}_eps{_fmt(p.eps)}.json"
        )

    def _zero_shot_settings(self, lang: str) -> dict[str, Any]:
        p = self.plan
        return self.record_settings(
            *("setting", "eps", *EMBEDDING_SETTINGS),
            part="zero-shot",
            language=lang,
            seed=0,
            word2vec_epochs=p.word2vec_epochs if p.embeddings == "word2vec" else None,
            **self._data_settings(p.setting),
        )

    def _loss_spec(self, u: Unit) -> str:
        th = ",".join(_fmt(t) for t in u.thresholds)
        return f"{u.loss}(thresholds={th})"

    def _train_scores(self, model: Any, train: Dataset, folder: Path, seed: int) -> None:
        from axiomatic.training.smooth import graded_points

        pts = graded_points(train)
        rng = np.random.default_rng([seed, 3])
        pick = rng.choice(len(pts), size=min(4000, len(pts)), replace=False)
        sel = [pts[int(i)] for i in pick]
        scores = model.score_pairs(
            [train.queries[x.query_id].text for x in sel],
            [train.documents[x.doc_hi].text for x in sel],
            batch_size=256,
        ).tolist()
        write_json(
            folder / "train_scores.json",
            {"scores": scores, "grades": [int(x.label_hi) for x in sel]},
        )

    # ------------------------------------------------------------------ parts
    def _base(self, setting: str, lang: str, **kw: Any) -> Unit:
        p = self.plan
        args: dict[str, Any] = {
            "setting": setting,
            "language": lang,
            "thresholds": tuple(validate_thresholds(p.thresholds)),
            "nr": DEFAULT_NR.get(setting, 40),
            "eps": p.eps,
            "epochs": p.epochs,
            "lr": p.lr,
            "batch_size": p.batch_size,
            "clip": p.grad_clip,
        }
        args.update(kw)
        return Unit(**args)

    def table2_units(self) -> list[Unit]:
        p = self.plan
        return [
            self._base(p.setting, lang, loss=loss, seed=s)
            for lang in p.languages
            for loss in p.losses
            for s in p.seeds
        ]

    def table3_units(self) -> list[Unit]:
        p = self.plan
        out = []
        for lang in p.encoder_languages:
            for enc in p.encoders:
                kw = {
                    k: v
                    for k, v in p.encoder_settings.get(enc, {}).items()
                    if k in ("lr", "batch_size", "epochs")
                }
                out += [self._base(p.setting, lang, encoder=enc, seed=s, **kw) for s in p.seeds]
        return out

    def fig4_units(self) -> list[Unit]:
        p = self.plan
        ep = p.sweep_epochs or p.epochs
        return [
            self._base(
                p.setting,
                p.sweep_language,
                eps=e,
                thresholds=tuple(validate_thresholds(th)),
                epochs=ep,
            )
            for e in p.eps_grid
            for th in p.threshold_grid
        ]

    def fig5_units(self) -> list[Unit]:
        p = self.plan
        ep = p.nr_epochs or p.epochs
        return [self._base(p.setting, p.sweep_language, nr=n, epochs=ep) for n in p.nr_grid]

    def stability_units(self) -> list[Unit]:
        p = self.plan
        return [
            self._base(
                p.setting,
                p.sweep_language,
                eps=e,
                clip=c,
                seed=s,
                epochs=p.stability_epochs,
                lr=p.stability_lr,
            )
            for e in p.stability_eps
            for c in p.stability_clip
            for s in p.stability_seeds
        ]

    def nfcorpus_units(self) -> list[Unit]:
        p = self.plan
        th = tuple(validate_thresholds(p.nfcorpus_thresholds))
        return [
            self._base(
                "nfcorpus", "en", loss=loss, thresholds=th, epochs=p.nfcorpus_epochs or p.epochs
            )
            for loss in p.losses
        ]

    def sasaki_units(self) -> list[Unit]:
        p = self.plan
        from axiomatic.experiments.clir_data import sasaki_splits

        lang = sasaki_splits(p.sasaki)["train"].doc_language or "xx" if p.sasaki else "xx"
        return [
            self._base("sasaki", lang, loss=loss, epochs=p.sasaki_epochs or p.epochs)
            for loss in ("sosl", "mse")
        ]

    def compute(self) -> None:
        p = self.plan
        unknown = sorted(set(p.parts) - set(PARTS))
        if unknown:
            raise ValueError(
                f"unknown liu-smooth part(s) {unknown}; expected some of {list(PARTS)}"
            )
        for msg in self.unreachable().values():  # plan time: before any unit trains
            import warnings

            warnings.warn(f"liu-smooth plan: {msg}", UserWarning, stacklevel=2)
        if p.threads:  # as in every unit (the machine record of results.json names them)
            import torch

            torch.set_num_threads(p.threads)
        parts = set(p.parts)
        first: list[tuple[Unit, bool]] = []  # (unit, with train scores for Figure 3)
        if "table2" in parts or "fig3" in parts:
            for u in self.table2_units():
                fig3 = "fig3" in parts and u.language == p.fig3_language and u.seed == p.seeds[0]
                if "table2" in parts or fig3:
                    first.append((u, fig3))
        todo: list[Unit] = []
        if "table3" in parts:
            todo += self.table3_units()
        if "fig4" in parts:
            todo += self.fig4_units()
        if "fig5" in parts:
            todo += self.fig5_units()
        if "stability" in parts:
            todo += self.stability_units()
        if "nfcorpus" in parts:
            todo += self.nfcorpus_units()
        if "sasaki" in parts and p.sasaki:
            todo += self.sasaki_units()
        # every unit is compared with its record before anything runs: a unit computed with
        # other settings or data is refused here (or cleared with overwrite)
        zero_langs = list(p.languages) if "table2" in parts else []
        for lang in zero_langs:
            self.store.check(
                self._zero_shot_file(lang).parent,
                UnitRecord(self._zero_shot_settings(lang), self._data_inputs(p.setting, lang)),
                done=self._zero_shot_file(lang).name,
                record_name=self._zero_shot_file(lang).stem + ".unit.json",
                owns_folder=False,
            )
        for u in dict.fromkeys([*(u for u, _ in first), *todo]):
            self.store.check(self.out_dir / "runs" / u.path(), self.unit_record(u))
        self.write_config()
        # no unit needs another's result (each builds its data and embeddings itself, seeded):
        # they may run in any order, on Dask too; a unit planned twice (e.g. Figure 4's eps = 1
        # unit is Figure 5's nr = 8 one) runs once, with train scores if either asks for them
        wanted: dict[Unit, bool] = {}
        for u, fig3 in [*first, *((u, False) for u in todo)]:
            wanted[u] = wanted.get(u, False) or fig3
        items: list[tuple[Any, ...]] = [("zero-shot", lang) for lang in zero_langs]
        items += [("unit", u, fig3) for u, fig3 in wanted.items()]
        run_runner_units(self, items, "_run_item", label=self._item_label, what="liu-smooth unit")

    def _run_item(self, item: tuple[Any, ...]) -> dict[str, Any]:
        """One scheduled item: ``("zero-shot", language)`` or ``("unit", Unit, train_scores)``."""
        if item[0] == "zero-shot":
            return self.zero_shot(item[1])
        return self.unit(item[1], train_scores=item[2])

    def _item_label(self, item: tuple[Any, ...]) -> str:
        if item[0] == "zero-shot":
            f = self._zero_shot_file(item[1])
        else:
            f = self.out_dir / "runs" / item[1].path()
        return f.relative_to(self.out_dir).as_posix()

    def unreachable(self) -> dict[tuple[float, tuple[float, ...]], str]:
        """``(eps, thresholds)`` of the planned units whose thresholds no score can reach (tanh
        towers of dimension ``embedding_dim``: every score below p/(sqrt(p)+eps)^2) -> the
        message naming the bound."""
        from axiomatic.training.smooth import tanh_threshold_problem

        p = self.plan
        by_part = {
            "table2": self.table2_units,
            "fig3": self.table2_units,
            "table3": self.table3_units,
            "fig4": self.fig4_units,
            "fig5": self.fig5_units,
            "stability": self.stability_units,
            "nfcorpus": self.nfcorpus_units,
        }
        out: dict[tuple[float, tuple[float, ...]], str] = {}
        for part in p.parts:
            for u in by_part[part]() if part in by_part else []:
                key = (u.eps, tuple(u.thresholds))
                msg = tanh_threshold_problem(u.thresholds, p.embedding_dim, u.eps)
                if msg and key not in out:
                    out[key] = msg
        return out

    # ------------------------------------------------------------------ report
    def _load(self, units: Sequence[Unit]) -> list[dict[str, Any]]:
        """The results of the finished units computed with this plan's settings (a unit of
        another plan in the same folder is not reported under this one)."""
        out = []
        for u in units:
            f = self.out_dir / "runs" / u.path() / "test_metrics.json"
            if f.exists() and self.store.matches(f.parent, self.unit_settings(u)):
                out.append(read_json(f))
        return out

    @staticmethod
    def _seed_mean(results: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
        """Per-query values averaged over the seeds (paired tests run on these)."""
        ok = [r for r in results if not r.get("diverged")]
        if not ok:
            return {}
        out: dict[str, dict[str, float]] = {}
        for m in CLIR_MEASURE_NAMES:
            qids = ok[0]["test_per_query"][m].keys()
            out[m] = {q: float(np.mean([r["test_per_query"][m][q] for r in ok])) for q in qids}
        return out

    def _row(self, label: dict[str, Any], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        row = dict(label)
        ok = [r for r in results if not r.get("diverged")]
        row["seeds"] = ",".join(str(r["unit"]["seed"]) for r in ok) or "-"
        row["diverged"] = sum(1 for r in results if r.get("diverged"))
        for m in CLIR_MEASURE_NAMES:
            vals = [r["test"][m] for r in ok]
            row[m] = float(np.mean(vals)) if vals else None
        return row

    def _compare(
        self,
        rows: list[dict[str, Any]],
        groups: dict[Any, list[dict[str, Any]]],
        ref_of: Callable[[Any], Any],
        ref_name: str,
        noun: str,
        scope: str = "",
    ) -> str:
        """Paired t-test of each row against its reference row (per-query values averaged over
        seeds), Holm over the rows compared with the same reference on one measure
        (:func:`~axiomatic.evaluate.significance.compare_to_baseline`); returns the caption line
        naming the family ("" when nothing was compared). ``p X`` holds the adjusted p-value,
        ``_d X`` the reference's mean minus the row's."""
        from axiomatic.evaluate.significance import compare_to_baseline

        index = {key: i for i, key in enumerate(groups)}
        by_ref: dict[Any, dict[str, dict[str, dict[str, float]]]] = {}
        for key, res in groups.items():
            ref = ref_of(key)
            if ref is None or ref == key or ref not in groups:
                continue
            b = self._seed_mean(groups[ref])
            a = self._seed_mean(res)
            if not a or not b:
                continue
            # rows are named by their index: a reference name is never all digits
            by_ref.setdefault(ref, {ref_name: b})[str(index[key])] = a
        families: list[str] = []
        for comparison in (
            compare_to_baseline(vals, ref_name, test="t", noun=noun, scope=scope)
            for vals in by_ref.values()
        ):
            families.append(comparison.family)
            for c in comparison:
                i = int(c.system)
                rows[i][f"p {c.measure}"] = float(c.p_holm)
                rows[i][f"_d {c.measure}"] = -float(c.diff)
        for r in rows:
            sig = [
                ("ref+ " if r[f"_d {m}"] > 0 else "ref- ") + m
                for m in CLIR_MEASURE_NAMES
                if r.get(f"p {m}") is not None and r[f"p {m}"] < 0.05
            ]
            if any(f"p {m}" in r for m in CLIR_MEASURE_NAMES):
                r[SIG] = ", ".join(sig) or "none"
        return " | ".join(dict.fromkeys(families))

    def results(self) -> dict[str, Any]:
        p = self.plan
        summary: dict[str, Any] = {"plan": p.to_dict()}
        # per table: the caption line of its p-values (test, reference, Holm family)
        families: dict[str, str] = {}
        summary["significance"] = families
        # Table 2
        groups: dict[Any, list[dict[str, Any]]] = {}
        for u in self.table2_units():
            groups.setdefault((u.language, u.loss), []).extend(self._load([u]))
        groups = {k: v for k, v in groups.items() if v}
        for lang in p.languages:
            f = self._zero_shot_file(lang)
            current = self.store.matches(
                f.parent, self._zero_shot_settings(lang), record_name=f.stem + ".unit.json"
            )
            if f.exists() and current and any(k[0] == lang for k in groups):
                groups[(lang, "untrained")] = [read_json(f)]
        groups = dict(
            sorted(
                groups.items(),
                key=lambda kv: (
                    p.languages.index(kv[0][0]) if kv[0][0] in p.languages else 99,
                    kv[0][1] == "untrained",
                ),
            )
        )
        rows = [
            self._row(
                {"language": k[0], "resource": _resource(k[0]), "loss": DISPLAY.get(k[1], k[1])}, v
            )
            for k, v in groups.items()
        ]
        families["table2"] = self._compare(
            rows, groups, lambda k: (k[0], "sosl"), "SOSL", "rows", "per language"
        )
        summary["table2"] = rows
        # Table 3
        groups = {}
        for u in self.table3_units():
            groups.setdefault((u.language, u.encoder), []).extend(self._load([u]))
        groups = {k: v for k, v in groups.items() if v}
        rows = [
            self._row({"language": k[0], "resource": _resource(k[0]), "encoder": k[1]}, v)
            for k, v in groups.items()
        ]
        families["table3"] = self._compare(
            rows, groups, lambda k: (k[0], "avg"), "average pooling", "encoders", "per language"
        )
        summary["table3"] = rows
        # Figure 4: thresholds chosen on dev per eps
        fig4 = []
        for e in p.eps_grid:
            cands = [
                r
                for r in self._load([u for u in self.fig4_units() if u.eps == e])
                if not r.get("diverged")
            ]
            if not cands:
                continue
            best = max(cands, key=lambda r: r["dev"][p.selection_measure])
            unreachable = [th for (e2, th) in self.unreachable() if e2 == e]
            fig4.append(
                {
                    "eps": e,
                    "thresholds (dev)": best["unit"]["thresholds"],
                    "unreachable thresholds": ", ".join(str(list(t)) for t in unreachable)
                    or "none",
                    f"dev {p.selection_measure}": best["dev"][p.selection_measure],
                    **best["test"],
                }
            )
        if fig4:
            groups4 = {}
            for e in p.eps_grid:
                chosen = [r for r in fig4 if r["eps"] == e]
                if chosen:
                    th = tuple(chosen[0]["thresholds (dev)"])
                    groups4[e] = self._load(
                        [u for u in self.fig4_units() if u.eps == e and u.thresholds == th]
                    )
            base_eps = 0.0 if 0.0 in groups4 else None
            families["fig4"] = self._compare(
                fig4, groups4, lambda k: base_eps, "eps = 0", "eps values"
            )
        summary["fig4"] = fig4
        # Figure 5
        summary["fig5"] = [
            {"NR per query": r["unit"]["nr"], **r["test"]}
            for r in self._load(self.fig5_units())
            if not r.get("diverged")
        ]
        # stability
        summary["stability"] = self._stability()
        # NFCorpus / Sasaki
        for part, units in (
            ("nfcorpus", self.nfcorpus_units() if "nfcorpus" in p.parts else []),
            ("sasaki", self.sasaki_units() if p.sasaki else []),
        ):
            groups = {}
            for u in units:
                groups.setdefault(u.loss, []).extend(self._load([u]))
            groups = {k: v for k, v in groups.items() if v}
            rows = [self._row({"loss": DISPLAY.get(k, k)}, v) for k, v in groups.items()]
            families[part] = self._compare(rows, groups, lambda k: "sosl", "SOSL", "losses")
            summary[part] = rows
        summary["unit_seconds"] = round(
            sum(
                read_json(f).get("seconds_total", 0.0)
                for f in (self.out_dir / "runs").glob("**/test_metrics.json")
            ),
            1,
        )
        summary["table2_seconds"] = round(
            sum(r.get("seconds_total", 0.0) for r in self._load(self.table2_units())), 1
        )
        return summary

    def _stability(self) -> list[dict[str, Any]]:
        from axiomatic.training.checkpoint import read_log

        p = self.plan
        out = []
        for e in p.stability_eps:
            for c in p.stability_clip:
                units = [u for u in self.stability_units() if u.eps == e and u.clip == c]
                res = self._load(units)
                if not res:
                    continue
                logs = [read_log(self.out_dir / "runs" / u.path() / "log.jsonl") for u in units]
                gn = [x["grad_norm"] for log in logs for x in log if "grad_norm" in x]
                ok = [r for r in res if not r.get("diverged")]
                mrr = [r["test"]["MRRmr"] for r in ok]
                ndcg = [r["test"]["NDCG@5"] for r in ok]
                final_loss = [log[-1]["loss"] for log in logs if log]
                out.append(
                    {
                        "eps": e,
                        "clip": c if c > 0 else "none",
                        "seeds": len(res),
                        "diverged": sum(1 for r in res if r.get("diverged")),
                        "MRRmr mean": float(np.mean(mrr)) if mrr else None,
                        "MRRmr sd": float(np.std(mrr, ddof=1)) if len(mrr) > 1 else None,
                        "NDCG@5 mean": float(np.mean(ndcg)) if ndcg else None,
                        "NDCG@5 sd": float(np.std(ndcg, ddof=1)) if len(ndcg) > 1 else None,
                        "final loss sd": float(np.std(final_loss, ddof=1))
                        if len(final_loss) > 1
                        else None,
                        "grad norm median": float(np.median(gn)) if gn else None,
                        "grad norm max": float(np.max(gn)) if gn else None,
                        "grad norm p99": float(np.percentile(gn, 99)) if gn else None,
                    }
                )
        return out

    # ------------------------------------------------------------------ figures
    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        return self._drawn(results)[1]

    def _drawn(self, results: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
        """The figures of ``results`` (drawn once per results): figure key (``fig3``, ...) ->
        file name, and file name -> figure."""
        if self.__dict__.get("_drawn_for") is not results:
            self._drawn_for, self._drawn_figs = results, self._figures(results)
        return self._drawn_figs

    def _figures(self, summary: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
        import matplotlib  # the default colour cycle (rcParams: no pyplot, no backend switch)

        from axiomatic.training.checkpoint import read_log

        p = self.plan
        figs: dict[str, str] = {}
        drawn: dict[str, Any] = {}

        def keep(fig: Any, name: str) -> str:
            drawn[name] = fig
            return name

        # Figure 3: score densities per grade, per loss (training examples)
        units = [
            u for u in self.table2_units() if u.language == p.fig3_language and u.seed == p.seeds[0]
        ]
        have = [(u, self.out_dir / "runs" / u.path() / "train_scores.json") for u in units]
        have = [(u, f) for u, f in have if f.exists()]
        if have:
            n = len(have)
            cols = min(2, n)
            rows_ = math.ceil(n / cols)
            fig, axes = new_figure(rows_, cols, figsize=(4.2 * cols, 3.0 * rows_), squeeze=False)
            names = {0: "NR", 1: "SR", 2: "MR"}
            for ax, (u, f) in zip(axes.ravel(), have, strict=False):
                d = read_json(f)
                s, g = np.asarray(d["scores"]), np.asarray(d["grades"])
                bins = np.linspace(-1, 1, 61)
                for k in sorted(set(g.tolist())):
                    ax.hist(
                        s[g == k],
                        bins=bins,
                        density=True,
                        histtype="step",
                        lw=1.5,
                        label=names.get(k, str(k)),
                    )
                for t in u.thresholds:
                    ax.axvline(t, color="grey", ls=":", lw=0.8)
                ax.set_title(f"{DISPLAY.get(u.loss, u.loss)} (eps={_fmt(u.eps)})")
                ax.set_xlabel("predicted score r_eps")
                ax.legend(fontsize=7)
            for ax in axes.ravel()[len(have) :]:
                ax.axis("off")
            fig.suptitle(
                f"Fig. 3 analogue: score density per grade, training set, {p.setting} en-{p.fig3_language}"
            )
            fig.tight_layout()
            figs["fig3"] = keep(fig, "liu_fig3_density.png")
        if summary["fig4"]:
            fig, ax = new_figure(figsize=(5, 3.4))
            xs = [r["eps"] for r in summary["fig4"]]
            for m in ("Pmr@1", "NDCG@5", "MAP", "MRRmr"):
                ax.plot(xs, [r[m] for r in summary["fig4"]], marker="o", label=m)
            ax.set_xlabel("eps (0 = plain cosine)")
            ax.set_ylabel("test (thresholds chosen on dev)")
            ax.set_title(f"Fig. 4 analogue: en-{p.sweep_language}")
            ax.legend(fontsize=7)
            fig.tight_layout()
            figs["fig4"] = keep(fig, "liu_fig4_eps.png")
        if summary["fig5"]:
            fig, ax = new_figure(figsize=(5, 3.4))
            pts = sorted(summary["fig5"], key=lambda r: r["NR per query"])
            for m in ("Pmr@1", "NDCG@5", "MAP", "MRRmr"):
                ax.plot([r["NR per query"] for r in pts], [r[m] for r in pts], marker="o", label=m)
            ax.set_xlabel("NR documents per query")
            ax.set_title(f"Fig. 5 analogue: en-{p.sweep_language}, SOSL")
            ax.legend(fontsize=7)
            fig.tight_layout()
            figs["fig5"] = keep(fig, "liu_fig5_nr.png")
        # stability curves
        configs = [(e, c) for e in p.stability_eps for c in p.stability_clip]
        logs_by: dict[tuple[float, float], list[list[dict[str, Any]]]] = {}
        for e, c in configs:
            for u in self.stability_units():
                if u.eps == e and u.clip == c:
                    f = self.out_dir / "runs" / u.path() / "log.jsonl"
                    if f.exists():
                        logs_by.setdefault((e, c), []).append(read_log(f))
        if logs_by:
            fig, (a1, a2) = new_figure(1, 2, figsize=(9, 3.4))
            colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
            for i, ((e, c), logs) in enumerate(sorted(logs_by.items())):
                label = f"eps={_fmt(e)}, clip={'none' if c <= 0 else _fmt(c)}"
                for j, log in enumerate(logs):
                    steps = [r["step"] for r in log]
                    a1.plot(
                        steps,
                        smooth([r["loss"] for r in log], window=20),
                        color=colors[i % len(colors)],
                        lw=0.8,
                        alpha=0.8,
                        label=label if j == 0 else None,
                    )
                    a2.plot(
                        steps,
                        smooth([r.get("grad_norm", np.nan) for r in log], window=20),
                        color=colors[i % len(colors)],
                        lw=0.8,
                        alpha=0.8,
                        label=label if j == 0 else None,
                    )
            a1.set_xlabel("step")
            a1.set_ylabel("SOSL (smoothed, 20 steps)")
            a2.set_xlabel("step")
            a2.set_ylabel("gradient norm before clipping")
            a2.set_yscale("log")
            a1.legend(fontsize=7)
            fig.suptitle(
                f"Training stability over seeds (one line per seed), en-{p.sweep_language}"
            )
            fig.tight_layout()
            figs["stability"] = keep(fig, "liu_stability.png")
        return figs, drawn

    def summary(self, results: Mapping[str, Any]) -> str:
        return self._markdown(results).replace("IMG/", "")

    def docs_page(self, results: Mapping[str, Any], page: Path) -> str:
        return self._markdown(results).replace("IMG/", "img/")

    def _markdown(self, summary: Mapping[str, Any]) -> str:
        figs = self._drawn(summary)[0]
        p = self.plan
        emb = {
            "word2vec": "word2vec trained per language on the collection",
            "minilm": "MiniLM word-piece embedding means",
            "random": "random",
        }.get(p.embeddings, p.embeddings)
        emb += (
            ", one table shared by both towers" if p.shared_embeddings else ", per-language tables"
        )
        m = summary["machine"]
        timing = summary.get("timing", {}).get("invocations", [])
        cols = list(CLIR_MEASURE_NAMES)
        pcols = [f"p {c}" for c in cols]

        def fam(part: str) -> str:
            return summary.get("significance", {}).get(part) or "nothing compared"

        text = [
            "# Smooth cross-lingual retrieval (Liu et al.) - reproduction",
            "",
            "Generated by `axiomatic experiment liu-smooth --config FILE` with the configuration named below (do not edit by hand; rerun the command).",
            "",
            f"- setting: **{p.setting}**, queries in `{p.query_language}`; embeddings: **{emb}**, "
            f"dim {p.embedding_dim}; score = smooth cosine r_eps; thresholds {p.thresholds}",
            f"- training: Adam lr {p.lr}, batch {p.batch_size}, {_fmt(p.epochs)} epochs (main runs), "
            f"gradient clipping {'none' if p.grad_clip <= 0 else p.grad_clip}; model selection: best dev "
            "MRRmr@10 checkpoint (evaluated once per epoch); seeds " + ",".join(map(str, p.seeds)),
            f"- machine: {m['cpu']}, {m['cpus']} CPUs, torch threads {p.threads}, "
            f"torch {m['torch']}, python {m['python']}; device: {m['device']}",
            f"- budget: sum of unit wall times {summary['unit_seconds']:.0f} s; Table 2 units "
            f"{summary['table2_seconds']:.0f} s; invocations: "
            + ", ".join(f"{t['wall_seconds']:.0f} s ({t['when']})" for t in timing),
            "- significance: paired t-test over test queries (per-query values averaged over seeds) "
            "against the reference row (SOSL / average pooling / eps = 0), Holm-adjusted over the "
            "rows compared with that reference on one measure (each table states its family); "
            "`p X` columns hold the adjusted p-values",
            "- measures: Pmr@1 = P(rel=2)@1, Pmr@5 = Success(rel=2)@5, Pr@5 = P(rel=1)@5, NDCG@5, "
            "MAP = AP(rel=1), MRRmr = RR(rel=2), MRRr = RR(rel=1) (ir_measures; "
            "see `axiomatic.evaluate.clir_metrics`)",
        ]
        if p.note:
            text += ["", p.note]
        if summary["table2"]:
            text += [
                "",
                f"## Table 2: losses x languages (eps = {_fmt(p.eps)}, average pooling, {emb})",
                "",
                markdown_table(
                    summary["table2"], ["language", "resource", "loss", "seeds", "diverged", *cols]
                ),
                "",
                f"Adjusted p-values ({fam('table2')}):",
                "",
                markdown_table(
                    [r for r in summary["table2"] if "p NDCG@5" in r],
                    ["language", "loss", *pcols, SIG],
                ),
            ]
        if summary["table3"]:
            text += [
                "",
                f"## Table 3: encoders with SOSL (eps = {_fmt(p.eps)}, {emb})",
                "",
                "Encoder settings: "
                + "; ".join(f"{k}: {v}" for k, v in p.encoder_settings.items()),
                "",
                markdown_table(
                    summary["table3"],
                    ["language", "resource", "encoder", "seeds", "diverged", *cols],
                ),
                "",
                f"Adjusted p-values ({fam('table3')}):",
                "",
                markdown_table(
                    [r for r in summary["table3"] if "p NDCG@5" in r],
                    ["language", "encoder", *pcols, SIG],
                ),
            ]
        if "fig3" in figs:
            text += [
                "",
                "## Figure 3: predicted score density per grade (training examples)",
                "",
                f"![fig3](IMG/{figs['fig3']})",
            ]
        if summary["fig4"]:
            text += [
                "",
                f"## Figure 4: eps sweep (en-{p.sweep_language}, SOSL, thresholds grid-searched on dev by {p.selection_measure} over {p.threshold_grid}, {emb})",
                "",
                markdown_table(
                    summary["fig4"],
                    [
                        "eps",
                        "thresholds (dev)",
                        "unreachable thresholds",
                        f"dev {p.selection_measure}",
                        *cols,
                    ],
                ),
                "",
                "Unreachable thresholds: grid points whose top grade no score can reach at this "
                f"eps (tanh towers, p = {p.embedding_dim}: every score < p/(sqrt(p)+eps)^2).",
                "",
                f"Adjusted p-values ({fam('fig4')}):",
                "",
                markdown_table([r for r in summary["fig4"] if "p NDCG@5" in r], ["eps", *pcols]),
                "",
            ]
            if "fig4" in figs:
                text += [f"![fig4](IMG/{figs['fig4']})"]
        if summary["fig5"]:
            text += [
                "",
                f"## Figure 5: NR documents per query (en-{p.sweep_language}, SOSL, {emb})",
                "",
                markdown_table(
                    sorted(summary["fig5"], key=lambda r: r["NR per query"]),
                    ["NR per query", *cols],
                ),
                "",
            ]
            if "fig5" in figs:
                text += [f"![fig5](IMG/{figs['fig5']})"]
        if summary["stability"]:
            text += [
                "",
                f"## Training stability (en-{p.sweep_language}, SOSL, lr {p.stability_lr}, {_fmt(p.stability_epochs)} epochs, seeds {p.stability_seeds})",
                "",
                markdown_table(summary["stability"], list(summary["stability"][0])),
                "",
            ]
            if "stability" in figs:
                text += [f"![stability](IMG/{figs['stability']})"]
        for part, title in (
            (
                "nfcorpus",
                f"NFCorpus (monolingual, grades 0-3, thresholds {p.nfcorpus_thresholds}, BM25 top-{p.nfcorpus_depth}, {p.nfcorpus_train_queries} training queries, {emb})",
            ),
            ("sasaki", f"Sasaki et al. 2018 files ({p.sasaki}, {emb})"),
        ):
            if summary.get(part):
                text += [
                    "",
                    f"## {title}",
                    "",
                    markdown_table(summary[part], ["loss", "seeds", "diverged", *cols]),
                    "",
                    f"Adjusted p-values ({fam(part)}):",
                    "",
                    markdown_table([r for r in summary[part] if "p NDCG@5" in r], ["loss", *pcols]),
                ]
        return "\n".join(text) + "\n"

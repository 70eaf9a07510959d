"""ACRank (Bo et al. 2023): the plan, its settings and the units of its rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from axiomatic._params import param_meta
from axiomatic._suggest import suggest
from axiomatic.data.records import Dataset
from axiomatic.experiments.engine import THREADS, Plan
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

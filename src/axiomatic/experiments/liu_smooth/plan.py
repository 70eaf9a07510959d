"""Liu et al. (smooth cross-lingual retrieval): the plan and the unit of one training run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axiomatic._params import param_meta
from axiomatic.experiments.engine import THREADS, Plan
from axiomatic.training.config import TRAIN_PARAMS

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

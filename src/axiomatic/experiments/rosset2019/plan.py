"""Rosset et al. (2019): what to run (the plan), its settings and constants."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from axiomatic.experiments.engine import Plan

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
class RossetPlan(Plan):
    """What to run. ``full()`` is the paper-shaped grid; ``quick()`` a CI-sized one."""

    TABLES: ClassVar = {"datasets": DatasetPlan}

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


def _slug(name: str) -> str:
    return name.replace("/", "_")


def _fmt(x: float) -> str:
    return f"{x:g}"

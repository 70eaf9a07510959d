"""Rosset et al. (2019): what to run (the plan), its settings and constants."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from axiomatic._params import param_meta
from axiomatic.experiments.engine import TrainingPlan
from axiomatic.training.config import AR_NORMALIZATIONS, TRAIN_PARAMS

ALL_AXIOMS = ("TFC1-A", "TFC1-D", "TFC3", "LNC")
GRID = (0.001, 0.01, 0.1, 0.25, 0.5, 1.0)
MEASURES = ("RR@10", "AP")
AGREEMENT_VERSION = 3  # bump when the perturbations change: cached agreements are recomputed
# 3: perturbations edit the original text in place (no NFKC/lowercasing of the document)


@dataclass
class DatasetPlan:
    train: str
    test: str
    sizes: list[int] = field(metadata=param_meta(ge=1, description="training queries per run"))


@dataclass
class RossetPlan(TrainingPlan):
    """What to run. ``full()`` is the paper-shaped grid; ``quick()`` a CI-sized one."""

    TABLES: ClassVar = {"datasets": DatasetPlan}

    datasets: list[DatasetPlan] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: ["knrm", "conv-knrm"])
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3])
    lambda_: float = field(
        default=0.1, metadata=param_meta(ge=0, description="weight of the AR regularizer")
    )
    mu: float = field(
        default=0.1, metadata=param_meta(ge=0, description="margin of the AR hinge term")
    )
    axioms: tuple[str, ...] = field(
        default=ALL_AXIOMS,
        metadata=param_meta(choices=ALL_AXIOMS, description="perturbation axioms of AR"),
    )
    tune: bool = False
    """Tune lambda and mu on the dev queries over ``tune_grid``."""
    tune_grid: tuple[float, ...] = field(
        default=GRID, metadata=param_meta(ge=0, description="values tried for lambda and mu")
    )
    ablation: bool = True
    """Also train with each axiom left out."""
    ablation_size: int | None = field(
        default=None,
        metadata=param_meta(
            ge=1, description="training size of the ablation (None: the first size)"
        ),
    )
    steps_per_model: dict[str, int] = field(default_factory=dict)
    """Training steps by model name, replacing ``steps``."""
    margin: float = field(default=1.0, metadata=TRAIN_PARAMS["margin"].meta())
    train_depth: int = field(
        default=30, metadata=param_meta(ge=1, description="BM25 candidates per training query")
    )
    test_depth: int = field(
        default=30, metadata=param_meta(ge=1, description="BM25 candidates per test query")
    )
    # How the AR term averages over perturbations that applied (AxiomaticRegularizationLoss):
    # pinned to "batch", the setting of the published runs, so finished units stay comparable;
    # "applicable" runs go to their own unit folders (variant suffix "-napplicable").
    ar_normalize: str = field(default="batch", metadata=param_meta(choices=AR_NORMALIZATIONS))

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
            seeds=[0, 1],
            steps=20,
            eval_every=10,
            ablation=False,
            lambda_=0.5,
            mu=0.5,
            **cls.ci_training(),
        )


def _slug(name: str) -> str:
    return name.replace("/", "_")


def _fmt(x: float) -> str:
    return f"{x:g}"

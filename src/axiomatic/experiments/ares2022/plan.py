"""ARES (Chen et al. 2022): the plan and the records of its stages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from axiomatic._params import param_meta
from axiomatic.experiments.engine import THREADS, Plan
from axiomatic.experiments.units import (
    UnitRecord,
    UnitStore,
    files_fingerprint,
    inference_dtype_settings,
)
from axiomatic.training.config import TRAIN_PARAMS

PAPER_TABLE2 = {"I": 0.9027, "II": 0.8714, "III": 0.7734, "IV": 0.8258}
MEASURES = ("RR@10", "nDCG@10")
UNIT_CODE = 1
"""Version of how the cached stages are computed (in every record): bump it when a change of the
code changes their results, so that results of the older code are refused instead of reused."""


def _settings(part: str, **kw: Any) -> dict[str, Any]:
    """A stage's record settings: the experiment, the code versions, the dtype its MiniLM
    models score in (:func:`~axiomatic.experiments.units.inference_dtype_settings`), the part
    and ``kw``."""
    from axiomatic.ares.pretrain import pair_versions

    return {
        "experiment": "ares2022",
        "code": UNIT_CODE,
        **inference_dtype_settings("cross-encoder"),
        **pair_versions(),
        "part": part,
        **kw,
    }


def _file_unit(store: UnitStore, path: Path, record: UnitRecord, also: Sequence[str] = ()) -> bool:
    """Check a cached stage file against its record (``<name>.unit.json`` beside it; refused or,
    with overwrite, removed when it differs); write the record when it is to be computed.
    Returns whether the cached file is current (reuse it)."""
    kw: dict[str, Any] = {"done": path.name, "record_name": path.stem + ".unit.json"}
    return store.enter(path.parent, record, owns_folder=False, also=also, **kw) == "done"


def _prepared_inputs(prepared: Sequence[Any]) -> dict[str, str]:
    """Content hashes of the pre-training collections (documents and real queries) and the
    pseudo-query sample sizes (the sample itself is keyed by the pipeline's cache)."""
    from axiomatic.data.fingerprint import hash_fields

    out: dict[str, str] = {}
    for p in prepared:
        c = p.collection
        out[f"collection {c.name}"] = c.fingerprint()
        out[f"queries {c.name}"] = hash_fields(
            [[*map(str, q)] for q in c.positives] + [["pseudo", str(p.n_pseudo)]]
        )
    return out


def _encoder_inputs(pretrain: dict[str, Any]) -> dict[str, str]:
    """Content hashes of the pre-trained encoders (their saved files)."""
    return {f"ARES_{v}": files_fingerprint(str(s["encoder"])) for v, s in pretrain.items()}


@dataclass
class AresPlan(Plan):
    """What to run; ``quick()`` is the CI-sized plan on the demo data, ``full()`` (the
    defaults) the paper-shaped one."""

    # the experiment command's generic options, in this plan's terms
    ALIASES: ClassVar = {"seeds": "auc_seeds", "models": "variants"}

    collections: list[str] = field(default_factory=lambda: ["msmarco-20k", "scifact"])
    settings: list[str] = field(default_factory=lambda: ["I", "II", "III", "IV"])
    auc_seeds: list[int] = field(
        default_factory=lambda: [0, 1, 2, 3, 4],
        metadata=TRAIN_PARAMS["seed"].meta(description="seeds of the preference predictor's AUC"),
    )
    variants: list[str] = field(default_factory=lambda: ["simple"])
    seed: int = field(default=0, metadata=TRAIN_PARAMS["seed"].meta())
    steps: int = field(
        default=400, metadata=TRAIN_PARAMS["steps"].meta(description="pre-training steps")
    )
    batch_size: int = field(default=16, metadata=TRAIN_PARAMS["batch_size"].meta())
    lr: float = field(default=2e-5, metadata=TRAIN_PARAMS["lr"].meta())
    max_length: int = field(
        default=128, metadata=param_meta(ge=1, description="tokens of query and document kept")
    )
    eval_every: int = field(default=100, metadata=TRAIN_PARAMS["eval_every"].meta())
    checkpoint_every: int = field(default=50, metadata=TRAIN_PARAMS["checkpoint_every"].meta())
    mlm_weight: float = field(
        default=1.0,
        metadata=param_meta(ge=0, description="weight of the masked-language-model loss"),
    )
    head: str = "mlp"
    """scoring head of ARES and of its un-pre-trained baseline: the paper's MLP(h_CLS)"""
    masking: str = field(default="input", metadata=param_meta(choices=("input", "document-wwm")))
    """MLM masking (``axiomatic.ares.pretrain``): "input" (the paper's text) or "document-wwm" """
    dev_dataset: str = "msmarco-dev-top20/train"
    dev_queries: int = field(default=50, metadata=TRAIN_PARAMS["dev_queries"].meta())
    eval_sets: list[str] = field(
        default_factory=lambda: ["msmarco-dev-top20/test", "trec-dl-2019/bm25", "scifact/test"]
    )
    eval_depth: int = field(
        default=20, metadata=param_meta(ge=1, description="candidates re-ranked per test query")
    )
    threads: int = field(default=1, metadata=THREADS.meta())
    few_shot_train: str = "msmarco-dev-top20/train"
    few_shot_test: str = "msmarco-dev-top20/test"
    few_shot_sizes: list[int] = field(
        default_factory=lambda: [10, 50, 100, 200, 400],
        metadata=param_meta(ge=1, description="training queries of the few-shot runs"),
    )
    few_shot_steps: int = field(
        default=100,
        metadata=TRAIN_PARAMS["steps"].meta(description="fine-tuning steps of the few-shot runs"),
    )
    few_shot_lr: float = field(
        default=2e-5,
        metadata=TRAIN_PARAMS["lr"].meta(description="learning rate of the few-shot runs"),
    )
    few_shot_variants: list[str] = field(default_factory=lambda: ["simple"])
    ablation_variants: list[str] = field(
        default_factory=lambda: ["rep", "rank", "strict", "hard", "simple"]
    )
    ablation_set: str = "msmarco-dev-top20/test"
    diagnose_set: str = "msmarco-dev-top20/test"
    diagnose_queries: int = field(
        default=50, metadata=param_meta(ge=1, description="queries diagnosed")
    )
    diagnose_depth: int = field(
        default=10, metadata=param_meta(ge=1, description="candidates diagnosed per query")
    )
    diagnose_axioms: str = "TFC1,TFC2,M-TDC,LNC2"
    diagnose_analyzer: str = "thesis"
    agreement_pairs: int = field(
        default=200,
        metadata=param_meta(ge=0, description="document pairs of the axiom-agreement table"),
    )
    query_pair_docs: int = field(
        default=300,
        metadata=param_meta(
            ge=1, description="documents per collection the query pairs are drawn from"
        ),
    )
    data_root: str | None = None
    docs: str | None = None
    """also write the report (and its figures) to this Markdown page (e.g. docs/ares.md)"""

    @classmethod
    def quick(cls) -> AresPlan:
        return cls(
            collections=["demo"],
            settings=["I", "IV"],
            auc_seeds=[0],
            steps=2,
            batch_size=2,
            max_length=48,
            eval_every=100,
            checkpoint_every=1,
            dev_dataset="demo/train",
            dev_queries=3,
            eval_sets=["demo/test"],
            eval_depth=10,
            few_shot_train="demo/train",
            few_shot_test="demo/test",
            few_shot_sizes=[2],
            few_shot_steps=2,
            ablation_variants=["rep", "simple"],
            ablation_set="demo/test",
            diagnose_set="demo/test",
            diagnose_queries=2,
            diagnose_depth=4,
            diagnose_axioms="TFC1,LNC2",
            agreement_pairs=6,
            query_pair_docs=10,
        )

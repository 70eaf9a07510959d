"""Shared plumbing of the training experiments: data preparation, per-run dirs, ensembles."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from axiomatic._atomic import atomic_write_text
from axiomatic.data.records import Dataset, Run

_M = TypeVar("_M")


def on_device(model: _M) -> _M:
    """``model`` moved to where the experiments train, score and diagnose: CUDA when present
    (``cuda:LOCAL_RANK`` under torchrun), else the CPU, as the trainer chooses. A model built
    or loaded from disk starts on the CPU, so without this a GPU run would score its test sets
    and diagnose its models on the CPU."""
    from axiomatic.models.device import choose_device

    return model.to(choose_device("auto"))  # type: ignore[attr-defined,no-any-return]


def load_split(name: str, data_root: str | Path | None, depth: int) -> Dataset:
    """Load a catalog dataset; full-retrieval ones get BM25 top-``depth`` candidates."""
    from axiomatic.data.catalog import load_dataset
    from axiomatic.training.samplers import with_bm25_candidates

    ds = load_dataset(name, data_root=data_root)
    return with_bm25_candidates(ds, depth)


def nested_subsets(qids: Sequence[str], sizes: Sequence[int], seed: int) -> dict[int, list[str]]:
    """Nested training subsets (size n is a prefix of one seeded permutation); sizes above
    the number of queries are capped at all of them."""
    order = list(np.random.default_rng([seed, 4242]).permutation(sorted(qids)))
    return {n: sorted(order[: min(n, len(order))]) for n in sizes}


def write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=1, default=str))


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def ensemble(runs: Sequence[Run]) -> Run:
    """Average the scores of several runs per (query, document) (Rosset et al.'s 4-model
    ensembles). Scores are z-normalized per query and model first, so that one model's scale
    does not dominate."""
    out: Run = {}
    for run in runs:
        for q, docs in run.items():
            if not docs:
                continue
            v = np.fromiter(docs.values(), dtype=np.float64)
            sd = v.std()
            z = (v - v.mean()) / (sd if sd > 0 else 1.0)
            acc = out.setdefault(q, {})
            for d, s in zip(docs, z, strict=True):
                acc[d] = acc.get(d, 0.0) + float(s) / len(runs)
    return out


def per_query(run: Run, dataset: Dataset, measures: Sequence[str]) -> dict[str, dict[str, float]]:
    """``{measure: {query_id: value}}`` over the judged queries of ``dataset``."""
    from axiomatic.evaluate.metrics import evaluate_per_query

    df = evaluate_per_query(run, dataset.qrels or {}, list(measures), dataset.rel_threshold)
    out: dict[str, dict[str, float]] = {}
    for m, q, v in zip(df["measure"], df["query_id"], df["value"], strict=True):
        out.setdefault(str(m), {})[str(q)] = float(v)
    return out


def mean_values(values: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    return {m: float(np.mean(list(v.values()))) if v else 0.0 for m, v in values.items()}

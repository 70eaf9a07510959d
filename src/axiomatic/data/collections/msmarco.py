"""MS MARCO passage dev-small x BM25 top-20 (binary labels) and its graded re-assessments."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import cached, numeric_key, restrict_qrels, spec_adder
from axiomatic.data.records import Dataset
from axiomatic.data.trec import read_qrels

MSMARCO_DIR = "msmarco-passage-dev-bm25top20-graded"


@cached
def _msmarco_parse(root: Path) -> dict[str, Any]:
    from axiomatic.data.readers.msmarco import read_graded_labels, read_top20_folder

    base = root / MSMARCO_DIR / "raw"
    top = read_top20_folder(base / "firebase" / "sampled_files")
    official = base / "msmarco-dev-small" / "qrels.dev.small.tsv"
    graded_path = base / "firebase" / "relevance_labels" / "data.json"
    order = sorted(top.queries, key=numeric_key)
    test = set(order[2::3])
    return {
        "top": top,
        "official": read_qrels(official) if official.is_file() else None,
        "graded": read_graded_labels(graded_path) if graded_path.is_file() else None,
        "order": order,
        "test": test,
    }


def _split_ids(order: list[str], test: set[str], split: str | None) -> list[str]:
    if split is None:
        return list(order)
    return [q for q in order if (q in test) == (split == "test")]


def load_msmarco_top20(root: Path, split: str | None = None) -> Dataset:
    """600 MS MARCO dev-small queries x BM25 top-20 (binary MS MARCO labels for all 12,000
    pairs); canonical split: query ids sorted numerically, every third (index 2, 5, ...) = test."""
    p = _msmarco_parse(root)
    top = p["top"]
    qids = _split_ids(p["order"], p["test"], split)
    meta: dict[str, Any] = {
        "bm25_label": {q: top.bm25_labels[q] for q in qids},
        "source": MSMARCO_DIR,
    }
    if p["official"] is not None:
        meta["qrels_official"] = restrict_qrels(p["official"], qids)
    name = "msmarco-dev-top20" + (f"/{split}" if split else "")
    return Dataset(
        name=name,
        queries={q: top.queries[q] for q in qids},
        documents=top.documents,
        qrels=restrict_qrels(top.qrels, qids),
        candidates={q: top.candidates[q] for q in qids},
        split=split,
        language="en",
        rel_threshold=1,
        description="MS MARCO passage dev-small x BM25 top-20 with text; MS MARCO labels "
        "(negatives = unjudged BM25 candidates)",
        metadata=meta,
    )


def load_msmarco_top20_graded(root: Path, split: str | None = None) -> Dataset:
    """The 125 re-assessed queries with 1-5 grades (upper median of the assessors' grades);
    ``rel_threshold=3``. Same train/test membership as the binary set."""
    p = _msmarco_parse(root)
    top, graded = p["top"], p["graded"]
    grades = graded.aggregated("median")
    qids = [q for q in _split_ids(p["order"], p["test"], split) if q in grades]
    name = "msmarco-dev-top20-graded" + (f"/{split}" if split else "")
    return Dataset(
        name=name,
        queries={q: top.queries[q] for q in qids},
        documents=top.documents,
        qrels={q: dict(grades[q]) for q in qids},
        candidates={q: top.candidates[q] for q in qids},
        split=split,
        language="en",
        rel_threshold=3,
        description="MS MARCO dev top-20, graded 1-5 re-assessments (Gielen 2020), median grade",
        metadata={
            "qrels_msmarco": {q: dict(top.qrels[q]) for q in qids},
            "assessor_grades": {q: graded.grades[q] for q in qids},
            "grade_scale": "1 = totally irrelevant ... 5 = perfectly relevant",
            "source": MSMARCO_DIR,
        },
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    for split in (None, "train", "test"):
        suffix = f"/{split}" if split else ""
        add(
            f"msmarco-dev-top20{suffix}",
            "MS MARCO dev-small x BM25 top-20 with text, binary labels"
            + (f" ({split}: {'200' if split == 'test' else '400'} queries)" if split else " (600)"),
            MSMARCO_DIR,
            partial(load_msmarco_top20, split=split),
            ("raw/firebase/sampled_files",),
        )
    for split in (None, "train", "test"):
        suffix = f"/{split}" if split else ""
        add(
            f"msmarco-dev-top20-graded{suffix}",
            "MS MARCO dev top-20, 125 queries re-assessed 1-5 (median grade)"
            + (f", {split} split" if split else ""),
            MSMARCO_DIR,
            partial(load_msmarco_top20_graded, split=split),
            ("raw/firebase/sampled_files", "raw/firebase/relevance_labels/data.json"),
        )
    return specs

"""BEIR SciFact (full retrieval; BEIR train/test claims)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import cached, spec_adder
from axiomatic.data.records import Dataset, Document

SCIFACT_DIR = "scifact"


@cached
def _scifact_corpus(root: Path) -> dict[str, Document]:
    from axiomatic.data.readers.scifact import read_scifact_corpus

    return read_scifact_corpus(root / SCIFACT_DIR / "raw" / "corpus_train.csv")


def load_scifact(root: Path, split: str) -> Dataset:
    """BEIR SciFact: train = claims_train (809), test = claims_validation (300); full retrieval
    over the 5,183 abstracts (``candidates=None``)."""
    from axiomatic.data.readers.scifact import read_scifact_claims

    fname = {"train": "claims_train.csv", "test": "claims_validation.csv"}[split]
    queries, qrels = read_scifact_claims(root / SCIFACT_DIR / "raw" / fname)
    return Dataset(
        name=f"scifact/{split}",
        queries=queries,
        documents=_scifact_corpus(root),
        qrels=qrels,
        candidates=None,
        split=split,
        language="en",
        rel_threshold=1,
        description=f"BEIR SciFact {split}: claims -> cited abstracts (full retrieval)",
        metadata={"source": SCIFACT_DIR},
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    for split in ("train", "test"):
        add(
            f"scifact/{split}",
            f"BEIR SciFact {split} (full retrieval over 5,183 abstracts)",
            SCIFACT_DIR,
            partial(load_scifact, split=split),
            (
                "raw/corpus_train.csv",
                f"raw/claims_{'train' if split == 'train' else 'validation'}.csv",
            ),
        )
    return specs

"""Shared helpers of the ranker tests (tiny corpora, catalog access that skips cleanly)."""

from __future__ import annotations

import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

TINY_DOCS = [
    Document("d1", "apple banana apple cherry"),
    Document("d2", "banana banana banana date elderberry fig grape"),
    Document("d3", "cherry date"),
    Document("d4", "apple apple apple apple banana"),
    Document("d5", "fig grape honeydew kiwi lemon mango nectarine orange"),
    Document("d6", "kiwi"),
]


def plain_analyzer() -> Analyzer:
    return Analyzer(stopwords=False, stemmer=None)


def tiny_index() -> CollectionIndex:
    return CollectionIndex.build(TINY_DOCS, plain_analyzer())


def tiny_dataset() -> Dataset:
    queries = {
        "q1": Query("q1", "apple banana"),
        "q2": Query("q2", "kiwi fig"),
        "q3": Query("q3", "zzz"),
    }
    qrels = {"q1": {"d1": 2, "d4": 1}, "q2": {"d6": 1, "d5": 1}}
    return Dataset("tiny", queries, {d.doc_id: d for d in TINY_DOCS}, qrels)


def load_or_skip(name: str) -> Dataset:
    """``load_dataset(name)`` from the catalog, or skip when the catalog or the data is missing."""
    try:
        from axiomatic.data.catalog import load_dataset
    except ImportError as exc:  # the catalog module is optional for these tests
        pytest.skip(f"axiomatic.data.catalog is not importable ({exc})")
    try:
        return load_dataset(name)
    except (FileNotFoundError, OSError) as exc:
        pytest.skip(f"dataset {name!r} is not available ({exc})")
    except Exception as exc:  # a dataset missing from the shared data is reported differently
        if "not found" in str(exc).lower() or "not present" in str(exc).lower():
            pytest.skip(f"dataset {name!r} is not available ({exc})")
        raise

"""Shared helpers of the ranker tests (tiny corpora, catalog access that skips only without data)."""

from __future__ import annotations

from axiomatic.data.catalog import list_datasets, load_dataset
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer
from shared_data import shared_data_root, skip_missing_data

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
    """``load_dataset(name)`` from the catalog, or skip when its files are absent from the shared
    data (fail instead under ``AXIOMATIC_REQUIRE_DATA=1``).

    Only absent data skips: the catalog's own availability check decides, before loading, so a
    loader that raises on present data (or a module that fails to import) fails the test.
    """
    root = shared_data_root()
    if root is None:
        skip_missing_data(f"dataset {name!r} needs ../shared/data, which is not present")
    infos = [i for i in list_datasets(root) if i.name == name]
    if not infos:
        raise ValueError(f"{name!r} is not a catalog dataset name; fix the test")
    if not infos[0].available:
        skip_missing_data(
            f"dataset {name!r} (folder {infos[0].folder!r}) is not present under {root}"
        )
    return load_dataset(name, root)

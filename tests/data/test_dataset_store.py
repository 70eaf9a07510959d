"""The dataset store: every load_dataset call gets an independent dataset."""

from __future__ import annotations

import copy
import pickle

import pytest

from axiomatic.data.catalog import (
    DEFAULT_STORE,
    DatasetStore,
    ReadOnlyDocuments,
    clear_cache,
    copy_dataset,
    load_dataset,
)
from axiomatic.data.fingerprint import documents_fingerprint
from axiomatic.data.records import Document


def test_emptying_one_callers_candidates_leaves_the_next_load_intact() -> None:
    first = load_dataset("demo")
    n_cand = sum(len(v) for v in first.candidates.values())
    n_queries, n_qrels = len(first.queries), sum(len(v) for v in first.qrels.values())
    # one caller trims and empties everything it can reach
    qid = next(iter(first.candidates))
    first.candidates[qid].clear()
    first.candidates.clear()
    first.queries.clear()
    next(iter(first.qrels.values())).clear()
    first.metadata.clear()
    first.candidates = {}
    second = load_dataset("demo")
    assert sum(len(v) for v in second.candidates.values()) == n_cand > 0
    assert (
        len(second.queries) == n_queries and sum(len(v) for v in second.qrels.values()) == n_qrels
    )
    assert second.metadata["source"] == "axiomatic.data.demo"
    assert second is not first and second.candidates is not first.candidates


def test_documents_are_shared_read_only() -> None:
    a, b = load_dataset("demo"), load_dataset("demo")
    assert a.documents is b.documents  # shared, not copied per call
    assert isinstance(a.documents, ReadOnlyDocuments) and isinstance(a.documents, dict)
    doc_id = next(iter(a.documents))
    with pytest.raises(TypeError, match="read-only"):
        a.documents[doc_id] = Document(doc_id, "changed")  # type: ignore[index]
    for mutate in (
        lambda d: d.pop(doc_id),
        lambda d: d.clear(),
        lambda d: d.update({}),
        lambda d: d.setdefault("x", None),
        lambda d: d.popitem(),
    ):
        with pytest.raises(TypeError, match="read-only"):
            mutate(a.documents)
    with pytest.raises(TypeError, match="read-only"):
        del a.documents[doc_id]
    mine = a.documents.copy()  # a plain dict the caller may change
    mine[doc_id] = Document(doc_id, "changed")
    assert b.documents[doc_id].text != "changed"
    # pickling (Dask workers) and copying keep the content
    back = pickle.loads(pickle.dumps(a.documents))
    assert back == a.documents and isinstance(back, ReadOnlyDocuments)
    assert copy.deepcopy(a.documents) is a.documents


def test_fingerprint_is_memoized_and_matches_plain_hash() -> None:
    ds = load_dataset("demo")
    plain = dict(ds.documents)
    assert ds.documents.content_fingerprint() == documents_fingerprint(plain)
    assert documents_fingerprint(ds.documents) == documents_fingerprint(plain)


def test_explicit_store_and_clear() -> None:
    store = DatasetStore(max_size=1)
    a = store.load("demo")
    assert len(store) == 1
    assert store.load("demo").documents is a.documents
    store.load("demo/test")
    assert len(store) == 1  # LRU bound
    store.clear()
    assert len(store) == 0
    clear_cache()
    assert len(DEFAULT_STORE) == 0
    with pytest.raises(ValueError, match="max_size"):
        DatasetStore(max_size=0)


def test_copy_dataset_is_independent() -> None:
    ds = load_dataset("demo/train")
    cp = copy_dataset(ds)
    cp.candidates[next(iter(cp.candidates))].append("extra")
    assert "extra" not in ds.candidates[next(iter(ds.candidates))]
    assert cp.documents is ds.documents

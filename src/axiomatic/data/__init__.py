"""Data layer: records, TREC I/O, format readers, the dataset catalog and the demo collection.

Convenience names are imported lazily (no work at import time)::

    from axiomatic.data import load_dataset, list_datasets, demo_dataset
"""

from __future__ import annotations

from typing import Any

_LAZY = {
    "load_dataset": "axiomatic.data.catalog",
    "list_datasets": "axiomatic.data.catalog",
    "dataset_names": "axiomatic.data.catalog",
    "resolve_data_root": "axiomatic.data.catalog",
    "demo_dataset": "axiomatic.data.demo",
    "read_qrels": "axiomatic.data.trec",
    "read_run": "axiomatic.data.trec",
    "read_topics": "axiomatic.data.trec",
    "write_qrels": "axiomatic.data.trec",
    "write_run": "axiomatic.data.trec",
    "write_topics": "axiomatic.data.trec",
    "check_trec_ids": "axiomatic.data.trec",
    "validate_run_tag": "axiomatic.data.trec",
    "DataError": "axiomatic.data.errors",
    "DataWarning": "axiomatic.data.errors",
    "InvalidIdError": "axiomatic.data.errors",
    "ParseError": "axiomatic.data.errors",
    "UnknownDatasetError": "axiomatic.data.errors",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'axiomatic.data' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

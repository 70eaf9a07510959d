"""Build a dataset's :class:`CollectionIndex` once, cache it on disk and in the process.

Cache key: ``<dataset name>-<number of documents>-<doc-id fingerprint>-<analyzer config hash>``.
The fingerprint (SHA-1 of the document ids, in order) guards against two datasets that share a
name and a size but not their documents. Disk cache directory: ``cache_dir`` argument, else
``$AXIOMATIC_CACHE``, else ``~/.cache/axiomatic``; indexes live in its ``index/`` subfolder and are
written atomically (a concurrent reader never sees a half-written index). A cached index that
cannot be read (corrupt, older format) is rebuilt with a warning.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Literal

from axiomatic.data.records import Dataset
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer, default_analyzer

__all__ = ["cache_key", "clear_memory_cache", "dataset_index", "default_cache_dir"]

_MEMORY: OrderedDict[str, CollectionIndex] = OrderedDict()
_MEMORY_MAX = 4


def default_cache_dir() -> Path:
    """``$AXIOMATIC_CACHE`` if set, else ``~/.cache/axiomatic``."""
    env = os.environ.get("AXIOMATIC_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "axiomatic"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "dataset"


def cache_key(dataset: Dataset, analyzer: Analyzer) -> str:
    """The cache key of ``dataset``'s documents analyzed with ``analyzer``."""
    h = hashlib.sha1()
    for doc_id in dataset.documents:
        h.update(doc_id.encode("utf-8"))
        h.update(b"\0")
    return (
        f"{_slug(dataset.name)}-{len(dataset.documents)}-{h.hexdigest()[:10]}-"
        f"{analyzer.config_hash}"
    )


def clear_memory_cache() -> None:
    """Forget the in-process indexes (the disk cache is kept)."""
    _MEMORY.clear()


def dataset_index(
    dataset: Dataset,
    analyzer: Analyzer | None = None,
    cache_dir: str | os.PathLike[str] | Literal[False] | None = None,
    progress: bool = False,
) -> CollectionIndex:
    """The index of ``dataset.documents`` (built once, then served from memory or disk).

    Parameters
    ----------
    analyzer:
        Defaults to ``default_analyzer(dataset.doc_language)``.
    cache_dir:
        Disk cache root (see the module docstring); ``False`` disables the disk cache (the
        in-process cache still applies).
    progress:
        Show a progress bar while indexing.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(
            f"dataset_index expects an axiomatic Dataset (got {type(dataset).__name__}); "
            "load one with axiomatic.data.catalog.load_dataset(name)"
        )
    if analyzer is None:
        analyzer = default_analyzer(dataset.doc_language or dataset.language)
    key = cache_key(dataset, analyzer)
    hit = _MEMORY.get(key)
    if hit is not None:
        _MEMORY.move_to_end(key)
        return hit
    index: CollectionIndex | None = None
    path: Path | None = None
    if cache_dir is not False:
        root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
        path = root / "index" / key
        if (path / "meta.json").exists():
            try:
                index = CollectionIndex.load(path)
                if index.n_docs != len(dataset.documents):
                    raise ValueError(
                        f"cached index has {index.n_docs} documents, dataset has "
                        f"{len(dataset.documents)}"
                    )
            except Exception as exc:
                warnings.warn(
                    f"ignoring unreadable cached index {path} ({exc}); rebuilding it",
                    RuntimeWarning,
                    stacklevel=2,
                )
                index = None
    if index is None:
        index = CollectionIndex.build(dataset.documents.values(), analyzer, progress=progress)
        if path is not None:
            try:
                index.save(path)
            except OSError as exc:
                warnings.warn(
                    f"could not write the index cache to {path} ({exc}); continuing without it. "
                    "Set AXIOMATIC_CACHE to a writable directory to cache indexes.",
                    RuntimeWarning,
                    stacklevel=2,
                )
    _MEMORY[key] = index
    while len(_MEMORY) > _MEMORY_MAX:
        _MEMORY.popitem(last=False)
    return index

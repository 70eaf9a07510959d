"""Build a dataset's :class:`CollectionIndex` once, cache it on disk and in the process.

Cache key: ``<dataset name>-<number of documents>-<content hash>-<analyzer hash>-v<format>``.

- The *content hash* is a streamed BLAKE2b of every document's id **and text**, in order: an
  index is only reused for exactly the documents it was built from. (Keying by ids alone served
  the old counts after a document's text changed.) Hashing the content rather than file names or
  the data root also covers every way the files could change.
- The *analyzer hash* is :attr:`Analyzer.config_hash`, which covers the stopword list's contents,
  the stemmer, the token pattern and the normalization (:meth:`Analyzer.fingerprint`).
- The *format* is :data:`CACHE_FORMAT` (bumped with the index file format or the key's recipe).

Disk cache directory: ``cache_dir`` argument, else ``$AXIOMATIC_CACHE``, else
``~/.cache/axiomatic``; indexes live in its ``index/`` subfolder and are written atomically (a
concurrent reader never sees a half-written index). A cached index that cannot be read (corrupt,
older format) is rebuilt with a warning.

In-process cache: an explicit :class:`IndexStore` (LRU). :data:`DEFAULT_INDEX_STORE` serves
callers that pass none; :func:`clear_memory_cache` empties it.
"""

from __future__ import annotations

import os
import re
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Literal

from axiomatic.data.fingerprint import documents_fingerprint
from axiomatic.data.records import Dataset
from axiomatic.index.collection import FORMAT_VERSION as INDEX_FORMAT_VERSION
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer, default_analyzer

__all__ = [
    "CACHE_FORMAT",
    "DEFAULT_INDEX_STORE",
    "IndexStore",
    "cache_key",
    "clear_memory_cache",
    "dataset_index",
    "default_cache_dir",
    "documents_fingerprint",
]

CACHE_FORMAT = f"{INDEX_FORMAT_VERSION}.3"  # .3: indexes keep their token table
"""Version of the cached index: the index file format and the recipe of the key."""


class IndexStore:
    """An in-process LRU of built indexes, keyed by :func:`cache_key`.

    An explicit object rather than a module global so that a caller (a test, a long-running
    service) can hold its own store or empty the shared one with :meth:`clear`.
    """

    def __init__(self, max_size: int = 4) -> None:
        if max_size < 1:
            raise ValueError(f"max_size must be >= 1 (got {max_size})")
        self.max_size = max_size
        self._items: OrderedDict[str, CollectionIndex] = OrderedDict()

    def get(self, key: str) -> CollectionIndex | None:
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
        return hit

    def put(self, key: str, index: CollectionIndex) -> None:
        self._items[key] = index
        self._items.move_to_end(key)
        while len(self._items) > self.max_size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget every index held (the disk cache is kept)."""
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"IndexStore(max_size={self.max_size}, held={len(self._items)})"


DEFAULT_INDEX_STORE = IndexStore()
"""The store :func:`dataset_index` uses when given none; empty it with ``.clear()``."""


def default_cache_dir() -> Path:
    """``$AXIOMATIC_CACHE`` if set, else ``~/.cache/axiomatic``."""
    env = os.environ.get("AXIOMATIC_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "axiomatic"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "dataset"


def cache_key(dataset: Dataset, analyzer: Analyzer) -> str:
    """The cache key of ``dataset``'s documents analyzed with ``analyzer`` (module docstring)."""
    return (
        f"{_slug(dataset.name)}-{len(dataset.documents)}-"
        f"{documents_fingerprint(dataset.documents)[:20]}-{analyzer.config_hash}-v{CACHE_FORMAT}"
    )


def clear_memory_cache() -> None:
    """Forget the indexes of :data:`DEFAULT_INDEX_STORE` (the disk cache is kept)."""
    DEFAULT_INDEX_STORE.clear()


def dataset_index(
    dataset: Dataset,
    analyzer: Analyzer | None = None,
    cache_dir: str | os.PathLike[str] | Literal[False] | None = None,
    progress: bool = False,
    store: IndexStore | None = None,
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
    store:
        In-process cache (default :data:`DEFAULT_INDEX_STORE`).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(
            f"dataset_index expects an axiomatic Dataset (got {type(dataset).__name__}); "
            "load one with axiomatic.data.catalog.load_dataset(name)"
        )
    if store is None:
        store = DEFAULT_INDEX_STORE
    if analyzer is None:
        analyzer = default_analyzer(dataset.doc_language or dataset.language)
    key = cache_key(dataset, analyzer)
    hit = store.get(key)
    if hit is not None:
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
    store.put(key, index)
    return index

"""The dataset catalog: stable names -> :class:`~axiomatic.data.records.Dataset`.

Names are stable identifiers used by every command and experiment (``msmarco-dev-top20/train``,
``trec-dl-2019/bm25``, ``scifact/test``, ``demo`` ...; see ``docs/datasets.md``). Collections are
read from a *data root* (the folder holding ``msmarco-passage-trecdl/``, ``scifact/`` ...):

1. the ``data_root`` argument (CLI ``--data-root``), else
2. ``$AXIOMATIC_DATA``, else
3. ``shared/data`` in an ancestor of the installed package or of the current directory
   (``../shared/data`` next to the repository).

Parsed datasets are cached in-process (LRU): loading the same name twice returns the same object,
so treat datasets as read-only (use :meth:`Dataset.subset` for views). ``irds:<id>`` names load
ir_datasets datasets from local files only (see :mod:`axiomatic.data.irds`).
"""

from __future__ import annotations

import difflib
import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from axiomatic.data import collections as col
from axiomatic.data.errors import DatasetUnavailableError, UnknownDatasetError
from axiomatic.data.records import Dataset

__all__ = [
    "DatasetInfo",
    "dataset_names",
    "list_datasets",
    "load_dataset",
    "resolve_data_root",
]

ENV_VAR = "AXIOMATIC_DATA"


def _candidate_roots() -> list[Path]:
    out: list[Path] = []
    for start in (Path(__file__).resolve(), Path.cwd().resolve()):
        for parent in (start, *start.parents):
            cand = parent / "shared" / "data"
            if cand not in out:
                out.append(cand)
    return out


def resolve_data_root(data_root: str | Path | None = None) -> Path:
    """The data root: ``data_root`` if given, else ``$AXIOMATIC_DATA``, else the first existing
    ``<ancestor>/shared/data`` of the package location or the current directory.

    The path is returned even if it does not exist (loading then says which folder is missing).
    """
    if data_root is not None:
        return Path(data_root).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    cands = _candidate_roots()
    for cand in cands:
        if cand.is_dir():
            return cand
    # nothing found: the conventional location next to the repository (for the error message)
    repo = Path(__file__).resolve().parents[3]
    return repo.parent / "shared" / "data"


@dataclass(frozen=True)
class _Entry:
    name: str
    description: str
    folder: str | None  # collection folder under the data root; None = built into the package
    loader: Callable[[Path], Dataset]
    requires: tuple[str, ...] = ()  # paths (relative to the folder) that must exist
    note: str = ""  # how to make an unavailable dataset available


@dataclass(frozen=True)
class DatasetInfo:
    """A catalog entry as listed by :func:`list_datasets`; ``counts()`` loads the dataset."""

    name: str
    description: str
    folder: str | None
    available: bool
    data_root: Path

    def counts(self) -> dict[str, int]:
        return load_dataset(self.name, self.data_root).counts()


def _entries() -> dict[str, _Entry]:
    return {e.name: e for e in _build_entries()}


@lru_cache(maxsize=1)
def _build_entries() -> tuple[_Entry, ...]:
    out: list[_Entry] = []
    for spec in col.catalog_specs():
        out.append(_Entry(**spec))
    return tuple(out)


def dataset_names() -> list[str]:
    """Every catalog name (without ``irds:`` ones)."""
    return [e.name for e in _build_entries()]


def _available(entry: _Entry, root: Path) -> bool:
    if entry.folder is None:
        return True
    base = root / entry.folder
    if not base.is_dir():
        return False
    return all(_exists(base, rel) for rel in entry.requires)


def _exists(base: Path, rel: str) -> bool:
    if "|" in rel:  # alternatives
        return any(_exists(base, r) for r in rel.split("|"))
    if rel.startswith("$"):  # an environment variable naming a user-supplied file
        val = os.environ.get(rel[1:])
        return val is not None and val != "" and Path(val).is_file()
    return (base / rel).exists()


def _describe(rel: str) -> str:
    alts = [
        f"${r[1:]} (a file named by that variable)" if r.startswith("$") else r
        for r in rel.split("|")
    ]
    return alts[0] if len(alts) == 1 else "one of " + " / ".join(alts)


def list_datasets(
    data_root: str | Path | None = None, pattern: str | None = None
) -> list[DatasetInfo]:
    """Catalog entries (optionally filtered by a glob ``pattern``, e.g. ``"xquad-clir/en-*"``)
    with whether their files are present under the data root."""
    root = resolve_data_root(data_root)
    infos = []
    for e in _build_entries():
        if pattern is not None and not fnmatch.fnmatchcase(e.name, pattern):
            continue
        infos.append(DatasetInfo(e.name, e.description, e.folder, _available(e, root), root))
    return infos


def load_dataset(name: str, data_root: str | Path | None = None) -> Dataset:
    """Load a dataset by catalog name (or ``irds:<id>``); cached per (name, data root).

    Raises :class:`UnknownDatasetError` (with close matches) for unknown names and
    :class:`DatasetUnavailableError` naming the missing folder when the files are absent.
    """
    name = name.strip()
    root = resolve_data_root(data_root)
    if name.startswith("irds:"):
        return _load_irds(name[len("irds:") :])
    entries = _entries()
    entry = entries.get(name)
    if entry is None:
        close = difflib.get_close_matches(name, list(entries), n=5, cutoff=0.5)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise UnknownDatasetError(
            f"unknown dataset {name!r}.{hint} List the names with `axiomatic datasets` "
            "(or axiomatic.data.catalog.dataset_names()); ir_datasets ids work as 'irds:<id>'."
        )
    return _load(name, str(root.resolve()) if root.exists() else str(root))


@lru_cache(maxsize=32)
def _load(name: str, root_str: str) -> Dataset:
    entry = _entries()[name]
    root = Path(root_str)
    if not _available(entry, root):
        folder = root / entry.folder if entry.folder else root
        missing = [_describe(r) for r in entry.requires if not _exists(folder, r)]
        what = f"{folder}" if not folder.is_dir() else f"{'; '.join(missing)} in {folder}"
        note = f" {entry.note}" if entry.note else ""
        raise DatasetUnavailableError(
            f"dataset {name!r} needs {what}, which is not there.{note} Point the data root at the "
            f"folder holding {entry.folder!r} with --data-root or ${ENV_VAR} "
            f"(current data root: {root})."
        )
    return entry.loader(root)


@lru_cache(maxsize=8)
def _load_irds(dataset_id: str) -> Dataset:
    from axiomatic.data.irds import load_irds

    return load_irds(dataset_id)


def clear_cache() -> None:
    """Forget every cached dataset (e.g. after files under the data root changed)."""
    _load.cache_clear()
    _load_irds.cache_clear()
    col.clear_cache()

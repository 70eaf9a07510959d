"""The dataset catalog: stable names -> :class:`~axiomatic.data.records.Dataset`.

Names are stable identifiers used by every command and experiment (``msmarco-dev-top20/train``,
``trec-dl-2019/bm25``, ``scifact/test``, ``demo`` ...; see ``docs/datasets.md``). Collections are
read from a *data root* (the folder holding ``msmarco-passage-trecdl/``, ``scifact/`` ...):

1. the ``data_root`` argument (CLI ``--data-root``), else
2. ``$AXIOMATIC_DATA``, else
3. ``shared/data`` in an ancestor of the installed package or of the current directory
   (``../shared/data`` next to the repository).

Parsed datasets are cached in-process by an explicit :class:`DatasetStore` (LRU; the default
one is :data:`DEFAULT_STORE`, emptied by :func:`clear_cache`). Every load returns an
**independent** dataset: its queries, qrels, candidate lists and metadata are copies, so one
caller that trims or empties its candidates never changes what another caller sees. Only the
documents are shared, as a :class:`ReadOnlyDocuments` mapping of immutable
:class:`~axiomatic.data.records.Document` records (copying a large collection per call would be
wasteful, and nobody can modify it in place). ``irds:<id>`` names load ir_datasets datasets from
local files only (see :mod:`axiomatic.data.irds`).
"""

from __future__ import annotations

import copy
import fnmatch
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

from axiomatic._suggest import suggest
from axiomatic.data import collections as col
from axiomatic.data.errors import DatasetUnavailableError, UnknownDatasetError
from axiomatic.data.fingerprint import hash_fields
from axiomatic.data.records import Dataset, Document

__all__ = [
    "DEFAULT_STORE",
    "DatasetInfo",
    "DatasetStore",
    "ReadOnlyDocuments",
    "clear_cache",
    "copy_dataset",
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


def _entries(root: Path | None = None) -> dict[str, _Entry]:
    return {e.name: e for e in _build_entries(root)}


def _build_entries(root: Path | None = None) -> tuple[_Entry, ...]:
    """The entries for data root ``root`` (default: :func:`resolve_data_root`): the built-in
    list plus entries that are data found under the root (e.g. further TREC DL years)."""
    root = resolve_data_root(root)
    return _build_entries_at(str(root.resolve()) if root.exists() else str(root))


@lru_cache(maxsize=8)
def _build_entries_at(root_str: str) -> tuple[_Entry, ...]:
    return tuple(_Entry(**spec) for spec in col.catalog_specs(Path(root_str)))


def dataset_names(data_root: str | Path | None = None) -> list[str]:
    """Every catalog name (without ``irds:`` ones) for ``data_root`` (default: the resolved
    data root; names that are data, such as further TREC DL years, depend on it)."""
    return [e.name for e in _build_entries(None if data_root is None else Path(data_root))]


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
    for e in _build_entries(root):
        if pattern is not None and not fnmatch.fnmatchcase(e.name, pattern):
            continue
        infos.append(DatasetInfo(e.name, e.description, e.folder, _available(e, root), root))
    return infos


class ReadOnlyDocuments(dict[str, Document]):
    """A ``doc_id -> Document`` dict that refuses every change (shared by all copies of a dataset).

    A real ``dict`` (fast lookups, ``isinstance(x, dict)``, JSON, pickling) whose mutators raise
    ``TypeError``. Because the content cannot change, its :meth:`content_fingerprint` is computed
    once and reused (e.g. by the index cache key).
    """

    __slots__ = ("_fingerprint",)

    def __init__(self, documents: Mapping[str, Document] = ()) -> None:  # type: ignore[assignment]
        super().__init__(documents)
        self._fingerprint: str | None = None

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(
            "the documents of a catalog dataset are read-only: they are shared by every caller "
            "of load_dataset. Build a new mapping instead, e.g. "
            "docs = dict(dataset.documents); docs[doc_id] = Document(doc_id, text)"
        )

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse  # type: ignore[assignment]

    def copy(self) -> dict[str, Document]:  # type: ignore[override]
        """A plain, mutable ``dict`` copy."""
        return dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(self),))

    def __copy__(self) -> ReadOnlyDocuments:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ReadOnlyDocuments:
        return self  # immutable mapping of immutable records

    def content_fingerprint(self) -> str:
        """The ids-and-texts hash of :func:`axiomatic.data.fingerprint.documents_fingerprint`."""
        if self._fingerprint is None:
            self._fingerprint = hash_fields((d.doc_id, d.text) for d in self.values())
        return self._fingerprint


def copy_dataset(dataset: Dataset) -> Dataset:
    """An independent copy of ``dataset``: containers copied, documents shared read-only.

    Queries, qrels and candidate lists are copied one level deep (their records are immutable),
    metadata deeply; the documents become (or stay) one :class:`ReadOnlyDocuments` mapping.
    """
    docs = dataset.documents
    if not isinstance(docs, ReadOnlyDocuments):
        docs = ReadOnlyDocuments(docs)
    return Dataset(
        name=dataset.name,
        queries=dict(dataset.queries),
        documents=docs,
        qrels=None if dataset.qrels is None else {q: dict(v) for q, v in dataset.qrels.items()},
        candidates=None
        if dataset.candidates is None
        else {q: list(v) for q, v in dataset.candidates.items()},
        split=dataset.split,
        language=dataset.language,
        doc_language=dataset.doc_language,
        rel_threshold=dataset.rel_threshold,
        description=dataset.description,
        metadata=copy.deepcopy(dataset.metadata),
    )


class DatasetStore:
    """In-process cache of parsed datasets (LRU), keyed by (name, data root).

    :meth:`load` parses a dataset once and then hands every caller its own
    :func:`copy_dataset` of it, so callers cannot see each other's changes. An explicit object
    (not a module global) so that a caller can hold its own store, or empty one with :meth:`clear`
    after files under the data root changed.
    """

    def __init__(self, max_size: int = 32) -> None:
        if max_size < 1:
            raise ValueError(f"max_size must be >= 1 (got {max_size})")
        self.max_size = max_size
        self._items: OrderedDict[tuple[str, str], Dataset] = OrderedDict()

    def load(
        self,
        name: str | Path,
        data_root: str | Path | None = None,
        *,
        qrels: str | Path | None = None,
        skip_malformed: bool = False,
    ) -> Dataset:
        """An independent copy of the dataset ``name`` (see :func:`load_dataset`)."""
        from axiomatic.data.descriptor import is_dataset_file

        name = str(name).strip()
        is_file = False
        if name.startswith("irds:"):
            key = (name, "")
        else:
            root = resolve_data_root(data_root)
            is_file = name not in _entries(root) and is_dataset_file(name)
            if is_file:
                key = ("file:" + str(_resolve_file(name)), _file_version(name))
                key = (key[0], f"{key[1]}|{_file_version(qrels)}|{skip_malformed}")
            else:
                _entry(name, root)  # unknown names fail here, with close matches
                key = (name, str(root.resolve()) if root.exists() else str(root))
        master = self._items.get(key)
        if master is None:
            if name.startswith("irds:"):
                from axiomatic.data.irds import load_irds

                parsed = load_irds(name[len("irds:") :])
            elif is_file:
                from axiomatic.data.descriptor import load_dataset_file

                parsed = load_dataset_file(name, qrels=qrels, skip_malformed=skip_malformed)
            else:
                parsed = _parse(name, key[1])
            master = copy_dataset(parsed)  # detached from the loaders' own caches
            self._items[key] = master
            while len(self._items) > self.max_size:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        ds = copy_dataset(master)
        if qrels is not None and not is_file:
            ds.qrels = _read_qrels_for(ds, qrels, skip_malformed)
        return ds

    def clear(self) -> None:
        """Forget every parsed dataset (e.g. after files under the data root changed)."""
        self._items.clear()
        col.clear_cache()
        _build_entries_at.cache_clear()

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"DatasetStore(max_size={self.max_size}, held={len(self._items)})"


DEFAULT_STORE = DatasetStore()
"""The store :func:`load_dataset` uses when given none; :func:`clear_cache` empties it."""


def load_dataset(
    name: str | Path,
    data_root: str | Path | None = None,
    store: DatasetStore | None = None,
    *,
    qrels: str | Path | None = None,
    skip_malformed: bool = False,
) -> Dataset:
    """Load a dataset by catalog name, ``irds:<id>``, or file: parsed once per (name, data root)
    and ``store`` (default :data:`DEFAULT_STORE`), then an independent copy per call.

    A file is a TOML dataset descriptor or a rank_llm retrieve-results JSON (see
    :mod:`axiomatic.data.descriptor`); a catalog name wins over a file of the same name.
    ``qrels`` (a TREC qrels file) replaces the dataset's qrels (it is the only way to give a
    rank_llm JSON its judgments); ``skip_malformed`` lets the line readers of a descriptor's
    files skip (count, warn about) malformed lines instead of raising.

    The copy's queries, qrels, candidates and metadata are the caller's own; its documents are a
    shared :class:`ReadOnlyDocuments` mapping. Raises :class:`UnknownDatasetError` (with close
    matches) for unknown names and :class:`DatasetUnavailableError` naming the missing folder
    when the files are absent.
    """
    return (DEFAULT_STORE if store is None else store).load(
        name, data_root, qrels=qrels, skip_malformed=skip_malformed
    )


def _resolve_file(name: str) -> Path:
    """The absolute path of a dataset file; a symbolic link loop is a
    :class:`DatasetUnavailableError`, not the ``RuntimeError`` that ``Path.resolve`` raises for
    one before Python 3.13 (later versions resolve it as far as they can, and the descriptor
    reader then reports the link)."""
    p = Path(name).expanduser()
    try:
        return p.resolve()
    except (RuntimeError, OSError) as exc:
        raise DatasetUnavailableError(
            f"dataset file {p} cannot be opened: it is a symbolic link loop (the link points, "
            f"directly or through other links, back to itself: {exc}); point it at the real "
            "file"
        ) from None


def _file_version(path: str | Path | None) -> str:
    """mtime and size of ``path`` and, for a descriptor, of the files it names (cache key)."""
    if path is None:
        return ""
    p = Path(path).expanduser()
    files = [p]
    if p.suffix == ".toml" and p.is_file():
        from axiomatic.data.descriptor import read_descriptor

        files += read_descriptor(p).files()
    parts = []
    for f in files:
        try:
            st = f.stat()
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    return ",".join(parts)


def _read_qrels_for(
    ds: Dataset, path: str | Path, skip_malformed: bool
) -> dict[str, dict[str, int]]:
    """``path``'s qrels for ``ds``; qrels that judge none of its queries are the wrong file."""
    from axiomatic.data.descriptor import DescriptorError
    from axiomatic.data.trec import read_qrels

    qrels = {q: dict(v) for q, v in read_qrels(path, skip_malformed=skip_malformed).items()}
    if not any(q in ds.queries for q in qrels):
        raise DescriptorError(
            f"{path}: none of its {len(qrels)} judged queries is a query of {ds.name!r} "
            f"({len(ds.queries)} queries, e.g. {', '.join(list(ds.queries)[:3])}); "
            "is it the qrels of another collection or year?"
        )
    return qrels


def _entry(name: str, root: Path | None = None) -> _Entry:
    entries = _entries(root)
    entry = entries.get(name)
    if entry is None:
        raise UnknownDatasetError(
            f"unknown dataset {name!r}{suggest(name, entries, n=5)}; list the names with "
            "`axiomatic datasets` "
            "(or axiomatic.data.catalog.dataset_names()); ir_datasets ids work as 'irds:<id>'; "
            "your own collection works as a descriptor FILE.toml (`axiomatic datasets init "
            "FILE.toml` writes a template) or a rank_llm results FILE.json."
        )
    return entry


def _parse(name: str, root_str: str) -> Dataset:
    root = Path(root_str)
    entry = _entries(root)[name]
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


def clear_cache() -> None:
    """Empty :data:`DEFAULT_STORE` and the loaders' parse caches (e.g. after files under the
    data root changed)."""
    DEFAULT_STORE.clear()

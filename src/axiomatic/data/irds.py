"""ir_datasets adapter: ``irds:<id>`` -> :class:`Dataset`, from LOCAL files only.

ir_datasets downloads missing files on first use; this adapter never lets it: while a dataset is
read, every network download of ir_datasets is replaced by one that raises
:class:`~axiomatic.data.errors.DatasetUnavailableError` naming the missing file and the ir_datasets
home (``$IR_DATASETS_HOME``, default ``~/.ir_datasets``) where it should be placed.

With scored documents (a re-ranking dataset such as ``msmarco-passage/trec-dl-2019/judged`` with
its BM25 ``scoreddocs``), candidates are the scored documents (by score) and only their texts are
looked up in the docstore; otherwise the whole corpus is read (full retrieval). Document and
query texts use ir_datasets' ``default_text()`` (e.g. title + body).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from axiomatic.data.errors import DatasetUnavailableError, UnknownDatasetError
from axiomatic.data.records import Dataset, Document, Query


def _import_irds() -> Any:
    try:
        import ir_datasets
    except ImportError:  # pragma: no cover - ir_datasets is a core dependency
        raise ImportError(
            "irds:<id> datasets need the ir_datasets package: pip install ir-datasets"
        ) from None
    return ir_datasets


@contextlib.contextmanager
def _no_downloads() -> Iterator[None]:
    """Replace ir_datasets' remote download streams by a clear local-files-only error."""
    from ir_datasets.util import download as dl

    def refuse(self: Any) -> Any:
        url = getattr(self, "url", None) or repr(self)
        raise DatasetUnavailableError(
            f"ir_datasets needs {url}, which is not in its local store; axiomatic never "
            "downloads. Fetch it yourself (e.g. `python -m ir_datasets export <id> docs` on a "
            "machine with internet) and put ir_datasets' home folder in place "
            "($IR_DATASETS_HOME, default ~/.ir_datasets)."
        )

    orig_path = dl.Download.path

    def local_path(self: Any, force: bool = True) -> Any:
        # public API only: path(force=False) names the file ir_datasets would download to
        # (or the one it already resolved) without fetching; a local mirror's path(force=False)
        # is its file
        if force:
            target = orig_path(self, False)
            local = [m for m in self.mirrors if isinstance(m, dl.LocalDownload)]
            if (
                target is not None
                and str(target) != os.devnull
                and not Path(target).exists()
                and not any(Path(m.path(force=False)).exists() for m in local)
            ):
                urls = ", ".join(getattr(m, "url", repr(m)) for m in self.mirrors)
                raise DatasetUnavailableError(
                    f"ir_datasets needs the file {target} (published at {urls}), which is not "
                    "there; axiomatic never downloads. Download it on a machine with internet "
                    "and copy it to that path (ir_datasets' home is $IR_DATASETS_HOME, default "
                    "~/.ir_datasets)."
                )
        return orig_path(self, force)

    classes = [
        c
        for c in vars(dl).values()
        if isinstance(c, type)
        and issubclass(c, dl.BaseDownload)
        and c not in (dl.BaseDownload, dl.LocalDownload)
    ]
    saved = {c: c.__dict__.get("stream") for c in classes}
    try:
        dl.Download.path = local_path  # type: ignore[method-assign]
        for c in classes:
            c.stream = refuse  # type: ignore[attr-defined]
        yield
    finally:
        dl.Download.path = orig_path  # type: ignore[method-assign]
        for c, orig in saved.items():
            if orig is None:
                delattr(c, "stream")
            else:
                c.stream = orig  # type: ignore[attr-defined]


def _text(record: Any, id_field: str) -> str:
    fn = getattr(record, "default_text", None)
    if callable(fn):
        return str(fn())
    if hasattr(record, "text"):
        return str(record.text)
    return " ".join(
        str(v) for k, v in record._asdict().items() if k != id_field and isinstance(v, str)
    )


def load_irds(dataset_id: str, name: str | None = None) -> Dataset:
    """Load ir_datasets dataset ``dataset_id`` from local files (see module docstring)."""
    irds = _import_irds()
    try:
        ds = irds.load(dataset_id)
    except KeyError:
        from axiomatic._suggest import suggest

        hint = suggest(dataset_id, irds.registry, n=5, cutoff=0.6)
        raise UnknownDatasetError(
            f"ir_datasets has no dataset {dataset_id!r}{hint}; see https://ir-datasets.com/."
        ) from None
    try:
        with _no_downloads():
            return _materialise(ds, dataset_id, name or f"irds:{dataset_id}")
    except DatasetUnavailableError:
        raise
    except RuntimeError as exc:  # "All download sources failed" wraps our refusal
        inner = [
            e
            for _, e in (exc.args[1] if len(exc.args) > 1 else [])
            if isinstance(e, DatasetUnavailableError)
        ]
        if inner:
            raise inner[0] from None
        raise
    except OSError as exc:
        raise DatasetUnavailableError(
            f"ir_datasets dataset {dataset_id!r} is missing a local file ({exc}); axiomatic "
            "never downloads: place the files under $IR_DATASETS_HOME (default ~/.ir_datasets)."
        ) from None


def _materialise(ds: Any, dataset_id: str, name: str) -> Dataset:
    if not ds.has_queries():
        raise UnknownDatasetError(
            f"ir_datasets dataset {dataset_id!r} has no queries; pick a subset with queries "
            "(e.g. '<corpus>/<benchmark>')"
        )
    queries = {
        q.query_id: Query(q.query_id, " ".join(_text(q, "query_id").split()))
        for q in ds.queries_iter()
    }
    qrels: dict[str, dict[str, int]] | None = None
    if ds.has_qrels():
        qrels = {}
        for r in ds.qrels_iter():
            qrels.setdefault(r.query_id, {})[r.doc_id] = int(r.relevance)
    candidates: dict[str, list[str]] | None = None
    documents: dict[str, Document] = {}
    if ds.has_scoreddocs():
        scored: dict[str, list[tuple[float, str]]] = {}
        for sd in ds.scoreddocs_iter():
            scored.setdefault(sd.query_id, []).append((float(sd.score), sd.doc_id))
        candidates = {
            q: [d for _, d in sorted(v, key=lambda t: (-t[0], t[1]))] for q, v in scored.items()
        }
        wanted = {d for v in candidates.values() for d in v}
        store = ds.docs_store()
        for did, doc in store.get_many(wanted).items():
            documents[did] = Document(did, _text(doc, "doc_id"))
        candidates = {q: [d for d in v if d in documents] for q, v in candidates.items()}
    elif ds.has_docs():
        for doc in ds.docs_iter():
            documents[doc.doc_id] = Document(doc.doc_id, _text(doc, "doc_id"))
    else:
        raise UnknownDatasetError(f"ir_datasets dataset {dataset_id!r} has no documents")
    lang = getattr(ds, "queries_lang", lambda: None)() or "en"
    doc_lang = getattr(ds, "docs_lang", lambda: None)() or lang
    return Dataset(
        name=name,
        queries=queries,
        documents=documents,
        qrels=qrels,
        candidates=candidates,
        split=None,
        language=lang,
        doc_language=doc_lang,
        rel_threshold=1,
        description=f"ir_datasets {dataset_id} (local files)",
        metadata={"irds_id": dataset_id},
    )

"""Helpers shared by the collection families: parse caches, spec lists, dataset shells."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from axiomatic.data.records import Dataset, Document, Qrels, Query

_CACHES: list[Any] = []


def cached(fn: Callable[..., Any]) -> Callable[..., Any]:
    wrapped = lru_cache(maxsize=4)(fn)
    _CACHES.append(wrapped)
    return wrapped


def clear_cache() -> None:
    for c in _CACHES:
        c.cache_clear()


def restrict_qrels(qrels: Qrels, qids: list[str] | dict[str, Any]) -> Qrels:
    return {q: dict(qrels[q]) for q in qids if q in qrels}


def numeric_key(qid: str) -> tuple[int, int | str]:
    return (0, int(qid)) if qid.lstrip("-").isdigit() else (1, qid)


def spec_adder(specs: list[dict[str, Any]]) -> Callable[..., None]:
    """``add(name, description, folder, loader, requires=(), note="")`` appending to ``specs``."""

    def add(
        name: str,
        description: str,
        folder: str | None,
        loader: Callable[[Path], Dataset],
        requires: tuple[str, ...] = (),
        note: str = "",
    ) -> None:
        specs.append(
            dict(
                name=name,
                description=description,
                folder=folder,
                loader=loader,
                requires=requires,
                note=note,
            )
        )

    return add


def classic_dataset(
    name: str,
    queries: dict[str, Query],
    documents: dict[str, Document],
    qrels: Qrels,
    description: str,
    metadata: dict[str, Any] | None = None,
) -> Dataset:
    return Dataset(
        name=name,
        queries=queries,
        documents=documents,
        qrels=qrels,
        candidates=None,
        split="test",
        language="en",
        rel_threshold=1,
        description=description,
        metadata=metadata or {},
    )


def pairwise_dataset(
    name: str,
    s: Any,
    split: str | None,
    language: str,
    doc_language: str | None,
    rel_threshold: int,
    description: str,
    source: str,
) -> Dataset:
    return Dataset(
        name=name,
        queries=s.queries,
        documents=s.documents,
        qrels=s.qrels,
        candidates=s.candidates,
        split=split,
        language=language,
        doc_language=doc_language,
        rel_threshold=rel_threshold,
        description=description,
        metadata={"source": source},
    )

"""Artificial documents for axioms that real collections hardly instantiate (Rennings 2019, 3.2.2).

LNC2 needs a document and the same document concatenated ``k`` times. Following the thesis
(Table 3.8/3.9: ``k in {2, 3, 4}``, ``doc_len_max = 240``) we duplicate every candidate whose
``k``-fold length stays within ``max_len`` analyzed terms, keep its relevance label, and give the
copy a deterministic id ``"<doc_id>#lnc2-k<k>"``.

The copy's statistics are exact without re-analysis: concatenating the text ``k`` times with a
space multiplies every term count and the length by ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from axiomatic.axioms.context import QueryContext
from axiomatic.data.records import Document

DEFAULT_KS = (2, 3, 4)
DEFAULT_MAX_LEN = 240


def artificial_id(doc_id: str, k: int) -> str:
    return f"{doc_id}#lnc2-k{k}"


def duplicate_text(text: str, k: int) -> str:
    """``text`` concatenated ``k`` times (space separated, so no token merges across copies)."""
    return " ".join([text] * k)


@dataclass(frozen=True)
class ArtificialConfig:
    """Which duplicates to make: multipliers ``ks`` and the length cap ``max_len``."""

    ks: tuple[int, ...] = DEFAULT_KS
    max_len: int = DEFAULT_MAX_LEN

    def __post_init__(self) -> None:
        if not self.ks or any((not isinstance(k, (int, np.integer))) or k < 2 for k in self.ks):
            raise ValueError(f"LNC2 multipliers k must be integers >= 2 (got {self.ks!r})")
        if self.max_len < 1:
            raise ValueError(f"max_len must be >= 1 (got {self.max_len})")


def plan_duplicates(
    ctx: QueryContext, cfg: ArtificialConfig, eligible: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Source rows and multipliers of the duplicates to create (vectorized over docs x ks).

    A duplicate is made when ``0 < k |d| <= max_len`` and ``eligible[d]`` (e.g. the document
    contains a query term, which the LNC2 precondition needs anyway).
    """
    L = ctx.doc_len
    ks = np.asarray(cfg.ks, dtype=np.int64)
    ok = (L[:, None] > 0) & (L[:, None] * ks[None, :] <= cfg.max_len)
    if eligible is not None:
        ok &= eligible[:, None]
    src, kk = np.nonzero(ok)
    return src.astype(np.int64), ks[kk]


def extend_context(
    ctx: QueryContext, sources: np.ndarray, ks: np.ndarray
) -> tuple[QueryContext, list[Document]]:
    """``ctx`` with the duplicates appended as extra rows (exact counts, no re-analysis)."""
    docs = [
        Document(
            artificial_id(ctx.doc_ids[s], int(k)), duplicate_text(ctx.documents[s].text, int(k))
        )
        for s, k in zip(sources.tolist(), ks.tolist(), strict=True)
    ]
    return ctx.with_scaled_copies(sources, ks, docs), docs


def artificial_records(
    docs: Sequence[Document], sources: Sequence[str], ks: Sequence[int], query_id: str
) -> list[dict[str, object]]:
    """Rows of ``_artificial_docs.parquet`` (doc_id, text, source_doc_id, query_id, k)."""
    return [
        {"doc_id": d.doc_id, "text": d.text, "source_doc_id": s, "query_id": query_id, "k": int(k)}
        for d, s, k in zip(docs, sources, ks, strict=True)
    ]

"""NFCorpus (original release): graded 3-2-1, full retrieval."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import cached, spec_adder
from axiomatic.data.records import Dataset, Document
from axiomatic.data.trec import read_qrels, read_topics

NFCORPUS_DIR = "nfcorpus-original"


@cached
def _nfcorpus_docs(root: Path, split: str) -> dict[str, Document]:
    from axiomatic.data.readers.tsv import read_tsv_documents

    return read_tsv_documents(root / NFCORPUS_DIR / "raw" / f"{split}.docs")


def load_nfcorpus(root: Path, split: str) -> Dataset:
    """NFCorpus original (pre-processed text), graded 3-2-1, full retrieval over the split's
    documents. ``train`` has no docs file in the release: its documents are the union of dev+test
    docs (3,395) and its qrels are restricted to those documents (all 139,350 judgments are in
    metadata["qrels_all"])."""
    base = root / NFCORPUS_DIR / "raw"
    queries = dict(read_topics(base / f"{split}.titles.queries", format="tsv"))
    qrels = dict(read_qrels(base / f"{split}.3-2-1.qrel"))
    meta: dict[str, Any] = {"source": NFCORPUS_DIR, "query_field": "titles"}
    if split == "train":
        docs = {**_nfcorpus_docs(root, "dev"), **_nfcorpus_docs(root, "test")}
        meta["qrels_all"] = qrels
        qrels = {q: {d: g for d, g in v.items() if d in docs} for q, v in qrels.items()}
        qrels = {q: v for q, v in qrels.items() if v}
    else:
        docs = _nfcorpus_docs(root, split)
    return Dataset(
        name=f"nfcorpus/{split}",
        queries=queries,
        documents=docs,
        qrels=qrels,
        candidates=None,
        split=split,
        language="en",
        rel_threshold=1,
        description=f"NFCorpus (original release) {split}, graded 3-2-1, full retrieval",
        metadata=meta,
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    for split in ("train", "dev", "test"):
        req = ("raw/dev.docs", "raw/test.docs") if split == "train" else (f"raw/{split}.docs",)
        add(
            f"nfcorpus/{split}",
            f"NFCorpus original {split}, graded 3-2-1, full retrieval",
            NFCORPUS_DIR,
            partial(load_nfcorpus, split=split),
            (*req, f"raw/{split}.titles.queries", f"raw/{split}.3-2-1.qrel"),
        )
    return specs

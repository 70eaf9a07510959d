"""Classic small test collections: Cranfield, the Glasgow SMART sets (CISI, CACM, ADI,
MEDLINE), Vaswani/NPL and Cystic Fibrosis (full retrieval)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import classic_dataset, spec_adder
from axiomatic.data.records import Dataset
from axiomatic.data.trec import read_qrels, read_topics

# (catalog name, folder, docs file, queries file, qrels file, qrels layout, doc fields)
_SMART = {
    "cisi": ("cisi", "CISI.ALL", "CISI.QRY", "CISI.REL", "qid docid", ("T", "W")),
    "cacm": ("cacm", "cacm.all", "query.text", "qrels.text", "qid docid", ("T", "W")),
    "adi": ("adi", "ADI.ALL", "ADI.QRY", "ADI.REL", "qid docid", ("T", "W")),
    "medline": ("medline-glasgow", "MED.ALL", "MED.QRY", "MED.REL", "trec", ("W",)),
}


def load_smart(root: Path, name: str) -> Dataset:
    """Glasgow SMART collections (full retrieval; binary qrels; queries without judgments are
    kept: CISI has 36, CACM 12)."""
    from axiomatic.data.readers.smart import (
        read_smart_qrels,
        read_smart_records,
        records_to_documents,
        records_to_queries,
    )

    folder, docs_f, qry_f, rel_f, layout, fields = _SMART[name]
    base = root / folder / "raw"
    docs = records_to_documents(read_smart_records(base / docs_f), fields)
    queries = records_to_queries(read_smart_records(base / qry_f))
    qrels = read_smart_qrels(base / rel_f, layout)
    return classic_dataset(
        name,
        queries,
        docs,
        dict(qrels),
        f"{name.upper()} (Glasgow SMART distribution), full retrieval, binary qrels",
        {"source": folder},
    )


def load_cranfield(root: Path) -> Dataset:
    """Cranfield 1400. Query ids are the positions 1..225 in ``cran.qry`` (as in ``cranqrel``;
    the ``.I`` numbers run 001..365 with gaps and are kept in metadata["qry_numbers"]).
    Grades: Cleverdon's codes mapped to higher-is-better, 1->4, 2->3, 3->2, 4->1 (``5 - code``);
    the 225 ``-1`` lines are markers and dropped. Documents 471 and 995 are empty in the
    distribution and kept (ids must match the qrels). rel_threshold=1 (every listed pair)."""
    from axiomatic.data.readers.smart import (
        CRANFIELD_GRADE_MAP,
        read_cranfield_qrels,
        read_smart_records,
        records_to_documents,
        records_to_queries,
    )

    base = root / "cranfield" / "raw"
    docs = records_to_documents(read_smart_records(base / "cran.all.1400"), ("T", "W"))
    qrecs = read_smart_records(base / "cran.qry")
    queries = records_to_queries(qrecs, sequential_ids=True)
    qrels, markers = read_cranfield_qrels(base / "cranqrel")
    return classic_dataset(
        "cranfield",
        queries,
        docs,
        qrels,
        "Cranfield 1400, full retrieval, graded 1-4 (higher = more relevant)",
        {
            "source": "cranfield",
            "grade_map": dict(CRANFIELD_GRADE_MAP),
            "markers_dropped": markers,
            "qry_numbers": {str(i): r.record_id for i, r in enumerate(qrecs, 1)},
        },
    )


def load_vaswani(root: Path) -> Dataset:
    from axiomatic.data.readers.trecdocs import read_trec_documents

    base = root / "vaswani-npl" / "raw"
    return classic_dataset(
        "vaswani",
        dict(read_topics(base / "query-text.trec")),
        read_trec_documents(base / "corpus" / "doc-text.trec"),
        dict(read_qrels(base / "qrels")),
        "Vaswani / NPL (physics abstracts), full retrieval, binary qrels",
        {"source": "vaswani-npl"},
    )


def load_cystic_fibrosis(root: Path) -> Dataset:
    """Cystic Fibrosis: graded label = sum of the four judges' 0/1/2 scores (1..8);
    per-judge scores in metadata["judge_scores"]."""
    from axiomatic.data.readers.cf import read_cf_documents, read_cf_queries

    base = root / "cystic-fibrosis-cf" / "raw"
    docs = read_cf_documents([base / f"cf{i}" for i in range(74, 80)])
    q = read_cf_queries(base / "cfquery")
    return classic_dataset(
        "cystic-fibrosis",
        q.queries,
        docs,
        q.qrels,
        "Cystic Fibrosis (MEDLINE abstracts), full retrieval, graded 1-8 (sum of 4 judges)",
        {"source": "cystic-fibrosis-cf", "judge_scores": q.judge_scores},
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    add(
        "cranfield",
        "Cranfield 1400 (aeronautics), graded 1-4, full retrieval",
        "cranfield",
        load_cranfield,
        ("raw/cran.all.1400", "raw/cran.qry", "raw/cranqrel"),
    )
    for name, (folder, d, q, r, _l, _f) in _SMART.items():
        add(
            name,
            f"{name.upper()} (Glasgow), binary qrels, full retrieval",
            folder,
            partial(load_smart, name=name),
            (f"raw/{d}", f"raw/{q}", f"raw/{r}"),
        )
    add(
        "vaswani",
        "Vaswani/NPL physics abstracts, binary qrels, full retrieval",
        "vaswani-npl",
        load_vaswani,
        ("raw/corpus/doc-text.trec", "raw/query-text.trec", "raw/qrels"),
    )
    add(
        "cystic-fibrosis",
        "Cystic Fibrosis (MEDLINE), graded 1-8 (4 judges), full retrieval",
        "cystic-fibrosis-cf",
        load_cystic_fibrosis,
        ("raw/cfquery", "raw/cf74"),
    )
    return specs

"""Loaders that turn the shared collections into :class:`Dataset` objects (canonical splits).

Each ``load_*`` function takes the data root and returns a Dataset; :func:`catalog_specs`
lists them for :mod:`axiomatic.data.catalog`. Parsing of a collection folder is cached so that
its splits (``/train``, ``/test`` ...) share one parse.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from axiomatic.data.demo import demo_dataset
from axiomatic.data.records import Dataset, Document, Qrels, Query
from axiomatic.data.trec import read_qrels, read_topics

_CACHES: list[Any] = []


def _cached(fn: Callable[..., Any]) -> Callable[..., Any]:
    wrapped = lru_cache(maxsize=4)(fn)
    _CACHES.append(wrapped)
    return wrapped


def clear_cache() -> None:
    for c in _CACHES:
        c.cache_clear()


def _restrict_qrels(qrels: Qrels, qids: list[str] | dict[str, Any]) -> Qrels:
    return {q: dict(qrels[q]) for q in qids if q in qrels}


def _numeric_key(qid: str) -> tuple[int, int | str]:
    return (0, int(qid)) if qid.lstrip("-").isdigit() else (1, qid)


# ------------------------------------------------------------------------------ MS MARCO top-20
MSMARCO_DIR = "msmarco-passage-dev-bm25top20-graded"


@_cached
def _msmarco_parse(root: Path) -> dict[str, Any]:
    from axiomatic.data.readers.msmarco import read_graded_labels, read_top20_folder

    base = root / MSMARCO_DIR / "raw"
    top = read_top20_folder(base / "firebase" / "sampled_files")
    official = base / "msmarco-dev-small" / "qrels.dev.small.tsv"
    graded_path = base / "firebase" / "relevance_labels" / "data.json"
    order = sorted(top.queries, key=_numeric_key)
    test = set(order[2::3])
    return {
        "top": top,
        "official": read_qrels(official) if official.is_file() else None,
        "graded": read_graded_labels(graded_path) if graded_path.is_file() else None,
        "order": order,
        "test": test,
    }


def _split_ids(order: list[str], test: set[str], split: str | None) -> list[str]:
    if split is None:
        return list(order)
    return [q for q in order if (q in test) == (split == "test")]


def load_msmarco_top20(root: Path, split: str | None = None) -> Dataset:
    """600 MS MARCO dev-small queries x BM25 top-20 (binary MS MARCO labels for all 12,000
    pairs); canonical split: query ids sorted numerically, every third (index 2, 5, ...) = test."""
    p = _msmarco_parse(root)
    top = p["top"]
    qids = _split_ids(p["order"], p["test"], split)
    meta: dict[str, Any] = {
        "bm25_label": {q: top.bm25_labels[q] for q in qids},
        "source": MSMARCO_DIR,
    }
    if p["official"] is not None:
        meta["qrels_official"] = _restrict_qrels(p["official"], qids)
    name = "msmarco-dev-top20" + (f"/{split}" if split else "")
    return Dataset(
        name=name,
        queries={q: top.queries[q] for q in qids},
        documents=top.documents,
        qrels=_restrict_qrels(top.qrels, qids),
        candidates={q: top.candidates[q] for q in qids},
        split=split,
        language="en",
        rel_threshold=1,
        description="MS MARCO passage dev-small x BM25 top-20 with text; MS MARCO labels "
        "(negatives = unjudged BM25 candidates)",
        metadata=meta,
    )


def load_msmarco_top20_graded(root: Path, split: str | None = None) -> Dataset:
    """The 125 re-assessed queries with 1-5 grades (upper median of the assessors' grades);
    ``rel_threshold=3``. Same train/test membership as the binary set."""
    p = _msmarco_parse(root)
    top, graded = p["top"], p["graded"]
    grades = graded.aggregated("median")
    qids = [q for q in _split_ids(p["order"], p["test"], split) if q in grades]
    name = "msmarco-dev-top20-graded" + (f"/{split}" if split else "")
    return Dataset(
        name=name,
        queries={q: top.queries[q] for q in qids},
        documents=top.documents,
        qrels={q: dict(grades[q]) for q in qids},
        candidates={q: top.candidates[q] for q in qids},
        split=split,
        language="en",
        rel_threshold=3,
        description="MS MARCO dev top-20, graded 1-5 re-assessments (Gielen 2020), median grade",
        metadata={
            "qrels_msmarco": {q: dict(top.qrels[q]) for q in qids},
            "assessor_grades": {q: graded.grades[q] for q in qids},
            "grade_scale": "1 = totally irrelevant ... 5 = perfectly relevant",
            "source": MSMARCO_DIR,
        },
    )


# --------------------------------------------------------------------------------- TREC DL
TRECDL_DIR = "msmarco-passage-trecdl"
TRECDL_EXTRA_DIR = "msmarco-passage-trecdl-extra-runs"
TRECDL_RUNS: dict[int, dict[str, tuple[str, str]]] = {
    2019: {
        "bm25": (TRECDL_DIR, "BM25"),
        "splade-pp": (TRECDL_DIR, "SPLADE_P_P_ENSEMBLE_DISTIL"),
        "tasb": (TRECDL_DIR, "D_BERT_KD_TASB"),
        "ada2": (TRECDL_DIR, "OPEN_AI_ADA2"),
        "repllama": (TRECDL_EXTRA_DIR, "REP_LLAMA"),
        "bm25-rm3": (TRECDL_EXTRA_DIR, "BM25_RM3"),
    },
    2021: {
        "bm25": (TRECDL_DIR, "BM25"),
        "splade-pp": (TRECDL_EXTRA_DIR, "SPLADE_P_P_ENSEMBLE_DISTIL"),
        "bm25-rm3": (TRECDL_EXTRA_DIR, "BM25_RM3"),
    },
}
_DL_FILES = {
    2019: ("topics/topics.dl19-passage.txt", "qrels/qrels.dl19-passage.txt", "dl19"),
    2021: ("topics/topics.dl21.txt", "qrels/qrels.dl21-passage.txt", "dl21"),
}


def _run_path(root: Path, year: int, system: str) -> Path:
    folder, method = TRECDL_RUNS[year][system]
    return (
        root / folder / "raw" / "rank_llm" / method / f"retrieve_results_{_DL_FILES[year][2]}.json"
    )


@_cached
def _trecdl_run(root: Path, year: int, system: str) -> Any:
    from axiomatic.data.readers.rankllm import read_rankllm_results

    return read_rankllm_results(_run_path(root, year, system))


@_cached
def _trecdl_topics_qrels(root: Path, year: int) -> tuple[dict[str, Query], Qrels]:
    topics, qrels, _ = _DL_FILES[year]
    base = root / TRECDL_DIR / "raw" / "anserini-tools"
    return read_topics(base / topics), read_qrels(base / qrels)


def load_trecdl(root: Path, year: int, system: str) -> Dataset:
    """TREC DL passage queries x one system's top-100 (RepLLaMA: top-200) with text.
    Qrels are the full NIST qrels (grade >= 2 relevant: ``rel_threshold=2``); evaluation only."""
    topics, qrels = _trecdl_topics_qrels(root, year)
    systems = list(TRECDL_RUNS[year]) if system == "union" else [system]
    documents: dict[str, Document] = {}
    best: dict[str, dict[str, tuple[int, int]]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for si, s in enumerate(systems):
        res = _trecdl_run(root, year, s)
        runs[s] = res.run
        for did, doc in res.documents.items():
            documents.setdefault(did, doc)
        for qid, cands in res.candidates.items():
            slot = best.setdefault(qid, {})
            for rank, did in enumerate(cands):
                key = (rank, si)
                if did not in slot or key < slot[did]:
                    slot[did] = key
    qids = sorted(best, key=_numeric_key)
    queries = {}
    for q in qids:
        queries[q] = topics.get(q) or Query(q, _trecdl_run(root, year, systems[0]).queries[q].text)
    candidates = {q: sorted(best[q], key=best[q].__getitem__) for q in qids}
    return Dataset(
        name=f"trec-dl-{year}/{system}",
        queries=queries,
        documents=documents,
        qrels=_restrict_qrels(qrels, qids),
        candidates=candidates,
        split="test",
        language="en",
        rel_threshold=2,
        description=f"TREC DL {year} passage, candidates from "
        + ("the union of " + ", ".join(systems) if system == "union" else system)
        + " (grade >= 2 relevant)",
        metadata={
            "runs": runs,
            "systems": systems,
            "corpus": "msmarco-v1" if year == 2019 else "msmarco-v2",
        },
    )


# --------------------------------------------------------------------------------- SciFact
SCIFACT_DIR = "scifact"


@_cached
def _scifact_corpus(root: Path) -> dict[str, Document]:
    from axiomatic.data.readers.scifact import read_scifact_corpus

    return read_scifact_corpus(root / SCIFACT_DIR / "raw" / "corpus_train.csv")


def load_scifact(root: Path, split: str) -> Dataset:
    """BEIR SciFact: train = claims_train (809), test = claims_validation (300); full retrieval
    over the 5,183 abstracts (``candidates=None``)."""
    from axiomatic.data.readers.scifact import read_scifact_claims

    fname = {"train": "claims_train.csv", "test": "claims_validation.csv"}[split]
    queries, qrels = read_scifact_claims(root / SCIFACT_DIR / "raw" / fname)
    return Dataset(
        name=f"scifact/{split}",
        queries=queries,
        documents=_scifact_corpus(root),
        qrels=qrels,
        candidates=None,
        split=split,
        language="en",
        rel_threshold=1,
        description=f"BEIR SciFact {split}: claims -> cited abstracts (full retrieval)",
        metadata={"source": SCIFACT_DIR},
    )


# ----------------------------------------------------------------------------------- specs
def _spec_adder(specs: list[dict[str, Any]]) -> Callable[..., None]:
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


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts for every catalog name (order = listing order)."""
    specs: list[dict[str, Any]] = []

    add = _spec_adder(specs)

    for split in (None, "train", "test"):
        suffix = f"/{split}" if split else ""
        add(
            f"demo{suffix}",
            "built-in English demo collection (shaped for every axiom)"
            + (f", {split} split" if split else ""),
            None,
            partial(_demo_loader, split=split),
        )
    for split in (None, "train", "test"):
        suffix = f"/{split}" if split else ""
        add(
            f"msmarco-dev-top20{suffix}",
            "MS MARCO dev-small x BM25 top-20 with text, binary labels"
            + (f" ({split}: {'200' if split == 'test' else '400'} queries)" if split else " (600)"),
            MSMARCO_DIR,
            partial(load_msmarco_top20, split=split),
            ("raw/firebase/sampled_files",),
        )
    for split in (None, "train", "test"):
        suffix = f"/{split}" if split else ""
        add(
            f"msmarco-dev-top20-graded{suffix}",
            "MS MARCO dev top-20, 125 queries re-assessed 1-5 (median grade)"
            + (f", {split} split" if split else ""),
            MSMARCO_DIR,
            partial(load_msmarco_top20_graded, split=split),
            ("raw/firebase/sampled_files", "raw/firebase/relevance_labels/data.json"),
        )
    for year, systems in TRECDL_RUNS.items():
        for system in [*systems, "union"]:
            folders = {
                TRECDL_RUNS[year][s][0] for s in (systems if system == "union" else [system])
            }
            req = [f"../{TRECDL_DIR}/raw/anserini-tools/{_DL_FILES[year][1]}"]
            for s in systems if system == "union" else [system]:
                f, m = TRECDL_RUNS[year][s]
                req.append(f"../{f}/raw/rank_llm/{m}/retrieve_results_{_DL_FILES[year][2]}.json")
            folder = TRECDL_EXTRA_DIR if folders == {TRECDL_EXTRA_DIR} else TRECDL_DIR
            add(
                f"trec-dl-{year}/{system}",
                f"TREC DL {year} passage: {system} candidates with text, NIST graded qrels",
                folder,
                partial(load_trecdl, year=year, system=system),
                tuple(req),
            )
    for split in ("train", "test"):
        add(
            f"scifact/{split}",
            f"BEIR SciFact {split} (full retrieval over 5,183 abstracts)",
            SCIFACT_DIR,
            partial(load_scifact, split=split),
            (
                "raw/corpus_train.csv",
                f"raw/claims_{'train' if split == 'train' else 'validation'}.csv",
            ),
        )
    specs.extend(_more_specs())
    return specs


def _demo_loader(root: Path, split: str | None = None) -> Dataset:
    return demo_dataset(split)


# ------------------------------------------------------------------ classic small collections
def _classic(
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
    return _classic(
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
    return _classic(
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
    return _classic(
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
    return _classic(
        "cystic-fibrosis",
        q.queries,
        docs,
        q.qrels,
        "Cystic Fibrosis (MEDLINE abstracts), full retrieval, graded 1-8 (sum of 4 judges)",
        {"source": "cystic-fibrosis-cf", "judge_scores": q.judge_scores},
    )


# ---------------------------------------------------------------------------------- NFCorpus
NFCORPUS_DIR = "nfcorpus-original"


@_cached
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


# ------------------------------------------------------------------------- small graded sets
def load_noveleval(root: Path) -> Dataset:
    """NovelEval-2306: 21 queries x 20 passages, graded 0/1/2 (2 = relevant: rel_threshold=2);
    candidates in the BM25 order of ``data.json``."""
    from axiomatic.data.readers.rankllm import read_rankllm_results
    from axiomatic.data.readers.tsv import read_tsv_documents

    base = root / "noveleval-2306" / "raw"
    docs = read_tsv_documents(base / "corpus.tsv")
    queries = dict(read_topics(base / "queries.tsv", format="tsv"))
    qrels = dict(read_qrels(base / "qrels.txt"))
    res = read_rankllm_results(base / "data.json")
    candidates = {
        q: [d for d in res.candidates[q] if d in docs] for q in queries if q in res.candidates
    }
    for q in queries:  # a query missing from data.json: its judged passages, corpus order
        candidates.setdefault(q, [d for d in docs if d in qrels.get(q, {})])
    return Dataset(
        name="noveleval",
        queries=queries,
        documents=docs,
        qrels=qrels,
        candidates=candidates,
        split="test",
        language="en",
        rel_threshold=2,
        description="NovelEval-2306: 21 post-2023 queries x 20 passages, graded 0/1/2",
        metadata={"source": "noveleval-2306", "run": res.run},
    )


def load_rag24(root: Path) -> Dataset:
    """TREC RAG 2024: 301 topics x top-20 MS MARCO v2.1 segments; NIST/UMBRELA qrels (0-3) for
    86 topics (unjudged topics have no qrels; rel_threshold=2 as TREC DL)."""
    from axiomatic.data.readers.rag24 import read_rag24_retrieval

    base = root / "trec-rag24-retrieval-top20" / "raw"
    res = read_rag24_retrieval(base / "study1_retrieval.jsonl.gz")
    qrels = dict(read_qrels(base / "2024-retrieval-qrels.txt"))
    return Dataset(
        name="trec-rag24",
        queries=res.queries,
        documents=res.documents,
        qrels={q: v for q, v in qrels.items() if q in res.queries},
        candidates=res.candidates,
        split="test",
        language="en",
        rel_threshold=2,
        description="TREC RAG 2024 top-20 segments with text; graded qrels for 86 topics",
        metadata={
            "source": "trec-rag24-retrieval-top20",
            "run": res.run,
            "judged_topics": sorted(q for q in qrels if q in res.queries),
        },
    )


# ------------------------------------------------------------------------------- QA / CLIR
def _pairwise_dataset(
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


def load_wikiqa(root: Path, split: str) -> Dataset:
    from axiomatic.data.readers.wikiqa import read_wikiqa_castor

    s = read_wikiqa_castor(root / "wikiqa-castor" / "raw" / split)
    return _pairwise_dataset(
        f"wikiqa/{split}",
        s,
        split,
        "en",
        None,
        1,
        f"WikiQA (Castor processing) {split}: answer-sentence ranking",
        "wikiqa-castor",
    )


WIKIPASSAGEQA_ENV = "AXIOMATIC_WIKIPASSAGEQA_PASSAGES"


def wikipassageqa_passages_path(root: Path) -> Path | None:
    import os

    env = os.environ.get(WIKIPASSAGEQA_ENV)
    cands = [Path(env)] if env else []
    base = root / "wikipassageqa"
    cands += [base / "document_passages.json", base / "raw" / "document_passages.json"]
    return next((c for c in cands if c.is_file()), None)


def load_wikipassageqa(root: Path, split: str) -> Dataset:
    """WikiPassageQA; needs the user-supplied ``document_passages.json`` (in ``wikipassageqa/``,
    ``wikipassageqa/raw/`` or at ``$AXIOMATIC_WIKIPASSAGEQA_PASSAGES``)."""
    from axiomatic.data.readers.wikipassageqa import (
        candidates_for,
        passages_to_documents,
        read_wikipassageqa_questions,
    )

    path = wikipassageqa_passages_path(root)
    if path is None:
        from axiomatic.data.errors import DatasetUnavailableError

        raise DatasetUnavailableError(
            "WikiPassageQA passage texts (document_passages.json) are not there: download "
            "WikiPassageQA.zip from ciir.cs.umass.edu/downloads/wikipassageqa/ and put "
            f"document_passages.json into {root / 'wikipassageqa'} or set ${WIKIPASSAGEQA_ENV}"
        )
    questions = read_wikipassageqa_questions(root / "wikipassageqa" / "raw" / f"{split}.tsv")
    passages = _wpqa_passages(path)
    docs = passages_to_documents(passages)
    cands = candidates_for(questions, passages)
    return Dataset(
        name=f"wikipassageqa/{split}",
        queries=questions.queries,
        documents=docs,
        qrels=questions.qrels,
        candidates=cands,
        split=split,
        language="en",
        rel_threshold=1,
        description=f"WikiPassageQA {split}: all passages of the question's Wikipedia page",
        metadata={"source": "wikipassageqa", "passages_file": str(path)},
    )


@_cached
def _wpqa_passages(path: Path) -> dict[str, dict[str, str]]:
    from axiomatic.data.readers.wikipassageqa import read_document_passages

    return read_document_passages(path)


@_cached
def _xquad(root: Path, lang: str) -> Any:
    from axiomatic.data.readers.xquad import read_xquad

    return read_xquad(root / "xquad-clir" / "raw" / f"xquad.{lang}.json")


XQUAD_NEGATIVES = 40
XQUAD_SEED = 0


def load_xquad_clir(root: Path, qlang: str, dlang: str, split: str) -> Dataset:
    """XQuAD graded CLIR (Sasaki et al. 2018 construction): questions in ``qlang``, paragraphs
    in ``dlang``; grade 2 = source paragraph, 1 = same-article paragraphs, 0 = 40 sampled
    paragraphs of other articles (seed 0). Split by article (English titles sorted; see
    :func:`axiomatic.data.readers.xquad.xquad_article_splits`). rel_threshold=2."""
    from axiomatic.data.readers.xquad import graded_candidates, xquad_article_splits

    ref = _xquad(root, "en")
    q = _xquad(root, qlang)
    d = _xquad(root, dlang)
    splits = xquad_article_splits(ref.titles)
    qids = [x for x in ref.questions if splits[ref.article_of[ref.paragraph_of[x]]] == split]
    candidates, qrels = graded_candidates(ref, qids, XQUAD_NEGATIVES, XQUAD_SEED)
    return Dataset(
        name=f"xquad-clir/{qlang}-{dlang}/{split}",
        queries={x: Query(x, q.questions[x]) for x in qids},
        documents={k: Document(k, v) for k, v in d.paragraphs.items()},
        qrels=qrels,
        candidates=candidates,
        split=split,
        language=qlang,
        doc_language=dlang,
        rel_threshold=2,
        description=f"XQuAD graded CLIR {qlang}->{dlang} {split} (2 = source paragraph, "
        "1 = same article, 0 = other articles)",
        metadata={"source": "xquad-clir", "negatives": XQUAD_NEGATIVES, "seed": XQUAD_SEED},
    )


def load_qbqtc(root: Path, split: str, pointwise: bool = False) -> Dataset:
    """QBQTC: listwise 2021-10 release (train/dev/test = test_public) or, with ``pointwise``, the
    final pointwise release (dev/test = test_public). Chinese; grades 0/1/2; rel_threshold=1."""
    from axiomatic.data.readers.qbqtc import read_qbqtc

    fname = "test_public.json" if split == "test" else f"{split}.json"
    if pointwise:
        path = root / "qbqtc-zh" / "raw" / "dataset" / fname
        name, source = f"qbqtc-pointwise/{split}", "qbqtc-zh"
    else:
        path = root / "qbqtc-zh-listwise-2021-10" / "raw" / fname
        name, source = f"qbqtc/{split}", "qbqtc-zh-listwise-2021-10"
    s = read_qbqtc(path)
    return _pairwise_dataset(
        name,
        s,
        split,
        "zh",
        None,
        1,
        f"QBQTC query-title ranking ({'pointwise' if pointwise else 'listwise 2021-10'}) {split}",
        source,
    )


def load_sasaki(root: Path, split: str) -> Dataset:
    from axiomatic.data.readers.sasaki import read_sasaki_clir

    fname = "train_sw_l100.txt" if split == "train" else "test1_sw_l100.txt"
    s = read_sasaki_clir(root / "wikiclir-sasaki2018-sw-sample" / "raw" / fname)
    return _pairwise_dataset(
        f"sasaki-sw/{split}",
        s,
        split,
        "en",
        "sw",
        2,
        f"Sasaki et al. 2018 CLIR sample en->sw {split} (2 = same article)",
        "wikiclir-sasaki2018-sw-sample",
    )


def _more_specs() -> list[dict[str, Any]]:
    from axiomatic.data.readers.xquad import XQUAD_LANGUAGES

    specs: list[dict[str, Any]] = []

    add = _spec_adder(specs)

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
    for split in ("train", "dev", "test"):
        req = ("raw/dev.docs", "raw/test.docs") if split == "train" else (f"raw/{split}.docs",)
        add(
            f"nfcorpus/{split}",
            f"NFCorpus original {split}, graded 3-2-1, full retrieval",
            NFCORPUS_DIR,
            partial(load_nfcorpus, split=split),
            (*req, f"raw/{split}.titles.queries", f"raw/{split}.3-2-1.qrel"),
        )
    add(
        "noveleval",
        "NovelEval-2306: 21 queries x 20 passages, graded 0/1/2",
        "noveleval-2306",
        load_noveleval,
        ("raw/corpus.tsv", "raw/queries.tsv", "raw/qrels.txt", "raw/data.json"),
    )
    add(
        "trec-rag24",
        "TREC RAG 2024: 301 topics x top-20 segments, qrels for 86",
        "trec-rag24-retrieval-top20",
        load_rag24,
        ("raw/study1_retrieval.jsonl.gz", "raw/2024-retrieval-qrels.txt"),
    )
    for split in ("train", "dev", "test"):
        add(
            f"wikiqa/{split}",
            f"WikiQA (Castor) {split}: answer-sentence ranking, binary",
            "wikiqa-castor",
            partial(load_wikiqa, split=split),
            (f"raw/{split}/a.toks",),
        )
    for split in ("train", "dev", "test"):
        add(
            f"wikipassageqa/{split}",
            f"WikiPassageQA {split} (needs the user-supplied document_passages.json)",
            "wikipassageqa",
            partial(load_wikipassageqa, split=split),
            (
                f"raw/{split}.tsv",
                f"document_passages.json|raw/document_passages.json|${WIKIPASSAGEQA_ENV}",
            ),
            note="Download WikiPassageQA.zip (ciir.cs.umass.edu/downloads/wikipassageqa/) and put "
            f"document_passages.json into the wikipassageqa folder or set ${WIKIPASSAGEQA_ENV}.",
        )
    for split in ("train", "dev", "test"):
        add(
            f"qbqtc/{split}",
            f"QBQTC listwise 2021-10 (Chinese query-title) {split}, 0/1/2",
            "qbqtc-zh-listwise-2021-10",
            partial(load_qbqtc, split=split),
            (f"raw/{'test_public' if split == 'test' else split}.json",),
        )
    for split in ("dev", "test"):
        add(
            f"qbqtc-pointwise/{split}",
            f"QBQTC final pointwise release {split}, 0/1/2",
            "qbqtc-zh",
            partial(load_qbqtc, split=split, pointwise=True),
            (f"raw/dataset/{'test_public' if split == 'test' else split}.json",),
        )
    for split in ("train", "test"):
        add(
            f"sasaki-sw/{split}",
            f"Sasaki et al. 2018 CLIR sample en->sw {split}",
            "wikiclir-sasaki2018-sw-sample",
            partial(load_sasaki, split=split),
            (f"raw/{'train_sw_l100' if split == 'train' else 'test1_sw_l100'}.txt",),
        )
    for ql in XQUAD_LANGUAGES:
        for dl in XQUAD_LANGUAGES:
            for split in ("train", "dev", "test"):
                add(
                    f"xquad-clir/{ql}-{dl}/{split}",
                    f"XQuAD graded CLIR {ql}->{dl} {split} (2/1/0, split by article)",
                    "xquad-clir",
                    partial(load_xquad_clir, qlang=ql, dlang=dl, split=split),
                    ("raw/xquad.en.json", f"raw/xquad.{ql}.json", f"raw/xquad.{dl}.json"),
                )
    return specs

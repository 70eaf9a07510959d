"""TREC Deep Learning passage tracks in the rank_llm layout: the years are data, not code.

A year ``YYYY`` (file tag ``dlYY``) loads when its files follow the layout of the shared
``msmarco-passage-trecdl`` folders::

    msmarco-passage-trecdl[-extra-runs]/raw/rank_llm/<METHOD>/retrieve_results_dlYY.json
    msmarco-passage-trecdl/raw/anserini-tools/qrels/qrels.dlYY-passage.txt
    msmarco-passage-trecdl/raw/anserini-tools/topics/topics.dlYY-passage.txt   (or topics.dlYY.txt)

Every ``<METHOD>`` folder holding a year's file becomes ``trec-dl-YYYY/<system>`` (the short
system names of :data:`SYSTEM_NAMES`; an unknown method is lower-cased with ``_`` -> ``-``), plus
``trec-dl-YYYY/union``. So dropping TREC DL 2020 (``..._dl20.json``, ``qrels.dl20-passage.txt``,
``topics.dl20.txt``) into the folders adds ``trec-dl-2020/*`` without a code change. The years
and systems of :data:`KNOWN_RUNS` are listed even when the data root lacks them (so that
``axiomatic datasets`` says what is missing).
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import cached, numeric_key, restrict_qrels, spec_adder
from axiomatic.data.records import Dataset, Document, Qrels, Query
from axiomatic.data.trec import read_qrels, read_topics

TRECDL_DIR = "msmarco-passage-trecdl"
TRECDL_EXTRA_DIR = "msmarco-passage-trecdl-extra-runs"
RUN_FOLDERS = (TRECDL_DIR, TRECDL_EXTRA_DIR)
"""Collection folders searched for ``raw/rank_llm/<METHOD>/retrieve_results_dlYY.json``."""

SYSTEM_NAMES = {
    "BM25": "bm25",
    "SPLADE_P_P_ENSEMBLE_DISTIL": "splade-pp",
    "D_BERT_KD_TASB": "tasb",
    "OPEN_AI_ADA2": "ada2",
    "REP_LLAMA": "repllama",
    "BM25_RM3": "bm25-rm3",
}
"""rank_llm method folder -> catalog system name."""

KNOWN_RUNS: dict[int, dict[str, tuple[str, str]]] = {
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
"""The runs of the shared data (listed even when absent); others are discovered on disk."""

TRECDL_RUNS = KNOWN_RUNS  # the name older code imported

_RUN_FILE_RE = re.compile(r"^retrieve_results_dl(\d\d)\.json$")
_ANSERINI = f"{TRECDL_DIR}/raw/anserini-tools"


def system_name(method: str) -> str:
    """The catalog name of a rank_llm method folder (``BM25_RM3`` -> ``bm25-rm3``)."""
    return SYSTEM_NAMES.get(method, method.lower().replace("_", "-"))


def year_tag(year: int) -> str:
    """``2019`` -> ``dl19`` (the file tag of the rank_llm and anserini file names)."""
    return f"dl{year % 100:02d}"


def qrels_rel(year: int) -> str:
    """The qrels path of ``year`` relative to the data root."""
    return f"{_ANSERINI}/qrels/qrels.{year_tag(year)}-passage.txt"


def topics_rels(year: int) -> tuple[str, ...]:
    """Candidate topics paths of ``year`` relative to the data root (first existing wins)."""
    tag = year_tag(year)
    return (f"{_ANSERINI}/topics/topics.{tag}-passage.txt", f"{_ANSERINI}/topics/topics.{tag}.txt")


def run_rel(folder: str, method: str, year: int) -> str:
    return f"{folder}/raw/rank_llm/{method}/retrieve_results_{year_tag(year)}.json"


def discover_runs(root: Path) -> dict[int, dict[str, tuple[str, str]]]:
    """``{year: {system: (folder, method)}}`` for every rank_llm file under ``root`` whose year
    has a qrels file; the known runs first, in their order, then new ones sorted."""
    found: dict[int, dict[str, tuple[str, str]]] = {}
    for folder in RUN_FOLDERS:
        base = root / folder / "raw" / "rank_llm"
        if not base.is_dir():
            continue
        for method_dir in sorted(p for p in base.iterdir() if p.is_dir()):
            for f in sorted(method_dir.iterdir()):
                m = _RUN_FILE_RE.match(f.name)
                if not m:
                    continue
                yy = int(m.group(1))
                year = 2000 + yy
                if not (root / qrels_rel(year)).is_file():
                    continue
                found.setdefault(year, {}).setdefault(
                    system_name(method_dir.name), (folder, method_dir.name)
                )
    out: dict[int, dict[str, tuple[str, str]]] = {}
    for year in sorted(set(KNOWN_RUNS) | set(found)):
        systems = dict(KNOWN_RUNS.get(year, {}))
        for s, v in found.get(year, {}).items():
            systems.setdefault(s, v)
        out[year] = systems
    return out


@cached
def _runs_of(root: Path) -> dict[int, dict[str, tuple[str, str]]]:
    return discover_runs(root)


@cached
def _trecdl_run(root: Path, year: int, system: str) -> Any:
    from axiomatic.data.readers.rankllm import read_rankllm_results

    folder, method = _runs_of(root)[year][system]
    return read_rankllm_results(root / run_rel(folder, method, year))


@cached
def _trecdl_topics_qrels(root: Path, year: int) -> tuple[dict[str, Query], Qrels]:
    topics: dict[str, Query] = {}
    for rel in topics_rels(year):
        if (root / rel).is_file():
            topics = read_topics(root / rel)
            break
    return topics, read_qrels(root / qrels_rel(year))


def load_trecdl(root: Path, year: int, system: str) -> Dataset:
    """TREC DL passage queries x one system's top-100 (RepLLaMA: top-200) with text.
    Qrels are the full NIST qrels (grade >= 2 relevant: ``rel_threshold=2``); evaluation only.
    Query texts come from the topics file, else from the run file."""
    topics, qrels = _trecdl_topics_qrels(root, year)
    runs_of_year = _runs_of(root).get(year, {})
    systems = list(runs_of_year) if system == "union" else [system]
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
    qids = sorted(best, key=numeric_key)
    queries = {}
    for q in qids:
        queries[q] = topics.get(q) or next(
            _trecdl_run(root, year, s).queries[q]
            for s in systems
            if q in _trecdl_run(root, year, s).queries
        )
    candidates = {q: sorted(best[q], key=best[q].__getitem__) for q in qids}
    return Dataset(
        name=f"trec-dl-{year}/{system}",
        queries=queries,
        documents=documents,
        qrels=restrict_qrels(qrels, qids),
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
            "corpus": "msmarco-v1" if year <= 2020 else "msmarco-v2",
        },
    )


def catalog_specs(root: Path | None = None) -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts: the known runs, plus every year and system found under
    ``root`` (see the module docstring for the layout)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    runs = discover_runs(root) if root is not None and root.is_dir() else KNOWN_RUNS
    for year, systems in runs.items():
        for system in [*systems, "union"]:
            chosen = list(systems) if system == "union" else [system]
            folders = {systems[s][0] for s in chosen}
            # requirements are relative to the entry's folder; '..' reaches the data root
            req = [f"../{qrels_rel(year)}"]
            req += [f"../{run_rel(*systems[s], year)}" for s in chosen]
            folder = TRECDL_EXTRA_DIR if folders == {TRECDL_EXTRA_DIR} else TRECDL_DIR
            add(
                f"trec-dl-{year}/{system}",
                f"TREC DL {year} passage: {system} candidates with text, NIST graded qrels",
                folder,
                partial(load_trecdl, year=year, system=system),
                tuple(req),
            )
    return specs

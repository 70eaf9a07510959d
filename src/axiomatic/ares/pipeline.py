"""ARES stages 1-3 on a collection: index, pseudo queries, axiom scores, predictor features.

Each stage is cached under ``cache_dir/<collection>/<key>/`` (Parquet for pseudo queries and
per-query axiom scores, the index as :meth:`CollectionIndex.save` writes it); the key covers
the corpus (document ids and texts), the analyzer and every sampling parameter, so a changed
input recomputes and an unchanged one resumes from what is on disk.

Collections (``positives`` = real training queries with one relevant document each; test splits
and TREC DL qrels are never used here):

* ``msmarco-20k``: 20,000 MS MARCO passages in which no training query meets its own BM25
  candidate list: the judged-relevant passages of ``msmarco-dev-top20/train`` (the positives),
  the candidate passages of ``msmarco-dev-top20/test``, of TREC DL 2019 (union of the six runs)
  and then of TREC DL 2021 (union), each part sorted by id, up to ``max_docs``. Section 4.2
  computes RANK in the full 8.8M-passage corpus, where a real query and a pseudo query both
  meet their strongest competitors. Version 1 of this corpus kept the BM25 top-20 lists of the
  training queries themselves, so only the *real* queries met theirs: a real query ranked its
  passage first in 23.6 % of cases, a pseudo query in 63.3 %, and the predictor learned RANK
  backwards. Without those lists neither side is favoured (:func:`rank_first_shares` measures
  it; ``docs/ares.md`` reports it). Positives: ``msmarco-dev-top20/train`` qrels;
* ``scifact``: the 5,183 SciFact abstracts; positives: ``scifact/train`` qrels;
* ``demo``: the packaged demo collection (tests, ``--quick``); positives: its train qrels.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic._suggest import suggest
from axiomatic.ares.sampling import SAMPLING_VERSION, PseudoQueries, sample_pseudo_queries
from axiomatic.axioms.query_pairs import (
    QueryPairContext,
    parse_query_pair_axioms,
    preference_features,
)
from axiomatic.axioms.spec import Axiom
from axiomatic.data.records import Document
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

COLLECTIONS = ("msmarco-20k", "scifact", "demo")
CORPUS_VERSION = 2
"""Version 2: msmarco-20k without the training queries' candidate lists (see above)."""
SCORES_VERSION = 3
"""Version 2: distinct unknown words of a real query count as distinct terms (Q-REG never picks
one). Version 3: Q-REG of a two-term query is the smaller term id's, as documented (float32
rounding decided it before). Part of the cache key."""


@dataclass
class AresCollection:
    name: str
    documents: Mapping[str, Document]
    positives: list[tuple[str, str, str]]  # (query_id, query text, doc_id)

    def fingerprint(self) -> str:
        h = hashlib.sha1()
        for d in sorted(self.documents):
            h.update(d.encode() + b"\0" + self.documents[d].text.encode() + b"\1")
        for q, text, d in self.positives:
            h.update(f"{q}\0{text}\0{d}\1".encode())
        return h.hexdigest()[:16]


def _positives(ds: Any, docs: Mapping[str, Document]) -> list[tuple[str, str, str]]:
    out = []
    for qid in sorted(ds.qrels or {}):
        if qid not in ds.queries:
            continue
        for did, grade in sorted(ds.qrels[qid].items()):
            if grade >= ds.rel_threshold and did in docs:
                out.append((qid, ds.queries[qid].text, did))
    return out


def load_collection(
    name: str, data_root: str | Path | None = None, max_docs: int = 20000
) -> AresCollection:
    """One of :data:`COLLECTIONS` (see the module docstring)."""
    from axiomatic.data.catalog import load_dataset

    if name == "demo":
        ds = load_dataset("demo/train", data_root=data_root)
        docs = dict(ds.documents)
        return AresCollection(name, docs, _positives(ds, docs))
    if name == "scifact":
        ds = load_dataset("scifact/train", data_root=data_root)
        docs = dict(ds.documents)
        return AresCollection(name, docs, _positives(ds, docs))
    if name == "msmarco-20k":
        ds = load_dataset("msmarco-dev-top20/train", data_root=data_root)
        everything = load_dataset("msmarco-dev-top20", data_root=data_root).documents
        positives = sorted({d for _q, _t, d in _positives(ds, everything)})
        docs = {d: everything[d] for d in positives[:max_docs]}
        test = load_dataset("msmarco-dev-top20/test", data_root=data_root)
        # the splits share one document table: the test part is its queries' candidates only
        test_ids = {d for q in test.queries for d in test.candidate_ids(q)}
        parts: list[Mapping[str, Document]] = [{d: everything[d] for d in test_ids}]
        parts += [
            load_dataset(f"trec-dl-{year}/union", data_root=data_root).documents
            for year in (2019, 2021)
        ]
        for part in parts:
            for did in sorted(part):
                if len(docs) >= max_docs:
                    break
                docs.setdefault(did, part[did])
        return AresCollection(name, docs, _positives(ds, docs))
    raise ValueError(
        f"unknown ARES collection {name!r}{suggest(name, COLLECTIONS, n=1, cutoff=0.6)}; "
        f"expected one of {', '.join(COLLECTIONS)}"
    )


@dataclass
class Prepared:
    """Stages 1-2 of one collection: pseudo queries (first) and real queries (after) in one
    :class:`QueryPairContext`, with their per-query axiom scores."""

    collection: AresCollection
    index: CollectionIndex
    pseudo: PseudoQueries
    ctx: QueryPairContext
    n_pseudo: int
    real_doc: np.ndarray
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def real_ids(self) -> np.ndarray:
        """Context indices of the real (positive) queries."""
        return self.n_pseudo + np.arange(len(self.real_doc))


def _real_queries(
    index: CollectionIndex, positives: Sequence[tuple[str, str, str]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    docs: list[int] = []
    offsets: list[int] = [0]
    ids: list[int] = []
    for _qid, text, did in positives:
        # a query is a term set: each word once, here, where unknown words still differ (the
        # context keeps every -1 as its own term)
        terms = list(dict.fromkeys(index.analyzer.analyze(text)))
        ids.extend(index.vocab.get(t, -1) for t in terms)
        offsets.append(len(ids))
        docs.append(index.doc_index[did])
    return (
        np.asarray(docs, dtype=np.int64),
        np.asarray(offsets, dtype=np.int64),
        np.asarray(ids, dtype=np.int64),
    )


def cache_key(
    collection: AresCollection,
    analyzer: Analyzer,
    seed: int,
    n_queries: int,
    minilm_vectors: bool,
    scores_version: int,
) -> str:
    """The folder name of :func:`prepare`'s cache under ``cache_dir / collection.name``: every
    input of its stages (documents, analyzer, sampling, score versions, whose term vectors)."""
    fields = [collection.fingerprint(), analyzer.config_hash, seed, n_queries, SAMPLING_VERSION,
              scores_version, minilm_vectors]  # fmt: skip
    return hashlib.sha1(json.dumps(fields).encode()).hexdigest()[:12]


def prepare(
    collection: AresCollection,
    cache_dir: str | Path | None = None,
    seed: int = 0,
    n_queries: int = 10,
    axioms: Sequence[Axiom | str] | str = "all",
    term_vectors: np.ndarray | None = None,
    analyzer: Analyzer | None = None,
) -> Prepared:
    """Index, sample and score (cached when ``cache_dir`` is given)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from axiomatic._atomic import atomic_path, atomic_write_text

    analyzer = analyzer or Analyzer()
    axs = parse_query_pair_axioms(axioms)
    key = cache_key(collection, analyzer, seed, n_queries, term_vectors is None, SCORES_VERSION)
    folder = Path(cache_dir) / collection.name / key if cache_dir is not None else None
    timings: dict[str, float] = {}

    t = time.perf_counter()
    if folder is not None and (folder / "index" / "meta.json").exists():
        index = CollectionIndex.load(folder / "index")
    else:
        index = CollectionIndex.build(collection.documents.values(), analyzer)
        if folder is not None:
            index.save(folder / "index")
    timings["index_s"] = time.perf_counter() - t

    t = time.perf_counter()
    pq_file = folder / "pseudo_queries.parquet" if folder is not None else None
    if pq_file is not None and pq_file.exists():
        pseudo = PseudoQueries.read_parquet(pq_file)
    else:
        pseudo = sample_pseudo_queries(index, n_queries=n_queries, seed=seed)
        if pq_file is not None:
            pseudo.write_parquet(pq_file)
    timings["sampling_s"] = time.perf_counter() - t

    rd, ro, rt = _real_queries(index, collection.positives)
    doc = np.concatenate((pseudo.doc, rd))
    offsets = np.concatenate((pseudo.offsets, pseudo.offsets[-1] + ro[1:]))
    terms = np.concatenate((pseudo.term_ids, rt))
    ctx = QueryPairContext(index, doc, offsets, terms, term_vectors=term_vectors)

    t = time.perf_counter()
    sc_file = folder / "query_scores.parquet" if folder is not None else None
    cache = ctx.__dict__.setdefault("_score_cache", {})
    if sc_file is not None and sc_file.exists():
        table = pq.read_table(sc_file)
        for name in table.column_names:
            cache[name] = table.column(name).to_numpy()
    missing = [a for a in axs if a.spec not in cache]
    for a in missing:
        ctx.scores(a)
    if "Q-STM-1" not in cache and any(a.name == "Q-STM-2" for a in axs):
        ctx.scores("Q-STM-1")
    if sc_file is not None and missing:
        with atomic_path(sc_file) as tmp:
            pq.write_table(pa.table({k: pa.array(v) for k, v in cache.items()}), tmp)
    timings["scores_s"] = time.perf_counter() - t
    if folder is not None:
        atomic_write_text(
            folder / "report.json",
            json.dumps({"sampling": pseudo.report.to_dict(), "n_real": len(rd)}, indent=1),
        )
    return Prepared(collection, index, pseudo, ctx, len(pseudo), rd, timings)


def setting_features(
    prepared: Prepared,
    setting: str,
    axioms: Sequence[Axiom | str] | str = "all",
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Eq.-9 features ``X`` and labels ``y`` of the (real, pseudo) pairs under ``setting``."""
    i, j, y = setting_pairs(prepared, setting, seed)
    X = preference_features(prepared.ctx, i, j, axioms)
    return X, y, {"n_positives": len(prepared.real_doc), "n_pairs": len(y)}


def setting_pairs(
    prepared: Prepared, setting: str, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, y)``: the context indices of the (real, pseudo) pairs of ``setting`` in the
    rows of :func:`setting_features` (``y = 1`` when ``i`` is the real query)."""
    from axiomatic.ares.predictor import balanced_pairs, sample_negatives

    rank = prepared.ctx.scores("Q-RANK")[: prepared.n_pseudo]
    kept, neg = sample_negatives(setting, prepared.real_doc, prepared.pseudo.doc, rank, seed)
    pos = prepared.real_ids[kept]
    return balanced_pairs(pos, neg, seed)


def rank_first_shares(prepared: Prepared) -> dict[str, float]:
    """Share of real and of pseudo queries whose own document is ranked first by Q-RANK in the
    collection (BM25 over the whole collection): the symmetry check of the corpus for RANK."""
    rank = prepared.ctx.scores("Q-RANK")
    n = prepared.n_pseudo
    real, pseudo = rank[n:], rank[:n]
    return {
        "real_first": float((real == 1).mean()) if len(real) else float("nan"),
        "pseudo_first": float((pseudo == 1).mean()) if len(pseudo) else float("nan"),
        "n_real": len(real),
        "n_pseudo": n,
    }


def length_control(prepared: Prepared, setting: str, seed: int = 0) -> np.ndarray:
    """``|q_i| - |q_j|`` (analysed terms) for the rows of :func:`setting_features`: the
    length-only control of the predictor. Real queries are not sampled with the pseudo
    queries' Poisson length (SciFact claims are ~3x longer), so ``roc_auc(y, length_control)``
    says how much of the predictor's AUC query length alone would give."""
    i, j, _y = setting_pairs(prepared, setting, seed)
    q_len = prepared.ctx.q_len
    return (q_len[i] - q_len[j]).astype(np.float64)

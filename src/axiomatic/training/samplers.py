"""Training pairs and lists from qrels x candidate lists, with resumable, seeded order.

A sampler owns one or more *pools* of pairs ``(query_id, doc_hi, doc_lo, label_hi, label_lo)``
and walks each pool in a fresh seeded permutation per epoch. Its whole state is
``{pool: (epoch, position)}`` (JSON), so a resumed run draws exactly the batches an uninterrupted
run would have drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from axiomatic.data.records import Dataset, Document


@dataclass(frozen=True)
class Pair:
    query_id: str
    doc_hi: str
    doc_lo: str
    label_hi: float
    label_lo: float
    source: str = "qrels"


def with_bm25_candidates(dataset: Dataset, depth: int = 100, index: Any = None) -> Dataset:
    """``dataset`` with candidates = BM25 top-``depth`` (for full-retrieval datasets such as SciFact).

    Re-ranking datasets (candidates given) are returned unchanged.
    """
    if dataset.candidates is not None:
        return dataset
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.lexical import BM25Ranker

    index = index if index is not None else dataset_index(dataset)
    ranker = BM25Ranker(index)
    cands = {qid: [d for d, _ in ranker.retrieve(q, depth)] for qid, q in dataset.queries.items()}
    out = dataset.subset(list(dataset.queries))
    out.candidates = cands
    return out


def qrels_pairs(dataset: Dataset, depth: int | None = None) -> list[Pair]:
    """All preference pairs of a dataset: (higher grade, lower grade) within a query.

    Documents: judged ones plus the first ``depth`` candidates (unjudged candidates count as
    grade 0, the usual re-ranking convention). A pair needs ``label_hi >= rel_threshold``, so
    two non-relevant grades are never paired.
    """
    pairs: list[Pair] = []
    thr = dataset.rel_threshold
    for qid in dataset.queries:
        judged = dataset.judged(qid)
        cands = dataset.candidate_ids(qid) if dataset.candidates is not None else []
        if depth is not None:
            cands = cands[:depth]
        grades: dict[str, int] = {d: 0 for d in cands}
        grades.update({d: g for d, g in judged.items() if d in dataset.documents})
        ids = sorted(grades)
        for hi in ids:
            g_hi = grades[hi]
            if g_hi < thr:
                continue
            for lo in ids:
                if grades[lo] < g_hi:
                    pairs.append(Pair(qid, hi, lo, float(g_hi), float(grades[lo])))
    return pairs


class PairSampler:
    """Batches drawn from weighted pools of pairs, each pool walked epoch by epoch.

    ``pools`` maps a pool name to its pairs and ``weights`` to its share of each batch (e.g.
    ``{"qrels": 1, "axiom": 1}`` for Rennings' 1:1 paired augmentation).
    """

    def __init__(
        self,
        pools: Mapping[str, Sequence[Pair]],
        batch_size: int,
        seed: int = 0,
        weights: Mapping[str, float] | None = None,
    ) -> None:
        self.pools = {k: list(v) for k, v in pools.items() if len(v)}
        if not self.pools:
            raise ValueError(
                "no training pairs: every query needs a relevant document and a lower-graded "
                "candidate; check the qrels and candidate lists of the training dataset"
            )
        self.batch_size = batch_size
        self.seed = seed
        w = {k: float((weights or {}).get(k, 1.0)) for k in self.pools}
        total = sum(w.values())
        names = list(self.pools)
        counts = [round(batch_size * w[k] / total) for k in names]
        counts[0] += batch_size - sum(counts)
        self.counts = dict(zip(names, counts, strict=True))
        self.state: dict[str, list[int]] = {k: [0, 0] for k in self.pools}
        self._perm: dict[str, tuple[int, np.ndarray]] = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self.pools.values())

    def _permutation(self, name: str, epoch: int) -> np.ndarray:
        cached = self._perm.get(name)
        if cached is None or cached[0] != epoch:
            key = sum(ord(c) for c in name)
            rng = np.random.default_rng([self.seed, key, epoch])
            cached = (epoch, rng.permutation(len(self.pools[name])))
            self._perm[name] = cached
        return cached[1]

    def next_batch(self) -> list[Pair]:
        batch: list[Pair] = []
        for name, n in self.counts.items():
            pool = self.pools[name]
            for _ in range(n):
                epoch, pos = self.state[name]
                if pos >= len(pool):
                    epoch, pos = epoch + 1, 0
                batch.append(pool[int(self._permutation(name, epoch)[pos])])
                self.state[name] = [epoch, pos + 1]
        return batch

    @property
    def epochs_done(self) -> float:
        """Epochs of the first (main) pool walked so far (fractional)."""
        name = next(iter(self.pools))
        epoch, pos = self.state[name]
        return epoch + pos / len(self.pools[name])

    def state_dict(self) -> dict[str, Any]:
        return {"state": {k: list(v) for k, v in self.state.items()}}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        saved = state["state"]
        if set(saved) != set(self.pools):
            raise ValueError(
                f"checkpoint sampler pools {sorted(saved)} differ from this run's "
                f"{sorted(self.pools)}; resume with the same configuration"
            )
        self.state = {k: [int(x) for x in v] for k, v in saved.items()}


def negatives_by_query(pairs: Sequence[Pair], rel_threshold: float) -> dict[str, list[str]]:
    """Each query's documents *labelled non-relevant* (grade below ``rel_threshold``): the pool
    the extra negatives of a list are drawn from (listwise softmax, ACRank's InfoNCE: "other
    documents labelled non-relevant", Bo et al. 2023, sec. 3.2.4).

    Taken from the labels, not from the pairs' order: on graded data the lower side of a pair
    can be relevant (grade 1 below grade 2), and such a document is never an extra negative. A
    document with any label at or above ``rel_threshold`` in any pair of the query is left out.
    """
    thr = float(rel_threshold)
    out: dict[str, dict[str, None]] = {}
    relevant: dict[str, set[str]] = {}
    for p in pairs:
        rel = relevant.setdefault(p.query_id, set())
        for doc, label in ((p.doc_hi, p.label_hi), (p.doc_lo, p.label_lo)):
            if float(label) >= thr:
                rel.add(doc)
            else:
                out.setdefault(p.query_id, {})[doc] = None
    return {q: sorted(d for d in v if d not in relevant[q]) for q, v in out.items()}


def make_list(
    pair: Pair, negatives: Sequence[str], size: int, rng: np.random.Generator
) -> tuple[list[str], list[float]]:
    """A list ``[doc_hi, doc_lo, size-2 more negatives]`` with labels (listwise training)."""
    others = [d for d in negatives if d != pair.doc_lo and d != pair.doc_hi]
    k = min(size - 2, len(others))
    extra = [others[int(i)] for i in rng.choice(len(others), size=k, replace=False)] if k else []
    docs = [pair.doc_hi, pair.doc_lo, *extra]
    labels = [pair.label_hi, pair.label_lo, *([0.0] * len(extra))]
    return docs, labels


def split_dev(dataset: Dataset, n_dev: int, seed: int = 0) -> tuple[Dataset, Dataset | None]:
    """Hold out ``n_dev`` training queries (seeded) for model selection, as Rosset et al. (2019)
    sub-sample 512 queries. At most a fifth of the queries is held out; queries without a
    relevant document are never used for dev. Returns ``(train, dev)`` (dev is None if empty).
    """
    qids = sorted(dataset.queries)
    thr = dataset.rel_threshold
    usable = [q for q in qids if any(g >= thr for g in dataset.judged(q).values())]
    n = min(int(n_dev), len(usable) // 5)
    if n <= 0:
        return dataset, None
    rng = np.random.default_rng([seed, 7919])
    dev = sorted(usable[i] for i in rng.choice(len(usable), size=n, replace=False))
    dev_set = set(dev)
    train = [q for q in qids if q not in dev_set]
    return dataset.subset(train, split="train"), dataset.subset(dev, split="dev")


def lookup_texts(
    documents: Mapping[str, Document], extra: Mapping[str, Document] | None = None
) -> Any:
    """A doc_id -> text function over the dataset's documents and artificial ones."""

    def get(doc_id: str) -> str:
        if extra is not None and doc_id in extra:
            return extra[doc_id].text
        return documents[doc_id].text

    return get

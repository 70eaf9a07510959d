"""The extra negatives of ACRank's InfoNCE (and of the listwise softmax) come from the
labels - documents labelled non-relevant - never from "every document that was once the lower
side of a pair" (on graded data that pool holds relevant documents: grade 1 below grade 2)."""

from __future__ import annotations

import pytest
from training_helpers import TinyRanker

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.training.config import TrainConfig
from axiomatic.training.samplers import Pair, negatives_by_query, qrels_pairs
from axiomatic.training.trainer import Trainer

# one query, graded: MR = grade 2, two SR = grade 1, four unjudged candidates (grade 0)
GRADES = {"mr": 2, "sr1": 1, "sr2": 1}
NR = {"n1", "n2", "n3", "n4"}
RELEVANT = set(GRADES)


def _graded() -> Dataset:
    docs = {d: Document(d, f"kernel {d} text") for d in [*GRADES, *sorted(NR)]}
    return Dataset(
        "graded-mini",
        {"q": Query("q", "kernel")},
        docs,
        {"q": dict(GRADES)},
        {"q": list(docs)},
        split="train",
    )


class _Recorder(TinyRanker):
    """TinyRanker that remembers the documents of every forward pass."""

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.seen: list[list[str]] = []

    def encode_batch(self, queries, documents):  # type: ignore[override]
        self.seen.append([d.split()[1] for d in documents])
        return super().encode_batch(queries, documents)


def test_negatives_by_query_keeps_only_documents_labelled_non_relevant() -> None:
    pairs = qrels_pairs(_graded())
    assert {p.doc_lo for p in pairs} & RELEVANT  # graded data: relevant lower sides exist
    pool = negatives_by_query(pairs, rel_threshold=1)
    assert set(pool["q"]) == NR
    # a stricter relevance threshold: grade 1 is then non-relevant and may be a negative
    assert set(negatives_by_query(pairs, rel_threshold=2)["q"]) == NR | {"sr1", "sr2"}
    # a document ever labelled relevant in the query never enters the pool
    mixed = [Pair("q", "a", "b", 1.0, 0.0), Pair("q", "b", "c", 1.0, 0.0)]
    assert negatives_by_query(mixed, rel_threshold=1)["q"] == ["c"]


def test_infonce_extra_negatives_are_never_relevant(tmp_path) -> None:
    """Several negatives per list (negatives=4: the pair's lower side + 3 sampled): over many
    steps every sampled extra negative is a grade-0 document."""
    model = _Recorder()
    cfg = TrainConfig(
        dataset="graded-mini",
        augmentation="acrank(rule=none, p=0.5, negatives=4)",
        batch_size=1,
        steps=1,
        dev_queries=0,
    )
    tr = Trainer(model, cfg, tmp_path, _graded())
    tr._setup()
    assert set(tr.strategy.negatives["q"]) == NR
    extras_seen: set[str] = set()
    for step in range(1, 61):
        batch = tr.sampler.next_batch()
        model.seen.clear()
        tr._step_loss(batch, step)
        (docs,) = model.seen  # [d+, the pair's d- if non-relevant, extra negatives] (none)
        (p,) = batch
        own = [p.doc_lo] if p.doc_lo in NR else []  # a relevant lower side is no negative
        assert docs[: 1 + len(own)] == [p.doc_hi, *own]
        extras = docs[1 + len(own) :]
        assert len(extras) == 4 - len(own) or len(extras) == len(NR - {p.doc_lo})
        assert not set(extras) & RELEVANT, (p, extras)
        assert p.doc_hi not in extras and p.doc_lo not in extras
        extras_seen |= set(extras)
    assert extras_seen == NR  # the whole non-relevant pool is used


def test_listwise_softmax_extra_negatives_are_never_relevant(tmp_path) -> None:
    model = _Recorder()
    cfg = TrainConfig(
        dataset="graded-mini", loss="softmax", list_size=5, batch_size=1, steps=1, dev_queries=0
    )
    tr = Trainer(model, cfg, tmp_path, _graded())
    tr._setup()
    assert set(tr.strategy.negatives["q"]) == NR
    for step in range(1, 31):
        batch = tr.sampler.next_batch()
        model.seen.clear()
        tr._step_loss(batch, step)
        docs = model.seen[0]
        assert not set(docs[2:]) & RELEVANT


@pytest.mark.parametrize("threshold", [1, 2])
def test_pool_follows_the_dataset_relevance_threshold(tmp_path, threshold) -> None:
    ds = _graded()
    ds.rel_threshold = threshold
    cfg = TrainConfig(
        dataset="graded-mini",
        augmentation="acrank(rule=none, p=0.5, negatives=3)",
        batch_size=1,
        steps=1,
        dev_queries=0,
    )
    tr = Trainer(TinyRanker(), cfg, tmp_path, ds)
    tr._setup()
    below = {d for d, g in {**GRADES, **dict.fromkeys(NR, 0)}.items() if g < threshold}
    assert set(tr.strategy.negatives["q"]) == below

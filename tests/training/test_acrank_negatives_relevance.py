"""ACRank's InfoNCE negatives are documents labelled non-relevant (Bo et al. 2023, sec. 3.2.4):
the pair's lower document is one only when its label is below the dataset's relevance
threshold (on graded data, QBQTC's grade 1 below grade 2 is relevant and no negative)."""

from __future__ import annotations

import numpy as np
import torch
from training_helpers import TinyRanker

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.training.config import ACRankAugmentSpec, TrainConfig
from axiomatic.training.contrastive import ACRankLossStrategy
from axiomatic.training.samplers import Pair
from axiomatic.training.trainer import Trainer

NR = ["n1", "n2", "n3", "n4"]


def _strategy(negatives: int, threshold: float = 1.0) -> ACRankLossStrategy:
    s = ACRankLossStrategy(ACRankAugmentSpec(rule="none", negatives=negatives))
    s.rel_threshold = threshold
    s.negatives = {"q": list(NR)}
    return s


def test_a_relevant_lower_document_is_never_a_negative() -> None:
    s = _strategy(negatives=3)
    p = Pair("q", "mr", "sr", 2.0, 1.0)  # grade 2 over grade 1: both relevant
    seen: set[str] = set()
    for seed in range(40):
        got = s._negatives(p, np.random.default_rng(seed))
        assert "sr" not in got and "mr" not in got
        assert len(got) == 3 and len(set(got)) == 3 and set(got) <= set(NR)
        seen |= set(got)
    assert seen == set(NR)  # all three drawn from the non-relevant pool, all of it reachable


def test_a_non_relevant_lower_document_comes_first() -> None:
    s = _strategy(negatives=3)
    p = Pair("q", "mr", "n2", 2.0, 0.0)
    for seed in range(10):
        got = s._negatives(p, np.random.default_rng(seed))
        assert got[0] == "n2" and len(got) == 3 and got.count("n2") == 1
        assert set(got[1:]) <= set(NR) - {"n2"}


def test_the_relevance_threshold_decides() -> None:
    p = Pair("q", "mr", "sr", 2.0, 1.0)
    assert _strategy(negatives=1, threshold=2.0)._negatives(p, np.random.default_rng(0)) == ["sr"]
    got = _strategy(negatives=1, threshold=1.0)._negatives(p, np.random.default_rng(0))
    assert len(got) == 1 and got[0] in NR
    # no non-relevant document in the query: no negative at all (the row is the positive alone)
    empty = _strategy(negatives=3)
    empty.negatives = {}
    assert empty._negatives(p, np.random.default_rng(0)) == []


def test_negatives_are_deterministic_given_the_generator_seed() -> None:
    s = _strategy(negatives=3)
    p = Pair("q", "mr", "sr", 2.0, 1.0)
    runs = [s._negatives(p, np.random.default_rng([7, 3, 23])) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


def _graded() -> Dataset:
    grades = {"mr": 2, "sr": 1}
    docs = {d: Document(d, f"kernel {d} text") for d in [*grades, *NR]}
    return Dataset(
        "graded-mini",
        {"q": Query("q", "kernel")},
        docs,
        {"q": grades},
        {"q": list(docs)},
        split="train",
        rel_threshold=1,
    )


class _Recorder(TinyRanker):
    def __init__(self) -> None:
        super().__init__(seed=0)
        self.seen: list[list[str]] = []

    def encode_batch(self, queries, documents):  # type: ignore[override]
        self.seen.append([d.split()[1] for d in documents])
        return super().encode_batch(queries, documents)


def test_the_step_scores_no_relevant_document_as_a_negative(tmp_path) -> None:
    model = _Recorder()
    cfg = TrainConfig(
        dataset="graded-mini",
        augmentation="acrank(rule=none, negatives=2)",
        batch_size=1,
        steps=1,
        dev_queries=0,
    )
    tr = Trainer(model, cfg, tmp_path, _graded())
    tr._setup()
    assert tr.strategy.rel_threshold == 1.0
    relevant_lower = 0
    for step in range(1, 40):
        (p,) = batch = tr.sampler.next_batch()
        model.seen.clear()
        loss, _ = tr._step_loss(batch, step)
        (docs,) = model.seen  # [positive, negatives...] (rule none)
        assert docs[0] == p.doc_hi and len(docs) == 3
        assert not {"mr", "sr"} & set(docs[1:]), (p, docs)
        assert torch.isfinite(loss)
        relevant_lower += p.doc_lo == "sr"
    assert relevant_lower > 0  # the graded pair mr > sr was trained on


def test_the_hinge_variant_keeps_the_graded_pair(tmp_path) -> None:
    """A hinge asks only for the order of the grades: mr above sr is right, sr stays."""
    model = _Recorder()
    cfg = TrainConfig(
        dataset="graded-mini",
        augmentation="acrank(rule=none, loss=hinge)",
        batch_size=1,
        steps=1,
        dev_queries=0,
    )
    tr = Trainer(model, cfg, tmp_path, _graded())
    tr._setup()
    pairs_seen = set()
    for step in range(1, 20):
        (p,) = batch = tr.sampler.next_batch()
        model.seen.clear()
        tr._step_loss(batch, step)
        assert model.seen == [[p.doc_hi, p.doc_lo]]
        pairs_seen.add((p.doc_hi, p.doc_lo))
    assert ("mr", "sr") in pairs_seen

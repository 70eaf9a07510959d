"""Mutation testing of ``training/samplers.py``: what the pair sampler, the listwise
lists, the dev split and the BM25 candidate lists promise, checked by value - each test kills
mutants the training tests let survive (``make mutate MUTATE_MODULES=training/samplers.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.training.samplers import (
    Pair,
    PairSampler,
    lookup_texts,
    make_list,
    qrels_pairs,
    split_dev,
    with_bm25_candidates,
)


def _pairs(prefix: str, n: int) -> list[Pair]:
    return [Pair("q", f"{prefix}{i}", f"n{i}", 1.0, 0.0) for i in range(n)]


# ---------------------------------------------------------------------- PairSampler
def test_batch_shares_follow_the_weights() -> None:
    pools = {"qrels": _pairs("a", 10), "axiom": _pairs("b", 10)}
    assert PairSampler(pools, 8, weights={"qrels": 1, "axiom": 3}).counts == {
        "qrels": 2,
        "axiom": 6,
    }
    # an unnamed pool weighs 1; the rounding remainder goes to the first (main) pool
    assert PairSampler(pools, 8, weights={"axiom": 3}).counts == {"qrels": 2, "axiom": 6}
    assert PairSampler(pools, 5).counts == {"qrels": 3, "axiom": 2}
    assert PairSampler(pools, 7, weights={"qrels": 1, "axiom": 2}).counts == {
        "qrels": 2,
        "axiom": 5,
    }
    s = PairSampler(pools, 4)
    assert s.batch_size == 4 and len(s) == 20
    batch = s.next_batch()
    assert [p.doc_hi[0] for p in batch] == ["a", "a", "b", "b"]


def test_each_epoch_is_a_fresh_permutation_of_the_pool() -> None:
    pool = _pairs("a", 12)
    s = PairSampler({"qrels": pool}, 12, seed=3)
    assert s.epochs_done == 0.0 and s.state_dict() == {"state": {"qrels": [0, 0]}}
    epochs = [s.next_batch() for _ in range(3)]
    for e, batch in enumerate(epochs):
        assert sorted(p.doc_hi for p in batch) == sorted(p.doc_hi for p in pool)  # all, once
        order = np.random.default_rng([3, sum(ord(c) for c in "qrels"), e]).permutation(12)
        assert [p.doc_hi for p in batch] == [pool[int(i)].doc_hi for i in order]
    assert epochs[0] != epochs[1] != epochs[2]
    assert s.state_dict() == {"state": {"qrels": [2, 12]}} and s.epochs_done == 3.0
    # the default seed is 0
    a, b = PairSampler({"qrels": pool}, 5), PairSampler({"qrels": pool}, 5, seed=0)
    assert [a.next_batch() for _ in range(4)] == [b.next_batch() for _ in range(4)]


def test_empty_pools_and_foreign_checkpoints_are_explained() -> None:
    with pytest.raises(ValueError, match=r"^no training pairs: every query needs a relevant"):
        PairSampler({"qrels": []}, 4)
    with pytest.raises(ValueError, match=r"candidate lists of the training dataset$"):
        PairSampler({"qrels": []}, 4)
    s = PairSampler({"qrels": _pairs("a", 3), "axiom": _pairs("b", 3)}, 2)
    with pytest.raises(
        ValueError,
        match=r"checkpoint sampler pools \['qrels'\] differ from this run's "
        r"\['axiom', 'qrels'\]; resume with the same configuration",
    ):
        s.load_state_dict({"state": {"qrels": [1, 2]}})


# ---------------------------------------------------------------------- lists
def test_make_list_has_the_pair_then_distinct_sampled_non_relevant_documents() -> None:
    pair = Pair("q", "hi", "lo", 2.0, 1.0)
    negatives = ["hi", "lo", "n1", "n2", "n3", "n4", "n5"]
    for seed in range(30):
        docs, labels = make_list(pair, negatives, 5, np.random.default_rng(seed))
        assert docs[:2] == ["hi", "lo"] and len(docs) == 5
        assert len(set(docs[2:])) == 3 and set(docs[2:]) <= {"n1", "n2", "n3", "n4", "n5"}
        assert labels == [2.0, 1.0, 0.0, 0.0, 0.0]
    # all the others asked for: each once
    docs, _ = make_list(pair, negatives, 7, np.random.default_rng(0))
    assert sorted(docs[2:]) == ["n1", "n2", "n3", "n4", "n5"]
    # a list of 2 is the pair alone, and draws nothing from the generator
    rng = np.random.default_rng(9)
    assert make_list(pair, negatives, 2, rng) == (["hi", "lo"], [2.0, 1.0])
    assert rng.random() == np.random.default_rng(9).random()


def test_lookup_texts_prefers_the_extra_documents() -> None:
    docs = {"a": Document("a", "original a"), "b": Document("b", "original b")}
    get = lookup_texts(docs, {"a": Document("a", "edited a"), "x": Document("x", "new x")})
    assert (get("a"), get("b"), get("x")) == ("edited a", "original b", "new x")
    plain = lookup_texts(docs)
    assert (plain("a"), plain("b")) == ("original a", "original b")
    with pytest.raises(KeyError):
        plain("x")


# ---------------------------------------------------------------------- pairs
def _graded(candidates: bool = True) -> Dataset:
    docs = {d: Document(d, f"text {d}") for d in ("a0", "b1", "c2", "d0", "e0", "z9")}
    return Dataset(
        "mini",
        {"q": Query("q", "text")},
        docs,
        {"q": {"a0": 0, "b1": 1, "c2": 2}},
        {"q": ["d0", "e0", "a0", "b1", "c2"]} if candidates else None,
        split="train",
    )


def test_qrels_pairs_by_grade_with_depth_and_without_candidates() -> None:
    got = {(p.doc_hi, p.doc_lo, p.label_hi, p.label_lo) for p in qrels_pairs(_graded())}
    want = {("c2", d, 2.0, float(g)) for d, g in (("b1", 1), ("a0", 0), ("d0", 0), ("e0", 0))}
    want |= {("b1", d, 1.0, 0.0) for d in ("a0", "d0", "e0")}
    assert got == want  # "a0" (grade 0) sorts first: it never stops the loop over positives
    shallow = {(p.doc_hi, p.doc_lo) for p in qrels_pairs(_graded(), depth=1)}
    assert shallow == {("c2", "b1"), ("c2", "a0"), ("b1", "a0"), ("c2", "d0"), ("b1", "d0")}
    # a full-retrieval dataset: judged documents only (no "every document is a candidate")
    full = {(p.doc_hi, p.doc_lo) for p in qrels_pairs(_graded(candidates=False))}
    assert full == {("c2", "b1"), ("c2", "a0"), ("b1", "a0")}


# ---------------------------------------------------------------------- dev split
def _queries(n: int, relevant: int) -> Dataset:
    qs = {f"q{i:02d}": Query(f"q{i:02d}", "x") for i in range(n)}
    qrels = {q: {"d": 1 if i < relevant else 0} for i, q in enumerate(qs)}
    return Dataset("many", qs, {"d": Document("d", "x")}, qrels, None, split="train")


def test_split_dev_sizes_membership_and_names() -> None:
    ds = _queries(12, 10)  # 10 usable queries: at most 10 // 5 = 2 for dev
    train, dev = split_dev(ds, 100, seed=0)
    assert dev is not None and len(dev.queries) == 2
    assert set(dev.queries) <= {f"q{i:02d}" for i in range(10)}  # only usable queries
    assert set(train.queries) == set(ds.queries) - set(dev.queries)
    assert (train.split, dev.split) == ("train", "dev")
    # the default seed is 0, and a seed's split never changes (published runs depend on it)
    assert set(split_dev(ds, 100)[1].queries) == set(dev.queries) == {"q04", "q09"}
    one_train, one = split_dev(ds, 1)
    assert one is not None and len(one.queries) == 1 and len(one_train.queries) == 11
    for n_dev in (0, -2):
        same, none = split_dev(ds, n_dev)
        assert none is None and same is ds
    assert split_dev(_queries(12, 4), 5)[1] is None  # 4 usable // 5 == 0
    big = _queries(60, 60)
    default = set(split_dev(big, 100)[1].queries)
    assert default == set(split_dev(big, 100, seed=0)[1].queries)
    assert default != set(split_dev(big, 100, seed=1)[1].queries)
    # the halves are named train / dev whatever the source split was
    unsplit = _queries(12, 10)
    unsplit.split = None
    a, b = split_dev(unsplit, 2)
    assert (a.split, b.split if b is not None else None) == ("train", "dev")


# ---------------------------------------------------------------------- BM25 candidates
def test_with_bm25_candidates_is_the_bm25_top_depth() -> None:
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.lexical import BM25Ranker

    docs = {
        f"d{i:03d}": Document(f"d{i:03d}", "apple " * (1 + i % 7) + f"w{i}") for i in range(120)
    }
    ds = Dataset("full", {"q": Query("q", "apple w3")}, docs, {"q": {"d003": 1}}, None)
    out = with_bm25_candidates(ds)
    assert out is not ds and out.candidates is not None and ds.candidates is None
    index = dataset_index(ds)
    want = [d for d, _ in BM25Ranker(index).retrieve(ds.queries["q"], 100)]
    assert out.candidate_ids("q") == want and len(want) == 100 and want[0] == "d003"
    shallow = with_bm25_candidates(ds, depth=5, index=index)
    assert shallow.candidate_ids("q") == want[:5]
    # a given index is the one used (here one where only d005 and d117 mention apple)
    other = Dataset(
        "full",
        ds.queries,
        {d: Document(d, "apple" if d in ("d005", "d117") else "pear") for d in docs},
        ds.qrels,
        None,
    )
    given = with_bm25_candidates(ds, depth=5, index=dataset_index(other))
    assert sorted(given.candidate_ids("q")) == ["d005", "d117"]
    assert set(out.queries) == set(ds.queries)
    # a re-ranking dataset keeps its candidate lists
    reranking = _graded()
    assert with_bm25_candidates(reranking) is reranking

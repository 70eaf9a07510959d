"""XQuAD graded candidates on a synthetic file (`make mutate` survivors of
data/readers/xquad.py): the canonical split rule position by position, the candidate lists
themselves (not only their grades), the canonical defaults and the one short-pool warning."""

from __future__ import annotations

import inspect
import random
import warnings

import pytest

from axiomatic.data.readers.xquad import XQuADFile, graded_candidates, xquad_article_splits


def test_the_split_rule_position_by_position() -> None:
    titles = [f"t{i:02d}" for i in range(12)]  # sorted order = file order here
    splits = xquad_article_splits(titles)
    # every fifth is test, the article after each test one dev (not the first), the rest train
    expect = ["train", "train", "train", "train", "test", "dev", "train", "train", "train",
              "test", "dev", "train"]  # fmt: skip
    assert [splits[i] for i in range(12)] == expect
    # by title, not file order: reversing the file keeps each title's split
    rev = xquad_article_splits(titles[::-1])
    assert [rev[11 - i] for i in range(12)] == expect


def _file(n_articles: int, paras: int = 2, questions: int = 1) -> XQuADFile:
    f = XQuADFile([], {}, {}, {}, {})
    for a in range(n_articles):
        f.titles.append(f"title {a:02d}")
        for p in range(paras):
            did = f"a{a}p{p}"
            f.paragraphs[did] = f"text {a} {p}"
            f.article_of[did] = a
            for q in range(questions):
                qid = f"q{a}_{p}_{q}"
                f.questions[qid] = f"question {a} {p} {q}"
                f.paragraph_of[qid] = did
    return f


def test_candidates_are_the_graded_documents_in_a_seeded_order() -> None:
    ref = _file(12)  # train 8 articles, test 2, dev 2: every question has an NR pool
    qids = list(ref.questions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the pools are short on purpose
        cands, qrels = graded_candidates(ref, qids, n_negatives=3, seed=5)
    splits = xquad_article_splits(ref.titles)
    for qid in qids:
        own = ref.paragraph_of[qid]
        art = ref.article_of[own]
        assert sorted(cands[qid]) == sorted(qrels[qid])  # the list is the judged documents
        assert qrels[qid][own] == 2
        nr = [d for d, g in qrels[qid].items() if g == 0]
        assert nr and all(splits[ref.article_of[d]] == splits[art] for d in nr)
        # the order is the seeded shuffle of (seed, question id): reproducible by hand
        pool = [d for d in ref.paragraphs if ref.article_of[d] != art
                and splits[ref.article_of[d]] == splits[art]]  # fmt: skip
        rng = random.Random(f"5:{qid}")
        grades = {d: 1 for d in ref.paragraphs if ref.article_of[d] == art}
        grades[own] = 2
        for d in rng.sample(pool, min(3, len(pool))):
            grades[d] = 0
        expect = list(grades)
        rng.shuffle(expect)
        assert cands[qid] == expect
    # the source paragraph is not always first (no position gives the answer away)
    assert {cands[q].index(ref.paragraph_of[q]) for q in qids} != {0}


def test_the_canonical_defaults() -> None:
    params = inspect.signature(graded_candidates).parameters
    assert params["n_negatives"].default == 40  # Sasaki et al.'s 40 NR per question
    assert params["seed"].default == 0
    assert params["nr_pool"].default == "split"
    # and the call without them is the call with them (40 articles: 25 train, NR pools of 48)
    ref = _file(40)
    qids = list(ref.questions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dev / test pools are short here
        default = graded_candidates(ref, qids)
        explicit = graded_candidates(ref, qids, n_negatives=40, seed=0, nr_pool="split")
        other = graded_candidates(ref, qids, n_negatives=40, seed=1)
    assert default == explicit and default != other
    train_q = [
        q
        for q in qids
        if xquad_article_splits(ref.titles)[ref.article_of[ref.paragraph_of[q]]] == "train"
    ]
    assert {sum(g == 0 for g in default[1][q].values()) for q in train_q} == {40}


def test_one_warning_names_each_short_split_with_its_counts() -> None:
    ref = _file(12, paras=2, questions=2)  # 4 questions per article
    qids = list(ref.questions)
    with pytest.warns(UserWarning) as caught:
        graded_candidates(ref, qids, n_negatives=8)
    assert len(caught) == 1
    msg = str(caught[0].message)
    # 12 articles: train 8 (14 NR paragraphs each: enough), test 2 and dev 2 (2 NR each)
    assert msg == (
        "XQuAD graded candidates: asked for 8 NR paragraphs per question (nr_pool='split'), "
        "fewer are available; split 'dev': 8 of 8 questions have only min 2 / median 2 NR "
        "paragraphs available; split 'test': 8 of 8 questions have only min 2 / median 2 NR "
        "paragraphs available (all of them are used)"
    )
    assert caught[0].category is UserWarning

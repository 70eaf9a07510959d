"""ACRank (Bo et al. 2023): TFC-A / TFC-D laws, the contrastive loss against a hand
computation, the E() scorer (gradient, save/load, ranker), and bad input."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from training_helpers import WORDS, TinyRanker, make_toy_dataset

from axiomatic.perturb.acrank import (
    ACRankAugmenter,
    canonical_rule,
    check_probability,
    query_term_count,
)
from axiomatic.training.config import ACRankAugmentSpec, TrainConfig, parse_augmentation
from axiomatic.training.contrastive import (
    ACRankLossStrategy,
    info_nce,
)
from axiomatic.training.trainer import Trainer

STOP = ["the", "of", "a", "is", "and"]
word = st.sampled_from(WORDS[:12] + STOP)


# ---------------------------------------------------------------------- augmentation laws
@settings(max_examples=60, deadline=None)
@given(
    q=st.lists(word, min_size=1, max_size=4),
    d=st.lists(word, min_size=0, max_size=30),
    p=st.sampled_from([0.0, 0.3, 1.0]),
    seed=st.integers(0, 10_000),
)
def test_tfc_a_prepends_only_kept_query_terms(q, d, p, seed):
    aug = ACRankAugmenter("TFC-A", p)
    query, text = " ".join(q), " ".join(d).capitalize() + "."
    res = aug.augment(query, text, np.random.default_rng(seed)).plus
    terms = [t for t, _ in aug.query_terms(query)]
    if res is None:
        assert p < 1.0 or not terms  # nothing drawn or an all-stopword query
        return
    assert res.text.endswith(text)  # the original is intact after the prefix
    prefix = res.text[: len(res.text) - len(text)].split()
    assert prefix == list(res.terms) and set(prefix) <= set(terms)
    assert not set(prefix) & set(STOP)
    if p == 1.0:  # every distinct non-stopword query term, in query order
        assert prefix == terms
    assert query_term_count(aug, query, res.text) == query_term_count(aug, query, text) + len(
        prefix
    )


@settings(max_examples=60, deadline=None)
@given(
    q=st.lists(word, min_size=1, max_size=4),
    d=st.lists(word, min_size=1, max_size=30),
    p=st.sampled_from([0.3, 1.0]),
    seed=st.integers(0, 10_000),
)
def test_tfc_d_removes_query_term_occurrences_only(q, d, p, seed):
    aug = ACRankAugmenter("TFC-D", p)
    query, text = " ".join(q), " ".join(d)
    res = aug.augment(query, text, np.random.default_rng(seed)).minus
    keys = {t for t, _ in aug.query_terms(query)}
    before = query_term_count(aug, query, text)
    if res is None:
        assert before == 0 or p < 1.0
        return
    after = query_term_count(aug, query, res.text)
    assert after == before - len(res.terms) and len(res.terms) >= 1
    # the other words are untouched and in order
    assert [w for w in res.text.split() if w not in keys] == [w for w in d if w not in keys]
    if p == 1.0:
        assert after == 0


def test_tfc_d_respects_the_visible_prefix_and_counts_what_it_cannot_do():
    aug = ACRankAugmenter("TFC-D", 1.0, max_position=3)
    rng = np.random.default_rng(0)
    far = "one two three four kernel"
    assert aug.augment("kernel", far, rng).minus is None  # only past the cut
    near = "kernel two three four kernel"
    assert aug.augment("kernel", near, rng).minus.text == "two three four kernel"
    assert aug.augment("the of", near, rng).minus is None  # all-stopword query
    assert aug.stats.no_query_term == 1
    assert aug.stats.all_stopword_queries == 1
    assert aug.stats.tfc_d_applied == 1


def test_tfc_a_and_d_and_the_paper_example_in_chinese():
    pytest.importorskip("jieba")
    aug = ACRankAugmenter("TFC-A&D", 1.0, language="zh")
    res = aug.augment(
        "如何卸载瑞星杀毒软件", "关于瑞星杀毒软件如何卸载的说明", np.random.default_rng(0)
    )
    assert res.plus is not None and res.minus is not None
    assert res.plus.text.endswith("关于瑞星杀毒软件如何卸载的说明")
    assert "如何" not in res.plus.terms  # a stopword of the shipped list
    assert "卸载" not in res.minus.text and "瑞星" not in res.minus.text
    assert "如何" in res.minus.text


def test_rules_names_and_probabilities_are_checked():
    assert canonical_rule("tfc_a&d") == "TFC-A&D" and canonical_rule("None") == "none"
    with pytest.raises(ValueError, match="Rosset"):
        canonical_rule("TFC1-A")
    with pytest.raises(ValueError, match="did you mean 'TFC-D'"):
        canonical_rule("TFC-DD")
    for bad in (-0.1, 1.5, "x", float("nan")):
        with pytest.raises(ValueError, match=r"\[0, 1\]"):
            check_probability(bad)
    with pytest.raises(ValueError, match=r"acrank p must be a finite number >= 0 and <= 1"):
        parse_augmentation("acrank(rule=TFC-A, p=2)")
    with pytest.raises(ValueError, match="unknown ACRank rule"):
        parse_augmentation("acrank(rule=TFC-X)")
    with pytest.raises(ValueError, match="did you mean 'infonce'"):
        parse_augmentation("acrank(loss=infonse)")
    with pytest.raises(ValueError, match="unknown acrank parameter 'prob'"):
        parse_augmentation("acrank(prob=0.5)")
    spec = parse_augmentation("acrank(rule=TFC-D, p=0.3, negatives=2)")
    assert spec == ACRankAugmentSpec("TFC-D", 0.3, "infonce", 2)


def test_chinese_without_jieba_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "jieba", None)
    with pytest.raises(ImportError, match="pip install jieba"):
        ACRankAugmenter("TFC-A", 0.5, language="zh")


# ---------------------------------------------------------------------- the loss
def test_info_nce_matches_a_hand_computation():
    s = torch.tensor([[2.0, 1.0, 0.0], [0.5, 0.5, -9.0]], requires_grad=True)
    valid = torch.tensor([[True, True, True], [True, True, False]])
    loss = info_nce(s, valid)
    value = float(loss.detach())
    row0 = -math.log(math.exp(2) / (math.exp(2) + math.exp(1) + 1))
    row1 = -math.log(0.5)
    assert value == pytest.approx((row0 + row1) / 2, abs=1e-6)
    loss.backward()
    assert float(s.grad[1, 2]) == 0.0  # padding gets no gradient


class _CountScorer(TinyRanker):
    """score = number of occurrences of 'kernel' in the document (no parameters used)."""

    def forward(self, q, d):  # type: ignore[override]
        kernel_id = self._ids("kernel")[0]
        return (d == kernel_id).float().sum(-1) + 0.0 * self.w.weight.sum()


@pytest.mark.parametrize(
    ("rule", "expected_rows"),
    [
        # per item: scores of [positive, negatives...] with d = 2 'kernel's, negative = 0
        ("none", [[2, 0]]),
        ("TFC-A", [[3, 2, 0]]),  # eq. 8: d+ (one 'kernel' prepended) vs {d} + N
        ("TFC-D", [[2, 0, 0]]),  # eq. 9: d vs {d-} + N (p=1: every occurrence deleted)
        ("TFC-A&D", [[3, 2, 0, 0]]),  # d+ vs {d, d-} + N
    ],
)
def test_strategy_builds_the_paper_lists(tmp_path, rule, expected_rows):
    from axiomatic.data.records import Dataset, Document, Query

    ds = Dataset(
        "mini",
        {"q": Query("q", "kernel")},
        {"r": Document("r", "kernel pooling kernel"), "n": Document("n", "other text")},
        {"q": {"r": 1}},
        {"q": ["r", "n"]},
        split="train",
    )
    cfg = TrainConfig(
        dataset="mini",
        augmentation=f"acrank(rule='{rule}', p=1.0, negatives=1)",
        batch_size=1,
        steps=1,
        dev_queries=0,
    )
    tr = Trainer(_CountScorer(), cfg, tmp_path, ds)
    tr._setup()
    assert isinstance(tr.strategy, ACRankLossStrategy)
    loss, info = tr._step_loss(tr.sampler.next_batch(), 1)
    want = sum(
        -math.log(math.exp(r[0]) / sum(math.exp(x) for x in r)) for r in expected_rows
    ) / len(expected_rows)
    assert float(loss.detach()) == pytest.approx(want, abs=1e-5)
    assert info["aug_plus"] == float(
        "A" in rule.replace("TFC-", "").split("&")[0] and rule != "none"
    )


def test_hinge_variant_adds_the_edits_as_ordered_pairs(tmp_path):
    ds = make_toy_dataset(6, 4)
    cfg = TrainConfig(
        augmentation="acrank(rule=TFC-AD, p=1.0, loss=hinge)",
        batch_size=4,
        steps=3,
        dev_queries=0,
        eval_every=3,
        checkpoint_every=3,
        lr=1e-2,
    )
    res = Trainer(TinyRanker(), cfg, tmp_path / "run", ds).fit()
    log = res.history
    assert len(log) == 3 and all(r["aug_plus"] == 4 and r["aug_minus"] == 4 for r in log)


def test_contrastive_training_runs_resumes_and_learns(tmp_path):
    ds = make_toy_dataset(12, 6)
    cfg = TrainConfig(
        loss="contrastive",
        augmentation="acrank(rule='TFC-A&D', p=0.5, negatives=3)",
        batch_size=4,
        steps=30,
        dev_queries=0,
        eval_every=10,
        checkpoint_every=10,
        lr=5e-2,
    )
    a = Trainer(TinyRanker(seed=1), cfg, tmp_path / "a", ds).fit()
    first = np.mean([r["loss"] for r in a.history[:5]])
    last = np.mean([r["loss"] for r in a.history[-5:]])
    assert last < first

    # kill after step 10 and resume: same weights as the uninterrupted run
    class Kill(Exception):
        pass

    def cb(step, rec):
        if step == 12:
            raise Kill

    with pytest.raises(Kill):
        Trainer(TinyRanker(seed=1), cfg, tmp_path / "b", ds, callback=cb).fit()
    m_b = TinyRanker(seed=1)
    Trainer(m_b, cfg, tmp_path / "b", ds).fit()
    m_a = TinyRanker(seed=1)
    Trainer(m_a, cfg, tmp_path / "a2", ds).fit()
    for x, y in zip(m_a.state_dict().values(), m_b.state_dict().values(), strict=True):
        assert torch.equal(x, y)


def test_acrank_with_ar_is_refused(tmp_path):
    cfg = TrainConfig(
        augmentation="acrank(rule=TFC-A)", regularizer="ar(lambda=0.1)", dev_queries=0
    )
    with pytest.raises(ValueError, match="does not combine"):
        Trainer(TinyRanker(), cfg, tmp_path, make_toy_dataset(4, 3))._setup()


def test_a_bad_acrank_string_fails_when_the_config_is_built():
    # before any data is loaded (the CLI's train command builds the config first)
    with pytest.raises(ValueError, match="Rosset"):
        TrainConfig(augmentation="acrank(rule=TFC1-A)")
    with pytest.raises(ValueError, match=r"acrank p must be a finite number >= 0 and <= 1"):
        TrainConfig(loss="contrastive", augmentation="acrank(p=-0.5)")

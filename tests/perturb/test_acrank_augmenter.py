"""Mutation testing of ``perturb/acrank.py``: ACRank's TFC-A / TFC-D by value - which
rule makes which edit, the edits' names and directions, the counters, the visible prefix (words
in English, characters in Chinese), the exact text a deletion leaves, the rule aliases and the
messages. Each test kills mutants the augmentation law tests let survive."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from axiomatic.perturb.acrank import (
    ACRankAugmenter,
    AugmentStats,
    canonical_rule,
    check_probability,
)

RNG = np.random.default_rng


# ---------------------------------------------------------------------- rules and names
@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("a", "TFC-A"),
        ("D", "TFC-D"),
        ("a&d", "TFC-A&D"),
        ("AD", "TFC-A&D"),
        ("tfc-ad", "TFC-A&D"),
        ("TFC_A", "TFC-A"),
        (" tfc - d ", "TFC-D"),
        ("tfc a&d".replace(" ", "-"), "TFC-A&D"),
        ("", "none"),
        ("None", "none"),
        ("original", "none"),
        ("Original", "none"),
    ],
)
def test_rule_aliases(name, want) -> None:
    assert canonical_rule(name) == want


def test_rule_errors_say_what_is_expected() -> None:
    with pytest.raises(
        ValueError,
        match=r"^unknown ACRank rule 'qqq'; expected one of TFC-A, TFC-D, TFC-A&D or none$",
    ):
        canonical_rule("qqq")
    with pytest.raises(ValueError) as err:
        canonical_rule("tfc1-d")
    assert str(err.value) == (
        "unknown ACRank rule 'tfc1-d'; expected one of TFC-A, TFC-D, TFC-A&D or none (TFC1-D "
        "is Rosset et al.'s one-term perturbation: use it with ar(...) or perturb(...); "
        "ACRank's rules are TFC-A / TFC-D / TFC-A&D)"
    )
    for key, hint in (
        ("tfc-x", "'TFC-D' or 'TFC-A'"),  # two suggestions at most
        ("TFC-XYZWV", "'TFC-D' or 'TFC-A'"),  # similarity 0.57: the cutoff is 0.5
        ("nonee", "'none'"),  # compared upper-cased, suggested as spelled
    ):
        with pytest.raises(ValueError) as err:
            canonical_rule(key)
        assert str(err.value) == (
            f"unknown ACRank rule {key!r} (did you mean {hint}?); expected one of TFC-A, TFC-D, "
            "TFC-A&D or none"
        )
    with pytest.raises(ValueError, match=r"^p must be a number in \[0, 1\] \(got 'x'\)$"):
        check_probability("x")
    with pytest.raises(ValueError, match=r"^p must be a probability in \[0, 1\]"):
        check_probability(2)
    assert check_probability("0.25") == 0.25


def test_augmenter_settings() -> None:
    assert ACRankAugmenter(language=None).language == "en"  # type: ignore[arg-type]
    assert ACRankAugmenter(max_position=1).max_position == 1
    with pytest.raises(ValueError, match=r"^max_position must be >= 1 or None \(got 0\)$"):
        ACRankAugmenter(max_position=0)


def test_missing_jieba_message(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "jieba", None)
    with pytest.raises(
        ImportError,
        match=r"^ACRank's Chinese augmentation segments words with jieba, a dependency of "
        r"axiomatic-ir that is missing here: pip install jieba$",
    ):
        ACRankAugmenter("TFC-A", 0.5, language="zh")


# ---------------------------------------------------------------------- which edit, counted
@pytest.mark.parametrize(
    ("rule", "plus", "minus"),
    [
        ("TFC-A", True, False),
        ("TFC-D", False, True),
        ("TFC-A&D", True, True),
        ("none", False, False),
    ],
)
def test_each_rule_makes_its_own_edits(rule, plus, minus) -> None:
    aug = ACRankAugmenter(rule, 1.0)
    res = aug.augment("alpha beta", "gamma alpha delta", RNG(0))
    assert (res.plus is not None, res.minus is not None) == (plus, minus)
    if res.plus is not None:
        assert (res.plus.rule, res.plus.direction, res.plus.terms) == (
            "TFC-A",
            1,
            ("alpha", "beta"),
        )
        assert res.plus.text == "alpha beta gamma alpha delta"
    if res.minus is not None:
        assert (res.minus.rule, res.minus.direction, res.minus.terms) == ("TFC-D", -1, ("alpha",))
        assert res.minus.text == "gamma delta"


def test_counters_add_up() -> None:
    aug = ACRankAugmenter("TFC-A&D", 1.0)
    for _ in range(3):
        aug.augment("alpha", "alpha beta", RNG(0))
    for _ in range(2):
        aug.augment("the of", "alpha beta", RNG(0))  # stopwords only
        aug.augment("alpha", "beta gamma", RNG(0))  # no occurrence to delete
    s = aug.stats
    assert s.documents == 7 and s.all_stopword_queries == 2 and s.no_query_term == 2
    assert s.tfc_a_applied == 5 and s.tfc_d_applied == 3 and s.deleted_occurrences == 3
    assert s.to_dict() == dict(vars(s)) and s.to_dict()["documents"] == 7
    assert AugmentStats().to_dict() == dict.fromkeys(vars(AugmentStats()), 0)
    none = ACRankAugmenter("none", 1.0)
    none.augment("the of", "alpha", RNG(0))  # rule none: the query is not even looked at
    assert none.stats.documents == 1 and none.stats.all_stopword_queries == 0


def test_query_terms_skip_stopwords_repeats_and_non_words() -> None:
    aug = ACRankAugmenter("TFC-A", 1.0)
    assert aug.query_terms("Alpha the ___ alpha Beta") == [("alpha", "Alpha"), ("beta", "Beta")]


# ---------------------------------------------------------------------- visible prefix
def test_visible_prefix_counts_words_in_english() -> None:
    aug = ACRankAugmenter("TFC-D", 1.0, max_position=3)
    res = aug.augment("alpha", "one two three alpha", RNG(0))  # word 3: not visible
    assert res.minus is None and aug.stats.no_query_term == 1
    res = aug.augment("alpha", "one two alpha three alpha", RNG(0))  # word 2 yes, word 4 no
    assert res.minus is not None and res.minus.text == "one two three alpha"
    # characters do not count in English: word 2 starts at character 22
    aug5 = ACRankAugmenter("TFC-D", 1.0, max_position=5)
    res = aug5.augment("alpha", "aaaaaaaaaa bbbbbbbbbb alpha", RNG(0))
    assert res.minus is not None and res.minus.text == "aaaaaaaaaa bbbbbbbbbb"


def test_visible_prefix_counts_characters_in_chinese() -> None:
    pytest.importorskip("jieba")
    text = "这是一个很长的句子关于蛋白质和癌症的研究"  # 癌症: word 8, character 15
    hidden = ACRankAugmenter("TFC-D", 1.0, language="zh", max_position=10)
    assert hidden.augment("癌症", text, RNG(0)).minus is None
    seen = ACRankAugmenter("TFC-D", 1.0, language="zh", max_position=16)
    res = seen.augment("癌症", text, RNG(0))
    assert res.minus is not None and res.minus.text == "这是一个很长的句子关于蛋白质和的研究"


# ---------------------------------------------------------------------- exact texts
@pytest.mark.parametrize(
    ("doc", "want"),
    [
        ("beta alpha", "beta"),  # a trailing space left by the deletion goes
        ("beta\talpha", "beta"),
        ("beta\n alpha", "beta\n"),  # only spaces and tabs are stripped
        ("betaX alpha", "betaX"),
        ("alpha Xylophone beta", "Xylophone beta"),  # the spaces after a word, nothing more
        ("alpha  \t beta", "beta"),
    ],
)
def test_deletion_leaves_exactly_the_rest(doc, want) -> None:
    res = ACRankAugmenter("TFC-D", 1.0).augment("alpha", doc, RNG(0))
    assert res.minus is not None and res.minus.text == want


def test_chinese_edits_join_without_spaces() -> None:
    pytest.importorskip("jieba")
    aug = ACRankAugmenter("TFC-A&D", 1.0, language="zh")
    assert aug.query_terms("蛋白质，癌症") == [("蛋白质", "蛋白质"), ("癌症", "癌症")]
    res = aug.augment("蛋白质，癌症", "蛋白质很好 癌症", RNG(0))
    assert res.plus is not None and res.plus.text == "蛋白质癌症蛋白质很好 癌症"
    assert res.minus is not None and res.minus.text == "很好 "  # Chinese: nothing stripped

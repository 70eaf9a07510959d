"""Tokenizing ASCII text with a word-run pattern (``\\w+``, ``\\b\\w\\w+\\b``) without the regex
engine gives exactly the regex's tokens."""

from __future__ import annotations

import re

import numpy as np
import pytest

from axiomatic.text.analyzer import DEFAULT_TOKEN_PATTERN, Analyzer

PATTERNS = [DEFAULT_TOKEN_PATTERN, r"\w+", r"(?u)\b\w\w+\b", r"\b\w\w+\b"]


def _texts(seed: int, n: int) -> list[str]:
    """Random ASCII texts over every code point below 128, word characters the most frequent."""
    rng = np.random.default_rng(seed)
    alphabet = [chr(c) for c in range(128)] + list("aAzZ09_") * 12 + [" "] * 20
    return ["".join(rng.choice(alphabet, size=int(rng.integers(0, 60)))) for _ in range(n)]


@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_word_run_patterns_tokenize_ascii_as_the_regex_does(pattern, lowercase):
    analyzer = Analyzer(token_pattern=pattern, lowercase=lowercase, stemmer=None)
    assert analyzer._word_run_length in (1, 2)  # the byte-translation path is taken
    regex = re.compile(pattern)
    texts = [*_texts(len(pattern) + lowercase, 400), "", " ", "a", "ab", "a_b c", "\x1c\x1f _ __"]
    for text in texts:
        expected = regex.findall(text.lower() if lowercase else text)
        assert analyzer.tokenize(text) == expected, repr(text)


def test_other_patterns_and_non_ascii_text_keep_the_regex():
    assert Analyzer(token_pattern=r"[A-Za-z0-9]+")._word_run_length == 0
    analyzer = Analyzer(token_pattern=r"(?u)\b\w\w+\b", stemmer=None)
    text = "Ünïcode wörds, ｆｕｌｌ width and a x ÿ"
    assert analyzer.tokenize(text) == ["ünïcode", "wörds", "full", "width", "and"]

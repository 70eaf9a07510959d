"""Text manipulation probes (ABNIRML, MacAvaney et al., TACL 2022, section 3.3): pure, seeded.

Each probe turns a document text into a manipulated one; a ranker's preference between the two
is then measured with the calibrated band of :mod:`axiomatic.diagnose.effects`. The probes make
no claim that one text is more relevant: they show what a ranker is sensitive to.

=================== ==========================================================================
``shuffle-words``   the whitespace tokens in a random order (never the original one)
``shuffle-sentences`` the sentences in a random order (never the original one; documents of
                    one sentence: no probe)
``typos``           in each word of at least 4 letters, with probability ``TYPO_RATE``, two
                    adjacent inner letters swapped (first and last letter kept)
``remove-stopwords`` tokens whose lowercase letters form a stopword of the packaged list dropped
``case-fold``       the text lowercased
``add-sentence``    one sentence of another document (the ``donor``) appended
``remove-sentence`` one sentence dropped (documents of one sentence: no probe)
=================== ==========================================================================

A probe returns the text unchanged when it does not apply (nothing to shuffle, no stopword);
callers skip those documents.

The *invariance* probes (:data:`INVARIANT_PROBES`: shuffle-words, case-fold) change neither the
words nor their meaning for a bag-of-words reading: an unchanged score (a tie) is the outcome
they look for, so their pairs expect equal scores (relation ``=``) instead of a preference.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from axiomatic.text.analyzer import load_stopwords

__all__ = ["INVARIANT_PROBES", "PROBES", "TYPO_RATE", "manipulate", "sentences"]

TYPO_RATE = 0.2
"""Probability that a word of four or more letters gets a typo (two inner letters swapped)."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W\d_]+")


def sentences(text: str) -> list[str]:
    """``text`` split after ``.``, ``!`` or ``?`` followed by white space (empty parts dropped)."""
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def _shuffled(items: list[str], rng: np.random.Generator) -> list[str]:
    """``items`` in a random order other than the given one (when their values allow one): an
    identity draw would be no probe, so it is drawn again (at most 20 times)."""
    out = items
    for _ in range(20):
        out = [items[i] for i in rng.permutation(len(items))]
        if out != items:
            break
    return out


def _shuffle_words(text: str, rng: np.random.Generator, donor: str) -> str:
    return " ".join(_shuffled(text.split(), rng))


def _shuffle_sentences(text: str, rng: np.random.Generator, donor: str) -> str:
    sents = sentences(text)
    if len(sents) < 2:
        return text
    return " ".join(_shuffled(sents, rng))


def _typo(word: str, rng: np.random.Generator) -> str:
    i = int(rng.integers(1, len(word) - 2))  # swap word[i], word[i + 1], both inner letters
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def _typos(text: str, rng: np.random.Generator, donor: str) -> str:
    def one(m: re.Match[str]) -> str:
        w = m.group(0)
        if len(w) < 4 or rng.random() >= TYPO_RATE:
            return w
        return _typo(w, rng)

    return _WORD.sub(one, text)


def _remove_stopwords(text: str, rng: np.random.Generator, donor: str) -> str:
    stop = load_stopwords("en")
    kept = [w for w in text.split() if "".join(_WORD.findall(w.lower())) not in stop]
    return " ".join(kept)


def _case_fold(text: str, rng: np.random.Generator, donor: str) -> str:
    return text.lower()


def _add_sentence(text: str, rng: np.random.Generator, donor: str) -> str:
    sents = sentences(donor)
    if not sents:
        return text
    return text.rstrip() + " " + sents[int(rng.integers(len(sents)))]


def _remove_sentence(text: str, rng: np.random.Generator, donor: str) -> str:
    sents = sentences(text)
    if len(sents) < 2:
        return text
    drop = int(rng.integers(len(sents)))
    return " ".join(s for i, s in enumerate(sents) if i != drop)


PROBES: dict[str, Callable[[str, np.random.Generator, str], str]] = {
    "shuffle-words": _shuffle_words,
    "shuffle-sentences": _shuffle_sentences,
    "typos": _typos,
    "remove-stopwords": _remove_stopwords,
    "case-fold": _case_fold,
    "add-sentence": _add_sentence,
    "remove-sentence": _remove_sentence,
}
"""Every probe by name: ``probe(text, rng, donor) -> manipulated text``."""

INVARIANT_PROBES = frozenset({"shuffle-words", "case-fold"})
"""Probes whose desired outcome is an unchanged score: a tie fulfils their pairs."""


def manipulate(name: str, text: str, rng: np.random.Generator, donor: str = "") -> str:
    """``text`` manipulated by probe ``name`` (see the module table); ``donor``: the text
    ``add-sentence`` takes a sentence from."""
    try:
        fn = PROBES[name]
    except KeyError:
        from axiomatic._suggest import suggest

        raise ValueError(
            f"unknown probe {name!r}{suggest(name, PROBES)}; expected one of {', '.join(PROBES)}"
        ) from None
    return fn(text, rng, donor)

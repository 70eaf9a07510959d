"""Text manipulation probes after ABNIRML (MacAvaney et al., TACL 2022, section 3.3): pure, seeded.

Each probe turns a document text into a manipulated one; a ranker's preference between the two
is then measured with the calibrated band of :mod:`axiomatic.diagnose.effects`. The probes make
no claim that one text is more relevant: they show what a ranker is sensitive to.

Probes named as ABNIRML spells them follow ABNIRML's definition:

=========================== ================================================================
``Typo``                    every occurrence of a word of the packaged list of common English
                            misspellings (:func:`misspellings`, case-sensitive, whole words)
                            replaced with one of its misspellings (drawn when it has several)
``Typo-nostops``            ``Typo`` leaving the words of the packaged stopword list alone
``AddSent-start``           one sentence of a non-relevant document of the same query (judged
                            0, the ``donor``) put before the text
``AddSent-end``             the same sentence put after the text
=========================== ================================================================

The others are this project's (their names do not claim to be ABNIRML's):

=============================== ===========================================================
``shuffle-words``               the whitespace tokens in a random order (never the original)
``shuffle-sentences``           the sentences in a random order (never the original one;
                                documents of one sentence: no probe)
``swap-letters``                in each word of at least 4 letters, with probability
                                ``TYPO_RATE``, two adjacent inner letters swapped (first and
                                last letter kept)
``remove-stopwords``            tokens whose lowercase letters form a stopword of the packaged
                                list dropped
``case-fold``                   the text lowercased
``append-other-query-sentence`` one sentence of a candidate of another query (the ``donor``)
                                appended
``remove-sentence``             one sentence dropped (documents of one sentence: no probe)
=============================== ===========================================================

A probe returns the text unchanged when it does not apply (nothing to shuffle, no stopword, no
listed word); callers skip those documents.

The *invariance* probes (:data:`INVARIANT_PROBES`: shuffle-words, case-fold) change neither the
words nor their meaning for a bag-of-words reading: an unchanged score (a tie) is the outcome
they look for, so their pairs expect equal scores (relation ``=``) instead of a preference.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources

import numpy as np

from axiomatic.text.analyzer import load_stopwords

__all__ = [
    "DONOR_PROBES",
    "INVARIANT_PROBES",
    "MISSPELLINGS_FILE",
    "NON_RELEVANT_DONOR_PROBES",
    "PROBES",
    "RENAMED_PROBES",
    "TYPO_RATE",
    "manipulate",
    "misspellings",
    "sentences",
    "unknown_probe",
]

TYPO_RATE = 0.2
"""Probability that ``swap-letters`` swaps two inner letters of a word of four or more letters."""

MISSPELLINGS_FILE = "misspellings_en.tsv"
"""The packaged list of common English misspellings (``misspelling<TAB>correct`` lines; its
header states where it comes from and how it differs from the list ABNIRML uses)."""

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


@cache
def misspellings() -> dict[str, tuple[str, ...]]:
    """The packaged misspellings of each correct word (:data:`MISSPELLINGS_FILE`), in file
    order: ``{"receive": ("recieve",), ...}``."""
    text = resources.files("axiomatic.resources").joinpath(MISSPELLINGS_FILE).read_text("utf-8")
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        wrong, right = line.split("\t")
        out.setdefault(right.strip(), []).append(wrong.strip())
    return {k: tuple(v) for k, v in out.items()}


@cache
def _misspelling_pattern(no_stops: bool) -> re.Pattern[str]:
    stop = load_stopwords("en") if no_stops else frozenset()
    words = [w for w in misspellings() if w.lower() not in stop]
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b")


def _misspelt(text: str, rng: np.random.Generator, no_stops: bool) -> str:
    """ABNIRML's typo probe: every listed word (whole word, case as listed) replaced with one
    of its misspellings, drawn uniformly when it has several."""
    table = misspellings()

    def one(m: re.Match[str]) -> str:
        options = table[m.group(1)]
        return options[int(rng.integers(len(options)))] if len(options) > 1 else options[0]

    return _misspelling_pattern(no_stops).sub(one, text)


def _typo_abnirml(text: str, rng: np.random.Generator, donor: str) -> str:
    return _misspelt(text, rng, no_stops=False)


def _typo_nostops(text: str, rng: np.random.Generator, donor: str) -> str:
    return _misspelt(text, rng, no_stops=True)


def _donor_sentence(donor: str, rng: np.random.Generator) -> str | None:
    sents = sentences(donor)
    return sents[int(rng.integers(len(sents)))] if sents else None


def _add_sent_start(text: str, rng: np.random.Generator, donor: str) -> str:
    sent = _donor_sentence(donor, rng)
    return text if sent is None else f"{sent} {text}"


def _add_sent_end(text: str, rng: np.random.Generator, donor: str) -> str:
    sent = _donor_sentence(donor, rng)
    return text if sent is None else f"{text} {sent}"


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


def _append_other_query_sentence(text: str, rng: np.random.Generator, donor: str) -> str:
    sent = _donor_sentence(donor, rng)
    return text if sent is None else text.rstrip() + " " + sent


def _remove_sentence(text: str, rng: np.random.Generator, donor: str) -> str:
    sents = sentences(text)
    if len(sents) < 2:
        return text
    drop = int(rng.integers(len(sents)))
    return " ".join(s for i, s in enumerate(sents) if i != drop)


PROBES: dict[str, Callable[[str, np.random.Generator, str], str]] = {
    "shuffle-words": _shuffle_words,
    "shuffle-sentences": _shuffle_sentences,
    "swap-letters": _typos,
    "remove-stopwords": _remove_stopwords,
    "case-fold": _case_fold,
    "append-other-query-sentence": _append_other_query_sentence,
    "remove-sentence": _remove_sentence,
    "Typo": _typo_abnirml,
    "Typo-nostops": _typo_nostops,
    "AddSent-start": _add_sent_start,
    "AddSent-end": _add_sent_end,
}
"""Every probe by name: ``probe(text, rng, donor) -> manipulated text``."""

DONOR_PROBES = frozenset({"append-other-query-sentence", "AddSent-start", "AddSent-end"})
"""Probes that take a sentence of another document (the ``donor``)."""

NON_RELEVANT_DONOR_PROBES = frozenset({"AddSent-start", "AddSent-end"})
"""Donor probes whose donor is a document judged non-relevant (0) for the same query
(ABNIRML's); the others take a candidate of another query."""

RENAMED_PROBES = {
    "typos": "swap-letters (this project's adjacent-letter swaps) or Typo (ABNIRML's common "
    "misspellings)",
    "add-sentence": "append-other-query-sentence (this project's: a sentence of another "
    "query's candidate appended) or AddSent-start / AddSent-end (ABNIRML's: a sentence of a "
    "non-relevant document of the same query put before / after)",
}
"""Former probe names and what to use instead: they named ABNIRML's probes but worked
differently."""

INVARIANT_PROBES = frozenset({"shuffle-words", "case-fold"})
"""Probes whose desired outcome is an unchanged score: a tie fulfils their pairs."""


def manipulate(name: str, text: str, rng: np.random.Generator, donor: str = "") -> str:
    """``text`` manipulated by probe ``name`` (see the module tables); ``donor``: the text a
    probe of :data:`DONOR_PROBES` takes a sentence from."""
    try:
        fn = PROBES[name]
    except KeyError:
        raise ValueError(unknown_probe(name)) from None
    return fn(text, rng, donor)


def unknown_probe(name: str) -> str:
    """The message for an unknown probe ``name``: a former name says what replaced it."""
    from axiomatic._suggest import suggest

    if name in RENAMED_PROBES:
        return f"probe {name!r} was renamed: use {RENAMED_PROBES[name]}"
    return f"unknown probe {name!r}{suggest(name, PROBES)}; expected one of {', '.join(PROBES)}"

"""Axiomatic document perturbations (Rosset et al. 2019, section 3).

Each perturbation edits a document's *surface* text so that the edit is exactly the one its axiom
talks about once the text goes through the shared :class:`~axiomatic.text.analyzer.Analyzer`:

=========  ==========================================================  =============  =========
name       edit                                                        expectation    delta_i
=========  ==========================================================  =============  =========
TFC1-A     insert one sampled query term at a random token boundary    d^(i) >= d     -1
TFC1-D     delete every occurrence of one sampled query term           d >= d^(i)     +1
TFC3       insert one query term the document lacks (if any)           d^(i) >= d     -1
LNC        insert ``k`` random non-query vocabulary terms              d >= d^(i)     +1
=========  ==========================================================  =============  =========

``delta_i = +1`` when the axiom says the original document should score higher than its
perturbation (Rosset eq. 4). Query-term membership is decided on analyzed (stopped, stemmed)
terms, so that "retrieval" in the query matches "retrieving" in the document exactly when BM25
and the axiom implementations consider them the same term.

The edited text is the analyzer's normalized text (NFKC, lowercased when the analyzer lowercases)
with punctuation and spacing kept, so it stays readable for text models (cross-encoders) while
``analyzer.analyze(perturbed)`` equals the analyzed original with exactly the edit applied.
Chinese (jieba) text is rebuilt from its segmented tokens (no spans to edit in place).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from axiomatic.text.analyzer import Analyzer

PERTURBATIONS: dict[str, int] = {"TFC1-A": -1, "TFC1-D": +1, "TFC3": -1, "LNC": +1}
"""Perturbation name -> delta_i (+1: original should score higher; -1: perturbed should)."""


def perturbation_direction(name: str) -> int:
    """delta_i of perturbation ``name`` (Rosset eq. 4)."""
    return PERTURBATIONS[canonical_perturbation(name)]


def canonical_perturbation(name: str) -> str:
    """Normalize a perturbation name (case, ``_`` for ``-``); raise with close matches if unknown."""
    key = name.strip().upper().replace("_", "-")
    aliases = {"TFC1A": "TFC1-A", "TFC1D": "TFC1-D", "LNC1": "LNC"}
    key = aliases.get(key, key)
    if key not in PERTURBATIONS:
        import difflib

        close = difflib.get_close_matches(key, list(PERTURBATIONS), n=3, cutoff=0.4)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise ValueError(
            f"unknown perturbation {name!r}; expected one of {', '.join(PERTURBATIONS)}.{hint}"
        )
    return key


@dataclass(frozen=True, slots=True)
class PerturbedText:
    """Result of one perturbation: the new text, the axiom and its expected direction."""

    text: str
    perturbation: str
    direction: int
    changed_terms: tuple[str, ...]


@dataclass
class _Tokens:
    text: str  # normalized text the spans refer to
    spans: list[tuple[int, int]]  # surface token spans (all tokens, stopwords included)
    terms: list[str | None]  # analyzed term per surface token (None: stopword)


class DocumentPerturber:
    """Applies the perturbations of :data:`PERTURBATIONS` with one shared analyzer.

    Parameters
    ----------
    analyzer:
        The analyzer rankers and axioms use (decides query-term membership).
    vocabulary:
        Surface words LNC samples its noise terms from (e.g. :func:`build_vocabulary` over the
        training documents). Words that are stopwords or analyze to a query term are skipped.
    lnc_terms:
        ``k``, the number of noise terms LNC inserts.
    max_position:
        Insert only before one of the first ``max_position`` surface tokens, and let TFC1-D
        pick only query terms occurring among them. Set it to a word model's document
        truncation length (e.g. 128 for KNRM): an edit past the cut is invisible to the model,
        so the regularizer would ask for a score change the model cannot see (its hinge term
        is then a constant with no gradient). ``None``: anywhere.
    """

    def __init__(
        self,
        analyzer: Analyzer,
        vocabulary: Sequence[str] = (),
        lnc_terms: int = 3,
        max_position: int | None = None,
    ) -> None:
        self.analyzer = analyzer
        self.vocabulary = list(vocabulary)
        self.lnc_terms = lnc_terms
        self.max_position = max_position

    # ------------------------------------------------------------------ helpers
    def _normalize(self, text: str) -> str:
        if self.analyzer.lowercase:
            return unicodedata.normalize("NFKC", text).lower()
        return text

    def _tokens(self, text: str) -> _Tokens:
        norm = self._normalize(text)
        an = self.analyzer
        if an.language == "zh":
            toks = an.tokenize(text)
            norm = " ".join(toks)
            spans = []
            pos = 0
            for t in toks:
                spans.append((pos, pos + len(t)))
                pos += len(t) + 1
        else:
            spans = [m.span() for m in re.finditer(an.token_pattern, norm)]
            toks = [norm[s:e] for s, e in spans]
        sw = an.stopword_set
        stems = an.stem([t for t in toks if t not in sw])
        it = iter(stems)
        terms: list[str | None] = [None if t in sw else next(it) for t in toks]
        return _Tokens(norm, spans, terms)

    def query_terms(self, query: str) -> dict[str, str]:
        """Analyzed query term -> one surface form of it (first occurrence), stopwords dropped."""
        toks = self._tokens(query)
        out: dict[str, str] = {}
        for (s, e), term in zip(toks.spans, toks.terms, strict=True):
            if term is not None and term not in out:
                out[term] = toks.text[s:e]
        return out

    def _insert(self, tokens: _Tokens, words: Sequence[str], rng: np.random.Generator) -> str:
        """Insert each word at an independently drawn token boundary (0..n tokens)."""
        text = tokens.text
        n = len(tokens.spans)
        hi = n if self.max_position is None else min(n, max(self.max_position - 1, 0))
        slots = rng.integers(0, hi + 1, size=len(words))
        # insert right-to-left so earlier offsets stay valid; equal slots keep draw order
        order = sorted(range(len(words)), key=lambda i: (slots[i], i), reverse=True)
        for i in order:
            slot = int(slots[i])
            at = tokens.spans[slot][0] if slot < n else len(text)
            left = "" if at == 0 or text[at - 1].isspace() else " "
            text = f"{text[:at]}{left}{words[i]} {text[at:]}"
        return text

    # ------------------------------------------------------------------ perturbations
    def perturb(
        self, query: str, document: str, name: str, rng: np.random.Generator
    ) -> PerturbedText | None:
        """Apply perturbation ``name``; ``None`` when it does not apply to this pair.

        TFC1-A needs a non-stopword query term, TFC1-D a query term present in the document,
        TFC3 a query term absent from it, LNC a vocabulary word that is not a query term.
        """
        name = canonical_perturbation(name)
        direction = PERTURBATIONS[name]
        qterms = self.query_terms(query)
        if not qterms and name != "LNC":
            return None
        doc = self._tokens(document)
        present = {t for t in doc.terms if t is not None}
        if name == "TFC1-A":
            keys = sorted(qterms)
            term = keys[int(rng.integers(len(keys)))]
            return PerturbedText(self._insert(doc, [qterms[term]], rng), name, direction, (term,))
        if name == "TFC3":
            keys = sorted(t for t in qterms if t not in present)
            if not keys:
                return None
            term = keys[int(rng.integers(len(keys)))]
            return PerturbedText(self._insert(doc, [qterms[term]], rng), name, direction, (term,))
        if name == "TFC1-D":
            # a term whose every occurrence is past the visible window would change nothing the
            # model sees: pick among the terms with an occurrence inside it
            visible = doc.terms if self.max_position is None else doc.terms[: self.max_position]
            keys = sorted(t for t in qterms if t in set(visible) and t is not None)
            if not keys:
                return None
            term = keys[int(rng.integers(len(keys)))]
            text = doc.text
            for (s, e), t in zip(reversed(doc.spans), reversed(doc.terms), strict=True):
                if t == term:
                    # drop the word and, after a space or at the start, the spaces after it
                    if s == 0 or text[s - 1].isspace():
                        while e < len(text) and text[e].isspace():
                            e += 1
                    text = text[:s] + text[e:]
            return PerturbedText(text, name, direction, (term,))
        # LNC
        words = self._noise_words(set(qterms), self.lnc_terms, rng)
        if not words:
            return None
        terms = tuple(self.analyzer.analyze(w)[0] for w in words)
        return PerturbedText(self._insert(doc, words, rng), name, direction, terms)

    def _noise_words(self, qterms: set[str], k: int, rng: np.random.Generator) -> list[str]:
        vocab = self.vocabulary
        if not vocab or k <= 0:
            return []
        out: list[str] = []
        # rejection sampling: query terms are a vanishing fraction of a real vocabulary
        for _ in range(20 * k):
            w = vocab[int(rng.integers(len(vocab)))]
            a = self.analyzer.analyze(w)
            if len(a) == 1 and a[0] not in qterms:
                out.append(self._normalize(w))
                if len(out) == k:
                    break
        return out

    def perturb_random(
        self,
        query: str,
        document: str,
        names: Sequence[str],
        rng: np.random.Generator,
    ) -> PerturbedText | None:
        """Draw a perturbation uniformly from ``names`` and apply it (``None`` if inapplicable)."""
        name = names[int(rng.integers(len(names)))]
        return self.perturb(query, document, name, rng)


def build_vocabulary(
    texts: Sequence[str], analyzer: Analyzer, max_words: int = 50_000, min_count: int = 2
) -> list[str]:
    """Surface words for LNC noise: non-stopword single-token words seen ``min_count`` times.

    Sorted by frequency (most frequent first, ties alphabetical) and cut at ``max_words``.
    """
    from collections import Counter

    counts: Counter[str] = Counter()
    sw = analyzer.stopword_set
    for text in texts:
        counts.update(t for t in analyzer.tokenize(text) if t not in sw and not t.isdigit())
    words = [w for w, c in counts.items() if c >= min_count]
    words.sort(key=lambda w: (-counts[w], w))
    return words[:max_words]

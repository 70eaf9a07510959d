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

The original surface text is edited in place: only the inserted or deleted word occurrences
change, everything else (case, punctuation, spacing, unicode) stays byte-identical, so a cased
or subword model (cross-encoders, MiniLM) sees the original document plus exactly the axiom's
edit, while ``analyzer.analyze(perturbed)`` equals the analyzed original with exactly the edit
applied. Tokens are found on the analyzer's normalized text (NFKC + lowercasing, as the analyzer
sees it) and mapped back to the original characters; :attr:`PerturbedText.edits` records each
change. An inserted query term takes the document's own spelling of it when the document has
one, else the query's. (Before this, perturbed documents were NFKC-normalized and lowercased
while originals were scored raw: a confound for any cased model.)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from axiomatic._suggest import suggest
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
        raise ValueError(
            f"unknown perturbation {name!r}{suggest(key, PERTURBATIONS, cutoff=0.4)}; "
            f"expected one of {', '.join(PERTURBATIONS)}"
        )
    return key


Edit = tuple[int, str, str]
"""``(position, removed, inserted)`` in the original text: ``original[position:position +
len(removed)]`` (``removed``) was replaced by ``inserted``."""


@dataclass(frozen=True, slots=True)
class PerturbedText:
    """Result of one perturbation: the new text, the axiom and its expected direction.

    ``edits`` lists the changes in the original text, in increasing position; applying them
    (:func:`apply_edits`) to the original gives ``text``, and every character outside them is
    the original's.
    """

    text: str
    perturbation: str
    direction: int
    changed_terms: tuple[str, ...]
    edits: tuple[Edit, ...] = ()


def apply_edits(original: str, edits: Sequence[Edit]) -> str:
    """``original`` with ``edits`` (non-overlapping, any order) applied."""
    out = original
    for pos, removed, inserted in sorted(edits, key=lambda e: e[0], reverse=True):
        if out[pos : pos + len(removed)] != removed:
            raise ValueError(f"edit at {pos} expects {removed!r}, text has a different span")
        out = out[:pos] + inserted + out[pos + len(removed) :]
    return out


@dataclass
class _Tokens:
    text: str  # the original text the spans refer to
    spans: list[tuple[int, int]]  # surface token spans in ``text`` (stopwords included)
    terms: list[str | None]  # analyzed term per surface token (None: stopword)
    exact: list[bool]  # the span covers exactly the token (False: inside one normalized char)


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

    def _aligned(self, text: str) -> tuple[str, list[int] | None]:
        """The analyzer's normalized text and, per normalized character, the offset in ``text``
        of the character cluster it came from (``None``: the identity, e.g. ASCII text).

        Normalizing cluster by cluster (a character and the combining marks after it) keeps the
        correspondence; it equals the analyzer's whole-text normalization except in rare
        context-dependent cases (Greek final sigma), which :meth:`_tokens` checks.
        """
        if not self.analyzer.lowercase:
            return text, None
        if text.isascii():
            return text.lower(), None  # the analyzer skips NFKC on ASCII; lower() keeps lengths
        if unicodedata.is_normalized("NFKC", text):
            low = text.lower()
            if len(low) == len(text):  # every character lowered to one character: identity
                return low, None
        parts: list[str] = []
        offsets: list[int] = []
        i, n = 0, len(text)
        while i < n:
            j = i + 1
            while j < n and unicodedata.combining(text[j]):
                j += 1
            part = unicodedata.normalize("NFKC", text[i:j]).lower()
            parts.append(part)
            offsets.extend([i] * len(part))
            i = j
        return "".join(parts), offsets

    def _tokens(self, text: str) -> _Tokens | None:
        """Tokens of ``text`` with their spans in ``text`` itself; ``None`` in the rare case
        where the spans cannot be matched to the analyzer's tokens."""
        an = self.analyzer
        norm, offsets = self._aligned(text)
        if an.language == "zh":
            whole = an.tokenize(text)
            spans = []
            pos = 0
            for t in whole:  # jieba pieces are substrings of the normalized text, in order
                s = norm.find(t, pos)
                if s < 0:
                    return None
                spans.append((s, s + len(t)))
                pos = s + len(t)
        else:
            spans = [m.span() for m in re.finditer(an.token_pattern, norm)]
            # ``norm`` is the analyzer's own text unless clusters were normalized one by one
            whole = [norm[s:e] for s, e in spans] if offsets is None else an.tokenize(text)
        if len(spans) != len(whole):
            return None
        if offsets is None:
            raw_spans, exact = spans, [True] * len(spans)
        else:
            m = len(norm)

            def start(k: int) -> int:
                return offsets[k] if k < m else len(text)

            raw_spans, exact = [], []
            for s, e in spans:
                raw_spans.append((start(s), start(e)))
                # the token covers whole clusters: it starts and ends at cluster boundaries
                exact.append(
                    (s == 0 or offsets[s - 1] != offsets[s])
                    and (e == m or offsets[e] != offsets[e - 1])
                )
        sw = an.stopword_set
        stems = an.stem([t for t in whole if t not in sw])
        it = iter(stems)
        terms: list[str | None] = [None if t in sw else next(it) for t in whole]
        return _Tokens(text, raw_spans, terms, exact)

    def query_terms(self, query: str) -> dict[str, str]:
        """Analyzed query term -> one surface form of it (first occurrence), stopwords dropped."""
        toks = self._tokens(query)
        if toks is None:  # pragma: no cover - pathological unicode: fall back to analyzed forms
            return {t: t for t in self.analyzer.analyze(query)}
        norm = self.analyzer.tokenize(query)
        out: dict[str, str] = {}
        for k, ((s, e), term) in enumerate(zip(toks.spans, toks.terms, strict=True)):
            if term is not None and term not in out:
                out[term] = query[s:e] if toks.exact[k] else norm[k]
        return out

    @staticmethod
    def _spelling(tokens: _Tokens, term: str, fallback: str) -> str:
        """The document's own spelling of ``term`` (first exact occurrence), else ``fallback``."""
        for (s, e), t, ok in zip(tokens.spans, tokens.terms, tokens.exact, strict=True):
            if t == term and ok:
                return tokens.text[s:e]
        return fallback

    def _insert(
        self, tokens: _Tokens, words: Sequence[str], rng: np.random.Generator
    ) -> tuple[str, tuple[Edit, ...]]:
        """Insert each word at an independently drawn token boundary (0..n tokens), in place."""
        text = tokens.text
        n = len(tokens.spans)
        hi = n if self.max_position is None else min(n, max(self.max_position - 1, 0))
        slots = rng.integers(0, hi + 1, size=len(words))
        # equal slots keep draw order: the earlier draw ends up first in the text
        edits: dict[int, str] = {}
        for i in sorted(range(len(words)), key=lambda i: (slots[i], i)):
            slot = int(slots[i])
            at = tokens.spans[slot][0] if slot < n else len(text)
            left = "" if at == 0 or text[at - 1].isspace() else " "
            prev = edits.get(at, "")
            # consecutive insertions at one boundary are separated by the previous one's space
            edits[at] = prev + (f"{left}{words[i]} " if not prev else f"{words[i]} ")
        return apply_edits(text, [(at, "", ins) for at, ins in edits.items()]), tuple(
            (at, "", edits[at]) for at in sorted(edits)
        )

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
        if doc is None:  # pragma: no cover - spans not matchable (pathological unicode)
            return None
        present = {t for t in doc.terms if t is not None}
        if name in ("TFC1-A", "TFC3"):
            keys = sorted(qterms if name == "TFC1-A" else (t for t in qterms if t not in present))
            if not keys:
                return None
            term = keys[int(rng.integers(len(keys)))]
            word = self._spelling(doc, term, qterms[term])
            text, edits = self._insert(doc, [word], rng)
            return PerturbedText(text, name, direction, (term,), edits)
        if name == "TFC1-D":
            # a term whose every occurrence is past the visible window would change nothing the
            # model sees: pick among the terms with an occurrence inside it; a term with an
            # occurrence inside one normalized character (e.g. the 1 of "½") cannot be deleted
            # exactly and is not picked
            visible = doc.terms if self.max_position is None else doc.terms[: self.max_position]
            inexact = {t for t, ok in zip(doc.terms, doc.exact, strict=True) if not ok}
            keys = sorted(
                t for t in qterms if t in set(visible) and t is not None and t not in inexact
            )
            if not keys:
                return None
            term = keys[int(rng.integers(len(keys)))]
            text = doc.text
            cuts: list[Edit] = []
            for (s, e), t in zip(doc.spans, doc.terms, strict=True):
                if t == term:
                    # drop the word and, after a space or at the start, the spaces after it
                    if s == 0 or text[s - 1].isspace():
                        while e < len(text) and text[e].isspace():
                            e += 1
                    if cuts and s < cuts[-1][0] + len(cuts[-1][1]):  # pragma: no cover
                        s = cuts[-1][0] + len(cuts[-1][1])
                    cuts.append((s, text[s:e], ""))
            return PerturbedText(apply_edits(text, cuts), name, direction, (term,), tuple(cuts))
        # LNC
        words = self._noise_words(set(qterms), self.lnc_terms, rng)
        if not words:
            return None
        terms = tuple(self.analyzer.analyze(w)[0] for w in words)
        text, edits = self._insert(doc, words, rng)
        return PerturbedText(text, name, direction, terms, edits)

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

r"""ACRank's data augmentation (Bo et al. 2023, section 4.1): TFC-A and TFC-D.

Given a query :math:`q` and a relevant document :math:`d_{pos}`:

* **TFC-A** inserts query terms at the *front* of the document, each (distinct, non-stopword)
  query term independently with probability :math:`p`; the result :math:`d_{pos}^+` has more
  query-term occurrences and should be *more* relevant (TFC1, relaxed: the length grows too).
* **TFC-D** deletes query-term occurrences from the document, each occurrence independently
  with probability :math:`p`; the result :math:`d_{pos}^-` should be *less* relevant.
* **TFC-A&D** makes both.

Query-term matching is done after stopword removal (English: the project's list, the same role
as the paper's nltk list; Chinese: jieba segmentation and ``resources/acrank_stopwords_zh.txt``,
a subset in the style of the HIT list the paper uses). Words are compared lowercased and
unstemmed, as in the paper. These are *not* Rosset et al.'s TFC1-A / TFC1-D
(:mod:`axiomatic.perturb.perturbations`: one term at a random position / all occurrences of one
term): both families are kept, named apart.

Edits are made on the original surface text: TFC-A prepends the query's own spelling of the
terms, TFC-D removes the matched spans (and one adjacent run of spaces); nothing else changes.

Truncation: an edit the model cannot see teaches nothing. ``max_position`` (words for English,
characters for Chinese, where each character is one BERT word piece) limits TFC-D to
occurrences that start inside the visible prefix; TFC-A's insertions are at the front and
always visible. An edit that changes nothing (no term drawn, no visible occurrence) returns
``None`` and is counted in :class:`AugmentStats`, never passed off as a perturbation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import numpy as np

from axiomatic._suggest import suggest

ACRANK_RULES = ("TFC-A", "TFC-D", "TFC-A&D")
"""ACRank augmentation rules (``none`` means no augmentation)."""

_WORD = re.compile(r"\w+(?:['\u2019]\w+)*", re.UNICODE)


def canonical_rule(rule: str) -> str:
    """``"tfc-a"``, ``"TFC_A&D"``, ``"a&d"``, ``"none"`` -> canonical names; unknown names raise
    ``ValueError`` with close matches (Rosset's ``TFC1-A`` / ``TFC1-D`` are named apart)."""
    key = str(rule).strip().upper().replace("_", "-").replace(" ", "")
    if key in ("", "NONE", "ORIGINAL"):
        return "none"
    aliases = {"A": "TFC-A", "D": "TFC-D", "A&D": "TFC-A&D", "AD": "TFC-A&D", "TFC-AD": "TFC-A&D"}
    key = aliases.get(key, key)
    if key in ACRANK_RULES:
        return key
    expected = f"expected one of {', '.join(ACRANK_RULES)} or none"
    if key in ("TFC1-A", "TFC1-D"):
        raise ValueError(
            f"unknown ACRank rule {rule!r}; {expected} ({key} is Rosset et al.'s one-term "
            "perturbation: use it with ar(...) or perturb(...); ACRank's rules are "
            "TFC-A / TFC-D / TFC-A&D)"
        )
    # the upper-cased key, ignoring case where nothing matches ("NONEE" is close to "none")
    hint = suggest(key, (*ACRANK_RULES, "none"), n=2, loose=True)
    raise ValueError(f"unknown ACRank rule {rule!r}{hint}; {expected}")


def check_probability(p: float, what: str = "p") -> float:
    """``p`` as a float in [0, 1] (a clear error otherwise)."""
    try:
        value = float(p)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number in [0, 1] (got {p!r})") from None
    if not 0.0 <= value <= 1.0 or value != value:
        raise ValueError(
            f"{what} must be a probability in [0, 1] (got {p!r}); the paper uses 0.1-1.0"
        )
    return value


@cache
def acrank_stopwords(language: str) -> frozenset[str]:
    """Stopwords for ACRank's matching: English -> the project list; Chinese -> the shipped
    HIT-style list; other languages -> none."""
    if language == "zh":
        text = (
            resources.files("axiomatic.resources")
            .joinpath("acrank_stopwords_zh.txt")
            .read_text(encoding="utf-8")
        )
        return frozenset(w.strip() for w in text.splitlines() if w.strip() and w[0] != "#")
    from axiomatic.text.analyzer import load_stopwords

    return load_stopwords(language)


def require_jieba() -> object:
    try:
        import jieba
    except ImportError as exc:
        raise ImportError(
            "ACRank's Chinese augmentation segments words with jieba, a dependency of "
            "axiomatic-ir that is missing here: pip install jieba"
        ) from exc
    return jieba


@dataclass
class AugmentStats:
    """Counts of what augmentation did (reported by the trainer and the experiment)."""

    documents: int = 0
    all_stopword_queries: int = 0
    no_query_term: int = 0  # TFC-D: no (visible) occurrence of a query term in the document
    tfc_a_applied: int = 0
    tfc_a_nothing_drawn: int = 0
    tfc_d_applied: int = 0
    tfc_d_nothing_drawn: int = 0
    inserted_terms: int = 0
    deleted_occurrences: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ACRankEdit:
    """An edited document: ``text``, which ``rule`` made it, the ``terms`` inserted (TFC-A) or
    the occurrences deleted (TFC-D), and ``direction`` (+1: more relevant than the original)."""

    text: str
    rule: str
    terms: tuple[str, ...]
    direction: int


@dataclass(frozen=True)
class ACRankAugmentation:
    """The result for one (query, document): ``plus`` (TFC-A) and/or ``minus`` (TFC-D)."""

    plus: ACRankEdit | None = None
    minus: ACRankEdit | None = None


@dataclass
class ACRankAugmenter:
    """TFC-A / TFC-D / TFC-A&D with probability ``p`` (see the module docstring).

    ``language``: ``"en"`` (regex words) or ``"zh"`` (jieba; needs ``pip install jieba``).
    ``stopwords``: override the list (``None``: :func:`acrank_stopwords`). ``max_position``:
    the visible prefix in words (English) or characters (Chinese); ``None`` = no limit.
    Random draws come from the ``rng`` passed to :meth:`augment` (seeded by the caller).
    """

    rule: str = "TFC-A&D"
    p: float = 0.5
    language: str = "en"
    stopwords: frozenset[str] | None = None
    max_position: int | None = None
    stats: AugmentStats = field(default_factory=AugmentStats)

    def __post_init__(self) -> None:
        self.rule = canonical_rule(self.rule)
        self.p = check_probability(self.p)
        self.language = (self.language or "en").lower()
        if self.language.startswith("zh"):
            self.language = "zh"
            require_jieba()  # fail now, not in the middle of training
        if self.stopwords is None:
            self.stopwords = acrank_stopwords(self.language)
        if self.max_position is not None and int(self.max_position) < 1:
            raise ValueError(f"max_position must be >= 1 or None (got {self.max_position!r})")

    # ------------------------------------------------------------------ tokens
    def tokens(self, text: str) -> list[tuple[str, int, int]]:
        """``(lowercased token, start, end)`` spans of ``text`` (stopwords kept)."""
        if self.language == "zh":
            jieba = require_jieba()
            return [
                (w.lower(), s, e)
                for w, s, e in jieba.tokenize(text)  # type: ignore[attr-defined]
                if w.strip()
            ]
        return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]

    def query_terms(self, query: str) -> list[tuple[str, str]]:
        """Distinct non-stopword query terms in query order: ``(key, surface spelling)``."""
        sw = self.stopwords or frozenset()
        seen: dict[str, str] = {}
        for key, s, e in self.tokens(query):
            if key in sw or key in seen or not any(ch.isalnum() for ch in key):
                continue
            seen[key] = query[s:e]
        return list(seen.items())

    # ------------------------------------------------------------------ rules
    def tfc_a(
        self, query: str, text: str, rng: np.random.Generator, terms: Sequence[tuple[str, str]]
    ) -> ACRankEdit | None:
        """Prepend each query term with probability ``p`` (None when none is drawn)."""
        if not terms:
            return None
        draw = rng.random(len(terms)) < self.p
        picked = [surface for (_, surface), keep in zip(terms, draw, strict=True) if keep]
        if not picked:
            self.stats.tfc_a_nothing_drawn += 1
            return None
        sep = "" if self.language == "zh" else " "
        self.stats.tfc_a_applied += 1
        self.stats.inserted_terms += len(picked)
        return ACRankEdit(sep.join(picked) + sep + text, "TFC-A", tuple(picked), +1)

    def tfc_d(
        self, query: str, text: str, rng: np.random.Generator, terms: Sequence[tuple[str, str]]
    ) -> ACRankEdit | None:
        """Delete each visible occurrence of a query term with probability ``p``."""
        keys = {k for k, _ in terms}
        if not keys:
            return None
        toks = self.tokens(text)
        spans = []
        for i, (key, s, e) in enumerate(toks):
            if key not in keys:
                continue
            limit = self.max_position
            pos = s if self.language == "zh" else i
            if limit is not None and pos >= limit:
                continue
            spans.append((s, e))
        if not spans:
            self.stats.no_query_term += 1
            return None
        draw = rng.random(len(spans)) < self.p
        cut = [sp for sp, keep in zip(spans, draw, strict=True) if keep]
        if not cut:
            self.stats.tfc_d_nothing_drawn += 1
            return None
        out, last = [], 0
        for s, e in cut:
            if s < last:  # overlapping span (cannot happen with these tokenizers)
                continue
            out.append(text[last:s])
            # swallow the spaces after the word (or before it at the very end)
            while e < len(text) and text[e] in " \t":
                e += 1
            last = e
        out.append(text[last:])
        new = "".join(out)
        if self.language != "zh" and new.endswith((" ", "\t")):
            new = new.rstrip(" \t")
        self.stats.tfc_d_applied += 1
        self.stats.deleted_occurrences += len(cut)
        return ACRankEdit(new, "TFC-D", tuple(text[s:e] for s, e in cut), -1)

    def augment(self, query: str, text: str, rng: np.random.Generator) -> ACRankAugmentation:
        """Apply the configured rule(s) to one relevant document."""
        self.stats.documents += 1
        if self.rule == "none":
            return ACRankAugmentation()
        terms = self.query_terms(query)
        if not terms:
            self.stats.all_stopword_queries += 1
            return ACRankAugmentation()
        plus = self.tfc_a(query, text, rng, terms) if self.rule in ("TFC-A", "TFC-A&D") else None
        minus = self.tfc_d(query, text, rng, terms) if self.rule in ("TFC-D", "TFC-A&D") else None
        return ACRankAugmentation(plus, minus)


def query_term_count(augmenter: ACRankAugmenter, query: str, text: str) -> int:
    """Occurrences of the query's non-stopword terms in ``text`` (used by tests and reports)."""
    keys = {k for k, _ in augmenter.query_terms(query)}
    return sum(1 for k, _, _ in augmenter.tokens(text) if k in keys)

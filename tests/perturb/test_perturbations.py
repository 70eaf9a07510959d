"""Each perturbation does exactly what its axiom says, on analyzed counts and lengths."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axiomatic.perturb import (
    PERTURBATIONS,
    DocumentPerturber,
    build_vocabulary,
    canonical_perturbation,
    perturbation_direction,
)
from axiomatic.text.analyzer import Analyzer, default_analyzer

# stems collide on purpose (retrieval / retrieving / retrieved), stopwords and mixed case included
WORDS = [
    "retrieval",
    "Retrieving",
    "retrieved",
    "neural",
    "Networks",
    "network",
    "the",
    "of",
    "and",
    "axiom",
    "axioms",
    "ranking",
    "ranked",
    "cat",
    "dogs",
    "dog",
    "ocean",
    "a",
    "is",
    "BM25",
    "café",
    "naïve",
    "x2",
]
SEPS = [" ", "  ", ", ", ". ", "; ", " - ", "\n", "(", ") "]

ANALYZER = default_analyzer("en")
VOCAB = build_vocabulary(
    ["zebra quantum lattice violin harbor meadow tundra glacier orbit prism " * 2], ANALYZER
)


@st.composite
def texts(draw: st.DrawFn, min_words: int = 0, max_words: int = 30) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words))
    seps = draw(st.lists(st.sampled_from(SEPS), min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps, strict=True)).strip()


def counts(text: str) -> Counter[str]:
    return Counter(ANALYZER.analyze(text))


def qterms(query: str) -> set[str]:
    return set(ANALYZER.analyze(query))


PERTURBER = DocumentPerturber(ANALYZER, VOCAB, lnc_terms=3)


@settings(max_examples=150, deadline=None)
@given(query=texts(1, 4), doc=texts(), seed=st.integers(0, 2**32 - 1))
def test_tfc1_a_adds_exactly_one_query_term(query: str, doc: str, seed: int) -> None:
    res = PERTURBER.perturb(query, doc, "TFC1-A", np.random.default_rng(seed))
    if not qterms(query):
        assert res is None
        return
    assert res is not None and res.direction == -1
    (term,) = res.changed_terms
    assert term in qterms(query)
    expected = counts(doc)
    expected[term] += 1
    assert counts(res.text) == expected
    assert len(ANALYZER.analyze(res.text)) == len(ANALYZER.analyze(doc)) + 1


@settings(max_examples=150, deadline=None)
@given(query=texts(1, 4), doc=texts(), seed=st.integers(0, 2**32 - 1))
def test_tfc1_d_deletes_every_occurrence_of_one_query_term(query: str, doc: str, seed: int) -> None:
    res = PERTURBER.perturb(query, doc, "TFC1-D", np.random.default_rng(seed))
    before = counts(doc)
    present = qterms(query) & set(before)
    if not present:
        assert res is None
        return
    assert res is not None and res.direction == +1
    (term,) = res.changed_terms
    assert term in present
    expected = Counter(before)
    removed = expected.pop(term)
    assert counts(res.text) == expected
    assert len(ANALYZER.analyze(res.text)) == len(ANALYZER.analyze(doc)) - removed


@settings(max_examples=150, deadline=None)
@given(query=texts(1, 4), doc=texts(), seed=st.integers(0, 2**32 - 1))
def test_tfc3_adds_one_absent_query_term(query: str, doc: str, seed: int) -> None:
    res = PERTURBER.perturb(query, doc, "TFC3", np.random.default_rng(seed))
    before = counts(doc)
    absent = qterms(query) - set(before)
    if not absent:
        assert res is None
        return
    assert res is not None and res.direction == -1
    (term,) = res.changed_terms
    assert term in absent
    expected = Counter(before)
    expected[term] = 1
    assert counts(res.text) == expected


@settings(max_examples=150, deadline=None)
@given(query=texts(0, 4), doc=texts(), seed=st.integers(0, 2**32 - 1))
def test_lnc_adds_k_non_query_terms(query: str, doc: str, seed: int) -> None:
    res = PERTURBER.perturb(query, doc, "LNC", np.random.default_rng(seed))
    assert res is not None and res.direction == +1
    assert len(res.changed_terms) == 3
    assert not set(res.changed_terms) & qterms(query)
    expected = counts(doc) + Counter(res.changed_terms)
    assert counts(res.text) == expected
    assert len(ANALYZER.analyze(res.text)) == len(ANALYZER.analyze(doc)) + 3


@settings(max_examples=100, deadline=None)
@given(
    query=texts(1, 4),
    doc=texts(1),
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(["TFC1-A", "TFC3", "LNC"]),
)
def test_insertions_keep_the_surface_tokens_in_order(
    query: str, doc: str, seed: int, name: str
) -> None:
    """The perturbed text is the original (normalized) text with whole words inserted."""
    res = PERTURBER.perturb(query, doc, name, np.random.default_rng(seed))
    if res is None:
        return
    orig = ANALYZER.tokenize(doc)
    new = ANALYZER.tokenize(res.text)
    assert len(new) == len(orig) + (3 if name == "LNC" else 1)
    it = iter(new)
    assert all(tok in it for tok in orig)  # orig is a subsequence of new


def test_stemmed_membership_and_readable_text() -> None:
    rng = np.random.default_rng(0)
    res = PERTURBER.perturb(
        "retrieval models", "Retrieving documents, we retrieved them!", "TFC1-D", rng
    )
    assert res is not None
    assert res.text == "documents, we them!"
    assert ANALYZER.analyze(res.text) == ANALYZER.analyze("documents we them")


def test_same_seed_same_perturbation() -> None:
    q, d = "neural ranking", "a neural network for ranking documents in the ocean of text"
    for name in PERTURBATIONS:
        a = PERTURBER.perturb(q, d, name, np.random.default_rng(5))
        b = PERTURBER.perturb(q, d, name, np.random.default_rng(5))
        assert a == b


def test_max_position_keeps_insertions_visible() -> None:
    p = DocumentPerturber(ANALYZER, VOCAB, max_position=5)
    doc = " ".join(["filler"] * 50)
    for seed in range(30):
        res = p.perturb("ocean", doc, "TFC1-A", np.random.default_rng(seed))
        assert res is not None
        assert ANALYZER.tokenize(res.text).index("ocean") < 5


def test_directions_and_names() -> None:
    assert perturbation_direction("tfc1_a") == -1
    assert perturbation_direction("TFC1-D") == +1
    assert perturbation_direction("TFC3") == -1
    assert perturbation_direction("lnc1") == +1
    with pytest.raises(ValueError, match=r"^unknown perturbation 'TFC4' \(did you mean 'TFC3'"):
        canonical_perturbation("TFC4")


def test_lnc_without_vocabulary_does_not_apply() -> None:
    p = DocumentPerturber(ANALYZER, [])
    assert p.perturb("cat", "a dog", "LNC", np.random.default_rng(0)) is None


def test_analyzer_without_stemming_decides_membership_on_surface_forms() -> None:
    plain = Analyzer(stemmer=None)
    p = DocumentPerturber(plain)
    res = p.perturb(
        "retrieval", "retrieving retrieval retrieval", "TFC1-D", np.random.default_rng(0)
    )
    assert res is not None
    assert plain.analyze(res.text) == ["retrieving"]


def test_tfc1_d_picks_a_term_visible_inside_the_window() -> None:
    p = DocumentPerturber(ANALYZER, VOCAB, max_position=5)
    doc = "ocean " + " ".join(["filler"] * 20) + " neural"
    for seed in range(20):
        res = p.perturb("neural ocean", doc, "TFC1-D", np.random.default_rng(seed))
        assert res is not None and res.changed_terms == ("ocean",)
    assert p.perturb("neural", doc, "TFC1-D", np.random.default_rng(0)) is None

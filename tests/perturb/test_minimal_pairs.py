"""Minimal pairs for activation patching (issue 28, item 1): each axiom's construction by hand."""

from __future__ import annotations

import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.perturb.minimal_pairs import MINIMAL_AXIOMS, minimal_pairs, parse_minimal_axioms
from axiomatic.text.analyzer import load_stopwords


def _ds() -> Dataset:
    docs = {
        "d1": Document("d1", "The heron nests near water and eats fish."),
        "d2": Document("d2", "Grey herons nest in colonies near lakes."),
        "d3": Document("d3", "Winter lakes freeze over and herons leave."),
    }
    queries = {"q1": Query("q1", "where do herons nest"), "q2": Query("q2", "the")}
    return Dataset("t", queries, docs, candidates={"q1": ["d1", "d2", "d3"], "q2": ["d1"]})


def _by(pairs, axiom):
    return [p for p in pairs if p.axiom == axiom]


def test_tfc1_injection_appends_a_term_against_filler() -> None:
    pairs = _by(minimal_pairs(_ds(), "TFC1-I", depth=3), "TFC1-I")
    assert [p.doc_id for p in pairs] == ["d1", "d2", "d3"]  # q2 is all stopwords: no pair
    for p in pairs:
        text = _ds().documents[p.doc_id].text
        assert p.term in ("herons", "nest")
        assert p.perturbed == f"{text} {p.term}" and p.baseline == f"{text} a"
        assert p.perturbed[slice(*p.span)] == p.term
        assert p.baseline[slice(*p.baseline_span)] == "a"


def test_pieces_pad_the_baseline_to_the_terms_length() -> None:
    pieces = {"herons": 3, "nest": 2, "a": 1}
    pairs = minimal_pairs(_ds(), "TFC1-I", depth=1, pieces=lambda w: pieces.get(w, 1))
    (p,) = pairs
    assert p.baseline.endswith(" " + " ".join(["a"] * pieces[p.term]))
    with pytest.raises(ValueError, match="one word piece"):
        minimal_pairs(_ds(), "TFC1-I", pieces=lambda w: 2)


def test_tfc1_replacement_swaps_one_non_query_word_of_equal_pieces() -> None:
    pairs = _by(minimal_pairs(_ds(), "TFC1-R", depth=3, seed=4), "TFC1-R")
    assert {p.doc_id for p in pairs} == {"d1", "d2", "d3"}
    for p in pairs:
        assert p.baseline == _ds().documents[p.doc_id].text
        a, b = p.baseline.split(), p.perturbed.split()
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        assert len(a) == len(b) and len(diff) == 1
        old = a[diff[0]]
        assert b[diff[0]] == p.term and old == p.replaced
        assert old.lower() not in {"herons", "nest"} and old.lower() not in load_stopwords("en")
        assert p.perturbed[slice(*p.span)] == p.term
        assert p.baseline[slice(*p.baseline_span)] == old
    # equal piece counts only: a term of 2 pieces never replaces a word of 1
    pairs = minimal_pairs(_ds(), "TFC1-R", depth=3, pieces=lambda w: 2 if w == "herons" else 1)
    assert all(p.term != "herons" for p in pairs)


def test_tdc_appends_the_rarest_term_against_the_commonest() -> None:
    # in the pool of q1 (d1, d2, d3) 'herons' occurs in d2 and d3, 'nest' in d2 only ('nests'
    # is another word): 'nest' is the more discriminative (fewer documents contain it)
    (p, *_) = minimal_pairs(_ds(), "TDC", depth=3)
    assert (p.term, p.replaced) == ("nest", "herons")
    text = _ds().documents[p.doc_id].text
    assert p.perturbed == f"{text} nest" and p.baseline == f"{text} herons"


def test_lnc2_doubles_against_as_many_fillers() -> None:
    (p,) = minimal_pairs(_ds(), "LNC2", depth=1)
    text = _ds().documents["d1"].text
    assert p.perturbed == f"{text} {text}"
    assert p.baseline == text + " " + " ".join(["a"] * len(text.split()))
    assert p.perturbed[slice(*p.span)] == text


def test_seeded_sample_and_independence() -> None:
    ds = _ds()
    full = minimal_pairs(ds, "all", depth=3, seed=1)
    again = minimal_pairs(ds, "all", depth=3, seed=1)
    assert full == again
    one = minimal_pairs(ds, "TFC1-R", depth=3, seed=1)
    assert one == _by(full, "TFC1-R")  # a pair does not depend on the other axioms drawn
    sub = minimal_pairs(ds, "TFC1-I", depth=3, seed=1, per_axiom=2)
    assert len(sub) == 2 and all(p in _by(full, "TFC1-I") for p in sub)


def test_names_are_checked() -> None:
    assert parse_minimal_axioms("all") == list(MINIMAL_AXIOMS)
    assert parse_minimal_axioms("tfc1-i, LNC2") == ["TFC1-I", "LNC2"]
    with pytest.raises(ValueError, match="did you mean"):
        parse_minimal_axioms("TFC1-X")
    with pytest.raises(ValueError, match="candidate lists"):
        minimal_pairs(Dataset("f", {}, {}), "all")

"""Minimal pairs for activation patching: each axiom's construction by hand."""

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


def test_every_field_of_each_axioms_pair() -> None:
    """One document, one query: each axiom's pair written out in full (ids, query, texts,
    spans, term and what it replaced), with word pieces from a map."""
    from axiomatic.perturb.minimal_pairs import MinimalPair

    docs = {"d": Document("d", "Owls hunt mice at night.  "), "e": Document("e", "Mice hide.")}
    ds = Dataset("t", {"q": Query("q", "owls mice")}, docs, candidates={"q": ["d", "e"]})
    pieces = {"owls": 2, "mice": 1, "hunt": 1, "at": 1, "night.": 2, "Owls": 2, "Mice": 1}

    def count(w: str) -> int:
        return pieces.get(w, pieces.get(w.lower(), 1))

    pairs = minimal_pairs(ds, "all", depth=1, seed=1, pieces=count)
    by = {p.axiom: p for p in pairs}
    body = "Owls hunt mice at night."
    t = by["TFC1-I"].term
    assert t == "owls"  # two pieces: two fillers
    assert by["TFC1-I"] == MinimalPair(
        "TFC1-I", "q", "d", "owls mice", body + " a" * pieces[t], f"{body} {t}",
        (len(body) + 1, len(body) + 1 + len(t)), (len(body) + 1, len(body) + 2 * pieces[t]),
        t, "a",
    )  # fmt: skip
    # TFC1-R: the only non-query non-stopword words are 'hunt' (1 piece) and 'night.' (not a
    # bare word); 'mice' (1 piece) can replace 'hunt', 'owls' (2 pieces) nothing
    r = by["TFC1-R"]
    assert r == MinimalPair(
        "TFC1-R", "q", "d", "owls mice", docs["d"].text, "Owls mice mice at night.  ",
        (5, 9), (5, 9), "mice", "hunt",
    )  # fmt: skip
    # TDC over the pool of d alone: both terms occur once -> no pair; with both documents in the
    # pool 'owls' occurs in 1, 'mice' in 2: 'owls' (2 pieces) against 'mice' + 1 filler
    assert "TDC" not in by
    (tdc,) = minimal_pairs(ds, "TDC", depth=2, pieces=count)[:1]
    assert tdc == MinimalPair(
        "TDC", "q", "d", "owls mice", f"{body} mice a", f"{body} owls",
        (len(body) + 1, len(body) + 5), (len(body) + 1, len(body) + 7), "owls", "mice",
    )  # fmt: skip
    n = 2 + 1 + 1 + 1 + 2  # word pieces of the body
    assert by["LNC2"] == MinimalPair(
        "LNC2", "q", "d", "owls mice", body + " a" * n, f"{body} {body}",
        (len(body) + 1, 2 * len(body) + 1), (len(body) + 1, len(body) + 2 * n), "", "a",
    )  # fmt: skip


def test_tdc_ranks_all_terms_by_document_frequency() -> None:
    docs = {
        "a": Document("a", "alpha beta gamma"),
        "b": Document("b", "beta gamma"),
        "c": Document("c", "gamma"),
    }
    q = {"q": Query("q", "gamma beta alpha delta")}
    ds = Dataset("t", q, docs, candidates={"q": ["a", "b", "c"]})
    (p, *_) = minimal_pairs(ds, "TDC", depth=3)
    # df: delta 0 (in no candidate), alpha 1, beta 2, gamma 3: the extremes are compared
    assert (p.term, p.replaced) == ("delta", "gamma")
    same = Dataset("t", {"q": Query("q", "beta gamma")}, {"b": docs["b"]}, candidates={"q": ["b"]})
    assert minimal_pairs(same, "TDC", depth=1) == []  # equal frequencies: no pair
    unseen = Dataset("t", {"q": Query("q", "zeta eta")}, {"b": docs["b"]}, candidates={"q": ["b"]})
    assert minimal_pairs(unseen, "TDC", depth=1) == []  # in no candidate: equal (0), no pair
    # three terms, two tied at the rare end: the extremes still differ, so a pair
    docs4 = {**docs, "d": Document("d", "omega gamma")}
    tied = Dataset("t", {"q": Query("q", "alpha omega gamma")}, docs4,
                   candidates={"q": ["a", "b", "c", "d"]})  # fmt: skip
    (p, *_) = minimal_pairs(tied, "TDC", depth=4)  # df: alpha 1, omega 1, gamma 4
    assert (p.term, p.replaced) == ("alpha", "gamma")


def test_defaults_queries_without_lists_and_stopword_only_queries() -> None:
    docs = {f"d{i}": Document(f"d{i}", f"word{chr(97 + i)} text here") for i in range(12)}
    queries = {
        "q0": Query("q0", "the of"),  # stopwords only, first: the others still get pairs
        "q1": Query("q1", "text words"),
        "q2": Query("q2", "here"),  # no candidate list
    }
    ds = Dataset("t", queries, docs, candidates={"q0": ["d0"], "q1": [f"d{i}" for i in range(12)]})
    pairs = minimal_pairs(ds)
    assert pairs == minimal_pairs(ds, "all", depth=10, seed=0)
    assert pairs != minimal_pairs(ds, "all", depth=10, seed=1)
    assert {p.query_id for p in pairs} == {"q1"}
    assert {p.doc_id for p in pairs} == {f"d{i}" for i in range(10)}
    unset = Dataset("t", queries, docs, candidates=ds.candidates, language="")
    assert minimal_pairs(unset) == pairs  # no language: English stopwords


def test_samples_are_seeded_and_without_repeats() -> None:
    docs = {f"d{i}": Document(f"d{i}", f"alpha w{i}x") for i in range(30)}
    ds = Dataset("t", {"q": Query("q", "alpha")}, docs, candidates={"q": list(docs)})
    a = minimal_pairs(ds, "TFC1-I", depth=30, per_axiom=25, seed=5)
    assert a == minimal_pairs(ds, "TFC1-I", depth=30, per_axiom=25, seed=5)
    assert len({p.doc_id for p in a}) == 25  # drawn without replacement
    assert a != minimal_pairs(ds, "TFC1-I", depth=30, per_axiom=25, seed=6)


def test_messages_name_the_problem() -> None:
    with pytest.raises(ValueError, match="depth must be >= 1"):
        minimal_pairs(_ds(), depth=0)
    with pytest.raises(
        ValueError, match=r"\(e\.g\. msmarco-dev-top20/test\) or give it a first stage$"
    ):
        minimal_pairs(Dataset("f", {}, {}), "all")
    with pytest.raises(ValueError, match="expected one of TFC1-I, TFC1-R, TDC, LNC2 "):
        parse_minimal_axioms("TFC9")
    with pytest.raises(ValueError, match="no axiom given; expected one or more of TFC1-I, TFC1-R"):
        parse_minimal_axioms(" , ")
    with pytest.raises(ValueError, match="filler 'xx' is 2 word pieces"):
        minimal_pairs(_ds(), filler="xx", pieces=lambda w: len(w))
    assert parse_minimal_axioms(["TDC", "lnc2"]) == ["TDC", "LNC2"]

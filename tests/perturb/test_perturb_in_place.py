"""Perturbations edit the original surface text in place: only the inserted or
deleted word occurrences change; case, punctuation, spacing and unicode stay byte-identical."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from axiomatic.perturb import DocumentPerturber, apply_edits, build_vocabulary
from axiomatic.text.analyzer import default_analyzer, parse_analyzer

# mixed case, accents (composed and decomposed), NFKC-changing forms (ligature, full-width),
# Greek with a final sigma, stems that collide, stopwords
WORDS = [
    "Retrieval",
    "retrieving",
    "RETRIEVED",
    "Neural",
    "networks",
    "The",
    "of",
    "and",
    "Axiom",
    "axioms",
    "Ranking",
    "cat",
    "Dogs",
    "dog",
    "Café",
    "nai\u0308ve",
    "\ufb01sh",  # 'ﬁsh'
    "fish",
    "\uff22\uff2d\uff12\uff15",  # full-width 'BM25'
    "BM25",
    "ΣΟΦΊΑΣ",
    "x2",
]
SEPS = [" ", "  ", ", ", ". ", "; ", " - ", "\n", "(", ") ", "\t"]
ANALYZERS = [default_analyzer("en"), parse_analyzer("thesis")]
VOCAB = build_vocabulary(["Zebra quantum lattice violin harbor meadow " * 2], ANALYZERS[0])


@st.composite
def texts(draw: st.DrawFn, min_words: int = 0, max_words: int = 25) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words))
    seps = draw(st.lists(st.sampled_from(SEPS), min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps, strict=True)).strip()


def undo(perturbed: str, edits) -> str:
    """Remove the edits from the perturbed text (positions shifted by the earlier edits)."""
    out, shift, pieces = perturbed, 0, []
    for pos, removed, inserted in sorted(edits):
        at = pos + shift
        assert perturbed[at : at + len(inserted)] == inserted
        pieces.append((at, inserted, removed))
        shift += len(inserted) - len(removed)
    for at, inserted, removed in reversed(pieces):
        out = out[:at] + removed + out[at + len(inserted) :]
    return out


@settings(max_examples=200, deadline=None)
@given(
    query=texts(1, 4),
    doc=texts(),
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(["TFC1-A", "TFC1-D", "TFC3", "LNC"]),
    which=st.integers(0, 1),
)
def test_removing_the_edit_gives_back_the_original_exactly(
    query: str, doc: str, seed: int, name: str, which: int
) -> None:
    an = ANALYZERS[which]
    res = DocumentPerturber(an, VOCAB).perturb(query, doc, name, np.random.default_rng(seed))
    if res is None:
        return
    assert res.edits
    assert apply_edits(doc, res.edits) == res.text
    assert undo(res.text, res.edits) == doc
    changed = Counter(an.analyze(" ".join(r or i for _, r, i in res.edits)))
    if name == "TFC1-D":
        (term,) = res.changed_terms
        assert all(i == "" for _, _, i in res.edits)
        assert set(changed) == {term}  # only occurrences of the term were removed
        assert Counter(an.analyze(res.text)) + changed == Counter(an.analyze(doc))
    else:
        assert all(r == "" for _, r, _ in res.edits)
        assert changed == Counter(res.changed_terms)
        assert Counter(an.analyze(res.text)) == Counter(an.analyze(doc)) + changed


def test_untouched_text_keeps_its_case_and_unicode() -> None:
    an = default_analyzer("en")
    p = DocumentPerturber(an, VOCAB)
    doc = "The Neural NETWORK ranks Café \ufb01sh; ΣΟΦΊΑΣ (BM25)."
    for name, query in [("TFC1-A", "ocean neural"), ("TFC3", "ocean"), ("LNC", "ocean")]:
        for seed in range(10):
            res = p.perturb(query, doc, name, np.random.default_rng(seed))
            assert res is not None
            assert undo(res.text, res.edits) == doc
            for part in ("The", "NETWORK", "Café", "\ufb01sh", "ΣΟΦΊΑΣ", "BM25"):
                assert part in res.text
    res = p.perturb("network", doc, "TFC1-D", np.random.default_rng(0))
    assert res is not None
    assert res.text == "The Neural ranks Café \ufb01sh; ΣΟΦΊΑΣ (BM25)."


def test_inserted_query_term_uses_the_documents_spelling() -> None:
    p = DocumentPerturber(default_analyzer("en"), VOCAB)
    res = p.perturb("neural", "Neural nets are Neural.", "TFC1-A", np.random.default_rng(1))
    assert res is not None
    (_, _, inserted) = res.edits[0]
    assert inserted.strip() == "Neural"
    res = p.perturb("Ocean", "Neural nets.", "TFC3", np.random.default_rng(1))
    assert res is not None and res.edits[0][2].strip() == "Ocean"  # the query's spelling

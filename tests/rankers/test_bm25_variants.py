"""BM25 variants: each one's formula by hand on one document, chosen by the spec
``bm25:variant=...``, scored the same by re-ranking and by retrieval, refused when unknown.
(Equality with bm25s' methods of the same names: test_bm25_vs_bm25s.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from axiomatic.data.demo import demo_dataset
from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.rankers.lexical import BM25_VARIANTS, BM25Ranker
from axiomatic.rankers.registry import make_ranker
from axiomatic.text.analyzer import Analyzer

DOCS = [
    Document("a", "apple apple banana"),
    Document("b", "banana cherry"),
    Document("c", "cherry cherry cherry date"),
    Document("d", "apple date"),
]


def _by_hand(variant: str, tf: int, dl: int, df: int, n: int, avgdl: float, k1: float,
             b: float, delta: float) -> float:  # fmt: skip
    rel = 1 - b + b * dl / avgdl
    idf = {
        "lucene": math.log(1 + (n - df + 0.5) / (df + 0.5)),
        "robertson": max(math.log((n - df + 0.5) / (df + 0.5)), 0.0),
        "atire": math.log(n / df),
        "bm25l": math.log((n + 1) / (df + 0.5)),
        "bm25+": math.log((n + 1) / df),
    }[variant]
    if variant in ("lucene", "robertson"):
        part = tf / (tf + k1 * rel)
    elif variant == "atire":
        part = (k1 + 1) * tf / (tf + k1 * rel)
    elif variant == "bm25l":
        c = tf / rel
        part = (k1 + 1) * (c + delta) / (k1 + c + delta)
    else:
        part = (k1 + 1) * tf / (k1 * rel + tf) + delta
    return idf * part


@pytest.mark.parametrize("variant", list(BM25_VARIANTS))
def test_each_variant_is_its_formula(variant: str) -> None:
    index = CollectionIndex.build(DOCS, Analyzer(stopwords=frozenset(), stemmer=None))
    k1, b = 1.2, 0.75
    delta = {"bm25l": 0.5, "bm25+": 1.0}.get(variant, 0.0)
    r = BM25Ranker(index, k1=k1, b=b, variant=variant)
    q = Query("q", "apple cherry")
    got = r.score(q, DOCS)
    n, avgdl = 4, (3 + 2 + 4 + 2) / 4
    df = {"apple": 2, "cherry": 2}
    tfs = {"a": {"apple": 2}, "b": {"cherry": 1}, "c": {"cherry": 3}, "d": {"apple": 1}}
    lens = {"a": 3, "b": 2, "c": 4, "d": 2}
    for i, doc in enumerate(DOCS):
        want = sum(
            _by_hand(
                variant, tfs[doc.doc_id].get(t, 0), lens[doc.doc_id], df[t], n, avgdl, k1, b, delta
            )
            for t in ("apple", "cherry")
        )
        assert got[i] == pytest.approx(want, rel=1e-12), doc.doc_id
    # retrieval gives the re-ranking scores (the absent terms' amount included)
    all_scores, matched = r.scores_all(q)
    assert np.allclose(all_scores, got, rtol=1e-12)
    _rows, scores, m = r.retrieve_many([q], k=4)
    assert int(m[0]) == len(matched) == 4
    assert np.allclose(scores[0], np.sort(got)[::-1], rtol=1e-12)


def test_the_spec_selects_the_variant_and_names_it() -> None:
    ds = demo_dataset()
    plain = make_ranker("bm25", ds)
    assert plain.name == "BM25(k1=0.9,b=0.4)" and plain.variant == "lucene"
    plus = make_ranker("bm25:variant=bm25+,delta=0.5", ds)
    assert plus.variant == "bm25+" and plus.delta == 0.5
    assert plus.name == "BM25(k1=0.9,b=0.4,variant=bm25+,delta=0.5)"
    q = next(iter(ds.queries.values()))
    docs = list(ds.documents.values())[:5]
    assert not np.allclose(plus.score(q, docs), plain.score(q, docs))


def test_an_unknown_variant_or_a_misplaced_delta_is_refused() -> None:
    ds = demo_dataset()
    q = next(iter(ds.queries.values()))
    docs = list(ds.documents.values())[:2]
    msg = (
        r"^parameter 'variant' of ranker 'bm25' in spec 'bm25:variant=bm25p' must be one of "
        r"'lucene', 'robertson', 'atire', 'bm25l', 'bm25\+' \(got 'bm25p', a string; did you "
        r"mean 'bm25l'\?\)$"
    )
    with pytest.raises(ValueError, match=msg):  # the spec, checked by the parameter's record
        make_ranker("bm25:variant=bm25p", ds).score(q, docs)
    with pytest.raises(ValueError, match=r"unknown BM25 variant 'bm25p' \(did you mean 'bm25l"):
        BM25Ranker(CollectionIndex.build(DOCS, Analyzer()), variant="bm25p")._check()  # by itself
    with pytest.raises(ValueError, match="delta is a parameter of the bm25l and bm25\\+ variants"):
        make_ranker("bm25:delta=0.5", ds).score(q, docs)

"""ARES pseudo-query sampling (Chen et al. 2022, section 4.1, eqs. 3-8)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from axiomatic.ares.sampling import (
    PseudoQueries,
    contrastive_distribution,
    corpus_distribution,
    document_lm,
    sample_lengths,
    sample_pseudo_queries,
)
from axiomatic.data.records import Document
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

TEXTS = {
    "a": "solar panels convert sunlight into electricity; solar farms need sunny land and panels",
    "b": "the river flooded the valley after heavy rain and the farmers lost their harvest",
    "c": "bees pollinate flowers, orchards depend on bees, honey is made by bees in hives",
    "d": "glaciers retreat as temperatures rise and meltwater feeds rivers in spring",
}


def _index(extra: dict[str, str] | None = None) -> CollectionIndex:
    texts = dict(TEXTS, **(extra or {}))
    return CollectionIndex.build([Document(k, v) for k, v in texts.items()], Analyzer())


def test_corpus_distribution_is_eq4_and_sums_to_one() -> None:
    df = np.array([3, 1, 0, 2])
    p = corpus_distribution(df)
    assert p.sum() == pytest.approx(1.0)
    assert p[0] == pytest.approx((3 + 1) / (6 + 4))


def test_document_lm_sums_to_one_over_the_vocabulary() -> None:
    idx = _index()
    p_c = corpus_distribution(idx.df)
    lm = document_lm(idx.tf, idx.doc_len, p_c, mu=50.0)
    for r in range(idx.n_docs):
        dense = 50.0 * p_c / (idx.doc_len[r] + 50.0)  # implicit value of absent terms
        row = lm[r]
        dense[row.indices] = row.data
        assert dense.sum() == pytest.approx(1.0)


def test_contrastive_distribution_is_a_softmax_of_eq5_per_document() -> None:
    idx = _index()
    P = contrastive_distribution(idx, mu=50.0)
    np.testing.assert_allclose(np.asarray(P.sum(axis=1)).ravel(), 1.0)
    # hand computation for document 0
    p_c = (idx.df + 1.0) / (idx.df.sum() + idx.n_terms)
    row = idx.tf[0]
    lm = (row.data + 50.0 * p_c[row.indices]) / (idx.doc_len[0] + 50.0)
    gamma = -lm * np.log(p_c[row.indices])
    expected = np.exp(gamma) / np.exp(gamma).sum()
    np.testing.assert_allclose(P[0].data, expected)
    # a term that occurs twice in the document is more likely than a once-only term
    solar, land = idx.vocab["solar"], idx.vocab["land"]
    assert P[0, solar] > P[0, land]


def test_lengths_are_zero_truncated_poisson() -> None:
    rng = np.random.default_rng(0)
    x = sample_lengths(rng, 200_000, lam=3.0)
    assert x.min() == 1
    assert x.mean() == pytest.approx(3.0 / (1.0 - np.exp(-3.0)), rel=0.01)
    p1 = 3.0 * np.exp(-3.0) / (1.0 - np.exp(-3.0))
    assert (x == 1).mean() == pytest.approx(p1, abs=0.005)
    with pytest.raises(ValueError, match="lambda must be > 0"):
        sample_lengths(rng, 3, lam=0)


def test_ten_distinct_queries_per_document_drawn_from_its_terms() -> None:
    idx = _index()
    pq = sample_pseudo_queries(idx, seed=3)
    assert pq.report.n_empty_docs == 0
    short = 0
    for r in range(idx.n_docs):
        ks = np.flatnonzero(pq.doc == r)
        sets = {tuple(pq.terms(k)) for k in ks}
        assert len(sets) == len(ks)  # distinct
        doc_terms = set(idx.tf[r].indices.tolist())
        # one length per document: a short document may have fewer than 10 sets of its length
        n_sets = math.comb(len(doc_terms), len(pq.terms(ks[0])))
        assert len(ks) == 10 or len(ks) == n_sets < 10
        short += len(ks) < 10
        for k in ks:
            t = pq.terms(k)
            assert len(t) >= 1 and len(set(t.tolist())) == len(t)  # without replacement
            assert set(t.tolist()) <= doc_terms
    assert pq.report.n_short_docs == short < idx.n_docs


def test_sampling_is_deterministic_by_seed() -> None:
    idx = _index()
    a = sample_pseudo_queries(idx, seed=7)
    b = sample_pseudo_queries(idx, seed=7)
    c = sample_pseudo_queries(idx, seed=8)
    np.testing.assert_array_equal(a.term_ids, b.term_ids)
    np.testing.assert_array_equal(a.offsets, b.offsets)
    assert not np.array_equal(a.term_ids, c.term_ids) or not np.array_equal(a.offsets, c.offsets)


def test_degenerate_documents_are_counted_not_dropped_silently() -> None:
    idx = _index({"empty": "the and of", "one": "volcano", "three": "red green blue"})
    pq = sample_pseudo_queries(idx, seed=0)
    rep = pq.report
    assert rep.n_empty_docs == 1
    assert rep.n_one_term_docs == 1
    # one-term doc: 1 query; three distinct terms: at most 3 sets of one length; the other
    # documents may be short too (one length per document: C(|D|, l) sets)
    counts = np.bincount(pq.doc, minlength=idx.n_docs)
    assert rep.n_short_docs == int(((counts > 0) & (counts < 10)).sum()) >= 2
    assert (pq.doc == idx.doc_index["empty"]).sum() == 0
    assert (pq.doc == idx.doc_index["one"]).sum() == 1
    assert (pq.doc == idx.doc_index["three"]).sum() <= 3
    assert "1 empty document" in rep.describe()


def test_parquet_round_trip_keeps_queries_params_and_report(tmp_path) -> None:
    idx = _index()
    pq = sample_pseudo_queries(idx, seed=1)
    path = pq.write_parquet(tmp_path / "pq.parquet")
    back = PseudoQueries.read_parquet(path)
    np.testing.assert_array_equal(back.term_ids, pq.term_ids)
    np.testing.assert_array_equal(back.offsets, pq.offsets)
    np.testing.assert_array_equal(back.doc, pq.doc)
    assert back.report == pq.report and back.params == pq.params
    assert len(pq.texts(idx)) == len(pq)


@pytest.mark.parametrize("kw", [{"n_queries": 0}, {"max_length": 0}, {"max_rounds": 0}, {"mu": -1}])
def test_bad_parameters_are_clear_errors(kw) -> None:
    with pytest.raises(ValueError, match="must be"):
        sample_pseudo_queries(_index(), **kw)


def _random_index(n_docs: int, seed: int = 0) -> CollectionIndex:
    """``n_docs`` documents of 30 words from a 400-word vocabulary (>= 10 distinct terms each,
    so that no length is clipped below the Poisson draw but at ``max_length``)."""
    rng = np.random.default_rng(seed)
    words = [f"w{k}x" for k in range(400)]
    docs = [
        Document(f"d{k}", " ".join(rng.choice(words, size=30, replace=False)))
        for k in range(n_docs)
    ]
    return CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))


def test_all_pseudo_queries_of_a_document_have_one_length() -> None:
    """Sec. 4.1: "we sample queries with equal length"; the pre-training pairs compare two
    queries of one document, so a length per query would teach a length preference."""
    idx = _random_index(60)
    pq = sample_pseudo_queries(idx, seed=0)
    lengths = pq.lengths
    per_doc = [np.unique(lengths[pq.doc == r]) for r in range(idx.n_docs)]
    assert all(len(x) == 1 for x in per_doc)
    assert len({int(x[0]) for x in per_doc}) > 2  # still Poisson across documents
    assert pq.params["length"] == "per document"


def test_default_query_length_is_poisson_3() -> None:
    """Sec. 5.1.4: length expectation lambda = 3 (zero-truncated: mean 3 / (1 - e^-3) = 3.157;
    lambda = 1 would give 1.58)."""
    expected = 3.0 / (1.0 - np.exp(-3.0))
    x = sample_lengths(np.random.default_rng(0), 100_000)
    assert x.mean() == pytest.approx(expected, rel=0.02)
    idx = _random_index(600, seed=1)
    pq = sample_pseudo_queries(idx, n_queries=1, seed=0)  # one query (one length) per document
    assert pq.params["lambda"] == 3.0
    assert pq.lengths.mean() == pytest.approx(expected, abs=0.2)  # s.e. ~0.07 for 600 documents


def test_sampler_draws_terms_from_the_contrastive_distribution() -> None:
    """Eq. 8: the terms of a pseudo query are drawn from eqs. 5-6, not uniformly. 1,500 copies
    of one document (so every term has the same df) with mu = 0: P(alpha) = 0.498 against
    1/3 for beta and gamma; one one-term query per document is one draw from P."""
    docs = [
        Document(f"d{k}", "alpha alpha alpha alpha alpha alpha beta gamma") for k in range(1500)
    ]
    idx = CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))
    P = contrastive_distribution(idx, mu=0.0)
    p = np.zeros(idx.n_terms)
    p[P[0].indices] = P[0].data
    assert p[idx.vocab["alpha"]] == pytest.approx(0.498, abs=0.001)  # the hand value
    pq = sample_pseudo_queries(idx, n_queries=1, max_length=1, mu=0.0, seed=4)
    assert len(pq) == 1500 and (pq.lengths == 1).all()
    freq = np.bincount(pq.term_ids, minlength=idx.n_terms) / len(pq)
    # binomial s.e. 0.013: the tolerance is ~4 s.e.; a uniform sampler is 12 s.e. off
    np.testing.assert_allclose(freq, p, atol=0.05)

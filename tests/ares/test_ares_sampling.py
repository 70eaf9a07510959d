"""ARES pseudo-query sampling (Chen et al. 2022, section 4.1, eqs. 3-8)."""

from __future__ import annotations

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
    assert len(pq) == 10 * idx.n_docs
    assert pq.report.n_short_docs == 0 and pq.report.n_empty_docs == 0
    for r in range(idx.n_docs):
        ks = np.flatnonzero(pq.doc == r)
        assert len(ks) == 10
        sets = {tuple(pq.terms(k)) for k in ks}
        assert len(sets) == 10  # distinct
        doc_terms = set(idx.tf[r].indices.tolist())
        for k in ks:
            t = pq.terms(k)
            assert len(t) >= 1 and len(set(t.tolist())) == len(t)  # without replacement
            assert set(t.tolist()) <= doc_terms


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
    # one-term doc: 1 query; three distinct terms: at most 7 non-empty subsets
    assert rep.n_short_docs == 2
    assert (pq.doc == idx.doc_index["empty"]).sum() == 0
    assert (pq.doc == idx.doc_index["one"]).sum() == 1
    assert (pq.doc == idx.doc_index["three"]).sum() <= 7
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

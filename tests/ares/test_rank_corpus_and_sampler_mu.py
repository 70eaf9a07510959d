"""The msmarco-20k corpus for RANK is not built around the training
queries, and the Dirichlet mu of the contrastive sampler is the mean document length."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.ares.pipeline import Prepared, load_collection, prepare, rank_first_shares
from axiomatic.ares.sampling import (
    contrastive_distribution,
    distribution_contrast,
    resolve_mu,
    sample_pseudo_queries,
)
from axiomatic.data.records import Document
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer
from shared_data import require_collection

TEXTS = {
    "a": "solar panels convert sunlight into electricity; solar farms need sunny land and panels",
    "b": "the river flooded the valley after heavy rain and the farmers lost their harvest",
    "c": "bees pollinate flowers, orchards depend on bees, honey is made by bees in hives",
    "d": "glaciers retreat",
}


def _index() -> CollectionIndex:
    return CollectionIndex.build([Document(k, v) for k, v in TEXTS.items()], Analyzer())


def test_mu_defaults_to_the_mean_length_of_the_non_empty_documents() -> None:
    idx = _index()
    dl = np.asarray(idx.doc_len, dtype=float)
    assert resolve_mu(idx) == pytest.approx(dl[dl > 0].mean())
    assert resolve_mu(idx, 7.5) == 7.5
    with pytest.raises(ValueError, match="avgdl"):
        resolve_mu(idx, "mean")
    # the default distribution is the one at mu = avgdl, not at 1000
    default = contrastive_distribution(idx)
    np.testing.assert_allclose(
        default.data, contrastive_distribution(idx, float(dl[dl > 0].mean())).data
    )
    assert not np.allclose(default.data, contrastive_distribution(idx, 1000.0).data)
    pq = sample_pseudo_queries(idx, seed=0)
    assert pq.params["mu"] == pytest.approx(dl[dl > 0].mean())


def test_distribution_contrast_is_the_median_max_over_min_ratio() -> None:
    idx = _index()
    P = contrastive_distribution(idx, 0.0)
    ratios = []
    for r in range(P.shape[0]):
        row = P[r].data
        if len(row) >= 2:
            ratios.append(row.max() / row.min())
    assert distribution_contrast(P) == pytest.approx(float(np.median(ratios)))
    # less smoothing, more contrast (the reason mu = 1000 was wrong for passages)
    assert (
        distribution_contrast(contrastive_distribution(idx, 0.0))
        > distribution_contrast(contrastive_distribution(idx, "avgdl"))
        > distribution_contrast(contrastive_distribution(idx, 1000.0))
    )
    assert sample_pseudo_queries(idx, seed=0).params["contrast"] == pytest.approx(
        distribution_contrast(contrastive_distribution(idx))
    )


def test_rank_first_shares_counts_rank_one_for_real_and_pseudo_queries() -> None:
    from axiomatic.ares.pipeline import AresCollection

    docs = {k: Document(k, v) for k, v in TEXTS.items()}
    coll = AresCollection("t", docs, [("q1", "solar panels", "a"), ("q2", "river valley", "b")])
    p: Prepared = prepare(coll, axioms="Q-RANK", n_queries=2)
    rank = p.ctx.scores("Q-RANK")
    got = rank_first_shares(p)
    assert got["real_first"] == pytest.approx(np.mean(rank[p.n_pseudo :] == 1))
    assert got["pseudo_first"] == pytest.approx(np.mean(rank[: p.n_pseudo] == 1))
    # each real query names its own document's words only: ranked first
    assert got["real_first"] == 1.0 and got["n_real"] == 2


def test_msmarco_20k_does_not_contain_the_training_queries_candidate_lists() -> None:
    require_collection("msmarco-passage-dev-bm25top20-graded")
    require_collection("msmarco-passage-trecdl")
    from axiomatic.data.catalog import load_dataset

    coll = load_collection("msmarco-20k")
    assert len(coll.documents) == 20000
    train = load_dataset("msmarco-dev-top20/train")
    test = load_dataset("msmarco-dev-top20/test")
    dl = set(load_dataset("trec-dl-2019/union").documents) | set(
        load_dataset("trec-dl-2021/union").documents
    )
    test_cands = {d for q in test.queries for d in test.candidate_ids(q)}
    positives = {d for _q, _t, d in coll.positives}
    assert len(positives) == 368 and len(coll.positives) == 368
    for q in train.queries:
        for d in train.candidate_ids(q):
            if d in coll.documents:
                # a training candidate is there only as a positive or as someone else's candidate
                assert d in positives or d in test_cands or d in dl, (q, d)
    non_pos = {d for q in train.queries for d in train.candidate_ids(q)} - positives
    # most of a training query's competitors are gone (the version-1 corpus kept all 7,527)
    assert len(non_pos & set(coll.documents)) < 200


def test_sampler_defaults_record_and_report_are_the_papers_and_exact(tmp_path) -> None:
    """Mutation survivors of ares/sampling.py: the defaults are the
    paper's (10 queries, lambda 3, lengths capped at 10), the parameter record names every
    setting under its own key, the report counts what it says, and a Parquet round trip keeps
    queries, texts, record and report."""
    import inspect

    sig = inspect.signature(sample_pseudo_queries).parameters
    assert {k: sig[k].default for k in ("n_queries", "lam", "mu", "max_length", "max_rounds",
                                        "seed")} == {
        "n_queries": 10, "lam": 3.0, "mu": "avgdl", "max_length": 10, "max_rounds": 5, "seed": 0,
    }  # fmt: skip
    idx = CollectionIndex.build(
        [Document(k, v) for k, v in {**TEXTS, "e": "", "f": "lonely"}.items()], Analyzer()
    )
    pq = sample_pseudo_queries(idx, n_queries=4, seed=2)
    mu = resolve_mu(idx)
    assert pq.params == {
        "n_queries": 4, "lambda": 3.0, "mu": mu,
        "contrast": distribution_contrast(contrastive_distribution(idx, mu)), "max_length": 10,
        "max_rounds": 5, "length": "per document", "seed": 2, "version": 3,
        "analyzer": idx.analyzer.config_hash, "n_docs": 6, "n_terms": idx.n_terms,
    }  # fmt: skip
    counts = np.bincount(pq.doc, minlength=idx.n_docs)
    distinct = np.diff(idx.tf.indptr)
    assert pq.report.n_docs == 6 and pq.report.n_queries == len(pq) == counts.sum()
    assert pq.report.n_empty_docs == int((distinct == 0).sum()) == 1
    assert pq.report.n_one_term_docs == int((distinct == 1).sum()) == 1
    assert pq.report.n_short_docs == int(((distinct > 0) & (counts < 4)).sum())
    assert pq.report.n_per_doc == 4
    # every non-empty document has min(4, possible) distinct queries of one length
    for r in np.flatnonzero(distinct > 0):
        rows = np.flatnonzero(pq.doc == r)
        sets = {tuple(pq.terms(k)) for k in rows}
        assert len(sets) == len(rows) and len({len(s) for s in sets}) == 1
    # queries of one document are contiguous, in index row order
    assert (np.diff(pq.doc) >= 0).all()
    path = pq.write_parquet(tmp_path / "pq.parquet")
    back = type(pq).read_parquet(path)
    assert back.params == pq.params and back.report == pq.report
    np.testing.assert_array_equal(back.doc, pq.doc)
    np.testing.assert_array_equal(back.offsets, pq.offsets)
    np.testing.assert_array_equal(back.term_ids, pq.term_ids)
    assert (
        back.texts(idx)
        == pq.texts(idx)
        == [" ".join(idx.terms[t] for t in pq.terms(k)) for k in range(len(pq))]
    )
    assert pq.texts(idx, {idx.terms[pq.terms(0)[0]]: "SURFACE"})[0].split()[0] == "SURFACE"


def test_predictor_probabilities_are_antisymmetric_bounded_and_survive_a_round_trip(
    tmp_path,
) -> None:
    """Mutation survivors of ares/predictor.py: p(M) + p(-M) = 1 exactly, p in [0, 1] with the
    trees' own probability as the reference (0.5 + (f(M) - f(-M)) / 2), a saved and loaded
    predictor gives the same p (its adapter's two columns sum to 1), bad shapes are an error,
    and importances of a predictor without a split are zeros (not NaN)."""
    from axiomatic.ares.predictor import PreferencePredictor

    rng = np.random.default_rng(0)
    X = rng.choice([-1.0, 0.0, 1.0], size=(400, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.7, 400) > 0).astype(int)
    m = PreferencePredictor(n_estimators=30).fit(X, y)
    p = m.predict_proba(X)
    f = m.model.predict_proba(np.concatenate((X, -X)))[:, 1]
    np.testing.assert_allclose(p, 0.5 + 0.5 * (f[:400] - f[400:]), atol=1e-12)
    np.testing.assert_allclose(p + m.predict_proba(-X), 1.0, atol=1e-12)
    assert p.min() >= 0.0 and p.max() <= 1.0 and p.max() > 0.6
    assert m.predict_proba(np.zeros((1, 4)))[0] == 0.5
    back = PreferencePredictor.load(m.save(tmp_path / "p.txt"))
    np.testing.assert_allclose(back.predict_proba(X), p, atol=1e-9)
    cols = back.model.predict_proba(X)
    np.testing.assert_allclose(cols.sum(axis=1), 1.0)
    np.testing.assert_allclose(cols[:, 1], m.model.predict_proba(X)[:, 1], atol=1e-9)
    with pytest.raises(ValueError, match="n x n_features"):
        PreferencePredictor().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="n x n_features"):
        PreferencePredictor().fit(X, y[:-1])
    imp2 = m.importances()
    assert imp2.max() == 1.0 and np.isfinite(imp2).all()

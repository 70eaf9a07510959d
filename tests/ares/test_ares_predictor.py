"""ARES preference predictor (Chen et al. 2022, section 4.2, Table 2) and the stage pipeline."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.ares.pipeline import load_collection, prepare, setting_features
from axiomatic.ares.predictor import (
    PreferencePredictor,
    balanced_pairs,
    evaluate_setting,
    sample_negatives,
)

# 3 documents with 4, 3 and 2 pseudo queries and their RANK values
PQ_DOC = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2])
PQ_RANK = np.array([1, 3, np.inf, 7, 2, 4, np.inf, 9, np.inf])


def test_setting_i_draws_from_the_documents_own_pseudo_queries() -> None:
    kept, neg = sample_negatives("I", np.array([0, 1, 2, 0]), PQ_DOC, PQ_RANK, seed=0)
    assert kept.tolist() == [0, 1, 2, 3]
    assert PQ_DOC[neg].tolist() == [0, 1, 2, 0]


def test_setting_iii_ignores_documents_without_a_rank_1_query() -> None:
    kept, neg = sample_negatives("III", np.array([0, 1, 2]), PQ_DOC, PQ_RANK, seed=0)
    assert kept.tolist() == [0] and PQ_DOC[neg].tolist() == [0]


def test_setting_iv_keeps_only_rank_at_most_5() -> None:
    pos = np.repeat([0, 1, 2], 200)
    _kept, neg = sample_negatives("IV", pos, PQ_DOC, PQ_RANK, seed=1)
    assert set(PQ_DOC[neg].tolist()) == {0, 1}  # document 2 has no query with RANK <= 5
    assert set(neg.tolist()) == {0, 1, 4, 5}


def test_setting_ii_follows_softmax_of_inverse_rank() -> None:
    pos = np.zeros(20000, dtype=np.int64)
    _kept, neg = sample_negatives("II", pos, PQ_DOC, PQ_RANK, seed=2)
    w = np.exp([1, 1 / 3, 0, 1 / 7])
    freq = np.bincount(neg, minlength=4)[:4] / len(neg)
    np.testing.assert_allclose(freq, w / w.sum(), atol=0.015)


def test_unknown_setting_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="did you mean 'IV'"):
        sample_negatives("IIV", np.array([0]), PQ_DOC, PQ_RANK)


def test_balanced_pairs_put_the_real_query_first_when_label_is_1() -> None:
    pos, neg = np.arange(100, 200), np.arange(100)
    i, j, y = balanced_pairs(pos, neg, seed=0)
    assert ((i >= 100) == (y == 1)).all() and ((j >= 100) == (y == 0)).all()
    assert 30 < y.sum() < 70


def test_predictor_refuses_one_class_and_learns_a_separable_rule(tmp_path) -> None:
    rng = np.random.default_rng(0)
    X = rng.integers(-1, 2, size=(400, 3)).astype(float)
    y = (X[:, 1] > 0).astype(int)
    with pytest.raises(ValueError, match="needs both labels"):
        PreferencePredictor().fit(X, np.ones(400))
    with pytest.raises(ValueError, match="not trained yet"):
        PreferencePredictor().predict_proba(X)
    m = PreferencePredictor(n_estimators=20).fit(X, y)
    imp = m.importances()
    assert imp.argmax() == 1 and imp.max() == 1.0
    back = PreferencePredictor.load(m.save(tmp_path / "p.txt"))
    np.testing.assert_allclose(back.predict_proba(X), m.predict_proba(X))
    res = evaluate_setting("I", X, y, ["a", "b", "c"], seeds=(0, 1), n_estimators=20)
    assert res.auc_mean > 0.95 and len(res.auc) == 2
    assert res.to_dict()["paper_auc"] == 0.9027


def test_pipeline_on_the_demo_collection_is_cached_and_gives_features(tmp_path) -> None:
    coll = load_collection("demo")
    assert coll.positives, "the demo train split has relevant documents"
    p = prepare(coll, cache_dir=tmp_path, seed=0, term_vectors=_vectors(coll))
    X, y, info = setting_features(p, "I", seed=0)
    assert X.shape == (len(y), 9) and set(np.unique(X)) <= {-1, 0, 1}
    assert info["n_pairs"] == len(coll.positives)
    # second run reads the Parquet caches and gives the same features
    q = prepare(coll, cache_dir=tmp_path, seed=0, term_vectors=_vectors(coll))
    X2, y2, _ = setting_features(q, "I", seed=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert list(tmp_path.rglob("pseudo_queries.parquet")) and list(
        tmp_path.rglob("query_scores.parquet")
    )


def _vectors(coll):
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    idx = CollectionIndex.build(coll.documents.values(), Analyzer())
    return np.random.default_rng(0).normal(size=(idx.n_terms, 8))


def test_roc_auc_matches_hand_values() -> None:
    from axiomatic.ares.predictor import roc_auc

    assert roc_auc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])) == 0.75
    assert roc_auc(np.array([0, 1]), np.array([0.5, 0.5])) == 0.5
    assert np.isnan(roc_auc(np.array([1, 1]), np.array([0.2, 0.3])))


def test_unknown_collection_suggests_a_name() -> None:
    with pytest.raises(ValueError, match="did you mean 'scifact'"):
        load_collection("scifac")

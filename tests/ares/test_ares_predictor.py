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

# 3 documents with 4, 3 and 2 pseudo queries and their Q-RANK values
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
    assert set(PQ_DOC[neg].tolist()) == {0, 1}  # document 2 has no query with Q-RANK <= 5
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
    # the length-only control: |q_i| - |q_j| on the same rows (real minus pseudo when y = 1)
    from axiomatic.ares.pipeline import length_control, setting_pairs

    i, j, y_pairs = setting_pairs(p, "I", seed=0)
    np.testing.assert_array_equal(y_pairs, y)
    lc = length_control(p, "I", seed=0)
    assert lc.shape == y.shape and (lc == p.ctx.q_len[i] - p.ctx.q_len[j]).all()
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


def test_setting_iv_keeps_a_query_of_rank_exactly_5() -> None:
    """Table 2, IV: Q-RANK "less than or equal to 5" (rank 5 in, rank 6 out)."""
    pq_doc = np.array([0, 0, 0, 1, 1])
    pq_rank = np.array([5, 6, np.inf, 6, 7])
    kept, neg = sample_negatives("IV", np.array([0, 1, 0, 1]), pq_doc, pq_rank, seed=0)
    assert kept.tolist() == [0, 2] and neg.tolist() == [0, 0]


def _grid(k: int) -> np.ndarray:
    return np.array(np.meshgrid(*[[-1, 0, 1]] * k, indexing="ij")).reshape(k, -1).T.astype(float)


def test_predictor_cannot_learn_an_axiom_backwards() -> None:
    """Axiom 0 is inverted in the training data (its preferred query is the real one in 12 %
    of the pairs), axiom 1 points its way. Unconstrained trees learn axiom 0 backwards; the
    monotone predictor is non-decreasing in every axiom, and antisymmetric."""
    rng = np.random.default_rng(0)
    X = np.repeat(_grid(3), 100, axis=0)
    y = (rng.random(len(X)) < 1 / (1 + np.exp(2 * X[:, 0] - 1.5 * X[:, 1]))).astype(int)
    free = PreferencePredictor(n_estimators=50, monotone=False).fit(X, y)
    assert free.predict_proba(np.array([[1.0, 0, 0]]))[0] < 0.3  # the data do invert axiom 0
    m = PreferencePredictor(n_estimators=50).fit(X, y)
    G = _grid(3)
    p = m.predict_proba(G)
    np.testing.assert_allclose(p + m.predict_proba(-G), 1.0)  # p(i over j) = 1 - p(j over i)
    assert m.predict_proba(np.zeros((1, 3)))[0] == 0.5  # no axiom decisive: no order
    for a in range(3):  # raising any axiom's preference never lowers p
        for lo, hi in ((-1, 0), (0, 1)):
            low, high = G[G[:, a] == lo], G[G[:, a] == lo].copy()
            high[:, a] = hi
            assert (m.predict_proba(high) >= m.predict_proba(low) - 1e-12).all()
    # where only axiom 0 is decisive the pair is never ordered against it
    assert m.predict_proba(np.array([[1.0, 0, 0]]))[0] >= 0.5
    assert m.predict_proba(np.array([[0.0, 1, 0]]))[0] > 0.7  # axiom 1 is still learnt


def test_real_queries_count_each_unknown_word_once(tmp_path) -> None:
    from axiomatic.ares.pipeline import _real_queries

    coll = load_collection("demo")
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    idx = CollectionIndex.build(coll.documents.values(), Analyzer())
    did = idx.doc_ids[0]
    _doc, offsets, ids = _real_queries(idx, [("q", "qwzx qwzx vbnm qwzx", did)])
    assert offsets.tolist() == [0, 2] and ids.tolist() == [-1, -1]  # two words, both unknown

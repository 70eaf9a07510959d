"""Mutation survivors of ``ares/predictor.py``, value by value against references
computed by hand: the four negative-sampling settings' seeded Gumbel-max draw (Chen et al. 2022,
Table 2), the label shuffle of :func:`balanced_pairs`, the parameters LightGBM really trains with
(read back from the model's own text), the leaf-size bound of small training sets, the normalized
gain importances, the 9:1 split / two-fold selection of :func:`evaluate_setting` and the AUC.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import pytest

from axiomatic.ares import predictor as pred
from axiomatic.ares.predictor import (
    SETTINGS,
    PreferencePredictor,
    SettingResult,
    balanced_pairs,
    check_setting,
    evaluate_setting,
    roc_auc,
    sample_negatives,
)

# documents 0..4 with 3, 2, 0, 4 and 1 pseudo queries (document 2 has none); Q-RANK values:
# doc 0 has a rank-1 query and rank <= 5 ones, doc 1 neither (III and IV drop it), doc 3 has
# rank 1, rank exactly 5 and infinities, doc 4 a single rank-6 query
PQ_DOC = np.array([0, 0, 0, 1, 1, 3, 3, 3, 3, 4])
PQ_RANK = np.array([2.0, 1.0, np.inf, 7.0, np.inf, 5.0, np.inf, 1.0, 3.0, 6.0])
POS_DOC = np.tile([0, 1, 2, 3, 4, 3, 0], 12)


def _reference_negatives(
    setting: str, pos_doc: np.ndarray, pq_doc: np.ndarray, pq_rank: np.ndarray, seed: int
) -> tuple[list[int], list[int]]:
    """Table 2 by hand, one positive at a time, with the same Gumbel draws: a ``n_pos x k``
    matrix (``k``: most pseudo queries of a positive's document) from the generator seeded
    ``[seed, setting number]``; slot ``s`` of a positive is its document's ``s``-th pseudo
    query; the pick is the admissible query with the largest ``log w + gumbel``."""
    rows = [np.flatnonzero(pq_doc == d) for d in pos_doc]
    k = max(len(r) for r in rows)
    g = np.random.default_rng([seed, SETTINGS.index(setting)]).gumbel(size=(len(pos_doc), k))
    kept, neg = [], []
    for p, cands in enumerate(rows):
        ranks = [float(pq_rank[c]) for c in cands]
        ok = [True] * len(cands)
        if setting == "III" and 1.0 not in ranks:
            ok = [False] * len(cands)
        if setting == "IV":
            ok = [r <= 5 for r in ranks]
        best, best_key = None, -np.inf
        for s, c in enumerate(cands):
            if not ok[s]:
                continue
            logw = (0.0 if np.isinf(ranks[s]) else 1.0 / ranks[s]) if setting == "II" else 0.0
            if logw + g[p, s] > best_key:
                best, best_key = int(c), logw + g[p, s]
        if best is not None:
            kept.append(p)
            neg.append(best)
    return kept, neg


@pytest.mark.parametrize("setting", SETTINGS)
def test_sample_negatives_is_the_seeded_gumbel_max_of_table_2(setting: str) -> None:
    for seed in (0, 1, 3):
        kept, neg = sample_negatives(setting, POS_DOC, PQ_DOC, PQ_RANK, seed=seed)
        ref_kept, ref_neg = _reference_negatives(setting, POS_DOC, PQ_DOC, PQ_RANK, seed)
        assert kept.tolist() == ref_kept and neg.tolist() == ref_neg
        assert kept.dtype == np.int64 and neg.dtype == np.int64
    # which positives keep a negative: every one with a pseudo query (I, II), those whose
    # document has a rank-1 query (III: docs 0 and 3), or one of rank <= 5 (IV: docs 0, 3)
    docs = {"I": {0, 1, 3, 4}, "II": {0, 1, 3, 4}, "III": {0, 3}, "IV": {0, 3}}[setting]
    kept, neg = sample_negatives(setting, POS_DOC, PQ_DOC, PQ_RANK, seed=0)
    assert kept.tolist() == [p for p, d in enumerate(POS_DOC) if d in docs]
    assert (PQ_DOC[neg] == POS_DOC[kept]).all()
    # the default seed is 0; a seed changes the draw
    default = sample_negatives(setting, POS_DOC, PQ_DOC, PQ_RANK)
    np.testing.assert_array_equal(default[1], neg)
    other = sample_negatives(setting, POS_DOC, PQ_DOC, PQ_RANK, seed=1)[1]
    assert other.tolist() != neg.tolist()


def test_sample_negatives_accepts_lists_and_lower_case_settings() -> None:
    ref = sample_negatives("III", POS_DOC, PQ_DOC, PQ_RANK, seed=2)
    got = sample_negatives(" iii ", POS_DOC.tolist(), PQ_DOC.tolist(), PQ_RANK.tolist(), seed=2)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])


def test_sample_negatives_edge_cases_by_hand() -> None:
    # one pseudo query per document (k = 1): each positive gets its document's only query
    kept, neg = sample_negatives("I", np.array([1, 0, 1]), np.array([0, 1]), np.array([3, 1]))
    assert kept.tolist() == [0, 1, 2] and neg.tolist() == [1, 0, 1]
    # a one-query table and a positive whose document has none (its padding slot is row 0)
    for s in SETTINGS:
        kept, neg = sample_negatives(s, np.array([0, 1, 0]), np.array([0]), np.array([1.0]))
        assert kept.tolist() == [0, 2] and neg.tolist() == [0, 0]
    # no positives, or none with a pseudo query: empty int64 results
    for pos in (np.array([], dtype=np.int64), np.array([2, 2])):
        kept, neg = sample_negatives("I", pos, PQ_DOC, PQ_RANK)
        assert kept.dtype == np.int64 and neg.dtype == np.int64
        assert kept.shape == (0,) and neg.shape == (0,)
    # a pseudo-query table not grouped by document is refused, even with two rows
    with pytest.raises(ValueError) as err:
        sample_negatives("I", np.array([0]), np.array([1, 0]), np.array([1.0, 2.0]))
    assert str(err.value) == (
        "pseudo queries must be grouped by document in row order (pq_doc sorted)"
    )


def test_setting_ii_weights_are_softmax_of_inverse_rank_with_inf_as_zero() -> None:
    """One document, ranks 1, 2 and inf: the Gumbel keys are 1 + g, 1/2 + g and 0 + g."""
    pos = np.zeros(5, dtype=np.int64)
    _kept, neg = sample_negatives("II", pos, np.zeros(3), np.array([1.0, 2.0, np.inf]), seed=4)
    g = np.random.default_rng([4, 1]).gumbel(size=(5, 3))
    assert neg.tolist() == np.argmax(np.array([1.0, 0.5, 0.0]) + g, axis=1).tolist()


def test_check_setting_reads_names_loosely_and_explains_unknown_ones() -> None:
    assert [check_setting(s) for s in (" iv ", "ii", "I", "iii")] == ["IV", "II", "I", "III"]
    tail = "; expected one of I, II, III, IV (Chen et al. 2022, Table 2)"
    with pytest.raises(ValueError) as err:
        check_setting("IIV")  # 'IV' and 'II' are both close: one suggestion only
    assert str(err.value) == "unknown negative-sampling setting 'IIV' (did you mean 'IV'?)" + tail
    with pytest.raises(ValueError) as err:
        check_setting("X")
    assert str(err.value) == "unknown negative-sampling setting 'X'" + tail
    with pytest.raises(ValueError) as err:  # 'I' is only 0.5 close: below the 0.6 cutoff
        check_setting("IAB")
    assert str(err.value) == "unknown negative-sampling setting 'IAB'" + tail


def test_a_missing_lightgbm_is_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # import lightgbm raises ImportError
    X, y = np.array([[1.0], [-1.0]]), np.array([1, 0])
    with pytest.raises(ImportError) as err:
        PreferencePredictor().fit(X, y)
    assert str(err.value) == (
        "the ARES preference predictor needs LightGBM: pip install 'axiomatic-ir[ares]' "
        "(or pip install lightgbm)"
    )
    assert isinstance(err.value.__cause__, ImportError)


# ------------------------------------------------------------------------------ balanced_pairs
def test_balanced_pairs_is_the_seeded_coin_flip_by_hand() -> None:
    pos, neg = np.arange(100, 160), np.arange(60)
    for seed in (0, 1, 5):
        y_ref = np.random.default_rng([seed, 9]).integers(0, 2, size=60)
        i, j, y = balanced_pairs(pos, neg, seed=seed)
        assert y.dtype == np.int8 and y.tolist() == y_ref.tolist()
        assert i.tolist() == [p if c == 1 else n for p, n, c in zip(pos, neg, y_ref, strict=True)]
        assert j.tolist() == [n if c == 1 else p for p, n, c in zip(pos, neg, y_ref, strict=True)]
    default = balanced_pairs(pos, neg)
    assert default[2].tolist() == balanced_pairs(pos, neg, seed=0)[2].tolist()


# ------------------------------------------------------------------------------ the model
def _data(n: int, seed: int = 0, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.choice([-1.0, 0.0, 1.0], size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.8, n) > 0).astype(int)
    y[:2] = [0, 1]  # both labels, whatever n
    return X, y


def _trained_params(m: PreferencePredictor) -> dict[str, str]:
    """The parameters LightGBM trained with, from the ``parameters:`` block of its model text."""
    text = m.model.booster_.model_to_string()
    block = text[text.index("\nparameters:\n") : text.index("\nend of parameters")]
    out = {}
    for line in block.splitlines()[2:]:
        key, _, value = line.strip("[]").partition(": ")
        out[key] = value
    return out


def test_the_trees_are_trained_with_the_predictors_parameters() -> None:
    X, y = _data(100)
    m = PreferencePredictor(n_estimators=3, learning_rate=0.2, num_leaves=5, seed=7).fit(X, y)
    p = _trained_params(m)
    expected = {
        "objective": "binary",
        "num_iterations": "3",
        "learning_rate": "0.2",
        "num_leaves": "5",
        "seed": "7",
        "num_threads": "1",
        "deterministic": "1",
        "force_row_wise": "1",
        "verbosity": "-1",
        "min_data_in_leaf": "10",  # min(20, 100 // 10)
        "monotone_constraints": "1,1,1",
        "monotone_constraints_method": "basic",
    }
    assert {k: p[k] for k in expected} == expected
    assert m.model.booster_.num_trees() == 3
    # the classifier's own importances are the gain, as importances() and Figure 2
    gain = m.model.booster_.feature_importance("gain")
    np.testing.assert_allclose(m.model.feature_importances_, gain)
    free = PreferencePredictor(n_estimators=3, monotone=False).fit(X, y)
    assert _trained_params(free)["monotone_constraints"] == ""
    assert _trained_params(PreferencePredictor(n_estimators=2).fit(X, y))["seed"] == "0"


def test_params_without_features_have_no_constraints() -> None:
    p = PreferencePredictor()._params()
    assert "monotone_constraints" not in p and "monotone_constraints_method" not in p
    assert PreferencePredictor()._params(2)["monotone_constraints"] == [1, 1]
    assert "monotone_constraints" not in PreferencePredictor(monotone=False)._params(2)


@pytest.mark.parametrize(
    ("n", "min_child", "leaf"),
    [(5, 20, 1), (19, 20, 1), (20, 20, 2), (105, 20, 10), (119, 20, 11), (400, 20, 20),
     (100, 3, 3)],
)  # fmt: skip
def test_leaf_minimum_is_at_most_a_tenth_of_the_rows(n: int, min_child: int, leaf: int) -> None:
    X, y = _data(n)
    m = PreferencePredictor(n_estimators=1, min_child_samples=min_child).fit(X, y)
    assert _trained_params(m)["min_data_in_leaf"] == str(leaf)
    assert m.min_child_samples == min_child  # the setting itself is kept


def test_fit_and_predict_messages_word_for_word() -> None:
    X, y = _data(40)
    with pytest.raises(ValueError) as err:
        PreferencePredictor().fit(X, np.ones(40))
    assert str(err.value) == (
        "the preference predictor needs both labels (1: first query is the real one, 0: second "
        "is); got only [1.0] in 40 pairs. Build pairs with balanced_pairs() or check that "
        "negatives were sampled"
    )
    with pytest.raises(ValueError) as err:
        PreferencePredictor().fit(X, y[:-1])
    assert str(err.value) == "X must be n x n_features and y of length n (got (40, 3), (39,))"
    with pytest.raises(ValueError) as err:
        PreferencePredictor().importances()
    assert str(err.value) == "the preference predictor is not trained yet: call fit() or load()"


def test_predict_proba_on_no_rows_one_row_and_boolean_features() -> None:
    X, y = _data(200)
    m = PreferencePredictor(n_estimators=10).fit(X, y)
    empty = m.predict_proba(np.empty((0, 3)))
    assert empty.dtype == np.float64 and empty.shape == (0,)
    one = m.predict_proba(X[3:4])
    f = m.model.predict_proba(np.stack([X[3], -X[3]]))[:, 1]
    assert one.shape == (1,) and one[0] == pytest.approx(0.5 + 0.5 * (f[0] - f[1]), abs=1e-15)
    B = np.array([[True, False, True], [False, False, False]])
    np.testing.assert_array_equal(m.predict_proba(B), m.predict_proba(B.astype(float)))


def test_importances_are_the_gain_over_the_largest() -> None:
    X, y = _data(300)
    m = PreferencePredictor(n_estimators=20).fit(X, y)
    gain = m.model.booster_.feature_importance("gain")
    split = m.model.booster_.feature_importance("split")
    assert not np.allclose(gain / gain.max(), split / split.max())
    np.testing.assert_allclose(m.importances(), gain / gain.max())
    # a model without a single split (constant features): zeros, no 0/0
    flat = PreferencePredictor(n_estimators=3).fit(np.ones((40, 2)), np.tile([0, 1], 20))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        imp = flat.importances()
    assert imp.tolist() == [0.0, 0.0]


def test_importances_are_normalized_when_the_largest_gain_is_below_1() -> None:
    # 20 rows, one weak split: gains well below 1 are still scaled to a maximum of 1
    X = np.array([[1.0]] * 10 + [[-1.0]] * 10)
    y = np.array([1] * 6 + [0] * 4 + [1] * 4 + [0] * 6)
    m = PreferencePredictor(n_estimators=1).fit(X, y)
    gain = m.model.booster_.feature_importance("gain")
    assert 0 < gain.max() < 1
    assert m.importances().tolist() == [1.0]


def test_setting_result_to_dict_by_value() -> None:
    r = SettingResult("II", 50, [0.5, 0.7, 0.9], np.array([1.0, 0.25]), ["a", "b"])
    assert r.to_dict() == {
        "setting": "II",
        "n_pairs": 50,
        "auc_mean": pytest.approx(0.7),
        "auc_sd": pytest.approx(0.2),
        "auc_per_seed": [0.5, 0.7, 0.9],
        "paper_auc": 0.8714,
        "importance": {"a": 1.0, "b": 0.25},
    }
    bad = SettingResult("I", 50, [0.5], np.array([1.0, 0.5]), ["a"])
    with pytest.raises(ValueError):  # names and importances must pair up
        bad.to_dict()


# ------------------------------------------------------------------------------ evaluation
def _reference_evaluation(
    X: np.ndarray, y: np.ndarray, seeds: tuple[int, ...], test_fraction: float = 0.1
) -> tuple[list[float], np.ndarray, list[int]]:
    """Section 4.2 by hand: per seed the permutation of ``[seed, 77]``, the first
    ``max(2, round(fraction * n))`` rows as test, the rest split in two halves; each half's
    model is trained on the other half, the one with the strictly better validation AUC (the
    first on a tie) scores the test rows. Returns the AUCs, mean importances, chosen folds."""
    aucs, imps, chosen = [], [], []
    for seed in seeds:
        perm = np.random.default_rng([seed, 77]).permutation(len(y))
        n_test = max(2, round(test_fraction * len(y)))
        test, train = perm[:n_test], perm[n_test:]
        half = (len(train) + 1) // 2
        folds = [train[:half], train[half:]]
        models, vals = [], []
        for f in (0, 1):
            m = PreferencePredictor(seed=seed, n_estimators=15).fit(
                X[folds[1 - f]], y[folds[1 - f]]
            )
            models.append(m)
            vals.append(roc_auc(y[folds[f]], m.predict_proba(X[folds[f]])))
        f = 1 if vals[1] > vals[0] else 0
        chosen.append(f)
        aucs.append(roc_auc(y[test], models[f].predict_proba(X[test])))
        imps.append(models[f].importances())
    return aucs, np.mean(imps, axis=0), chosen


def test_evaluate_setting_is_the_papers_protocol_by_hand() -> None:
    X, y = _data(61, seed=3)
    y[:10] = 1 - y[:10]  # noisier, so the two fold models differ
    seeds = (0, 1, 2, 3, 4, 5)
    ref_auc, ref_imp, chosen = _reference_evaluation(X, y, seeds)
    assert set(chosen) == {0, 1}  # both fold models win somewhere
    res = evaluate_setting(" ii ", X.tolist(), y, ["a", "b", "c"], seeds=seeds, n_estimators=15)
    assert res.setting == "II" and res.n_pairs == 61
    np.testing.assert_array_equal(res.auc, ref_auc)  # NaN where a test split has one class
    np.testing.assert_allclose(res.importances, ref_imp)
    assert list(res.feature_names) == ["a", "b", "c"]
    # 61 pairs: round(6.1) = 6 test rows; a larger fraction gives other splits and AUCs
    ref40, _, _ = _reference_evaluation(X, y, (0, 1), test_fraction=0.4)
    res40 = evaluate_setting("II", X, y, ["a", "b", "c"], (0, 1), 0.4, n_estimators=15)
    np.testing.assert_array_equal(res40.auc, ref40)


def test_evaluate_setting_defaults_and_the_smallest_collection() -> None:
    X, y = _data(20, seed=1)
    y[:6] = [0, 1, 0, 1, 0, 1]
    ref_auc, _, _ = _reference_evaluation(X, y, (0, 1, 2, 3, 4))
    res = evaluate_setting("I", X, y, ["a", "b", "c"], n_estimators=15)  # 20 pairs suffice
    np.testing.assert_array_equal(res.auc, ref_auc)
    assert len(res.auc) == 5 and res.n_pairs == 20
    with pytest.raises(ValueError) as err:
        evaluate_setting("I", X[:19], y[:19], ["a", "b", "c"])
    assert str(err.value) == "setting I: only 19 pairs; need at least 20 to split 9:1 and 2-fold"


_MADE: list[dict[str, Any]] = []


class _Spy(PreferencePredictor):
    def fit(self, X: np.ndarray, y: np.ndarray) -> PreferencePredictor:
        _MADE.append(
            {"seed": self.seed, "names": self.feature_names, "n_estimators": self.n_estimators}
        )
        return super().fit(X, y)


def test_each_fold_model_gets_the_seed_the_names_and_the_parameters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    X, y = _data(60, seed=2)
    _MADE.clear()
    monkeypatch.setattr(pred, "PreferencePredictor", _Spy)
    evaluate_setting("I", X, y, ["a", "b", "c"], seeds=(3, 8), n_estimators=4)
    made = list(_MADE)
    assert made == [{"seed": s, "names": ("a", "b", "c"), "n_estimators": 4} for s in (3, 3, 8, 8)]


def test_a_validation_tie_keeps_the_first_fold_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every validation AUC equal (a stand-in AUC of 0.5): the first fold's model, trained on
    the second half, scores the test rows and gives the importances."""
    X, y = _data(80, seed=4)
    real_auc = pred.roc_auc
    monkeypatch.setattr(pred, "roc_auc", lambda yy, p: 0.5 if len(yy) > 10 else real_auc(yy, p))
    res = evaluate_setting("I", X, y, ["a", "b", "c"], seeds=(0,), n_estimators=15)
    perm = np.random.default_rng([0, 77]).permutation(80)
    test, train = perm[:8], perm[8:]
    first = PreferencePredictor(seed=0, n_estimators=15).fit(X[train[36:]], y[train[36:]])
    second = PreferencePredictor(seed=0, n_estimators=15).fit(X[train[:36]], y[train[:36]])
    assert not np.allclose(first.importances(), second.importances())
    np.testing.assert_allclose(res.importances, first.importances())
    assert res.auc == [real_auc(y[test], first.predict_proba(X[test]))]


# ------------------------------------------------------------------------------ roc_auc
def test_roc_auc_with_unequal_classes_and_ties_by_hand() -> None:
    # positives 0.4 (above 0.1 and 0.3 of three negatives) and 0.9 (above all): 5 / 6
    y = np.array([0, 0, 0, 1, 1])
    assert roc_auc(y, np.array([0.1, 0.5, 0.3, 0.4, 0.9])) == pytest.approx(5 / 6, abs=1e-15)
    # one positive tied with one of two negatives: (0.5 + 1) / 2
    assert roc_auc(np.array([1, 0, 0]), np.array([0.5, 0.5, 0.2])) == 0.75
    labels = np.array([False, True, True, True])  # boolean labels; 0.4 is above 0.3 only
    assert roc_auc(labels, np.array([0.3, 0.1, 0.2, 0.4])) == pytest.approx(1 / 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one class: NaN without a 0/0
        assert np.isnan(roc_auc(np.array([0, 0, 0]), np.array([0.1, 0.2, 0.3])))
        assert np.isnan(roc_auc(np.array([1, 1]), np.array([0.1, 0.2])))

"""The axiomatic preference predictor of ARES (Chen et al., SIGIR 2022, section 4.2, Table 2).

Positives are real queries of the training collections with one of their relevant documents
``d``; for each such ``(q+, d)`` one negative ``q-`` is drawn from the pseudo queries of ``d``
under one of four settings (Table 2):

* **I**: uniformly from all pseudo queries of ``d``;
* **II**: with ``p = softmax(1 / Q-RANK)`` over them (``1 / +inf = 0``);
* **III**: like I, but documents none of whose pseudo queries has Q-RANK 1 are ignored;
* **IV**: uniformly among the pseudo queries with Q-RANK <= 5 (documents without one are ignored).

Each pair is put in random order (label 1 when ``q+`` comes first, so the labels are balanced),
described by the preference feature matrix of eq. 9 (one column per query-pair axiom), and a
gradient-boosted tree classifier learns which query is the real one. Evaluation as the paper:
a 9:1 train/test split, two-fold cross-validation on the 90 %, the fold model with the better
validation AUC predicts the test 10 %; repeated over seeds (ours) because our test sets are small.

The predictor cannot invert an axiom: every feature is monotone-constrained (LightGBM's
``monotone_constraints``, +1 for every column). Each column of eq. 9 is already oriented by its
axiom (``M_A[i, j] = +1`` when ``A`` prefers ``q_i``; Q-RANK's "lower is better" and PROX's
"closer/earlier is better" are applied in :func:`~axiomatic.axioms.query_pairs.pair_preferences`)
and the label is 1 when ``q_i`` is the real query, so +1 reads "the query an axiom prefers is
never made less likely to be the preferred one". Without it, the trees learn whatever separates
real from pseudo queries in the training data, and on a corpus built from the real queries'
own BM25 candidate lists that is Q-RANK *backwards* (the pseudo query ranks the document higher),
which the pre-training pairs then teach. And the prediction is antisymmetric by construction,
``p(q_i over q_j) = 1 - p(q_j over q_i)`` (:meth:`PreferencePredictor.predict_proba`): a pair's
order then does not depend on which query the pair happened to list first, and a pair on which
no axiom is decisive gets exactly 0.5 (no order).

Why LightGBM (not XGBoost as the paper): the same model family (second-order gradient-boosted
trees with gain-based importance, which is what Figure 2 plots), a ~4 MB CPU-only wheel with no
CUDA runtime (``xgboost-cpu`` is several times larger), bit-for-bit deterministic with
``deterministic=True`` and one thread, and its model saves as plain text (no pickle). With nine
ternary features the two libraries learn the same kind of trees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic._suggest import suggest

__all__ = [
    "SETTINGS",
    "PreferencePredictor",
    "SettingResult",
    "balanced_pairs",
    "evaluate_setting",
    "sample_negatives",
]

SETTINGS = ("I", "II", "III", "IV")
PAPER_AUC = {"I": 0.9027, "II": 0.8714, "III": 0.7734, "IV": 0.8258}
"""Table 2 of Chen et al. (2022), XGBoost on MS MARCO document ranking (> 150k cases each)."""


def check_setting(setting: str) -> str:
    s = str(setting).strip().upper()
    if s not in SETTINGS:
        raise ValueError(
            f"unknown negative-sampling setting {setting!r}{suggest(s, SETTINGS, n=1, cutoff=0.6)}; "
            f"expected one of {', '.join(SETTINGS)} (Chen et al. 2022, Table 2)"
        )
    return s


def _lightgbm() -> Any:
    try:
        import lightgbm
    except ImportError as exc:
        raise ImportError(
            "the ARES preference predictor needs LightGBM: pip install 'axiomatic-ir[ares]' "
            "(or pip install lightgbm)"
        ) from exc
    return lightgbm


# ------------------------------------------------------------------------------ negatives
def sample_negatives(
    setting: str,
    pos_doc: np.ndarray,
    pq_doc: np.ndarray,
    pq_rank: np.ndarray,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """One negative pseudo query per positive ``(q+, d)`` under ``setting`` (Table 2).

    ``pos_doc``: document row of each positive; ``pq_doc`` (sorted, contiguous per document) and
    ``pq_rank``: document row and Q-RANK value of every pseudo query. Returns ``(kept, neg)``:
    the indices of the positives that got a negative and the chosen pseudo-query indices.
    Vectorized: one Gumbel-max over a padded ``n_pos x k`` matrix.
    """
    s = check_setting(setting)
    pos_doc = np.asarray(pos_doc, dtype=np.int64)
    pq_doc = np.asarray(pq_doc, dtype=np.int64)
    if len(pq_doc) > 1 and (np.diff(pq_doc) < 0).any():
        raise ValueError("pseudo queries must be grouped by document in row order (pq_doc sorted)")
    start = np.searchsorted(pq_doc, pos_doc, side="left")
    count = np.searchsorted(pq_doc, pos_doc, side="right") - start
    k = int(count.max()) if len(count) else 0
    if k == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    slot = np.arange(k)[None, :]
    valid = slot < count[:, None]
    cand = np.where(valid, start[:, None] + slot, 0)
    rank = np.asarray(pq_rank, dtype=np.float64)[cand]
    if s == "II":
        logw = np.where(np.isinf(rank), 0.0, 1.0 / rank)
    else:
        logw = np.zeros_like(rank)
    if s == "IV":
        valid &= rank <= 5
    if s == "III":
        has_top = ((rank == 1) & valid).any(axis=1)
        valid &= has_top[:, None]
    rng = np.random.default_rng([int(seed), SETTINGS.index(s)])
    keys = np.where(valid, logw + rng.gumbel(size=rank.shape), -np.inf)
    kept = np.flatnonzero(valid.any(axis=1))
    choice = np.argmax(keys[kept], axis=1)
    return kept, cand[kept, choice]


def balanced_pairs(
    pos: np.ndarray, neg: np.ndarray, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Put each (positive, negative) pair in random order: ``(i, j, y)`` with ``y = 1`` when the
    real query is ``i`` (the paper "randomly shuffled all query pairs to balance the labels")."""
    rng = np.random.default_rng([int(seed), 9])
    y = rng.integers(0, 2, size=len(pos)).astype(np.int8)
    i = np.where(y == 1, pos, neg)
    j = np.where(y == 1, neg, pos)
    return i, j, y


# ------------------------------------------------------------------------------ model
@dataclass
class PreferencePredictor:
    """Gradient-boosted trees on eq.-9 features: ``P(q_i is preferred over q_j | M[i, j])``.

    Parameters are stored only (no work in the constructor). Single-threaded and deterministic.
    ``monotone`` (default): non-decreasing in every feature (see the module docstring); False
    is the unconstrained model (kept to measure what the constraint costs).
    """

    n_estimators: int = 200
    learning_rate: float = 0.05
    num_leaves: int = 15
    min_child_samples: int = 20
    seed: int = 0
    feature_names: tuple[str, ...] = ()
    monotone: bool = True
    model: Any = field(default=None, repr=False)

    def _params(self, n_features: int = 0) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.monotone and n_features:
            # +1: M_A[i, j] = +1 is "A prefers q_i", the label 1 is "q_i is preferred"
            extra["monotone_constraints"] = [1] * int(n_features)
            extra["monotone_constraints_method"] = "basic"  # the strict guarantee
        return extra | {
            "objective": "binary",
            "n_estimators": int(self.n_estimators),
            "learning_rate": float(self.learning_rate),
            "num_leaves": int(self.num_leaves),
            "min_child_samples": int(self.min_child_samples),
            "random_state": int(self.seed),
            "n_jobs": 1,
            "deterministic": True,
            "force_row_wise": True,
            "verbose": -1,
            "importance_type": "gain",
        }

    def fit(self, X: np.ndarray, y: np.ndarray) -> PreferencePredictor:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        if X.ndim != 2 or len(X) != len(y):
            raise ValueError(
                f"X must be n x n_features and y of length n (got {X.shape}, {y.shape})"
            )
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(
                f"the preference predictor needs both labels (1: first query is the real one, "
                f"0: second is); got only {classes.tolist()} in {len(y)} pairs. Build pairs "
                "with balanced_pairs() or check that negatives were sampled"
            )
        lgb = _lightgbm()
        params = self._params(X.shape[1])
        # a leaf minimum of 20 rows leaves a small training set (the demo collection's 46
        # pairs, a CV fold of 20) without a single split: a constant predictor, whose
        # antisymmetric preference is 0.5 for every pair. At most a tenth of the rows, then
        params["min_child_samples"] = min(int(self.min_child_samples), max(1, len(y) // 10))
        self.model = lgb.LGBMClassifier(**params)
        self.model.fit(X, y)
        return self

    def _check_fitted(self) -> Any:
        if self.model is None:
            raise ValueError("the preference predictor is not trained yet: call fit() or load()")
        return self.model

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Probability that the first query of each pair is the preferred one, antisymmetric:
        ``0.5 + (f(M) - f(-M)) / 2`` with ``f`` the trees' probability, since ``-M`` is the
        same pair listed the other way round. Monotone trees keep it non-decreasing in every
        axiom's preference; ``M = 0`` (no axiom decisive) gives exactly 0.5."""
        model = self._check_fitted()
        X = np.asarray(X, dtype=np.float64)
        if len(X) == 0:
            return np.empty(0, dtype=np.float64)
        f = np.asarray(model.predict_proba(np.concatenate((X, -X)))[:, 1])
        return 0.5 + 0.5 * (f[: len(X)] - f[len(X) :])

    def importances(self) -> np.ndarray:
        """Gain importance per feature, normalized by the largest (as Figure 2 of the paper)."""
        g = np.asarray(self._check_fitted().booster_.feature_importance("gain"), dtype=float)
        return g / g.max() if g.max() > 0 else g

    def save(self, path: str | Path) -> Path:
        """Write the trees as LightGBM's text format (atomic; no pickle)."""
        from axiomatic._atomic import atomic_write_text

        text = self._check_fitted().booster_.model_to_string()
        return atomic_write_text(path, text)

    @classmethod
    def load(cls, path: str | Path) -> PreferencePredictor:
        lgb = _lightgbm()
        booster = lgb.Booster(model_file=str(path))
        out = cls()
        out.model = _BoosterAdapter(booster)
        return out


class _BoosterAdapter:
    """A loaded booster with the two methods the predictor uses."""

    def __init__(self, booster: Any) -> None:
        self.booster_ = booster

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        p = np.asarray(self.booster_.predict(X))
        return np.stack([1 - p, p], axis=1)


# ------------------------------------------------------------------------------ evaluation
@dataclass
class SettingResult:
    setting: str
    n_pairs: int
    auc: list[float]
    importances: np.ndarray
    feature_names: Sequence[str]

    @property
    def auc_mean(self) -> float:
        return float(np.mean(self.auc))

    @property
    def auc_sd(self) -> float:
        return float(np.std(self.auc, ddof=1)) if len(self.auc) > 1 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "n_pairs": self.n_pairs,
            "auc_mean": self.auc_mean,
            "auc_sd": self.auc_sd,
            "auc_per_seed": self.auc,
            "paper_auc": PAPER_AUC[self.setting],
            "importance": dict(zip(self.feature_names, self.importances.tolist(), strict=True)),
        }


def evaluate_setting(
    setting: str,
    X: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str],
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    test_fraction: float = 0.1,
    **predictor_params: Any,
) -> SettingResult:
    """AUC of the predictor as in section 4.2: per seed a 9:1 split, two-fold CV on the 90 %,
    the fold model with the better validation AUC scores the 10 %. Importances: mean over seeds
    of the chosen models' normalized gain."""
    s = check_setting(setting)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if len(y) < 20:
        raise ValueError(
            f"setting {s}: only {len(y)} pairs; need at least 20 to split 9:1 and 2-fold"
        )
    aucs, imps = [], []
    for seed in seeds:
        rng = np.random.default_rng([int(seed), 77])
        perm = rng.permutation(len(y))
        n_test = max(2, round(test_fraction * len(y)))
        test, train = perm[:n_test], perm[n_test:]
        folds = np.array_split(train, 2)
        best, best_auc = None, -1.0
        for f in range(2):
            fit_idx, val_idx = folds[1 - f], folds[f]
            m = PreferencePredictor(
                seed=int(seed), feature_names=tuple(feature_names), **predictor_params
            )
            m.fit(X[fit_idx], y[fit_idx])
            v = roc_auc(y[val_idx], m.predict_proba(X[val_idx]))
            if best is None or v > best_auc:
                best, best_auc = m, v
        if best is None:  # pragma: no cover - the loop always runs twice
            raise RuntimeError("no fold model was trained")
        aucs.append(roc_auc(y[test], best.predict_proba(X[test])))
        imps.append(best.importances())
    return SettingResult(s, len(y), aucs, np.mean(imps, axis=0), list(feature_names))


def roc_auc(y: np.ndarray, p: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney U with mid-ranks for ties); NaN with one class."""
    from scipy.stats import rankdata

    y = np.asarray(y).astype(bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    r = rankdata(np.asarray(p, dtype=np.float64))
    return float((r[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))

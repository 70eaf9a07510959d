"""Axiomatic explanations of a ranker (Völske et al. 2021): how much of its pairwise order a
random forest over the axioms' preferences reproduces on held-out queries.

- **fidelity**: accuracy of the explanation model's held-out predictions of the ranker's order
  (query-grouped folds: no query contributes pairs to both training and prediction), overall,
  with a query-bootstrap 95% interval, by rank-difference and by score-difference bucket;
- **importances**: the forest's mean decrease in impurity per axiom (mean over folds), next to
  each axiom's *coverage* (share of pairs where it is decisive) and *agreement* (share of its
  decisive pairs where it prefers the document the ranker puts higher);
- **random baseline**: the same pipeline on the same pairs with the target taken from a seeded
  random ranking: its fidelity should be ~0.5, and an explanation is only worth the margin above.

Völske et al. report fidelity .59-.78 (MS MARCO passage / document, Robust04; top-k pairs, a
random forest over ir_axioms' preferences).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from axiomatic.axioms import Axiom
from axiomatic.data.records import Dataset, Run
from axiomatic.explain.features import explanation_axioms, feature_names, pair_table

#: rank-difference buckets (inclusive bounds; ``None`` = no upper bound)
RANK_BUCKETS: tuple[tuple[int, int | None], ...] = (
    (1, 1),
    (2, 3),
    (4, 7),
    (8, 15),
    (16, 31),
    (32, None),
)
#: normalized score-difference bucket edges (``|s_a - s_b|`` over the query's score range)
SCORE_EDGES: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2, 0.4, 1.0)


@dataclass
class Explanation:
    """Tables of one or more explained systems (every table has a ``system`` column)."""

    summary: pd.DataFrame
    by_rank: pd.DataFrame
    by_score: pd.DataFrame
    importances: pd.DataFrame
    pairs: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def concat(parts: Sequence[Explanation]) -> Explanation:
        if not parts:
            raise ValueError("nothing to combine: no explanation was computed")

        def cat(attr: str) -> pd.DataFrame:
            return pd.concat([getattr(p, attr) for p in parts], ignore_index=True)

        return Explanation(
            cat("summary"),
            cat("by_rank"),
            cat("by_score"),
            cat("importances"),
            cat("pairs"),
            dict(parts[0].settings),
        )


def _sklearn() -> Any:
    try:
        from sklearn.ensemble import RandomForestClassifier
    except ModuleNotFoundError:  # pragma: no cover - scikit-learn ships with the dev extra
        raise ModuleNotFoundError(
            "axiomatic explanations need scikit-learn: pip install 'axiomatic-ir[explain]' "
            "(or pip install scikit-learn)"
        ) from None
    return RandomForestClassifier


def query_folds(query_ids: Sequence[str] | np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Fold number per row: the distinct queries are shuffled (seeded) and dealt round-robin,
    so all pairs of one query share a fold."""
    qids = np.asarray(query_ids)
    uniq = np.unique(qids)
    if len(uniq) < 2:
        raise ValueError(
            f"held-out fidelity needs pairs from at least 2 queries (got {len(uniq)}); explain "
            "a dataset with more queries"
        )
    k = min(int(folds), len(uniq))
    if k < 2:
        raise ValueError(f"folds must be >= 2 (got {folds})")
    perm = np.random.default_rng(seed).permutation(len(uniq))
    fold_of = {q: int(pos % k) for pos, q in zip(range(len(uniq)), uniq[perm], strict=True)}
    return np.asarray([fold_of[q] for q in qids], dtype=np.int64)


def fit_predict(
    pairs: pd.DataFrame,
    features: Sequence[str],
    folds: int = 5,
    seed: int = 0,
    n_estimators: int = 100,
    on_fold: Callable[[], object] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Held-out predictions (one per row), the fold of each row and the per-fold feature
    importances ``(k, len(features))`` of a seeded random forest (one thread); ``on_fold`` is
    called after each fold (progress reporting)."""
    forest = _sklearn()
    X = pairs[list(features)].to_numpy(dtype=np.float32)
    y = pairs["target"].to_numpy(dtype=np.int64)
    fold = query_folds(pairs["query_id"].to_numpy(), folds, seed)
    pred = np.zeros(len(y), dtype=np.int64)
    imps = []
    for k in range(int(fold.max()) + 1):
        test = fold == k
        train = ~test
        if len(np.unique(y[train])) < 2:  # one class only: the forest can only predict it
            pred[test] = y[train][0]
            imps.append(np.zeros(len(features)))
            continue
        rf = forest(n_estimators=n_estimators, random_state=seed + k, n_jobs=1)
        rf.fit(X[train], y[train])
        pred[test] = rf.predict(X[test])
        imps.append(np.nan_to_num(rf.feature_importances_))
        if on_fold is not None:
            on_fold()
    return pred, fold, np.asarray(imps)


def _bootstrap(
    qids: np.ndarray, correct: np.ndarray, seed: int, n: int = 1000
) -> tuple[float, float]:
    """95% percentile interval of the pair accuracy, resampling queries (pairs of one query are
    not independent)."""
    frame = pd.DataFrame({"q": qids, "c": correct.astype(np.float64)})
    per_q = frame.groupby("q")["c"].agg(["sum", "count"]).to_numpy()
    rng = np.random.default_rng([seed, 7])
    idx = rng.integers(0, len(per_q), size=(n, len(per_q)))
    acc = per_q[idx, 0].sum(axis=1) / per_q[idx, 1].sum(axis=1)
    lo, hi = np.percentile(acc, [2.5, 97.5])
    return float(lo), float(hi)


def _rank_label(lo: int, hi: int | None) -> str:
    return str(lo) if hi == lo else (f"{lo}+" if hi is None else f"{lo}-{hi}")


def bucket_tables(pairs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fidelity by rank-difference and by score-difference bucket (``pairs`` needs ``correct``)."""
    rows = []
    for lo, hi in RANK_BUCKETS:
        sel = (pairs["rank_diff"] >= lo) & (
            pairs["rank_diff"] <= (hi if hi is not None else np.inf)
        )
        if sel.any():
            rows.append(
                {
                    "rank_diff": _rank_label(lo, hi),
                    "pairs": int(sel.sum()),
                    "fidelity": float(pairs.loc[sel, "correct"].mean()),
                }
            )
    by_rank = pd.DataFrame(rows)
    rows = []
    edges = SCORE_EDGES
    for k in range(len(edges) - 1):
        s_lo, s_hi = edges[k], edges[k + 1]
        last = k == len(edges) - 2
        sel = (pairs["score_diff"] >= s_lo) & (
            (pairs["score_diff"] <= s_hi) if last else (pairs["score_diff"] < s_hi)
        )
        if sel.any():
            rows.append(
                {
                    "score_diff": f"[{s_lo:g}, {s_hi:g}{']' if last else ')'}",
                    "pairs": int(sel.sum()),
                    "fidelity": float(pairs.loc[sel, "correct"].mean()),
                }
            )
    return by_rank, pd.DataFrame(rows)


def explain_run(
    dataset: Dataset,
    run: Run,
    name: str,
    axioms: str | Sequence[str | Axiom] | None = None,
    index: Any = None,
    depth: int = 20,
    folds: int = 5,
    seed: int = 0,
    n_estimators: int = 100,
    random_baseline: bool = True,
    max_pairs: int | None = None,
    progress: Callable[[], object] | None = None,
) -> Explanation:
    """Explain one run (``{query_id: {doc_id: score}}``) over ``dataset``'s documents.

    ``index``: the dataset's :class:`~axiomatic.index.collection.CollectionIndex` (built with the
    default analyzer of the dataset's language when ``None``; pass one to share it between
    systems or to choose the analyzer). ``progress``: called after each unit of work (a query's
    pair features, a fold's forest; :func:`work_units` per run), as :func:`explain` does to
    report progress.
    """
    if depth < 2:
        raise ValueError(f"depth must be >= 2 (got {depth}): a pair needs two documents")
    if max_pairs is not None and max_pairs < 1:
        raise ValueError(f"max_pairs must be >= 1 or None (got {max_pairs})")
    ax = explanation_axioms(axioms)
    feats = feature_names(ax)
    if index is None:
        from axiomatic.index.cache import dataset_index

        index = dataset_index(dataset)
    t0 = time.perf_counter()
    pairs = pair_table(
        dataset, run, ax, index, depth=depth, seed=seed, max_pairs=max_pairs, on_query=progress
    )
    t_feat = time.perf_counter() - t0
    pred, fold, imps = fit_predict(pairs, feats, folds, seed, n_estimators, on_fold=progress)
    pairs = pairs.assign(pred=pred, fold=fold)
    pairs["correct"] = (pairs["pred"] == pairs["target"]).astype(np.int8)
    qids = pairs["query_id"].to_numpy()
    correct = pairs["correct"].to_numpy()
    lo, hi = _bootstrap(qids, correct, seed)
    X = pairs[feats].to_numpy()
    decided = (X != 0).any(axis=1)
    random_fid = None
    if random_baseline:
        rnd = pair_table(
            dataset,
            run,
            ax,
            index,
            depth=depth,
            seed=seed,
            random_target=True,
            max_pairs=max_pairs,
            on_query=progress,
        )
        rpred, _, _ = fit_predict(rnd, feats, folds, seed, n_estimators, on_fold=progress)
        random_fid = float((rpred == rnd["target"].to_numpy()).mean())
    imp_mean = imps.mean(axis=0)
    order = np.argsort(-imp_mean, kind="stable")
    sign = 2 * pairs["target"].to_numpy()[:, None] - 1
    decisive = X != 0
    agree = (sign == X) & decisive
    importances = (
        pd.DataFrame(
            {
                "system": name,
                "axiom": feats,
                "importance": imp_mean,
                "importance_sd": imps.std(axis=0),
                "coverage": decisive.mean(axis=0),
                "agreement": np.where(
                    decisive.sum(axis=0) > 0,
                    agree.sum(axis=0) / np.maximum(decisive.sum(axis=0), 1),
                    np.nan,
                ),
            }
        )
        .iloc[order]
        .reset_index(drop=True)
    )
    summary = pd.DataFrame(
        [
            {
                "system": name,
                "queries": int(pairs["query_id"].nunique()),
                "pairs": len(pairs),
                "depth": depth,
                "fidelity": float(correct.mean()),
                "ci_low": lo,
                "ci_high": hi,
                "fidelity_decided": float(correct[decided].mean()) if decided.any() else np.nan,
                "share_undecided": float(1 - decided.mean()),
                "random_fidelity": random_fid,
                "top_axioms": ", ".join(feats[k] for k in order[:3]),
                "feature_seconds": round(t_feat, 2),
            }
        ]
    )
    by_rank, by_score = bucket_tables(pairs)
    by_rank.insert(0, "system", name)
    by_score.insert(0, "system", name)
    pairs.insert(0, "system", name)
    settings = {
        "axioms": [a.spec for a in ax],
        "depth": depth,
        "folds": folds,
        "seed": seed,
        "n_estimators": n_estimators,
        "max_pairs": max_pairs,
        "model": "sklearn RandomForestClassifier (one thread), query-grouped folds",
    }
    return Explanation(summary, by_rank, by_score, importances, pairs, settings)


def explain(
    dataset: Dataset,
    systems: Mapping[str, Any],
    axioms: str | Sequence[str | Axiom] | None = None,
    index: Any = None,
    depth: int = 20,
    folds: int = 5,
    seed: int = 0,
    n_estimators: int = 100,
    random_baseline: bool = True,
    max_pairs: int | None = None,
) -> Explanation:
    """Explain each system of ``systems`` (name -> a ``Ranker`` or a run ``{qid: {doc: score}}``)
    on ``dataset``; a ranker scores the dataset's candidate lists first. One index is shared.

    Progress goes through :mod:`axiomatic._progress` like every long job: a bar on a terminal,
    else a plain line every ``AXIOMATIC_LOG_EVERY`` seconds (30) counting the units of work
    (:func:`work_units`) of all systems."""
    if not systems:
        raise ValueError("no system to explain: pass {name: ranker or run}")
    if index is None:
        from axiomatic.index.cache import dataset_index

        index = dataset_index(dataset)
    units = work_units(dataset, folds, random_baseline)
    with _Ticker(units * len(systems), f"explain {len(systems)} system(s)") as tick:
        return _explain_all(
            dataset,
            systems,
            axioms,
            index,
            depth,
            folds,
            seed,
            n_estimators,
            random_baseline,
            max_pairs,
            tick,
        )


def work_units(dataset: Dataset, folds: int, random_baseline: bool = True) -> int:
    """Units of progress of one run's explanation: a query's pair features and a fold's forest,
    twice with the random baseline."""
    return (len(dataset.queries) + int(folds)) * (2 if random_baseline else 1)


class _Ticker:
    """Push-style progress over :func:`axiomatic._progress.track`: each call counts one unit of
    work done (the generator is advanced by hand; closing it ends a rich bar cleanly)."""

    def __init__(self, total: int, description: str) -> None:
        from axiomatic._progress import track

        total = max(int(total), 1)
        # the first item starts the clock; the total-th call ends the loop (and logs "done")
        self._it = track(range(total), description, total=total)
        next(self._it, None)

    def __call__(self) -> None:
        next(self._it, None)

    def __enter__(self) -> _Ticker:
        return self

    def __exit__(self, *exc: object) -> None:
        close = getattr(self._it, "close", None)  # a generator: ends the progress line
        if close is not None:
            close()


def _explain_all(
    dataset: Dataset,
    systems: Mapping[str, Any],
    axioms: Any,
    index: Any,
    depth: int,
    folds: int,
    seed: int,
    n_estimators: int,
    random_baseline: bool,
    max_pairs: int | None,
    tick: Callable[[], object],
) -> Explanation:
    parts = []
    for name, system in systems.items():
        if hasattr(system, "score"):
            from axiomatic.rankers.base import rerank

            run = rerank(system, dataset)
        elif isinstance(system, Mapping):
            run = dict(system)
        else:
            raise TypeError(
                f"system {name!r} is a {type(system).__name__}; expected a Ranker (with "
                ".score(query, documents)) or a run {query_id: {doc_id: score}}"
            )
        parts.append(
            explain_run(
                dataset,
                run,
                name,
                axioms=axioms,
                index=index,
                depth=depth,
                folds=folds,
                seed=seed,
                n_estimators=n_estimators,
                random_baseline=random_baseline,
                max_pairs=max_pairs,
                progress=tick,
            )
        )
    return Explanation.concat(parts)

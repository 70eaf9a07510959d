"""The explanation model (``explain/model.py``, Völske et al. 2021) value by value.

The pair table and the random forest are replaced by stubs with known outputs (a forest that
predicts "TFC1 prefers a" and reports importances fixed by its seed), so every number of the
summary, importance and bucket tables is checked against a hand computation; the seeded query
folds and the query bootstrap against plain-numpy references; the plumbing (defaults, progress
ticks, the shared index, rankers vs runs) by recording what reaches the stubs. Fast: no index,
no forest, no model. Written against the module's mutation survivors (``benchmarks/mutate.py``).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.explain import model
from axiomatic.explain.features import explanation_axioms, feature_names
from axiomatic.explain.model import (
    RANK_BUCKETS,
    SCORE_EDGES,
    Explanation,
    _bootstrap,
    _rank_label,
    _Ticker,
    bucket_tables,
    explain,
    explain_run,
    fit_predict,
    query_folds,
    work_units,
)


def _raises(exc: type[Exception], text: str):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


# ---------------------------------------------------------------------- stubs
class FakeForest:
    """Predicts 1 where the first feature is > 0; importances fixed by ``random_state``."""

    made: ClassVar[list[FakeForest]] = []
    nan_importance = False
    equal = False
    fixed: ClassVar[list[float] | None] = None

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.fit_args: tuple[np.ndarray, np.ndarray] | None = None
        FakeForest.made.append(self)

    def fit(self, X: np.ndarray, y: np.ndarray) -> FakeForest:
        self.fit_args = (X, y)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return (X[:, 0] > 0).astype(np.int64)

    @property
    def feature_importances_(self) -> np.ndarray:
        rs = self.kwargs["random_state"]
        n = self.fit_args[0].shape[1] if self.fit_args is not None else 0
        if self.equal:
            return np.full(n, 1 / n)
        if self.fixed is not None:
            return np.asarray(self.fixed)
        out = np.zeros(n)
        out[0] = 0.2
        if n > 1:
            out[1] = 0.8 - 0.1 * rs
        if n > 2:
            out[2] = math.nan if self.nan_importance else 0.1 * rs
        return out


@pytest.fixture
def forest(monkeypatch) -> type[FakeForest]:
    FakeForest.made = []
    FakeForest.nan_importance = False
    FakeForest.equal = False
    FakeForest.fixed = None
    monkeypatch.setattr(model, "_sklearn", lambda: FakeForest)
    return FakeForest


# the hand-made pairs: 3 queries, 7 pairs; features TFC1, M-AND (LNC1 never decisive)
PAIRS: dict[str, list[Any]] = {
    "query_id": ["q1", "q1", "q1", "q2", "q2", "q3", "q3"],
    "rank_diff": [1, 2, 5, 1, 40, 3, 8],
    "score_diff": [0.0, 0.05, 0.3, 1.0, 0.5, 0.1, 0.2],
    "TFC1": [1, -1, 0, 1, 0, -1, 0],
    "M-AND": [1, 0, -1, -1, 0, 1, 0],
}
TARGET = [1, 0, 1, 0, 0, 1, 1]
RANDOM_TARGET = [1, 1, 0, 1, 0, 0, 0]


class PairTableStub:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, dataset, run, axioms, index, **kw: Any) -> pd.DataFrame:
        self.calls.append({"dataset": dataset, "run": run, "axioms": axioms, "index": index, **kw})
        for _ in dataset.queries:
            if kw.get("on_query") is not None:
                kw["on_query"]()
        frame: dict[str, Any] = {
            "query_id": PAIRS["query_id"],
            "doc_a": [f"a{i}" for i in range(7)],
            "doc_b": [f"b{i}" for i in range(7)],
            "rank_diff": PAIRS["rank_diff"],
            "score_diff": PAIRS["score_diff"],
            "target": np.asarray(
                RANDOM_TARGET if kw.get("random_target") else TARGET, dtype=np.int8
            ),
        }
        for name in feature_names(axioms):
            frame[name] = np.asarray(PAIRS.get(name, [0] * 7), dtype=np.int8)
        return pd.DataFrame(frame)


@pytest.fixture
def stub(monkeypatch) -> PairTableStub:
    s = PairTableStub()
    monkeypatch.setattr(model, "pair_table", s)
    return s


def _dataset() -> Dataset:
    return Dataset(
        name="tiny",
        queries={q: Query(q, q) for q in ("q1", "q2", "q3")},
        documents={"d": Document("d", "d")},
    )


def _specs(axioms: str) -> list[str]:
    return [a.spec for a in explanation_axioms(axioms)]


# ---------------------------------------------------------------------- folds
def _folds_ref(qids: list[str], folds: int, seed: int) -> list[int]:
    uniq = sorted(set(qids))
    k = min(folds, len(uniq))
    perm = np.random.default_rng(seed).permutation(len(uniq))
    fold_of = {}
    for pos in range(len(uniq)):
        fold_of[uniq[perm[pos]]] = pos % k
    return [fold_of[q] for q in qids]


def test_query_folds_deal_the_seeded_shuffle_round_robin() -> None:
    q = ["e", "a", "a", "b", "c", "c", "c", "d", "f", "g"]
    for folds, seed in ((3, 0), (2, 11), (7, 4), (20, 1)):
        got = query_folds(q, folds, seed)
        assert got.dtype == np.int64 and got.tolist() == _folds_ref(q, folds, seed)
    # 7 queries, 20 folds: one query per fold
    assert sorted(set(query_folds(q, 20, 1).tolist())) == list(range(7))
    # literals: the queries sorted (w x y z), shuffled by the seed, dealt round-robin
    assert query_folds(["x", "y", "z", "w"], 2, 0).tolist() == [0, 0, 1, 1]
    assert query_folds(["x", "y", "z", "w", "v"], 3, 1).tolist() == [0, 1, 0, 2, 1]
    two: Any = "2"  # a folds count given as text is read as a number
    assert query_folds(np.asarray(["x", "y", "z", "w"]), two, 0).tolist() == [0, 0, 1, 1]


def test_query_folds_messages_word_for_word() -> None:
    with _raises(
        ValueError,
        "held-out fidelity needs pairs from at least 2 queries (got 1); explain a dataset with "
        "more queries",
    ):
        query_folds(["a", "a"], 5, 0)
    with _raises(
        ValueError,
        "held-out fidelity needs pairs from at least 2 queries (got 0); explain a dataset with "
        "more queries",
    ):
        query_folds([], 5, 0)
    with _raises(ValueError, "folds must be >= 2 (got 1)"):
        query_folds(["a", "b", "c"], 1, 0)
    assert query_folds(["a", "b"], 2, 0).tolist() in ([0, 1], [1, 0])


# ---------------------------------------------------------------------- fit_predict
def test_fit_predict_seeds_each_fold_and_reads_the_forest(forest) -> None:
    target = np.asarray(TARGET, dtype=np.int8)  # as pair_table gives it
    pairs = pd.DataFrame({**PAIRS, "target": target, "LNC1": [0] * 7})
    forest.nan_importance = True
    ticks: list[int] = []
    pred, fold, imps = fit_predict(
        pairs, ["TFC1", "M-AND", "LNC1"], folds=3, seed=4, n_estimators=9,
        on_fold=lambda: ticks.append(1),
    )  # fmt: skip
    assert fold.tolist() == _folds_ref(PAIRS["query_id"], 3, 4)
    assert pred.dtype == np.int64 and pred.tolist() == [1, 0, 0, 1, 0, 0, 0]
    assert [f.kwargs for f in forest.made] == [
        {"n_estimators": 9, "random_state": 4 + k, "n_jobs": 1} for k in range(3)
    ]
    for k, f in enumerate(forest.made):
        assert f.fit_args is not None
        X, y = f.fit_args
        train = fold != k
        assert X.dtype == np.float32 and y.dtype == np.int64
        assert X.tolist() == pairs.loc[train, ["TFC1", "M-AND", "LNC1"]].to_numpy().tolist()
        assert y.tolist() == pairs.loc[train, "target"].tolist()
    # NaN importances count as 0
    want = [[0.2, 0.8 - 0.1 * (4 + k), 0.0] for k in range(3)]
    assert imps.shape == (3, 3) and np.allclose(imps, want, atol=1e-12)
    assert len(ticks) == 3


def test_fit_predict_one_class_training_folds_predict_that_class(forest) -> None:
    # q3's fold trains on q1 + q2, all of target 0: it predicts 0 without a forest
    pairs = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", "q3", "q3"],
            "f": [1.0, 1.0, 1.0, 1.0, -1.0],
            "target": [0, 0, 0, 1, 1],
        }
    )
    ticks: list[int] = []
    pred, fold, imps = fit_predict(pairs, ["f"], folds=3, seed=0, on_fold=lambda: ticks.append(1))
    f3 = int(fold[3])
    assert pred[3:].tolist() == [0, 0]
    assert pred[:3].tolist() == [1, 1, 1]  # the (fake) forest of the other folds: f > 0
    assert imps.shape == (3, 1) and imps[f3].tolist() == [0.0]
    assert sorted(f.kwargs["random_state"] for f in forest.made) == sorted(
        k for k in range(3) if k != f3
    )
    assert all(f.kwargs["n_estimators"] == 100 for f in forest.made)
    assert len(ticks) == 2  # one per forest fitted
    # the same with the one-class fold of target 1
    flipped = pairs.assign(target=1 - pairs["target"])
    pred2, _, _ = fit_predict(flipped, ["f"], folds=3, seed=0)
    assert pred2[3:].tolist() == [1, 1]


def test_fit_predict_defaults_five_folds_seed_zero(forest) -> None:
    qids = [f"q{k}" for k in range(8) for _ in range(2)]
    pairs = pd.DataFrame({"query_id": qids, "f": [1.0, -1.0] * 8, "target": [1, 0] * 8})
    _, fold, imps = fit_predict(pairs, ["f"])
    assert fold.tolist() == _folds_ref(qids, 5, 0) and imps.shape == (5, 1)
    assert [f.kwargs["random_state"] for f in forest.made] == [0, 1, 2, 3, 4]


def test_fit_predict_one_class_of_a_single_training_pair(forest) -> None:
    # two queries, two folds, each trained on the other query alone (one class each)
    pairs = pd.DataFrame(
        {"query_id": ["q1", "q2", "q2"], "f": [1.0, 1.0, 1.0], "target": [0, 1, 1]}
    )
    pred, _, imps = fit_predict(pairs, ["f"], folds=2, seed=0)
    assert pred.tolist() == [1, 0, 0] and imps.tolist() == [[0.0], [0.0]]
    assert forest.made == []


def test_sklearn_forest_and_the_message_without_it(monkeypatch) -> None:
    import sys

    from sklearn.ensemble import RandomForestClassifier

    assert model._sklearn() is RandomForestClassifier
    monkeypatch.setitem(sys.modules, "sklearn.ensemble", None)
    with _raises(
        ModuleNotFoundError,
        "axiomatic explanations need scikit-learn: pip install 'axiomatic-ir[explain]' "
        "(or pip install scikit-learn)",
    ):
        model._sklearn()


def test_fit_predict_with_a_real_forest_is_seeded() -> None:
    rng = np.random.default_rng(0)
    pairs = pd.DataFrame(
        {
            "query_id": [f"q{i % 6}" for i in range(120)],
            "a": rng.integers(-1, 2, 120),
            "b": rng.integers(-1, 2, 120),
            "target": rng.integers(0, 2, 120),
        }
    )
    one = fit_predict(pairs, ["a", "b"], folds=3, seed=2, n_estimators=5)
    two = fit_predict(pairs, ["a", "b"], folds=3, seed=2, n_estimators=5)
    assert all(np.array_equal(x, y) for x, y in zip(one, two, strict=True))
    assert np.allclose(one[2].sum(axis=1), 1.0)


# ---------------------------------------------------------------------- bootstrap, buckets
def _bootstrap_ref(qids: list[str], correct: list[int], seed: int, n: int) -> tuple[float, float]:
    uniq = sorted(set(qids))
    hits = [sum(c for q, c in zip(qids, correct, strict=True) if q == u) for u in uniq]
    sizes = [qids.count(u) for u in uniq]
    idx = np.random.default_rng([seed, 7]).integers(0, len(uniq), size=(n, len(uniq)))
    acc = [sum(hits[i] for i in row) / sum(sizes[i] for i in row) for row in idx]
    return float(np.percentile(acc, 2.5)), float(np.percentile(acc, 97.5))


def test_bootstrap_resamples_queries() -> None:
    qids = ["b", "a", "a", "c", "c", "c", "b", "d"]
    correct = [1, 0, 1, 1, 1, 0, 0, 1]
    q = np.asarray(qids)
    c = np.asarray(correct, dtype=np.int8)
    lo, hi = _bootstrap(q, c, seed=3)
    assert (lo, hi) == pytest.approx(_bootstrap_ref(qids, correct, 3, 1000), abs=1e-12)
    assert type(lo) is float and type(hi) is float
    assert _bootstrap(q, c, seed=5, n=50) == pytest.approx(
        _bootstrap_ref(qids, correct, 5, 50), abs=1e-12
    )
    assert lo < hi
    # every query equally accurate: no spread
    assert _bootstrap(q, np.ones(8), seed=0) == (1.0, 1.0)
    # many queries of different sizes: the percentiles fall between distinct accuracies, so
    # the default of 1000 resamples is seen in the interval
    rng = np.random.default_rng(4)
    many = [f"q{k}" for k in range(40) for _ in range(1 + k % 7)]
    hits = rng.integers(0, 2, len(many)).tolist()
    got = _bootstrap(np.asarray(many), np.asarray(hits), seed=1)
    assert got == pytest.approx(_bootstrap_ref(many, hits, 1, 1000), abs=1e-12)
    assert got != pytest.approx(_bootstrap_ref(many, hits, 1, 1001), abs=1e-12)


def test_rank_labels_and_bucket_edges() -> None:
    assert [_rank_label(lo, hi) for lo, hi in RANK_BUCKETS] == [
        "1", "2-3", "4-7", "8-15", "16-31", "32+",
    ]  # fmt: skip
    assert SCORE_EDGES == (0.0, 0.05, 0.1, 0.2, 0.4, 1.0)


def test_bucket_tables_at_every_edge() -> None:
    rank_diff = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 500]
    correct = [1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1]
    score = [0.0, 0.0499, 0.05, 0.0999, 0.1, 0.1999, 0.2, 0.3999, 0.4, 0.9, 1.0]
    pairs = pd.DataFrame({"rank_diff": rank_diff, "score_diff": score, "correct": correct})
    by_rank, by_score = bucket_tables(pairs)
    assert by_rank.to_dict("records") == [
        {"rank_diff": "1", "pairs": 1, "fidelity": 1.0},
        {"rank_diff": "2-3", "pairs": 2, "fidelity": 0.5},
        {"rank_diff": "4-7", "pairs": 2, "fidelity": 0.5},
        {"rank_diff": "8-15", "pairs": 2, "fidelity": 1.0},
        {"rank_diff": "16-31", "pairs": 2, "fidelity": 0.0},
        {"rank_diff": "32+", "pairs": 2, "fidelity": 1.0},
    ]
    assert by_score.to_dict("records") == [
        {"score_diff": "[0, 0.05)", "pairs": 2, "fidelity": 0.5},
        {"score_diff": "[0.05, 0.1)", "pairs": 2, "fidelity": 1.0},
        {"score_diff": "[0.1, 0.2)", "pairs": 2, "fidelity": 0.5},
        {"score_diff": "[0.2, 0.4)", "pairs": 2, "fidelity": 0.5},
        {"score_diff": "[0.4, 1]", "pairs": 3, "fidelity": 2 / 3},
    ]
    assert all(type(v) is int for v in by_rank["pairs"].tolist())
    # empty buckets are left out
    few = pd.DataFrame({"rank_diff": [2, 40], "score_diff": [0.3, 0.3], "correct": [1, 0]})
    r, s = bucket_tables(few)
    assert r["rank_diff"].tolist() == ["2-3", "32+"] and r["pairs"].tolist() == [1, 1]
    assert s.to_dict("records") == [{"score_diff": "[0.2, 0.4)", "pairs": 2, "fidelity": 0.5}]


# ---------------------------------------------------------------------- explain_run
def test_explain_run_tables_by_hand(forest, stub, monkeypatch) -> None:
    clock = iter([10.0, 12.3456])
    # the module's clock only (not the time module everyone shares)
    monkeypatch.setattr(model, "time", SimpleNamespace(perf_counter=lambda: next(clock, 99.0)))
    ds = _dataset()
    run = {"q1": {"d": 1.0}}
    ticks: list[int] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # LNC1 never decisive: NaN agreement, no 0/0 warning
        expl = explain_run(
            ds, run, "sys", axioms="TFC1,M-AND,LNC1", index="IDX", depth=6, folds=3, seed=0,
            n_estimators=7, max_pairs=4, progress=lambda: ticks.append(1),
        )  # fmt: skip
    # the pair table: asked twice (ranker's target, then the random one) with the settings
    assert [c["random_target"] for c in stub.calls if "random_target" in c] == [True]
    assert len(stub.calls) == 2
    for c in stub.calls:
        assert c["dataset"] is ds and c["run"] is run and c["index"] == "IDX"
        assert (c["depth"], c["seed"], c["max_pairs"]) == (6, 0, 4)
        assert [a.name for a in c["axioms"]] == ["TFC1", "M-AND", "LNC1"]
    assert len(ticks) == 2 * 3 + 2 * 3  # queries of both tables, forests of both fits
    assert {f.kwargs["n_estimators"] for f in forest.made} == {7}

    s = expl.summary.to_dict("records")
    lo, hi = _bootstrap(np.asarray(PAIRS["query_id"]), np.asarray([1, 1, 0, 0, 1, 0, 0]), 0)
    assert s == [
        {
            "system": "sys",
            "queries": 3,
            "pairs": 7,
            "depth": 6,
            "fidelity": pytest.approx(3 / 7),
            "ci_low": lo,
            "ci_high": hi,
            "fidelity_decided": pytest.approx(2 / 5),
            "share_undecided": pytest.approx(2 / 7),
            "random_fidelity": pytest.approx(6 / 7),
            "top_axioms": "M-AND, TFC1, LNC1",
            "feature_seconds": 2.35,
        }
    ]
    imp = expl.importances
    assert imp.columns.tolist() == [
        "system", "axiom", "importance", "importance_sd", "coverage", "agreement",
    ]  # fmt: skip
    assert imp["system"].tolist() == ["sys"] * 3
    assert imp["axiom"].tolist() == ["M-AND", "TFC1", "LNC1"]
    assert np.allclose(imp["importance"], [0.7, 0.2, 0.1])
    sd = math.sqrt(2 / 3) * 0.1
    assert np.allclose(imp["importance_sd"], [sd, 0.0, sd])
    assert np.allclose(imp["coverage"], [4 / 7, 4 / 7, 0.0])
    assert imp["agreement"].tolist()[:2] == pytest.approx([0.75, 0.5])
    assert math.isnan(imp["agreement"].tolist()[2])
    assert imp.index.tolist() == [0, 1, 2]

    assert expl.by_rank.columns.tolist() == ["system", "rank_diff", "pairs", "fidelity"]
    assert expl.by_score.columns.tolist() == ["system", "score_diff", "pairs", "fidelity"]
    assert expl.by_rank.to_dict("records") == [
        {"system": "sys", "rank_diff": "1", "pairs": 2, "fidelity": 0.5},
        {"system": "sys", "rank_diff": "2-3", "pairs": 2, "fidelity": 0.5},
        {"system": "sys", "rank_diff": "4-7", "pairs": 1, "fidelity": 0.0},
        {"system": "sys", "rank_diff": "8-15", "pairs": 1, "fidelity": 0.0},
        {"system": "sys", "rank_diff": "32+", "pairs": 1, "fidelity": 1.0},
    ]
    assert expl.by_score.to_dict("records") == [
        {"system": "sys", "score_diff": "[0, 0.05)", "pairs": 1, "fidelity": 1.0},
        {"system": "sys", "score_diff": "[0.05, 0.1)", "pairs": 1, "fidelity": 1.0},
        {"system": "sys", "score_diff": "[0.1, 0.2)", "pairs": 1, "fidelity": 0.0},
        {"system": "sys", "score_diff": "[0.2, 0.4)", "pairs": 2, "fidelity": 0.0},
        {"system": "sys", "score_diff": "[0.4, 1]", "pairs": 2, "fidelity": 0.5},
    ]
    p = expl.pairs
    assert p["system"].tolist() == ["sys"] * 7
    assert p.columns.tolist()[0] == "system" and p.columns.tolist()[-3:] == [
        "pred", "fold", "correct",
    ]  # fmt: skip
    assert p["pred"].tolist() == [1, 0, 0, 1, 0, 0, 0]
    assert p["correct"].dtype == np.int8 and p["correct"].tolist() == [1, 1, 0, 0, 1, 0, 0]
    assert p["fold"].tolist() == _folds_ref(PAIRS["query_id"], 3, 0)
    assert expl.settings == {
        "axioms": _specs("TFC1,M-AND,LNC1"),
        "depth": 6,
        "folds": 3,
        "seed": 0,
        "n_estimators": 7,
        "max_pairs": 4,
        "model": "sklearn RandomForestClassifier (one thread), query-grouped folds",
    }


def test_explain_run_defaults_and_without_the_random_baseline(forest, stub, monkeypatch) -> None:
    ds = _dataset()
    built: list[Any] = []

    def fake_index(dataset):
        built.append(dataset)
        return "BUILT"

    import axiomatic.index.cache as cache

    monkeypatch.setattr(cache, "dataset_index", fake_index)
    expl = explain_run(ds, {}, "s", axioms="TFC1,M-AND", random_baseline=False)
    assert built == [ds] and len(stub.calls) == 1
    c = stub.calls[0]
    assert c["index"] == "BUILT" and c["on_query"] is None
    assert (c["depth"], c["seed"], c["max_pairs"]) == (20, 0, None)
    assert "random_target" not in c
    assert {f.kwargs["n_estimators"] for f in forest.made} == {100}
    assert len(forest.made) == 3  # three queries: min(5, 3) folds
    assert expl.summary["random_fidelity"].tolist() == [None]
    assert expl.settings["folds"] == 5 and expl.settings["n_estimators"] == 100
    assert expl.settings["depth"] == 20 and expl.settings["max_pairs"] is None
    assert expl.summary["top_axioms"].tolist() == ["M-AND, TFC1"]
    # no decisive pair: the decided fidelity is undefined, every pair undecided; equal
    # importances keep the axioms' order
    forest.equal = True
    axioms = "LNC1,TF-LNC,PROX1,PROX2"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mean of an empty selection
        none = explain_run(ds, {}, "s", axioms=axioms, index="I", random_baseline=False)
    row = none.summary.iloc[0]
    assert math.isnan(row["fidelity_decided"]) and row["share_undecided"] == 1.0
    assert row["top_axioms"] == "LNC1, TF-LNC, PROX1"
    assert none.importances["axiom"].tolist() == axioms.split(",")


def test_explain_run_baseline_by_default_and_ties_in_stable_order(forest, stub) -> None:
    forest.fixed = [0.0, 0.0, 0.5, 0.5]
    expl = explain_run(_dataset(), {}, "s", axioms="TFC1,M-AND,LNC1,TF-LNC", index="I")
    assert [c.get("random_target", False) for c in stub.calls] == [False, True]
    assert expl.importances["axiom"].tolist() == ["LNC1", "TF-LNC", "TFC1", "M-AND"]
    assert expl.summary["top_axioms"].tolist() == ["LNC1, TF-LNC, TFC1"]


def test_agreement_of_an_axiom_decisive_once(forest, stub) -> None:
    # DIV prefers a in the last pair only (target 1): coverage 1/7, agreement 1 (not NaN)
    stub_div = [0, 0, 0, 0, 0, 0, 1]
    PAIRS["DIV"] = stub_div
    try:
        expl = explain_run(_dataset(), {}, "s", axioms="TFC1,DIV", index="I")
    finally:
        del PAIRS["DIV"]
    imp = expl.importances.set_index("axiom")
    assert imp.loc["DIV", "coverage"] == pytest.approx(1 / 7)
    assert imp.loc["DIV", "agreement"] == 1.0


def test_explain_run_checks_depth_and_max_pairs() -> None:
    ds = _dataset()
    with _raises(ValueError, "depth must be >= 2 (got 1): a pair needs two documents"):
        explain_run(ds, {}, "s", depth=1)
    for bad in (0, -2):
        with _raises(ValueError, f"max_pairs must be >= 1 or None (got {bad})"):
            explain_run(ds, {}, "s", max_pairs=bad)


def test_explain_run_max_pairs_one_and_depth_two_are_valid(forest, stub) -> None:
    expl = explain_run(_dataset(), {}, "s", axioms="TFC1", index="I", depth=2, max_pairs=1)
    assert expl.settings["depth"] == 2 and expl.settings["max_pairs"] == 1


# ---------------------------------------------------------------------- explain, progress
class FakeTrack:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int | None]] = []
        self.seen: list[int] = []
        self.closed = False

    def __call__(self, iterable, description="", total=None, status=None) -> Iterator[int]:
        self.calls.append((description, total))
        try:
            for x in iterable:
                self.seen.append(x)
                yield x
        finally:
            self.closed = True


def test_ticker_counts_units_and_closes(monkeypatch) -> None:
    import axiomatic._progress as progress

    track = FakeTrack()
    monkeypatch.setattr(progress, "track", track)
    with _Ticker(5, "job") as tick:
        assert track.calls == [("job", 5)] and track.seen == [0]
        tick()
        tick()
        assert track.seen == [0, 1, 2] and not track.closed
    assert track.closed
    track2 = FakeTrack()
    monkeypatch.setattr(progress, "track", track2)
    with _Ticker(0, "none") as tick:
        tick()
        tick()  # past the end: ignored
    assert track2.calls == [("none", 1)] and track2.seen == [0]
    t = _Ticker.__new__(_Ticker)
    t._it = iter([1])  # a plain iterator has no close(): exit does nothing
    t.__exit__(None, None, None)


def test_work_units() -> None:
    ds = _dataset()
    assert work_units(ds, 5) == (3 + 5) * 2
    assert work_units(ds, 4, random_baseline=False) == 3 + 4
    assert work_units(ds, "2") == 10  # type: ignore[arg-type]


class Ranker:
    def __init__(self) -> None:
        self.calls = 0

    def score(self, query, documents):  # pragma: no cover - rerank is stubbed
        raise AssertionError


def test_explain_systems_share_one_index_and_tick_every_unit(forest, stub, monkeypatch) -> None:
    import axiomatic._progress as progress
    import axiomatic.index.cache as cache
    import axiomatic.rankers.base as base

    track = FakeTrack()
    monkeypatch.setattr(progress, "track", track)
    built: list[Any] = []

    def fake_index(dataset):
        built.append(dataset)
        return "ONE"

    monkeypatch.setattr(cache, "dataset_index", fake_index)
    reranked: list[Any] = []
    ranker = Ranker()

    def fake_rerank(system, dataset):
        reranked.append((system, dataset))
        return {"q1": {"d": 2.0}}

    monkeypatch.setattr(base, "rerank", fake_rerank)
    ds = _dataset()
    run = {"q2": {"d": 1.0}}
    expl = explain(ds, {"r": ranker, "m": run}, axioms="TFC1,M-AND", folds=3, seed=2)
    assert built == [ds] and reranked == [(ranker, ds)]
    assert track.calls == [("explain 2 system(s)", (3 + 3) * 2 * 2)]
    assert track.seen == list(range(24)) and track.closed
    assert [c["index"] for c in stub.calls] == ["ONE"] * 4
    assert stub.calls[0]["run"] == {"q1": {"d": 2.0}}
    assert stub.calls[2]["run"] == run and stub.calls[2]["run"] is not run  # a copy
    assert [c["seed"] for c in stub.calls] == [2] * 4
    assert [c["depth"] for c in stub.calls] == [20] * 4
    assert [c["max_pairs"] for c in stub.calls] == [None] * 4
    assert expl.summary["system"].tolist() == ["r", "m"]
    assert expl.importances["system"].tolist() == ["r", "r", "m", "m"]
    assert expl.pairs.index.tolist() == list(range(14))
    assert expl.settings == {
        "axioms": _specs("TFC1,M-AND"),
        "depth": 20,
        "folds": 3,
        "seed": 2,
        "n_estimators": 100,
        "max_pairs": None,
        "model": "sklearn RandomForestClassifier (one thread), query-grouped folds",
    }


def test_explain_passes_every_setting_through(forest, stub, monkeypatch) -> None:
    import axiomatic._progress as progress

    track = FakeTrack()
    monkeypatch.setattr(progress, "track", track)
    ds = _dataset()
    expl = explain(
        ds, {"m": {"q1": {"d": 1.0}}}, axioms="TFC1,M-AND,LNC1", index="I", depth=6, folds=2,
        seed=5, n_estimators=7, random_baseline=False, max_pairs=4,
    )  # fmt: skip
    assert track.calls == [("explain 1 system(s)", 3 + 2)]
    assert len(stub.calls) == 1 and stub.calls[0]["index"] == "I"
    assert expl.settings == {
        "axioms": _specs("TFC1,M-AND,LNC1"),
        "depth": 6,
        "folds": 2,
        "seed": 5,
        "n_estimators": 7,
        "max_pairs": 4,
        "model": "sklearn RandomForestClassifier (one thread), query-grouped folds",
    }
    assert {f.kwargs["n_estimators"] for f in forest.made} == {7}
    # folds {q2} and {q1, q3}: the latter trains on q2's target 0 alone, no forest
    assert [f.kwargs["random_state"] for f in forest.made] in ([5], [6])


def test_explain_default_axioms(forest, stub, monkeypatch) -> None:
    import axiomatic._progress as progress

    monkeypatch.setattr(progress, "track", FakeTrack())
    expl = explain(_dataset(), {"m": {}}, index="I", random_baseline=False)
    want = [a.spec for a in explanation_axioms(None)]
    assert expl.settings["axioms"] == want and len(want) > 3
    assert {k: expl.settings[k] for k in ("depth", "folds", "seed", "n_estimators")} == {
        "depth": 20,
        "folds": 5,
        "seed": 0,
        "n_estimators": 100,
    }
    assert expl.settings["max_pairs"] is None and len(stub.calls) == 1


def test_explain_refusals_word_for_word(forest, stub, monkeypatch) -> None:
    import axiomatic._progress as progress

    monkeypatch.setattr(progress, "track", FakeTrack())
    with _raises(ValueError, "no system to explain: pass {name: ranker or run}"):
        explain(_dataset(), {})
    with _raises(
        TypeError,
        "system 'bad' is a int; expected a Ranker (with .score(query, documents)) or a run "
        "{query_id: {doc_id: score}}",
    ):
        explain(_dataset(), {"bad": 3}, index="I")
    with _raises(ValueError, "nothing to combine: no explanation was computed"):
        Explanation.concat([])


def test_concat_keeps_the_first_settings_as_a_copy() -> None:
    def one(name: str, settings: dict[str, Any]) -> Explanation:
        t = pd.DataFrame({"system": [name]})
        return Explanation(t, t, t, t, t, settings)

    first = {"depth": 3}
    both = Explanation.concat([one("a", first), one("b", {"depth": 9})])
    assert both.settings == {"depth": 3} and both.settings is not first
    for attr in ("summary", "by_rank", "by_score", "importances", "pairs"):
        frame = getattr(both, attr)
        assert frame["system"].tolist() == ["a", "b"] and frame.index.tolist() == [0, 1]
    assert Explanation(*(pd.DataFrame(),) * 5).settings == {}

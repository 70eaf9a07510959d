"""``fit_predict`` holds out whole queries (Völske et al.'s query-grouped folds), not
pairs - checked inside ``fit_predict`` itself, where a per-pair split would let the forest
memorize each query and report a fidelity near 1 on random targets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from axiomatic.explain.model import fit_predict


def _pairs(n_queries: int = 100, per_query: int = 12, seed: int = 0) -> pd.DataFrame:
    """Targets random per query (independent of everything a held-out query could show); a
    feature that names the query (a memorization handle) and a noise feature."""
    rng = np.random.default_rng(seed)
    target = rng.integers(0, 2, n_queries)
    rows = []
    for q in range(n_queries):
        for _ in range(per_query):
            rows.append(
                {
                    "query_id": f"q{q:03d}",
                    "qcode": float(q),
                    "noise": float(rng.choice([-1, 0, 1])),
                    "target": int(target[q]),
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("folds", [2, 5])
def test_fit_predict_folds_are_per_query(folds) -> None:
    pairs = _pairs()
    pred, fold, imps = fit_predict(pairs, ["qcode", "noise"], folds=folds, seed=0, n_estimators=25)
    q = pairs["query_id"].to_numpy()
    for qid in np.unique(q):
        assert len(set(fold[q == qid])) == 1, qid
    assert set(fold.tolist()) == set(range(folds))
    assert imps.shape == (folds, 2)
    # held-out queries: the query-naming feature cannot help, fidelity stays near chance
    acc = float((pred == pairs["target"].to_numpy()).mean())
    assert acc < 0.75, acc

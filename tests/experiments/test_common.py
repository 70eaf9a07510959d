"""Experiment plumbing: ensembles and nested subsets."""

from __future__ import annotations

import pytest

from axiomatic.experiments.common import ensemble, nested_subsets


def test_ensemble_averages_z_scores() -> None:
    a = {"q": {"d1": 10.0, "d2": 0.0}}
    b = {"q": {"d1": 0.0, "d2": 0.2}}  # another scale: must not be swamped by a's
    e = ensemble([a, b])
    assert e["q"]["d1"] == pytest.approx(0.0) and e["q"]["d2"] == pytest.approx(0.0)
    c = {"q": {"d1": 3.0, "d2": 1.0}}
    assert ensemble([a, c])["q"]["d1"] > ensemble([a, c])["q"]["d2"]


def test_nested_subsets_are_prefixes_and_seeded() -> None:
    qids = [f"q{i}" for i in range(30)]
    s = nested_subsets(qids, [5, 10, 50], seed=0)
    assert set(s[5]) < set(s[10]) and len(s[50]) == 30
    assert nested_subsets(qids, [5], seed=0)[5] == s[5]
    assert nested_subsets(qids, [5], seed=1)[5] != s[5]

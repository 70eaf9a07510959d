"""ACRank's TFC-A inserts each (distinct, non-stopword) query term independently with
probability p, and TFC-D deletes each visible occurrence independently with probability p - a
seeded statistical test of the edit rates (an implementation ignoring p fails it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from axiomatic.perturb.acrank import ACRankAugmenter, query_term_count

QUERY = "alpha beta gamma delta epsilon"  # five distinct non-stopword terms
DOC = "alpha one beta two alpha three gamma four delta five epsilon six gamma"
N = 3000


def _close(observed: float, p: float, n: int, z: float = 5.0) -> bool:
    return abs(observed - p) <= z * math.sqrt(p * (1 - p) / n) + 1e-12


@pytest.mark.parametrize("p", [0.1, 0.35, 0.8])
def test_tfc_a_inserts_each_query_term_with_probability_p(p) -> None:
    aug = ACRankAugmenter("TFC-A", p)
    rng = np.random.default_rng([22, int(p * 100)])
    for _ in range(N):
        aug.augment(QUERY, DOC, rng)
    s = aug.stats
    assert _close(s.inserted_terms / (5 * N), p, 5 * N)
    # independent draws per term: nothing is drawn with probability (1 - p)^5
    assert _close(s.tfc_a_nothing_drawn / N, (1 - p) ** 5, N)
    assert s.tfc_a_applied + s.tfc_a_nothing_drawn == N


@pytest.mark.parametrize("p", [0.1, 0.35, 0.8])
def test_tfc_d_deletes_each_occurrence_with_probability_p(p) -> None:
    aug = ACRankAugmenter("TFC-D", p)
    occ = query_term_count(aug, QUERY, DOC)
    assert occ == 7
    rng = np.random.default_rng([23, int(p * 100)])
    removed = 0
    for _ in range(N):
        res = aug.augment(QUERY, DOC, rng)
        if res.minus is not None:
            removed += occ - query_term_count(aug, QUERY, res.minus.text)
    s = aug.stats
    assert removed == s.deleted_occurrences  # the counter counts what the text lost
    assert _close(s.deleted_occurrences / (occ * N), p, occ * N)
    assert _close(s.tfc_d_nothing_drawn / N, (1 - p) ** occ, N)


def test_rates_differ_between_probabilities() -> None:
    rates = []
    for p in (0.2, 0.6):
        aug = ACRankAugmenter("TFC-A&D", p)
        rng = np.random.default_rng(5)
        for _ in range(500):
            aug.augment(QUERY, DOC, rng)
        rates.append(aug.stats.inserted_terms / 2500)
    assert rates[1] - rates[0] > 0.3

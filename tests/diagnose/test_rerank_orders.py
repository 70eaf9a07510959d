"""Bradley-Terry and PageRank orders of aggregated axiom preferences,
checked against reference computations: a direct likelihood maximization and the PageRank
eigenvector of the Google matrix."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from axiomatic.diagnose.rerank import axiomatic_rerank
from axiomatic.rankers.orders import (
    BT_PRIOR,
    PAGERANK_DAMPING,
    bradley_terry,
    intransitive_share,
    order_by,
    pagerank,
    win_counts,
)


def _random_pref(n: int, seed: int, ties: float = 0.3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    upper = rng.choice([-1, 0, 1], size=(n, n), p=[(1 - ties) / 2, ties, (1 - ties) / 2])
    pref = np.triu(upper, 1)
    return (pref - pref.T).astype(np.int8)


def _bt_reference(pref: np.ndarray, prior: float) -> np.ndarray:
    """Maximize sum_ij W'_ij log(p_i / (p_i + p_j)) over log p (W' = wins + ties/2 + prior)."""
    n = len(pref)
    w = (pref > 0) + 0.5 * (pref == 0)
    w = w.astype(float)
    np.fill_diagonal(w, 0.0)
    w += prior * (1 - np.eye(n))

    def nll(theta: np.ndarray) -> float:
        d = theta[:, None] - theta[None, :]
        return float((w * np.logaddexp(0.0, -d)).sum())

    def grad(theta: np.ndarray) -> np.ndarray:
        d = theta[:, None] - theta[None, :]
        s = w / (1.0 + np.exp(d))  # w_ij * P(j beats i)
        return -(s.sum(axis=1) - s.sum(axis=0))

    res = minimize(nll, np.zeros(n), jac=grad, method="BFGS", options={"gtol": 1e-12})
    return res.x - res.x.mean()


def _pagerank_reference(pref: np.ndarray, d: float) -> np.ndarray:
    n = len(pref)
    w = (pref > 0) + 0.5 * (pref == 0)
    w = w.astype(float)
    np.fill_diagonal(w, 0.0)
    links = w.T
    out = links.sum(axis=1)
    M = np.where(out[:, None] > 0, links / np.where(out > 0, out, 1)[:, None], 1.0 / n)
    G = d * M.T + (1 - d) / n  # column-stochastic
    vals, vecs = np.linalg.eig(G)
    v = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    return v / v.sum()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bradley_terry_is_the_maximum_likelihood(seed: int) -> None:
    pref = _random_pref(12, seed)
    np.testing.assert_allclose(bradley_terry(pref), _bt_reference(pref, BT_PRIOR), atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pagerank_is_the_google_matrix_eigenvector(seed: int) -> None:
    pref = _random_pref(12, seed)
    np.testing.assert_allclose(
        pagerank(pref), _pagerank_reference(pref, PAGERANK_DAMPING), atol=1e-10
    )


def test_a_document_that_never_loses_spreads_its_rank() -> None:
    pref = np.array([[0, 1, 1], [-1, 0, 1], [-1, -1, 0]], dtype=np.int8)  # 0 > 1 > 2, no ties
    np.testing.assert_allclose(
        pagerank(pref), _pagerank_reference(pref, PAGERANK_DAMPING), atol=1e-12
    )


@pytest.mark.parametrize("order", ["kwiksort", "bradley-terry", "pagerank", "wins"])
def test_every_order_recovers_a_transitive_preference(order: str) -> None:
    truth = np.array([3, 0, 4, 1, 2])  # best first
    rank = np.empty(5, dtype=int)
    rank[truth] = np.arange(5)
    pref = np.sign(rank[None, :] - rank[:, None]).astype(np.int8)  # i before j if rank_i < rank_j
    assert order_by(pref, order, seed=3).tolist() == truth.tolist()


@pytest.mark.parametrize("order", ["bradley-terry", "pagerank", "wins"])
def test_cycles_and_ties_keep_the_base_order(order: str) -> None:
    cycle = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=np.int8)  # 0 > 1 > 2 > 0
    assert order_by(cycle, order).tolist() == [0, 1, 2]
    assert order_by(np.zeros((4, 4), dtype=np.int8), order).tolist() == [0, 1, 2, 3]
    # a cycle below a document that beats all three: that one first, the cycle in base order
    pref = np.zeros((4, 4), dtype=np.int8)
    pref[1:, 1:] = cycle
    pref[0, 1:], pref[1:, 0] = -1, 1  # 0 loses to everyone
    assert order_by(pref, order).tolist() == [1, 2, 3, 0]


def test_win_counts_by_hand() -> None:
    pref = np.array([[0, 1, 0, 1], [-1, 0, 1, 0], [0, -1, 0, -1], [-1, 0, 1, 0]], dtype=np.int8)
    # 0: two wins + a tie; 1 and 3: a win + a tie each (equal: base order); 2: a tie
    np.testing.assert_array_equal(win_counts(pref), [2.5, 1.5, 0.5, 1.5])
    assert order_by(pref, "wins").tolist() == [0, 1, 3, 2]
    assert order_by(-pref, "wins").tolist() == [2, 1, 3, 0]


def test_intransitive_share_counts_cycles_by_hand() -> None:
    cycle = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=np.int8)
    assert intransitive_share(cycle) == 1.0
    assert intransitive_share(-cycle) == 1.0
    assert intransitive_share(np.sign(np.subtract.outer(np.arange(5), np.arange(5)))) == 0.0
    pref = np.zeros((4, 4), dtype=np.int8)
    pref[:3, :3] = cycle
    pref[3, :3], pref[:3, 3] = 1, -1  # 3 beats the cycle: 1 cyclic triple of 4
    assert intransitive_share(pref) == 0.25
    tie = cycle.copy()
    tie[0, 1] = tie[1, 0] = 0
    assert intransitive_share(tie) == 0.0  # a tie breaks the cycle
    assert np.isnan(intransitive_share(np.zeros((2, 2))))
    rng = np.random.default_rng(0)
    for _ in range(5):  # brute force over triples on random preferences with ties
        p = _random_pref(7, int(rng.integers(1000)))
        n, cyc = 0, 0
        for i in range(7):
            for j in range(i + 1, 7):
                for k in range(j + 1, 7):
                    n += 1
                    cyc += p[i, j] != 0 and p[i, j] == p[j, k] == p[k, i]
        assert intransitive_share(p) == cyc / n


def test_kwiksort_cuts_a_cycle_where_bradley_terry_does_not() -> None:
    cycle = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=np.int8)
    cuts = {tuple(order_by(cycle, "kwiksort", seed=s).tolist()) for s in range(20)}
    assert len(cuts) > 1  # the pivot decides
    assert np.ptp(bradley_terry(cycle)) < 1e-9


def test_rerank_takes_the_order_and_refuses_an_unknown_one() -> None:
    from axiomatic.data.catalog import load_dataset

    ds = load_dataset("demo")
    base = {q: {d: float(-i) for i, d in enumerate(c)} for q, c in (ds.candidates or {}).items()}
    runs = {
        o: axiomatic_rerank(ds, "TFC1,M-TDC,LNC1", base, depth=10, order=o)
        for o in ("kwiksort", "bradley-terry", "pagerank")
    }
    for run in runs.values():
        assert set(run) == set(base)
        for q in base:
            assert set(run[q]) == set(base[q])  # the same documents, re-ordered
    with pytest.raises(ValueError, match=r"unknown order 'pagernk' \(did you mean 'pagerank'\?\)"):
        axiomatic_rerank(ds, "TFC1", base, order="pagernk")


def test_the_cli_and_pyterrier_pass_the_order(tmp_path) -> None:
    """`axiomatic rerank --order pagerank` writes the API's run; the PyTerrier re-ranker takes
    the same argument."""
    from typer.testing import CliRunner

    from axiomatic.cli.main import app
    from axiomatic.data.catalog import load_dataset
    from axiomatic.data.trec import read_run
    from axiomatic.integrations.pyterrier import AxiomaticReRanker

    out = tmp_path / "pr.trec"
    res = CliRunner().invoke(
        app, ["rerank", "-d", "demo", "-a", "TFC1,M-TDC,LNC1", "--base", "dataset", "--order",
              "pagerank", "-o", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    ds = load_dataset("demo")
    base = {q: {d: float(-i) for i, d in enumerate(c)} for q, c in (ds.candidates or {}).items()}
    api = axiomatic_rerank(ds, "TFC1,M-TDC,LNC1", base, order="pagerank")
    got = read_run(out)
    for q in api:
        assert sorted(got[q], key=lambda d: -got[q][d]) == sorted(api[q], key=lambda d: -api[q][d])
    assert AxiomaticReRanker("TFC1", order="bradley-terry").order == "bradley-terry"

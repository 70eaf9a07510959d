"""Compiled kernels (``axioms/kernels/_jit.py``, the ``fast`` extra): the compiled loop gives the
numpy form's matrix bit for bit, LB1 takes its loop over every pair up to LB1_DENSE_MAX candidates
and its band kernel above (scores of one sign) when numba is installed, and ``AXIOMATIC_JIT=0`` (or no numba) keeps everything on numpy."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.kernels import _jit, term_frequency
from axiomatic.axioms.kernels._common import isclose


@pytest.fixture(autouse=True)
def _decide_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The switch is read once per process: each test decides it afresh (and leaves it)."""
    monkeypatch.setattr(_jit, "_enabled", None)


def _oracle(s: np.ndarray, pres: np.ndarray, margin: float) -> np.ndarray:
    """LB1 as the kernel path defines it: float isclose over every pair, then H - H.T."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, 2 * 1e308
        close = isclose(s[:, None], s[None, :], margin)
    P = pres.astype(np.int64)
    only_i = (P @ (1 - P).T) > 0
    only_j = ((1 - P) @ P.T) > 0
    H = close & only_i & ~only_j
    np.fill_diagonal(H, False)
    return H.astype(np.int8) - H.T.astype(np.int8)


def _cases(seed: int, count: int, max_n: int = 40):
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e308, 1.0, 1.1, 0.9])
    for t in range(count):
        n, m = int(rng.integers(1, max_n)), int(rng.integers(1, 65))
        pres = rng.random((n, m)) < rng.choice([0.05, 0.3, 0.7])
        kind = t % 4
        if kind == 0:
            s = np.round(rng.normal(5, 2, n), 1)  # ties, mixed signs
        elif kind == 1:
            s = rng.choice(specials, n)  # NaN, infinities, signed zeros, subnormals
        elif kind == 2:
            s = -np.abs(rng.normal(5, 1, n))
        else:
            a = 10.0  # one ulp around the margin boundary
            s = rng.choice([a, a - 1.0, np.nextafter(a - 1.0, 0), np.nextafter(a - 1.0, 20)], n)
        margin = float(rng.choice([0.0, 0.1, 0.5, 1.0, 2.0, -0.1, -0.0, np.inf]))
        yield s.astype(np.float64), pres, margin


@pytest.mark.parametrize("seed", range(4))
def test_compiled_lb1_equals_the_numpy_definition(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("numba", reason="the compiled kernels need the `fast` extra")
    monkeypatch.delenv(_jit.ENV_VAR, raising=False)  # compiled, also in an AXIOMATIC_JIT=0 run
    compiled = _jit.kernel("lb1_pairs")
    assert compiled is not None
    for s, pres, margin in _cases(seed, 150):
        want = _oracle(s, pres, margin)
        got = np.zeros((len(s), len(s)), dtype=np.int8)
        compiled(s, pres.astype(np.int64), margin, got)
        assert got.dtype == np.int8 and got.shape == want.shape
        np.testing.assert_array_equal(got, want, err_msg=f"margin={margin} s={s}")


def test_the_plain_python_kernel_is_the_same_function() -> None:
    """What numba compiles also runs as Python (slowly): same matrix, no numba needed."""
    for s, pres, margin in _cases(9, 40, max_n=12):
        with np.errstate(invalid="ignore", over="ignore"):
            got = np.zeros((len(s), len(s)), dtype=np.int8)
            _jit.lb1_pairs(s, pres.astype(np.int64) * 2, margin, got)  # counts, not 0/1
        np.testing.assert_array_equal(got, _oracle(s, pres, margin))


@pytest.mark.parametrize("seed", range(4))
def test_compiled_lb1_band_equals_the_numpy_definition(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The band kernel gives the definition's matrix wherever it accepts the scores (finite,
    one sign), declines (False, ``out`` untouched) otherwise; up to 400 candidates, so that
    groups hold many documents and long runs of close scores."""
    pytest.importorskip("numba", reason="the compiled kernels need the `fast` extra")
    monkeypatch.delenv(_jit.ENV_VAR, raising=False)
    band = _jit.kernel("lb1_band_pairs")
    assert band is not None
    accepted = 0
    for s, pres, margin in _cases(seed, 150, max_n=400 if seed % 2 else 40):
        pres = pres[:, :8] if seed % 2 else pres  # few terms: large groups
        got = np.zeros((len(s), len(s)), dtype=np.int8)
        ok = band(s, pres.astype(np.int64) * 3, margin, got)
        one_sign = bool(np.isfinite(s).all() and (s.min() >= 0 or s.max() <= 0))
        assert ok == one_sign, s
        if ok:
            accepted += 1
            np.testing.assert_array_equal(got, _oracle(s, pres, margin), err_msg=f"{margin} {s}")
        else:
            assert not got.any()
    assert accepted >= 50


def test_the_plain_python_band_kernel_is_the_same_function() -> None:
    for s, pres, margin in _cases(5, 40, max_n=12):
        got = np.zeros((len(s), len(s)), dtype=np.int8)
        with np.errstate(invalid="ignore", over="ignore"):
            if _jit.lb1_band_pairs(s, pres.astype(np.int64), margin, got):
                np.testing.assert_array_equal(got, _oracle(s, pres, margin))


def test_lb1_takes_the_loop_up_to_the_dense_limit_and_the_band_above(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Up to the dense limit the loop over every pair; above it the band kernel for scores of
    one sign and sorted ranges for scores of both signs."""
    pytest.importorskip("numba", reason="the compiled kernels need the `fast` extra")
    monkeypatch.delenv(_jit.ENV_VAR, raising=False)
    calls: list[tuple[str, int]] = []
    for name in ("lb1_pairs", "lb1_band_pairs"):
        real = _jit.kernel(name)
        assert real is not None

        def spy(s, counts, rel, out, real=real, name=name):  # type: ignore[no-untyped-def]
            calls.append((name, len(s)))
            return real(s, counts, rel, out)

        monkeypatch.setitem(_jit._compiled, name, spy)
    rng = np.random.default_rng(0)
    for n in (30, term_frequency.LB1_DENSE_MAX, term_frequency.LB1_DENSE_MAX + 1):
        C = rng.integers(0, 3, size=(n, 4))
        for shift in (0.0, 10.0):  # gamma scores: one sign; shifted down: both signs
            ctx = QueryContext.from_arrays(C, C.sum(axis=1) + 5)
            ctx.scores = np.sort(rng.gamma(5, 2, n))[::-1].copy() - shift
            got = parse_axiom("LB1").preferences(ctx)
            np.testing.assert_array_equal(got, _oracle(ctx.scores, C > 0, 0.1))
    band, loop = "lb1_band_pairs", "lb1_pairs"
    dense, above = term_frequency.LB1_DENSE_MAX, term_frequency.LB1_DENSE_MAX + 1
    # up to the limit the loop over every pair; above it the band kernel, which declines
    # scores of both signs (then sorted ranges in numpy)
    assert calls == [
        (loop, 30),
        (loop, 30),
        (loop, dense),
        (loop, dense),
        (band, above),
        (band, above),
    ]


def test_env_switch_and_missing_numba_keep_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_jit.ENV_VAR, "0")
    assert not _jit.enabled() and _jit.kernel("lb1_pairs") is None
    assert _jit.warm_up()["numba"] is None
    monkeypatch.delenv(_jit.ENV_VAR)
    assert not _jit.enabled()  # decided once per process
    monkeypatch.setattr(_jit, "_enabled", None)
    monkeypatch.setattr(_jit, "_load_numba", lambda: None)  # as without the extra
    assert not _jit.enabled() and _jit.numba_version() is None
    ctx = QueryContext.from_arrays(np.array([[1, 0], [1, 1], [0, 0]]), np.full(3, 9))
    ctx.scores = np.array([2.0, 1.95, 1.9])
    np.testing.assert_array_equal(
        parse_axiom("LB1").preferences(ctx),
        _oracle(ctx.scores, ctx.counts > 0, 0.1),
    )


def test_warm_up_reports_what_it_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba", reason="the compiled kernels need the `fast` extra")
    monkeypatch.delenv(_jit.ENV_VAR, raising=False)
    info = _jit.warm_up()
    assert info["numba"] and info["kernels"] == sorted(_jit.KERNELS) and info["seconds"] >= 0
    # every kernel is warmed up (compiled or loaded before first use)
    assert {name.split("@")[0] for name in _jit._EXAMPLES} == set(_jit.KERNELS)


def test_compiled_and_numpy_lb1_agree_on_scifact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real candidate lists: BM25 and QL (negative scores) top-100 of 15 SciFact test claims,
    the default margin and a wide one; the engine's matrix with compiled kernels on and off."""
    pytest.importorskip("numba", reason="the compiled kernels need the `fast` extra")
    from shared_data import require_collection

    root = require_collection("scifact")
    from axiomatic.data.catalog import load_dataset
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.lexical import BM25Ranker, QLRanker

    ds = load_dataset("scifact/test", data_root=root.parent)
    idx = dataset_index(ds)
    checked = 0
    for ranker in (BM25Ranker(idx), QLRanker(idx)):
        for q in list(ds.queries.values())[:15]:
            hits = ranker.retrieve(q, 100)
            docs = [ds.documents[d] for d, _ in hits]
            ctx = QueryContext.build(q, docs, idx, scores=[s for _, s in hits])
            for spec in ("LB1", "LB1(margin=0.5)"):
                monkeypatch.setattr(_jit, "_enabled", True)
                fast = parse_axiom(spec).preferences(ctx)
                monkeypatch.setattr(_jit, "_enabled", False)
                np.testing.assert_array_equal(fast, parse_axiom(spec).preferences(ctx))
                checked += int((fast != 0).sum())
    assert checked > 1000  # preferences were compared, not empty matrices

"""Compiled kernels, optional (the ``fast`` extra installs numba).

Where a kernel's numpy form is dominated by per-call overhead rather than by arithmetic, one
compiled loop does the same IEEE-754 operations in a fraction of the time. LB1 on a few hundred
candidates is that case: its numpy form is about a dozen vectorised calls on an ``n x n`` matrix,
each 2-9 us at 100 candidates (broadcasting pays a per-row overhead), so the calls, not the 10^4
comparisons, are the cost: ~50 us warm, ~95 us as the once-per-query call of
``benchmarks/bench_axioms.py compare``; the loop below takes ~12 us warm, ~42 us there. Above
:data:`~axiomatic.axioms.kernels.term_frequency.LB1_DENSE_MAX` candidates the numpy form (sorted
score ranges, ~0.7 ms at 1,000) is as fast as the loop (~0.8 ms), and stays in use.

Every compiled kernel has a numpy twin giving bit-identical results (``tests/axioms/
test_jit.py``); the twin runs when numba is not installed or ``AXIOMATIC_JIT=0`` is set. No
``fastmath``: the same roundings as numpy, NaN and infinities included.

Kernels compile on first use and are cached on disk (numba ``cache=True``, in ``__pycache__``
beside this file or numba's user cache): the first use in a process pays the numba import and a
cache load (a few tenths of a second; a second or two the first time on a machine).
:func:`warm_up` does that up front and says how long it took (``benchmarks/bench_axioms.py``
reports it apart from the per-axiom timings, as it does the reference library's import).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

#: environment switch: ``AXIOMATIC_JIT=0`` keeps every kernel on its numpy form
ENV_VAR = "AXIOMATIC_JIT"

_numba: Any = None
_numba_checked = False
#: decided once per process, on first use (numba importable and ``AXIOMATIC_JIT`` not ``0``)
_enabled: bool | None = None
_compiled: dict[str, Callable[..., Any]] = {}


def _load_numba() -> Any:
    global _numba, _numba_checked
    if not _numba_checked:
        _numba_checked = True
        try:
            import numba

            _numba = numba
        except ImportError:  # the optional extra is not installed: numpy forms only
            _numba = None
    return _numba


def enabled() -> bool:
    """Whether compiled kernels are used: numba importable and ``AXIOMATIC_JIT`` not ``0``
    (read once, on first use: set it before the first axiom runs)."""
    global _enabled
    if _enabled is None:
        _enabled = os.environ.get(ENV_VAR, "1") != "0" and _load_numba() is not None
    return _enabled


def numba_version() -> str | None:
    """The numba in use, or None when compiled kernels are off."""
    return str(_load_numba().__version__) if enabled() else None


def kernel(name: str) -> Callable[..., Any] | None:
    """The compiled form of :data:`KERNELS` ``[name]``, or None when compiled kernels are off.
    (Called on every use of a kernel: a flag and a dictionary look-up once compiled.)"""
    if not enabled():
        return None
    fn = _compiled.get(name)
    if fn is None:
        fn = _compiled[name] = _load_numba().njit(cache=True, nogil=True)(KERNELS[name])
    return fn


def warm_up() -> dict[str, Any]:
    """Compile (or load from the disk cache) every kernel on a tiny input; what it cost."""
    t0 = time.perf_counter()
    used = enabled()
    if used:
        for name, example in _EXAMPLES.items():
            fn = kernel(name)
            assert fn is not None
            fn(*example())
    return {
        "numba": numba_version(),
        "kernels": sorted(KERNELS) if used else [],
        "seconds": time.perf_counter() - t0,
    }


# ---------------------------------------------------------------------- kernels (plain Python:
# numba compiles them; the plain functions are what it compiles, not a fallback)


def lb1_pairs(s: np.ndarray, counts: np.ndarray, rel: float, out: np.ndarray) -> None:
    r"""LB1's preference matrix into ``out`` (``int8[n, n]`` of zeros; allocated by numpy, which
    is cheaper than boxing an array made here) from ``float64`` scores ``s``, ``n x m``
    query-term counts (``m <= 64``) and the margin ``rel``: ``+1`` where the scores are close
    (``|s_i - s_j| <= rel * max(|s_i|, |s_j|)``, the test of ``isclose`` in ``_common``) and
    ``i``'s query terms are a strict superset of ``j``'s, ``-1`` the other way round, else 0.
    The same float operations as the numpy form: NaN fails the test (it does in ``np.maximum``
    too: a NaN score makes ``|s_i - s_j|`` NaN), ``rel * inf`` is ``inf`` and ``0 * inf`` NaN.
    """
    n, m = counts.shape
    bits = np.zeros(n, np.uint64)  # the query terms each document holds, as a bit mask
    for i in range(n):
        b = np.uint64(0)
        for k in range(m):
            if counts[i, k] > 0:
                b |= np.uint64(1) << np.uint64(k)
        bits[i] = b
    for i in range(n):
        si = s[i]
        ai = abs(si)
        bi = bits[i]
        for j in range(i + 1, n):
            bj = bits[j]
            u = bi | bj
            if u == bi:
                if u == bj:  # the same query terms: no preference
                    continue
                pref = 1
            elif u == bj:
                pref = -1
            else:  # neither set holds the other
                continue
            sj = s[j]
            aj = abs(sj)
            mx = ai if ai >= aj else aj
            if abs(si - sj) <= rel * mx:
                out[i, j] = pref
                out[j, i] = -pref


KERNELS: dict[str, Callable[..., Any]] = {"lb1_pairs": lb1_pairs}

_EXAMPLES: dict[str, Callable[[], tuple[Any, ...]]] = {
    "lb1_pairs": lambda: (
        np.linspace(2.0, 1.0, 100),
        np.eye(100, 8, dtype=np.int64),
        0.1,
        np.zeros((100, 100), dtype=np.int8),
    ),
}

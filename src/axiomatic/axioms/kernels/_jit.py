"""Compiled kernels, optional (the ``fast`` extra installs numba).

Where a kernel's numpy form is dominated by per-call overhead rather than by arithmetic, one
compiled loop does the same IEEE-754 operations in a fraction of the time:

- ``sign_pairs``, ``coded_pairs``, ``tf_lnc_pairs``, ``div_pairs``: the ``int8[n, n]`` preference matrix of
  most pair axioms in one pass (their ``preferences_kernel``), instead of the engine's
  ``holds`` block, diagonal and ``holds - holds.T`` (five ``n x n`` numpy passes, one of them a
  transposed read: 1.2-2 ms per axiom at 1,000 candidates on a shared 2-core machine, the
  compiled pass about half that; with a sparse mask, such as PROX1's same query-term subset,
  only the admitted pairs are visited), with the length precondition applied in the same pass;
- ``prox_features``: every proximity feature in one scan of the candidates' token ids (the
  vectorized form is ~40 numpy calls per feature group);
- ``row_counts``: the context's query-term counts from the index rows (scipy's fancy indexing
  costs more in checks than in work at a few hundred candidates).

LB1 on a few hundred candidates is the first case: its numpy form is about a dozen vectorised
calls on an ``n x n`` matrix, each 2-9 us at 100 candidates (broadcasting pays a per-row
overhead), so the calls, not the 10^4 comparisons, are the cost: ~50 us warm, ~95 us as the
once-per-query call of ``benchmarks/bench_axioms.py compare``; the loop below takes ~8 us on a
new candidate list, ~20 us there with the engine's dispatch. The dense loops (``lb1_pairs``,
``dominance_pairs``, ``sign_pairs``, ``div_pairs``, ``coded_pairs``, ``close_pairs``) write
each row contiguously and without a data-dependent branch, every pair computed from both sides:
writing a pair's mirror cell too (a column write per pair) and branching on each outcome
(which the branch predictor cannot know on a new candidate list) cost ~5x at 100 candidates. Above
:data:`~axiomatic.axioms.kernels.term_frequency.LB1_DENSE_MAX` candidates ``lb1_band_pairs``
visits only the pairs that can hold (nested query-term sets, close scores: ~0.3 ms at 1,000
candidates, where the loop over every pair takes ~0.8 ms and the numpy form ~2 ms).

Every compiled kernel has a numpy twin giving bit-identical results (``tests/axioms/
test_jit.py``, ``tests/axioms/test_compiled_preferences.py``); the twin runs when numba is not
installed or ``AXIOMATIC_JIT=0`` is set (a preference kernel then declines and the engine
evaluates the axiom's kernel). No ``fastmath``: the same roundings as numpy, NaN and
infinities included.

Kernels compile on first use and are cached on disk (numba ``cache=True``, in ``__pycache__``
beside this file or numba's user cache): the first use in a process pays the numba import and a
cache load (a few tenths of a second; a second or two the first time on a machine).
:func:`warm_up` does that up front and says how long it took (``benchmarks/bench_axioms.py``
reports it apart from the per-axiom timings, as it does the reference library's import).
"""

from __future__ import annotations

import os
import sys
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


def loaded_kernel(name: str) -> Callable[..., Any] | None:
    """:func:`kernel` where it costs no import: numba is already in the process (an axiom's
    preference kernel, :func:`warm_up` or another library loaded it); else None.

    For helpers whose saving per call is small next to numba's one-off import (a few tenths
    of a second and ~100 MB of memory): the context's counts, the length closeness, STMC2's
    count column. A mining run over count axioms (instances, not preference matrices) then
    never imports numba for them, and keeps its numpy speed and memory."""
    if _numba is None and "numba" not in sys.modules:
        return None
    return kernel(name)


def warm_up() -> dict[str, Any]:
    """Compile (or load from the disk cache) every kernel on a tiny input; what it cost."""
    t0 = time.perf_counter()
    used = enabled()
    if used:
        for name, example in _EXAMPLES.items():
            fn = kernel(name.split("@")[0])  # "name@variant": another argument type
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
    # contiguous, branch-free rows, each pair computed from both sides (the test is symmetric
    # and the sign antisymmetric, exactly): writing each pair's mirror cell as well, a column
    # write per pair, and a data-dependent branch per pair (which the branch predictor cannot
    # know on a new candidate list) made the loop ~5x slower at 100 candidates
    for i in range(n):
        si = s[i]
        ai = abs(si)
        bi = bits[i]
        for j in range(n):
            bj = bits[j]
            u = bi | bj
            # +1: i's terms a strict superset of j's, -1 the other way, 0 equal or neither
            pref = np.int8(u == bi) - np.int8(u == bj)
            sj = s[j]
            aj = abs(sj)
            mx = ai if ai >= aj else aj
            out[i, j] = pref * np.int8(abs(si - sj) <= rel * mx)


def lb1_band_pairs(s: np.ndarray, counts: np.ndarray, rel: float, out: np.ndarray) -> bool:
    r""":func:`lb1_pairs` (the same tests, the same float operations, the same ``out``) visiting
    only the pairs that can hold: those whose query-term sets are strictly nested, among them
    those whose scores are close. False (``out`` untouched) for scores of both signs or not
    finite: the caller then takes :func:`lb1_pairs`.

    With every score ``>= 0`` (scores all ``<= 0`` are negated: neither ``|a - b|`` nor
    ``max(|a|, |b|)`` changes, negation is exact), the documents are grouped by their set of
    query terms (a bit mask), each group sorted by score. For a superset group ``A`` and a
    subset group ``B``, a pair ``(a, b)`` with ``v_b <= v_a`` has ``max = v_a``, so its test
    ``fl(v_a - v_b) <= fl(rel * v_a)`` is monotone in ``v_b`` (rounding is monotone): from the
    largest ``v_b <= v_a`` downwards the pairs pass until the first that fails. The pairs with
    ``v_a < v_b`` are scanned the same way from ``b``. Each pair is tested once; the cost is
    the pairs that pass plus one failing test per document and group pair (at 1,000 SciFact
    candidates ~13,000 entries written instead of 500,000 pairs tested).
    """
    n, m = counts.shape
    neg = False
    for i in range(n):
        x = s[i]
        if not (x > -np.inf and x < np.inf):
            return False
    lo = np.inf
    hi = -np.inf
    for i in range(n):
        lo = min(lo, s[i])
        hi = max(hi, s[i])
    if n and lo < 0:
        if hi > 0:
            return False
        neg = True
    v = np.empty(n)
    for i in range(n):
        v[i] = -s[i] if neg else s[i]
    bits = np.zeros(n, np.uint64)
    for i in range(n):
        b = np.uint64(0)
        for k in range(m):
            if counts[i, k] > 0:
                b |= np.uint64(1) << np.uint64(k)
        bits[i] = b
    ub = np.unique(bits)
    u = len(ub)
    cls = np.searchsorted(ub, bits)
    start = np.zeros(u + 1, np.int64)  # group c is members[start[c]:start[c + 1]]
    for i in range(n):
        start[cls[i] + 1] += 1
    for c in range(u):
        start[c + 1] += start[c]
    fill = start[:u].copy()
    members = np.empty(n, np.int64)
    vals = np.empty(n)
    for i in np.argsort(v):  # each group in ascending score order
        c = cls[i]
        members[fill[c]] = i
        vals[fill[c]] = v[i]
        fill[c] += 1
    for ga in range(u):
        ba = ub[ga]
        a0 = start[ga]
        a1 = start[ga + 1]
        for gb in range(u):
            bb = ub[gb]
            if gb == ga or (ba | bb) != ba:  # B's terms must be a strict subset of A's
                continue
            b0 = start[gb]
            b1 = start[gb + 1]
            hb = b0  # B's documents with v_b <= v_a are b0 .. hb - 1
            for p in range(a0, a1):
                va = vals[p]
                while hb < b1 and vals[hb] <= va:
                    hb += 1
                t = rel * va
                q = hb - 1
                while q >= b0 and abs(va - vals[q]) <= t:
                    out[members[p], members[q]] = 1
                    out[members[q], members[p]] = -1
                    q -= 1
            ha = a0  # A's documents with v_a < v_b are a0 .. ha - 1
            for r in range(b0, b1):
                vb = vals[r]
                while ha < a1 and vals[ha] < vb:
                    ha += 1
                t = rel * vb
                q = ha - 1
                while q >= a0 and abs(vb - vals[q]) <= t:
                    out[members[q], members[r]] = 1
                    out[members[r], members[q]] = -1
                    q -= 1
    return True


def sign_pairs(
    f1: np.ndarray,
    f2: np.ndarray,
    codes: np.ndarray,
    mask: np.ndarray,
    close: np.ndarray,
    out: np.ndarray,
) -> None:
    r"""A preference matrix ``holds - holds.T`` into ``out`` (``int8[n, n]`` of zeros) where
    ``holds[i, j] = mask[codes[i], codes[j]] and close[i, j] and (f1_i, f2_i) > (f1_j, f2_j)``,
    the order lexicographic (``f1_i > f1_j``, or ``f1_i == f1_j`` and ``f2_i > f2_j``; a NaN
    compares false, as in numpy). ``mask`` (``bool[u, u]`` over the codes ``0 <= codes < u``)
    and ``close`` (``bool[n, n]``; shape ``(0, 0)``: every pair) must be symmetric: then
    ``holds - holds.T`` is ``mask * close * (gt - lt)``, one pass with no transposed read.

    Only the cells the mask admits are visited: the documents are grouped by code, and the
    rows of one code loop over the columns of the codes it admits (all columns, contiguous,
    when it admits every document), so a sparse mask (the same query-term subset) costs its
    pairs, not ``n^2``.
    """
    n = len(f1)
    u = mask.shape[0]
    size = np.zeros(u + 1, np.int64)
    for j in range(n):
        size[codes[j] + 1] += 1
    for a in range(u):
        size[a + 1] += size[a]
    members = np.empty(n, np.int64)
    fill = size[:u].copy()
    for j in range(n):
        members[fill[codes[j]]] = j
        fill[codes[j]] += 1
    cols = np.empty(n, np.int64)
    dense = close.shape[0] == n
    for a in range(u):
        if size[a + 1] == size[a]:
            continue
        k = 0
        for b in range(u):
            if mask[a, b]:
                for t in range(size[b], size[b + 1]):
                    cols[k] = members[t]
                    k += 1
        if k == 0:
            continue
        for t in range(size[a], size[a + 1]):
            i = members[t]
            a1 = f1[i]
            a2 = f2[i]
            if k == n:  # every column: a contiguous, branch-free row
                for j in range(n):
                    b1 = f1[j]
                    b2 = f2[j]
                    gt = (a1 > b1) | ((a1 == b1) & (a2 > b2))
                    lt = (a1 < b1) | ((a1 == b1) & (a2 < b2))
                    v = np.int8(gt) - np.int8(lt)
                    if dense:
                        v = v * np.int8(close[i, j])
                    out[i, j] = v
            else:
                for x in range(k):
                    j = cols[x]
                    if dense and not close[i, j]:
                        continue
                    b1 = f1[j]
                    b2 = f2[j]
                    gt = (a1 > b1) | ((a1 == b1) & (a2 > b2))
                    lt = (a1 < b1) | ((a1 == b1) & (a2 < b2))
                    out[i, j] = np.int8(gt) - np.int8(lt)


def div_pairs(C: np.ndarray, V: np.ndarray, close: np.ndarray, out: np.ndarray) -> None:
    r"""DIV's preference matrix into ``out`` (``int8[n, n]`` of zeros) from the ``n x |q|``
    counts ``C`` and the documents' vocabulary sizes ``V`` (int64): ``d_i`` holds over ``d_j``
    when its Jaccard overlap with the query is smaller, ``J = k / (|q| + V - k)`` with ``k``
    its distinct query terms (0 when ``k = 0``), masked by ``close`` (``(0, 0)``: every pair).
    The float operations of :func:`axiomatic.axioms.kernels.aspects.div` (``(|q| + V) - k``,
    one division), so the same values; one pass instead of a dozen numpy calls."""
    n, m = C.shape
    J = np.empty(n)
    for i in range(n):
        k = 0
        for w in range(m):
            if C[i, w] > 0:
                k += 1
        if k > 0:
            union = (np.float64(m) + np.float64(V[i])) - np.float64(k)
            J[i] = np.float64(k) / (union if union > 0 else 1.0)
        else:
            J[i] = 0.0
    dense = close.shape[0] == n
    for i in range(n):  # contiguous, branch-free rows (as sign_pairs)
        a = J[i]
        if dense:
            for j in range(n):
                out[i, j] = (np.int8(a < J[j]) - np.int8(a > J[j])) * np.int8(close[i, j])
        else:
            for j in range(n):
                out[i, j] = np.int8(a < J[j]) - np.int8(a > J[j])


def group_sign_pairs(
    f1: np.ndarray, f2: np.ndarray, key: np.ndarray, close: np.ndarray, out: np.ndarray
) -> None:
    r""":func:`sign_pairs` with the mask "the same key, and a key >= 0": the preference matrix
    (``int8[n, n]`` of zeros) of ``holds[i, j] = key_i == key_j >= 0 and close[i, j] and
    (f1_i, f2_i) > (f1_j, f2_j)``. The documents are sorted by key and only the pairs inside a
    run of equal keys are visited (PROX1-3: the same query-term subset as a bit mask, -1 for
    fewer than two terms; PROX4-5: every query term or not)."""
    n = len(f1)
    dense = close.shape[0] == n
    order = np.argsort(key, kind="mergesort")
    s = 0
    while s < n:
        e = s + 1
        k = key[order[s]]
        while e < n and key[order[e]] == k:
            e += 1
        if k >= 0:
            for x in range(s, e):
                i = order[x]
                a1 = f1[i]
                a2 = f2[i]
                for y in range(x + 1, e):
                    j = order[y]
                    if dense and not close[i, j]:
                        continue
                    b1 = f1[j]
                    b2 = f2[j]
                    gt = (a1 > b1) | ((a1 == b1) & (a2 > b2))
                    lt = (a1 < b1) | ((a1 == b1) & (a2 < b2))
                    v = np.int8(gt) - np.int8(lt)
                    out[i, j] = v
                    out[j, i] = -v
        s = e


def presence_keys(counts: np.ndarray, every: bool, out: np.ndarray) -> None:
    r"""``group_sign_pairs``' keys from the ``n x |q|`` counts (``|q| <= 62``): with ``every``
    0 for a document holding every query term (``|q| > 1``), else the set of its query terms
    as a bit mask when it holds at least two, and -1 otherwise."""
    n, m = counts.shape
    for i in range(n):
        bits = 0
        held = 0
        for w in range(m):
            if counts[i, w] > 0:
                bits |= 1 << w
                held += 1
        if every:
            out[i] = 0 if held == m and m > 1 else -1
        else:
            out[i] = bits if held > 1 else -1


def coded_pairs(pref: np.ndarray, codes: np.ndarray, close: np.ndarray, out: np.ndarray) -> None:
    r"""``out[i, j] = pref[codes[i], codes[j]] * close[i, j]`` (``int8[n, n]``, every cell written;
    ``close`` of shape ``(0, 0)``: every pair): a preference matrix over the distinct rows
    (``int8[u, u]``) gathered to the documents, as ``pref[codes][:, codes]`` does, with the
    length precondition applied. Each distinct code's row is gathered once (``u x n``) and
    copied to the rows of its documents.
    """
    n = len(codes)
    u = pref.shape[0]
    rows = np.empty((u, n), np.int8)
    for a in range(u):
        for j in range(n):
            rows[a, j] = pref[a, codes[j]]
    dense = close.shape[0] == n
    for i in range(n):
        r = rows[codes[i]]
        if dense:
            for j in range(n):
                out[i, j] = r[j] * np.int8(close[i, j])
        else:
            for j in range(n):
                out[i, j] = r[j]


def tf_lnc_pairs(L: np.ndarray, C: np.ndarray, close: np.ndarray, out: np.ndarray) -> None:
    r"""TF-LNC's preference matrix into ``out`` (``int8[n, n]`` of zeros): ``sign(L_i - L_j)``
    where some query term has equal rest length ``L_i - C_iw == L_j - C_jw`` (int64, exact, the
    test of :func:`axiomatic.axioms.kernels.length.tf_lnc`), masked by ``close`` (``(0, 0)``:
    every pair). Per term, the documents sorted by rest length: only the pairs inside a run of
    equal rests are visited (every pair of a run has the preference, whichever term made it).
    """
    n, m = C.shape
    dense = close.shape[0] == n
    rest = np.empty(n, np.int64)
    for w in range(m):
        for i in range(n):
            rest[i] = L[i] - C[i, w]
        order = np.argsort(rest, kind="mergesort")
        s = 0
        while s < n:
            e = s + 1
            while e < n and rest[order[e]] == rest[order[s]]:
                e += 1
            for x in range(s, e):
                i = order[x]
                for y in range(x + 1, e):
                    j = order[y]
                    d = L[i] - L[j]
                    if d == 0 or (dense and not close[i, j]):
                        continue
                    v = 1 if d > 0 else -1
                    out[i, j] = v
                    out[j, i] = -v
            s = e


def close_pairs(
    L: np.ndarray, delta: float, delta_rel: float, use_delta: bool, use_rel: bool, out: np.ndarray
) -> bool:
    r"""``out[i, j] = length_ok(L_i, L_j, delta, delta_rel)`` (``bool[n, n]``) for int64
    lengths, from per-document bounds: the numpy thresholds of
    :func:`axiomatic.axioms.kernels._common.lengths_close` (``T_i`` the largest difference
    document ``i`` admits as the longer one: ``floor(delta)``, and ``floor(delta_rel * L_i)``
    moved by the exact quotient test, then checked; ``B_i = L_i - T_i``) with the same float
    operations, one division or three per document, then ``L_j >= B_i and L_i >= B_j`` per
    pair (``G & G.T`` of the numpy form). False, ``out`` unspecified, where those
    thresholds do not apply (a length outside ``[0, 2^52)``, a negative or NaN tolerance, a
    check that fails): the caller then evaluates :func:`length_ok` on the distinct lengths."""
    n = len(L)
    top = 0
    for i in range(n):
        if L[i] < 0 or L[i] >= 2**52:
            return False
        if L[i] > top:
            top = L[i]
    if (use_delta and not delta >= 0) or (use_rel and not delta_rel >= 0):
        return False
    cap = use_delta and delta < top  # else every difference up to the longer length passes
    fd = np.int64(np.floor(delta)) if cap else np.int64(0)
    rel = use_rel and delta_rel < 1  # delta_rel >= 1 admits every difference up to a
    B = np.empty(n, np.int64)
    for i in range(n):
        a = L[i]
        t = a
        if cap and fd < t:
            t = fd
        if rel:
            af = float(a)
            safe = af if af > 0 else 1.0  # a = 0: k = 0, quotient 0 (length_ok's 0.0)
            k = np.floor(delta_rel * af)  # off by at most one from the exact threshold
            if (k + 1) / safe <= delta_rel:
                k += 1
            if k / safe > delta_rel:
                k -= 1
            if not (k >= 0 and k / safe <= delta_rel and (k >= af or (k + 1) / safe > delta_rel)):
                return False
            if np.int64(k) < t:
                t = np.int64(k)
        B[i] = a - t
    for i in range(n):
        bi = B[i]
        li = L[i]
        for j in range(n):
            out[i, j] = (L[j] >= bi) & (li >= B[j])
    return True


def dominance_pairs(C: np.ndarray, relaxed: bool, close: np.ndarray, out: np.ndarray) -> None:
    r"""TFC1's preference matrix into ``out`` (``int8[n, n]`` of zeros) straight from the
    ``n x |q|`` counts: ``d_i`` holds over ``d_j`` when ``c(w, d_i) > c(w, d_j)`` for every
    term (strict, extended) or ``>=`` for every term with a larger sum (relaxed), masked by
    ``close`` (``(0, 0)``: every pair); the integer comparisons of
    :func:`axiomatic.axioms.kernels.term_frequency.tfc1` on the distinct rows. Up to 8 terms
    with counts in ``0..127`` (most queries and documents) all terms of a pair are compared
    in one word (SWAR), else term by term."""
    n, m = C.shape
    dense = close.shape[0] == n
    S = np.zeros(n, np.int64)
    small = 0 < m <= 8  # every count in 0..127: the rows packed one byte per term
    for i in range(n):
        for w in range(m):
            c = C[i, w]
            S[i] += c
            if c < 0 or c > 127:
                small = False
    if small:
        # each row packed into one uint64, a byte per term, every term compared at once: in
        # byte w of (P_i | H) - P_j (H the high bit of every byte) no borrow crosses bytes, as
        # 128 + x - y stays in 1..255, and the high bit is set exactly when x >= y;
        # subtracting one more per used byte tests x > y (128 + x - y - 1 in 0..254)
        P = np.zeros(n, np.uint64)
        for i in range(n):
            b = np.uint64(0)
            for w in range(m):
                b |= np.uint64(C[i, w]) << np.uint64(8 * w)
            P[i] = b
        high = np.uint64(0)  # the high bit of every byte
        used = np.uint64(0)  # ... of the used bytes
        ones = np.uint64(0)  # one in every used byte (the strict forms)
        for w in range(8):
            high |= np.uint64(0x80) << np.uint64(8 * w)
            if w < m:
                used |= np.uint64(0x80) << np.uint64(8 * w)
                if not relaxed:
                    ones |= np.uint64(1) << np.uint64(8 * w)
        # contiguous, branch-free rows, every pair from both sides (as lb1_pairs)
        for i in range(n):
            pi = P[i]
            si = S[i]
            for j in range(n):
                pj = P[j]
                ge = (((pi | high) - pj - ones) & used) == used
                le = (((pj | high) - pi - ones) & used) == used
                if relaxed:
                    ge = ge & (si > S[j])
                    le = le & (si < S[j])
                v = np.int8(ge) - np.int8(le)
                if dense:
                    v = v * np.int8(close[i, j])
                out[i, j] = v
        return
    for i in range(n):
        for j in range(i + 1, n):
            if dense and not close[i, j]:
                continue
            ge = True  # every count of i >= j's (> in the strict forms)
            le = True
            for w in range(m):
                x = C[i, w]
                y = C[j, w]
                if relaxed:
                    ge = ge and x >= y
                    le = le and x <= y
                else:
                    ge = ge and x > y
                    le = le and x < y
                if not ge and not le:
                    break
            if relaxed:
                ge = ge and S[i] > S[j]
                le = le and S[i] < S[j]
            if ge:
                out[i, j] = 1
                out[j, i] = -1
            elif le:
                out[i, j] = -1
                out[j, i] = 1


def tfc3_points(U: np.ndarray, idf: np.ndarray, margin: float, out: np.ndarray) -> None:
    r"""TFC3's points of every distinct count row against every other into ``out`` (``int64[u,
    u]`` of zeros): for each pair of query terms ``(a, b)`` with close idf (``|idf_a - idf_b|
    <= margin * max(|idf_a|, |idf_b|)``, the float test of ``isclose``), row ``x`` holding both
    earns a point against row ``y`` that holds only one of them as often as ``x`` holds both
    (``c(a, y) = c(a, x) + c(b, x)`` and ``c(b, y) = 0``, or the other way round). The
    integer form of :func:`axiomatic.axioms.kernels.term_frequency._tfc3_points` (its float
    counts are integers below 2^53: the same comparisons, the same sums)."""
    u, m = U.shape
    for a in range(m):
        for b in range(a + 1, m):
            x = idf[a]
            y = idf[b]
            ax = abs(x)
            ay = abs(y)
            mx = ax if ax >= ay else ay
            if not (abs(x - y) <= margin * mx):  # NaN: not close
                continue
            for i in range(u):
                ca = U[i, a]
                cb = U[i, b]
                if ca == 0 or cb == 0:
                    continue
                tot = ca + cb
                for j in range(u):
                    ja = U[j, a]
                    jb = U[j, b]
                    if (ja == tot and jb == 0) or (jb == tot and ja == 0):
                        out[i, j] += 1


def ratio_pairs(
    L: np.ndarray,
    cq: np.ndarray,
    ct: np.ndarray,
    r: np.ndarray,
    c: np.ndarray,
    margin: float,
    close: np.ndarray,
    out: np.ndarray,
) -> None:
    r"""STMC2's preference matrix into ``out`` (``int8[n, n]`` of zeros): for ``i`` in ``r``
    (``c(q*, d_i) > 0``) and ``j`` in ``c`` (``c(t*, d_j) > 0 = c(q*, d_j)``), ``d_i`` holds
    over ``d_j`` when ``isclose(L_j / L_i, ct_j / cq_i, margin)`` (the float64 operations of
    :func:`axiomatic.axioms.kernels.semantic._stmc2_block` and ``_common.isclose``), masked by
    ``close`` (``(0, 0)``: every pair); ``r`` and ``c`` are disjoint, so ``+1`` at ``(i, j)``
    and ``-1`` at ``(j, i)`` is ``holds - holds.T``."""
    dense = close.shape[0] == len(L)
    for x in range(len(r)):
        i = r[x]
        li = L[i]
        qi = cq[i]
        for y in range(len(c)):
            j = c[y]
            if dense and not close[i, j]:
                continue
            a = L[j] / li
            b = ct[j] / qi
            if abs(a - b) <= margin * max(abs(a), abs(b)):
                out[i, j] = 1
                out[j, i] = -1


def row_counts(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    rows: np.ndarray,
    lut: np.ndarray,
    out: np.ndarray,
    slots: np.ndarray,
) -> None:
    r"""``out[i, lut[t]] += c`` for every stored entry ``(t, c)`` of CSR row ``rows[i]`` (rows
    ``< 0`` skipped; ``lut[t] = -1`` for the columns not asked for): the ``n x |q|`` counts
    ``tf[rows][:, cols].toarray()`` gives (duplicates summed), in one pass over the rows'
    entries. With ``slots`` of ``out``'s shape (else ``0 x 0``), ``slots[i, lut[t]]`` is set to
    the entry's place in its row (its *slot*, what the index's positional index stores per
    token; with duplicate entries, the last's); the caller fills it with -1 first."""
    keep = slots.shape[0] > 0
    for i in range(len(rows)):
        r = rows[i]
        if r < 0:
            continue
        first = indptr[r]
        for e in range(first, indptr[r + 1]):
            k = lut[indices[e]]
            if k >= 0:
                out[i, k] += data[e]
                if keep:
                    slots[i, k] = e - first


def prox_features(
    toks: np.ndarray,
    starts: np.ndarray,
    rows: np.ndarray,
    row_ptr: np.ndarray,
    row_terms: np.ndarray,
    counts: np.ndarray,
    lut: np.ndarray,
    qslots: np.ndarray,
    ph: np.ndarray,
    out: np.ndarray,
) -> bool:
    r"""The proximity features of :mod:`axiomatic.axioms.kernels.proximity` for every candidate
    ``i`` with at least two distinct query terms (``counts[i] > 0`` twice), its tokens being
    ``toks[starts[rows[i]]:starts[rows[i] + 1]]``: term ids when ``row_ptr`` is empty, else
    slots in the row (the index's positional index: a token ``s`` of row ``r`` is term
    ``row_terms[row_ptr[r] + s]``, the CSR arrays of the counts); ``lut[id]`` is a term id's
    query term (``0 <= k < |q|``) or -1; ``qslots`` (``n x |q|``, or ``0 x 0``), where given
    with slots, the slot of every query term in candidate ``i``'s row (-1: absent; what
    ``row_counts`` records while counting), so that a row's query terms by slot need no
    look-up per distinct term (``lut`` is then not read); ``ph`` the analyzed query's ids (the
    phrase). Written
    into the rows of ``out`` (``6 x n``: ``avg_between``, ``first_sum``, ``phrase``,
    ``group_occ``, ``group_cnt``, ``span``; the other candidates keep what the caller put
    there):

    - ``avg_between`` mean of ``|first(a) - first(b)| - 1`` over pairs of present terms,
      ``first_sum`` the sum of first positions;
    - ``phrase`` the start of the first occurrence of ``ph`` (unchanged: none);
    - for every occurrence, its group (per present term the closest occurrence, ties to the
      smaller position): ``group_occ`` the fewest non-query tokens strictly inside a group,
      ``group_cnt`` how many groups have that few, ``span`` the mean group width.

    Every value is a sum of integers below 2^53 or one division, so the same floats as the
    vectorized form in any order of summation. Returns False, writing nothing, when such a
    candidate has no row (``rows[i] < 0``: not in the index; the caller takes the positional
    table).
    """
    n, m = counts.shape
    slotted = len(row_ptr) > 0
    by_slot = slotted and qslots.shape[0] > 0
    lo = np.full(n, -1, np.int64)
    hi = np.full(n, -1, np.int64)
    widest = 0  # the most distinct terms of a used row (slots)
    for i in range(n):
        held = 0
        for w in range(m):
            if counts[i, w] > 0:
                held += 1
        if held >= 2:
            r = rows[i]
            if r < 0:
                return False
            lo[i] = starts[r]
            hi[i] = starts[r + 1]
            if slotted and row_ptr[r + 1] - row_ptr[r] > widest:
                widest = row_ptr[r + 1] - row_ptr[r]
    # touch the first tokens of every row to be scanned: independent loads whose cache and
    # TLB misses overlap here, instead of one row at a time in the scan below
    chk = np.int64(0)
    for i in range(n):
        if lo[i] >= 0:
            for at in range(lo[i], hi[i], 32):
                chk += np.int64(toks[at]) * (i + 1)
            if slotted:  # the row's terms (the phrase test decodes tokens through them)
                r = rows[i]
                for at in range(row_ptr[r], row_ptr[r + 1], 16):
                    chk += np.int64(row_terms[at])
    if chk == -7:  # never for real data (a sum of non-negative products): keeps the loads
        widest += 1
    # slots: each row's query terms by slot (a look-up per distinct term, not per token)
    slot_q = np.empty(widest, lut.dtype)
    tl = slot_q if slotted else lut
    avg_between = out[0]
    first_sum = out[1]
    phrase = out[2]
    group_occ = out[3]
    group_cnt = out[4]
    span = out[5]
    k_ph = len(ph)
    longest = 0
    for i in range(len(lo)):
        if lo[i] >= 0 and hi[i] - lo[i] > longest:
            longest = hi[i] - lo[i]
    occ = np.empty(longest, np.int64)  # occurrence positions, ascending
    occ_t = np.empty(longest, np.int64)  # their terms
    tp = np.empty(longest, np.int64)  # occurrence positions by term, ascending per term
    first = np.empty(m, np.int64)
    start = np.empty(m + 1, np.int64)
    fill = np.empty(m, np.int64)
    for i in range(len(lo)):
        a = lo[i]
        if a < 0:
            continue
        L = hi[i] - a
        b = 0
        if slotted:
            b = row_ptr[rows[i]]
            width_i = row_ptr[rows[i] + 1] - b
            if by_slot:
                # a row's query terms by slot from their recorded slots (distinct query
                # terms are distinct ids, so distinct slots)
                for j in range(width_i):
                    slot_q[j] = -1
                for w in range(m):
                    s = qslots[i, w]
                    if s >= 0:
                        slot_q[s] = w
            else:
                for j in range(width_i):
                    slot_q[j] = lut[row_terms[b + j]]
        n_occ = 0
        first[:] = -1
        start[:] = 0
        for p in range(L):
            k = tl[toks[a + p]]
            if k >= 0:
                occ[n_occ] = p
                occ_t[n_occ] = k
                n_occ += 1
                start[k + 1] += 1
                if first[k] < 0:
                    first[k] = p
        # first occurrences
        total = 0.0
        pairs = 0
        fs = 0.0
        for x in range(m):
            if first[x] < 0:
                continue
            fs += first[x]
            for y in range(x + 1, m):
                if first[y] >= 0:
                    total += abs(first[x] - first[y]) - 1
                    pairs += 1
        avg_between[i] = total / max(pairs, 1)
        first_sum[i] = fs
        # the phrase: it starts with a query term, so only occurrences can start it
        if k_ph > 0:
            for e in range(n_occ):
                s = occ[e]
                if s + k_ph > L:
                    break
                ok = True
                for off in range(k_ph):
                    t = toks[a + s + off]
                    tid = np.int64(row_terms[b + t]) if slotted else np.int64(t)
                    if tid != ph[off]:
                        ok = False
                        break
                if ok:
                    phrase[i] = s
                    break
        if n_occ == 0:
            continue
        # closest groupings: positions of each term, sorted, term-major
        for w in range(m):
            start[w + 1] += start[w]
            fill[w] = start[w]
        for e in range(n_occ):
            k = occ_t[e]
            tp[fill[k]] = occ[e]
            fill[k] += 1
        best = -1
        count = 0
        width = 0.0
        for e in range(n_occ):
            p = occ[e]
            g_lo = p
            g_hi = p
            for w in range(m):
                s0 = start[w]
                s1 = start[w + 1]
                if s1 == s0:
                    continue
                # the first position >= p of term w (binary search) and its predecessor: the
                # closer one, the right one only on a strict win
                x, y = s0, s1
                while x < y:
                    mid = (x + y) // 2
                    if tp[mid] < p:
                        x = mid + 1
                    else:
                        y = mid
                if x == s0:
                    cpos = tp[x]
                elif x == s1:
                    cpos = tp[x - 1]
                else:
                    left = tp[x - 1]
                    right = tp[x]
                    cpos = right if right - p < p - left else left
                if cpos < g_lo:
                    g_lo = cpos
                if cpos > g_hi:
                    g_hi = cpos
            inside = 0
            if g_hi > g_lo:
                # tokens in [g_lo + 1, g_hi) minus the occurrences among them (binary searches
                # in the ascending occurrence positions)
                x, y = 0, n_occ
                while x < y:
                    mid = (x + y) // 2
                    if occ[mid] < g_lo + 1:
                        x = mid + 1
                    else:
                        y = mid
                u, v = x, n_occ
                while u < v:
                    mid = (u + v) // 2
                    if occ[mid] < g_hi:
                        u = mid + 1
                    else:
                        v = mid
                inside = (g_hi - g_lo - 1) - (u - x)
            if best < 0 or inside < best:
                best = inside
                count = 1
            elif inside == best:
                count += 1
            width += g_hi - g_lo
        group_occ[i] = best
        group_cnt[i] = count
        span[i] = width / n_occ
    return True


KERNELS: dict[str, Callable[..., Any]] = {
    "lb1_pairs": lb1_pairs,
    "lb1_band_pairs": lb1_band_pairs,
    "div_pairs": div_pairs,
    "sign_pairs": sign_pairs,
    "coded_pairs": coded_pairs,
    "group_sign_pairs": group_sign_pairs,
    "presence_keys": presence_keys,
    "tf_lnc_pairs": tf_lnc_pairs,
    "prox_features": prox_features,
    "row_counts": row_counts,
    "ratio_pairs": ratio_pairs,
    "close_pairs": close_pairs,
    "tfc3_points": tfc3_points,
    "dominance_pairs": dominance_pairs,
}

#: one call per kernel with the argument types the kernels are called with (warm_up compiles or
#: loads exactly these signatures, so that no first use compiles)
_EXAMPLES: dict[str, Callable[[], tuple[Any, ...]]] = {
    "lb1_pairs": lambda: (
        np.linspace(2.0, 1.0, 100),
        np.eye(100, 8, dtype=np.int64),
        0.1,
        np.zeros((100, 100), dtype=np.int8),
    ),
    "div_pairs": lambda: (
        np.eye(5, 3, dtype=np.int64),
        np.arange(5, dtype=np.int64) + 3,
        np.zeros((0, 0), dtype=bool),
        np.zeros((5, 5), dtype=np.int8),
    ),
    "lb1_band_pairs": lambda: (
        np.linspace(2.0, 1.0, 100),
        np.eye(100, 8, dtype=np.int64),
        0.1,
        np.zeros((100, 100), dtype=np.int8),
    ),
    "sign_pairs": lambda: (
        np.linspace(2.0, 1.0, 10),
        np.zeros(10),
        np.zeros(10, dtype=np.int64),
        np.ones((1, 1), dtype=bool),
        np.ones((10, 10), dtype=bool),
        np.empty((10, 10), dtype=np.int8),
    ),
    "group_sign_pairs": lambda: (
        np.linspace(2.0, 1.0, 10),
        np.zeros(10),
        np.arange(10, dtype=np.int64) % 3 - 1,
        np.zeros((0, 0), dtype=bool),
        np.zeros((10, 10), dtype=np.int8),
    ),
    "presence_keys": lambda: (
        np.eye(4, 3, dtype=np.int64),
        False,
        np.empty(4, dtype=np.int64),
    ),
    "coded_pairs": lambda: (
        np.eye(3, dtype=np.int8),
        np.arange(10, dtype=np.int64) % 3,
        np.ones((10, 10), dtype=bool),
        np.empty((10, 10), dtype=np.int8),
    ),
    "tfc3_points": lambda: (
        np.array([[1, 1, 0], [2, 0, 0], [0, 2, 1]], dtype=np.int64),
        np.array([1.0, 1.05, 3.0]),
        0.1,
        np.zeros((3, 3), dtype=np.int64),
    ),
    "close_pairs": lambda: (
        np.arange(5, dtype=np.int64),
        1.0,
        0.1,
        True,
        True,
        np.empty((5, 5), dtype=bool),
    ),
    "dominance_pairs": lambda: (
        np.eye(5, 2, dtype=np.int64),
        True,
        np.zeros((0, 0), dtype=bool),
        np.zeros((5, 5), dtype=np.int8),
    ),
    "ratio_pairs": lambda: (
        np.array([3.0, 6.0, 4.0]),
        np.array([1.0, 0.0, 0.0]),
        np.array([0.0, 2.0, 1.0]),
        np.array([0]),
        np.array([1, 2]),
        0.2,
        np.zeros((0, 0), dtype=bool),
        np.zeros((3, 3), dtype=np.int8),
    ),
    "row_counts": lambda: (
        np.array([0, 2, 3], dtype=np.int32),  # the index's CSR arrays (scipy keeps int32)
        np.array([0, 4, 1], dtype=np.int32),
        np.array([2, 1, 5], dtype=np.int32),
        np.array([1, -1, 0]),
        np.array([1, 0, -1, -1, -1], dtype=np.int32),
        np.zeros((3, 2), dtype=np.int64),
        np.full((3, 2), -1, dtype=np.int32),
    ),
    "prox_features": lambda: _prox_example(np.uint8),
    "prox_features@uint16": lambda: _prox_example(np.uint16),
    "prox_features@uint32": lambda: _prox_example(np.uint32),
    "prox_features@int64": lambda: _prox_example(np.int64),
    "tf_lnc_pairs": lambda: (
        np.arange(10, dtype=np.int64),
        np.eye(10, 3, dtype=np.int64),
        np.ones((10, 10), dtype=bool),
        np.zeros((10, 10), dtype=np.int8),
    ),
}


def _prox_example(dtype: Any) -> tuple[Any, ...]:
    """``prox_features`` on tokens of ``dtype``: slots of the index's positional index
    (``uint8``, ``uint16`` or ``uint32``, with the count matrix's ``int32`` CSR arrays, as
    scipy keeps them), or the ``int64`` term ids of the positional table of documents outside
    the index (no CSR arrays)."""
    counts = np.array([[1, 1], [0, 0], [2, 1]])
    lut = np.array([-1, 0, 1, -1, -1, -1], dtype=np.int16)
    rows = np.array([0, -1, 1])
    tail = (np.array([1, 2]), np.zeros((6, 3)))
    no_slots = np.zeros((0, 0), dtype=np.int32)
    if dtype == np.int64:  # term ids
        toks = np.array([1, 5, 2, 1, 3, 2, 1], dtype=dtype)
        none = np.zeros(0, dtype=np.int32)
        return (toks, np.array([0, 3, 7]), rows, none, none, counts, lut, no_slots, *tail)
    # rows {1, 2, 5} and {1, 2, 3}: the same tokens as slots, the query terms 1 and 2 in
    # slots 0 and 1 of both (as ``row_counts`` records them; the look-up table is then unused)
    row_ptr = np.array([0, 3, 6], dtype=np.int32)
    row_terms = np.array([1, 2, 5, 1, 2, 3], dtype=np.int32)
    toks = np.array([0, 2, 1, 0, 2, 1, 0], dtype=dtype)
    qslots = np.array([[0, 1], [-1, -1], [0, 1]], dtype=np.int32)
    no_lut = np.zeros(0, dtype=np.int16)
    return (toks, np.array([0, 3, 7]), rows, row_ptr, row_terms, counts, no_lut, qslots, *tail)

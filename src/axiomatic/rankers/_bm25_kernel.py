"""Compiled BM25 retrieval, optional (the ``fast`` extra installs numba).

Full-collection BM25 retrieval of many queries in one call: term-at-a-time accumulation over the
index's column-major **count** matrix, with each posting's BM25 weight computed from its count
and the document's length norm as it is read, then a size-``k`` heap per query. No weight matrix
is stored (the counts the index already holds are the only per-posting data), and there is no
per-query Python: the Python side turns every query into term ids
(:meth:`~axiomatic.index.collection.CollectionIndex.query_term_ids`, one dictionary lookup per
token) and makes one call; the kernel counts each query's terms itself.

The arithmetic is the numpy form's (:func:`axiomatic.rankers.lexical.bm25_weights` then the
``qtf`` product, summed in query-term order), so scores are bit-identical to it; ties are broken
by row (ascending), as :func:`axiomatic.rankers.lexical._top_k` does. No ``fastmath``.
``AXIOMATIC_JIT=0`` (or numba not installed) keeps retrieval on the numpy form
(``tests/rankers/test_bm25_kernel.py`` checks the two agree).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

#: the same environment switch as the compiled axiom kernels
ENV_VAR = "AXIOMATIC_JIT"

#: documents per block of the top-k scan (a block whose best score cannot enter is skipped)
_BLOCK = 64

_state: dict[str, Any] = {}


def compiled(name: str = "bm25_top_k") -> Callable[..., Any] | None:
    """The compiled kernel ``name`` (:func:`bm25_top_k`), or None when numba is off (decided
    once per process)."""
    if "on" not in _state:
        on = os.environ.get(ENV_VAR, "1") != "0"
        if on:
            try:
                import numba
            except ImportError:  # the optional extra is not installed: the numpy form
                on = False
        _state["on"] = on
    if not _state["on"]:
        return None
    if name not in _state:
        import numba

        _state[name] = numba.njit(cache=True, nogil=True)(_KERNELS[name])
    return _state[name]  # type: ignore[no-any-return]


def bm25_top_k(
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    norm: np.ndarray,
    idf: np.ndarray,
    q_ptr: np.ndarray,
    q_ids: np.ndarray,
    k: int,
    out_rows: np.ndarray,
    out_scores: np.ndarray,
    out_n: np.ndarray,
) -> None:
    """Top ``k`` documents of each query into ``out_rows``/``out_scores`` (``n_q x k``; the first
    ``out_n[q]`` entries of row ``q`` are filled, best first, ties by row).

    ``indptr``/``indices``/``counts``: the CSC count matrix (``n_docs x n_terms``); ``norm``:
    ``k1 * (1 - b + b * |d| / avgdl)`` per document; ``idf`` per term. Query ``q``'s analyzed
    tokens are the term ids ``q_ids[q_ptr[q]:q_ptr[q + 1]]`` (``-1``: a stopword or a term the
    collection lacks); a term counts once per occurrence (``qtf``) and its first occurrence
    fixes its place in the sum. A posting adds ``(idf * tf) / (tf + norm[d]) * qtf``; only
    documents with at least one posting compete.
    """
    n_docs = norm.shape[0]
    scores = np.zeros(n_docs, np.float64)
    touched = np.empty(n_docs, np.int64)
    heap_s = np.empty(k, np.float64)
    heap_r = np.empty(k, np.int64)
    slot = np.full(idf.shape[0], -1, np.int64)
    bits = scores.view(np.int64)
    n_blocks = (n_docs + _BLOCK - 1) // _BLOCK
    block_bits = np.zeros(n_blocks, np.int64)
    block_max = block_bits.view(np.float64)
    for q in range(q_ptr.shape[0] - 1):
        # the query's distinct terms in order of first occurrence, and their counts
        q_lo = q_ptr[q]
        q_hi = q_ptr[q + 1]
        q_terms = np.empty(q_hi - q_lo, np.int64)
        q_tf = np.empty(q_hi - q_lo, np.float64)
        m = 0
        for j in range(q_lo, q_hi):
            t = q_ids[j]
            if t < 0:
                continue
            if slot[t] < 0:
                slot[t] = m
                q_terms[m] = t
                q_tf[m] = 1.0
                m += 1
            else:
                q_tf[slot[t]] += 1.0
        for j in range(m):
            slot[q_terms[j]] = -1
        # Every posting adds a positive amount (idf > 0, tf >= 1, qtf >= 1, norm >= 0), so a
        # document has been reached iff its score is not 0. Queries with few postings list the
        # documents they reach as they go (then select and reset only those); the others
        # accumulate without that bookkeeping and scan the dense score array once.
        n_post = 0
        for j in range(m):
            n_post += indptr[q_terms[j] + 1] - indptr[q_terms[j]]
        sparse = n_post * 8 < n_docs
        n_touched = 0
        for j in range(m):
            t = q_terms[j]
            w = idf[t]
            qtf = q_tf[j]
            if sparse:
                for p in range(indptr[t], indptr[t + 1]):
                    d = indices[p]
                    tf = np.float64(counts[p])
                    if scores[d] == 0.0:
                        touched[n_touched] = d
                        n_touched += 1
                    scores[d] += (w * tf) / (tf + norm[d]) * qtf
            else:
                for p in range(indptr[t], indptr[t + 1]):
                    d = indices[p]
                    tf = np.float64(counts[p])
                    scores[d] += (w * tf) / (tf + norm[d]) * qtf
        # a min-heap of the best k: its root is the worst of them; "(s, r) worse than (s2, r2)"
        # is written out as ``s < s2 or (s == s2 and r > r2)`` (a lower score, or a tie and a
        # higher row). ``thr`` is the root's score once the heap is full: a document scoring
        # below it cannot enter, and that one well-predicted comparison is all most documents
        # cost (the dense scan reads every document's score once).
        size = 0
        thr = 0.0
        n_cand = n_touched if sparse else n_docs
        if not sparse:
            # each block's largest score, as the integer its bits are (non-negative doubles
            # order as their bit patterns do): an integer maximum the compiler vectorizes
            for blk in range(n_blocks):
                mx = 0
                for i in range(blk * _BLOCK, min(blk * _BLOCK + _BLOCK, n_docs)):
                    v = bits[i]
                    if v > mx:
                        mx = v
                block_bits[blk] = mx
        i = 0
        while i < n_cand:
            if not sparse and i % _BLOCK == 0:
                top = block_max[i // _BLOCK]
                if top < thr or top == 0.0:  # no document of the block can enter
                    end = min(i + _BLOCK, n_docs)
                    scores[i:end] = 0.0
                    i = end
                    continue
            d = touched[i] if sparse else i
            i += 1
            s = scores[d]
            scores[d] = 0.0  # reset for the next query in the same pass
            if s < thr or s == 0.0:  # below the k-th, or not reached
                continue
            if size < k:
                # sift up
                pos = size
                size += 1
                while pos > 0:
                    parent = (pos - 1) >> 1
                    if s < heap_s[parent] or (s == heap_s[parent] and d > heap_r[parent]):
                        heap_s[pos] = heap_s[parent]
                        heap_r[pos] = heap_r[parent]
                        pos = parent
                    else:
                        break
                heap_s[pos] = s
                heap_r[pos] = d
                if size == k:
                    thr = heap_s[0]
            elif s > heap_s[0] or d < heap_r[0]:  # s >= thr, the root's score
                # replace the root, sift down
                pos = 0
                while True:
                    c = 2 * pos + 1
                    if c >= size:
                        break
                    if c + 1 < size and (
                        heap_s[c + 1] < heap_s[c]
                        or (heap_s[c + 1] == heap_s[c] and heap_r[c + 1] > heap_r[c])
                    ):
                        c += 1
                    if heap_s[c] < s or (heap_s[c] == s and heap_r[c] > d):
                        heap_s[pos] = heap_s[c]
                        heap_r[pos] = heap_r[c]
                        pos = c
                    else:
                        break
                heap_s[pos] = s
                heap_r[pos] = d
                thr = heap_s[0]
        # pop the heap worst-first into the output, from the back
        out_n[q] = size
        for m in range(size - 1, -1, -1):
            out_scores[q, m] = heap_s[0]
            out_rows[q, m] = heap_r[0]
            last_s = heap_s[m]
            last_r = heap_r[m]
            pos = 0
            while True:
                c = 2 * pos + 1
                if c >= m:
                    break
                if c + 1 < m and (
                    heap_s[c + 1] < heap_s[c]
                    or (heap_s[c + 1] == heap_s[c] and heap_r[c + 1] > heap_r[c])
                ):
                    c += 1
                if heap_s[c] < last_s or (heap_s[c] == last_s and heap_r[c] > last_r):
                    heap_s[pos] = heap_s[c]
                    heap_r[pos] = heap_r[c]
                    pos = c
                else:
                    break
            if m > 0:
                heap_s[pos] = last_s
                heap_r[pos] = last_r


_KERNELS: dict[str, Callable[..., Any]] = {
    "bm25_top_k": bm25_top_k,
}

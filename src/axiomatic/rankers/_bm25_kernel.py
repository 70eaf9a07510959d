"""Compiled BM25 retrieval, optional (the ``fast`` extra installs numba).

Full-collection BM25 retrieval of many queries in one call, in two passes per query, with the
scores of the exact (exhaustive) form:

1. **Approximate pass** over an *impact* index (:func:`bm25_impacts`, built once per ranker and
   ``k1``/``b``, by its numpy form :func:`bm25_impacts_numpy`, which loads no compiler): each posting's BM25 weight ``(idf * tf) / (tf + norm[d])``, quantized to a
   ``uint16`` step of its term (``scale[t] = max weight of t / 65535``, never 0), next to the
   document id in the smallest unsigned type that holds it (``uint16`` up to 65,536
   documents). Term-at-a-time accumulation is then one load, one conversion and one
   multiply-add per posting (no division), over 4 bytes per posting (bm25s' float32 scores and
   int32 ids: 8). A quantized weight is within ``scale[t]`` of the exact one, so a document's
   approximate score is within ``err = sum over the query's terms of qtf * scale[t]`` (plus
   float rounding, :data:`_REL_SLACK`) of its exact score.
2. **Exact pass**: every document whose approximate score is at least the ``k``-th largest
   approximate score minus ``2 err`` (no other document can be in the top ``k``: the ``k``
   documents above the ``k``-th approximate score all score at least ``k``-th minus ``err``
   exactly) is rescored from its counts (one pass over its row of the index's CSR counts,
   the rows of all of a query's candidates first touched once per cache line so that their
   memory latencies overlap)
   with the arithmetic of the numpy form (:func:`axiomatic.rankers.lexical.bm25_weights` then
   the ``qtf`` product, summed in query-term order), so scores are bit-identical to it; ties
   are broken by row (ascending), as :func:`axiomatic.rankers.lexical._top_k` does. No
   ``fastmath``.

The approximate pass skips 64-document blocks whose best approximate score is more than
``2 err`` below the ``k``-th best: from the start, as the ``k``-th largest block maximum is a
lower bound of that score (``k`` distinct documents reach it). There is no per-query Python: the Python side turns every
query into term ids (:meth:`~axiomatic.index.collection.CollectionIndex.query_term_ids`, one
dictionary lookup per token) and makes one call; the kernel counts each query's terms itself.
The hot loops (accumulation, block maxima, the exact pass) index with unsigned integers
(``np.uint64``): numba wraps a negative signed index around (a compare and a select on every
access, which also keeps LLVM from vectorizing the block maxima), and an unsigned one cannot be
negative. Only the index type differs; the arithmetic, hence every score, is the same.
``AXIOMATIC_JIT=0`` (or numba not installed) keeps retrieval on the numpy form
(``tests/rankers/test_bm25_kernel.py`` checks the two agree).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

import numpy as np

#: the same environment switch as the compiled axiom kernels
ENV_VAR = "AXIOMATIC_JIT"

#: documents per block of the top-k scan (a block whose best score cannot enter is skipped)
_BLOCK = 64

#: largest quantized weight (``uint16``)
_LEVELS = 65535.0

#: error allowance per quantization step (a step is at most 1.0 of it; float rounding of the
#: division and the products is below 1e-12 of it)
_STEP_SLACK = 1.01

#: allowance for float rounding of both sums, relative to the query's largest possible score
#: (each sum is within ``m * 2**-52`` of the real one for ``m`` terms)
_REL_SLACK = 1e-9

_state: dict[str, Any] = {}


def compiled(name: str = "bm25_top_k") -> Callable[..., Any] | None:
    """The compiled kernel ``name`` (:func:`bm25_top_k` or :func:`bm25_impacts`), or None when
    numba is off (decided once per process)."""
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


def bm25_impacts(
    tf_ptr: np.ndarray,
    tf_idx: np.ndarray,
    tf_data: np.ndarray,
    norm: np.ndarray,
    idf: np.ndarray,
    imp_ptr: np.ndarray,
    imp_docs: np.ndarray,
    imp_q: np.ndarray,
    scale: np.ndarray,
) -> None:
    """Fill the impact index from the CSR counts (``tf_ptr``/``tf_idx``/``tf_data``, ``n_docs x
    n_terms``): ``imp_ptr`` (``n_terms + 1``, given: the cumulative number of positive counts
    per term) delimits each term's postings, rows ascending, in ``imp_docs``; ``imp_q`` holds
    each posting's weight ``(idf * tf) / (tf + norm[d])`` as a multiple of ``scale[t]`` (filled
    here: the term's largest weight / 65535), rounded, at least 1. Stored zero counts are no
    postings."""
    n_docs = tf_ptr.shape[0] - 1
    n_terms = imp_ptr.shape[0] - 1
    top = np.zeros(n_terms, np.float64)
    for d in range(n_docs):
        for p in range(tf_ptr[d], tf_ptr[d + 1]):
            if tf_data[p] > 0:
                t = tf_idx[p]
                tf = np.float64(tf_data[p])
                w = (idf[t] * tf) / (tf + norm[d])
                if w > top[t]:
                    top[t] = w
    for t in range(n_terms):
        scale[t] = top[t] / _LEVELS
    at = imp_ptr[:-1].copy()
    for d in range(n_docs):
        for p in range(tf_ptr[d], tf_ptr[d + 1]):
            if tf_data[p] > 0:
                t = tf_idx[p]
                tf = np.float64(tf_data[p])
                w = (idf[t] * tf) / (tf + norm[d])
                v = np.floor(w / scale[t] + 0.5)
                if v < 1.0:
                    v = 1.0
                elif v > _LEVELS:
                    v = _LEVELS
                imp_docs[at[t]] = d
                imp_q[at[t]] = np.uint16(v)
                at[t] += 1


#: postings per chunk of :func:`bm25_impacts_numpy` (its temporaries: ~40 bytes per posting)
_IMPACT_CHUNK = 1 << 15


def bm25_impacts_numpy(
    tf_ptr: np.ndarray,
    tf_idx: np.ndarray,
    tf_data: np.ndarray,
    norm: np.ndarray,
    idf: np.ndarray,
    imp_ptr: np.ndarray,
    imp_docs: np.ndarray,
    imp_q: np.ndarray,
    scale: np.ndarray,
    chunk: int = _IMPACT_CHUNK,
) -> None:
    """:func:`bm25_impacts` in numpy, bit for bit (the same float64 operations in the same
    order), without numba: two passes over the CSR counts in chunks of about ``chunk``
    postings (whole rows), so that no temporary is as large as the postings. The first pass
    takes each term's largest weight (``scale``); the second quantizes each chunk's postings
    and writes them at their term's next free slots (a stable sort of the chunk by term keeps
    rows ascending within a term)."""
    n_docs = tf_ptr.shape[0] - 1
    n_terms = imp_ptr.shape[0] - 1
    bounds = [0]
    while bounds[-1] < n_docs:
        lo = bounds[-1]
        hi = int(np.searchsorted(tf_ptr, tf_ptr[lo] + chunk, side="right")) - 1
        bounds.append(min(max(hi, lo + 1), n_docs))

    def weights(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a, b = int(tf_ptr[lo]), int(tf_ptr[hi])
        rows = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(tf_ptr[lo : hi + 1]))
        t = tf_idx[a:b]
        counts = tf_data[a:b]
        if not (counts > 0).all():  # stored zero counts are no postings
            keep = counts > 0
            rows, t, counts = rows[keep], t[keep], counts[keep]
        tf = counts.astype(np.float64)
        return rows, t, (idf[t] * tf) / (tf + norm[rows])

    top = np.zeros(n_terms, np.float64)
    for lo, hi in itertools.pairwise(bounds):
        _rows, t, w = weights(lo, hi)
        np.maximum.at(top, t, w)
    scale[:] = top / _LEVELS
    del top
    at = imp_ptr[:-1].copy()
    for lo, hi in itertools.pairwise(bounds):
        rows, t, w = weights(lo, hi)
        if len(t) == 0:
            continue
        order = np.argsort(t, kind="stable")
        t = t[order]
        # rank of each posting among its term's postings of this chunk
        start = np.concatenate(([True], t[1:] != t[:-1]))
        first = np.flatnonzero(start)
        rank = np.arange(len(t)) - np.repeat(first, np.diff(np.append(first, len(t))))
        dest = at[t] + rank
        imp_docs[dest] = rows[order]
        v = np.floor(w[order] / scale[t] + 0.5)
        np.clip(v, 1.0, _LEVELS, out=v)
        imp_q[dest] = v.astype(np.uint16)
        at[t[first]] += np.diff(np.append(first, len(t)))


def bm25_top_k(
    imp_ptr: np.ndarray,
    imp_docs: np.ndarray,
    imp_q: np.ndarray,
    scale: np.ndarray,
    tf_ptr: np.ndarray,
    tf_idx: np.ndarray,
    tf_data: np.ndarray,
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

    ``imp_*``/``scale``: the impact index (:func:`bm25_impacts`); ``tf_*``: the CSR count matrix
    (``n_docs x n_terms``), read for the candidates of the exact pass; ``norm``: ``k1 * (1 - b + b * |d| / avgdl)`` per document; ``idf`` per
    term. Query ``q``'s analyzed tokens are the term ids ``q_ids[q_ptr[q]:q_ptr[q + 1]]``
    (``-1``: a stopword or a term the collection lacks); a term counts once per occurrence
    (``qtf``) and its first occurrence fixes its place in the sum. A posting adds
    ``(idf * tf) / (tf + norm[d]) * qtf``; only documents with at least one posting compete.
    """
    n_docs = norm.shape[0]
    scores = np.zeros(n_docs, np.float64)
    touched = np.empty(n_docs, np.int64)
    cand = np.empty(n_docs, np.int64)
    cand_s = np.empty(n_docs, np.float64)
    heap = np.empty(k, np.float64)
    heap_s = np.empty(k, np.float64)
    heap_r = np.empty(k, np.int64)
    slot = np.full(idf.shape[0], -1, np.int64)
    longest = 0
    for q in range(q_ptr.shape[0] - 1):
        longest = max(longest, q_ptr[q + 1] - q_ptr[q])
    q_terms = np.empty(longest, np.int64)
    q_tf = np.empty(longest, np.float64)
    q_cnt = np.zeros(longest, np.int64)
    bits = scores.view(np.int64)
    n_blocks = (n_docs + _BLOCK - 1) // _BLOCK
    block_bits = np.zeros(n_blocks, np.int64)
    block_max = block_bits.view(np.float64)
    for q in range(q_ptr.shape[0] - 1):
        # the query's distinct terms in order of first occurrence, and their counts
        q_lo = q_ptr[q]
        q_hi = q_ptr[q + 1]
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
        # the approximate scores' distance to the exact ones, doubled
        err = 0.0
        most = 0.0
        n_post = 0
        for j in range(m):
            t = q_terms[j]
            err += q_tf[j] * scale[t]
            most += q_tf[j] * scale[t] * _LEVELS
            n_post += imp_ptr[t + 1] - imp_ptr[t]
        margin = 2.0 * (_STEP_SLACK * err + _REL_SLACK * most)
        # Every posting adds a positive amount (a quantized weight is >= 1 step), so a document
        # has been reached iff its score is not 0. Queries with few postings list the
        # documents they reach as they go (then select and reset only those); the others
        # accumulate without that bookkeeping and scan the dense score array once.
        sparse = n_post * 8 < n_docs
        n_touched = 0
        for j in range(m):
            t = q_terms[j]
            step = scale[t] * q_tf[j]
            # unsigned positions (see the module docstring): no negative-index wrapping
            lo = np.uint64(imp_ptr[t])
            hi = np.uint64(imp_ptr[t + 1])
            if sparse:
                for p in range(lo, hi):
                    d = imp_docs[p]
                    if scores[d] == 0.0:
                        touched[n_touched] = d
                        n_touched += 1
                    scores[d] += np.float64(imp_q[p]) * step
            else:
                for p in range(lo, hi):
                    scores[imp_docs[p]] += np.float64(imp_q[p]) * step
        # A min-heap of the best k approximate scores: its root is the k-th best so far
        # (``thr`` once the heap is full). A document whose approximate score is below
        # ``thr - margin`` cannot be in the exact top k; the others are candidates (kept with
        # their approximate score; ``thr`` only rises, so a final filter drops those it passed).
        size = 0
        thr = -np.inf
        floor = -np.inf  # a lower bound of the k-th best approximate score
        n_c = 0
        n_cand = n_touched if sparse else n_docs
        if not sparse:
            # each block's largest score, as the integer its bits are (non-negative doubles
            # order as their bit patterns do): an integer maximum the compiler vectorizes
            for blk in range(n_blocks):
                mx = 0
                lo = np.uint64(blk * _BLOCK)
                hi = np.uint64(min(blk * _BLOCK + _BLOCK, n_docs))
                for i in range(lo, hi):
                    v = bits[i]
                    if v > mx:
                        mx = v
                block_bits[blk] = mx
            # the k-th largest block maximum: k distinct documents score at least that, so
            # the k-th best score does too; blocks below it (less the margin) are skipped from
            # the start instead of once the heap has filled
            if n_blocks >= k:
                for blk in range(n_blocks):
                    v = block_max[blk]
                    if size < k:
                        pos = size
                        size += 1
                        while pos > 0:
                            parent = (pos - 1) >> 1
                            if v < heap[parent]:
                                heap[pos] = heap[parent]
                                pos = parent
                            else:
                                break
                        heap[pos] = v
                    elif v > heap[0]:
                        pos = 0
                        while True:
                            c = 2 * pos + 1
                            if c >= size:
                                break
                            if c + 1 < size and heap[c + 1] < heap[c]:
                                c += 1
                            if heap[c] < v:
                                heap[pos] = heap[c]
                                pos = c
                            else:
                                break
                        heap[pos] = v
                if heap[0] > 0.0:
                    floor = heap[0]
                size = 0
        lim = floor - margin  # documents below it cannot enter the top k
        i = 0
        while i < n_cand:
            if not sparse and i % _BLOCK == 0:
                top = block_max[i // _BLOCK]
                if top < lim or top == 0.0:  # no document of the block can enter
                    end = min(i + _BLOCK, n_docs)
                    scores[i:end] = 0.0
                    i = end
                    continue
            d = touched[i] if sparse else i
            i += 1
            s = scores[d]
            scores[d] = 0.0  # reset for the next query in the same pass
            if s < lim or s == 0.0:  # cannot enter, or not reached
                continue
            cand[n_c] = d
            cand_s[n_c] = s
            n_c += 1
            if size < k:
                # sift up
                pos = size
                size += 1
                while pos > 0:
                    parent = (pos - 1) >> 1
                    if s < heap[parent]:
                        heap[pos] = heap[parent]
                        pos = parent
                    else:
                        break
                heap[pos] = s
                if size == k:
                    thr = heap[0]
                    lim = max(thr, floor) - margin
            elif s > heap[0]:
                # replace the root, sift down
                pos = 0
                while True:
                    c = 2 * pos + 1
                    if c >= size:
                        break
                    if c + 1 < size and heap[c + 1] < heap[c]:
                        c += 1
                    if heap[c] < s:
                        heap[pos] = heap[c]
                        pos = c
                    else:
                        break
                heap[pos] = s
                thr = heap[0]
                lim = max(thr, floor) - margin
        # the exact pass: rescore the candidates from their counts, as the numpy form does,
        # into a min-heap of the best k; "(s, r) worse than (s2, r2)" is written out as
        # ``s < s2 or (s == s2 and r > r2)`` (a lower score, or a tie and a higher row)
        # the candidates' rows of counts, one load per cache line of each first, so that
        # their misses overlap instead of following each other
        touch = 0
        for c_i in range(n_c):
            if cand_s[c_i] >= lim:
                d = cand[c_i]
                for p in range(np.uint64(tf_ptr[d]), np.uint64(tf_ptr[d + 1]), np.uint64(16)):
                    touch += tf_idx[p] + tf_data[p]
        if touch == -1:
            out_n[q] = -1
        size = 0
        for c_i in range(n_c):
            if cand_s[c_i] < lim:
                continue
            d = cand[c_i]
            # the document's counts of the query terms (``slot`` maps a term to its place)
            for p in range(np.uint64(tf_ptr[d]), np.uint64(tf_ptr[d + 1])):
                j = slot[np.uint64(tf_idx[p])]
                if j >= 0:
                    q_cnt[j] += tf_data[p]
            s = 0.0
            for j in range(m):
                if q_cnt[j] > 0:
                    t = q_terms[j]
                    tf = np.float64(q_cnt[j])
                    s += (idf[t] * tf) / (tf + norm[d]) * q_tf[j]
                q_cnt[j] = 0
            if size < k:
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
            elif s > heap_s[0] or (s == heap_s[0] and d < heap_r[0]):
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
        for j in range(m):
            slot[q_terms[j]] = -1
        # pop the heap worst-first into the output, from the back
        out_n[q] = size
        for m2 in range(size - 1, -1, -1):
            out_scores[q, m2] = heap_s[0]
            out_rows[q, m2] = heap_r[0]
            last_s = heap_s[m2]
            last_r = heap_r[m2]
            pos = 0
            while True:
                c = 2 * pos + 1
                if c >= m2:
                    break
                if c + 1 < m2 and (
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
            if m2 > 0:
                heap_s[pos] = last_s
                heap_r[pos] = last_r


_KERNELS: dict[str, Callable[..., Any]] = {
    "bm25_top_k": bm25_top_k,
    "bm25_impacts": bm25_impacts,
}

"""Hand-computed instance sets for the four thesis axioms (Rennings 2019, ch. 3 and eq. 4.1).

Every expected set below was derived by hand from the thesis equations (cited per test), not from
the kernels; each test names the equation it checks. Pairs are ``(i, j)`` with ``d_i`` the
document the axiom favours; TFC2 triples are ``(i, j, k)`` with ``S_i < S_j < S_k``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.kernels import length_ok


def ctx(counts, lens, idf=None, qtf=None, full=None):
    c = QueryContext.from_arrays(np.asarray(counts), np.asarray(lens), idf=idf, qtf=qtf)
    if full is not None:  # full term vectors (query terms first), for LNC2
        c._cache["full_tf"] = sp.csr_matrix(np.asarray(full, dtype=np.int64))
    return c


def pairs(axiom, c):
    inst = parse_axiom(axiom).instances(c)
    assert inst.k is None
    return sorted(zip(inst.i.tolist(), inst.j.tolist(), strict=True))


def triples(axiom, c):
    inst = parse_axiom(axiom).instances(c)
    return sorted(zip(inst.i.tolist(), inst.j.tolist(), inst.k.tolist(), strict=True))


# ---------------------------------------------------------------------- TFC1
def test_tfc1_strict_eq_3_1():
    """Eq. 3.1: q = {w}, |d_1| = |d_2|, c(w,d_1) > c(w,d_2) (strict >, ties excluded)."""
    c = ctx([[3], [1], [3], [2]], [10, 10, 10, 11])
    # d3 has another length; d0 and d2 tie on the count
    assert pairs("TFC1(variant='strict')", c) == [(0, 1), (2, 1)]
    # a two-term query is outside eq. 3.1
    c2 = ctx([[3, 1], [1, 0]], [10, 10])
    assert pairs("TFC1(variant='strict')", c2) == []


CT = [[2, 2], [1, 1], [2, 1], [1, 0], [3, 0]]  # sums 4, 2, 3, 1, 3; all length 10


def test_tfc1_extended_eq_3_2():
    """Eq. 3.2: |d_i| = |d_j| and c(w,d_i) > c(w,d_j) for *all* w in q."""
    c = ctx(CT, [10] * 5)
    # (0,2): 2 > 2 fails; (2,1): 1 > 1 fails; (4,3): 0 > 0 fails
    assert pairs("TFC1(variant='extended')", c) == [(0, 1), (0, 3), (2, 3)]


def test_tfc1_relaxed_eq_3_3():
    """Eq. 3.3: c(w,d_i) >= c(w,d_j) for all w and sum_w c(w,d_i) > sum_w c(w,d_j).

    d4 = (3,0) has a larger sum than d1 = (1,1) and d2 = (2,1) but fewer of w_2, so it is not
    preferred over them (no term may have a higher count in d_j); it is over d3 = (1,0).
    d5 = (1,1) repeats d1: equal sums, so neither (1,5) nor (5,1) (the sum must be larger).
    """
    c = ctx([*CT, [1, 1]], [10] * 6)
    expected = [(0, 1), (0, 2), (0, 3), (0, 5), (1, 3), (2, 1), (2, 3), (2, 5), (4, 3), (5, 3)]
    assert pairs("TFC1(variant='relaxed', delta=0)", c) == expected
    # relaxed default (delta_rel=0.1) on equal lengths is the same set
    assert pairs("TFC1", c) == expected


def test_tfc1_relaxed_absolute_delta():
    """Eq. 3.3 length condition abs(|d_i| - |d_j|) <= delta_TFC1 (inclusive)."""
    c = ctx([[2], [1]], [10, 12])
    assert pairs("TFC1(variant='relaxed', delta=1)", c) == []
    assert pairs("TFC1(variant='relaxed', delta=2)", c) == [(0, 1)]


def test_relative_delta_eq_4_1_uses_max_length_and_is_inclusive():
    """Eq. 4.1: abs(|d_i| - |d_j|) / max(|d_i|, |d_j|) <= delta*.

    |d| = 100 and 91: 9/100 = 0.09 <= 0.09 (with min or mean in the denominator it would be
    0.0989 or 0.0942 > 0.09). |d| = 90 and 27: 63/90 = 0.7 exactly, so delta* = 0.7 (a value of
    the thesis's high range) admits the pair; 0.7 * 90 rounds to 62.999..., so the product form
    ``diff <= delta* * max`` would wrongly reject it.
    """
    c = ctx([[2], [1]], [100, 91])
    assert pairs("TFC1(delta_rel=0.09)", c) == [(0, 1)]
    assert pairs("TFC1(delta_rel=0.089)", c) == []
    c2 = ctx([[2], [1]], [90, 27])
    assert pairs("TFC1(delta_rel=0.7)", c2) == [(0, 1)]
    assert pairs("TFC1(delta_rel=0.69)", c2) == []
    # exhaustively on the thesis grids (0-0.1 step 0.01, 0.1-1.0 step 0.1), lengths 1..200
    grid = [round(0.01 * s, 2) for s in range(11)] + [round(0.1 * s, 1) for s in range(1, 11)]
    la, lb = np.meshgrid(np.arange(1, 201), np.arange(1, 201))
    for d in grid:
        want = np.abs(la - lb) / np.maximum(la, lb) <= d
        assert (length_ok(la, lb, None, d) == want).all(), d
    # two empty documents are of equal length
    assert length_ok(np.array([0]), np.array([0]), None, 0.0).all()


# ---------------------------------------------------------------------- TFC2
def test_tfc2_strict_eq_3_4():
    """Eq. 3.4: q = {w}, equal lengths, c(w,d_1) > 0, c(w,d_2) - c(w,d_1) = 1 = c(w,d_3) - c(w,d_2).

    counts 1,2,3,0,4,2,3,5 with d6 (count 3) one term longer. d3 (count 0) cannot be d_1, and
    the step-2 progression (d0, d2, d7) = 1,3,5 is not strict.
    """
    c = ctx([[1], [2], [3], [0], [4], [2], [3], [5]], [5, 5, 5, 5, 5, 5, 6, 5])
    strict = [(0, 1, 2), (0, 5, 2), (1, 2, 4), (2, 4, 7), (5, 2, 4)]
    assert triples("TFC2(variant='strict')", c) == strict
    assert triples("TFC2(variant='extended')", c) == strict  # |q| = 1: eq. 3.5 = eq. 3.4
    # relaxed (3.6) with delta = 0 also accepts the equal step of 2
    assert triples("TFC2(variant='relaxed', delta=0)", c) == sorted([*strict, (0, 2, 7)])
    # strict needs a single-term query
    c2 = ctx([[1, 1], [2, 2], [3, 3]], [5, 5, 5])
    assert triples("TFC2(variant='strict')", c2) == []


# d0..d8 (two terms), all of length 7; sums 2,4,6,4,5,6,1,3,5
CT2 = [[1, 1], [2, 2], [3, 3], [1, 3], [3, 2], [5, 1], [0, 1], [1, 2], [2, 3]]


def test_tfc2_extended_eq_3_5():
    """Eq. 3.5: for all w: c(w,d_i) > 0 and per-term differences exactly 1 (d_i -> d_j -> d_k).

    (d6, d7, d8) = (0,1) -> (1,2) -> (2,3) has +1 steps but c(w_1, d6) = 0, so it is excluded.
    """
    c = ctx(CT2, [7] * 9)
    assert triples("TFC2(variant='extended')", c) == [(0, 1, 2)]


def test_tfc2_relaxed_eq_3_6():
    """Eq. 3.6: S_k > S_j > S_i > 0 and c(w,d_j) - c(w,d_i) = c(w,d_k) - c(w,d_j) for all w.

    By hand (midpoints d_j = (d_i + d_k) / 2 in the count space, ordered by query-term sum):
    (d0,d1,d2) steps (1,1); (d7,d1,d4) steps (1,0); (d0,d7,d3) steps (0,1); (d6,d7,d8) steps
    (1,1) (d6 lacks w_1 but has a query term); (d3,d8,d2) steps (1,0); (d3,d4,d5) steps (2,-1):
    the thesis constrains the equality per term and the sums only, not the sign of each step.
    """
    c = ctx(CT2, [7] * 9)
    expected = [(0, 1, 2), (0, 7, 3), (3, 4, 5), (3, 8, 2), (6, 7, 8), (7, 1, 4)]
    assert triples("TFC2(variant='relaxed', delta=0)", c) == expected
    assert triples("TFC2", c) == expected


def test_tfc2_triple_length_span_eq_3_6_and_4_1():
    """Eq. 3.6: max over pairs of the triple of |d_1| - |d_2| <= delta; eq. 4.1 for triples uses
    the shortest and the longest document: (12 - 9) / 12 = 0.25."""
    c = ctx([[1], [2], [3]], [9, 10, 12])
    assert triples("TFC2(delta=2)", c) == []
    assert triples("TFC2(delta=3)", c) == [(0, 1, 2)]
    assert triples("TFC2(delta_rel=0.25)", c) == [(0, 1, 2)]
    assert triples("TFC2(delta_rel=0.24)", c) == []


# ---------------------------------------------------------------------- M-TDC
# two terms, w_1 = t0 rarer; d4 has another length; d5 is not a swap of anything
CM = [[3, 1], [1, 3], [2, 2], [2, 2], [3, 1], [4, 0]]
LM = [10, 10, 10, 10, 11, 10]


def test_m_tdc_strict_eq_3_7():
    """Eq. 3.7: q = {w_1, w_2}, |d_1| = |d_2|, c(w_1,d_1) = c(w_2,d_2), c(w_2,d_1) = c(w_1,d_2);
    if idf(w_1) >= idf(w_2) and c(w_1,d_1) >= c(w_1,d_2) then S(d_1) >= S(d_2).

    (d0, d1): (3,1)/(1,3) swapped, the rarer t0 is more frequent in d0 -> (0, 1) only.
    (d2, d3): (2,2)/(2,2) satisfy every condition both ways -> listed once, no preference.
    (d5, d0): (4,0)/(3,1) is TDC-like but not a swap. d4 differs in length.
    """
    c = ctx(CM, LM, idf=[2.0, 1.0])
    assert pairs("M-TDC(variant='strict')", c) == [(0, 1), (2, 3)]
    H = parse_axiom("M-TDC(variant='strict')").holds(c)
    assert H[0, 1] and not H[1, 0] and H[2, 3] and H[3, 2]
    P = parse_axiom("M-TDC(variant='strict')").preferences(c)
    assert P[0, 1] == 1 and P[2, 3] == 0
    # the extension (3.8) coincides with 3.7 on two-term queries
    assert pairs("M-TDC(variant='extended')", c) == [(0, 1), (2, 3)]
    # three-term queries are outside eq. 3.7
    c3 = ctx([[1, 1, 1], [1, 1, 1]], [5, 5], idf=[3.0, 2.0, 1.0])
    assert pairs("M-TDC(variant='strict')", c3) == []


def test_m_tdc_strict_equal_idf_eq_3_7():
    """Eq. 3.7 with idf(w_1) = idf(w_2): the premise idf(w_1) >= idf(w_2) holds for either naming
    of the two query terms, so a swapped pair satisfies 3.7 in both directions (S(d_0) >= S(d_1)
    and S(d_1) >= S(d_0)): one instance, no preference."""
    c = ctx(CM, LM, idf=[1.0, 1.0])
    for v in ("strict", "extended"):
        ax = parse_axiom(f"M-TDC(variant='{v}')")
        H = ax.holds(c)
        assert H[0, 1] and H[1, 0], v
        assert pairs(f"M-TDC(variant='{v}')", c) == [(0, 1), (2, 3)]
        assert ax.preferences(c)[0, 1] == 0


def test_m_tdc_extended_eq_3_8_three_terms():
    """Eq. 3.8 with |q| = 3: c(w_a,d_i) = c(w_b,d_j) for all w_a != w_b forces every count of
    both documents to one common value. (3,2,1)/(1,2,3) is a reversal but not such a swap."""
    c = ctx([[2, 2, 2], [2, 2, 2], [1, 1, 1], [3, 2, 1], [1, 2, 3]], [8] * 5, idf=[3.0, 2.0, 1.0])
    assert pairs("M-TDC(variant='extended')", c) == [(0, 1)]


# three terms, idf(t0) > idf(t1) > idf(t2), all of length 10; every sum is 6
CR = [[3, 1, 2], [1, 3, 2], [2, 1, 3], [4, 0, 2], [2, 2, 2]]


def test_m_tdc_relaxed_eq_3_9():
    """Eq. 3.9: equal sums, some count differs, the differing terms are exactly w_a != w_b with
    1) idf(w_a) >= idf(w_b), 2) c(w_a,d_i) > c(w_a,d_j), 3) c(w_a,q) >= c(w_b,q), 4) swapped.

    (d0,d1): differ in t0/t1, swapped, t0 rarer -> (0,1); (1,0) fails 1).
    (d0,d2): differ in t0/t2, swapped (3,2 <-> 2,3), t0 rarer -> (0,2).
    (d1,d2): differ in all three terms. (d3,d0), (d3,d1): not swapped (4 != 1, 4 != 3).
    (d0,d4): differ in t0/t1 but 3 != 2 (not swapped).
    """
    c = ctx(CR, [10] * 5, idf=[3.0, 2.0, 1.0])
    assert pairs("M-TDC(variant='relaxed', delta=0)", c) == [(0, 1), (0, 2)]
    # sub-condition 3: t1 twice in the query removes (0,1) (w_a = t0 has c(t0,q) = 1 < 2)
    cq = ctx(CR, [10] * 5, idf=[3.0, 2.0, 1.0], qtf=[1, 2, 1])
    assert pairs("M-TDC(variant='relaxed', delta=0)", cq) == [(0, 2)]
    # sub-condition 1 with idf(t0) = idf(t1): (0,1) holds both ways -> once, no preference
    ct = ctx(CR, [10] * 5, idf=[2.0, 2.0, 1.0])
    H = parse_axiom("M-TDC(variant='relaxed', delta=0)").holds(ct)
    assert H[0, 1] and H[1, 0]
    assert pairs("M-TDC(variant='relaxed', delta=0)", ct) == [(0, 1), (0, 2)]
    # identical counts are excluded by the relaxation (exists w with c(w,d_i) != c(w,d_j))
    ce = ctx([[3, 1, 2], [3, 1, 2]], [10, 10], idf=[3.0, 2.0, 1.0])
    assert pairs("M-TDC(variant='relaxed', delta=0)", ce) == []


# ---------------------------------------------------------------------- LNC2
def test_lnc2_strict_eq_3_10():
    """Eq. 3.10: q = {w}, integer k > 1, |d_1| = k |d_2|, c(w,d_1) > 0 and
    c(t,d_1) = k c(t,d_2) for every term t of d_1.

    vocabulary (w, x, y): d0 = "w x", d1 = d0 x 2, d2 = d0 x 3, d3 = (2,1,1) (same length and
    query count as d1 but not a copy), d4 = "x y", d5 = d4 x 2 (no query term).
    d2 vs d1: 6 / 4 is not an integer.
    """
    full = [[1, 1, 0], [2, 2, 0], [3, 3, 0], [2, 1, 1], [0, 1, 1], [0, 2, 2]]
    lens = [2, 4, 6, 4, 2, 4]
    c = ctx([[r[0]] for r in full], lens, full=full)
    assert pairs("LNC2(variant='strict')", c) == [(1, 0), (2, 0)]
    assert parse_axiom("LNC2(variant='strict')").preferences(c)[1, 0] == 1


def test_lnc2_extended_and_relaxed_eq_3_11_3_12():
    """Eq. 3.11 needs c(w,d_i) > 0 for *every* query term; eq. 3.12 only sum_w c(w,d_i) > 0.

    vocabulary (w, v, x), q = {w, v}: d1 = d0 x 2 lacks v; d3 = d2 x 3 has both; d5 = d4 x 2
    has no query term.
    """
    full = [[1, 0, 1], [2, 0, 2], [1, 1, 0], [3, 3, 0], [0, 0, 1], [0, 0, 2]]
    lens = [2, 4, 2, 6, 1, 2]
    c = ctx([r[:2] for r in full], lens, full=full)
    assert pairs("LNC2(variant='extended')", c) == [(3, 2)]
    assert pairs("LNC2(variant='relaxed')", c) == [(1, 0), (3, 2)]
    assert pairs("LNC2(variant='strict')", c) == []


def test_lnc2_artificial_duplicates_sec_3_5_2():
    """Sec. 3.5.2: artificial LNC2 instances for k = 2, 3, 4 up to 240 terms of eventual length;
    each copy is an instance against its source (eq. 3.12)."""
    from axiomatic.data.records import Document, Query
    from axiomatic.diagnose.artificial import ArtificialConfig, extend_context, plan_duplicates
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    docs = [
        Document("a", " ".join(["solar"] + ["cell"] * 59)),  # 60 terms: k = 2, 3, 4
        Document("b", " ".join(["solar"] + ["roof"] * 60)),  # 61 terms: 4 x 61 > 240
        Document("c", "wind turbine"),  # no query term
    ]
    idx = CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))
    c = QueryContext.build(Query("q", "solar energy"), docs, idx)
    assert c.doc_len.tolist() == [60, 61, 2]
    src, ks = plan_duplicates(c, ArtificialConfig(), eligible=c.qsum > 0)
    assert sorted(zip(src.tolist(), ks.tolist(), strict=True)) == [
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
    ]
    ext, _ = extend_context(c, src, ks)
    # rows 3..7 are the copies (a x2, a x3, a x4, b x2, b x3); each beats its source, and
    # a x4 (240 terms) is also a x2 (120 terms) concatenated twice
    assert pairs("LNC2(variant='relaxed')", ext) == [(3, 0), (4, 0), (5, 0), (5, 3), (6, 1), (7, 1)]
    assert pairs("LNC2(variant='extended')", ext) == []  # 'energy' is in no document

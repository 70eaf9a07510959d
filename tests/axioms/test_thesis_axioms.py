"""TFC1, TFC2, M-TDC and LNC2 on hand-built count matrices (Rennings 2019, eqs. 3.1-3.12)."""

from __future__ import annotations

import numpy as np

from axiomatic.axioms import QueryContext, parse_axiom


def ctx(counts, lens, idf=None, qtf=None):
    return QueryContext.from_arrays(np.asarray(counts), np.asarray(lens), idf=idf, qtf=qtf)


def pairs(axiom, c):
    inst = parse_axiom(axiom).instances(c)
    return sorted(zip(inst.i.tolist(), inst.j.tolist(), strict=True))


def test_tfc1_variants():
    c = ctx([[2, 1], [1, 1], [1, 0], [3, 2]], [10, 10, 10, 11])
    # extended (3.2): every term strictly larger, equal length
    assert pairs("TFC1(variant='extended')", c) == [(0, 2)]
    # relaxed (3.3): >= for all terms, larger sum; |d| within 10%
    assert pairs("TFC1", c) == [(0, 1), (0, 2), (1, 2), (3, 0), (3, 1), (3, 2)]
    # strict (3.1) needs a single-term query
    assert pairs("TFC1(variant='strict')", c) == []
    c1 = ctx([[2], [1], [3]], [10, 10, 12])
    assert pairs("TFC1(variant='strict')", c1) == [(0, 1)]
    assert pairs("TFC1(variant='strict', delta=2)", c1) == [(0, 1), (2, 0), (2, 1)]


def test_tfc1_relative_tolerance_eq_4_1():
    c = ctx([[2], [1]], [100, 91])
    assert pairs("TFC1(delta_rel=0.1)", c) == [(0, 1)]
    assert pairs("TFC1(delta_rel=0.08)", c) == []


def test_tfc2_triples_per_term_equal_differences():
    c = ctx([[1, 0], [2, 1], [3, 2], [0, 0], [2, 2], [3, 4]], [5] * 6)
    inst = parse_axiom("TFC2").instances(c)
    got = sorted(zip(inst.i.tolist(), inst.j.tolist(), inst.k.tolist(), strict=True))
    # relaxed (3.6): C_j - C_i = C_k - C_j per term and 0 < S_i < S_j < S_k
    assert got == [(0, 1, 2), (0, 4, 5)]
    assert inst.relation == "diff>"
    ext = parse_axiom("TFC2(variant='extended')").instances(c)
    # extended (3.5): every term present in d_i and differences exactly 1
    assert list(zip(ext.i, ext.j, ext.k, strict=True)) == []
    c2 = ctx([[1, 1], [2, 2], [3, 3]], [5, 5, 5])
    ext2 = parse_axiom("TFC2(variant='extended')").instances(c2)
    assert list(zip(ext2.i.tolist(), ext2.j.tolist(), ext2.k.tolist(), strict=True)) == [(0, 1, 2)]


def test_tfc2_triple_length_tolerance_uses_min_and_max():
    c = ctx([[1], [2], [3]], [10, 10, 13])
    assert len(parse_axiom("TFC2(delta=2)").instances(c).i) == 0
    assert len(parse_axiom("TFC2(delta=3)").instances(c).i) == 1


def test_m_tdc_relaxed_swap_of_rarer_term():
    # w0 is rarer (higher idf): d0 has more of it, counts swapped with d1
    c = ctx([[2, 1, 5], [1, 2, 5], [2, 2, 4]], [10, 10, 10], idf=[3.0, 1.0, 2.0])
    assert pairs("M-TDC", c) == [(0, 1)]
    p = parse_axiom("M-TDC").preferences(c)
    assert p[0, 1] == 1 and p[1, 0] == -1
    # sub-condition 3: the rarer term must not be less frequent in the query
    c_q = ctx([[2, 1], [1, 2]], [10, 10], idf=[3.0, 1.0], qtf=[1, 2])
    assert pairs("M-TDC", c_q) == []
    # sub-condition 4: not swapped (TDC, but not M-TDC)
    c_ns = ctx([[3, 0], [1, 2]], [10, 10], idf=[3.0, 1.0])
    assert pairs("M-TDC", c_ns) == []


def test_m_tdc_extended_counts_equal_pairs_once():
    c = ctx([[1, 1, 1], [1, 1, 1], [2, 2, 2]], [5, 5, 5], idf=[1.0, 2.0, 3.0])
    assert pairs("M-TDC(variant='extended')", c) == [(0, 1)]
    assert (parse_axiom("M-TDC(variant='extended')").preferences(c) == 0).all()
    c2 = ctx([[3, 1], [1, 3]], [5, 5], idf=[2.0, 1.0])
    assert pairs("M-TDC(variant='strict')", c2) == [(0, 1)]


def test_lnc2_requires_exact_duplicates():
    from axiomatic.data.records import Document, Query
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    docs = [
        Document("a", "solar panels convert light"),
        Document("b", "solar panels convert light solar panels convert light"),
        Document("c", "solar panels convert light solar panels convert heat"),
        Document("d", "wind turbines"),
    ]
    idx = CollectionIndex.build(docs, Analyzer())
    c = QueryContext.build(Query("q", "solar energy"), docs, idx)
    assert pairs("LNC2", c) == [(1, 0)]
    assert pairs("LNC2(variant='extended')", c) == []  # 'energy' is absent
    assert pairs("LNC2(variant='strict')", c) == []  # two-term query

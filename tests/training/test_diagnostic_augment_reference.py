"""Rennings' diagnostic-instance augmentation (thesis section 4.4) row by row: which instances
the filter keeps (each condition on its own), the weak pairs and their labels, the
multi-graded labels on graded data, and the pools each mode returns."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.training.augment import (
    axiom_pairs,
    filter_instances,
    multi_graded_pairs,
    pools_from_instances,
)
from axiomatic.training.config import DiagnosticAugmentSpec
from axiomatic.training.samplers import Pair

COLUMNS = ["query_id", "axiom", "doc_a", "doc_b", "relation", "len_diff_rel", "doc_c"]


def _dataset() -> Dataset:
    """q0: r2 grade 2, r1 and r3 grade 1 (relevant at threshold 1), n1..n3 non-relevant;
    q1: n4, n5 and no qrels entry at all."""
    docs = {d: Document(d, f"text {d}") for d in ["r2", "r1", "r3", "n1", "n2", "n3", "n4", "n5"]}
    return Dataset(
        "mini",
        {"q0": Query("q0", "x"), "q1": Query("q1", "y")},
        docs,
        {"q0": {"r2": 2, "r1": 1, "r3": 1, "n1": 0}},
        None,
        split="train",
        rel_threshold=1,
    )


def _df(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame([r + (None,) * (len(COLUMNS) - len(r)) for r in rows], columns=COLUMNS)


def _kept(df: pd.DataFrame, **kw) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    out = filter_instances(df, _dataset(), **kw)
    return list(zip(out["query_id"], out["doc_a"], out["doc_b"], strict=True))


KEPT = ("q0", "TFC1", "n1", "n2", ">", 0.05)


@pytest.mark.parametrize(
    "row, why",
    [
        (("qX", "TFC1", "n1", "n2", ">", 0.0), "not a training query"),
        (("q0", "TFC1", "n1", "n2", "=", 0.0), "no preference"),
        (("q0", "TFC1", "n1", "n2", "<", 0.0), "not a > / >= relation"),
        (("q0", "TFC1", "n1", "n2", ">", 0.0, "n3"), "a triple"),
        (("q0", "M-TDC", "n1", "n2", ">", 0.0), "another axiom"),
        (("q0", "TFC1", "n1", "n2", ">", 0.5), "delta* above delta_max"),
        (("q0", "TFC1", "n1", "r1", ">", 0.0), "a relevant doc_b"),
        (("q0", "TFC1", "n1", "gone", ">", 0.0), "doc_b without text"),
        (("q0", "TFC1", "gone", "n2", ">", 0.0), "doc_a without text"),
    ],
)
def test_each_filter_condition_drops_its_instance_alone(row: tuple, why: str) -> None:
    df = _df([KEPT, row])
    assert _kept(df, axioms=("tfc1",), delta_max=0.1) == [("q0", "n1", "n2")], why


def test_the_filter_keeps_what_no_condition_drops() -> None:
    df = _df(
        [
            KEPT,
            ("q0", "TFC1", "r2", "n1", ">=", 0.1),  # relevant d_a, at the bound
            ("q1", "TFC1", "n4", "n5", ">", 0.0),  # a query without any qrels entry
            ("q0", "TFC1", "art-1", "n1", ">", 0.0),  # an artificial document
        ]
    )
    got = _kept(df, axioms=("TFC1",), delta_max=0.1, artificial_docs={"art-1": Document("a", "")})
    assert got == [
        ("q0", "n1", "n2"),
        ("q0", "r2", "n1"),
        ("q1", "n4", "n5"),
        ("q0", "art-1", "n1"),
    ]
    assert len(_kept(df)) == 3  # no artificial documents: art-1 has no text
    no_triples = _df([KEPT]).drop(columns=["doc_c"])  # tables without the triple column
    assert _kept(no_triples) == [("q0", "n1", "n2")]


def test_axiom_pairs_are_weak_labels_one_or_two_over_zero() -> None:
    df = _df(
        [
            ("q0", "TFC1", "n1", "n2", ">", 0.0),
            ("q0", "LNC2", "r1", "n3", ">", 0.0),  # relevant d_a (grade 1 at threshold 1)
            ("q1", "TFC1", "n4", "n5", ">", 0.0),  # no qrels entry for the query
        ]
    )
    assert axiom_pairs(df, _dataset()) == [
        Pair("q0", "n1", "n2", 1.0, 0.0, source="TFC1"),
        Pair("q0", "r1", "n3", 2.0, 0.0, source="LNC2"),
        Pair("q1", "n4", "n5", 1.0, 0.0, source="TFC1"),
    ]


def test_multi_graded_labels_by_hand_on_graded_data() -> None:
    ds = _dataset()
    regular = [Pair("q0", "r2", "r1", 2.0, 1.0), Pair("q0", "r2", "n1", 2.0, 0.0)]
    df = _df(
        [
            ("q0", "TFC1", "n1", "n2", ">", 0.0),  # n1 becomes weak 1, n2 new at 0
            ("q1", "TFC1", "n4", "n5", ">", 0.0),  # a query no regular pair has
            ("q0", "TFC1", "n3", "r3", ">", 0.0),  # unfiltered: r3 (new) gets its strong label
        ]
    )
    pairs = multi_graded_pairs(df, ds, regular)
    got = {(p.query_id, p.doc_hi, p.doc_lo): (p.label_hi, p.label_lo, p.source) for p in pairs}
    # strong labels 2 + grade - threshold: r2 -> 3, r1 and r3 -> 2; weak 1: n1, n3; 0: n2
    assert got == {
        ("q0", "r2", "r3"): (3.0, 2.0, "qrels"),
        ("q0", "r3", "n1"): (2.0, 1.0, "qrels"),
        ("q0", "r3", "n2"): (2.0, 0.0, "qrels"),
        ("q0", "r3", "n3"): (2.0, 1.0, "qrels"),
        ("q0", "n1", "n2"): (1.0, 0.0, "multi-graded"),
        ("q0", "n3", "n2"): (1.0, 0.0, "multi-graded"),
        ("q0", "r1", "n1"): (2.0, 1.0, "qrels"),
        ("q0", "r1", "n2"): (2.0, 0.0, "qrels"),
        ("q0", "r1", "n3"): (2.0, 1.0, "qrels"),
        ("q0", "r2", "n1"): (3.0, 1.0, "qrels"),
        ("q0", "r2", "n2"): (3.0, 0.0, "qrels"),
        ("q0", "r2", "n3"): (3.0, 1.0, "qrels"),
        ("q0", "r2", "r1"): (3.0, 2.0, "qrels"),
        ("q1", "n4", "n5"): (1.0, 0.0, "multi-graded"),
    }


def test_pools_of_each_mode_and_the_artificial_documents() -> None:
    ds = _dataset()
    regular = [Pair("q0", "r2", "n1", 2.0, 0.0)]
    art = {"art-1": Document("art-1", "text")}
    df = _df([("q0", "TFC1", "art-1", "n2", ">", 0.0), ("q0", "TFC1", "n1", "n2", ">", 0.3)])
    pools, weights, docs = pools_from_instances(
        ds, DiagnosticAugmentSpec(mode="multi-graded"), regular, df, art
    )
    assert weights == {"qrels": 1.0} and docs == art and docs is not art
    assert {(p.doc_hi, p.doc_lo) for p in pools["qrels"]} == {
        ("art-1", "n2"),
        ("n1", "n2"),
        ("r2", "art-1"),
        ("r2", "n1"),
        ("r2", "n2"),
    }
    pools, weights, docs = pools_from_instances(
        ds, DiagnosticAugmentSpec(mode="paired"), regular, df, art
    )
    assert weights == {"qrels": 1.0, "axiom": 1.0} and docs == art
    assert pools == {
        "qrels": regular,
        "axiom": [
            Pair("q0", "art-1", "n2", 1.0, 0.0, source="TFC1"),
            Pair("q0", "n1", "n2", 1.0, 0.0, source="TFC1"),
        ],
    }
    # paired-delta at 0.1 without the artificial documents: nothing left, said in full
    msg = (
        "no usable axiom instances for paired-delta augmentation of 'mini' (axioms=all, "
        "delta_max=0.1); mine more queries or relax the filter"
    )
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        pools_from_instances(ds, DiagnosticAugmentSpec(mode="paired-delta"), regular, df)
    with pytest.raises(ValueError, match=re.escape("(axioms=['LNC2'], delta_max=None)")):
        pools_from_instances(ds, DiagnosticAugmentSpec(axioms=("LNC2",)), regular, df, art)


def test_diagnostic_pools_reads_the_mined_folder(monkeypatch) -> None:
    from axiomatic.data import instances as instances_module
    from axiomatic.training.augment import diagnostic_pools

    df = _df([KEPT])
    art = {"art-1": Document("art-1", "text")}
    read: list[str] = []

    def fake_read(directory: str):  # type: ignore[no-untyped-def]
        read.append(directory)
        return df, art

    monkeypatch.setattr(instances_module, "read_instances", fake_read)
    regular = [Pair("q0", "r2", "n1", 2.0, 0.0)]
    spec = DiagnosticAugmentSpec(mode="paired", instances="/mined/here", axioms=("TFC1",))
    got = diagnostic_pools(_dataset(), spec, regular)
    assert read == ["/mined/here"]
    assert got == pools_from_instances(_dataset(), spec, regular, df, art)
    msg = (
        "diagnostic augmentation needs the mined instances directory: "
        "diagnostic(mode=paired, instances=PATH) (write one with `axiomatic mine`)"
    )
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        diagnostic_pools(_dataset(), DiagnosticAugmentSpec(mode="paired"), regular)

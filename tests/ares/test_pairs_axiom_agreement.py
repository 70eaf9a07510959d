"""Mutation testing of ``ares/pairs.py``: axiom agreement of ARES pairs, by hand.

Two tiny hand-made query contexts over a two-document index (``d0 = "a b c d"``,
``d1 = "e f"``) and ordered pairs ``(q+, q-)`` of one document each. Three axioms whose
preferences are worked out by hand: Q-PROX-2 (the lower mean first position of the query's terms
in d wins, eq. 2), LENGTH (the longer query wins) and Q-REP-TFIDF (every term has tf 1 and df 1,
so every query scores ln 2: no decisive pair). The rows, the pooling over collections and
variants, the refusal message, ``read_pairs`` on a Parquet file and the Markdown table are
compared with those hand values exactly. No model, no MiniLM (fixed term vectors): seconds.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from axiomatic.ares.pairs import (
    LENGTH,
    PREFERS,
    _rows,
    agreement_markdown,
    axiom_agreement,
    read_pairs,
    variant_agreement,
)
from axiomatic.axioms.query_pairs import QueryPairContext
from axiomatic.data.records import Document
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

AXES = ["Q-PROX-2", "Q-REP-TFIDF"]
ALL = [
    "Q-RANK",
    "Q-REP-QL",
    "Q-REP-TFIDF",
    "Q-PROX-1",
    "Q-PROX-2",
    "Q-REG",
    "Q-STM-1",
    "Q-STM-2",
    "Q-STM-3",
]


def _index() -> CollectionIndex:
    docs = [Document("d0", "a b c d"), Document("d1", "e f")]
    return CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))


def _ctx(index: CollectionIndex, queries: list[tuple[int, str]]) -> QueryPairContext:
    """Queries ``(document row, "terms ...")``; fixed unit term vectors instead of MiniLM."""
    doc = np.array([d for d, _ in queries], dtype=np.int64)
    terms = [index.term_ids(q.split()) for _, q in queries]
    offsets = np.concatenate(([0], np.cumsum([len(t) for t in terms])))
    vecs = np.eye(index.n_terms, 4, dtype=np.float64)
    return QueryPairContext(index, doc, offsets, np.concatenate(terms), term_vectors=vecs)


# context A: first positions (Q-PROX-2 score, lower wins) 0, 3, 1.5, 1.5 | 0, 1; lengths 1 1 2 2 | 1 1
QA = [(0, "a"), (0, "d"), (0, "a d"), (0, "b c"), (1, "e"), (1, "f")]
# (q+, q-), Q-PROX-2 and LENGTH preference of q+ over q-:
PA = [
    (0, 1),  # 0 < 3: +1 | 1 = 1: 0
    (1, 0),  # -1 | 0
    (2, 3),  # 1.5 = 1.5: 0 (tie) | 0
    (2, 0),  # 1.5 > 0: -1 | 2 > 1: +1
    (3, 1),  # 1.5 < 3: +1 | +1
    (5, 4),  # 1 > 0: -1 | 0
    (1, 3),  # 3 > 1.5: -1 | 1 < 2: -1
]
# Q-PROX-2: 6 decisive, 2 agree (33.3 %); LENGTH: 3 decisive, 2 agree (66.7 %);
# reversed pairs: Q-PROX-2 6 / 4 (66.7 %), LENGTH 3 / 1 (33.3 %)

# context B: first positions 0, 0.5, 1; lengths 1, 2, 1
QB = [(1, "e"), (1, "e f"), (1, "f")]
PB = [
    (0, 1),  # 0 < 0.5: +1 | 1 < 2: -1
    (1, 2),  # 0.5 < 1: +1 | 2 > 1: +1
    (2, 0),  # 1 > 0: -1 | 0
]
# Q-PROX-2: 3 / 2; LENGTH 2 / 1; reversed: Q-PROX-2 3 / 1, LENGTH 2 / 1


def _split(pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    return np.array([p for p, _ in pairs]), np.array([n for _, n in pairs])


def _row(axiom: str, n: int, dec: int, ag: int, pct: float | None) -> dict[str, Any]:
    return {
        "axiom": axiom,
        "prefers": PREFERS.get(axiom, ""),
        "pairs": n,
        "decisive": dec,
        "agree": ag,
        "agree_pct": pct,
    }


@pytest.fixture
def ctx_a() -> QueryPairContext:
    return _ctx(_index(), QA)


@pytest.fixture
def ctx_b() -> QueryPairContext:
    return _ctx(_index(), QB)


# ------------------------------------------------------------------------------ axiom_agreement
def test_the_hand_context_has_the_hand_scores(ctx_a, ctx_b) -> None:
    assert ctx_a.scores("Q-PROX-2").tolist() == [0.0, 3.0, 1.5, 1.5, 0.0, 1.0]
    assert ctx_a.q_len.tolist() == [1, 1, 2, 2, 1, 1]
    assert ctx_b.scores("Q-PROX-2").tolist() == [0.0, 0.5, 1.0]
    assert np.allclose(ctx_a.scores("Q-REP-TFIDF"), np.log(2.0))


def test_agreement_rows_are_the_hand_counts(ctx_a) -> None:
    qp, qn = _split(PA)
    rows = axiom_agreement(ctx_a, qp, qn, AXES)
    assert rows == [
        _row("Q-PROX-2", 7, 6, 2, 33.3),
        _row("Q-REP-TFIDF", 7, 0, 0, None),  # all ties: undecided, no percentage
        _row(LENGTH, 7, 3, 2, 66.7),
    ]
    assert [list(r) for r in rows] == [
        ["axiom", "prefers", "pairs", "decisive", "agree", "agree_pct"]
    ] * 3
    assert rows[0]["prefers"] == "terms first occur earlier in d"
    assert rows[1]["prefers"] == "higher normalized TF-IDF"
    assert rows[2]["prefers"] == "longer query"
    assert all(type(r[k]) is int for r in rows for k in ("pairs", "decisive", "agree"))
    assert type(rows[0]["agree_pct"]) is float


def test_reversing_the_pairs_reverses_the_agreement(ctx_a) -> None:
    qp, qn = _split(PA)
    rows = axiom_agreement(ctx_a, qn, qp, AXES)
    assert rows == [
        _row("Q-PROX-2", 7, 6, 4, 66.7),
        _row("Q-REP-TFIDF", 7, 0, 0, None),
        _row(LENGTH, 7, 3, 1, 33.3),
    ]


def test_all_agree_all_disagree_and_two_decimals_are_rounded_to_one(ctx_a) -> None:
    # (0, 1), (3, 1): Q-PROX-2 +1 twice; LENGTH 0 and +1
    rows = axiom_agreement(ctx_a, [0, 3], [1, 1], ["Q-PROX-2"])
    assert rows == [_row("Q-PROX-2", 2, 2, 2, 100.0), _row(LENGTH, 2, 1, 1, 100.0)]
    rows = axiom_agreement(ctx_a, [1, 1], [0, 3], ["Q-PROX-2"])
    assert rows == [_row("Q-PROX-2", 2, 2, 0, 0.0), _row(LENGTH, 2, 1, 0, 0.0)]
    # 1 of 3: 33.333.. -> 33.3; 2 of 3: 66.666.. -> 66.7; 1 of 6: 16.666.. -> 16.7
    qp, qn = _split([(0, 1), (1, 0), (5, 4)])
    assert axiom_agreement(ctx_a, qp, qn, ["Q-PROX-2"], length=False)[0]["agree_pct"] == 33.3
    qp, qn = _split([(0, 1), (1, 0), (1, 0), (1, 0), (5, 4), (2, 0)])
    assert axiom_agreement(ctx_a, qp, qn, ["Q-PROX-2"], False) == [_row("Q-PROX-2", 6, 6, 1, 16.7)]


def test_without_length_there_is_no_length_row(ctx_a) -> None:
    qp, qn = _split(PA)
    assert axiom_agreement(ctx_a, qp, qn, ["Q-PROX-2"], length=False) == [
        _row("Q-PROX-2", 7, 6, 2, 33.3)
    ]
    assert axiom_agreement(ctx_a, qp, qn, AXES, False) == [
        _row("Q-PROX-2", 7, 6, 2, 33.3),
        _row("Q-REP-TFIDF", 7, 0, 0, None),
    ]


def test_defaults_are_all_nine_axioms_and_length(ctx_a) -> None:
    qp, qn = _split(PA)
    rows = axiom_agreement(ctx_a, qp, qn)
    assert [r["axiom"] for r in rows] == [*ALL, LENGTH]
    assert [r["prefers"] for r in rows] == [PREFERS[a] for a in [*ALL, LENGTH]]
    assert {r["pairs"] for r in rows} == {7}
    got = {r["axiom"]: r for r in rows}
    assert got["Q-PROX-2"] == _row("Q-PROX-2", 7, 6, 2, 33.3)
    assert got["Q-REP-TFIDF"] == _row("Q-REP-TFIDF", 7, 0, 0, None)
    assert got[LENGTH] == _row(LENGTH, 7, 3, 2, 66.7)


def test_a_combination_has_no_direction_text(ctx_a) -> None:
    """An expression axiom (not in Table 1) gets an empty ``prefers``; Q-REP-TFIDF adds 0 here,
    so it decides as Q-PROX-2."""
    qp, qn = _split(PA)
    rows = axiom_agreement(ctx_a, qp, qn, ["Q-PROX-2 + 0.5*Q-REP-TFIDF"], length=False)
    assert rows == [_row("Q-PROX-2 + 0.5 * Q-REP-TFIDF", 7, 6, 2, 33.3)]
    assert rows[0]["prefers"] == ""


def test_no_pairs_give_zero_counts_and_no_percentage(ctx_a) -> None:
    rows = axiom_agreement(ctx_a, [], [], AXES)
    assert rows == [
        _row("Q-PROX-2", 0, 0, 0, None),
        _row("Q-REP-TFIDF", 0, 0, 0, None),
        _row(LENGTH, 0, 0, 0, None),
    ]


def test_index_arrays_of_other_dtypes_count_the_same(ctx_a) -> None:
    """Row indices read back as floats (or int32) are taken as the int64 rows they are."""
    qp, qn = _split(PA)
    want = axiom_agreement(ctx_a, qp, qn, AXES)
    assert axiom_agreement(ctx_a, qp.astype(np.float64), qn.astype(np.float64), AXES) == want
    assert axiom_agreement(ctx_a, qp.astype(np.int32), list(qn), AXES) == want


# ------------------------------------------------------------------------------ _rows
def test_rows_lay_out_the_counts() -> None:
    rows = _rows(["Q-RANK", "Q-XYZ"], np.int64(9), np.array([3, 0]), np.array([2, 0]))
    assert rows == [
        {
            "axiom": "Q-RANK",
            "prefers": "d ranked higher by BM25 (smaller rank)",
            "pairs": 9,
            "decisive": 3,
            "agree": 2,
            "agree_pct": 66.7,
        },
        {"axiom": "Q-XYZ", "prefers": "", "pairs": 9, "decisive": 0, "agree": 0, "agree_pct": None},
    ]
    with pytest.raises(ValueError):  # one count per name
        _rows(["Q-RANK"], 1, np.array([1, 1]), np.array([1, 1]))


# ------------------------------------------------------------------------------ variant_agreement
def _parts(ctx: QueryPairContext, pairs: list[tuple[int, int]], reverse: bool = False):
    qp, qn = _split(pairs)
    if reverse:
        qp, qn = qn, qp
    return (ctx.doc[qp], qp, qn)


def test_variants_pool_their_collections(ctx_a, ctx_b) -> None:
    prepared = [SimpleNamespace(ctx=ctx_a), SimpleNamespace(ctx=ctx_b)]
    pairs = {
        "rank": [_parts(ctx_a, PA), _parts(ctx_b, PB)],
        "rep": [_parts(ctx_a, PA, True), _parts(ctx_b, PB, True)],
    }
    rows = variant_agreement(prepared, pairs, AXES)
    # rank: Q-PROX-2 (6 + 3) decisive, (2 + 2) agree; LENGTH (3 + 2), (2 + 1)
    # rep: Q-PROX-2 (6 + 3), (4 + 1); LENGTH (3 + 2), (1 + 1)
    assert rows == [
        {"variant": "rank", **_row("Q-PROX-2", 10, 9, 4, 44.4)},
        {"variant": "rank", **_row("Q-REP-TFIDF", 10, 0, 0, None)},
        {"variant": "rank", **_row(LENGTH, 10, 5, 3, 60.0)},
        {"variant": "rep", **_row("Q-PROX-2", 10, 9, 5, 55.6)},
        {"variant": "rep", **_row("Q-REP-TFIDF", 10, 0, 0, None)},
        {"variant": "rep", **_row(LENGTH, 10, 5, 2, 40.0)},
    ]
    keys = ["variant", "axiom", "prefers", "pairs", "decisive", "agree", "agree_pct"]
    assert [list(r) for r in rows] == [keys] * 6
    assert all(type(r[k]) is int for r in rows for k in ("pairs", "decisive", "agree"))


def test_one_collection_one_axiom_no_length(ctx_a) -> None:
    rows = variant_agreement(
        [SimpleNamespace(ctx=ctx_a)], {"x": [_parts(ctx_a, PA)]}, ["Q-PROX-2"], False
    )
    assert rows == [{"variant": "x", **_row("Q-PROX-2", 7, 6, 2, 33.3)}]


def test_variant_defaults_are_all_nine_axioms_and_length(ctx_b) -> None:
    rows = variant_agreement([SimpleNamespace(ctx=ctx_b)], {"simple": [_parts(ctx_b, PB)]})
    assert [r["axiom"] for r in rows] == [*ALL, LENGTH]
    assert {(r["variant"], r["pairs"]) for r in rows} == {("simple", 3)}
    got = {r["axiom"]: r for r in rows}
    assert got["Q-PROX-2"] == {"variant": "simple", **_row("Q-PROX-2", 3, 3, 2, 66.7)}
    assert got[LENGTH] == {"variant": "simple", **_row(LENGTH, 3, 2, 1, 50.0)}


def test_a_collection_without_pairs_adds_nothing(ctx_a, ctx_b) -> None:
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    prepared = [SimpleNamespace(ctx=ctx_a), SimpleNamespace(ctx=ctx_b)]
    rows = variant_agreement(prepared, {"v": [empty, _parts(ctx_b, PB)]}, AXES)
    assert rows == [
        {"variant": "v", **_row("Q-PROX-2", 3, 3, 2, 66.7)},
        {"variant": "v", **_row("Q-REP-TFIDF", 3, 0, 0, None)},
        {"variant": "v", **_row(LENGTH, 3, 2, 1, 50.0)},
    ]


def test_no_collections_and_no_variants_give_no_rows(ctx_a) -> None:
    assert variant_agreement([], {"rank": [], "rep": []}) == []
    assert variant_agreement([SimpleNamespace(ctx=ctx_a)], {}) == []


def test_pairs_for_the_wrong_number_of_collections_are_refused(ctx_a, ctx_b) -> None:
    prepared = [SimpleNamespace(ctx=ctx_a), SimpleNamespace(ctx=ctx_b)]
    with pytest.raises(ValueError) as e:
        variant_agreement(prepared, {"rank": [_parts(ctx_a, PA)]}, AXES)
    assert str(e.value) == (
        "variant 'rank': pairs for 1 collection(s), but 2 prepared collection(s) given "
        "(one (doc, q_pos, q_neg) each)"
    )
    three = [_parts(ctx_a, PA)] * 3
    with pytest.raises(ValueError) as e:
        variant_agreement(prepared, {"ok": [_parts(ctx_a, PA), _parts(ctx_b, PB)], "x": three})
    assert str(e.value) == (
        "variant 'x': pairs for 3 collection(s), but 2 prepared collection(s) given "
        "(one (doc, q_pos, q_neg) each)"
    )


# ------------------------------------------------------------------------------ read_pairs
def test_read_pairs_splits_by_collection(tmp_path: Path) -> None:
    path = tmp_path / "pairs.parquet"
    table = pa.table(
        {
            "collection": pa.array([1, 0, 1, 0, 2], pa.int64()),
            "doc": pa.array([7, 0, 8, 1, 9], pa.int32()),
            "q_pos": pa.array([10, 2, 12, 4, 14], pa.int32()),
            "q_neg": pa.array([11, 3, 13, 5, 15], pa.int32()),
        }
    )
    pq.write_table(table, path)
    got = read_pairs(path, 2)  # collection 2 lies past n_collections: not read
    assert len(got) == 2
    want = [([0, 1], [2, 4], [3, 5]), ([7, 8], [10, 12], [11, 13])]
    for (d, qp, qn), (wd, wp, wn) in zip(got, want, strict=True):
        assert d.tolist() == wd and qp.tolist() == wp and qn.tolist() == wn
        assert d.dtype == qp.dtype == qn.dtype == np.int64
    got = read_pairs(str(path), 4)  # a str path; collection 3 has no pair
    assert [tuple(x.tolist() for x in part) for part in got] == [
        ([0, 1], [2, 4], [3, 5]),
        ([7, 8], [10, 12], [11, 13]),
        ([9], [14], [15]),
        ([], [], []),
    ]
    assert all(x.dtype == np.int64 for part in got for x in part)


def test_read_pairs_round_trips_into_the_agreement(tmp_path: Path, ctx_a, ctx_b) -> None:
    parts = [_parts(ctx_a, PA), _parts(ctx_b, PB)]
    pq.write_table(
        pa.table(
            {
                "collection": np.repeat([0, 1], [len(PA), len(PB)]),
                "doc": np.concatenate([p[0] for p in parts]),
                "q_pos": np.concatenate([p[1] for p in parts]),
                "q_neg": np.concatenate([p[2] for p in parts]),
            }
        ),
        tmp_path / "pairs.parquet",
    )
    prepared = [SimpleNamespace(ctx=ctx_a), SimpleNamespace(ctx=ctx_b)]
    back = read_pairs(tmp_path / "pairs.parquet", 2)
    assert variant_agreement(prepared, {"rank": back}, AXES) == variant_agreement(
        prepared, {"rank": parts}, AXES
    )


# ------------------------------------------------------------------------------ markdown
def test_markdown_of_the_pooled_rows(ctx_a, ctx_b) -> None:
    prepared = [SimpleNamespace(ctx=ctx_a), SimpleNamespace(ctx=ctx_b)]
    pairs = {
        "rank": [_parts(ctx_a, PA), _parts(ctx_b, PB)],
        "rep": [_parts(ctx_a, PA, True), _parts(ctx_b, (PB[:1]), True)],
    }
    text = agreement_markdown(variant_agreement(prepared, pairs, AXES))
    assert text == "\n".join(
        [
            "| variant | pairs | Q-PROX-2 | Q-REP-TFIDF | LENGTH |",
            "|---|---|---|---|---|",
            "| *prefers* | | terms first occur earlier in d | higher normalized TF-IDF "
            "| longer query |",
            "| ARES_rank | 10 | 44.4 % (9) | - (0) | 60.0 % (5) |",
            "| ARES_rep | 8 | 57.1 % (7) | - (0) | 50.0 % (4) |",
        ]
    )


def test_markdown_missing_cells_unknown_axioms_and_thousands() -> None:
    rows = [
        {"variant": "a", "axiom": "Q-RANK", "pairs": 12345, "decisive": 1234, "agree_pct": 50.0},
        {"variant": "a", "axiom": "MINE", "pairs": 12345, "decisive": 0, "agree_pct": None},
        {"variant": "b", "axiom": "Q-RANK", "pairs": 7, "decisive": 7, "agree_pct": 100.0},
        {"variant": "a", "axiom": LENGTH, "pairs": 12345, "decisive": 2, "agree_pct": 0.0},
    ]
    assert agreement_markdown(rows) == (
        "| variant | pairs | Q-RANK | MINE | LENGTH |\n"
        "|---|---|---|---|---|\n"
        "| *prefers* | | d ranked higher by BM25 (smaller rank) |  | longer query |\n"
        "| ARES_a | 12,345 | 50.0 % (1,234) | - (0) | 0.0 % (2) |\n"
        "| ARES_b | 7 | 100.0 % (7) |  |  |"
    )


def test_markdown_of_no_rows_is_the_header_alone() -> None:
    assert agreement_markdown([]) == "| variant | pairs |  |\n|---|---|\n| *prefers* | |  |"

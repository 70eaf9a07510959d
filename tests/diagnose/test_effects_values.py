"""The effect helpers one by one against hand references: the band's parsing and
calibrations, the margins, counts and tests, the Agresti-Min interval at another confidence,
the sample hash's edge cases and the texts it covers, and every message word for word."""

from __future__ import annotations

import hashlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, norm, ttest_1samp

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.effects import (
    ABNIRML_TOP_K,
    BAND_ALIASES,
    BAND_CALIBRATIONS,
    BAND_TESTS,
    band_counts,
    calibrate_band,
    check_band_test,
    effect_interval,
    effect_test,
    instance_margins,
    median_adjacent_gap,
    median_top_gap,
    resolve_band,
    sample_hash,
    sample_texts,
    sign_test,
    t_test,
)

BAND_ERROR = (
    "band must be 'auto', 'top-gap', 'abnirml' or a finite number >= 0 (got {}); e.g. "
    "band='top-gap' (or 'auto') calibrates it per ranker on the median gap between its top "
    "two candidates, band='abnirml' on the median gap between adjacent documents of its "
    "top 10 (ABNIRML), band=0.5 uses 0.5 for every ranker"
)
TEST_ERROR = (
    "band_test must be one of sign, t (got {}){}; 'sign' tests pos against neg, 't' is "
    "ABNIRML's one-sample t-test of the score margins"
)


def _message(exc: pytest.ExceptionInfo[BaseException]) -> str:
    return str(exc.value.args[0])


# ----------------------------------------------------------------------------- the band


def test_the_named_settings() -> None:
    assert BAND_CALIBRATIONS == ("top-gap", "abnirml")
    assert BAND_ALIASES == {"auto": "top-gap"}
    assert BAND_TESTS == ("sign", "t")
    assert ABNIRML_TOP_K == 10


def test_resolve_band_reads_names_numbers_and_mappings() -> None:
    assert resolve_band(None) is None
    assert resolve_band("auto") == "top-gap"
    assert resolve_band("top-gap") == "top-gap"
    assert resolve_band("abnirml") == "abnirml"
    for given, value in (("0.5", 0.5), (" 2 ", 2.0), ("1e-3", 0.001), ("0", 0.0), (0, 0.0)):
        out = resolve_band(given)
        assert out == value and type(out) is float, given
    for given in (np.int64(3), np.float32(0.25), 1.5, -0.0):
        out = resolve_band(given)
        assert out == float(given) and type(out) is float, given
    out = resolve_band({"bm25": 1, "tf": "0.5", 7: np.float32(2)})
    assert out == {"bm25": 1.0, "tf": 0.5, "7": 2.0}
    assert all(type(v) is float for v in out.values())  # type: ignore[union-attr]
    assert resolve_band({}) == {}
    assert resolve_band({"zero": 0, "neg0": -0.0}) == {"zero": 0.0, "neg0": 0.0}  # 0 is a band


def test_resolve_band_refusals_word_for_word() -> None:
    for given, shown in (
        ("big", "'big'"),
        ("", "''"),
        ("-1", "'-1'"),  # shown as the user wrote it
        ("inf", "'inf'"),
        (float("inf"), "inf"),
        ("nan", "'nan'"),
        (-0.5, "-0.5"),
        (np.int64(-2), "np.int64(-2)"),
        (float("nan"), "nan"),
    ):
        with pytest.raises(ValueError) as exc:
            resolve_band(given)
        assert _message(exc) == BAND_ERROR.format(shown), given
    for mapping, shown in (({"a": -1}, "{'a': -1.0}"), ({"a": 1, "b": float("nan")}, "{'b': nan}")):
        with pytest.raises(ValueError) as exc:
            resolve_band(mapping)
        assert _message(exc) == f"band values must be finite numbers >= 0 (got {shown})"
    for given, kind in ((True, "bool"), ([0.5], "list"), (object(), "object")):
        with pytest.raises(ValueError) as exc:
            resolve_band(given)
        assert _message(exc) == (
            "band must be None, 'auto', 'top-gap', 'abnirml', a number >= 0 or a mapping "
            f"ranker -> number (got {kind})"
        )


def test_check_band_test_and_its_message() -> None:
    assert check_band_test("sign") == "sign" and check_band_test("t") == "t"
    for given, shown, hint in (
        ("wilcoxon", "'wilcoxon'", ""),
        ("sgn", "'sgn'", " (did you mean 'sign'?)"),
        ("T", "'T'", ""),
        (5, "5", ""),
    ):
        with pytest.raises(ValueError) as exc:
            check_band_test(given)
        assert _message(exc) == TEST_ERROR.format(shown, hint), given


def test_calibrate_band_dispatches_and_refuses_unknown_names() -> None:
    lists = [np.array([1.0, 4.0, 3.5, 5.0]), np.array([0.0, 2.0, 1.7]), np.array([0.4, 2.4])]
    # top-gap: |5 - 4|, |2 - 1.7|, |2.4 - 0.4| -> median 1.0 over 3 queries
    for name in ("top-gap", "auto"):
        delta, n = calibrate_band(name, lists)
        assert (delta, n) == (pytest.approx(1.0), 3)
    # abnirml: 1.0, 0.5, 2.5 | 0.3, 1.7 | 2.0 -> median of six gaps (1.0 + 1.7) / 2
    delta, n = calibrate_band("abnirml", lists)
    assert (delta, n) == (pytest.approx(1.35), 3)
    with pytest.raises(ValueError) as exc:
        calibrate_band("median", lists)
    assert (
        _message(exc)
        == "unknown band calibration 'median'; expected one of top-gap, abnirml (or auto)"
    )


def test_median_top_gap_by_hand() -> None:
    # unsorted, negative and infinite scores (infinite and NaN ones left out)
    lists = [
        np.array([-3.0, -1.0, -2.5]),  # top two -1, -2.5: 1.5
        np.array([np.inf, 7.0, 1.0, np.nan, -np.inf]),  # 7, 1: 6
        np.array([2.0, 2.0, 0.0]),  # a tie at the top: 0
        np.array([4.0]),  # one score: left out
        np.array([]),
        [5, 3],  # plain integers: 2
    ]
    delta, n = median_top_gap(lists)  # type: ignore[arg-type]
    assert (delta, n) == (1.75, 4) and type(delta) is float and type(n) is int
    nan, zero = median_top_gap([np.array([1.0]), np.array([np.nan, np.nan])])
    assert math.isnan(nan) and zero == 0
    nan, zero = median_top_gap([])
    assert math.isnan(nan) and zero == 0


def test_median_adjacent_gap_by_hand() -> None:
    scores = np.array([0.0, 9.0, 5.0, np.inf, 7.0, np.nan, 8.0, 1.0])  # 9 8 7 5 1 0
    # k = 3: 9 8 7 -> gaps 1, 1; k = 4: + 2; default (10): + 4, 1 -> median 1
    assert median_adjacent_gap([scores], k=3) == (1.0, 1)
    assert median_adjacent_gap([scores], k=4) == (1.0, 1)
    assert median_adjacent_gap([np.array([10.0, 6.0, 5.0, 4.8])], k=2) == (4.0, 1)
    # pooled: gaps 4 (k=2) of the first and 0.5 of the second -> median of (4, 0.5) = 2.25
    assert median_adjacent_gap([np.array([6.0, 10.0, 5.0]), [1.0, 0.5]], k=2) == (2.25, 2)  # type: ignore[list-item]
    # the default k is ten: the gap below rank 10 (100) is not pooled
    eleven = np.r_[np.arange(10.0, 0.0, -1.0), -99.0]
    assert median_adjacent_gap([eleven]) == (1.0, 1)
    assert median_adjacent_gap([eleven], k=11) == (1.0, 1)
    delta, n = median_adjacent_gap([np.array([0.0, 1.0]), np.array([0.0, 1.0, 3.0])])
    assert (delta, n) == (1.0, 2) and type(delta) is float
    # a query with one score is left out, not the end of the list
    assert median_adjacent_gap([np.array([1.0]), np.array([3.0, 1.0])]) == (2.0, 1)
    nan, zero = median_adjacent_gap([np.array([1.0]), np.array([])])
    assert math.isnan(nan) and zero == 0


# ------------------------------------------------------------- margins, counts and tests


def test_instance_margins_for_pairs_and_triples() -> None:
    relation = np.array([">", ">=", "=", "diff>", "diff>", ">", ">"])
    sa = np.array([3.0, 1.0, 2.0, 1.0, np.nan, np.nan, np.inf])
    sb = np.array([1.0, 1.5, 2.0, 4.0, 2.0, 1.0, np.inf])
    sc = np.array([np.nan, np.nan, np.nan, 5.0, 3.0, np.nan, np.nan])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NaN and infinite scores raise no warning
        out = instance_margins(relation, sa, sb, sc)
    # pairs s(a) - s(b); triples (s(b) - s(a)) - (s(c) - s(b)) = (4 - 1) - (5 - 4) = 2
    assert out[:4].tolist() == [2.0, -0.5, 0.0, 2.0]
    assert np.isnan(out[4:]).all()
    # lists and integers are read as float64
    ints = instance_margins([">", "diff>"], [1, 1], [3, 3], [0, 4])  # type: ignore[arg-type]
    assert ints.tolist() == [-2.0, 1.0] and ints.dtype == np.float64


def test_band_counts_at_the_band_and_at_zero() -> None:
    m = np.array([0.0, 1e-12, -1e-12, 2.0, -2.0, 0.5, -0.5, np.nan])
    counts = band_counts(m, 0.0)
    assert counts == (3, 3, 1) and all(type(c) is int for c in counts)
    assert band_counts(m, 0.5) == (1, 1, 5)
    assert band_counts(m, 2.0) == (0, 0, 7)
    assert band_counts([1, -3, 0], 1) == (0, 1, 2)  # type: ignore[arg-type]
    assert band_counts(np.array([np.nan]), 0.0) == (0, 0, 0)


def test_sign_t_and_effect_test_by_hand() -> None:
    assert sign_test(0, 0) == 1.0 and type(sign_test(0, 0)) is float
    assert sign_test(np.int64(4), np.int64(0)) == pytest.approx(2 / 2**4)  # type: ignore[arg-type]
    assert sign_test(5, 1) == pytest.approx(binomtest(5, 6, 0.5).pvalue, rel=1e-12)
    m = np.array([0.5, 1.5, -0.25, np.nan, 2.0])
    expected = ttest_1samp([0.5, 1.5, -0.25, 2.0], 0.0).pvalue
    assert t_test(m) == pytest.approx(expected, rel=1e-12) and type(t_test(m)) is float
    assert t_test(np.array([1.0, 3.0])) == pytest.approx(ttest_1samp([1.0, 3.0], 0.0).pvalue)
    for flat in ([2.0, 2.0, 2.0], [1.0], [], [1.0, np.inf], [np.nan, 1.0]):
        assert math.isnan(t_test(np.array(flat))), flat
    assert effect_test("t", m, 1, 1) == pytest.approx(expected, rel=1e-12)
    assert effect_test("sign", m, 5, 1) == pytest.approx(binomtest(5, 6, 0.5).pvalue)
    with pytest.raises(ValueError) as exc:
        effect_test("z", m, 1, 1)
    assert _message(exc) == TEST_ERROR.format("'z'", "")


def _agresti_min(pos: int, neg: int, n: int, z: float) -> tuple[float, float]:
    b, c, m = pos + 0.5, neg + 0.5, n + 2
    theta = (b - c) / m
    se = math.sqrt((b + c) - (b - c) ** 2 / m) / m
    return max(-1.0, theta - z * se), min(1.0, theta + z * se)


def test_effect_interval_by_hand_at_two_confidences() -> None:
    # 4 pos, 1 neg, 3 neutral: b = 4.5, c = 1.5, m = 10: centre 0.3, se = sqrt(6 - 0.9) / 10
    se = math.sqrt(5.1) / 10
    for confidence, z in ((0.95, 1.959963984540054), (0.8, 1.2815515655446004)):
        eff, lo, hi = effect_interval(4, 1, 8, confidence)
        assert eff == 3 / 8
        assert (lo, hi) == (pytest.approx(0.3 - z * se), pytest.approx(0.3 + z * se))
        assert z == pytest.approx(norm.ppf(0.5 + confidence / 2))
    assert effect_interval(4, 1, 8) == effect_interval(4, 1, 8, 0.95)
    # clipped at both ends
    eff, lo, hi = effect_interval(0, 6, 6)
    assert (eff, hi) == (-1.0, pytest.approx(_agresti_min(0, 6, 6, 1.959963984540054)[1]))
    assert lo == -1.0
    eff, lo, hi = effect_interval(10, 0, 10, 0.99)  # centre 10/12, z * se = 0.42
    assert (lo, hi) == (pytest.approx(_agresti_min(10, 0, 10, norm.ppf(0.995))[0]), 1.0)
    assert effect_interval(3, 0, 3, 0.5)[2] == pytest.approx(0.6 + norm.ppf(0.75) * 2.2**0.5 / 5)
    assert all(type(v) is float for v in effect_interval(2, 1, 5))
    # one instance: b = 1.5, c = 0.5, m = 3: centre 1/3, se = sqrt(2 - 1/3) / 3
    eff, lo, hi = effect_interval(1, 0, 1)
    assert (eff, lo) == (1.0, pytest.approx(1 / 3 - 1.959963984540054 * (5 / 3) ** 0.5 / 3))
    for n in (0, -1):
        assert all(math.isnan(v) for v in effect_interval(0, 0, n, confidence=2.0))
    for bad in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(ValueError) as exc:
            effect_interval(1, 0, 2, bad)
        assert _message(exc) == f"confidence must be in (0, 1) (got {bad!r}); use e.g. 0.95"


# ----------------------------------------------------------------------------- sample hash


def _h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _digest(lines: list[str]) -> str:
    return _h("\n".join(sorted(lines)))


def test_the_empty_sample() -> None:
    empty = pd.DataFrame(columns=["query_id", "axiom", "relation", "doc_a", "doc_b"])
    assert sample_hash(empty) == "sha256:" + _h("")[:16]
    assert sample_hash(empty, full=True) == "sha256:" + _h("")


def test_symmetric_rows_missing_ids_and_no_third_document() -> None:
    df = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", 7],
            "axiom": ["A", "A", "B", "A"],
            "relation": [">", ">", "=", ">"],
            "doc_a": ["d2", "d2", "d9", "d1"],
            "doc_b": ["d1", "d1", "d3", None],
            "symmetric": [True, None, False, np.nan],
        }
    )
    # row 1: symmetric, so "=" and its documents sorted; row 2: not symmetric, as given;
    # row 3: "=", sorted; row 4: a missing id is ""; no doc_c column: "" for every row
    lines = [
        "q1\x1fA\x1f=\x1fd1\x1fd2\x1f",
        "q1\x1fA\x1f>\x1fd2\x1fd1\x1f",
        "q2\x1fB\x1f=\x1fd3\x1fd9\x1f",
        "7\x1fA\x1f>\x1fd1\x1f\x1f",
    ]
    assert sample_hash(df, full=True) == "sha256:" + _digest(lines)
    texts = {"d1": "one", "d2": "two", "d3": "three", "d9": "nine"}
    queries = {"q1": "first", "q2": "second", "7": "seventh"}
    lines = [
        "\x1f".join([*line.split("\x1f")[:5], "", *extra])
        for line, extra in zip(
            lines,
            [
                [_h("first"), _h("one"), _h("two"), ""],  # the texts sorted with their ids
                [_h("first"), _h("two"), _h("one"), ""],
                [_h("second"), _h("three"), _h("nine"), ""],
                [_h("seventh"), _h("one"), "", ""],  # no document: no digest
            ],
            strict=True,
        )
    ]
    got = sample_hash(df, full=True, query_texts=queries, doc_texts=texts)
    assert got == "sha256:" + _digest(lines)
    assert sample_hash(df, query_texts=queries, doc_texts=texts) == got[:23]


def test_sample_hash_refusals_word_for_word() -> None:
    df = pd.DataFrame(
        {"query_id": ["q1"], "axiom": ["A"], "relation": [">"], "doc_a": ["d1"], "doc_b": ["d2"]}
    )
    for kw in ({"query_texts": {"q1": "x"}}, {"doc_texts": {"d1": "x"}}):
        with pytest.raises(ValueError) as exc:
            sample_hash(df, **kw)  # type: ignore[arg-type]
        assert _message(exc) == "give both query_texts and doc_texts, or neither"
    docs = {"d1": "a", "d2": "b"}
    with pytest.raises(KeyError) as exc:
        sample_hash(df, query_texts={}, doc_texts=docs)
    assert _message(exc) == (
        "no text for query 'q1': the sample hash covers the texts, so give every query of the "
        "instances a text (see sample_texts)"
    )
    with pytest.raises(KeyError) as exc:
        sample_hash(df, query_texts={"q1": "x"}, doc_texts={"d1": "a"})
    assert _message(exc) == (
        "no text for document 'd2': the sample hash covers the texts, so give every document "
        "of the instances a text (see sample_texts)"
    )


def test_sample_texts_from_the_dataset_and_the_artificial_documents() -> None:
    ds = Dataset(
        "toy",
        {"q1": Query("q1", "first"), "q2": Query("q2", "second"), "q3": Query("q3", "unused")},
        {d: Document(d, f"text of {d}") for d in ("d1", "d2", "d3", "d4")},
    )
    inst = pd.DataFrame(
        {
            "query_id": ["q1", "q2"],
            "doc_a": ["d1", "d3"],
            "doc_b": ["a1", "d2"],
            "doc_c": [None, "d4"],
        }
    )
    queries, docs = sample_texts(inst, ds, {"a1": Document("a1", "made up")})
    assert queries == {"q1": "first", "q2": "second"}
    expected = {"d1": "text of d1", "a1": "made up", "d3": "text of d3", "d2": "text of d2"}
    assert docs == expected | {"d4": "text of d4"}
    # the artificial documents as the doc_id, text table; an artificial id wins over the
    # dataset's (a table may carry ids that are not strings)
    table = pd.DataFrame({"doc_id": ["a1", "d2", 5], "text": ["made up", "changed", 6]})
    _, docs = sample_texts(inst.drop(columns="doc_c"), ds, table)
    assert docs == {"d1": "text of d1", "a1": "made up", "d3": "text of d3", "d2": "changed"}
    with pytest.raises(KeyError):
        sample_texts(inst, ds)  # a1 has no text
    _, docs = sample_texts(inst[inst["query_id"] == "q2"], ds, None)
    assert docs == {"d3": "text of d3", "d2": "text of d2", "d4": "text of d4"}


def test_the_third_document_and_a_float_symmetric_column() -> None:
    df = pd.DataFrame(
        {
            "query_id": ["q1", "q1"],
            "axiom": ["TFC2", "A"],
            "relation": ["diff>", ">"],
            "doc_a": ["d3", "d2"],
            "doc_b": ["d2", "d3"],
            "doc_c": ["d1", None],
            "symmetric": [np.nan, 0.0],  # as read back from a file: NaN is not symmetric
        }
    )
    lines = ["q1\x1fTFC2\x1fdiff>\x1fd3\x1fd2\x1fd1", "q1\x1fA\x1f>\x1fd2\x1fd3\x1f"]
    assert sample_hash(df, full=True) == "sha256:" + _digest(lines)
    texts = {"d1": "one", "d2": "two", "d3": "three"}
    lines = [
        "\x1f".join([*lines[0].split("\x1f"), _h("q"), _h("three"), _h("two"), _h("one")]),
        "\x1f".join([*lines[1].split("\x1f"), _h("q"), _h("two"), _h("three"), ""]),
    ]
    got = sample_hash(df, full=True, query_texts={"q1": "q"}, doc_texts=texts)
    assert got == "sha256:" + _digest(lines)
    # a missing text of the first or the third document (d1: only a third one) is named as
    # a document's
    for missing in ("d3", "d1"):
        with pytest.raises(KeyError) as exc:
            sample_hash(
                df,
                query_texts={"q1": "q"},
                doc_texts={k: v for k, v in texts.items() if k != missing},
            )
        assert _message(exc) == (
            f"no text for document '{missing}': the sample hash covers the texts, so give "
            "every document of the instances a text (see sample_texts)"
        )

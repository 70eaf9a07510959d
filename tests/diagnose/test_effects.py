"""Calibrated effects (the bands: top-gap and ABNIRML's; the effect; the sign test and ABNIRML's
t-test) and the probe sample's hash."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, ttest_1samp

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.effects import (
    BAND_COLUMNS,
    band_counts,
    effect_interval,
    median_adjacent_gap,
    median_top_gap,
    sample_hash,
    sample_texts,
    sign_test,
    t_test,
)
from axiomatic.diagnose.result import Diagnosis

SCORES = {
    # q1: top two candidates 5.0, 4.0 -> gap 1.0; the artificial a1 (100) is no candidate
    "q1": {"d1": 5.0, "d2": 4.0, "d3": 3.5, "d4": 1.0, "a1": 100.0},
    # q2: 2.0, 1.7 -> gap 0.3
    "q2": {"e1": 2.0, "e2": 1.7, "e3": 0.0},
    # q3: 2.4, 0.4 -> gap 2.0; the median of (1.0, 0.3, 2.0) is 1.0 (the mean would be 1.1;
    # with the non-candidate a1, q1's gap would be 95 and the median 2.0)
    "q3": {"f1": 2.4, "f2": 0.4},
}


class DictRanker:
    def __init__(self, name: str, scores: dict[str, dict[str, float]], scale: float = 1.0):
        self.name = name
        self.scores = scores
        self.scale = scale

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        return self.scale * np.array([self.scores[query.query_id][d.doc_id] for d in documents])


def _dataset() -> Dataset:
    ids = {q: [d for d in s if d != "a1"] for q, s in SCORES.items()}
    docs = {d: Document(d, d) for q in ids for d in ids[q]}
    return Dataset("toy", {q: Query(q, q) for q in SCORES}, docs, None, ids)


def _row(q: str, a: str, b: str, axiom: str = "TFC1", relation: str = ">") -> dict:
    return dict(query_id=q, axiom=axiom, variant="relaxed", spec=axiom, doc_a=a, doc_b=b,
                doc_c=None, relation=relation)  # fmt: skip


# TFC1 margins s(a) - s(b) against the auto band 1.0:
#  (d1,d2) 1.0 neutral (the band is inclusive) | (d2,d3) 0.5 neutral | (d4,d1) -4 neg
#  (a1,d1) 95 pos  | (e1,e2) 0.3 neutral | (e3,e1) -2 neg | (e1,e3) 2 pos | (f1,f2) 2 pos
TFC1 = [("q1", "d1", "d2"), ("q1", "d2", "d3"), ("q1", "d4", "d1"), ("q1", "a1", "d1"),
        ("q2", "e1", "e2"), ("q2", "e3", "e1"), ("q2", "e1", "e3"), ("q3", "f1", "f2")]  # fmt: skip


def _instances() -> pd.DataFrame:
    rows = [_row(*t) for t in TFC1] + [_row("q1", "d1", "d4", axiom="M-TDC")] * 9
    return pd.DataFrame(rows)


def _diag(band: object, **kw: object) -> Diagnosis:
    ranker = DictRanker("toy", SCORES)
    return diagnose(
        _instances(), [ranker], _dataset(), {"a1": Document("a1", "a1")}, band=band, **kw
    )


def _agresti_min(pos: int, neg: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Agresti & Min (2005): add 1/2 to each cell of the matched table, then Wald."""
    b, c, m = pos + 0.5, neg + 0.5, n + 2
    theta = (b - c) / m
    se = math.sqrt((b + c) - (b - c) ** 2 / m) / m
    return max(-1.0, theta - z * se), min(1.0, theta + z * se)


def test_auto_band_is_the_median_top_gap_of_the_candidates() -> None:
    diag = _diag("auto")
    assert diag.band == {"toy": pytest.approx(1.0)}  # median(1.0, 0.3, 2.0), a1 left out
    assert median_top_gap([np.array([5.0, 4.0, 3.5]), np.array([0.3, np.nan, 0.0])]) == (
        pytest.approx(0.65),  # median of 1.0 and 0.3 (NaN scores left out)
        2,
    )
    # a ranker on another scale gets its own band
    scaled = diagnose(_instances(), [DictRanker("x10", SCORES, 10.0)], _dataset(),
                      {"a1": Document("a1", "a1")}, band="auto")  # fmt: skip
    assert scaled.band == {"x10": pytest.approx(10.0)}


def test_top_gap_is_auto_and_abnirml_pools_the_adjacent_gaps_of_the_top_10() -> None:
    assert _diag("top-gap").band == _diag("auto").band == {"toy": pytest.approx(1.0)}
    # adjacent gaps of each query's candidates by score: q1 5, 4, 3.5, 1 -> 1.0, 0.5, 2.5;
    # q2 2.0, 1.7, 0.0 -> 0.3, 1.7; q3 2.4, 0.4 -> 2.0; pooled median (1.0 + 1.7) / 2
    diag = _diag("abnirml")
    assert diag.band == {"toy": pytest.approx(1.35)}
    assert "abnirml" in diag.metadata["band_calibration"]
    # only the top 10 count: the gaps below rank 10 (here 100 each) are not pooled
    scores = np.r_[np.arange(10.0, 0.0, -1.0) * 0.1, -100.0, -200.0, np.nan]
    assert median_adjacent_gap([scores]) == (pytest.approx(0.1), 1)
    # the median is over the pooled gaps, not over queries' medians: gaps 0.1 x 9 and 5
    assert median_adjacent_gap([scores[:10], np.array([6.0, 1.0])]) == (pytest.approx(0.1), 2)
    assert median_adjacent_gap([np.array([1.0]), np.array([np.nan, 2.0])])[1] == 0


def test_the_band_is_calibrated_on_the_candidates_not_the_instances_documents() -> None:
    """The band is the ranker's gaps among the query's candidates: documents that no instance
    names (g1, g2 here) count, so a calibration on the instances' documents alone differs."""
    scores = {"q": {"g1": 9.0, "g2": 5.0, "g3": 2.0, "g4": 1.5, "g5": 1.4}}
    ds = Dataset("cands", {"q": Query("q", "q")}, {d: Document(d, d) for d in scores["q"]},
                 None, {"q": list(scores["q"])})  # fmt: skip
    inst = pd.DataFrame([_row("q", "g3", "g4"), _row("q", "g4", "g5")])
    ranker = DictRanker("toy", scores)
    # top-gap: 9 - 5 (the instances' documents alone: 2.0 - 1.5)
    assert diagnose(inst, [ranker], ds, band="top-gap").band == {"toy": pytest.approx(4.0)}
    # abnirml: gaps 4, 3, 0.5, 0.1 -> median 1.75 (the instances' documents alone: 0.3)
    assert diagnose(inst, [ranker], ds, band="abnirml").band == {"toy": pytest.approx(1.75)}


def test_abnirmls_t_test_of_the_margins_by_hand() -> None:
    table = _diag("auto", band_test="t").table().set_index("axiom")
    t = table.loc["TFC1"]
    # the margins s(a) - s(b) of the TFC1 instances (see TFC1 above), neutral ones included
    margins = [1.0, 0.5, -4.0, 95.0, 0.3, -2.0, 2.0, 2.0]
    assert t["effect_test"] == "t"
    assert t["effect_p"] == pytest.approx(ttest_1samp(margins, 0.0).pvalue, rel=1e-12)
    assert t["effect_p"] != pytest.approx(binomtest(3, 5, 0.5).pvalue)
    # counts and effect do not depend on the test
    assert (t["pos"], t["neg"], t["neutral"], t["effect"]) == (3, 2, 3, pytest.approx(1 / 8))
    # nine equal margins do not vary: no t statistic
    assert np.isnan(table.loc["M-TDC", "effect_p"])
    assert t_test(np.array([1.0, 2.0, np.nan, 4.0])) == pytest.approx(
        ttest_1samp([1.0, 2.0, 4.0], 0.0).pvalue
    )
    assert np.isnan(t_test(np.array([3.0])))
    assert _diag("auto").table().set_index("axiom").loc["TFC1", "effect_test"] == "sign"
    with pytest.raises(ValueError, match="band_test must be one of sign, t"):
        _diag("auto", band_test="wilcoxon")
    with pytest.raises(ValueError, match="need a band"):
        _diag(None, band_test="t")


def test_merging_diagnoses_of_two_tests_is_refused() -> None:
    other = diagnose(_instances(), [DictRanker("x10", SCORES, 10.0)], _dataset(),
                     {"a1": Document("a1", "a1")}, band="auto", band_test="t")  # fmt: skip
    with pytest.raises(ValueError, match="test their effects differently"):
        _diag("auto").merge(other)


def test_counts_effect_interval_and_sign_test_by_hand() -> None:
    table = _diag("auto").table().set_index("axiom")
    t = table.loc["TFC1"]
    assert (t["pos"], t["neg"], t["neutral"], t["n"]) == (3, 2, 3, 8)
    assert t["effect"] == pytest.approx((3 - 2) / 8)
    # b = 3.5, c = 2.5, m = 10: centre 0.1, se = sqrt(6 - 0.1) / 10
    lo, hi = (
        0.1 - 1.959963984540054 * math.sqrt(5.9) / 10,
        0.1 + 1.959963984540054 * math.sqrt(5.9) / 10,
    )
    assert (t["effect_ci_low"], t["effect_ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert (lo, hi) == pytest.approx(_agresti_min(3, 2, 8))
    assert t["effect_p"] == pytest.approx(binomtest(3, 5, 0.5).pvalue)
    # fulfilment (ties only at 1e-9) is not the effect: 6 of 8 have s(a) > s(b), but three of
    # them by no more than the band
    assert t["fraction"] == pytest.approx(6 / 8)
    m = table.loc["M-TDC"]
    assert (m["pos"], m["neg"], m["neutral"], m["effect"]) == (9, 0, 0, 1.0)
    assert m["effect_p"] == pytest.approx(2 / 2**9)
    assert list(table.columns[table.columns.get_loc("ci_high") + 1 :]) == [*BAND_COLUMNS, "sample"]


def test_a_given_band_and_a_band_per_ranker() -> None:
    t = _diag(0.25).table().set_index("axiom").loc["TFC1"]
    # at 0.25: (d1,d2) 1.0, (d2,d3) 0.5 and (e1,e2) 0.3 become pos
    assert (t["delta"], t["pos"], t["neg"], t["neutral"]) == (0.25, 6, 2, 0)
    t = _diag({"toy": 3.0}).table().set_index("axiom").loc["TFC1"]
    assert (t["pos"], t["neg"], t["neutral"]) == (1, 1, 6)  # only 95 and -4 are outside
    with pytest.raises(ValueError, match="no value for ranker 'toy'"):
        _diag({"other": 1.0})
    with pytest.raises(ValueError, match="'auto', 'top-gap', 'abnirml' or a finite number"):
        _diag("big")
    with pytest.raises(ValueError, match=">= 0"):
        _diag(-1.0)


def test_without_a_band_the_table_is_as_before_plus_the_sample() -> None:
    plain = _diag(None)
    assert plain.band is None and plain.margins is None
    cols = list(plain.table().columns)
    assert cols[-1] == "sample" and not set(BAND_COLUMNS) & set(cols)
    banded = _diag("auto").table()
    pd.testing.assert_frame_equal(plain.table(), banded[cols])


def test_band_and_margins_survive_save_load_and_views(tmp_path) -> None:
    diag = _diag("auto")
    back = Diagnosis.load(diag.save(tmp_path / "state"))
    pd.testing.assert_frame_equal(back.table(), diag.table())
    # a run that lacks e3: own-list view skips its instances, the union view ranks it below
    run = {q: {d: s for d, s in v.items() if d not in ("e3", "a1")} for q, v in SCORES.items()}

    class Run(DictRanker):
        can_score_unseen_documents = False

        def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
            r = self.scores[query.query_id]
            return np.array([r.get(d.doc_id, np.nan) for d in documents])

    d2 = diagnose(_instances(), [Run("run", run)], _dataset(), {"a1": Document("a1", "a1")},
                  band=0.25)  # fmt: skip
    own, union = (d2.in_view(v).table().set_index("axiom").loc["TFC1"] for v in d2.view_names())
    # own list: a1 (artificial) and the two pairs with e3 are skipped
    assert (own["pos"], own["neg"], own["neutral"]) == (4, 1, 0)
    # union: e3 ranks below everything: (e3,e1) neg, (e1,e3) pos
    assert (union["pos"], union["neg"], union["neutral"]) == (5, 2, 0)
    back = Diagnosis.load(d2.save(tmp_path / "s2"))
    for v in d2.view_names():
        pd.testing.assert_frame_equal(back.in_view(v).table(), d2.in_view(v).table())


def test_triples_compare_the_difference_of_gaps_with_the_band() -> None:
    rows = [dict(_row("q1", "d3", "d2", axiom="TFC2", relation="diff>"), doc_c="d1")]
    ds = _dataset()
    # (s(b) - s(a)) - (s(c) - s(b)) = (4 - 3.5) - (5 - 4) = -0.5
    diag = diagnose(pd.DataFrame(rows), [DictRanker("toy", SCORES)], ds, band=0.4)
    t = diag.table().iloc[0]
    assert (t["pos"], t["neg"], t["neutral"]) == (0, 1, 0)
    diag = diagnose(pd.DataFrame(rows), [DictRanker("toy", SCORES)], ds, band=0.5)
    assert diag.table().iloc[0]["neutral"] == 1


def test_symmetric_groups_carry_no_effect() -> None:
    rows = [_row("q1", "d1", "d2", relation="=")]
    t = diagnose(pd.DataFrame(rows), [DictRanker("toy", SCORES)], _dataset(), band=2.0).table()
    assert t.iloc[0]["neutral"] == 1 and np.isnan(t.iloc[0]["effect"])
    assert np.isnan(t.iloc[0]["effect_p"])


@pytest.mark.parametrize(("pos", "neg"), [(0, 0), (1, 0), (3, 5), (12, 2), (40, 61), (7, 7)])
def test_sign_test_is_scipys_binomtest(pos: int, neg: int) -> None:
    expected = 1.0 if pos + neg == 0 else binomtest(pos, pos + neg, 0.5).pvalue
    assert sign_test(pos, neg) == pytest.approx(expected, rel=1e-12)


def test_band_counts_and_interval_edges() -> None:
    assert band_counts(np.array([0.5, -0.5, 0.51, -0.51, np.nan, np.inf, -np.inf]), 0.5) == (
        2,
        2,
        2,
    )
    eff, lo, hi = effect_interval(0, 0, 4)  # all neutral: centred on 0, not of zero width
    assert eff == 0.0 and lo == pytest.approx(-hi) and hi > 0
    assert all(np.isnan(effect_interval(0, 0, 0)))
    eff, lo, hi = effect_interval(10, 0, 10)  # all pos: the interval does not collapse
    assert eff == 1.0 and hi == 1.0 and lo == pytest.approx(_agresti_min(10, 0, 10)[0])
    assert lo < 0.7
    # the neutral share widens the interval: 100 pos of 100 vs 100 pos of 200
    wide, narrow = effect_interval(100, 0, 200), effect_interval(100, 0, 100)
    assert wide[2] - wide[1] > narrow[2] - narrow[1]


# ------------------------------------------------------------------------------ sample hash
def test_sample_hash_is_the_sha256_of_the_sorted_canonical_lines() -> None:
    df = pd.DataFrame([_row("q2", "e1", "e2"), _row("q1", "d2", "d1", relation="=")])
    lines = sorted(["q2\x1fTFC1\x1f>\x1fe1\x1fe2\x1f", "q1\x1fTFC1\x1f=\x1fd1\x1fd2\x1f"])
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    assert sample_hash(df, full=True) == "sha256:" + digest
    assert sample_hash(df) == "sha256:" + digest[:16]


def test_sample_hash_covers_the_texts_of_the_query_and_the_documents() -> None:
    df = pd.DataFrame([_row("q2", "e1", "e2"), _row("q1", "d2", "d1", relation="=")])
    queries = {"q1": "first query", "q2": "second query"}
    docs = {"d1": "one", "d2": "two", "e1": "three", "e2": "four"}

    def h(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    # the symmetric instance's documents are sorted, and their texts with them
    lines = sorted(
        [
            "\x1f".join(["q2", "TFC1", ">", "e1", "e2", "", h("second query"), h("three"),
                         h("four"), ""]),
            "\x1f".join(["q1", "TFC1", "=", "d1", "d2", "", h("first query"), h("one"),
                         h("two"), ""]),
        ]
    )  # fmt: skip
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    assert sample_hash(df, full=True, query_texts=queries, doc_texts=docs) == "sha256:" + digest
    base = sample_hash(df, query_texts=queries, doc_texts=docs)
    # one text changed under the same ids: another sample (ids alone cannot tell)
    assert sample_hash(df, query_texts=queries, doc_texts=docs | {"e2": "four!"}) != base
    assert sample_hash(df, query_texts=queries | {"q1": "first query?"}, doc_texts=docs) != base
    assert sample_hash(df, query_texts=queries, doc_texts=docs | {"x": "unused"}) == base
    with pytest.raises(KeyError, match="no text for document 'e2'"):
        sample_hash(df, query_texts=queries, doc_texts={k: docs[k] for k in ("d1", "d2", "e1")})
    with pytest.raises(ValueError, match="both"):
        sample_hash(df, query_texts=queries)


def test_a_diagnosis_hashes_the_texts_it_scored() -> None:
    ranker = DictRanker("toy", SCORES)
    art = {"a1": Document("a1", "a1")}
    base = diagnose(_instances(), [ranker], _dataset(), art)
    edited = _dataset()
    edited.documents = dict(edited.documents) | {"d2": Document("d2", "d2 edited")}
    assert diagnose(_instances(), [ranker], edited, art).sample != base.sample
    # an artificial text is a text too
    assert diagnose(_instances(), [ranker], _dataset(), {"a1": Document("a1", "b")}).sample != (
        base.sample
    )
    assert diagnose(_instances(), [ranker], _dataset(), art).sample == base.sample


def test_sample_hash_ignores_row_order_and_sees_one_changed_pair() -> None:
    df = _instances()
    h = sample_hash(df)
    for seed in range(3):
        assert sample_hash(df.sample(frac=1.0, random_state=seed)) == h
    changed = df.copy()
    changed.loc[4, "doc_b"] = "e3"
    assert sample_hash(changed) != h
    flipped = df.copy()  # the expected direction is part of the sample
    flipped.loc[0, ["doc_a", "doc_b"]] = ["d2", "d1"]
    assert sample_hash(flipped) != h
    dropped = df.drop(index=9)  # a repeated instance counts
    assert sample_hash(dropped) != h
    # a symmetric instance has no direction: its documents may come in either order
    sym = pd.DataFrame([_row("q1", "d1", "d2", relation="=")])
    assert sample_hash(sym) == sample_hash(sym.assign(doc_a="d2", doc_b="d1"))
    # the spec (variant, parameters) is not part of the sample
    assert sample_hash(df.assign(spec="TFC1(delta_rel=0.5)")) == h


def test_every_table_and_output_names_the_sample(tmp_path) -> None:
    from axiomatic.report.writer import write_report

    diag = _diag("auto")
    queries, docs = sample_texts(_instances(), _dataset(), {"a1": Document("a1", "a1")})
    full = sample_hash(_instances(), full=True, query_texts=queries, doc_texts=docs)
    h = full[:23]
    assert diag.sample == h and diag.summary()["sample"] == h
    assert diag.summary()["sample_sha256"] == full
    for frame in (diag.table(), diag.by_relevance(), diag.mcnemar()):
        assert (frame["sample"] == h).all()
    paths = write_report(diag, None, tmp_path / "rep", plots=False)
    for key, path in paths.items():
        if key.endswith("_csv"):
            frame = pd.read_csv(path)
            assert "sample" in frame and set(frame["sample"]) <= {h}, key
            assert len(frame) == 0 or set(frame["sample"]) == {h}, key
    page = paths["html"].read_text(encoding="utf-8")
    assert h in page and "effect" in page
    import json

    data = json.loads(paths["json"].read_text())
    assert data["summary"]["sample"] == h and data["table"][0]["sample"] == h
    assert data["table"][0]["delta"] == pytest.approx(1.0)


def test_merging_two_banded_diagnoses_keeps_each_rankers_band() -> None:
    a = _diag("auto")
    other = DictRanker("x10", SCORES, 10.0)
    b = diagnose(_instances(), [other], _dataset(), {"a1": Document("a1", "a1")}, band="auto")
    both = diagnose(_instances(), [DictRanker("toy", SCORES), other], _dataset(),
                    {"a1": Document("a1", "a1")}, band="auto")  # fmt: skip
    merged = a.merge(b)
    assert merged.band == both.band == {"toy": pytest.approx(1.0), "x10": pytest.approx(10.0)}
    pd.testing.assert_frame_equal(merged.table(), both.table())
    # with one side unbanded there are no effects to show
    assert (
        a.merge(diagnose(_instances(), [other], _dataset(), {"a1": Document("a1", "a1")})).band
        is None
    )


def _one_low_pair_per_query(ds: Dataset) -> pd.DataFrame:
    """One instance per query on its two lowest candidates: no instance names a top document."""
    rows = []
    for q in sorted(ds.candidates or {}):
        cands = ds.candidate_ids(q)
        rows.append(_row(q, cands[-2], cands[-1]))
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("name", "top_gap", "abnirml"),
    [
        # every query's candidate list calibrates the band; the instances' documents (each
        # query's two lowest candidates here) alone would give a far smaller one
        ("trec-dl-2019/bm25", 0.18721, 0.06413),
        ("demo", 0.14665, 0.08014),
    ],
)
def test_bm25_bands_on_real_candidate_lists(name: str, top_gap: float, abnirml: float) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.rankers.registry import make_ranker

    if name != "demo":
        from shared_data import require_collection

        require_collection("msmarco-passage-trecdl")
    ds = load_dataset(name)
    inst = _one_low_pair_per_query(ds)
    bm25 = make_ranker("bm25", ds)
    for band, expected in (("top-gap", top_gap), ("abnirml", abnirml)):
        (delta,) = diagnose(inst, [bm25], ds, band=band).band.values()  # type: ignore[union-attr]
        assert delta == pytest.approx(expected, abs=5e-6), band

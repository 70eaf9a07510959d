"""Calibrated effects (ABNIRML band, effect, sign test) and the probe sample's hash (issue 28)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.effects import (
    BAND_COLUMNS,
    band_counts,
    effect_interval,
    median_top_gap,
    sample_hash,
    sign_test,
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
    assert t["sign_p"] == pytest.approx(binomtest(3, 5, 0.5).pvalue)
    # fulfilment (ties only at 1e-9) is not the effect: 6 of 8 have s(a) > s(b), but three of
    # them by no more than the band
    assert t["fraction"] == pytest.approx(6 / 8)
    m = table.loc["M-TDC"]
    assert (m["pos"], m["neg"], m["neutral"], m["effect"]) == (9, 0, 0, 1.0)
    assert m["sign_p"] == pytest.approx(2 / 2**9)
    assert list(table.columns[table.columns.get_loc("ci_high") + 1 :]) == [*BAND_COLUMNS, "sample"]


def test_a_given_band_and_a_band_per_ranker() -> None:
    t = _diag(0.25).table().set_index("axiom").loc["TFC1"]
    # at 0.25: (d1,d2) 1.0, (d2,d3) 0.5 and (e1,e2) 0.3 become pos
    assert (t["delta"], t["pos"], t["neg"], t["neutral"]) == (0.25, 6, 2, 0)
    t = _diag({"toy": 3.0}).table().set_index("axiom").loc["TFC1"]
    assert (t["pos"], t["neg"], t["neutral"]) == (1, 1, 6)  # only 95 and -4 are outside
    with pytest.raises(ValueError, match="no value for ranker 'toy'"):
        _diag({"other": 1.0})
    with pytest.raises(ValueError, match="'auto' or a number"):
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
    assert np.isnan(t.iloc[0]["sign_p"])


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
    h = sample_hash(_instances())
    assert diag.sample == h and diag.summary()["sample"] == h
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

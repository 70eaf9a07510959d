"""Diagnosis on hand-built instance tables (schema of axiomatic.diagnose.mining)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.oracle import QrelsOracle
from axiomatic.diagnose.relations import (
    REL_TYPES,
    SKIP_ARTIFICIAL,
    SKIP_NO_SCORE,
    evaluate_relations,
)
from axiomatic.diagnose.result import Diagnosis, instance_frame


class CountRanker:
    """Scores a document by the occurrences of the query's words (a tiny TF ranker)."""

    def __init__(self, name: str = "count", sign: float = 1.0) -> None:
        self.name = name
        self.sign = sign
        self.calls: list[int] = []

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        self.calls.append(len(documents))
        words = query.text.split()
        return self.sign * np.array(
            [sum(d.text.split().count(w) for w in words) for d in documents], dtype=float
        )


class FixedRunRanker:
    """Knows only the scores of a run (cannot score artificial documents)."""

    can_score_unseen_documents = False

    def __init__(self, run: dict[str, dict[str, float]], name: str = "run") -> None:
        self.run = run
        self.name = name

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        return np.array([self.run[query.query_id][d.doc_id] for d in documents], dtype=float)


@pytest.fixture()
def dataset() -> Dataset:
    docs = {
        "d1": Document("d1", "apple apple pie"),
        "d2": Document("d2", "apple pie cake"),
        "d3": Document("d3", "cake cake cake"),
        "d4": Document("d4", "banana apple apple apple"),
    }
    return Dataset(
        name="toy",
        queries={"q1": Query("q1", "apple"), "q2": Query("q2", "cake")},
        documents=docs,
        qrels={"q1": {"d1": 2, "d2": 0, "d4": 1}, "q2": {"d3": 1, "d2": 0}},
        candidates={"q1": ["d1", "d2", "d3", "d4"], "q2": ["d2", "d3"]},
    )


def _row(
    q, ax, a, b, rel=">", c=None, ldr=0.0, ra=None, rb=None, rc=None, art=False, var="relaxed"
):
    return {
        "query_id": q,
        "axiom": ax,
        "variant": var,
        "spec": f"{ax}",
        "doc_a": a,
        "doc_b": b,
        "doc_c": c,
        "relation": rel,
        "len_a": 3,
        "len_b": 3,
        "len_diff_abs": 0,
        "len_diff_rel": ldr,
        "rel_a": ra,
        "rel_b": rb,
        "rel_c": rc,
        "split": "test",
        "artificial": art,
    }


@pytest.fixture()
def instances() -> pd.DataFrame:
    rows = [
        _row("q1", "TFC1", "d1", "d2", ra=2, rb=0, ldr=0.0),  # count 2 > 1: fulfilled
        _row("q1", "TFC1", "d2", "d1", ra=0, rb=2, ldr=0.05),  # 1 > 2: violated
        _row("q1", "TFC1", "d2", "d3", ra=0, rb=None, ldr=0.5),  # 1 > 0: fulfilled, unjudged
        _row("q1", "TFC1", "d1", "dup", rel=">=", ra=2, rb=2),  # 2 >= 2 tie: fulfilled (>=)
        _row("q2", "TFC1", "d2", "d2", ra=0, rb=0, ldr=0.2),  # tie under ">": violated
        _row("q2", "M-TDC", "d3", "d2", ra=1, rb=0, ldr=0.0),  # 3 > 1 fulfilled
        # TFC2 triple: s(b)-s(a) > s(c)-s(b): counts d2=1, d1=2, d4=3 -> 1 > 1 false (strict)
        _row("q1", "TFC2", "d2", "d1", rel="diff>", c="d4", ra=0, rb=2, rc=1, ldr=0.25),
        # LNC2 artificial duplicate of d1 ("dup" = d1 twice): 4 >= 2 fulfilled
        _row("q1", "LNC2", "dupart", "d1", rel=">=", ra=2, rb=2, art=True, ldr=None),
    ]
    df = instance_frame(rows)
    return df


@pytest.fixture()
def artificial() -> dict[str, Document]:
    return {
        "dupart": Document("dupart", "apple apple pie apple apple pie"),
        "dup": Document("dup", "apple apple pie"),
    }


def test_outcomes_follow_relations_and_ties(dataset, instances, artificial):
    r = CountRanker()
    diag = diagnose(instances, [r], dataset, artificial)
    assert diag.outcomes["count"].tolist() == [1, 0, 1, 1, 0, 1, 0, 1]
    # each query's distinct documents are scored once, in one call per query
    assert sorted(r.calls) == [2, 6]
    t = diag.table().set_index("axiom")
    assert t.loc["TFC1", "n"] == 5 and t.loc["TFC1", "fulfilled"] == 3
    assert t.loc["TFC1", "fraction"] == pytest.approx(0.6)
    assert t.loc["TFC1", "ci_low"] < 0.6 < t.loc["TFC1", "ci_high"]
    assert t.loc["TFC2", "fraction"] == 0.0


def test_reversed_ranker_flips_strict_outcomes(dataset, instances, artificial):
    diag = diagnose(instances, [CountRanker(), CountRanker("neg", -1.0)], dataset, artificial)
    a, b = diag.outcomes["count"].to_numpy(), diag.outcomes["neg"].to_numpy()
    rel = instances["relation"].to_numpy()
    strict = rel == ">"
    scores_differ = np.array([True, True, True, False, False, True, False, False])
    sel = strict & scores_differ
    assert (a[sel] + b[sel] == 1).all()


def test_evaluate_relations_rejects_unknown_and_skips_nan():
    out = evaluate_relations(
        np.array([">", ">=", "diff>"]), [1.0, np.nan, 0.0], [0.0, 1.0, 1.0], [np.nan, np.nan, 1.5]
    )
    assert out.tolist() == [1, -1, 1]
    with pytest.raises(ValueError, match="unknown instance relation"):
        evaluate_relations(np.array(["<"]), [1.0], [0.0])


def test_run_file_ranker_skips_artificial_and_counts_it(dataset, instances, artificial):
    run = {
        "q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d4": 0.5, "dup": 3.0},
        "q2": {"d2": 1.0, "d3": 2.0},
    }
    diag = diagnose(instances, [FixedRunRanker(run)], dataset, artificial)
    out = diag.outcomes["run"].to_numpy()
    # rows 3 ("dup") and 7 (LNC2 "dupart") involve artificial documents: skipped
    assert out[[3, 7]].tolist() == [-1, -1]
    assert (np.delete(out, [3, 7]) >= 0).all()
    assert diag.skips["run"] == {SKIP_ARTIFICIAL: 2}
    t = diag.table().set_index("axiom")
    assert t.loc["LNC2", "skipped"] == 1 and t.loc["LNC2", "n"] == 0
    assert np.isnan(t.loc["LNC2", "fraction"])


def test_oracle_uses_labels_and_sources(dataset, instances, artificial):
    diag = diagnose(
        instances,
        [CountRanker()],
        dataset,
        artificial,
        oracle=True,
        artificial_sources={"dupart": "d1"},
    )
    assert diag.references == ["oracle"]
    o = diag.outcomes["oracle"].to_numpy()
    # row0: 2>0 yes; row1: 0>2 no; row2: 0>0(unjudged) no; row3 dup unjudged: 2>=0 yes;
    # row4 tie no; row5 1>0 yes; row6: (2-0)>(1-2) yes; row7: dup inherits 2 >= 2 yes
    assert o.tolist() == [1, 0, 0, 1, 0, 1, 1, 1]
    oracle = QrelsOracle({"q": {"a": 3}})
    assert oracle.score(Query("q", "x"), [Document("a", ""), Document("b", "")]).tolist() == [3, 0]


def test_relevance_breakdown(dataset, instances, artificial):
    diag = diagnose(instances, [CountRanker()], dataset, artificial)
    types = diag.relevance_types()
    assert types[0] == REL_TYPES[1]  # relevant > non-relevant
    assert types[1] == REL_TYPES[2]  # non-relevant > relevant
    assert types[2] == REL_TYPES[4]  # unjudged
    assert types[3] == REL_TYPES[0]  # both relevant
    assert types[4] == REL_TYPES[3]  # both non-relevant
    br = diag.by_relevance()
    tfc1 = br[br["axiom"] == "TFC1"].set_index("rel_type")
    assert tfc1.loc[REL_TYPES[2], "fulfilled"] == 0
    assert tfc1["n"].sum() == 5


def test_mcnemar_pairs_and_holm(dataset, instances, artificial):
    diag = diagnose(
        instances, [CountRanker(), CountRanker("neg", -1.0)], dataset, artificial, oracle=True
    )
    m = diag.mcnemar()
    assert len(m) == 3 * len(diag.groups())
    row = m[(m["axiom"] == "TFC1") & (m["ranker_a"] == "count") & (m["ranker_b"] == "neg")].iloc[0]
    assert row["exact"]
    assert row["pvalue_holm"] >= row["pvalue"]
    assert 0.0 <= row["pvalue"] <= 1.0


def test_delta_sweep_counts_and_fractions(dataset, instances, artificial):
    diag = diagnose(instances, [CountRanker()], dataset, artificial)
    sw = diag.delta_sweep()
    tfc1 = sw[sw["axiom"] == "TFC1"].set_index("delta")
    # len_diff_rel of TFC1 rows: 0, .05, .5, 0, .2
    assert tfc1.loc[0.0, "n"] == 2 and tfc1.loc[0.0, "fraction"] == 1.0
    assert tfc1.loc[0.05, "n"] == 3
    assert tfc1.loc[0.2, "n"] == 4
    assert tfc1.loc[1.0, "n"] == 5 and tfc1.loc[1.0, "fraction"] == pytest.approx(0.6)
    assert tfc1.loc[1.0, "diff_vs_0"] == pytest.approx(0.4)
    assert "LNC2" not in set(sw["axiom"])  # no length difference -> not swept


def test_correlation_with_effectiveness(dataset, instances, artificial):
    diag = diagnose(
        instances, [CountRanker(), CountRanker("neg", -1.0)], dataset, artificial, oracle=True
    )
    eff = pd.DataFrame({"AP": [0.5, 0.2]}, index=["count", "neg"])
    c = diag.correlation(eff, "AP")
    assert set(c["n"]) == {2}  # the oracle is left out
    assert "mean" in set(c["axiom"])
    with pytest.raises(KeyError, match=r"measure 'APP' \(did you mean 'AP'\?\) is not in"):
        diag.correlation(eff, "APP")


def test_save_load_roundtrip_and_json(tmp_path, dataset, instances, artificial):
    diag = diagnose(instances, [CountRanker()], dataset, artificial, oracle=True)
    diag.save(tmp_path / "d")
    back = Diagnosis.load(tmp_path / "d")
    pd.testing.assert_frame_equal(back.table(), diag.table())
    assert back.references == ["oracle"]
    text = diag.to_json(tmp_path / "d.json")
    assert '"summary"' in text and (tmp_path / "d.json").is_file()
    diag.to_csv(tmp_path / "d.csv")
    assert pd.read_csv(tmp_path / "d.csv")["ranker"].nunique() == 2
    with pytest.raises(FileNotFoundError, match=r"Diagnosis\.save"):
        Diagnosis.load(tmp_path / "nothing")


def test_errors_name_the_problem(dataset, instances, artificial):
    with pytest.raises(ValueError, match="lacks columns"):
        diagnose(instances.drop(columns=["relation"]), [CountRanker()], dataset)
    with pytest.raises(KeyError, match="artificial"):
        diagnose(instances, [CountRanker()], dataset)  # no artificial docs passed
    with pytest.raises(ValueError, match="unique"):
        diagnose(instances, [CountRanker(), CountRanker()], dataset, artificial)


def test_real_run_file_ranker_missing_documents_are_counted(dataset, instances, artificial):
    from axiomatic.rankers.runfile import RunFileRanker

    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d4": 0.5}, "q2": {"d3": 2.0}}
    diag = diagnose(instances, [RunFileRanker(run, name="sys")], dataset, artificial)
    out = diag.outcomes["sys"].to_numpy()
    # q2 lacks d2 (rows 4, 5 skipped: no score); rows 3 and 7 need artificial documents
    assert out.tolist() == [1, 0, 1, -1, -1, -1, 1, -1]
    assert diag.skips["sys"] == {SKIP_ARTIFICIAL: 2, SKIP_NO_SCORE: 2}


def test_oracle_labels_artificial_docs_from_instance_rows(dataset, instances, artificial):
    diag = diagnose(instances, [CountRanker()], dataset, artificial, oracle=True)
    # "dupart" has rel_a=2 in its LNC2 row: 2 >= 2 fulfilled without any source mapping
    assert diag.outcomes["oracle"].iloc[7] == 1


def test_delta_sweep_leaves_out_artificial_rows(dataset, instances, artificial):
    inst = instances.copy()
    inst.loc[7, "len_diff_rel"] = 0.5
    diag = diagnose(inst, [CountRanker()], dataset, artificial)
    assert "LNC2" not in set(diag.delta_sweep()["axiom"])
    assert "LNC2" not in set(diag.delta_sweep(exclude_artificial=False)["axiom"])
    kept = diag.delta_sweep(exclude_artificial=False, exclude_axioms=())
    assert "LNC2" in set(kept["axiom"])


def test_missing_below_ranks_unretrieved_lower(dataset, instances, artificial):
    from axiomatic.diagnose.relations import SKIP_UNRETRIEVED
    from axiomatic.rankers.runfile import RunFileRanker

    run = {"q1": {"d1": 3.0, "d3": 1.0, "d4": 0.5}, "q2": {"d3": 2.0}}
    diag = diagnose(
        instances, [RunFileRanker(run, name="sys")], dataset, artificial, missing="below"
    )
    out = diag.outcomes["sys"].to_numpy()
    # d2 unretrieved: row0 d1>d2 fulfilled; row1 d2>d1 violated; row2 d2>d3 violated;
    # row4 d2 vs d2 (both unretrieved) skipped; row5 d3>d2 fulfilled; row6 triple with d2 skipped
    assert out.tolist() == [1, 0, 0, -1, -1, 1, -1, -1]
    assert diag.skips["sys"] == {SKIP_ARTIFICIAL: 2, SKIP_UNRETRIEVED: 2}
    with pytest.raises(ValueError, match="missing must be"):
        diagnose(instances, [CountRanker()], dataset, artificial, missing="drop")

"""Unbiased capping, own-list / union views, symmetric instances,
relative tie tolerance, and delta* shown next to every axiom."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from axiomatic.axioms import parse_axiom
from axiomatic.axioms.context import QueryContext
from axiomatic.data.demo import demo_dataset
from axiomatic.data.instances import MANIFEST, read_instances
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.mining import mine, mine_query
from axiomatic.diagnose.relations import (
    FULFILLED,
    SYMMETRIC_SUFFIX,
    VIEW_OWN,
    VIEW_UNION,
    VIOLATED,
    evaluate_relations,
)
from axiomatic.diagnose.result import Diagnosis
from axiomatic.index.cache import dataset_index


class DictRanker:
    """Scores from a dict; like a run file it cannot score documents it lacks (NaN)."""

    can_score_unseen_documents = False

    def __init__(self, name: str, scores: dict[str, float]) -> None:
        self.name, self.scores = name, scores

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        return np.asarray([self.scores.get(d.doc_id, np.nan) for d in documents], np.float64)


# ---------------------------------------------------------------------- unbiased capping
@pytest.fixture(scope="module")
def ranked_query():
    """One query whose candidate list is ranked by query-term count (as a BM25 run would be),
    and a ranker that orders its top 12 candidates correctly and the rest at random: the
    fulfilment of an instance correlates with the candidates' position."""
    rng = np.random.default_rng(7)
    n = 60
    counts = np.sort(rng.integers(0, 12, size=n))[::-1]
    docs = {}
    for i, c in enumerate(counts):
        words = ["apple"] * int(c) + [f"w{i}x{k}" for k in range(20 - int(c))]
        docs[f"d{i:02d}"] = Document(f"d{i:02d}", " ".join(words))
    ids = list(docs)
    ds = Dataset("ranked", {"q": Query("q", "apple")}, docs, {"q": {}}, {"q": ids})
    scores = {d: (100.0 + counts[i] if i < 12 else float(rng.random())) for i, d in enumerate(ids)}
    return ds, DictRanker("topheavy", scores)


def _fraction(ds, directory, ranker) -> tuple[float, int]:
    inst, _ = read_instances(directory)
    diag = diagnose(inst, [ranker], ds)
    t = diag.table().iloc[0]
    return float(t["fraction"]), int(t["n"])


def test_capped_fulfilment_is_within_sampling_error_of_uncapped(ranked_query, tmp_path):
    ds, ranker = ranked_query
    index = dataset_index(ds, cache_dir=False)
    ax = "TFC1(delta_rel=1.0)"
    mine(ds, ax, tmp_path / "all", index=index, progress=False)
    p_all, n_all = _fraction(ds, tmp_path / "all", ranker)
    cap = 150
    assert n_all > 5 * cap
    fracs = []
    for seed in (0, 1, 2):
        out = tmp_path / f"cap{seed}"
        s = mine(ds, ax, out, index=index, max_instances_per_query=cap, seed=seed, progress=False)
        p_cap, n_cap = _fraction(ds, out, ranker)
        assert n_cap == cap and s["per_axiom_uncapped"] == {parse_axiom(ax).spec: n_all}
        fracs.append(p_cap)
        # finite-population standard error of a uniform sample of `cap` out of `n_all`
        se = np.sqrt(p_all * (1 - p_all) / cap * (n_all - cap) / (n_all - 1))
        assert abs(p_cap - p_all) <= 4 * se, (seed, p_cap, p_all, se)
    # the first `cap` instances in candidate order would be far off: that is the bias fixed
    inst, _ = read_instances(tmp_path / "all")
    first = diagnose(inst.head(cap), [ranker], ds).table().iloc[0]["fraction"]
    assert first - p_all > 0.1
    assert len(set(fracs)) > 1  # different seeds draw different samples


def test_cap_records_seed_and_uncapped_count(ranked_query, tmp_path):
    ds, _ = ranked_query
    index = dataset_index(ds, cache_dir=False)
    a = mine(
        ds,
        "TFC1(delta_rel=1.0)",
        tmp_path / "a",
        index=index,
        max_instances_per_query=20,
        seed=5,
        progress=False,
    )
    b = mine(
        ds,
        "TFC1(delta_rel=1.0)",
        tmp_path / "b",
        index=index,
        max_instances_per_query=20,
        seed=5,
        progress=False,
    )
    man = json.loads((tmp_path / "a" / MANIFEST).read_text())
    assert man["config"]["seed"] == 5 and man["config"]["max_instances_per_query"] == 20
    shard = next(iter(man["shards"].values()))
    uncapped = a["per_axiom_uncapped"]["TFC1(variant='relaxed', delta_rel=1.0)"]
    assert shard["capped"] == {"q": {"TFC1(variant='relaxed', delta_rel=1.0)": uncapped}}
    da, _ = read_instances(tmp_path / "a")
    db, _ = read_instances(tmp_path / "b")
    assert (da["n_uncapped"] == uncapped).all() and uncapped > 20 and len(da) == 20
    pd.testing.assert_frame_equal(da, db)  # same seed, same sample
    assert a["seed"] == b["seed"] == 5 and a["per_axiom"] == b["per_axiom"]


def test_cap_is_independent_of_sharding():
    ds = demo_dataset()
    index = dataset_index(ds, cache_dir=False)
    ax = [parse_axiom("TFC1"), parse_axiom("LNC2")]
    q = next(iter(ds.queries))
    docs = [ds.documents[d] for d in ds.candidate_ids(q)]
    r1 = mine_query(ds.queries[q], docs, index, ax, max_instances_per_query=3, seed=1)
    r2 = mine_query(ds.queries[q], docs, index, ax, max_instances_per_query=3, seed=1)
    assert r1.table.equals(r2.table)
    kept = set(r1.table.column("doc_a").to_pylist())
    assert {r["doc_id"] for r in r1.artificial} <= kept  # only duplicates still used


# ------------------------------------------------------------------- symmetric instances
def _swap_dataset() -> Dataset:
    # "a" and "b" occur in both documents: equal df, equal idf. d1 and d2 swap their counts.
    docs = {
        "d1": Document("d1", "alpha alpha beta gamma"),
        "d2": Document("d2", "alpha beta beta delta"),
    }
    return Dataset(
        "swap", {"q": Query("q", "alpha beta")}, docs, {"q": {"d1": 1}}, {"q": ["d1", "d2"]}
    )


def test_symmetric_instances_are_flagged_and_expect_a_tie():
    ds = _swap_dataset()
    index = dataset_index(ds, cache_dir=False)
    ax = parse_axiom("M-TDC(variant='strict')")
    ctx = QueryContext.build(ds.queries["q"], list(ds.documents.values()), index)
    inst = ax.instances(ctx)
    assert len(inst.i) == 1 and inst.symmetric.tolist() == [True]
    res = mine_query(ds.queries["q"], list(ds.documents.values()), index, [ax])
    df = res.table.to_pandas()
    assert df["symmetric"].tolist() == [True] and df["relation"].tolist() == ["="]
    # the run that produced the candidate order (d1 above d2) no longer fulfils it by itself
    ordered = DictRanker("ordered", {"d1": 2.0, "d2": 1.0})
    tied = DictRanker("tied", {"d1": 1.0, "d2": 1.0})
    diag = diagnose(df, [ordered, tied], ds)
    assert diag.outcomes["ordered"].tolist() == [VIOLATED]
    assert diag.outcomes["tied"].tolist() == [FULFILLED]
    # ... and they form a group of their own
    assert diag.table()["spec"].str.endswith(SYMMETRIC_SUFFIX).all()
    # an old table (relation '>=', symmetric flag) is read the same way
    old = df.assign(relation=">=")
    assert diagnose(old, [ordered], ds).outcomes["ordered"].tolist() == [VIOLATED]


def test_directional_and_symmetric_groups_are_counted_apart():
    from axiomatic.report import tables

    ds = _swap_dataset()
    rows = [
        dict(
            query_id="q",
            axiom="M-TDC",
            variant="strict",
            spec="M-TDC(variant='strict', delta=0)",
            doc_a="d1",
            doc_b="d2",
            relation=">=",
            symmetric=s,
        )
        for s in (True, False)
    ]
    df = pd.DataFrame(rows)
    diag = diagnose(df, [DictRanker("r", {"d1": 2.0, "d2": 1.0})], ds)
    t = diag.table().set_index("spec")["fraction"]
    assert t["M-TDC(variant='strict', delta=0)"] == 1.0
    assert t["M-TDC(variant='strict', delta=0)" + SYMMETRIC_SUFFIX] == 0.0
    labels = tables.group_labels(diag)
    assert labels["M-TDC(variant='strict', delta=0)" + SYMMETRIC_SUFFIX].endswith("[equal]")
    assert len(set(labels.values())) == 2


# ---------------------------------------------------------------- relative tie tolerance
def test_relative_tie_tolerance_unit():
    rel = np.array([">=", ">", "=", ">="])
    # 0.1 + 0.2 = 0.30000000000000004: mathematically equal to 0.3, numerically above it
    sa = np.array([0.3, 0.1 + 0.2, 1e6 * (0.1 + 0.2), 5.0])
    sb = np.array([0.1 + 0.2, 0.3, 1e6 * 0.3, -np.inf])
    out = evaluate_relations(rel, sa, sb)
    assert out.tolist() == [FULFILLED, VIOLATED, FULFILLED, FULFILLED]
    exact = evaluate_relations(rel, sa, sb, tie_tolerance=0.0)
    assert exact.tolist() == [VIOLATED, FULFILLED, VIOLATED, FULFILLED]
    with pytest.raises(ValueError, match="tie_tolerance"):
        evaluate_relations(rel, sa, sb, tie_tolerance=-1)


def test_bm25_b1_fulfils_every_lnc2_instance():
    """BM25 with b = 1 gives a document and its k-fold duplicate the same score
    (tf/(tf + k1 |d|/avgdl) is unchanged by tf -> k tf, |d| -> k |d|): every LNC2 instance is a
    tie, which ``>=`` fulfils. Floating-point noise must not turn ties into violations."""
    from axiomatic.diagnose.artificial import ArtificialConfig
    from axiomatic.rankers.lexical import BM25Ranker

    ds = demo_dataset()
    index = dataset_index(ds, cache_dir=False)
    rows = []
    arts = {}
    for q in list(ds.queries)[:12]:
        docs = [ds.documents[d] for d in ds.candidate_ids(q)]
        res = mine_query(
            ds.queries[q],
            docs,
            index,
            [parse_axiom("LNC2")],
            artificial=ArtificialConfig(ks=(2, 3, 4, 5, 7), max_len=10_000),
        )
        rows.append(res.table.to_pandas())
        arts.update({r["doc_id"]: Document(r["doc_id"], r["text"]) for r in res.artificial})
    inst = pd.concat(rows, ignore_index=True)
    assert len(inst) > 100
    bm25 = BM25Ranker(index, b=1.0)
    exact = diagnose(inst, [bm25], ds, arts, tie_tolerance=0.0).table().iloc[0]
    assert exact["fulfilled"] < exact["n"]  # noise: some exact ties are missed
    default = diagnose(inst, [bm25], ds, arts).table().iloc[0]
    assert default["fulfilled"] == default["n"] == exact["n"]


# ---------------------------------------------------------------- own-list / union views
@pytest.fixture(scope="module")
def run_views():
    ds = Dataset(
        "views",
        {"q": Query("q", "apple")},
        {
            "a": Document("a", "apple apple apple x"),
            "b": Document("b", "apple apple x y"),
            "c": Document("c", "apple x y z"),
            "d": Document("d", "x y z w"),
        },
        {"q": {"a": 1}},
        {"q": ["a", "b", "c", "d"]},
    )
    rows = [
        dict(
            query_id="q",
            axiom="TFC1",
            variant="relaxed",
            spec="TFC1(variant='relaxed', delta_rel=1.0)",
            doc_a=a,
            doc_b=b,
            relation=">",
            len_diff_rel=0.0,
        )
        for a, b in (("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"))
    ]
    inst = pd.DataFrame(rows)
    # the run retrieved a and c only, and ordered them wrongly
    run = DictRanker("run", {"c": 2.0, "a": 1.0})
    full = DictRanker("full", {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0})
    return ds, inst, run, full


def test_both_views_side_by_side(run_views, tmp_path):
    ds, inst, run, full = run_views
    diag = diagnose(inst, [run, full], ds)  # default: both views
    assert diag.view == VIEW_OWN and list(diag.views) == [VIEW_UNION]
    own = diag.table().set_index("ranker")
    union = diag.in_view(VIEW_UNION).table().set_index("ranker")
    # own list: only (a, c), violated; union: (a,b) and (b,c),(c,d) decided by retrieval
    assert (own.loc["run", "n"], own.loc["run", "fulfilled"]) == (1, 0)
    assert (union.loc["run", "n"], union.loc["run", "fulfilled"]) == (4, 2)
    assert own.loc["full", "fraction"] == union.loc["full", "fraction"] == 1.0
    skip = diagnose(inst, [run, full], ds, missing="skip")
    below = diagnose(inst, [run, full], ds, missing="below")
    pd.testing.assert_frame_equal(diag.outcomes, skip.outcomes)
    pd.testing.assert_frame_equal(diag.views[VIEW_UNION], below.outcomes)
    # rankers that score every document: the views coincide and only one is kept
    alone = diagnose(inst, [full], ds)
    assert alone.view == "" and alone.views == {}
    back = Diagnosis.load(diag.save(tmp_path / "state"))
    assert back.view == VIEW_OWN
    pd.testing.assert_frame_equal(back.views[VIEW_UNION], diag.views[VIEW_UNION])


def test_reports_label_each_number_with_its_view(run_views, tmp_path):
    from rich.console import Console

    from axiomatic.report import tables
    from axiomatic.report.writer import write_report

    ds, inst, run, full = run_views
    diag = diagnose(inst, [run, full], ds)
    ov = tables.overview_frame(diag)
    cols = list(ov.columns)
    own_col = "TFC1 (δ*≤1.0) [own list]"
    assert cols == [own_col, "TFC1 (δ*≤1.0) [union]"]  # own list first
    assert ov.loc["run", own_col] == "0.0"
    con = Console(record=True, width=250)
    tables.print_tables(diag, console=con)
    text = " ".join(con.export_text().split())
    assert "[own list]" in text and "[union]" in text and "Table 4.5" in text
    paths = write_report(diag, None, tmp_path / "rep", plots=False)
    csv = pd.read_csv(paths["diagnosis_csv"])
    assert list(csv["view"].drop_duplicates()) == [VIEW_OWN, VIEW_UNION]
    assert (csv["delta_star"] == 1.0).all()
    page = paths["html"].read_text(encoding="utf-8")
    assert "[own list]" in page and "[union]" in page
    data = json.loads(paths["json"].read_text())
    assert set(data["views"]) == {VIEW_UNION} and data["view"] == VIEW_OWN


# ------------------------------------------------------------ delta* next to every axiom
def test_every_report_shows_delta_star(tmp_path):
    from rich.console import Console

    from axiomatic.report import tables
    from axiomatic.report.writer import write_report

    ds = demo_dataset()
    index = dataset_index(ds, cache_dir=False)
    mine(ds, "TFC1,TFC1(variant='strict'),LNC2", tmp_path / "i", index=index, progress=False)
    inst, arts = read_instances(tmp_path / "i")
    from axiomatic.rankers.lexical import BM25Ranker

    diag = diagnose(inst, [BM25Ranker(index)], ds, arts)
    assert tables.group_labels(diag) == {
        "TFC1(variant='relaxed', delta_rel=0.1)": "TFC1 (relaxed, δ*≤0.1)",
        "TFC1(variant='strict', delta=0)": "TFC1 (strict, δ*=0)",
        "LNC2(variant='relaxed')": "LNC2",
    }
    title = tables.layout_title(diag)
    assert "δ* ≤ 0.1" in title and "thesis table: δ* = 1.0" in title
    con = Console(record=True, width=250)
    tables.print_tables(diag, console=con)
    text = con.export_text()
    assert "δ*≤0.1" in text and "δ* = 1.0" in text
    paths = write_report(diag, None, tmp_path / "rep", plots=False)
    csv = pd.read_csv(paths["diagnosis_csv"]).set_index("spec")
    assert csv.loc["TFC1(variant='relaxed', delta_rel=0.1)", "delta_star"] == 0.1
    assert csv.loc["TFC1(variant='strict', delta=0)", "delta_star"] == 0.0
    data = json.loads(paths["json"].read_text())
    assert {r["length_tolerance"] for r in data["table"]} >= {"δ*≤0.1", "δ*=0"}
    page = paths["html"].read_text(encoding="utf-8")
    assert "δ*≤0.1" in page and "thesis table: δ* = 1.0" in page
    assert "Layout of Rennings (2019) Table 4.5, relaxed axioms at δ* ≤ 0.1" in page


# ----------------------------------------------------------------------------- CLI
def test_cli_seed_missing_and_tie_tolerance(tmp_path):
    from typer.testing import CliRunner

    from axiomatic.cli.main import app
    from axiomatic.data.trec import read_run, write_run

    runner = CliRunner()
    inst = tmp_path / "inst"
    res = runner.invoke(
        app,
        [
            "mine",
            "-d",
            "demo",
            "-a",
            "TFC1",
            "--max-per-query",
            "5",
            "--seed",
            "3",
            "-o",
            str(inst),
        ],
    )
    assert res.exit_code == 0, res.output
    cfg = json.loads((inst / MANIFEST).read_text())["config"]
    assert cfg["seed"] == 3 and cfg["max_instances_per_query"] == 5
    full = tmp_path / "ql.trec"
    assert runner.invoke(app, ["rank", "-d", "demo", "-r", "ql", "-o", str(full)]).exit_code == 0
    top = {q: dict(sorted(d.items(), key=lambda x: -x[1])[:4]) for q, d in read_run(full).items()}
    short = tmp_path / "top4.trec"
    write_run(top, short)
    out = tmp_path / "rep"
    args = ["diagnose", "-i", str(inst), "--run", str(short), "--no-plots", "--no-oracle"]
    res = runner.invoke(app, [*args, "-o", str(out), "--tie-tolerance", "0"])
    assert res.exit_code == 0, res.output
    assert "[own list]" in res.output and "[union]" in res.output
    table = pd.read_csv(out / "diagnosis.csv")
    assert list(table["view"].drop_duplicates()) == [VIEW_OWN, VIEW_UNION]
    assert json.loads((out / "diagnosis.json").read_text())["metadata"]["tie_tolerance"] == 0
    res = runner.invoke(app, [*args, "-o", str(tmp_path / "r2"), "--missing", "skip"])
    assert res.exit_code == 0, res.output
    assert set(pd.read_csv(tmp_path / "r2" / "diagnosis.csv")["view"]) == {VIEW_OWN}
    res = runner.invoke(app, [*args, "-o", str(tmp_path / "r3"), "--missing", "bellow"])
    assert res.exit_code != 0 and "below" in res.output


# ------------------------------------------------------ rank correlations before Pearson
def test_report_correlations_lead_with_rank_correlations(tmp_path):
    """The HTML correlation table puts Spearman/Kendall (with p) and n before Pearson, and the
    'mean over axioms' leaves the equality groups out."""
    from axiomatic.report.writer import write_report

    ds = _swap_dataset()
    rows = [
        dict(
            query_id="q",
            axiom="M-TDC",
            variant="strict",
            spec="M-TDC(variant='strict', delta=0)",
            doc_a="d1",
            doc_b="d2",
            relation=">=",
            symmetric=s,
        )
        for s in (True, False)
    ] + [
        dict(
            query_id="q",
            axiom="TFC1",
            variant="relaxed",
            spec="TFC1(variant='relaxed', delta_rel=1.0)",
            doc_a="d1",
            doc_b="d2",
            relation=">",
            symmetric=False,
        )
    ]
    rankers = [DictRanker(f"r{i}", {"d1": 1.0 + i, "d2": 2.0 - i % 2}) for i in range(4)]
    diag = diagnose(pd.DataFrame(rows), rankers, ds)
    eff = {f"r{i}": {"nDCG@10": 0.1 * i} for i in range(4)}
    corr = diag.correlation(eff, "nDCG@10").set_index("spec")
    piv = diag.pivot(by="spec")
    directional = [c for c in piv.columns if not c.endswith(SYMMETRIC_SUFFIX)]
    mean = piv[directional].mean(axis=1).to_numpy()
    from axiomatic.diagnose import stats

    expected = stats.correlation(mean, np.array([0.0, 0.1, 0.2, 0.3]))
    assert corr.loc["mean", "slope"] == pytest.approx(expected["slope"])
    page = write_report(diag, eff, tmp_path / "rep")["html"].read_text(encoding="utf-8")
    head = page[page.index("Axiomatic performance vs effectiveness") :]
    head = head[head.index("<thead>") : head.index("</thead>")]
    assert head.index("spearman") < head.index("kendall_p") < head.index("pearson")
    assert "<th>n</th>" in head


def test_docs_state_views_analyzer_delta_and_no_pearson_headline():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "diagnosis.md").read_text(encoding="utf-8")
    readme = (root / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if "TREC DL 2019 systems" in x)
    for text in (page, line):
        assert "Pearson -0.99" not in text and "Pearson r = -0.99" not in text
    assert "Kendall τ" in line and "7 systems" in line and "own-list" in line
    assert "[own list]" in page and "[union]" in page
    assert "stopwords=False" in page and "δ* = 1.0" in page
    assert "hence a lower nDCG@10" not in page  # the pool-idf explanation that did not hold
    assert "spearman_p" in page and "Within the two clusters" in page


def test_merge_keeps_both_views(run_views):
    ds, inst, run, full = run_views
    a = diagnose(inst, [run], ds)
    b = diagnose(inst, [full], ds)  # no missing documents: one view, valid for both
    m = a.merge(b)
    assert m.view == VIEW_OWN and list(m.views) == [VIEW_UNION]
    assert list(m.views[VIEW_UNION].columns) == ["run", "full"]
    pd.testing.assert_series_equal(m.views[VIEW_UNION]["full"], b.outcomes["full"])
    pd.testing.assert_series_equal(m.views[VIEW_UNION]["run"], a.views[VIEW_UNION]["run"])

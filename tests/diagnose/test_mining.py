"""Mining diagnostic datasets: schema, artificial LNC2, resumable shards, skips, Dask."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.data.demo import demo_dataset
from axiomatic.data.instances import INSTANCE_SCHEMA, MANIFEST, read_instances
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.mining import mine
from axiomatic.index.cache import dataset_index

AXIOMS = "TFC1,TFC2,M-TDC,LNC2,TFC1(variant='extended'),M-TDC(variant='extended')"
COLUMNS = [
    "query_id",
    "axiom",
    "variant",
    "spec",
    "doc_a",
    "doc_b",
    "doc_c",
    "relation",
    "len_a",
    "len_b",
    "len_diff_abs",
    "len_diff_rel",
    "rel_a",
    "rel_b",
    "rel_c",
    "split",
    "artificial",
    "symmetric",
    "n_uncapped",
]


@pytest.fixture(scope="module")
def demo():
    return demo_dataset()


@pytest.fixture(scope="module")
def index(demo):
    return dataset_index(demo, cache_dir=False)


@pytest.fixture(scope="module")
def mined(demo, index, tmp_path_factory):
    out = tmp_path_factory.mktemp("mined")
    summary = mine(demo, AXIOMS, out, index=index, shard_size=4, progress=False)
    return out, summary


def test_schema_is_exact(mined):
    out, summary = mined
    df, _arts = read_instances(out)
    assert list(df.columns) == COLUMNS == INSTANCE_SCHEMA.names
    assert str(df["rel_a"].dtype) == "Int64" and df["artificial"].dtype == bool
    assert summary["instances"] == len(df) > 0
    assert set(df["relation"]) <= {">", ">=", "=", "diff>"}
    triples = df[df.axiom == "TFC2"]
    assert len(triples) and triples["doc_c"].notna().all() and (triples.relation == "diff>").all()
    assert df[df.axiom != "TFC2"]["doc_c"].isna().all()
    assert (df.len_diff_abs >= 0).all() and df.len_diff_rel.between(0, 1).all()


def test_instances_satisfy_preconditions(mined, demo, index):
    """Every mined (non-artificial) pair is one where the axiom's preconditions hold."""
    out, _ = mined
    df, _ = read_instances(out)
    real = df[~df.artificial & (df.axiom != "TFC2")]
    for (qid, spec), grp in real.groupby(["query_id", "spec"]):
        ctx = QueryContext.build(demo.queries[qid], demo.candidate_documents(qid), index)
        pos = {d: i for i, d in enumerate(ctx.doc_ids)}
        holds = parse_axiom(spec).holds(ctx)
        assert holds[[pos[a] for a in grp.doc_a], [pos[b] for b in grp.doc_b]].all()


def test_artificial_lnc2_documents(mined, demo, index):
    out, _ = mined
    df, arts = read_instances(out)
    art = df[df.artificial]
    assert len(art) > 0 and (art.axiom == "LNC2").all() and (art.relation == ">=").all()
    assert set(art.doc_a) <= set(arts)
    for row in art.head(20).itertuples():
        text = arts[row.doc_a].text
        src = demo.documents[row.doc_b].text
        k = int(row.doc_a.rsplit("-k", 1)[1])
        assert k in (2, 3, 4) and text == " ".join([src] * k)
        assert row.len_a == k * row.len_b <= 240
        assert row.rel_a is pd.NA or row.rel_a == demo.judged(row.query_id).get(row.doc_b)
    # the artificial documents obey LNC2 when scored against the index
    qid = art.iloc[0].query_id
    sub = art[art.query_id == qid]
    docs = [demo.documents[d] for d in dict.fromkeys(sub.doc_b)] + [
        arts[d] for d in dict.fromkeys(sub.doc_a)
    ]
    ctx = QueryContext.build(demo.queries[qid], docs, index)
    pos = {d: i for i, d in enumerate(ctx.doc_ids)}
    holds = parse_axiom("LNC2").holds(ctx)
    assert holds[[pos[a] for a in sub.doc_a], [pos[b] for b in sub.doc_b]].all()


def test_resume_skips_finished_shards_and_detects_config_change(mined, demo, index):
    out, first = mined
    again = mine(demo, AXIOMS, out, index=index, shard_size=4, progress=False)
    assert again["shards_skipped"] == again["shards"] == first["shards"]
    assert again["instances"] == first["instances"]
    # a killed job: remove one finished shard -> only that one is recomputed
    (out / "shard-00001.parquet").unlink()
    third = mine(demo, AXIOMS, out, index=index, shard_size=4, progress=False)
    assert third["shards_skipped"] == first["shards"] - 1
    assert third["instances"] == first["instances"]
    with pytest.raises(ValueError, match="another configuration"):
        mine(demo, "TFC1", out, index=index, shard_size=4, progress=False)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["complete"] is True
    assert not list(out.glob(".*tmp*"))


def test_bad_input_is_counted_not_fatal(tmp_path):
    docs = {
        "a": Document("a", "solar panel efficiency is high"),
        "b": Document("b", "solar solar panel efficiency is high"),
        "e": Document("e", "the of and"),
    }
    ds = Dataset(
        name="tiny",
        queries={
            "q1": Query("q1", "solar panel"),
            "q2": Query("q2", "the and of"),
            "q3": Query("q3", "solar"),
        },
        documents=docs,
        candidates={"q1": ["a", "b", "e", "missing"], "q2": ["a", "b"], "q3": []},
    )
    s = mine(ds, "TFC1(delta_rel=0.5),LNC2", tmp_path, progress=False)
    assert s["skips"]["no_query_terms"] == 1
    assert s["skips"]["no_candidates"] == 1
    assert s["skips"]["empty_documents"] == 1
    assert s["skips"]["unknown_documents"] == 1
    df, _ = read_instances(tmp_path)
    assert set(df.query_id) == {"q1"}
    with pytest.raises(ValueError, match="unknown axiom"):
        mine(ds, "TFX1", tmp_path / "x", progress=False)


def test_cap_per_query(demo, index, tmp_path):
    s = mine(demo, "TFC1", tmp_path, index=index, max_instances_per_query=2, progress=False)
    df, _ = read_instances(tmp_path)
    assert df.groupby("query_id").size().max() <= 2 and s["instances"] == len(df)


def test_dask_two_workers_identical(mined, demo, index, tmp_path):
    out, _ = mined
    mine(demo, AXIOMS, tmp_path, index=index, shard_size=4, workers=2, progress=False)
    a, arts_a = read_instances(out)
    b, arts_b = read_instances(tmp_path)
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
    assert arts_a == arts_b
    assert np.array_equal(a.doc_a.to_numpy(), b.doc_a.to_numpy())


def test_count_tables(mined, demo, index):
    from axiomatic.diagnose.counts import presence_table, split_counts, variant_counts

    vc = variant_counts(demo, index=index)
    assert set(vc.stage) == {"original", "extended", "extended+length", "relaxed"}
    by = vc.set_index(["axiom", "stage"]).instances
    # conversion only widens TFC1/TFC2: original <= extended <= extended+length <= relaxed
    for ax in ("TFC1", "TFC2"):
        assert by[(ax, "original")] <= by[(ax, "extended")] <= by[(ax, "extended+length")]
        assert by[(ax, "extended+length")] <= by[(ax, "relaxed")]
    assert by[("LNC2", "relaxed")] > 0 and by[("LNC2", "original")] == 0
    out, _ = mined
    df, _ = read_instances(out)
    sc = split_counts(df)
    assert sc.loc["Total"].sum() == len(df)
    pt = presence_table(df, rel_threshold=1)
    assert (pt.groupby("spec").instances.sum() == df.groupby("spec").size()).all()
    assert np.allclose(pt.groupby("spec").percent.sum(), 100.0)


@pytest.mark.shared_data
def test_mining_a_real_collection(tmp_path):
    from shared_data import require_collection

    require_collection("msmarco-passage-dev-bm25top20-graded")
    from axiomatic.data.catalog import load_dataset

    ds = load_dataset("msmarco-dev-top20/test")
    ds = ds.subset(list(ds.queries)[:15])
    idx = dataset_index(ds)
    s = mine(ds, "TFC1,TFC2,M-TDC,LNC2", tmp_path, index=idx, shard_size=5, progress=False)
    df, arts = read_instances(tmp_path)
    assert s["instances"] == len(df) > 0 and set(df.split) == {"test"}
    assert df[df.artificial].doc_a.isin(list(arts)).all()
    for (qid, spec), grp in df[~df.artificial & (df.axiom != "TFC2")].groupby(["query_id", "spec"]):
        ctx = QueryContext.build(ds.queries[qid], ds.candidate_documents(qid), idx)
        pos = {d: i for i, d in enumerate(ctx.doc_ids)}
        assert (
            parse_axiom(spec)
            .holds(ctx)[[pos[a] for a in grp.doc_a], [pos[b] for b in grp.doc_b]]
            .all()
        )

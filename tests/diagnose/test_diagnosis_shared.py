"""Diagnosis on real TREC DL 2019 candidates (skips without ../shared/data)."""

from __future__ import annotations

import pytest

from shared_data import require_collection


@pytest.mark.shared_data
def test_dl19_run_file_and_bm25_on_mined_instances(tmp_path):
    require_collection("msmarco-passage-trecdl")
    from axiomatic.data.catalog import load_dataset
    from axiomatic.data.instances import read_instances
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.diagnose.mining import mine
    from axiomatic.diagnose.relations import SKIP_ARTIFICIAL
    from axiomatic.rankers.lexical import BM25Ranker
    from axiomatic.rankers.runfile import RunFileRanker

    full = load_dataset("trec-dl-2019/bm25")
    ds = full.subset(sorted(full.queries)[:3])
    mine(ds, "TFC1,M-TDC,LNC2", tmp_path / "inst", max_instances_per_query=300, progress=False)
    inst, art = read_instances(tmp_path / "inst")
    assert len(inst) > 0
    from axiomatic.index.cache import dataset_index

    bm25 = BM25Ranker(dataset_index(full))
    run = RunFileRanker(full.metadata["runs"]["bm25"], name="bm25-run")
    diag = diagnose(inst, [run, bm25], ds, art, oracle=True)
    t = diag.table().set_index(["ranker", "axiom"])
    # the candidates are the run's own documents: only artificial LNC2 documents are skipped
    n_art = int(inst["artificial"].sum())
    assert diag.skips["bm25-run"].get(SKIP_ARTIFICIAL, 0) == n_art
    assert t.loc[("bm25-run", "TFC1"), "skipped"] == 0
    # our BM25 (same analyzer as the miner) satisfies TFC1 on nearly all relaxed instances
    assert t.loc[(bm25.name, "TFC1"), "fraction"] > 0.8
    assert t.loc[(bm25.name, "LNC2"), "n"] == (inst["axiom"] == "LNC2").sum()

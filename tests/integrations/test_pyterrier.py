"""PyTerrier integration without Java: frames, rankers and axiomatic re-ranking as
transformers, pt.Experiment, and the diagnosis of several systems' result frames."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

pt = pytest.importorskip(
    "pyterrier",
    reason="the optional extra is not installed: pip install 'axiomatic-ir[pyterrier]'",
)

from axiomatic.data.catalog import load_dataset  # noqa: E402
from axiomatic.diagnose.rerank import axiomatic_rerank  # noqa: E402
from axiomatic.index.cache import dataset_index  # noqa: E402
from axiomatic.integrations.pyterrier import (  # noqa: E402
    AxiomaticRanker,
    AxiomaticReRanker,
    diagnose_frames,
    frame_to_run,
    measures,
    qrels_frame,
    results_frame,
    topics_frame,
)
from axiomatic.rankers.base import rerank  # noqa: E402
from axiomatic.rankers.registry import make_ranker  # noqa: E402


@pytest.fixture(scope="module")
def demo():
    return load_dataset("demo")


def test_without_the_extra_the_message_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyterrier", None)  # import pyterrier -> ImportError
    monkeypatch.delitem(sys.modules, "axiomatic.integrations.pyterrier", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'axiomatic-ir\[pyterrier\]'"):
        importlib.import_module("axiomatic.integrations.pyterrier")


def test_dataset_frames_use_pyterrier_columns(demo) -> None:
    topics = topics_frame(demo)
    assert list(topics.columns) == ["qid", "query"] and len(topics) == len(demo.queries)
    qrels = qrels_frame("demo")
    assert list(qrels.columns) == ["qid", "docno", "label"]
    assert len(qrels) == sum(len(v) for v in demo.qrels.values())
    res = results_frame(demo)
    assert list(res.columns) == ["qid", "query", "docno", "text", "score", "rank"]
    assert res.groupby("qid")["rank"].min().eq(0).all()
    assert frame_to_run(res).keys() == demo.candidates.keys()


def test_ranker_transformer_scores_as_the_ranker(demo) -> None:
    frame = results_frame(demo)
    out = AxiomaticRanker("bm25", demo).transform(frame)
    expected = rerank(make_ranker("bm25", demo), demo)
    got = frame_to_run(out)
    for q, scores in expected.items():
        for d, s in scores.items():
            assert got[q][d] == pytest.approx(s)
    # PyTerrier's rank: 0 = best, following the new scores
    top = out.sort_values(["qid", "rank"]).groupby("qid").head(1)
    for _, row in top.iterrows():
        assert row["score"] == max(expected[row["qid"]].values())
    # without text, the dataset gives it; without dataset either: a clear error
    assert np.allclose(
        AxiomaticRanker("bm25", demo).transform(frame.drop(columns="text"))["score"], out["score"]
    )
    with pytest.raises(ValueError, match="pass dataset="):
        AxiomaticRanker("bm25").transform(frame.drop(columns="text"))


def test_operators_and_axiomatic_reranker(demo) -> None:
    frame = results_frame(demo)
    bm25 = AxiomaticRanker("bm25", demo)
    cut = (bm25 % 3).transform(frame)  # PyTerrier's % = rank cutoff
    assert cut.groupby("qid").size().max() <= 3
    pipe = bm25 >> AxiomaticReRanker("TFC1,M-TDC,LNC2", demo, depth=5, seed=1)
    out = pipe.transform(frame)
    base = frame_to_run(bm25.transform(frame))
    direct = axiomatic_rerank(
        demo, "TFC1,M-TDC,LNC2", base, depth=5, seed=1, index=dataset_index(demo)
    )
    got = frame_to_run(out)
    for q in direct:
        order = sorted(direct[q], key=lambda d, q=q: -direct[q][d])
        assert sorted(got[q], key=lambda d, q=q: -got[q][d]) == order


def test_experiment_runs_without_java(demo) -> None:
    from pyterrier.measures import AP, RR, nDCG

    assert measures("nDCG@10 AP RR@10") == [nDCG @ 10, AP, RR @ 10]
    with pytest.raises(ValueError, match="nDCG@10"):
        measures("nDGC@10")
    frame = results_frame(demo)
    bm25 = AxiomaticRanker("bm25", demo)
    res = pt.Experiment(
        [frame, bm25, bm25 >> AxiomaticReRanker(dataset=demo, depth=5)],
        topics_frame(demo),
        qrels_frame(demo),
        measures("nDCG@10 AP RR@10"),  # ir_measures names (plain strings: trec_eval names)
        names=["candidates", "BM25", "BM25 >> axiomatic"],
    )
    assert list(res["name"]) == ["candidates", "BM25", "BM25 >> axiomatic"]
    assert res["nDCG@10"].between(0, 1).all()
    ours = rerank(make_ranker("bm25", demo), demo)
    from axiomatic.evaluate.metrics import evaluate

    assert res["nDCG@10"].iloc[1] == pytest.approx(
        evaluate(ours, demo.qrels, "nDCG@10", rel_threshold=demo.rel_threshold)["nDCG@10"]
    )
    if hasattr(pt, "java"):
        assert not pt.java.started()  # the transformer API needed no JVM


def test_diagnose_frames_of_several_systems(demo, tmp_path) -> None:
    frame = results_frame(demo)
    systems = {
        "bm25": AxiomaticRanker("bm25", demo).transform(frame),
        "ql": AxiomaticRanker("ql", demo).transform(frame),
    }
    res = diagnose_frames(
        systems,
        demo,
        axioms="TFC1,M-TDC,LNC2",
        variant="relaxed",
        out=tmp_path / "report",
        instances_dir=tmp_path / "inst",
    )
    table = res.table()
    assert {"bm25", "ql", "oracle"} <= set(table["ranker"])
    assert table["fraction"].dropna().between(0, 1).all()
    assert (tmp_path / "report" / "report.html").is_file()
    assert set(res.effectiveness["ranker"]) == {"bm25", "ql"}
    # the same systems as transformers, run on the topics, give the same diagnosis
    again = diagnose_frames(
        {"bm25": AxiomaticRanker("bm25", demo), "ql": AxiomaticRanker("ql", demo)},
        demo,
        topics=frame,  # a result frame carries qid + query: it is the first stage here
        axioms="TFC1,M-TDC,LNC2",
        variant="relaxed",
    )
    assert again.table().equals(table)


def test_model_dir_and_run_file_rankers(demo, tmp_path) -> None:
    """model:DIR (a saved neural model) and run:FILE work as transformers like any ranker."""
    from axiomatic.data.trec import write_run
    from axiomatic.models.io import build_model, save_model

    texts = [d.text for d in demo.documents.values()]
    model = build_model("knrm", texts=texts, seed=0, embedding_dim=8, embeddings="random")
    folder = save_model(model.eval(), tmp_path / "knrm")
    frame = results_frame(demo)
    out = AxiomaticRanker(f"model:{folder}", demo).transform(frame)
    expected = rerank(make_ranker(f"model:{folder}", demo), demo)
    got = frame_to_run(out)
    assert all(
        got[q][d] == pytest.approx(s, abs=1e-5) for q, v in expected.items() for d, s in v.items()
    )
    bm25_run = rerank(make_ranker("bm25", demo), demo)
    some = {q: dict(list(v.items())[:3]) for q, v in bm25_run.items()}  # a run lacking documents
    write_run(some, tmp_path / "bm25.trec", tag="bm25")
    with pytest.raises(ValueError, match="missing=min"):
        AxiomaticRanker(f"run:{tmp_path / 'bm25.trec'}", demo).transform(frame)
    scored = AxiomaticRanker(f"run:{tmp_path / 'bm25.trec'},missing=min", demo).transform(frame)
    top = scored.sort_values(["qid", "rank"]).groupby("qid").head(3)
    assert {(r.qid, r.docno) for r in top.itertuples()} == {
        (q, d) for q, v in some.items() for d in v
    }


def test_weighted_and_learned_aggregations(demo) -> None:
    frame = AxiomaticRanker("bm25", demo).transform(results_frame(demo))
    base = frame_to_run(frame)
    index = dataset_index(demo)
    weighted = AxiomaticReRanker(
        "TFC1,M-TDC,LNC2", demo, depth=5, aggregation="weighted", weights=[2.0, 0.5, 1.0]
    ).transform(frame)
    direct = axiomatic_rerank(
        demo,
        "TFC1,M-TDC,LNC2",
        base,
        depth=5,
        aggregation="weighted",
        weights=[2.0, 0.5, 1.0],
        index=index,
    )
    got = frame_to_run(weighted)
    for q in direct:
        assert sorted(got[q], key=lambda d, q=q: -got[q][d]) == sorted(
            direct[q], key=lambda d, q=q: -direct[q][d]
        )
    train = load_dataset("demo/train")
    learned = AxiomaticReRanker(
        "TFC1,M-TDC,LNC2",
        demo,
        depth=5,
        aggregation="learned",
        train=train,
        train_run=AxiomaticRanker("bm25", train).transform(results_frame(train)),
    ).transform(frame)
    assert len(learned) == len(frame) and set(learned["docno"]) == set(frame["docno"])
    with pytest.raises(ValueError, match="weights"):
        AxiomaticReRanker("TFC1", demo, aggregation="weighted").transform(frame)


def test_report_over_three_systems_has_figures_and_no_p_value(demo, tmp_path) -> None:
    """Over three systems no rank order can be significant (the smallest two-sided permutation
    p of a rank correlation is 1/3): the report states n and gives no p-value, where Spearman's
    t approximation said 0.000 for a perfect order; and it has the standard figures."""
    import pandas as pd
    from scipy import stats as scipy_stats

    from axiomatic.diagnose.stats import correlation

    x, y = [0.1, 0.5, 0.9], [0.2, 0.3, 0.8]
    c = correlation(x, y)
    assert c["n"] == 3 and c["spearman"] == pytest.approx(1.0)
    assert np.isnan(c["spearman_p"]) and np.isnan(c["kendall_p"]) and np.isnan(c["pearson_p"])
    c4 = correlation([0.1, 0.5, 0.9, 1.0], [0.2, 0.3, 0.8, 0.1])
    assert c4["kendall_p"] == pytest.approx(scipy_stats.kendalltau([0.1, 0.5, 0.9, 1.0],
                                                                   [0.2, 0.3, 0.8, 0.1])[1])  # fmt: skip
    frame = results_frame(demo)
    systems = {n: AxiomaticRanker(n, demo).transform(frame) for n in ("bm25", "ql", "rm3")}
    res = diagnose_frames(systems, demo, axioms="TFC1,M-TDC", variant="relaxed",
                          out=tmp_path / "report")  # fmt: skip
    corr = pd.read_csv(tmp_path / "report" / "correlation.csv")
    assert (corr["n"] == 3).any() and corr["spearman_p"].isna().all()
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "<img" in page and any((tmp_path / "report").glob("*.png"))
    assert "p-values from 4 systems on" in page
    assert res.paths["html"].is_file()

"""TREC DL years are data: any year whose files follow the rank_llm layout loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axiomatic.data.catalog import clear_cache, dataset_names, list_datasets, load_dataset
from axiomatic.data.errors import UnknownDatasetError


def _hits(qid: int, docs: list[tuple[str, str]]) -> list[dict]:
    return [
        {"content": text, "qid": qid, "docid": did, "rank": i + 1, "score": 10.0 - i}
        for i, (did, text) in enumerate(docs)
    ]


def _write_dl20(root: Path) -> None:
    dl = root / "msmarco-passage-trecdl" / "raw"
    for method, docs in {
        "BM25": [("d1", "cats purr"), ("d2", "dogs bark")],
        "MY_NEW_SYSTEM": [("d2", "dogs bark"), ("d3", "birds sing")],
    }.items():
        (dl / "rank_llm" / method).mkdir(parents=True)
        data = [{"query": "why do cats purr", "hits": _hits(7, docs)}]
        (dl / "rank_llm" / method / "retrieve_results_dl20.json").write_text(json.dumps(data))
    (dl / "anserini-tools" / "qrels").mkdir(parents=True)
    (dl / "anserini-tools" / "qrels" / "qrels.dl20-passage.txt").write_text("7 0 d1 3\n7 0 d3 1\n")
    (dl / "anserini-tools" / "topics").mkdir(parents=True)
    (dl / "anserini-tools" / "topics" / "topics.dl20.txt").write_text("7\twhy do cats purr?\n")


def test_a_new_year_in_the_layout_loads(tmp_path: Path) -> None:
    _write_dl20(tmp_path)
    clear_cache()
    names = dataset_names(tmp_path)
    assert {"trec-dl-2020/bm25", "trec-dl-2020/my-new-system", "trec-dl-2020/union"} <= set(names)
    assert "trec-dl-2019/bm25" in names  # known years are still listed (unavailable here)
    ds = load_dataset("trec-dl-2020/bm25", tmp_path)
    assert ds.candidates == {"7": ["d1", "d2"]}
    assert ds.queries["7"].text == "why do cats purr?"  # from the topics file
    assert ds.qrels == {"7": {"d1": 3, "d3": 1}} and ds.rel_threshold == 2
    assert ds.metadata["corpus"] == "msmarco-v1"
    union = load_dataset("trec-dl-2020/union", tmp_path)
    assert union.candidates == {"7": ["d1", "d2", "d3"]}
    assert set(union.metadata["systems"]) == {"bm25", "my-new-system"}
    avail = {i.name: i.available for i in list_datasets(tmp_path, "trec-dl-*")}
    assert avail["trec-dl-2020/union"] and not avail["trec-dl-2019/bm25"]


def test_a_year_without_qrels_is_not_listed(tmp_path: Path) -> None:
    _write_dl20(tmp_path)
    (tmp_path / "msmarco-passage-trecdl/raw/anserini-tools/qrels/qrels.dl20-passage.txt").unlink()
    clear_cache()
    assert not any(n.startswith("trec-dl-2020") for n in dataset_names(tmp_path))
    with pytest.raises(UnknownDatasetError, match="trec-dl-20"):
        load_dataset("trec-dl-2020/bm25", tmp_path)

"""Bring your own collection: TOML descriptors and rank_llm JSON files as datasets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axiomatic.data.catalog import DatasetStore, load_dataset
from axiomatic.data.descriptor import (
    DescriptorError,
    load_descriptor,
    write_descriptor_template,
)
from axiomatic.data.errors import DataWarning
from axiomatic.data.trec import read_topics

TOPICS = "1\twhy do cats purr\n2\thow do bicycles balance\n"
PASSAGES = (
    "d1\tcats purr when they are content and cats purr to heal\n"
    "d2\tdogs bark at night\n"
    "d3\ta bicycle balances by steering into the fall\n"
    "d4\tbicycles and cats\n"
)
QRELS = "1 0 d1 2\n1 0 d4 1\n2 0 d3 2\n"
RUN = (
    "1 Q0 d4 1 9.0 bm25\n1 Q0 d1 2 8.0 bm25\n1 Q0 d2 3 1.0 bm25\n"
    "2 Q0 d3 1 5.0 bm25\n2 Q0 d4 2 4.0 bm25\n"
)


def write_collection(folder: Path, descriptor: str | None = None) -> Path:
    """topics.tsv, passages.tsv, qrels.txt, run.trec and my.toml naming them (relative paths)."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "data" / "topics.tsv").write_text(TOPICS)
    (folder / "data" / "passages.tsv").write_text(PASSAGES)
    (folder / "data" / "qrels.txt").write_text(QRELS)
    (folder / "data" / "run.trec").write_text(RUN)
    path = folder / "my.toml"
    path.write_text(
        descriptor
        or """
[dataset]
name = "tiny"
queries = "data/topics.tsv"
documents = "data/passages.tsv"
qrels = "data/qrels.txt"
candidates = "data/run.trec"
rel_threshold = 2
"""
    )
    return path


def rankllm_json(path: Path) -> Path:
    data = [
        {
            "query": "why do cats purr",
            "hits": [
                {"content": t, "qid": 1, "docid": d, "rank": i + 1, "score": 9.0 - i}
                for i, (d, t) in enumerate([("d1", "cats purr"), ("d2", "dogs bark")])
            ],
        },
        {
            "query": "how do bicycles balance",
            "hits": [{"content": "bicycles steer", "qid": 2, "docid": "d3", "rank": 1, "score": 3}],
        },
    ]
    path.write_text(json.dumps(data))
    return path


def test_descriptor_loads_every_part(tmp_path: Path) -> None:
    ds = load_dataset(str(write_collection(tmp_path)))
    assert ds.name == "tiny" and ds.rel_threshold == 2 and ds.language == "en"
    assert ds.queries["2"].text == "how do bicycles balance"
    assert len(ds.documents) == 4 and ds.documents["d3"].text.startswith("a bicycle")
    assert ds.qrels == {"1": {"d1": 2, "d4": 1}, "2": {"d3": 2}}
    assert ds.candidates == {"1": ["d4", "d1", "d2"], "2": ["d3", "d4"]}  # score order
    assert ds.metadata["runs"]["run.trec"]["1"]["d4"] == 9.0
    assert ds.metadata["source"] == str((tmp_path / "my.toml").resolve())
    # topics without a candidate list are not queries of a re-ranking set (counted)
    (tmp_path / "data" / "topics.tsv").write_text(TOPICS + "3\tan unretrieved topic\n")
    ds = load_dataset(str(tmp_path / "my.toml"))
    assert list(ds.queries) == ["1", "2"] and ds.metadata["queries_without_candidates"] == 1


def test_descriptor_cached_until_a_file_changes(tmp_path: Path) -> None:
    path = write_collection(tmp_path)
    store = DatasetStore()
    a, b = store.load(path), store.load(path)
    assert a is not b and a.documents is b.documents and len(store) == 1
    (tmp_path / "data" / "topics.tsv").write_text(TOPICS.replace("purr", "purr loudly"))
    assert store.load(path).queries["1"].text == "why do cats purr loudly"


def test_jsonl_xml_and_sgml_inputs(tmp_path: Path) -> None:
    (tmp_path / "q.jsonl").write_text(
        '{"_id": "1", "text": "cats"}\n{"query_id": "2", "query": "x y"}\n'
    )
    (tmp_path / "d.jsonl").write_text(
        '{"_id": "d1", "title": "Cats", "text": "purr"}\n{"doc_id": "d2", "text": "bark"}\n'
    )
    (tmp_path / "a.toml").write_text('[dataset]\nqueries = "q.jsonl"\ndocuments = "d.jsonl"\n')
    ds = load_descriptor(tmp_path / "a.toml")
    assert ds.name == "a" and ds.candidates is None and ds.qrels is None
    assert ds.documents["d1"].text == "Cats purr" and ds.queries["2"].text == "x y"
    xml = (
        '<?xml version="1.0"?>\n<topics>\n  <topic number="7" type="faceted">\n'
        "    <query>cat purring</query>\n    <description>Why do cats purr?</description>\n"
        '  </topic>\n  <topic number="8"><query>bikes</query></topic>\n</topics>\n'
    )
    (tmp_path / "t.xml").write_text(xml)
    assert {q: t.text for q, t in read_topics(tmp_path / "t.xml").items()} == {
        "7": "cat purring",
        "8": "bikes",
    }
    assert read_topics(tmp_path / "t.xml", field="title+desc")["7"].text == (
        "cat purring Why do cats purr?"
    )
    (tmp_path / "t.sgml").write_text("<top>\n<num> Number: 7\n<title> cat purring\n</top>\n")
    (tmp_path / "b.toml").write_text('[dataset]\nqueries = "t.xml"\ndocuments = "d.jsonl"\n')
    assert load_descriptor(tmp_path / "b.toml").queries["7"].text == "cat purring"
    (tmp_path / "c.toml").write_text('[dataset]\nqueries = "t.sgml"\ndocuments = "d.jsonl"\n')
    assert load_descriptor(tmp_path / "c.toml").queries["7"].text == "cat purring"


def test_rankllm_json_directly_with_qrels(tmp_path: Path) -> None:
    js = rankllm_json(tmp_path / "retrieve_results_dl20.json")
    (tmp_path / "q.txt").write_text("1 0 d1 2\n2 0 d3 1\n1 0 d9 1\n")
    ds = load_dataset(str(js), qrels=tmp_path / "q.txt")
    assert ds.name == "retrieve_results_dl20"
    assert ds.candidates == {"1": ["d1", "d2"], "2": ["d3"]}
    assert (
        ds.queries["1"].text == "why do cats purr" and ds.documents["d3"].text == "bicycles steer"
    )
    # d9 was judged but not retrieved: normal for a re-ranking set
    assert ds.qrels == {"1": {"d1": 2, "d9": 1}, "2": {"d3": 1}}
    assert load_dataset(str(js)).qrels is None


def test_rankllm_as_documents_makes_a_reranking_set(tmp_path: Path) -> None:
    rankllm_json(tmp_path / "r.json")
    (tmp_path / "t.tsv").write_text("1\twhy do cats purr?\n")
    (tmp_path / "x.toml").write_text('[dataset]\nqueries = "t.tsv"\ndocuments = "r.json"\n')
    ds = load_descriptor(tmp_path / "x.toml")
    assert ds.candidates == {"1": ["d1", "d2"], "2": ["d3"]}
    assert ds.queries["1"].text == "why do cats purr?"  # the topics file wins
    assert ds.queries["2"].text == "how do bicycles balance"  # the run file fills the gap


def test_qrels_option_replaces_a_catalog_datasets_qrels(tmp_path: Path) -> None:
    demo = load_dataset("demo")
    q = next(iter(demo.queries))
    d = next(iter(demo.documents))
    (tmp_path / "my.qrels").write_text(f"{q} 0 {d} 3\n")
    assert load_dataset("demo", qrels=tmp_path / "my.qrels").qrels == {q: {d: 3}}
    (tmp_path / "other.qrels").write_text("no-such-query 0 d 1\n")
    with pytest.raises(DescriptorError, match="none of its 1 judged queries"):
        load_dataset("demo", qrels=tmp_path / "other.qrels")


# ------------------------------------------------------------------------------------ errors
def test_missing_file_names_key_line_and_close_names(tmp_path: Path) -> None:
    path = write_collection(tmp_path)
    path.write_text(path.read_text().replace("data/topics.tsv", "data/topic.tsv"))
    with pytest.raises(DescriptorError) as exc:
        load_dataset(str(path))
    msg = str(exc.value)
    assert f"{path}:4: queries = 'data/topic.tsv'" in msg and "does not exist" in msg
    assert "data/topic.tsv (did you mean 'topics.tsv'?) does not exist" in msg  # close name


def test_unknown_key_suggests_the_close_one(tmp_path: Path) -> None:
    path = write_collection(tmp_path)
    path.write_text(path.read_text().replace("rel_threshold", "rel_treshold"))
    with pytest.raises(
        DescriptorError,
        match=r"my.toml:8: unknown key 'rel_treshold' \(did you mean 'rel_threshold'\?\) in ",
    ):
        load_dataset(str(path))
    path.write_text('name = "x"\n[dataset]\nqueries = "data/topics.tsv"\n')
    with pytest.raises(DescriptorError, match="outside the \\[dataset\\] table"):
        load_dataset(str(path))
    path.write_text('[datset]\nqueries = "data/topics.tsv"\n')
    with pytest.raises(
        DescriptorError, match=r"unknown table \[datset\] \(did you mean 'dataset'\?\);"
    ):
        load_dataset(str(path))
    path.write_text("[dataset\n")
    with pytest.raises(DescriptorError, match="not valid TOML"):
        load_dataset(str(path))


def test_absent_ids_are_counted(tmp_path: Path) -> None:
    path = write_collection(tmp_path)
    (tmp_path / "data" / "run.trec").write_text(
        RUN + "2 Q0 d8 3 1.0 bm25\n2 Q0 d9 4 0.5 bm25\n3 Q0 d1 1 1 x\n"
    )
    with pytest.raises(DescriptorError) as exc:
        load_dataset(str(path))
    msg = str(exc.value)
    assert "1 of the 3 queries in run.trec have no text in topics.tsv (first: 3)" in msg
    assert (
        "2 of the 8 candidates (2 distinct documents) in run.trec have no text in passages.tsv"
        in msg
    )
    assert "2/d8" in msg and 'missing_ids = "drop"' in msg
    # drop: the same files load, with a warning carrying the counts
    path.write_text(path.read_text() + 'missing_ids = "drop"\n')
    with pytest.warns(DataWarning, match="2 of the 8 candidates"):
        ds = load_dataset(str(path))
    assert ds.candidates == {"1": ["d4", "d1", "d2"], "2": ["d3", "d4"]}


def test_qrels_of_another_collection_are_refused(tmp_path: Path) -> None:
    path = write_collection(tmp_path)
    (tmp_path / "data" / "qrels.txt").write_text("1 0 X1 1\n1 0 X2 0\n")
    with pytest.raises(DescriptorError, match=r"2 of the 2 judgments in qrels\.txt name documents"):
        load_dataset(str(path))


def test_nonexistent_descriptor_and_unknown_name_mention_init(tmp_path: Path) -> None:
    with pytest.raises(DescriptorError, match="datasets init"):
        load_dataset(str(tmp_path / "nope.toml"))
    with pytest.raises(ValueError, match=r"descriptor FILE\.toml"):
        load_dataset("my-own-thing")


def test_skip_malformed_reaches_the_readers(tmp_path: Path) -> None:
    path = write_collection(tmp_path)
    (tmp_path / "data" / "qrels.txt").write_text(QRELS + "this line is broken\n")
    with pytest.raises(ValueError, match="skip_malformed=True"):
        load_dataset(str(path))
    with pytest.warns(DataWarning, match="skipped 1 malformed qrels line"):
        ds = load_dataset(str(path), skip_malformed=True)
    assert ds.qrels == {"1": {"d1": 2, "d4": 1}, "2": {"d3": 2}}


def test_template_is_a_working_descriptor(tmp_path: Path) -> None:
    path = write_descriptor_template(tmp_path / "mine.toml")
    text = path.read_text()
    assert text.count("#") > 10 and 'name = "mine"' in text
    with pytest.raises(DescriptorError, match="exists"):
        write_descriptor_template(path)
    (tmp_path / "topics.tsv").write_text(TOPICS)
    (tmp_path / "passages.tsv").write_text(PASSAGES)
    ds = load_dataset(str(path))
    assert ds.name == "mine" and len(ds.queries) == 2 and len(ds.documents) == 4


def test_descriptor_over_the_shared_dl19_files_equals_the_catalog(tmp_path: Path) -> None:
    """A user's descriptor naming TREC DL 2019's published files gives the catalog's dataset."""
    from shared_data import require_collection

    base = require_collection("msmarco-passage-trecdl") / "raw"
    desc = tmp_path / "dl19.toml"
    desc.write_text(
        "[dataset]\n"
        'name = "my-dl19"\n'
        f'queries = "{base}/anserini-tools/topics/topics.dl19-passage.txt"\n'
        f'documents = "{base}/rank_llm/BM25/retrieve_results_dl19.json"\n'
        f'qrels = "{base}/anserini-tools/qrels/qrels.dl19-passage.txt"\n'
        "rel_threshold = 2\n"
    )
    mine = load_dataset(str(desc))
    ref = load_dataset("trec-dl-2019/bm25", require_collection("msmarco-passage-trecdl").parent)
    assert mine.candidates == ref.candidates
    assert {q: t.text for q, t in mine.queries.items()} == {
        q: t.text for q, t in ref.queries.items()
    }
    assert mine.qrels == ref.qrels
    assert dict(mine.documents) == dict(ref.documents)
    # the rank_llm file alone, with --qrels, is the same re-ranking set
    js = load_dataset(
        str(base / "rank_llm/BM25/retrieve_results_dl19.json"),
        qrels=base / "anserini-tools/qrels/qrels.dl19-passage.txt",
    )
    assert js.candidates == ref.candidates and js.qrels.keys() >= ref.qrels.keys()

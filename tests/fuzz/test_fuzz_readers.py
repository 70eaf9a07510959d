"""Fuzz every collection reader of ``axiomatic.data.readers``: only our errors, naming the file.

Each test draws a valid file of the reader's format, mutates it (see ``fuzz_helpers``) and checks
that the reader returns or raises a :class:`~axiomatic.data.errors.DataError` naming the file.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from fuzz_helpers import (
    FUZZ,
    check_reader,
    file_bytes,
    fresh,
    good_grades,
    grades,
    gz_bytes,
    ids,
    json_file,
    json_ints,
    texts,
    words,
    write,
)
from hypothesis import given
from hypothesis import strategies as st

from axiomatic.data.errors import DataError
from axiomatic.data.readers.cf import read_cf_documents, read_cf_queries
from axiomatic.data.readers.msmarco import read_graded_labels, read_top20_folder
from axiomatic.data.readers.qbqtc import read_qbqtc
from axiomatic.data.readers.rag24 import read_rag24_retrieval
from axiomatic.data.readers.rankllm import read_rankllm_results
from axiomatic.data.readers.sasaki import read_sasaki_clir
from axiomatic.data.readers.scifact import read_scifact_claims, read_scifact_corpus
from axiomatic.data.readers.smart import (
    read_cranfield_qrels,
    read_smart_qrels,
    read_smart_records,
    records_to_documents,
    records_to_queries,
)
from axiomatic.data.readers.trecdocs import read_trec_documents
from axiomatic.data.readers.tsv import read_tsv_documents
from axiomatic.data.readers.wikipassageqa import (
    read_document_passages,
    read_wikipassageqa_questions,
)
from axiomatic.data.readers.wikiqa import read_wikiqa_castor
from axiomatic.data.readers.xquad import read_xquad


def _lines(rows: list[str]) -> bytes:
    return ("\n".join(rows) + "\n").encode("utf-8")


def _jsonl(rows: list[object]) -> bytes:
    return _lines([json.dumps(r, ensure_ascii=False) for r in rows])


# --------------------------------------------------------------------------- TSV / JSONL corpora
tsv_docs = st.lists(st.tuples(ids, texts).map("\t".join), max_size=10).map(_lines)


@FUZZ
@given(file_bytes(tsv_docs))
def test_fuzz_tsv_documents(tmp_path: Path, data: bytes) -> None:
    check_reader(read_tsv_documents, write(fresh(tmp_path), "docs.tsv", data))


@FUZZ
@given(gz_bytes(tsv_docs))
def test_fuzz_tsv_documents_gz(tmp_path: Path, data: bytes) -> None:
    check_reader(read_tsv_documents, write(fresh(tmp_path), "docs.tsv.gz", data))


qbqtc_rows = st.fixed_dictionaries(
    {"id": st.integers(0, 50), "query": texts, "title": texts, "relevant": good_grades}
)


@FUZZ
@given(file_bytes(st.lists(qbqtc_rows.flatmap(lambda r: st.just(r)), max_size=8).map(_jsonl)))
def test_fuzz_qbqtc_jsonl(tmp_path: Path, data: bytes) -> None:
    check_reader(read_qbqtc, write(fresh(tmp_path), "train.json", data))


@FUZZ
@given(
    st.lists(
        st.fixed_dictionaries(
            {"id": st.integers(0, 9), "query": texts, "title": texts, "label": st.integers(0, 2)}
        ).flatmap(lambda r: json_file(st.just(r))),
        max_size=6,
    ).map(lambda rows: b"\n".join(rows))
)
def test_fuzz_qbqtc_structure(tmp_path: Path, data: bytes) -> None:
    check_reader(read_qbqtc, write(fresh(tmp_path), "dev.json", data))


rag_rows = st.integers(0, 4).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            "topic": ids,
            "query": texts,
            "references_ids": st.lists(ids, min_size=n, max_size=n),
            "references_texts": st.lists(texts, min_size=n, max_size=n),
        }
    )
)
rag_files = st.lists(rag_rows.flatmap(lambda r: json_file(st.just(r))), max_size=5).map(
    lambda rows: b"\n".join(rows) + b"\n"
)


@FUZZ
@given(gz_bytes(rag_files))
def test_fuzz_rag24_jsonl_gz(tmp_path: Path, data: bytes) -> None:
    check_reader(read_rag24_retrieval, write(fresh(tmp_path), "retrieval.jsonl.gz", data))


@FUZZ
@given(file_bytes(rag_files))
def test_fuzz_rag24_jsonl(tmp_path: Path, data: bytes) -> None:
    check_reader(read_rag24_retrieval, write(fresh(tmp_path), "retrieval.jsonl", data))


# ---------------------------------------------------------------------------------- JSON files
hits = st.fixed_dictionaries(
    {
        "content": texts,
        "qid": st.integers(0, 5) | ids,
        "docid": ids,
        "rank": st.integers(1, 30),
        "score": st.floats(allow_nan=False, allow_infinity=False) | json_ints,
    }
)
rankllm = st.lists(
    st.fixed_dictionaries({"query": texts, "hits": st.lists(hits, max_size=4)}),
    min_size=1,
    max_size=4,
)


@FUZZ
@given(file_bytes(json_file(rankllm)))
def test_fuzz_rankllm_json(tmp_path: Path, data: bytes) -> None:
    res = check_reader(read_rankllm_results, write(fresh(tmp_path), "retrieve_results.json", data))
    if res is not None:
        import math

        assert all(math.isfinite(v) for docs in res.run.values() for v in docs.values())


top20_rows = st.lists(
    st.fixed_dictionaries(
        {
            "query_id": st.integers(0, 3),
            "passage_id": st.integers(0, 9),
            "ranking": st.integers(1, 20),
            "query_text": texts,
            "passage_text": texts,
            "bm25_label": st.sampled_from(["high", "low"]),
            "relevance_label": st.sampled_from([0.0, 1.0, 0, 1, "1"]),
        }
    ),
    max_size=4,
)


@FUZZ
@given(st.lists(file_bytes(json_file(top20_rows)), min_size=1, max_size=3))
def test_fuzz_msmarco_top20_folder(tmp_path: Path, files: list[bytes]) -> None:
    folder = fresh(tmp_path) / "sampled_files"
    for i, data in enumerate(files):
        write(folder, f"{i + 1}.json", data)
    check_reader(read_top20_folder, folder)


graded = st.dictionaries(
    ids,
    st.dictionaries(
        ids,
        st.lists(st.sampled_from(["u1", "u2", "4", "5", "no_input", "3"]), max_size=5).map(
            lambda v: ["relevant", *v]
        ),
        max_size=3,
    ),
    max_size=3,
)


@FUZZ
@given(file_bytes(json_file(graded)))
def test_fuzz_msmarco_graded_labels(tmp_path: Path, data: bytes) -> None:
    check_reader(read_graded_labels, write(fresh(tmp_path), "data.json", data))


squad = st.fixed_dictionaries(
    {
        "data": st.lists(
            st.fixed_dictionaries(
                {
                    "title": words,
                    "paragraphs": st.lists(
                        st.fixed_dictionaries(
                            {
                                "context": texts,
                                "qas": st.lists(
                                    st.fixed_dictionaries({"id": ids, "question": texts}),
                                    max_size=2,
                                ),
                            }
                        ),
                        max_size=2,
                    ),
                }
            ),
            max_size=3,
        )
    }
)


@FUZZ
@given(file_bytes(json_file(squad)))
def test_fuzz_xquad_json(tmp_path: Path, data: bytes) -> None:
    check_reader(read_xquad, write(fresh(tmp_path), "xquad.en.json", data))


passages = st.dictionaries(ids, st.dictionaries(ids, texts, max_size=3), max_size=3)


@FUZZ
@given(file_bytes(json_file(passages)))
def test_fuzz_wikipassageqa_passages(tmp_path: Path, data: bytes) -> None:
    check_reader(read_document_passages, write(fresh(tmp_path), "document_passages.json", data))


# ----------------------------------------------------------------------------------- CSV / TSV
def _csv(header: list[str], rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().encode("utf-8")


abstracts = st.lists(texts, max_size=3).map(lambda s: "[" + "\n ".join(map(repr, s)) + "]") | texts
scifact_corpus = st.lists(
    st.tuples(ids, texts, abstracts, st.sampled_from(["False", "True"])).map(list), max_size=5
).map(lambda rows: _csv(["doc_id", "title", "abstract", "structured"], rows))
cited = st.lists(st.integers(0, 10**8).map(str), max_size=3).map(lambda d: "[ " + " ".join(d) + "]")
scifact_claims = st.lists(
    st.tuples(ids, texts, st.just(""), st.just(""), st.just("[]"), cited | texts).map(list),
    max_size=5,
).map(
    lambda rows: _csv(
        [
            "id",
            "claim",
            "evidence_doc_id",
            "evidence_label",
            "evidence_sentences",
            "cited_doc_ids",
        ],
        rows,
    )
)


@FUZZ
@given(file_bytes(scifact_corpus))
def test_fuzz_scifact_corpus(tmp_path: Path, data: bytes) -> None:
    check_reader(read_scifact_corpus, write(fresh(tmp_path), "corpus_train.csv", data))


@FUZZ
@given(file_bytes(scifact_claims))
def test_fuzz_scifact_claims(tmp_path: Path, data: bytes) -> None:
    check_reader(read_scifact_claims, write(fresh(tmp_path), "claims_train.csv", data))


wpqa = st.lists(
    st.tuples(ids, texts, ids, words, st.lists(st.integers(0, 12).map(str)).map(",".join)).map(
        "\t".join
    ),
    max_size=5,
).map(lambda rows: _lines(["QID\tQuestion\tDocumentID\tDocumentName\tRelevantPassages", *rows]))


@FUZZ
@given(file_bytes(wpqa))
def test_fuzz_wikipassageqa_questions(tmp_path: Path, data: bytes) -> None:
    check_reader(read_wikipassageqa_questions, write(fresh(tmp_path), "dev.tsv", data))


sasaki = st.lists(st.tuples(good_grades, texts, texts).map("\t".join), max_size=6).map(_lines)


@FUZZ
@given(file_bytes(sasaki))
def test_fuzz_sasaki(tmp_path: Path, data: bytes) -> None:
    check_reader(read_sasaki_clir, write(fresh(tmp_path), "train_sw_l100.txt", data))


@FUZZ
@given(
    st.integers(0, 5).flatmap(
        lambda n: st.tuples(
            *[
                file_bytes(st.lists(s, min_size=n, max_size=n).map(_lines))
                for s in (texts, texts, ids, good_grades)
            ]
        )
    )
)
def test_fuzz_wikiqa_castor(tmp_path: Path, files: tuple[bytes, ...]) -> None:
    folder = fresh(tmp_path) / "dev"
    for name, data in zip(("a.toks", "b.toks", "id.txt", "sim.txt"), files, strict=True):
        write(folder, name, data)
    check_reader(read_wikiqa_castor, folder)


# ----------------------------------------------------------------------- SMART / TREC / CF
smart = st.lists(
    st.tuples(ids, texts, texts).map(lambda t: f".I {t[0]}\n.T\n{t[1]}\n.W\n{t[2]}"), max_size=5
).map(_lines)


@FUZZ
@given(file_bytes(smart))
def test_fuzz_smart_records(tmp_path: Path, data: bytes) -> None:
    def read(p: Path) -> object:
        recs = read_smart_records(p)
        return records_to_documents(recs), records_to_queries(recs, sequential_ids=True)

    check_reader(read, write(fresh(tmp_path), "CISI.ALL", data))


smart_qrels = st.lists(
    st.tuples(ids, ids, grades).map(lambda t: f"{t[0]} {t[1]}  0 0.000000"), max_size=8
).map(_lines)
smart_trec_qrels = st.lists(
    st.tuples(ids, ids, grades).map(lambda t: f"{t[0]} 0 {t[1]} {t[2]}"), max_size=8
).map(_lines)


@FUZZ
@given(file_bytes(smart_qrels), file_bytes(smart_trec_qrels))
def test_fuzz_smart_qrels(tmp_path: Path, plain: bytes, trec: bytes) -> None:
    folder = fresh(tmp_path)
    check_reader(read_smart_qrels, write(folder, "CISI.REL", plain))
    check_reader(lambda p: read_smart_qrels(p, "trec"), write(folder, "MED.REL", trec))


cranqrel = st.lists(
    st.tuples(ids, ids, st.sampled_from(["1", "2", "3", "4", "-1", "5"]) | grades).map(" ".join),
    max_size=8,
).map(_lines)


@FUZZ
@given(file_bytes(cranqrel))
def test_fuzz_cranfield_qrels(tmp_path: Path, data: bytes) -> None:
    check_reader(read_cranfield_qrels, write(fresh(tmp_path), "cranqrel", data))


trec_docs = st.lists(
    st.tuples(ids, texts).map(lambda t: f"<DOC>\n<DOCNO> {t[0]} </DOCNO>\n{t[1]}\n</DOC>"),
    max_size=5,
).map(_lines)


@FUZZ
@given(file_bytes(trec_docs))
def test_fuzz_trec_documents(tmp_path: Path, data: bytes) -> None:
    check_reader(read_trec_documents, write(fresh(tmp_path), "doc-text.trec", data))


cf_docs = st.lists(
    st.tuples(st.integers(1, 99), texts, texts).map(
        lambda t: f"PN 74{t[0]:03d}\nRN {t[0]:05d}\nTI {t[1]}\n   more\nAB {t[2]}"
    ),
    max_size=4,
).map(_lines)
cf_queries = st.lists(
    st.tuples(
        st.integers(1, 99),
        texts,
        st.lists(
            st.tuples(st.integers(1, 99), st.sampled_from(["0001", "2222", "1201"])).map(
                lambda p: f"{p[0]} {p[1]}"
            ),
            max_size=3,
        ),
    ).map(lambda t: f"QN {t[0]:05d}\nQU {t[1]}\nNR 00001\nRD {'  '.join(t[2])}"),
    max_size=4,
).map(_lines)


@FUZZ
@given(file_bytes(cf_docs))
def test_fuzz_cf_documents(tmp_path: Path, data: bytes) -> None:
    p = write(fresh(tmp_path), "cf74", data)
    check_reader(lambda x: read_cf_documents([x]), p)


@FUZZ
@given(file_bytes(cf_queries))
def test_fuzz_cf_queries(tmp_path: Path, data: bytes) -> None:
    check_reader(read_cf_queries, write(fresh(tmp_path), "cfquery", data))


# ----------------------------------------------------------------------- symbolic link loops
LOOP_READERS = {
    "tsv": read_tsv_documents,
    "qbqtc": read_qbqtc,
    "rag24": read_rag24_retrieval,
    "rankllm": read_rankllm_results,
    "msmarco-graded": read_graded_labels,
    "xquad": read_xquad,
    "wikipassageqa-passages": read_document_passages,
    "scifact": read_scifact_corpus,
    "wikipassageqa": read_wikipassageqa_questions,
    "sasaki": read_sasaki_clir,
    "smart": read_smart_records,
    "smart-qrels": read_smart_qrels,
    "cranfield-qrels": read_cranfield_qrels,
    "trec-docs": read_trec_documents,
    "cf-queries": read_cf_queries,
}


@pytest.mark.parametrize("name", sorted(LOOP_READERS))
def test_readers_refuse_a_symlink_loop_naming_it(tmp_path: Path, name: str) -> None:
    """A file that is a symbolic link loop is a missing file that names the link (never the
    ``RuntimeError`` / ``OSError: Too many levels of symbolic links`` of the OS)."""
    loop = tmp_path / f"{name}.loop"
    loop.symlink_to(loop)
    with pytest.raises((DataError, FileNotFoundError)) as info:
        LOOP_READERS[name](loop)
    assert str(loop) in str(info.value) and "symbolic link" in str(info.value)

"""Format readers on tiny inline fixtures (no shared data needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axiomatic.data.errors import ParseError
from axiomatic.data.readers.cf import read_cf_documents, read_cf_queries
from axiomatic.data.readers.msmarco import read_graded_labels, read_top20_folder
from axiomatic.data.readers.qbqtc import query_id_for, read_qbqtc
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
from axiomatic.data.readers.wikipassageqa import (
    candidates_for,
    passages_to_documents,
    read_document_passages,
    read_wikipassageqa_questions,
)
from axiomatic.data.readers.wikiqa import read_wikiqa_castor
from axiomatic.data.readers.xquad import graded_candidates, read_xquad, xquad_article_splits


def _w(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_smart_records_crlf_and_split_header(tmp_path: Path) -> None:
    p = _w(
        tmp_path,
        "x.all",
        ".I 1\r\n.T\r\nA title\r\n.W\r\nsome  text\r\nmore\r\n.X\r\n1 5 1\r\n"
        ".I 28\r\n56\r\n.T\r\nSplit header\r\n.I 3\r\n.T\r\n.W\r\n",
    )
    docs = records_to_documents(read_smart_records(p))
    assert docs["1"].text == "A title some text more"
    assert docs["2856"].text == "Split header"
    assert docs["3"].text == ""  # empty records are kept


def test_smart_text_before_marker_is_an_error(tmp_path: Path) -> None:
    p = _w(tmp_path, "x.all", ".I 1\nstray words\n")
    with pytest.raises(ParseError, match=r"x.all:2"):
        read_smart_records(p)


def test_smart_queries_sequential_and_qrels(tmp_path: Path) -> None:
    q = _w(tmp_path, "q", ".I 001\n.W\nfirst query\n.I 004\n.W\nsecond\n")
    recs = read_smart_records(q)
    assert list(records_to_queries(recs)) == ["1", "4"]
    assert records_to_queries(recs, sequential_ids=True)["2"].text == "second"
    rel = _w(tmp_path, "r", "01 1410  0 0\r\n     1     28\t0\t0.000000\n")
    assert read_smart_qrels(rel) == {"1": {"1410": 1, "28": 1}}
    trec = _w(tmp_path, "t", "1 0 13 1\n")
    assert read_smart_qrels(trec, "trec") == {"1": {"13": 1}}


def test_cranfield_inverted_scale(tmp_path: Path) -> None:
    p = _w(tmp_path, "cranqrel", "1 184 2 \n1 29 1 \n1 30 4\n1 486 -1\n2 12 3\n")
    qrels, markers = read_cranfield_qrels(p)
    assert qrels == {"1": {"184": 3, "29": 4, "30": 1}, "2": {"12": 2}}
    assert markers == 1
    bad = _w(tmp_path, "bad", "1 2 5\n")
    with pytest.raises(ParseError, match="Cleverdon"):
        read_cranfield_qrels(bad)


def test_cf_records_high_bit_and_graded(tmp_path: Path) -> None:
    doc = (
        "PN 74001\nRN 00001 \nTI A title\n   continued.\nAB First abstract\n"
        "   line two.\nPN 74002\nRN 00002\nTI Second\nEX An extract\n(CP);\n"
    )
    p = _w(tmp_path, "cf74", doc.encode("ascii").replace(b"extract", b"ext\xf2act"))
    docs = read_cf_documents([p])
    assert docs["1"].text == "A title continued. First abstract line two."
    assert docs["2"].text == "Second An extract (CP);"  # 0xf2 & 0x7f == 'r'
    q = _w(tmp_path, "cfquery", "QN 00001\nQU What is\n   this?\nNR 00002\nRD  1 1222  2 0001\n")
    res = read_cf_queries(q)
    assert res.queries["1"].text == "What is this?"
    assert res.qrels == {"1": {"1": 7, "2": 1}}
    assert res.judge_scores["1"]["1"] == (1, 2, 2, 2)


def test_trec_documents(tmp_path: Path) -> None:
    p = _w(tmp_path, "d.trec", "<DOC>\n<DOCNO> 7 </DOCNO>\nsome text\n<B>bold</B>\n</DOC>\n")
    assert read_trec_documents(p)["7"].text == "some text bold"


def test_rankllm_results(tmp_path: Path) -> None:
    data = [
        {
            "query": "q text",
            "hits": [
                {"content": "a", "qid": 5, "docid": "d1", "rank": 1, "score": 3.0},
                {"content": "b", "qid": 5, "docid": "d2", "rank": 2, "score": 2.0},
                {"content": "a", "qid": 5, "docid": "d1", "rank": 3, "score": 1.0},
            ],
        }
    ]
    r = read_rankllm_results(_w(tmp_path, "r.json", json.dumps(data)))
    assert r.candidates == {"5": ["d1", "d2"]}
    assert r.run["5"] == {"d1": 3.0, "d2": 2.0}
    assert r.queries["5"].text == "q text"
    with pytest.raises(ParseError, match="JSON"):
        read_rankllm_results(_w(tmp_path, "bad.json", "[{"))


def test_msmarco_top20_and_graded(tmp_path: Path) -> None:
    rows = [
        {
            "query_id": 9,
            "passage_id": p,
            "ranking": r,
            "query_text": "q",
            "passage_text": t,
            "bm25_label": "high",
            "relevance_label": lab,
        }
        for p, r, t, lab in [(2, 2, "two", 0.0), (1, 1, "one", 1.0)]
    ]
    _w(tmp_path, "s/9.json", json.dumps(rows))
    top = read_top20_folder(tmp_path / "s")
    assert top.candidates == {"9": ["1", "2"]} and top.qrels == {"9": {"1": 1, "2": 0}}
    labels = {
        "9": {
            "1": ["relevant", "u1", "4", "u2", "no_input", "u3", "5"],
            "2": ["irrelevant", "u1", "no_input"],
        }
    }
    g = read_graded_labels(_w(tmp_path, "data.json", json.dumps(labels)))
    assert g.grades == {"9": {"1": [4, 5]}}
    assert g.aggregated("median") == {"9": {"1": 5}} and g.aggregated("min") == {"9": {"1": 4}}


def test_scifact_csv(tmp_path: Path) -> None:
    corpus = _w(
        tmp_path,
        "corpus.csv",
        "doc_id,title,abstract,structured\n"
        "4,Title.,\"['First sentence.'\n 'Second, with comma.']\",False\n",
    )
    assert read_scifact_corpus(corpus)["4"].text == "Title. First sentence. Second, with comma."
    claims = _w(
        tmp_path,
        "claims.csv",
        "id,claim,evidence_doc_id,evidence_label,"
        "evidence_sentences,cited_doc_ids\n1,A claim.,,,[],[ 5152028 11705328]\n"
        "2,Other.,,,[],[]\n",
    )
    q, qrels = read_scifact_claims(claims)
    assert len(q) == 2 and qrels == {"1": {"5152028": 1, "11705328": 1}}


def test_wikiqa_alignment(tmp_path: Path) -> None:
    for name, text in {
        "a.toks": "q one\nq one\nq two\n",
        "b.toks": "s1\ns2\ns3\n",
        "id.txt": "1\n1\n2\n",
        "sim.txt": "0\n1\n1\n",
    }.items():
        _w(tmp_path, f"w/{name}", text)
    s = read_wikiqa_castor(tmp_path / "w")
    assert s.candidates == {"1": ["1-0", "1-1"], "2": ["2-0"]}
    assert s.qrels == {"1": {"1-0": 0, "1-1": 1}, "2": {"2-0": 1}}
    _w(tmp_path, "w/sim.txt", "0\n1\n")
    with pytest.raises(ParseError, match="line-aligned"):
        read_wikiqa_castor(tmp_path / "w")


def test_wikipassageqa_with_user_passages(tmp_path: Path) -> None:
    tsv = _w(
        tmp_path,
        "dev.tsv",
        "QID\tQuestion\tDocumentID\tDocumentName\tRelevantPassages\n"
        "7\tWhy?\t61\tMexico.html\t1,2\n",
    )
    qs = read_wikipassageqa_questions(tsv)
    assert qs.qrels == {"7": {"61_1": 1, "61_2": 1}}
    pj = _w(tmp_path, "p.json", json.dumps({"61": {"0": "a", "1": "b", "2": "c", "10": "d"}}))
    passages = read_document_passages(pj)
    assert candidates_for(qs, passages) == {"7": ["61_0", "61_1", "61_2", "61_10"]}
    assert passages_to_documents(passages)["61_10"].text == "d"
    with pytest.raises(KeyError, match="not in document_passages"):
        candidates_for(qs, {"99": {"0": "x"}})


def test_qbqtc_and_sasaki(tmp_path: Path) -> None:
    lines = [
        {"id": 1, "query": "查询", "title": "标题一", "relevant": "2"},
        {"id": 2, "query": "查询", "title": "标题二", "relevant": "0"},
    ]
    s = read_qbqtc(
        _w(tmp_path, "q.json", "\n".join(json.dumps(x, ensure_ascii=False) for x in lines))
    )
    qid = query_id_for("查询")
    assert s.candidates == {qid: ["1", "2"]} and s.qrels[qid] == {"1": 2, "2": 0}
    with pytest.raises(ParseError, match=r"bad.json:1"):
        read_qbqtc(_w(tmp_path, "bad.json", '{"id": 1}\n'))
    sw = read_sasaki_clir(_w(tmp_path, "s.txt", "2\tq a\tdoc one\n0\tq a\tdoc two\n0\tq b\tx\n"))
    assert sw.qrels == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 0}}


def _squad(tmp_path: Path, lang: str, prefix: str) -> Path:
    data = {
        "data": [
            {
                "title": title,
                "paragraphs": [
                    {
                        "context": f"{prefix} {title} p{p}",
                        "qas": [
                            {
                                "id": f"{title}-{p}",
                                "question": f"{prefix} q {title} {p}",
                                "answers": [],
                            }
                        ],
                    }
                    for p in range(2)
                ],
            }
            for title in ["Zeta", "Alpha", "Mid", "Beta", "Omega", "Kappa"]
        ]
    }
    return _w(tmp_path, f"xquad.{lang}.json", json.dumps(data))


def test_xquad_graded_candidates_are_seeded(tmp_path: Path) -> None:
    en = read_xquad(_squad(tmp_path, "en", "EN"))
    de = read_xquad(_squad(tmp_path, "de", "DE"))
    assert list(en.questions) == list(de.questions)
    splits = xquad_article_splits(en.titles)
    # sorted titles: Alpha Beta Kappa Mid Omega Zeta -> position 4 (Omega) test, 5 (Zeta) dev
    assert splits[en.titles.index("Omega")] == "test" and splits[en.titles.index("Zeta")] == "dev"
    c1, q1 = graded_candidates(en, ["Zeta-0"], n_negatives=3, seed=0)
    c2, _ = graded_candidates(en, ["Alpha-1", "Zeta-0"], n_negatives=3, seed=0)
    assert c1["Zeta-0"] == c2["Zeta-0"]  # per-question seeding: independent of the other queries
    grades = q1["Zeta-0"]
    assert grades["0-0"] == 2 and grades["0-1"] == 1 and sorted(grades.values()) == [0, 0, 0, 1, 2]

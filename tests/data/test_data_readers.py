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
    c1, q1 = graded_candidates(en, ["Alpha-0"], n_negatives=3, seed=0)
    c2, _ = graded_candidates(en, ["Beta-1", "Alpha-0"], n_negatives=3, seed=0)
    assert c1["Alpha-0"] == c2["Alpha-0"]  # per-question seeding: independent of the other queries
    grades = q1["Alpha-0"]
    alpha = en.titles.index("Alpha")
    assert grades[f"{alpha}-0"] == 2 and grades[f"{alpha}-1"] == 1
    assert sorted(grades.values()) == [0, 0, 0, 1, 2]


def test_xquad_nr_come_from_the_same_split_only(tmp_path: Path) -> None:
    """NR (grade 0) paragraphs are drawn from the other articles of the question's own
    split; only the explicitly named ``nr_pool="all-leaky"`` draws from every other article."""
    en = read_xquad(_squad(tmp_path, "en", "EN"))
    splits = xquad_article_splits(en.titles)
    train_q = [q for q, p in en.paragraph_of.items() if splits[en.article_of[p]] == "train"]
    _, qrels = graded_candidates(en, train_q, n_negatives=6, seed=0)
    for q in train_q:
        nr = [d for d, g in qrels[q].items() if g == 0]
        assert len(nr) == 6 and all(splits[en.article_of[d]] == "train" for d in nr)
    _, leaky = graded_candidates(en, ["Alpha-0"], 9, 0, nr_pool="all-leaky")  # 10 available
    assert any(splits[en.article_of[d]] != "train" for d, g in leaky["Alpha-0"].items() if g == 0)


def test_xquad_short_nr_pool_warns_once_per_call(tmp_path: Path) -> None:
    """Too few same-split NR paragraphs give ONE warning per call naming each short
    split, the number asked and the available min / median (not one warning per question)."""
    import warnings

    en = read_xquad(_squad(tmp_path, "en", "EN"))
    qids = ["Zeta-0", "Zeta-1", "Omega-0", "Omega-1", "Alpha-0", "Beta-0"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, qrels = graded_candidates(en, qids, n_negatives=3, seed=0)
    assert len(caught) == 1, [str(w.message) for w in caught]
    msg = str(caught[0].message)
    assert "split 'dev'" in msg and "split 'test'" in msg and "split 'train'" not in msg
    assert "asked for 3" in msg and "min 0 / median 0" in msg
    assert sorted(qrels["Omega-0"].values()) == [1, 2]  # no other test article: no NR
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        graded_candidates(en, ["Alpha-0", "Beta-0"], n_negatives=6, seed=0)  # 6 available


def test_xquad_old_nr_pool_all_is_refused(tmp_path: Path) -> None:
    en = read_xquad(_squad(tmp_path, "en", "EN"))
    with pytest.raises(ValueError, match=r"(?s)leaks the test set.*'all-leaky'"):
        graded_candidates(en, ["Alpha-0"], 3, 0, nr_pool="all")
    with pytest.raises(ValueError, match="nr_pool must be one of"):
        graded_candidates(en, ["Alpha-0"], 3, 0, nr_pool="train")


@pytest.mark.filterwarnings("ignore:XQuAD graded candidates")
def test_xquad_misaligned_language_file_is_a_parse_error(tmp_path: Path) -> None:
    """A language file with a paragraph missing (or extra) against xquad.en.json is a
    ParseError naming the file and the first missing / extra ids, not a bare KeyError."""
    from axiomatic.data.collections import load_xquad_clir

    raw = tmp_path / "xquad-clir" / "raw"
    _squad(raw, "en", "EN")
    de = json.loads(_squad(raw, "de", "DE").read_text(encoding="utf-8"))
    del de["data"][1]["paragraphs"][0]  # "Alpha-0": article 1 now has one paragraph
    _w(raw, "xquad.de.json", json.dumps(de))
    for qlang, dlang in (("en", "de"), ("de", "en")):
        with pytest.raises(ParseError) as exc:
            load_xquad_clir(tmp_path, qlang, dlang, "train")
        text = str(exc.value)
        assert "xquad.de.json" in text and "xquad.en.json" in text, text
        assert "'1-1'" in text and "'Alpha-0'" in text, text  # first missing ids
        assert "'Alpha-1'" in text, text  # the shifted question (now in '1-0')
    en = json.loads((raw / "xquad.en.json").read_text(encoding="utf-8"))
    en["data"][0]["paragraphs"].append(
        {"context": "x", "qas": [{"id": "Extra-9", "question": "y", "answers": []}]}
    )
    _w(raw, "xquad.es.json", json.dumps(en))
    with pytest.raises(ParseError, match=r"(?s)xquad\.es\.json.*extra paragraph ids.*'0-2'"):
        load_xquad_clir(tmp_path, "en", "es", "train")
    assert len(load_xquad_clir(tmp_path, "en", "en", "train").queries) == 8  # aligned: fine


# ---------------------------------------------------- malformed input is always a ParseError
def _raises_at(reader, path: Path, where: str, match: str = "") -> ParseError:
    with pytest.raises(ParseError) as exc:
        reader(path)
    assert where in str(exc.value), str(exc.value)
    if match:
        assert match in str(exc.value), str(exc.value)
    return exc.value


def test_cf_bad_record_numbers_name_file_and_line(tmp_path: Path) -> None:
    p = _w(tmp_path, "cf74", "PN 74001\nRN 00001\nTI ok\nPN 74002\nRN x17\nTI bad\n")
    _raises_at(lambda x: read_cf_documents([x]), p, f"{p}:4", "'x17'")
    q = _w(tmp_path, "cfquery", "QN 00001\nQU fine\nPN 00002\nQU no QN here\n")
    _raises_at(read_cf_queries, q, f"{q}:3", "without QN")
    q2 = _w(tmp_path, "cfquery2", "QN 00001\nQU q\nRD 1\u2082 1222\n")
    _raises_at(read_cf_queries, q2, f"{q2}:1", "RD doc id")


def test_scifact_short_row_and_bad_abstract(tmp_path: Path) -> None:
    short = _w(tmp_path, "corpus.csv", "doc_id,title,abstract,structured\n4,Title only\n")
    _raises_at(read_scifact_corpus, short, f"{short}:2", "no abstract")
    odd = _w(tmp_path, "c2.csv", 'doc_id,title,abstract,structured\n4,T,"[1, 2]",False\n')
    _raises_at(read_scifact_corpus, odd, f"{odd}:2", "list of sentence strings")
    claims = _w(tmp_path, "claims.csv", "id,claim,cited_doc_ids\n1,c,[ 12 x3]\n")
    _raises_at(read_scifact_claims, claims, f"{claims}:2", "'x3'")


def test_empty_collection_files_are_errors(tmp_path: Path) -> None:
    from axiomatic.data.readers.rag24 import read_rag24_retrieval
    from axiomatic.data.readers.tsv import read_tsv_documents

    for reader, name in [
        (read_tsv_documents, "docs.tsv"),
        (read_qbqtc, "q.json"),
        (read_rag24_retrieval, "r.jsonl"),
        (read_sasaki_clir, "s.txt"),
        (read_trec_documents, "d.trec"),
        (read_smart_records, "X.ALL"),
        (read_smart_qrels, "X.REL"),
        (read_cranfield_qrels, "cranqrel"),
    ]:
        p = _w(tmp_path, name, "\n \n")
        _raises_at(reader, p, str(p))
    _raises_at(read_rankllm_results, _w(tmp_path, "e.json", "[]"), "e.json", "no query")


def test_tsv_documents_duplicates(tmp_path: Path) -> None:
    from axiomatic.data.errors import DataWarning
    from axiomatic.data.readers.tsv import read_tsv_documents

    same = _w(tmp_path, "d.tsv", "a\tone\nb\ttwo\na\tone\n")
    with pytest.warns(DataWarning, match="1 duplicate"):
        assert list(read_tsv_documents(same)) == ["a", "b"]
    other = _w(tmp_path, "d2.tsv", "a\tone\nb\ttwo\na\tthree\n")
    _raises_at(read_tsv_documents, other, f"{other}:3", "first at line 1")


def test_smart_qrels_junk_columns_and_bad_grades(tmp_path: Path) -> None:
    junk = _w(tmp_path, "CISI.REL", "1 28 0 0.0\nthis is a junk line of nine columns here\n")
    _raises_at(read_smart_qrels, junk, f"{junk}:2", "9 column")
    words = _w(tmp_path, "C2.REL", "1 28 zero 0.0\n")
    _raises_at(read_smart_qrels, words, f"{words}:1", "'zero'")
    trec = _w(tmp_path, "MED.REL", "1 0 13 x\n")
    _raises_at(lambda p: read_smart_qrels(p, "trec"), trec, f"{trec}:1", "'x'")
    sup = _w(tmp_path, "C3.REL", "1 \u00b2\n")  # '²'.isdigit() is True, int('²') fails
    assert read_smart_qrels(sup) == {"1": {"\u00b2": 1}}
    conflict = _w(tmp_path, "MED2.REL", "1 0 13 1\n1 0 13 0\n")
    _raises_at(lambda p: read_smart_qrels(p, "trec"), conflict, f"{conflict}:2", "again")


@pytest.mark.parametrize("code", ["\uff11", "1_0", "5"])
def test_cranfield_strict_codes(tmp_path: Path, code: str) -> None:
    p = _w(tmp_path, "cranqrel", f"1 184 {code}\n")
    _raises_at(read_cranfield_qrels, p, f"{p}:1")


def test_json_readers_reject_non_finite_and_bad_shapes(tmp_path: Path) -> None:
    hit = {"content": "a", "qid": 5, "docid": "d1", "rank": 1}
    for score in ["NaN", "Infinity", "1e400"]:
        text = json.dumps([{"query": "q", "hits": [{**hit, "score": 0}]}]).replace(
            '"score": 0', f'"score": {score}'
        )
        _raises_at(read_rankllm_results, _w(tmp_path, "r.json", text), "r.json")
    deep = _w(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    _raises_at(read_rankllm_results, deep, "deep.json")
    _raises_at(read_xquad, _w(tmp_path, "x.json", '{"data": [{"paragraphs": [{}]}]}'), "x.json")
    _raises_at(read_document_passages, _w(tmp_path, "p.json", '{"61": null}'), "p.json")
    _raises_at(read_graded_labels, _w(tmp_path, "g.json", "[1, 2]"), "g.json")
    bad_label = _w(
        tmp_path, "b.json", json.dumps({"id": 1, "query": "q", "title": "t", "label": 1.5})
    )
    _raises_at(read_qbqtc, bad_label, f"{bad_label}:1", "label")


def test_line_readers_reject_lenient_numbers(tmp_path: Path) -> None:
    _raises_at(read_sasaki_clir, _w(tmp_path, "s.txt", "1_0\tq\td\n"), "s.txt:1", "'1_0'")
    for name, text in {
        "a.toks": "q\n",
        "b.toks": "s\n",
        "id.txt": "1\n",
        "sim.txt": "\uff11\n",
    }.items():
        _w(tmp_path, f"w/{name}", text)
    _raises_at(read_wikiqa_castor, tmp_path / "w", "sim.txt:1")


def test_trec_documents_unclosed_doc(tmp_path: Path) -> None:
    p = _w(
        tmp_path,
        "d.trec",
        "<DOC>\n<DOCNO> 1 </DOCNO>\none\n<DOC>\n<DOCNO> 2 </DOCNO>\ntwo\n</DOC>\n",
    )
    _raises_at(read_trec_documents, p, f"{p}:1", "not closed")

"""Every shared collection loads with the counts verified in its SOURCE.md (skips without data)."""

from __future__ import annotations

from collections import Counter

import pytest

from axiomatic.data.catalog import load_dataset
from shared_data import require_collection, shared_data_root


def _n(qrels) -> int:
    return sum(len(v) for v in qrels.values())


def _grades(qrels) -> dict[int, int]:
    return dict(Counter(g for v in qrels.values() for g in v.values()))


def _ld(name: str):
    return load_dataset(name, shared_data_root())


def _load(name: str, folder: str):
    root = require_collection(folder).parent
    return load_dataset(name, root)


def test_msmarco_dev_top20() -> None:
    full = _load("msmarco-dev-top20", "msmarco-passage-dev-bm25top20-graded")
    assert len(full.queries) == 600
    assert _n(full.candidates) == 12_000 and len(full.documents) == 11_809
    assert _grades(full.qrels) == {1: 540, 0: 11_460}
    assert sum(1 for q in full.qrels.values() if 1 not in q.values()) == 60
    train = _ld("msmarco-dev-top20/train")
    test = _ld("msmarco-dev-top20/test")
    assert len(train.queries) == 400 and len(test.queries) == 200
    order = sorted(full.queries, key=int)
    assert list(test.queries) == order[2::3]
    assert full.rel_threshold == 1
    # every MS MARCO positive is in the official dev-small qrels
    official = full.metadata["qrels_official"]
    assert all(official[q].get(d, 0) >= 1 for q, v in full.qrels.items() for d, g in v.items() if g)


def test_msmarco_graded() -> None:
    g = _load("msmarco-dev-top20-graded", "msmarco-passage-dev-bm25top20-graded")
    assert len(g.queries) == 125 and _n(g.candidates) == 2_500
    assert _n(g.metadata["qrels_msmarco"]) == 2_500
    assert set(_grades(g.qrels)) <= {1, 2, 3, 4, 5}
    n_assessors = Counter(
        len(v) for d in g.metadata["assessor_grades"].values() for v in d.values()
    )
    assert n_assessors[5] == 100 and n_assessors[7] == 20  # per SOURCE.md (pairs with 5 / 7)
    tr, te = _ld("msmarco-dev-top20-graded/train"), _ld("msmarco-dev-top20-graded/test")
    assert set(tr.queries) | set(te.queries) == set(g.queries)
    assert set(te.queries) <= set(_ld("msmarco-dev-top20/test").queries)


@pytest.mark.parametrize(
    ("system", "docs", "judged", "rel"),
    [("bm25", 4_297, 2_257, 846), ("splade-pp", 4_300, 2_238, 1_160)],
)
def test_trec_dl_2019_runs(system: str, docs: int, judged: int, rel: int) -> None:
    ds = _load(f"trec-dl-2019/{system}", "msmarco-passage-trecdl")
    assert len(ds.queries) == 43 and _n(ds.candidates) == 4_300 and len(ds.documents) == docs
    assert _n(ds.qrels) == 9_260 and ds.rel_threshold == 2
    pairs = [(q, d) for q, c in ds.candidates.items() for d in c if d in ds.qrels.get(q, {})]
    assert len(pairs) == judged
    assert sum(ds.qrels[q][d] >= 2 for q, d in pairs) == rel
    assert _grades(ds.qrels) == {0: 5158, 1: 1601, 2: 1804, 3: 697}


def test_trec_dl_unions() -> None:
    require_collection("msmarco-passage-trecdl-extra-runs")
    for year, judged in ((2019, 4_333), (2021, 4_806)):
        ds = _load(f"trec-dl-{year}/union", "msmarco-passage-trecdl")
        pairs = sum(d in ds.qrels.get(q, {}) for q, c in ds.candidates.items() for d in c)
        assert pairs == judged
    dl21 = _ld("trec-dl-2021/bm25")
    assert len(dl21.queries) == 53 and _n(dl21.candidates) == 5_300 and _n(dl21.qrels) == 10_828
    rep = _ld("trec-dl-2019/repllama")
    assert {len(c) for c in rep.candidates.values()} == {200}


def test_scifact() -> None:
    tr = _load("scifact/train", "scifact")
    te = _ld("scifact/test")
    assert len(tr.documents) == 5_183 and tr.candidates is None
    assert (len(tr.queries), _n(tr.qrels)) == (809, 919)
    assert (len(te.queries), _n(te.qrels)) == (300, 339)
    assert all(d in tr.documents for v in te.qrels.values() for d in v)


def test_nfcorpus() -> None:
    test = _load("nfcorpus/test", "nfcorpus-original")
    assert (len(test.documents), len(test.queries), _n(test.qrels)) == (3_162, 325, 15_820)
    assert _grades(test.qrels) == {3: 576, 2: 11_758, 1: 3_486}
    dev = _ld("nfcorpus/dev")
    assert (len(dev.documents), len(dev.queries), _n(dev.qrels)) == (3_193, 325, 14_589)
    train = _ld("nfcorpus/train")
    assert len(train.queries) == 2_594 and len(train.documents) == 3_395
    assert _n(train.metadata["qrels_all"]) == 139_350
    assert all(d in train.documents for v in train.qrels.values() for d in v)


def test_cranfield_grade_mapping() -> None:
    ds = _load("cranfield", "cranfield")
    assert (len(ds.documents), len(ds.queries)) == (1_400, 225)
    # Cleverdon 1:128 2:387 3:734 4:363 -> higher-is-better 4/3/2/1; the 225 -1 markers dropped
    assert _grades(ds.qrels) == {4: 128, 3: 387, 2: 734, 1: 363}
    assert ds.metadata["markers_dropped"] == 225
    assert len(ds.qrels) == 225 and ds.queries["1"].text.startswith("what similarity laws")


@pytest.mark.parametrize(
    ("name", "folder", "docs", "queries", "qrels", "judged"),
    [
        ("cisi", "cisi", 1_460, 112, 3_114, 76),
        ("cacm", "cacm", 3_204, 64, 796, 52),
        ("adi", "adi", 82, 35, 170, 35),
        ("medline", "medline-glasgow", 1_033, 30, 696, 30),
        ("vaswani", "vaswani-npl", 11_429, 93, 2_083, 93),
        ("cystic-fibrosis", "cystic-fibrosis-cf", 1_239, 100, 4_819, 100),
    ],
)
def test_classic(name: str, folder: str, docs: int, queries: int, qrels: int, judged: int) -> None:
    ds = _load(name, folder)
    assert (len(ds.documents), len(ds.queries), _n(ds.qrels), len(ds.qrels)) == (
        docs,
        queries,
        qrels,
        judged,
    )
    assert all(d in ds.documents for v in ds.qrels.values() for d in v)
    assert all(q in ds.queries for q in ds.qrels)
    if name == "cacm":
        assert "2856" in ds.documents  # the split '.I 28' / '56' header
    if name == "cystic-fibrosis":
        assert _grades(ds.qrels) == {
            1: 2_280,
            2: 744,
            3: 251,
            4: 202,
            5: 250,
            6: 297,
            7: 330,
            8: 465,
        }
        assert sum(len(d.text.split()) > 40 for d in ds.documents.values()) >= 1_200


def test_noveleval_and_rag24() -> None:
    nov = _load("noveleval", "noveleval-2306")
    assert (len(nov.queries), len(nov.documents), _n(nov.qrels)) == (21, 420, 420)
    assert _grades(nov.qrels) == {0: 290, 1: 40, 2: 90}
    assert {len(c) for c in nov.candidates.values()} == {20}
    rag = _load("trec-rag24", "trec-rag24-retrieval-top20")
    assert len(rag.queries) == 301 and _n(rag.candidates) == 6_020
    assert (_n(rag.qrels), len(rag.qrels)) == (20_283, 86)
    assert _grades(rag.qrels) == {0: 7_566, 1: 6_305, 2: 4_663, 3: 1_749}
    judged = Counter(
        rag.qrels[q][d]
        for q, c in rag.candidates.items()
        if q in rag.qrels
        for d in c
        if d in rag.qrels[q]
    )
    assert dict(judged) == {0: 252, 1: 448, 2: 604, 3: 364}


@pytest.mark.parametrize(
    ("split", "pairs", "questions", "positives"),
    [("train", 8_672, 873, 1_040), ("dev", 1_130, 126, 140), ("test", 2_351, 243, 293)],
)
def test_wikiqa(split: str, pairs: int, questions: int, positives: int) -> None:
    ds = _load(f"wikiqa/{split}", "wikiqa-castor")
    assert (_n(ds.candidates), len(ds.queries), _grades(ds.qrels)[1]) == (
        pairs,
        questions,
        positives,
    )


def test_wikipassageqa_questions() -> None:
    from axiomatic.data.readers.wikipassageqa import read_wikipassageqa_questions

    folder = require_collection("wikipassageqa")
    for split, (nq, nrel, ndoc) in {
        "train": (3_332, 5_560, 859),
        "dev": (417, 707, 331),
        "test": (416, 700, 345),
    }.items():
        w = read_wikipassageqa_questions(folder / "raw" / f"{split}.tsv")
        assert (len(w.queries), _n(w.qrels), len(set(w.document_of.values()))) == (nq, nrel, ndoc)


def test_xquad_clir() -> None:
    root = require_collection("xquad-clir").parent
    sizes = {}
    for split in ("train", "dev", "test"):
        ds = load_dataset(f"xquad-clir/en-de/{split}", root)
        sizes[split] = len(ds.queries)
        assert len(ds.documents) == 240 and ds.language == "en" and ds.doc_language == "de"
        for q in ds.queries:
            grades = Counter(ds.qrels[q].values())
            assert grades[2] == 1 and grades[0] == 40 and grades[1] >= 1
    assert sum(sizes.values()) == 1_190
    a, b = load_dataset("xquad-clir/de-en/test", root), load_dataset("xquad-clir/en-de/test", root)
    assert a.candidates == b.candidates and list(a.queries) == list(b.queries)
    assert a.queries != b.queries  # same ids, other language


@pytest.mark.parametrize(
    ("split", "pairs", "queries", "labels"),
    [
        ("train", 15_000, 791, {0: 6_420, 1: 5_903, 2: 2_677}),
        ("dev", 1_300, 69, {0: 446, 1: 666, 2: 188}),
        ("test", 1_743, 91, {0: 673, 1: 665, 2: 405}),
    ],
)
def test_qbqtc(split: str, pairs: int, queries: int, labels: dict[int, int]) -> None:
    ds = _load(f"qbqtc/{split}", "qbqtc-zh-listwise-2021-10")
    assert (_n(ds.candidates), len(ds.queries), _grades(ds.qrels)) == (pairs, queries, labels)
    assert ds.language == "zh"


def test_qbqtc_pointwise() -> None:
    ds = _load("qbqtc-pointwise/dev", "qbqtc-zh")
    assert (_n(ds.qrels), len(ds.queries)) == (20_000, 18_802)
    assert _grades(ds.qrels) == {0: 4_894, 1: 12_592, 2: 2_514}
    assert _n(_ld("qbqtc-pointwise/test").qrels) == 5_000


def test_sasaki() -> None:
    for split in ("train", "test"):
        ds = _load(f"sasaki-sw/{split}", "wikiclir-sasaki2018-sw-sample")
        assert (_n(ds.qrels), len(ds.queries), _grades(ds.qrels)) == (100, 20, {2: 20, 0: 80})
        assert ds.doc_language == "sw"

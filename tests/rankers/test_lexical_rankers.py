"""Lexical rankers: formulas, retrieval == re-ranking, artificial documents, parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rankers_helpers import TINY_DOCS, tiny_dataset, tiny_index

from axiomatic.data.records import Document, Query
from axiomatic.rankers.base import rerank
from axiomatic.rankers.lexical import BM25Ranker, QLRanker, RM3Ranker, TFIDFRanker

ALL = [
    lambda ix: BM25Ranker(ix),
    lambda ix: BM25Ranker(ix, k1=1.2, b=0.75),
    lambda ix: QLRanker(ix, mu=50.0),
    lambda ix: RM3Ranker(ix, fb_docs=2, fb_terms=3, mu=50.0),
    lambda ix: TFIDFRanker(ix),
]


@pytest.fixture(scope="module")
def ix():
    return tiny_index()


def test_bm25_matches_hand_computation(ix):
    r = BM25Ranker(ix, k1=1.2, b=0.75)
    s = r.score(Query("q", "apple banana"), [TINY_DOCS[0]])[0]
    n, avgdl = 6, np.mean([4, 7, 2, 5, 8, 1])
    expected = 0.0
    for tf, df in ((2, 2), (1, 3)):  # apple: tf 2, df 2; banana: tf 1, df 3 in d1 (len 4)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        expected += idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * 4 / avgdl))
    assert s == pytest.approx(expected, rel=1e-12)


def test_ql_matches_hand_computation(ix):
    mu = 50.0
    r = QLRanker(ix, mu=mu)
    s = r.score(Query("q", "apple kiwi kiwi"), [TINY_DOCS[0]])[0]
    total = 4 + 7 + 2 + 5 + 8 + 1
    p_apple, p_kiwi = 6 / total, 2 / total
    expected = math.log((2 + mu * p_apple) / (4 + mu)) + 2 * math.log((0 + mu * p_kiwi) / (4 + mu))
    assert s == pytest.approx(expected, rel=1e-12)


def test_tfidf_matches_hand_computation(ix):
    s = TFIDFRanker(ix).score(Query("q", "apple"), [TINY_DOCS[3]])[0]
    assert s == pytest.approx((1 + math.log(4)) * math.log(6 / 2), rel=1e-12)


@pytest.mark.parametrize("make", ALL)
def test_retrieve_scores_equal_rerank_scores(ix, make):
    r = make(ix)
    q = Query("q", "apple banana fig")
    hits = r.retrieve(q, k=10)
    assert hits, "documents containing query terms must be retrieved"
    ids = [d for d, _ in hits]
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)
    if not isinstance(r, RM3Ranker):  # RM3 also matches its expansion terms
        # only documents that contain a query term are retrieved
        assert "d6" not in ids and "d3" not in ids
    again = r.score(q, [ix_doc(d) for d in ids])
    np.testing.assert_allclose(again, scores, rtol=1e-9, atol=1e-12)


def ix_doc(doc_id: str) -> Document:
    return next(d for d in TINY_DOCS if d.doc_id == doc_id)


@pytest.mark.parametrize("make", ALL)
def test_artificial_documents_use_original_statistics(ix, make):
    r = make(ix)
    q = Query("q", "apple banana")
    real = TINY_DOCS[0]
    copy = Document("artificial-copy", real.text)  # not in the index, same text
    df_before, n_before = ix.df.copy(), ix.n_docs
    s = r.score(q, [real, copy, Document("d1", "banana cherry cherry")])
    assert s[0] == pytest.approx(s[1], rel=1e-12)
    # same id, different text: scored by its text, not by the indexed row
    assert s[2] != pytest.approx(s[0])
    np.testing.assert_array_equal(ix.df, df_before)
    assert ix.n_docs == n_before


def test_artificial_document_scores_are_consistent_with_formula(ix):
    r = BM25Ranker(ix)
    # doubling d1 (LNC2-style): tf doubles, length doubles, collection statistics do not change
    doubled = Document("d1x2", TINY_DOCS[0].text + " " + TINY_DOCS[0].text)
    s = r.score(Query("q", "apple"), [doubled])[0]
    idf = math.log(1 + (6 - 2 + 0.5) / (2 + 0.5))
    expected = idf * 4 / (4 + 0.9 * (1 - 0.4 + 0.4 * 8 / ix.avg_doc_len))
    assert s == pytest.approx(expected, rel=1e-12)


def test_repeated_query_terms_count(ix):
    r = BM25Ranker(ix)
    once = r.score(Query("q", "apple"), TINY_DOCS)
    twice = r.score(Query("q", "apple apple"), TINY_DOCS)
    np.testing.assert_allclose(twice, 2 * once)
    assert once.max() > 0


def test_more_query_term_occurrences_score_higher_tfc1(ix):
    docs = [Document("a", "apple x y z"), Document("b", "apple apple y z")]  # same length
    for r in (BM25Ranker(ix), QLRanker(ix), TFIDFRanker(ix)):
        s = r.score(Query("q", "apple"), docs)
        assert s[1] > s[0], r.name


def test_out_of_vocabulary_query(ix):
    r = BM25Ranker(ix)
    assert r.retrieve(Query("q", "zzz unknown"), k=5) == []
    np.testing.assert_array_equal(r.score(Query("q", "zzz"), TINY_DOCS), np.zeros(len(TINY_DOCS)))
    assert r.score(Query("q", "apple"), []).shape == (0,)


def test_top_k_and_ties_are_deterministic(ix):
    r = BM25Ranker(ix)
    hits = r.retrieve(Query("q", "banana"), k=2)
    assert len(hits) == 2
    full = r.retrieve(Query("q", "banana"), k=100)
    assert hits == full[:2]
    # d2 has the most 'banana' occurrences
    assert full[0][0] == "d2"
    with pytest.raises(ValueError, match="k must be a positive integer"):
        r.retrieve(Query("q", "banana"), k=0)


def test_retrieve_run_and_rerank(ix):
    ds = tiny_dataset()
    r = BM25Ranker(ix)
    run = r.retrieve_run(ds.queries, k=3)
    assert set(run) == {"q1", "q2", "q3"}
    assert run["q3"] == {}
    assert all(len(v) <= 3 for v in run.values())
    full = rerank(r, ds)  # full-retrieval dataset: scores every document
    for qid, docs in run.items():
        for d, s in docs.items():
            assert full[qid][d] == pytest.approx(s)


def test_rm3_expansion_model(ix):
    r = RM3Ranker(ix, fb_docs=2, fb_terms=3, orig_weight=0.6, mu=50.0)
    model = r.expand(Query("q", "kiwi"))
    assert sum(model.values()) == pytest.approx(1.0)
    assert model["kiwi"] >= 0.6  # the original query keeps at least its interpolation weight
    assert len(model) <= 1 + 3
    # orig_weight=1 is plain QL
    ql = QLRanker(ix, mu=50.0).score(Query("q", "apple banana"), TINY_DOCS)
    rm = RM3Ranker(ix, orig_weight=1.0, mu=50.0).score(Query("q", "apple banana"), TINY_DOCS)
    np.testing.assert_allclose(rm, ql / 2, rtol=1e-12)  # weights qtf/|q| instead of qtf


def test_rm3_score_independent_of_candidate_list(ix):
    r = RM3Ranker(ix, fb_docs=2, fb_terms=4, mu=50.0)
    q = Query("q", "apple cherry")
    a = r.score(q, TINY_DOCS)
    b = r.score(q, TINY_DOCS[::-1])[::-1]
    np.testing.assert_allclose(a, b)
    assert r.score(q, [TINY_DOCS[2]])[0] == pytest.approx(a[2])


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda ix: BM25Ranker(ix, b=1.5), "b must be <= 1"),
        (lambda ix: BM25Ranker(ix, k1=-1), "k1 must be >= 0"),
        (lambda ix: QLRanker(ix, mu=0), "mu must be > 0"),
        (lambda ix: RM3Ranker(ix, fb_docs=0), "fb_docs must be >= 1"),
        (lambda ix: BM25Ranker(ix, k1="0.9"), "k1 must be a number"),
    ],
)
def test_bad_parameters_fail_with_clear_message(ix, make, message):
    r = make(ix)  # constructors only store parameters
    with pytest.raises((ValueError, TypeError), match=message):
        r.score(Query("q", "apple"), TINY_DOCS)


def test_ranker_names_carry_parameters(ix):
    assert BM25Ranker(ix, k1=1.2, b=0.75).name == "BM25(k1=1.2,b=0.75)"
    assert QLRanker(ix, mu=1000).name == "QL(mu=1000)"


def test_rank_dataset_is_what_axiomatic_rank_writes() -> None:
    """The library function behind ``axiomatic rank``: a dataset without candidate lists is
    retrieved from (each query's top ``depth``), a re-ranking one re-ranked; a ranker that
    cannot retrieve on the former is one clear ValueError naming the way out."""
    import numpy as np
    import pytest

    import axiomatic as ax
    from axiomatic.rankers.base import rank_dataset, rerank
    from axiomatic.rankers.registry import make_ranker

    ds = tiny_dataset()
    assert not ds.is_reranking
    bm25 = make_ranker("bm25", ds)
    run = rank_dataset(bm25, ds, depth=2)
    for q in ds.iter_queries():
        assert run[q.query_id] == dict(bm25.retrieve(q, 2))
        assert len(run[q.query_id]) <= 2

    class ScoreOnly:
        name = "score-only"

        def score(self, query, docs):
            return np.zeros(len(docs))

    with pytest.raises(ValueError, match=r"cannot retrieve.*--first-stage"):
        rank_dataset(ScoreOnly(), ds)  # type: ignore[arg-type]
    demo = ax.load_dataset("demo/test")
    assert rank_dataset(make_ranker("bm25", demo), demo, depth=5) == rerank(
        make_ranker("bm25", demo), demo, depth=5
    )

"""Reference comparison: our BM25 equals bm25s (method="lucene") for the same analyzer.

Our Analyzer is configured like bm25s' tokenizer: its English stopword list, its token pattern
``(?u)\\b\\w\\w+\\b`` and PyStemmer's Snowball stemmer. Our analyzer NFKC-normalizes before
lowercasing, so bm25s gets NFKC-normalized texts too (same input, same tokens).
"""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest

from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.rankers.lexical import BM25_DELTA, BM25Ranker
from axiomatic.text.analyzer import Analyzer
from shared_data import require_collection

bm25s = pytest.importorskip("bm25s")
Stemmer = pytest.importorskip("Stemmer")

BM25S_PATTERN = r"(?u)\b\w\w+\b"


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _compare(
    docs: list[Document], queries: list[Query], k1: float, b: float, variant: str = "lucene"
) -> float:
    from bm25s.stopwords import STOPWORDS_EN

    analyzer = Analyzer(
        stopwords=frozenset(STOPWORDS_EN), token_pattern=BM25S_PATTERN, stemmer="snowball"
    )
    index = CollectionIndex.build(docs, analyzer)
    ours = BM25Ranker(index, k1=k1, b=b, variant=variant)
    stemmer = Stemmer.Stemmer("english")
    # bm25s' delta is 0.5 for both BM25L and BM25+; ours follows Lv & Zhai (BM25+: 1.0)
    ref = bm25s.BM25(k1=k1, b=b, method=variant, delta=BM25_DELTA.get(variant, 0.5))
    tokens = bm25s.tokenize(
        [_nfkc(d.text) for d in docs], stopwords="en", stemmer=stemmer, show_progress=False
    )
    ref.index(tokens, show_progress=False)
    worst = 0.0
    compared = 0
    for q in queries:
        q_tokens = bm25s.tokenize(
            [_nfkc(q.text)], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )[0]
        q_tokens = [t for t in q_tokens if t in ref.vocab_dict]
        if not q_tokens:
            continue
        expected = ref.get_scores(q_tokens)  # row order = docs order
        got_all, _ = ours.scores_all(q)
        got_rerank = ours.score(q, docs[:50])
        assert index.doc_ids == [d.doc_id for d in docs]
        scale = max(float(np.abs(expected).max()), 1e-9)
        worst = max(worst, float(np.abs(got_all - expected).max()) / scale)
        worst = max(worst, float(np.abs(got_rerank - expected[:50]).max()) / scale)
        compared += 1
    assert compared > 0
    return worst


def test_bm25_equals_bm25s_on_demo_collection():
    from axiomatic.data.demo import demo_dataset

    ds = demo_dataset()
    docs = list(ds.documents.values())
    queries = list(ds.queries.values())
    assert _compare(docs, queries, k1=0.9, b=0.4) < 1e-5
    assert _compare(docs, queries, k1=1.5, b=1.0) < 1e-5


def test_bm25_equals_bm25s_on_scifact():
    from axiomatic.data.readers.scifact import read_scifact_claims, read_scifact_corpus

    root = require_collection("scifact")
    docs = list(read_scifact_corpus(root / "raw" / "corpus_train.csv").values())
    queries, _ = read_scifact_claims(root / "raw" / "claims_validation.csv")
    assert _compare(docs, list(queries.values())[:60], k1=1.2, b=0.75) < 1e-5


@pytest.mark.parametrize("variant", ["robertson", "atire", "bm25l", "bm25+"])
def test_every_bm25_variant_equals_bm25s_same_method_on_demo(variant: str) -> None:
    from axiomatic.data.demo import demo_dataset

    ds = demo_dataset()
    docs = list(ds.documents.values())
    queries = list(ds.queries.values())
    assert _compare(docs, queries, k1=0.9, b=0.4, variant=variant) < 1e-5
    assert _compare(docs, queries, k1=1.5, b=1.0, variant=variant) < 1e-5


@pytest.mark.parametrize("variant", ["robertson", "atire", "bm25l", "bm25+"])
def test_every_bm25_variant_equals_bm25s_same_method_on_scifact(variant: str) -> None:
    from axiomatic.data.readers.scifact import read_scifact_claims, read_scifact_corpus

    root = require_collection("scifact")
    docs = list(read_scifact_corpus(root / "raw" / "corpus_train.csv").values())
    queries, _ = read_scifact_claims(root / "raw" / "claims_validation.csv")
    assert _compare(docs, list(queries.values())[:30], k1=1.2, b=0.75, variant=variant) < 1e-5


def _scifact_claims() -> tuple[list[Document], list[Query]]:
    from axiomatic.data.readers.scifact import read_scifact_claims, read_scifact_corpus

    root = require_collection("scifact")
    docs = list(read_scifact_corpus(root / "raw" / "corpus_train.csv").values())
    queries = list(read_scifact_claims(root / "raw" / "claims_validation.csv")[0].values())[:100]
    return docs, queries


def _rag24_segments() -> tuple[list[Document], list[Query]]:
    """TREC RAG 2024: the distinct retrieved segments (about 6,000) and all 301 topics."""
    from axiomatic.data.readers.rag24 import read_rag24_retrieval

    root = require_collection("trec-rag24-retrieval-top20")
    res = read_rag24_retrieval(root / "raw" / "study1_retrieval.jsonl.gz")
    return list(res.documents.values()), list(res.queries.values())


@pytest.mark.parametrize(
    "collection", [_scifact_claims, _rag24_segments], ids=["scifact", "trec-rag24"]
)
def test_retrieved_top_k_equals_bm25s(collection):
    """The top 10 that retrieval returns (the compiled two-pass kernel when numba is there)
    carry bm25s' scores of those documents to within float32 rounding (bm25s sums float32)."""
    from bm25s.stopwords import STOPWORDS_EN

    docs, queries = collection()
    analyzer = Analyzer(
        stopwords=frozenset(STOPWORDS_EN), token_pattern=BM25S_PATTERN, stemmer="snowball"
    )
    ours = BM25Ranker(CollectionIndex.build(docs, analyzer, keep_texts=False), k1=0.9, b=0.4)
    rows, scores, n = ours.retrieve_many(queries, 10)
    stemmer = Stemmer.Stemmer("english")
    ref = bm25s.BM25(k1=0.9, b=0.4, method="lucene")
    tokens = bm25s.tokenize(
        [_nfkc(d.text) for d in docs], stopwords="en", stemmer=stemmer, show_progress=False
    )
    ref.index(tokens, show_progress=False)
    worst = 0.0
    for i, q in enumerate(queries):
        q_tokens = bm25s.tokenize(
            [_nfkc(q.text)], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )[0]
        q_tokens = [t for t in q_tokens if t in ref.vocab_dict]
        expected = ref.get_scores(q_tokens) if q_tokens else np.zeros(len(docs))
        assert n[i] == min(10, int((expected > 0).sum())), q.query_id
        got = scores[i, : n[i]]
        want = expected[rows[i, : n[i]]]
        worst = max(worst, float(np.abs(got - want).max(initial=0.0)) / max(want.max(), 1e-9))
        # the 10th best of bm25s' scores is ours' 10th, up to its rounding
        if n[i]:
            assert abs(np.sort(expected)[-n[i]] - got[-1]) <= 2e-7 * want.max(), q.query_id
    assert worst < 2e-7

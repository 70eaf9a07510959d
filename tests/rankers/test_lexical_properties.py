"""Property-based checks on random corpora: retrieval == re-ranking, artificial == indexed."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.rankers.lexical import BM25Ranker, QLRanker, RM3Ranker, TFIDFRanker
from axiomatic.text.analyzer import Analyzer

WORDS = [f"w{i}" for i in range(12)]
doc_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=15).map(" ".join)
corpus = st.lists(doc_text, min_size=2, max_size=12)
query_text = st.lists(st.sampled_from([*WORDS, "oov"]), min_size=1, max_size=4).map(" ".join)


def _rankers(index: CollectionIndex):
    return [
        BM25Ranker(index, k1=1.2, b=0.75),
        QLRanker(index, mu=20.0),
        RM3Ranker(index, fb_docs=3, fb_terms=4, mu=20.0),
        TFIDFRanker(index),
    ]


@settings(max_examples=40, deadline=None)
@given(texts=corpus, q=query_text)
def test_retrieval_and_rerank_agree_and_copies_score_alike(texts, q):
    docs = [Document(f"d{i}", t) for i, t in enumerate(texts)]
    index = CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))
    query = Query("q", q)
    for r in _rankers(index):
        hits = r.retrieve(query, k=len(docs))
        by_id = {d.doc_id: d for d in docs}
        if hits:
            got = r.score(query, [by_id[d] for d, _ in hits])
            np.testing.assert_allclose(got, [s for _, s in hits], rtol=1e-9, atol=1e-12)
        # an artificial copy (id not in the index) scores like the original
        copies = [Document(f"copy-{d.doc_id}", d.text) for d in docs]
        np.testing.assert_allclose(r.score(query, copies), r.score(query, docs), rtol=1e-12)

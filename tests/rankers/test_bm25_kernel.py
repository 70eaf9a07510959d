"""Compiled BM25 retrieval (``rankers/_bm25_kernel.py``) against a brute-force reference.

The reference scores every document with the numpy weight function over the dense count matrix
and sorts by (score desc, row asc). The compiled kernel, the same kernel run as plain Python
(what numba compiles, so its logic is checked without numba too) and the numpy retrieval path
must all give exactly those rows and scores: the same float operations in the same order.
"""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.rankers import _bm25_kernel
from axiomatic.rankers.lexical import BM25Ranker, LexicalRanker, bm25_idf, bm25_weights
from axiomatic.text.analyzer import Analyzer

RAW = Analyzer(stopwords=False, stemmer=None)


def _collection(seed: int, n_docs: int, vocab: int, dup: int = 0) -> list[Document]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocab)]
    p = 1.0 / np.arange(1, vocab + 1)
    p /= p.sum()
    docs = []
    for i in range(n_docs):
        n = int(rng.integers(1, 30))
        docs.append(Document(f"d{i}", " ".join(rng.choice(words, size=n, p=p))))
    # exact duplicates under other ids: tied scores, broken by row
    for j in range(dup):
        docs.append(Document(f"dup{j}", docs[j].text))
    return docs


def _reference(ranker: BM25Ranker, query: Query, k: int) -> tuple[np.ndarray, np.ndarray]:
    index = ranker.index
    counts: dict[str, int] = {}
    for t in index.analyzer.analyze(query.text):
        counts[t] = counts.get(t, 0) + 1
    tids = [(index.vocab[t], c) for t, c in counts.items() if t in index.vocab]
    dense = index.tf.toarray()
    scores = np.zeros(index.n_docs)
    hit = np.zeros(index.n_docs, dtype=bool)
    for tid, c in tids:
        col = dense[:, tid]
        nz = col > 0
        idf = bm25_idf(index.df[[tid]], index.n_docs)
        w = bm25_weights(col[nz], index.doc_len[nz], idf, index.avg_doc_len, ranker.k1, ranker.b)
        scores[nz] += w * float(c)
        hit |= nz
    rows = np.flatnonzero(hit)
    order = np.lexsort((rows, -scores[rows]))[:k]
    return rows[order], scores[rows[order]]


def _queries(seed: int, vocab: int, n: int) -> list[Query]:
    rng = np.random.default_rng(seed + 100)
    out = [Query("empty", "zzz-not-in-vocabulary"), Query("rep", "w0 w0 w3 w3 w3 w1")]
    for i in range(n):
        m = int(rng.integers(1, 6))
        out.append(Query(f"q{i}", " ".join(f"w{x}" for x in rng.integers(0, vocab, size=m))))
    return out


def _run_python_kernel(ranker: BM25Ranker, queries: list[Query], k: int, n_threads: int = 1):
    """The kernel as plain Python (no numba), fed exactly as ``retrieve_many`` feeds it."""
    return ranker._retrieve_kernel(
        _bm25_kernel.bm25_top_k, queries, k, n_threads, build=_bm25_kernel.bm25_impacts
    )


def _kernel_top_k(ranker: BM25Ranker, queries: list[Query], k: int, python_kernel: bool):
    """The top ``k`` from the kernel as plain Python, or compiled (skipped without numba)."""
    if python_kernel:
        return _run_python_kernel(ranker, queries, k)
    if _bm25_kernel.compiled() is None:
        pytest.skip("numba not installed (the `fast` extra)")
    return ranker.retrieve_many(queries, k)


@pytest.mark.parametrize(
    ("n_docs", "vocab", "k"),
    [
        (40, 12, 1),  # dense mode (postings >= n_docs / 8), heavy ties
        (40, 12, 7),
        (40, 12, 500),  # k above the number of matching documents
        (700, 25, 3),  # dense mode over many blocks of the top-k scan, heavy ties
        (700, 25, 60),
        (600, 3000, 5),  # large vocabulary: most queries take the sparse mode
        (600, 3000, 50),
    ],
)
@pytest.mark.parametrize("python_kernel", [False, True])
def test_kernel_equals_brute_force_reference(n_docs, vocab, k, python_kernel):
    docs = _collection(n_docs + vocab, n_docs, vocab, dup=8)
    index = CollectionIndex.build(docs, RAW, keep_texts=False)
    ranker = BM25Ranker(index, k1=1.2, b=0.75)
    queries = _queries(n_docs, vocab, 25)
    rows, scores, n = _kernel_top_k(ranker, queries, k, python_kernel)
    rows_np, scores_np, n_np = LexicalRanker.retrieve_many(ranker, queries, k)
    for i, q in enumerate(queries):
        ref_rows, ref_scores = _reference(ranker, q, k)
        assert n[i] == len(ref_rows) == n_np[i], q.query_id
        assert rows[i, : n[i]].tolist() == ref_rows.tolist(), q.query_id
        assert rows_np[i, : n[i]].tolist() == ref_rows.tolist(), q.query_id
        # bit-identical: the same IEEE operations in the same order
        assert scores[i, : n[i]].tolist() == ref_scores.tolist(), q.query_id
        assert scores_np[i, : n[i]].tolist() == ref_scores.tolist(), q.query_id
    assert n[0] == 0  # a query with no term of the collection matches nothing


def test_both_modes_are_exercised():
    """The sparse and dense accumulation modes each run in the parametrized cases above."""
    small = CollectionIndex.build(_collection(52, 40, 12), RAW, keep_texts=False)
    big = CollectionIndex.build(_collection(3600, 600, 3000), RAW, keep_texts=False)
    q = "w2000 w2500"
    tids = big.term_ids(q.split())
    tids = tids[tids >= 0]
    assert len(tids) and big.df[tids].sum() * 8 < big.n_docs  # sparse
    assert small.df[small.term_ids(["w0"])].sum() * 8 >= small.n_docs  # dense


def test_retrieve_and_run_use_the_batch_path_and_agree_with_score():
    docs = _collection(7, 80, 40, dup=4)
    index = CollectionIndex.build(docs, RAW)
    ranker = BM25Ranker(index)
    queries = _queries(7, 40, 10)
    run = ranker.retrieve_run(queries, k=5)
    by_id = {d.doc_id: d for d in docs}
    for q in queries:
        hits = ranker.retrieve(q, k=5)
        assert list(run[q.query_id].items()) == hits
        if hits:
            rescored = ranker.score(q, [by_id[d] for d, _ in hits])
            # re-ranking sums by a matrix product (another order): equal to rounding
            assert rescored.tolist() == pytest.approx([s for _, s in hits], rel=1e-12)


def test_parameters_changed_after_use_are_honoured():
    docs = _collection(9, 60, 20)
    index = CollectionIndex.build(docs, RAW)
    ranker = BM25Ranker(index, k1=0.9, b=0.4)
    q = Query("q", "w1 w4")
    first = ranker.retrieve(q, k=3)
    ranker.k1, ranker.b = 2.0, 1.0
    second = ranker.retrieve(q, k=3)
    fresh = BM25Ranker(index, k1=2.0, b=1.0).retrieve(q, k=3)
    assert second == fresh and second != first


def test_subclass_with_own_query_weights_keeps_the_numpy_path():
    class Weighted(BM25Ranker):
        def _query_weights(self, query):
            t, w = self._query_terms(query.text)
            return t, w * 2.0

    docs = _collection(11, 50, 20)
    index = CollectionIndex.build(docs, RAW)
    plain = BM25Ranker(index).retrieve(Query("q", "w1 w2"), k=4)
    doubled = Weighted(index).retrieve(Query("q", "w1 w2"), k=4)
    assert [d for d, _ in doubled] == [d for d, _ in plain]
    assert [s for _, s in doubled] == pytest.approx([2.0 * s for _, s in plain], rel=1e-12)


@pytest.mark.parametrize("python_kernel", [False, True])
def test_more_documents_than_uint16_ids_hold(python_kernel):
    """Above 65,536 documents the impact index stores ``uint32`` ids (the kernel indexes with
    unsigned integers): the same rows and bit-identical scores as the numpy form, for queries
    of the dense mode (frequent terms) and of the sparse one (rare terms), documents past
    65,536 among the results."""
    n_docs = 70_000
    rng = np.random.default_rng(7)
    common = rng.integers(0, 20, size=(n_docs, 3))
    rare = rng.integers(0, 40_000, size=n_docs)
    docs = [
        Document(f"d{i}", f"c{a} c{b} c{c} r{r}")
        for i, ((a, b, c), r) in enumerate(zip(common.tolist(), rare.tolist(), strict=True))
    ]
    index = CollectionIndex.build(docs, RAW, keep_texts=False)
    ranker = BM25Ranker(index, k1=1.2, b=0.75)
    late = [f"r{r}" for r in rare[66_000:].tolist()[:40]]  # terms of documents past 65,536
    queries = [
        Query("dense", "c0 c1 c1"),
        Query("dense-rare", "c3 r5 " + late[0]),
        Query("sparse", " ".join(late[:6])),
        Query("sparse-rep", f"{late[7]} {late[7]} {late[8]} r1"),
    ]
    tids = index.term_ids(["c0", "c1"])
    assert index.df[tids].sum() * 8 >= n_docs  # the dense mode
    tids = index.term_ids(late[:6])
    assert index.df[tids].sum() * 8 < n_docs  # the sparse mode
    k = 12
    rows, scores, n = _kernel_top_k(ranker, queries, k, python_kernel)
    assert ranker.impacts()[1].dtype == np.uint32
    rows_np, scores_np, n_np = LexicalRanker.retrieve_many(ranker, queries, k)
    assert n.tolist() == n_np.tolist() and min(n) > 0
    for i, q in enumerate(queries):
        assert rows[i, : n[i]].tolist() == rows_np[i, : n[i]].tolist(), q.query_id
        assert scores[i, : n[i]].tolist() == scores_np[i, : n[i]].tolist(), q.query_id
    assert (rows[2, : n[2]] >= 1 << 16).any()  # documents past uint16's range are retrieved


@pytest.mark.parametrize("n_threads", [2, 3])
def test_threads_split_the_queries_and_change_nothing(n_threads):
    docs = _collection(13, 300, 200, dup=5)
    ranker = BM25Ranker(CollectionIndex.build(docs, RAW, keep_texts=False))
    queries = _queries(13, 200, 40)
    one = _run_python_kernel(ranker, queries, 7)
    many = _run_python_kernel(ranker, queries, 7, n_threads=n_threads)
    for a, b in zip(one, many, strict=True):
        assert np.array_equal(a, b)
    if _bm25_kernel.compiled() is not None:
        for a, b in zip(one, ranker.retrieve_many(queries, 7, n_threads=n_threads), strict=True):
            assert np.array_equal(a, b)
        with pytest.raises(ValueError, match="n_threads must be >= 1"):
            ranker.retrieve_many(queries, 7, n_threads=0)


def test_query_term_ids_are_the_analyzed_terms():
    index = CollectionIndex.build(
        [Document("a", "Running cats and the dogs"), Document("b", "a cat ran")], Analyzer()
    )
    texts = ["The running CATS, cats!", "", "unknownword dogs the", "ran ran"]
    ptr, ids = index.query_term_ids(texts)
    for i, text in enumerate(texts):
        expected = [index.vocab.get(t, -1) for t in index.analyzer.analyze(text)]
        got = [x for x in ids[ptr[i] : ptr[i + 1]].tolist() if x >= 0]
        assert got == [x for x in expected if x >= 0], text
    # stopwords stay in the token stream as -1 (they are not terms); a second call is cached
    assert (ids[ptr[0] : ptr[1]] == -1).sum() == 1
    ptr2, ids2 = index.query_term_ids(texts)
    assert np.array_equal(ptr, ptr2) and np.array_equal(ids, ids2)


def _near_ties(seed: int) -> list[Document]:
    """Documents whose BM25 scores for ``a``, ``b`` and ``c`` differ by less than a
    quantization step: one to three of each, lengths a token apart (``b`` = 0.0005 below makes
    a token of length move a weight by a fraction of a step of its term)."""
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(600):
        n = rng.integers(1, 4, size=3)
        words = ["a"] * int(n[0]) + ["b"] * int(n[1]) + ["c"] * int(n[2])
        docs.append(Document(f"d{i}", " ".join(words + ["f"] * int(rng.integers(200, 260)))))
    return docs


def _approximate(ranker: BM25Ranker, query: Query) -> np.ndarray:
    """Every document's score by the quantized weights alone (what the exact pass corrects)."""
    indptr, docs, quantized, scale = ranker.impacts()
    approx = np.zeros(ranker.index.n_docs)
    for t in ranker.index.term_ids(ranker.index.analyzer.analyze(query.text)).tolist():
        lo, hi = indptr[t], indptr[t + 1]
        approx[docs[lo:hi]] += quantized[lo:hi] * scale[t]
    return approx


@pytest.mark.parametrize("k", [5, 60])
@pytest.mark.parametrize("python_kernel", [False, True])
def test_candidates_within_the_quantization_error_are_rescored_exactly(python_kernel, k):
    index = CollectionIndex.build(_near_ties(0), RAW, keep_texts=False)
    ranker = BM25Ranker(index, k1=1.2, b=0.0005)
    queries = [Query("abc", "a b c"), Query("aabc", "a a b c"), Query("cb", "c b")]
    rows, scores, n = _kernel_top_k(ranker, queries, k, python_kernel)
    below = 0
    for i, q in enumerate(queries):
        ref_rows, ref_scores = _reference(ranker, q, k)
        assert rows[i, : n[i]].tolist() == ref_rows.tolist(), q.query_id
        assert scores[i, : n[i]].tolist() == ref_scores.tolist(), q.query_id
        approx = _approximate(ranker, q)
        below += int((approx[ref_rows] < np.sort(approx)[-k]).sum())
    if k == 60:  # a real case: documents of the exact top k below the k-th approximate score
        assert below > 0


def test_weight_matrix_follows_parameters_changed_after_use():
    """The numpy form (``AXIOMATIC_JIT=0``) caches a weight matrix: keyed by the parameters."""
    from axiomatic.rankers.lexical import QLRanker

    docs = _collection(17, 60, 20)
    index = CollectionIndex.build(docs, RAW)
    queries = _queries(17, 20, 8)
    for ranker, changes in (
        (BM25Ranker(index, k1=0.9, b=0.4), {"k1": 2.0}),
        (BM25Ranker(index, k1=0.9, b=0.4), {"b": 1.0}),
        (QLRanker(index, mu=1000.0), {"mu": 50.0}),
    ):
        first = LexicalRanker.retrieve_many(ranker, queries, 5)
        for name, value in changes.items():
            setattr(ranker, name, value)
        fresh = type(ranker)(index, **{**vars_of(ranker), **changes})
        second = LexicalRanker.retrieve_many(ranker, queries, 5)
        expected = LexicalRanker.retrieve_many(fresh, queries, 5)
        for a, b in zip(second, expected, strict=True):
            assert np.array_equal(a, b), changes
        assert not np.array_equal(first[1], second[1]), changes


def vars_of(ranker: LexicalRanker) -> dict[str, float]:
    names = ("k1", "b") if isinstance(ranker, BM25Ranker) else ("mu",)
    return {n: getattr(ranker, n) for n in names}


def _impacts_with(ranker: BM25Ranker, build) -> tuple[np.ndarray, ...]:
    ranker._impact_cache = None
    return ranker.impacts(build)


def _assert_same_impacts(got: tuple[np.ndarray, ...], want: tuple[np.ndarray, ...]) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("chunk", [1, 7, 50, 1 << 15])
def test_numpy_impacts_equal_the_loop_form_bit_for_bit(chunk: int) -> None:
    docs = _collection(3, 300, 40, dup=5)
    docs.append(Document("empty", ""))  # a row without postings
    index = CollectionIndex.build(docs, RAW, keep_texts=False)
    index.tf.data[::11] = 0  # stored zero counts are no postings
    index.df = np.asarray((index.tf > 0).sum(axis=0)).ravel()
    ranker = BM25Ranker(index, k1=1.1, b=0.6)
    want = _impacts_with(ranker, _bm25_kernel.bm25_impacts)

    def build(*args):
        _bm25_kernel.bm25_impacts_numpy(*args, chunk=chunk)

    _assert_same_impacts(_impacts_with(ranker, build), want)
    assert ranker.impacts() is not None  # the default builder is the numpy one
    _assert_same_impacts(_impacts_with(ranker, None), want)


def test_numpy_impacts_equal_the_compiled_form_on_scifact() -> None:
    from axiomatic.data.readers.scifact import read_scifact_corpus
    from shared_data import require_collection

    fn = _bm25_kernel.compiled("bm25_impacts")
    if fn is None:
        pytest.skip("numba not installed (the `fast` extra)")
    root = require_collection("scifact")
    docs = list(read_scifact_corpus(root / "raw" / "corpus_train.csv").values())
    index = CollectionIndex.build(docs, Analyzer(), keep_texts=False, positions=False)
    ranker = BM25Ranker(index, k1=0.9, b=0.4)
    _assert_same_impacts(_impacts_with(ranker, None), _impacts_with(ranker, fn))

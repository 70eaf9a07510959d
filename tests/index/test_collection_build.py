"""``CollectionIndex.build`` against a per-document reference (analyze, count, assign ids).

The build maps each distinct surface token to its term once and assembles the count matrix from
one array of token ids; the reference is the obvious per-document form. Vocabulary order (first
occurrence), counts, lengths and the positional table must be identical.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from axiomatic.data.records import Document
from axiomatic.index import collection
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

WORDS = [
    "the",
    "a",
    "of",
    "running",
    "runs",
    "runner",
    "ran",
    "cats",
    "cat's",
    "CATS",
    "Straße",
    "strasse",
    "ﬁsh",
    "fish",
    "fishes",
    "and",
    "to",
    "in",
    "is",
    "was",
    "were",
    "been",
    "connection",
    "connected",
    "connecting",
    "x",
    "y",
    "z",
    "42",
    "42nd",
]


def _docs(seed: int, n: int) -> list[Document]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        m = int(rng.integers(0, 25))  # some documents are empty or only stopwords
        out.append(Document(f"d{i}", " ".join(rng.choice(WORDS, size=m)) + f" new{i % 7}"))
    out.append(Document("stops", "the a of and to"))
    out.append(Document("empty", ""))
    return out


def _reference(docs: list[Document], analyzer: Analyzer):
    vocab: dict[str, int] = {}
    rows, lens, table = [], [], []
    for d in docs:
        toks = analyzer.analyze(d.text)
        counts = Counter(toks)
        for t in counts:
            vocab.setdefault(t, len(vocab))
        rows.append({vocab[t]: c for t, c in counts.items()})
        lens.append(len(toks))
        table.append([vocab[t] for t in toks])
    dense = np.zeros((len(docs), len(vocab)), dtype=np.int64)
    for i, r in enumerate(rows):
        for j, c in r.items():
            dense[i, j] = c
    return list(vocab), dense, np.asarray(lens), table


@pytest.mark.parametrize(
    "analyzer",
    [Analyzer(), Analyzer(stemmer=None, stopwords=False), Analyzer(stemmer="porter")],
    ids=["default", "raw", "porter"],
)
@pytest.mark.parametrize("chunk", [None, 1, 37], ids=["one-chunk", "chunk-per-doc", "chunks"])
def test_build_equals_reference(analyzer, chunk, monkeypatch):
    # the build counts documents chunk by chunk (new terms appear in later chunks too)
    if chunk is not None:
        monkeypatch.setattr(collection, "_CHUNK_TOKENS", chunk)
    docs = _docs(3, 60)
    index = CollectionIndex.build(docs, analyzer)
    terms, dense, lens, table = _reference(docs, Analyzer.from_config(analyzer.config()))
    assert index.terms == terms
    assert np.array_equal(index.tf.toarray(), dense)
    assert index.tf.dtype == np.int32 and index.tf.has_sorted_indices
    assert np.array_equal(index.doc_len, lens) and index.doc_len.dtype == np.int64
    for r, expected in enumerate(table):
        assert index.token_ids(r).tolist() == expected
    assert np.array_equal(index.df, (dense > 0).sum(axis=0))
    assert np.array_equal(index.cf, dense.sum(axis=0))


def test_build_without_positions_and_duplicate_ids():
    docs = _docs(4, 10)
    index = CollectionIndex.build(docs, Analyzer(), positions=False)
    assert index.token_table is None
    assert index.token_ids(0).tolist() == [index.vocab[t] for t in Analyzer().analyze(docs[0].text)]
    with pytest.raises(ValueError, match="duplicate document id 'd0'"):
        CollectionIndex.build([*docs, Document("d0", "again")], Analyzer())


def test_column_copy_holds_the_counts_in_the_smallest_type():
    docs = _docs(5, 30)
    index = CollectionIndex.build(docs, Analyzer())
    assert index.tf_csc.dtype == np.uint8 and index.tf_csc.has_sorted_indices
    assert np.array_equal(index.tf_csc.toarray(), index.tf.toarray())
    big = CollectionIndex.build([Document("a", "word " * 300 + "other"), *docs[:3]], Analyzer())
    assert big.tf_csc.dtype == np.uint16
    assert np.array_equal(big.tf_csc.toarray(), big.tf.toarray())
    assert big.tf_csc.toarray().max() == 300


def test_token_table_is_uint16_and_widens_when_the_vocabulary_passes_65536(monkeypatch):
    # chunks of 1,000 tokens: the first ones are kept as uint16, the vocabulary then passes
    # 65,536 terms and the table is uint32 with every id as it was
    monkeypatch.setattr(collection, "_CHUNK_TOKENS", 1000)
    raw = Analyzer(stemmer=None, stopwords=False)
    docs = [
        Document(f"d{i}", " ".join(f"w{i * 100 + j} w0" for j in range(100))) for i in range(700)
    ]
    small = CollectionIndex.build(docs[:10], raw)
    assert small.token_table is not None and small.token_table[0].dtype == np.uint16
    big = CollectionIndex.build(docs, raw)
    assert big.n_terms > 1 << 16
    assert big.token_table is not None and big.token_table[0].dtype == np.uint32
    for index in (small, big):
        for r in (0, 5, index.n_docs - 1):
            want = [index.vocab[t] for t in raw.analyze(docs[r].text)]
            got = index.token_ids(r)
            assert got.dtype == np.int32 and got.tolist() == want


def test_index_saved_with_an_int32_token_table_still_loads(tmp_path):
    docs = _docs(5, 40)
    index = CollectionIndex.build(docs, Analyzer())
    assert index.token_table is not None and index.token_table[0].dtype == np.uint16
    path = index.save(tmp_path / "idx")
    narrow = CollectionIndex.load(path)
    assert narrow.token_table is not None and narrow.token_table[0].dtype == np.uint16
    np.save(path / "token_ids.npy", index.token_table[0].astype(np.int32))  # the old layout
    old = CollectionIndex.load(path)
    assert old.token_table is not None and old.token_table[0].dtype == np.int32
    for r in range(index.n_docs):
        want = [index.vocab[t] for t in Analyzer().analyze(docs[r].text)]
        assert narrow.token_ids(r).tolist() == want
        assert old.token_ids(r).tolist() == want

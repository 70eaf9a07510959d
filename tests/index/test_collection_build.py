"""``CollectionIndex.build`` against a per-document reference (analyze, count, assign ids).

The build maps each distinct surface token to its term once and assembles the count matrix from
one array of token ids; the reference is the obvious per-document form. Vocabulary order (first
occurrence), counts, lengths and the positional table must be identical.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp

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
        monkeypatch.setattr(collection._Pieces, "BLOCK", 256)  # the pieces span many blocks
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


@pytest.mark.parametrize("block", [8, 64, 1 << 22])
def test_pieces_end_to_end_equal_concatenating_them(block, monkeypatch):
    # pieces of several types, some empty, some larger than a block; each one 8-byte aligned
    monkeypatch.setattr(collection._Pieces, "BLOCK", block)
    rng = np.random.default_rng(3)
    pieces = collection._Pieces()
    want = []
    for k in range(60):
        dtype = [np.uint8, np.uint16, np.int32, np.int64][k % 4]
        values = rng.integers(0, 200, size=int(rng.integers(0, 40)))
        pieces.append(values, dtype)
        want.append(values.astype(dtype))
    assert all(p.ctypes.data % 8 == 0 for p in pieces._pieces if len(p))
    got = pieces.concat(np.int64)
    assert got.dtype == np.int64 and np.array_equal(got, np.concatenate(want))
    assert pieces._pieces == [] and pieces._block is None


def test_build_without_positions_and_duplicate_ids():
    docs = _docs(4, 10)
    index = CollectionIndex.build(docs, Analyzer(), positions=False)
    assert index.token_slots is None
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


def _wide_docs(n_docs: int, width: int = 100) -> list[Document]:
    """Document ``i``: ``width`` words of its own, each followed by ``w0`` (``width + 1``
    distinct terms); 700 documents pass 65,536 terms."""
    return [
        Document(f"d{i}", " ".join(f"w{i * width + j} w0" for j in range(width)))
        for i in range(n_docs)
    ]


def _reference_slots(index: CollectionIndex, docs: list[Document], an: Analyzer) -> list:
    """Each document's tokens as the place of their term among its sorted distinct terms."""
    out = []
    for d in docs:
        ids = [index.vocab[t] for t in an.analyze(d.text)]
        place = {t: k for k, t in enumerate(sorted(set(ids)))}
        out.append([place[t] for t in ids])
    return out


@pytest.mark.parametrize("n_docs", [10, 700], ids=["vocabulary-below-65536", "above-65536"])
def test_positional_index_holds_row_slots_whatever_the_vocabulary(n_docs, monkeypatch):
    # chunks of 1,000 tokens: documents span chunks, new terms keep coming; the slots (the
    # token's place in its row) stay one byte however large the vocabulary
    monkeypatch.setattr(collection, "_CHUNK_TOKENS", 1000)
    raw = Analyzer(stemmer=None, stopwords=False)
    docs = _wide_docs(n_docs)
    index = CollectionIndex.build(docs, raw)
    assert (index.n_terms > 1 << 16) == (n_docs == 700)
    assert index.token_slots is not None
    slots, offsets = index.token_slots
    assert slots.dtype == np.uint8
    want = _reference_slots(index, docs, raw)
    assert np.array_equal(slots, np.concatenate(want))
    assert np.array_equal(offsets, np.concatenate(([0], np.cumsum([len(w) for w in want]))))
    rows = [0, 5, index.n_docs - 1, 5]
    for r in rows:
        got = index.token_ids(r)
        assert got.dtype == np.int32
        assert got.tolist() == [index.vocab[t] for t in raw.analyze(docs[r].text)]
    ids, lens = index.gather_token_ids(np.asarray(rows))
    assert ids.dtype == np.int64 and lens.tolist() == [200] * 4
    assert ids.tolist() == [i for r in rows for i in index.token_ids(r).tolist()]


@pytest.mark.parametrize(
    ("width", "dtype"), [(255, np.uint8), (256, np.uint16), (70_000, np.uint32)]
)
def test_positional_index_widens_with_the_most_distinct_terms_of_a_document(width, dtype):
    # a document with ``width + 1`` distinct terms among short ones (one of them last, in its
    # own chunk): the slots take the type that document needs
    raw = Analyzer(stemmer=None, stopwords=False)
    wide = Document("wide", _wide_docs(2, width)[1].text)
    docs = [*_wide_docs(3, 5), wide, Document("last", "w1 w0 w1")]
    index = CollectionIndex.build(docs, raw)
    assert index.token_slots is not None and index.token_slots[0].dtype == dtype
    assert np.array_equal(index.token_slots[0], np.concatenate(_reference_slots(index, docs, raw)))
    for r, d in enumerate(docs):
        assert index.token_ids(r).tolist() == [index.vocab[t] for t in raw.analyze(d.text)]


def _as_format_1(path, index: CollectionIndex, dtype) -> None:
    """Rewrite a saved index as format 1 wrote it: term ids in ``token_ids.npy``."""
    meta = json.loads((path / "meta.json").read_text())
    meta["format_version"] = 1
    (path / "meta.json").write_text(json.dumps(meta))
    (path / "token_slots.npy").unlink()
    ids = np.concatenate([index.token_ids(r) for r in range(index.n_docs)])
    np.save(path / "token_ids.npy", ids.astype(dtype))


def test_positional_index_round_trips_and_format_1_indexes_still_load(tmp_path, monkeypatch):
    raw = Analyzer(stemmer=None, stopwords=False)
    short = [Document(f"s{k}", d.text) for k, d in enumerate(_docs(5, 40))]
    docs = [*_wide_docs(20), *short, Document("empty", "")]
    index = CollectionIndex.build(docs, raw)
    path = index.save(tmp_path / "idx")
    assert json.loads((path / "meta.json").read_text())["format_version"] == 2
    loaded = CollectionIndex.load(path)
    assert loaded.token_slots is not None and index.token_slots is not None
    for got, want in zip(loaded.token_slots, index.token_slots, strict=True):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    # format 1 (term ids, as uint16, uint32 or int32) loads as slots, a step of rows at a time
    real = collection._slots_from_term_ids
    monkeypatch.setattr(collection, "_slots_from_term_ids", lambda *a: real(*a, rows_per_step=7))
    for dtype in (np.uint16, np.uint32, np.int32):
        _as_format_1(path, index, dtype)
        old = CollectionIndex.load(path)
        assert old.token_slots is not None
        assert old.token_slots[0].dtype == np.uint8
        assert np.array_equal(old.token_slots[0], index.token_slots[0])
        assert np.array_equal(old.token_slots[1], index.token_slots[1])
        index.save(path)
    for r, d in enumerate(docs):
        assert loaded.token_ids(r).tolist() == [index.vocab[t] for t in raw.analyze(d.text)]


def test_format_1_positional_index_that_does_not_match_its_counts_is_refused(tmp_path):
    raw = Analyzer(stemmer=None, stopwords=False)
    index = CollectionIndex.build(_wide_docs(4, 10), raw)
    path = index.save(tmp_path / "idx")
    _as_format_1(path, index, np.int32)
    ids = np.load(path / "token_ids.npy")
    ids[25] = index.vocab["w35"]  # row 1 holds w10..w19 and w0
    np.save(path / "token_ids.npy", ids)
    with pytest.raises(ValueError, match=r"row 1: term id \d+ is not in its row\); rebuild"):
        CollectionIndex.load(path)
    meta = json.loads((path / "meta.json").read_text())
    meta["format_version"] = 3
    (path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="format 3 but this version reads formats 1, 2; upgrade"):
        CollectionIndex.load(path)
    meta["format_version"] = 0
    (path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="format 0 but this version reads formats 1, 2; rebuild"):
        CollectionIndex.load(path)


def test_slots_from_term_ids_reads_rows_in_any_order():
    # rows whose terms are not sorted (an index built elsewhere): slots follow the stored order
    tf = sp.csr_matrix(
        (np.ones(5, dtype=np.int32), np.array([7, 2, 5, 3, 1]), np.array([0, 3, 3, 5])),
        shape=(3, 8),
    )
    ids = np.array([2, 5, 7, 7, 3, 1, 1], dtype=np.int32)
    offsets = np.array([0, 4, 4, 7])
    for step in (1, 2, 8):
        got = collection._slots_from_term_ids(tf, ids, offsets, rows_per_step=step)
        assert got.dtype == np.uint8 and got.tolist() == [1, 2, 0, 0, 0, 1, 1]

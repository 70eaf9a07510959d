"""Vocabulary and word-embedding initialisation."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.models.embeddings import make_embeddings, train_word2vec
from axiomatic.models.vocab import OOV_ID, PAD_ID, Vocabulary
from axiomatic.text.analyzer import Analyzer

TEXTS = [
    "The cat sat on the mat.",
    "Dogs chase cats in the garden",
    "the cat and the dog",
    "Neural ranking models for retrieval",
]


def test_vocabulary_orders_by_frequency_then_alphabet():
    vocab = Vocabulary.build(TEXTS)
    assert vocab.tokens[:2] == ["<pad>", "<oov>"]
    assert vocab.tokens[2] == "the"  # 5 occurrences
    assert vocab.tokens[3] == "cat"  # 2 occurrences; "cat" < other 1-count words
    assert vocab.ids(["the", "unseenword"]) == [vocab.index["the"], OOV_ID]


def test_vocabulary_max_size_and_min_count():
    vocab = Vocabulary.build(TEXTS, max_size=3)
    assert len(vocab) == 5
    vocab2 = Vocabulary.build(TEXTS, min_count=2)
    assert set(vocab2.tokens[2:]) == {"the", "cat"}
    with pytest.raises(ValueError, match="min_count"):
        Vocabulary.build(TEXTS, min_count=0)


def test_encode_batch_pads_truncates_and_fixes_length():
    vocab = Vocabulary.build(TEXTS)
    ids = vocab.encode_batch(["the cat sat on the mat", "cat", ""], max_len=4)
    assert ids.shape == (3, 4)
    assert ids[1, 1:].tolist() == [PAD_ID] * 3
    assert ids[2].tolist() == [PAD_ID] * 4
    assert vocab.encode_batch(["cat"], max_len=10, fixed=True).shape == (1, 10)
    assert vocab.encode_batch(["cat"], max_len=10, min_len=3).shape == (1, 3)


def test_vocabulary_uses_the_configured_analyzer_and_round_trips(tmp_path):
    stemmed = Vocabulary.build(TEXTS, analyzer=Analyzer(stopwords=True, stemmer="snowball"))
    assert "the" not in stemmed and "cat" in stemmed and "cats" not in stemmed
    stemmed.save(tmp_path / "v.json")
    again = Vocabulary.load(tmp_path / "v.json")
    assert again == stemmed
    assert again.encode("Cats chasing") == stemmed.encode("Cats chasing")


def test_vocabulary_load_errors_name_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        Vocabulary.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="tokens"):
        Vocabulary.load(tmp_path / "bad.json")


def test_word2vec_is_seeded_and_learns_cooccurrence():
    texts = ["apple banana fruit salad"] * 30 + ["engine motor car wheel"] * 30
    vocab = Vocabulary.build(texts)
    opts = {"dim": 16, "epochs": 30, "sample": 0.0, "sg": True}
    a = train_word2vec(texts, vocab, seed=7, **opts)
    b = train_word2vec(texts, vocab, seed=7, **opts)
    c = train_word2vec(texts, vocab, seed=8, **opts)
    assert a.shape == (len(vocab), 16)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert not a[:2].any()  # padding and OOV rows are zero

    def cos(x: str, y: str) -> float:
        u, v = a[vocab.index[x]], a[vocab.index[y]]
        return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))

    assert cos("apple", "banana") > cos("apple", "engine")


def test_make_embeddings_validates_source_and_shape():
    vocab = Vocabulary.build(TEXTS)
    with pytest.raises(ValueError, match="word2vec"):
        make_embeddings("word2vek", vocab, 8)
    with pytest.raises(ValueError, match="texts"):
        make_embeddings("word2vec", vocab, 8)
    with pytest.raises(ValueError, match="expected"):
        make_embeddings(np.zeros((3, 8)), vocab, 8)
    r1 = make_embeddings("random", vocab, 8, seed=1)
    np.testing.assert_array_equal(r1, make_embeddings("random", vocab, 8, seed=1))


def test_suggest_num_threads_backs_off_under_load(monkeypatch):
    import os

    from axiomatic.models.base import suggest_num_threads

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (6.0, 6.0, 6.0))
    assert suggest_num_threads() == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # only ourselves
    assert suggest_num_threads() == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    assert suggest_num_threads(reserve_self=False) == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (1.6, 1.0, 1.0))
    assert suggest_num_threads(reserve_self=False) == 1

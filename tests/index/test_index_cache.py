"""Collection index (statistics, persistence) and the dataset index cache."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.index import cache as cache_mod
from axiomatic.index.cache import cache_key, clear_memory_cache, dataset_index
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

DOCS = [
    Document("a", "The cat sat on the mat; the cat purred."),
    Document("b", "Dogs chase cats."),
    Document("c", "A quiet mat."),
]


def _dataset(name: str = "toy", docs=DOCS) -> Dataset:
    return Dataset(name, {"q": Query("q", "cat")}, {d.doc_id: d for d in docs})


def test_statistics_agree_with_counting():
    an = Analyzer(stopwords=False, stemmer=None)
    ix = CollectionIndex.build(DOCS, an)
    tokens = [an.analyze(d.text) for d in DOCS]
    assert ix.doc_len.tolist() == [len(t) for t in tokens]
    cat = ix.vocab["cat"]
    assert ix.df[cat] == 1 and ix.cf[cat] == 2
    assert ix.counts(ix.rows(["b", "a"]), ix.term_ids(["cat", "mat", "zzz"])).tolist() == [
        [0, 0, 0],
        [2, 1, 0],
    ]
    assert ix.total_terms == sum(map(len, tokens))
    with pytest.raises(KeyError, match="not in the index"):
        ix.rows(["nope"])


def test_analyze_texts_uses_index_vocabulary():
    ix = CollectionIndex.build(DOCS, Analyzer(stopwords=False, stemmer=None))
    out = ix.analyze_texts(["cat cat unicorn", ""])
    assert out.doc_len.tolist() == [3, 0]  # unknown tokens still count towards the length
    assert out.tf[0, ix.vocab["cat"]] == 2 and out.tf.shape == (2, ix.n_terms)


def test_duplicate_ids_are_rejected():
    with pytest.raises(ValueError, match="duplicate document id 'a'"):
        CollectionIndex.build([DOCS[0], DOCS[0]], Analyzer())


def test_save_load_roundtrip(tmp_path):
    ix = CollectionIndex.build(DOCS, Analyzer())
    ix.save(tmp_path / "ix")
    back = CollectionIndex.load(tmp_path / "ix")
    assert back.doc_ids == ix.doc_ids and back.terms == ix.terms
    assert (back.tf != ix.tf).nnz == 0
    np.testing.assert_array_equal(back.df, ix.df)
    assert back.analyzer.config_hash == ix.analyzer.config_hash
    assert back.text("b") == DOCS[1].text
    with pytest.raises(FileNotFoundError, match="not an axiomatic index"):
        CollectionIndex.load(tmp_path)


def test_dataset_index_is_cached_in_memory_and_on_disk(tmp_path, monkeypatch):
    clear_memory_cache()
    calls = []
    real_build = CollectionIndex.build

    def counting_build(*args, **kwargs):
        calls.append(1)
        return real_build(*args, **kwargs)

    monkeypatch.setattr(cache_mod.CollectionIndex, "build", counting_build)
    ds = _dataset()
    ix1 = dataset_index(ds, cache_dir=tmp_path)
    assert dataset_index(ds, cache_dir=tmp_path) is ix1  # in-process cache
    clear_memory_cache()
    ix2 = dataset_index(ds, cache_dir=tmp_path)  # from disk, not rebuilt
    assert len(calls) == 1
    assert ix2 is not ix1 and ix2.doc_ids == ix1.doc_ids
    # the default analyzer is that of the dataset's document language
    assert ix1.analyzer.config_hash == Analyzer(language="en").config_hash
    # another analyzer is another index
    other = dataset_index(ds, analyzer=Analyzer(stemmer=None), cache_dir=tmp_path)
    assert other.analyzer.stemmer is None and len(calls) == 2
    assert len(list((tmp_path / "index").iterdir())) == 2


def test_cache_key_depends_on_documents_and_analyzer():
    an = Analyzer()
    base = cache_key(_dataset(), an)
    assert base.startswith("toy-3-")
    assert cache_key(_dataset("toy"), Analyzer(stemmer=None)) != base
    renamed = [Document("z", "x"), *DOCS[1:]]
    assert cache_key(_dataset("toy", renamed), an) != base
    assert "/" not in cache_key(_dataset("scifact/test"), an)


def test_corrupt_cache_is_rebuilt_with_warning(tmp_path):
    clear_memory_cache()
    ds = _dataset()
    ix = dataset_index(ds, cache_dir=tmp_path)
    folder = tmp_path / "index" / cache_key(ds, ix.analyzer)
    (folder / "tf.npz").write_bytes(b"garbage")
    clear_memory_cache()
    with pytest.warns(RuntimeWarning, match="rebuilding"):
        again = dataset_index(ds, cache_dir=tmp_path)
    assert again.doc_ids == ix.doc_ids


def test_cache_dir_env_and_disable(tmp_path, monkeypatch):
    clear_memory_cache()
    monkeypatch.setenv("AXIOMATIC_CACHE", str(tmp_path / "env"))
    dataset_index(_dataset("envtest"))
    assert (tmp_path / "env" / "index").is_dir()
    clear_memory_cache()
    dataset_index(_dataset("nodisk"), cache_dir=False)
    assert not any(p.name.startswith("nodisk") for p in (tmp_path / "env" / "index").iterdir())
    with pytest.raises(TypeError, match="axiomatic Dataset"):
        dataset_index({"a": DOCS[0]})  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ stale keys
def test_changed_text_with_same_ids_gives_a_fresh_index(tmp_path):
    """Same ids, same count, one text changed: the cached index must not be served."""
    clear_memory_cache()
    an = Analyzer(stopwords=False, stemmer=None)
    old = dataset_index(_dataset(), analyzer=an, cache_dir=tmp_path)
    assert old.cf[old.vocab["cat"]] == 2
    edited = [Document("a", "no felines here at all"), *DOCS[1:]]
    clear_memory_cache()  # the disk cache alone must not serve the old counts either
    new = dataset_index(_dataset(docs=edited), analyzer=an, cache_dir=tmp_path)
    assert "cat" not in new.vocab and new.doc_len.tolist()[0] == 5
    assert new.text("a") == "no felines here at all"
    # and without clearing the in-process cache
    again = dataset_index(_dataset(), analyzer=an, cache_dir=tmp_path)
    assert again.cf[again.vocab["cat"]] == 2
    assert cache_key(_dataset(), an) != cache_key(_dataset(docs=edited), an)


def test_cache_key_covers_stopword_list_contents(monkeypatch):
    """``stopwords=True`` names a packaged list; a changed list is another analyzer."""
    from axiomatic.text import analyzer as analyzer_mod

    before = Analyzer(stopwords=True)
    key_before = cache_key(_dataset(), before)
    real = analyzer_mod.load_stopwords
    monkeypatch.setattr(analyzer_mod, "load_stopwords", lambda lang="en": real(lang) | {"cat"})
    after = Analyzer(stopwords=True)
    assert after.config() == before.config()  # same settings ...
    assert after.config_hash != before.config_hash  # ... but other terms
    assert cache_key(_dataset(), after) != key_before


def test_fingerprint_covers_stemmer_pattern_and_normalization():
    base = Analyzer()
    others = [
        Analyzer(stemmer="porter"),
        Analyzer(stemmer=None),
        Analyzer(token_pattern=r"\S+"),
        Analyzer(lowercase=False),
        Analyzer(language="de"),
        Analyzer(stopwords=frozenset({"the"})),
    ]
    hashes = {a.config_hash for a in others}
    assert base.config_hash not in hashes and len(hashes) == len(others)
    fp = base.fingerprint()
    assert fp["stemmer"]["algorithm"] == "english" and fp["normalization"] == "NFKC+lower"
    assert fp["stopwords"]["count"] == len(base.stopword_set) > 0
    assert Analyzer().config_hash == base.config_hash  # stable


def test_cache_key_is_versioned_and_order_sensitive():
    an = Analyzer()
    key = cache_key(_dataset(), an)
    assert key.endswith(f"-v{cache_mod.CACHE_FORMAT}")
    swapped = [DOCS[1], DOCS[0], DOCS[2]]  # row order is part of the index
    assert cache_key(_dataset(docs=swapped), an) != key
    # a text moved from one document to another is another collection
    moved = [Document("a", DOCS[1].text), Document("b", DOCS[0].text), DOCS[2]]
    assert cache_key(_dataset(docs=moved), an) != key


def test_explicit_index_store(tmp_path):
    from axiomatic.index.cache import DEFAULT_INDEX_STORE, IndexStore

    clear_memory_cache()
    store = IndexStore(max_size=1)
    ix = dataset_index(_dataset(), cache_dir=False, store=store)
    assert len(store) == 1 and len(DEFAULT_INDEX_STORE) == 0
    assert dataset_index(_dataset(), cache_dir=False, store=store) is ix
    dataset_index(_dataset("other", DOCS[:2]), cache_dir=False, store=store)
    assert len(store) == 1  # LRU bound
    store.clear()
    assert len(store) == 0
    with pytest.raises(ValueError, match="max_size"):
        IndexStore(max_size=0)

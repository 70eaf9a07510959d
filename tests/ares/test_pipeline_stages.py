"""ares/pipeline.py (ARES stages 1-3) against hand references: the collections' positives and
fingerprint, the cache key and what prepare() keeps on disk, the real queries, the setting rows
and the RANK symmetry check (a mutation campaign's survivors)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from axiomatic.ares import pipeline as pl
from axiomatic.ares.sampling import SAMPLING_VERSION
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer


def _coll() -> pl.AresCollection:
    docs = {
        "d1": Document("d1", "apple banana cherry apple"),
        "d2": Document("d2", "banana date elder"),
        "d3": Document("d3", "fig grape apple"),
    }
    return pl.AresCollection("tiny", docs, [("q1", "apple pie", "d1"), ("q2", "date", "d2")])


def _vectors(n_terms: int) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n_terms, 4))


def test_fingerprint_is_the_sha1_of_sorted_documents_then_positives() -> None:
    c = _coll()
    h = hashlib.sha1()
    for d in ("d1", "d2", "d3"):
        h.update(d.encode() + b"\0" + c.documents[d].text.encode() + b"\1")
    for q, text, d in c.positives:
        h.update(f"{q}\0{text}\0{d}\1".encode())
    assert c.fingerprint() == h.hexdigest()[:16]
    other = pl.AresCollection("tiny", dict(reversed(list(c.documents.items()))), c.positives)
    assert other.fingerprint() == c.fingerprint()  # document order does not matter
    moved = pl.AresCollection("tiny", c.documents, [("q1", "apple pie", "d3"), c.positives[1]])
    assert moved.fingerprint() != c.fingerprint()


def test_cache_key_is_the_sha1_of_every_input_and_changes_with_each() -> None:
    c, an = _coll(), Analyzer()
    key = pl.cache_key(c, an, 0, 10, True, 3)
    fields = [c.fingerprint(), an.config_hash, 0, 10, SAMPLING_VERSION, 3, True]
    assert key == hashlib.sha1(json.dumps(fields).encode()).hexdigest()[:12]
    others = {
        pl.cache_key(c, an, 1, 10, True, 3),
        pl.cache_key(c, an, 0, 11, True, 3),
        pl.cache_key(c, an, 0, 10, False, 3),
        pl.cache_key(c, an, 0, 10, True, 2),
        pl.cache_key(c, Analyzer(stemmer=None), 0, 10, True, 3),
        pl.cache_key(pl.AresCollection("tiny", c.documents, c.positives[:1]), an, 0, 10, True, 3),
    }
    assert key not in others and len(others) == 6


def test_positives_keep_judged_relevant_documents_of_known_queries_sorted() -> None:
    ds = Dataset(
        name="t",
        queries={"b": Query("b", "bee"), "a": Query("a", "ay")},
        documents={},
        qrels={"b": {"d2": 1, "d1": 2, "d9": 3}, "a": {"d1": 0, "d2": 1}, "zz": {"d1": 1}},
        rel_threshold=1,
    )
    docs = {"d1": Document("d1", "x"), "d2": Document("d2", "y")}
    # 'zz' has no query, d9 is not in the collection, a/d1 is below the threshold
    assert pl._positives(ds, docs) == [("a", "ay", "d2"), ("b", "bee", "d1"), ("b", "bee", "d2")]
    ds.rel_threshold = 2
    assert pl._positives(ds, docs) == [("b", "bee", "d1")]


def test_demo_collection_is_its_train_split() -> None:
    from axiomatic.data.catalog import load_dataset

    c = pl.load_collection("demo")
    ds = load_dataset("demo/train")
    assert c.name == "demo" and set(c.documents) == set(ds.documents)
    assert c.positives == pl._positives(ds, dict(ds.documents))
    with pytest.raises(ValueError) as e:
        pl.load_collection("dem")
    assert str(e.value) == (
        "unknown ARES collection 'dem' (did you mean 'demo'?); "
        "expected one of msmarco-20k, scifact, demo"
    )


def test_real_queries_are_term_sets_with_their_documents_rows() -> None:
    c = _coll()
    idx = CollectionIndex.build(c.documents.values(), Analyzer())
    doc, offsets, ids = pl._real_queries(
        idx, [("q", "apple apple zzzq date", "d2"), ("r", "fig", "d3")]
    )
    assert doc.dtype == offsets.dtype == ids.dtype == np.int64
    assert doc.tolist() == [idx.doc_index["d2"], idx.doc_index["d3"]]
    assert offsets.tolist() == [0, 3, 4]
    v = idx.vocab
    assert ids.tolist() == [v["appl"], -1, v["date"], v["fig"]]
    empty = pl._real_queries(idx, [])
    assert [a.tolist() for a in empty] == [[], [0], []]


def test_prepare_caches_every_stage_and_reads_them_back(tmp_path) -> None:
    c = _coll()
    idx = CollectionIndex.build(c.documents.values(), Analyzer())
    tv = _vectors(idx.n_terms)
    p = pl.prepare(c, cache_dir=tmp_path, seed=3, n_queries=4, axioms="Q-RANK,Q-STM-2",
                   term_vectors=tv)  # fmt: skip
    folder = tmp_path / "tiny" / pl.cache_key(c, Analyzer(), 3, 4, False, pl.SCORES_VERSION)
    for name in ("index/meta.json", "pseudo_queries.parquet", "query_scores.parquet"):
        assert (folder / name).is_file(), name
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report == {"sampling": p.pseudo.report.to_dict(), "n_real": 2}
    assert p.n_pseudo == len(p.pseudo) and p.real_doc.tolist() == [
        p.index.doc_index["d1"], p.index.doc_index["d2"]
    ]  # fmt: skip
    assert p.real_ids.tolist() == [p.n_pseudo, p.n_pseudo + 1]
    assert set(p.timings) == {"index_s", "sampling_s", "scores_s"}
    # Q-STM-2 needs Q-STM-1: both cached, with the requested Q-RANK
    import pyarrow.parquet as pq

    cols = set(pq.read_table(folder / "query_scores.parquet").column_names)
    assert {"Q-STM-1"} < cols and any(c.startswith("Q-RANK") for c in cols)
    # the second call reads every stage back: the same queries and scores, nothing rewritten
    stamp = (folder / "query_scores.parquet").stat().st_mtime_ns
    q = pl.prepare(c, cache_dir=tmp_path, seed=3, n_queries=4, axioms="Q-RANK,Q-STM-2",
                   term_vectors=tv)  # fmt: skip
    assert (folder / "query_scores.parquet").stat().st_mtime_ns == stamp
    np.testing.assert_array_equal(q.pseudo.term_ids, p.pseudo.term_ids)
    for name in cols:
        np.testing.assert_array_equal(q.ctx.scores(name), p.ctx.scores(name))
    # no cache: nothing written, the same result
    r = pl.prepare(c, seed=3, n_queries=4, axioms="Q-RANK,Q-STM-2", term_vectors=tv)
    np.testing.assert_array_equal(r.pseudo.term_ids, p.pseudo.term_ids)


def test_setting_rows_and_the_rank_symmetry_check(tmp_path) -> None:
    c = _coll()
    idx = CollectionIndex.build(c.documents.values(), Analyzer())
    p = pl.prepare(c, seed=0, n_queries=6, term_vectors=_vectors(idx.n_terms))
    X, y, info = pl.setting_features(p, "I", axioms="Q-RANK,Q-REG", seed=1)
    i, j, y2 = pl.setting_pairs(p, "I", seed=1)
    np.testing.assert_array_equal(y, y2)
    from axiomatic.axioms.query_pairs import preference_features

    np.testing.assert_array_equal(X, preference_features(p.ctx, i, j, "Q-RANK,Q-REG"))
    assert info == {"n_positives": 2, "n_pairs": len(y)}
    lc = pl.length_control(p, "I", seed=1)
    assert lc.dtype == np.float64 and lc.tolist() == (p.ctx.q_len[i] - p.ctx.q_len[j]).tolist()
    rank = p.ctx.scores("Q-RANK")
    n = p.n_pseudo
    shares = pl.rank_first_shares(p)
    assert shares == {
        "real_first": float(np.mean(rank[n:] == 1)),
        "pseudo_first": float(np.mean(rank[:n] == 1)),
        "n_real": 2,
        "n_pseudo": n,
    }
    none = pl.Prepared(c, p.index, p.pseudo, p.ctx, p.ctx.n, np.zeros(0, dtype=np.int64))
    s = pl.rank_first_shares(none)
    assert np.isnan(s["real_first"]) and s["n_real"] == 0


def test_empty_inputs_keep_their_dtypes_and_give_nan_shares_without_warnings() -> None:
    import warnings

    c = _coll()
    idx = CollectionIndex.build(c.documents.values(), Analyzer())
    doc, offsets, ids = pl._real_queries(idx, [])
    assert doc.dtype == offsets.dtype == ids.dtype == np.int64
    p = pl.prepare(c, seed=0, n_queries=2, term_vectors=_vectors(idx.n_terms))
    no_real = pl.Prepared(c, p.index, p.pseudo, p.ctx, p.ctx.n, np.zeros(0, dtype=np.int64))
    no_pseudo = pl.Prepared(c, p.index, p.pseudo, p.ctx, 0, p.real_doc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mean of an empty slice
        a, b = pl.rank_first_shares(no_real), pl.rank_first_shares(no_pseudo)
    assert np.isnan(a["real_first"]) and a["n_real"] == 0 and a["n_pseudo"] == p.ctx.n
    assert np.isnan(b["pseudo_first"]) and b["n_pseudo"] == 0 and b["n_real"] == p.ctx.n


def test_scifact_and_msmarco_20k_are_built_as_documented() -> None:
    """scifact: the train split's documents and positives; msmarco-20k: the training positives
    (sorted ids) first, then the test queries' candidates, TREC DL 2019 and 2021 (each part in
    id order, skipping what is there) up to max_docs; positives only among the kept documents."""
    from axiomatic.data.catalog import load_dataset
    from shared_data import require_collection

    require_collection("scifact")
    sf = pl.load_collection("scifact")
    ds = load_dataset("scifact/train")
    assert sf.name == "scifact" and set(sf.documents) == set(ds.documents)
    assert sf.positives == pl._positives(ds, dict(ds.documents))

    require_collection("msmarco-passage-dev-bm25top20-graded")
    require_collection("msmarco-passage-trecdl")
    train = load_dataset("msmarco-dev-top20/train")
    every = load_dataset("msmarco-dev-top20").documents
    test = load_dataset("msmarco-dev-top20/test")
    pos = sorted({d for _q, _t, d in pl._positives(train, every)})
    parts = [sorted({d for q in test.queries for d in test.candidate_ids(q)})]
    parts += [sorted(load_dataset(f"trec-dl-{y}/union").documents) for y in (2019, 2021)]
    for max_docs in (5, len(pos) + 7, len(pos) + len(set(parts[0]) - set(pos)) + 3):
        want = list(pos[:max_docs])
        for part in parts:
            for d in part:
                if len(want) < max_docs and d not in want:
                    want.append(d)
        ms = pl.load_collection("msmarco-20k", max_docs=max_docs)
        assert ms.name == "msmarco-20k" and list(ms.documents) == want
        kept = set(want)
        assert ms.positives == [r for r in pl._positives(train, every) if r[2] in kept]
        assert all(ms.documents[d].text == (every.get(d) or ms.documents[d]).text for d in want)


def test_defaults_data_root_and_what_prepare_keeps(tmp_path, monkeypatch) -> None:
    from axiomatic.ares.sampling import sample_pseudo_queries
    from shared_data import require_collection

    # one suggestion only, also for a name close to two collections
    with pytest.raises(ValueError, match=r"\(did you mean 'demo'\?\); expected"):
        pl.load_collection("demo-20k")
    with pytest.raises(ValueError, match=r"^unknown ARES collection 'deXY'; expected"):
        pl.load_collection("deXY")  # similarity .5-.6: no suggestion at cutoff .6
    # data_root reaches every dataset a collection reads (the environment's root is wrong)
    root = require_collection("scifact").parent
    require_collection("msmarco-passage-trecdl")
    monkeypatch.setenv("AXIOMATIC_DATA", str(tmp_path / "nowhere"))
    assert len(pl.load_collection("scifact", data_root=root).documents) == 5183
    ms = pl.load_collection("msmarco-20k", data_root=root, max_docs=400)
    assert len(ms.documents) == 400
    monkeypatch.undo()
    # _positives skips a query it does not know and goes on
    ds = Dataset(name="t", queries={"b": Query("b", "bee")}, documents={},
                 qrels={"a": {"d1": 1}, "b": {"d1": 1}})  # fmt: skip
    assert pl._positives(ds, {"d1": Document("d1", "x")}) == [("b", "bee", "d1")]
    # prepare's defaults (seed 0, 10 queries per document), its sampling arguments, its record
    c = pl.load_collection("demo")
    idx = CollectionIndex.build(c.documents.values(), Analyzer())
    tv = _vectors(idx.n_terms)
    p = pl.prepare(c, term_vectors=tv, axioms="Q-RANK")
    assert p.collection is c and "Q-STM-1" not in p.ctx.__dict__.get("_score_cache", {})
    ref = sample_pseudo_queries(idx, n_queries=10, seed=0)
    np.testing.assert_array_equal(p.pseudo.term_ids, ref.term_ids)
    q = pl.prepare(c, seed=2, n_queries=3, term_vectors=tv, axioms="Q-RANK")
    ref = sample_pseudo_queries(idx, n_queries=3, seed=2)
    np.testing.assert_array_equal(q.pseudo.term_ids, ref.term_ids)
    np.testing.assert_array_equal(q.pseudo.doc, ref.doc)
    assert all(isinstance(v, float) and 0 <= v < 60 for v in p.timings.values())
    # a cached index is loaded, not rebuilt
    pl.prepare(c, cache_dir=tmp_path, term_vectors=tv, axioms="Q-RANK")
    monkeypatch.setattr(CollectionIndex, "build", None)
    again = pl.prepare(c, cache_dir=tmp_path, term_vectors=tv, axioms="Q-RANK")
    assert again.index.n_docs == idx.n_docs
    monkeypatch.undo()
    # the setting functions' default seed is 0 (and the seed matters on the demo collection)
    assert [a.tolist() for a in pl.setting_pairs(p, "I")] == [
        a.tolist() for a in pl.setting_pairs(p, "I", 0)
    ]
    i1, j1, _ = pl.setting_pairs(p, "I", 1)
    assert pl.setting_pairs(p, "I", 0)[1].tolist() != j1.tolist()
    X0, y0, _ = pl.setting_features(p, "I", "Q-RANK", 0)
    X, y, _ = pl.setting_features(p, "I", "Q-RANK")
    assert X.tolist() == X0.tolist() and y.tolist() == y0.tolist()
    from axiomatic.axioms.query_pairs import preference_features

    X1, _y1, _ = pl.setting_features(p, "I", "Q-RANK", seed=1)
    assert X1.tolist() == preference_features(p.ctx, i1, j1, "Q-RANK").tolist() != X0.tolist()
    lc = pl.length_control(p, "I", seed=1)
    assert lc.tolist() == (p.ctx.q_len[i1] - p.ctx.q_len[j1]).tolist()
    assert pl.length_control(p, "I").tolist() == pl.length_control(p, "I", 0).tolist()


def test_setting_pairs_pass_the_seed_to_both_draws() -> None:
    from axiomatic.ares.predictor import balanced_pairs, sample_negatives

    c = pl.load_collection("demo")
    idx = CollectionIndex.build(c.documents.values(), Analyzer())
    p = pl.prepare(c, term_vectors=_vectors(idx.n_terms), axioms="Q-RANK")
    rank = p.ctx.scores("Q-RANK")[: p.n_pseudo]
    for seed in (1, 5):
        kept, neg = sample_negatives("II", p.real_doc, p.pseudo.doc, rank, seed)
        want = balanced_pairs(p.real_ids[kept], neg, seed)
        got = pl.setting_pairs(p, "II", seed)
        assert [a.tolist() for a in got] == [a.tolist() for a in want]
    other = [a.tolist() for a in pl.setting_pairs(p, "II", 0)]
    assert [a.tolist() for a in pl.setting_pairs(p, "II", 1)] != other

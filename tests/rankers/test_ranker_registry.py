"""Ranker specs: safe parsing, suggestions, construction."""

from __future__ import annotations

import pytest
from rankers_helpers import tiny_dataset, tiny_index

from axiomatic.data.records import Query
from axiomatic.rankers.lexical import BM25Ranker, QLRanker, RM3Ranker, TFIDFRanker
from axiomatic.rankers.registry import (
    RankerSpecError,
    list_rankers,
    make_ranker,
    parse_ranker_spec,
)
from axiomatic.rankers.runfile import RunFileRanker
from axiomatic.text.analyzer import Analyzer


@pytest.mark.parametrize(
    ("spec", "kind", "params"),
    [
        ("bm25", "bm25", {}),
        ("bm25:k1=1.2,b=0.75", "bm25", {"k1": 1.2, "b": 0.75}),
        (" BM25 : k1 = 1 ", "bm25", {"k1": 1}),
        ("ql:mu=1000", "ql", {"mu": 1000}),
        (
            "rm3:fb_docs=10,fb_terms=10,orig_weight=0.5",
            "rm3",
            {"fb_docs": 10, "fb_terms": 10, "orig_weight": 0.5},
        ),
        ("tf-idf", "tfidf", {}),
        ("run:/data/a,b:c.trec", "run", {"path": "/data/a,b:c.trec"}),
        ("run:x.run,missing=min", "run", {"path": "x.run", "missing": "min"}),
        ("model:models/knrm", "model", {"path": "models/knrm"}),
    ],
)
def test_parse_specs(spec, kind, params):
    assert parse_ranker_spec(spec) == (kind, params)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bm52", "did you mean 'bm25'"),
        ("bm25:k=1", "did you mean 'k1'"),
        ("bm25:k1=__import__('os').getcwd()", "must be a literal"),
        ("bm25:k1=", "cannot parse"),
        ("bm25:0.9", "key=value"),
        ("bm25:k1='high'", "must be a number"),
        ("rm3:fb_docs=2.5", "must be an integer"),
        (
            "bm25:b=3",
            r"^parameter 'b' of ranker 'bm25' in spec 'bm25:b=3' must be a finite number >= 0 "
            r"and <= 1 \(got 3.0, a number\)$",
        ),
        ("bm25:variant=bm25plus", r"must be one of 'lucene', .* \(got 'bm25plus', a string; did"),
        ("ql:mu=0", r"parameter 'mu' of ranker 'ql' .* must be a finite number > 0 \(got 0.0"),
        ("run:", "needs a path"),
        ("", "non-empty"),
    ],
)
def test_bad_specs_fail_clearly(spec, message):
    ds = tiny_dataset()
    with pytest.raises((RankerSpecError, ValueError), match=message):
        make_ranker(spec, ds, index=tiny_index())


def test_make_lexical_rankers_share_the_index():
    ds, ix = tiny_dataset(), tiny_index()
    made = [
        make_ranker(s, ds, index=ix) for s in ("bm25:k1=1.2", "ql:mu=10", "rm3:fb_docs=2", "tfidf")
    ]
    assert [type(r) for r in made] == [BM25Ranker, QLRanker, RM3Ranker, TFIDFRanker]
    assert made[0].k1 == 1.2 and isinstance(made[1].mu, float)
    assert all(r.index is ix for r in made)
    assert made[0].score(Query("q", "apple"), list(ds.documents.values())).max() > 0


def test_make_ranker_builds_cached_index(tmp_path, monkeypatch):
    monkeypatch.setenv("AXIOMATIC_CACHE", str(tmp_path))
    ds = tiny_dataset()
    r = make_ranker("bm25", ds, analyzer=Analyzer(stopwords=False, stemmer=None))
    assert r.index.n_docs == len(ds.documents)
    assert any((tmp_path / "index").iterdir())


def test_analyzer_mismatch_is_reported():
    with pytest.raises(ValueError, match="differs from the index"):
        make_ranker("bm25", tiny_dataset(), index=tiny_index(), analyzer=Analyzer())


def test_run_and_model_specs(tmp_path):
    ds = tiny_dataset()
    path = tmp_path / "a.run"
    path.write_text("q1 Q0 d1 1 2.0 t\n", encoding="utf-8")
    r = make_ranker(f"run:{path},missing=min", ds)
    assert isinstance(r, RunFileRanker) and r.missing == "min" and r.collection is ds.documents
    with pytest.raises(FileNotFoundError, match="does not exist"):
        make_ranker(f"run:{tmp_path / 'nope.run'}", ds)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        make_ranker(f"model:{tmp_path / 'nope'}", ds)


def test_list_rankers_describes_parameters():
    infos = {i.name: i for i in list_rankers()}
    assert {"bm25", "ql", "rm3", "tfidf", "run", "model"} <= set(infos)
    assert infos["bm25"].params == {"k1": 0.9, "b": 0.4, "variant": "lucene", "delta": None}
    assert infos["rm3"].params["fb_terms"] == 10


def test_model_spec_uses_models_ranker_load_ranker(tmp_path, monkeypatch):
    import sys
    import types

    ds = tiny_dataset()
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    fake = types.ModuleType("axiomatic.models.ranker")
    monkeypatch.setitem(sys.modules, "axiomatic.models.ranker", fake)
    with pytest.raises(ImportError, match="no load_ranker"):
        make_ranker(f"model:{model_dir}", ds)
    loaded = []
    fake.load_ranker = lambda path: loaded.append(path) or "the-ranker"  # type: ignore[attr-defined]
    assert make_ranker(f"model:{model_dir}", ds) == "the-ranker"
    assert loaded == [str(model_dir)]

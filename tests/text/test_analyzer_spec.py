"""Analyzer specs (``--analyzer``): the thesis preset, key=value forms, round trips, errors."""

from __future__ import annotations

import pytest

from axiomatic.text.analyzer import (
    Analyzer,
    AnalyzerSpecError,
    default_analyzer,
    parse_analyzer,
)
from shared_data import require_collection


def test_thesis_preset_is_section_3_4_1() -> None:
    """Stemming (Snowball), no stopword removal, ASCII alphanumeric tokens, lowercased."""
    an = parse_analyzer("thesis")
    assert an.stemmer == "snowball" and an.stopwords is False and an.lowercase
    assert an.analyze("What is the foo_bar of Running dogs? Café") == [
        "what", "is", "the", "foo", "bar", "of", "run", "dog", "caf",
    ]  # fmt: skip
    assert parse_analyzer("default") == default_analyzer("en")
    assert an.preset == "thesis" and default_analyzer().preset == "default"


@pytest.mark.parametrize(
    "spec",
    [
        "thesis",
        "default",
        "stopwords=false,stemmer=porter",
        "thesis,stemmer=none",
        "thesis,language=de",
        "default,stopwords=('the','a'),lowercase=false",
        r"token_pattern='[^\W_]+',stopwords=FALSE",
    ],
)
def test_spec_round_trips(spec: str) -> None:
    an = parse_analyzer(spec)
    again = parse_analyzer(an.spec)
    assert again == an and again.config_hash == an.config_hash and again.spec == an.spec


def test_key_values_override_the_default_preset() -> None:
    an = parse_analyzer("stopwords=false,stemmer=porter")
    assert an == Analyzer(stopwords=False, stemmer="porter")
    assert parse_analyzer("thesis", language="de").language == "de"
    assert parse_analyzer("thesis,language=fr", language="de").language == "fr"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("thesys", "did you mean 'thesis'"),
        ("stopword=false", "did you mean 'stopwords'"),
        ("stemmer=krovetz", "unknown stemmer 'krovetz'"),
        ("lowercase=1", "lowercase must be true or false"),
        ("token_pattern='['", "not a valid regular expression"),
        ("stopwords=__import__('os')", "must be a literal"),
        ("thesis,porter", "key=value"),
        ("stemmer=porter,language=de", "English only"),
        ("stemmer=", "cannot parse"),
        ("", "non-empty"),
    ],
)
def test_bad_specs_fail_clearly(spec: str, message: str) -> None:
    with pytest.raises(AnalyzerSpecError, match=message):
        parse_analyzer(spec)


def _one_term_by_stopping(an: Analyzer, queries) -> list[str]:
    """Queries of several words that ``an`` reduces to at most one term."""
    plain = Analyzer(stopwords=False, stemmer=None, token_pattern=an.token_pattern)
    return [
        q.query_id
        for q in queries
        if len(plain.analyze(q.text)) > 1 and len(an.analyze(q.text)) <= 1
    ]


def test_thesis_analyzer_keeps_msmarco_queries_multi_term() -> None:
    """The thesis counts 3 one-term queries in 558k; stopword removal makes 33 of 600 here."""
    from axiomatic.data.catalog import load_dataset

    root = require_collection("msmarco-passage-dev-bm25top20-graded").parent
    ds = load_dataset("msmarco-dev-top20", root)
    queries = list(ds.iter_queries())
    assert _one_term_by_stopping(parse_analyzer("thesis"), queries) == []
    assert len(_one_term_by_stopping(parse_analyzer("default"), queries)) == 33


def test_thesis_analyzer_reproduces_the_reference_instance_counts() -> None:
    """With the thesis' processing and no length limit, the reference re-implementation
    mines 10,857 relaxed TFC1, 993 TFC2 and 305 M-TDC instances on msmarco-dev-top20/test."""
    from axiomatic.axioms import parse_axioms
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.mining import mine_query
    from axiomatic.index.cache import dataset_index

    root = require_collection("msmarco-passage-dev-bm25top20-graded").parent
    ds = load_dataset("msmarco-dev-top20/test", root)
    index = dataset_index(ds, analyzer=parse_analyzer("thesis"), cache_dir=False)
    axioms = parse_axioms(
        "TFC1(variant='relaxed', delta_rel=1.0),TFC2(variant='relaxed', delta_rel=1.0),"
        "M-TDC(variant='relaxed', delta_rel=1.0)"
    )
    counts = dict.fromkeys(("TFC1", "TFC2", "M-TDC"), 0)
    for qid, q in ds.queries.items():
        docs = [ds.documents[d] for d in ds.candidate_ids(qid) if d in ds.documents]
        for ax in axioms:
            res = mine_query(q, docs, index, [ax], ds.judged(qid), ds.split, None)
            counts[ax.name] += res.table.num_rows
    assert counts == {"TFC1": 10_857, "TFC2": 993, "M-TDC": 305}

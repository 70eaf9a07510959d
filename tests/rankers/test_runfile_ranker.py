"""Run-file ranker: scores from a TREC run, missing-document policies, artificial documents."""

from __future__ import annotations

import numpy as np
import pytest
from rankers_helpers import TINY_DOCS, tiny_dataset

from axiomatic.data.records import Document, Query
from axiomatic.rankers.base import Ranker, rerank
from axiomatic.rankers.runfile import ArtificialDocumentError, RunFileRanker

RUN = {"q1": {"d1": 3.5, "d4": 2.0, "d2": -1.0}, "q2": {"d6": 0.7}}


def test_scores_come_from_the_run():
    r = RunFileRanker(RUN, name="sys")
    assert isinstance(r, Ranker)
    s = r.score(Query("q1", "ignored"), [TINY_DOCS[3], TINY_DOCS[0]])
    np.testing.assert_array_equal(s, [2.0, 3.5])


def test_missing_error_names_query_and_document():
    r = RunFileRanker(RUN)
    with pytest.raises(KeyError, match=r"'d5'.*'q1'.*missing='min'"):
        r.score(Query("q1", ""), [TINY_DOCS[0], TINY_DOCS[4]])
    with pytest.raises(KeyError, match="no ranking for query 'q9'"):
        r.score(Query("q9", ""), [TINY_DOCS[0]])


def test_missing_min_ranks_absent_documents_last():
    r = RunFileRanker(RUN, missing="min")
    s = r.score(Query("q1", ""), [TINY_DOCS[4], TINY_DOCS[0], TINY_DOCS[1]])
    assert s[0] < s[2] < s[1]
    assert s[0] == pytest.approx(-2.0)
    assert np.all(r.score(Query("q9", ""), TINY_DOCS[:2]) == 0.0)


def test_bad_policy_gets_suggestion():
    with pytest.raises(ValueError, match="did you mean 'min'"):
        RunFileRanker(RUN, missing="mni").score(Query("q1", ""), [TINY_DOCS[0]])


def test_artificial_documents_are_rejected_when_collection_known():
    ds = tiny_dataset()
    r = RunFileRanker(RUN, missing="min", collection=ds.documents)
    with pytest.raises(ArtificialDocumentError, match="artificial"):
        r.score(Query("q1", ""), [Document("d1-dup", TINY_DOCS[0].text * 2)])
    with pytest.raises(ArtificialDocumentError, match="artificial"):
        r.score(Query("q1", ""), [Document("d1", "perturbed text")])
    assert r.can_score_artificial is False


def test_reads_trec_file_lazily_and_reranks(tmp_path):
    path = tmp_path / "sys.run"
    path.write_text(
        "q1 Q0 d1 1 3.5 sys\nq1 Q0 d4 2 2.0 sys\nq1 Q0 d2 3 -1.0 sys\nq2 Q0 d6 1 0.7 sys\n",
        encoding="utf-8",
    )
    r = RunFileRanker(path)
    assert r.name == "sys.run"
    ds = tiny_dataset()
    sub = ds.subset(["q1"])
    sub.candidates = {"q1": ["d2", "d1", "d4"]}
    run = rerank(r, sub)
    assert run == {"q1": {"d2": -1.0, "d1": 3.5, "d4": 2.0}}


def test_missing_file_is_a_clear_error(tmp_path):
    r = RunFileRanker(tmp_path / "nope.run")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        r.score(Query("q1", ""), [TINY_DOCS[0]])

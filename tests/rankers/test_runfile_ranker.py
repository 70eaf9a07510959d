"""Run-file ranker: scores from a TREC run, missing-document policies, artificial documents."""

from __future__ import annotations

import numpy as np
import pytest
from rankers_helpers import TINY_DOCS, tiny_dataset

from axiomatic.data.records import Document, Query
from axiomatic.rankers.base import Ranker, ranker_can_score_unseen, rerank
from axiomatic.rankers.runfile import ArtificialDocumentError, RunFileRanker

RUN = {"q1": {"d1": 3.5, "d4": 2.0, "d2": -1.0}, "q2": {"d6": 0.7}}


def test_scores_come_from_the_run():
    r = RunFileRanker(RUN, name="sys")
    assert isinstance(r, Ranker)
    s = r.score(Query("q1", "ignored"), [TINY_DOCS[3], TINY_DOCS[0]])
    np.testing.assert_array_equal(s, [2.0, 3.5])


def test_missing_error_names_query_and_document():
    r = RunFileRanker(RUN, missing="error")
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
    with pytest.raises(ValueError, match="'nan', 'error' or 'min'"):
        RunFileRanker(RUN, missing="skip").score(Query("q1", ""), [TINY_DOCS[0]])


def test_default_returns_nan_for_documents_it_does_not_have():
    """The contract of a ranker that cannot score unseen documents: NaN, not an exception."""
    ds = tiny_dataset()
    r = RunFileRanker(RUN, collection=ds.documents)
    assert r.missing == "nan"
    s = r.score(
        Query("q1", ""),
        [
            TINY_DOCS[0],  # in the run
            TINY_DOCS[4],  # real, not in the run for q1
            Document("d1-dup", TINY_DOCS[0].text * 2),  # artificial
            Document("d1", "perturbed text"),  # modified copy of a run document
        ],
    )
    assert s[0] == 3.5 and np.isnan(s[1:]).all()
    assert np.isnan(r.score(Query("q9", ""), TINY_DOCS[:2])).all()  # query not in the run


def test_rerank_refuses_nan_scores_with_a_clear_message():
    ds = tiny_dataset()
    sub = ds.subset(["q1"])
    sub.candidates = {"q1": ["d1", "d5"]}  # d5 is not in the run
    with pytest.raises(ValueError, match=r"NaN for 1 of 2 .*'d5'.*missing='min'"):
        rerank(RunFileRanker(RUN), sub)
    assert rerank(RunFileRanker(RUN, missing="min"), sub) == {"q1": {"d1": 3.5, "d5": -2.0}}


def test_capability_declaration_helper():
    class Plain:
        name = "plain"

        def score(self, query, documents):
            return np.zeros(len(documents))

    class Bad(Plain):
        can_score_unseen_documents = "no"

    assert isinstance(Plain(), Ranker)  # undeclared rankers are still rankers ...
    assert ranker_can_score_unseen(Plain()) is True  # ... that can score unseen documents
    with pytest.raises(TypeError, match="must be True or False"):
        ranker_can_score_unseen(Bad())


def test_artificial_documents_are_rejected_when_collection_known():
    ds = tiny_dataset()
    r = RunFileRanker(RUN, missing="min", collection=ds.documents)
    with pytest.raises(ArtificialDocumentError, match="artificial"):
        r.score(Query("q1", ""), [Document("d1-dup", TINY_DOCS[0].text * 2)])
    with pytest.raises(ArtificialDocumentError, match="artificial"):
        r.score(Query("q1", ""), [Document("d1", "perturbed text")])
    assert r.can_score_unseen_documents is False
    assert ranker_can_score_unseen(r) is False


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

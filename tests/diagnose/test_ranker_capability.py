"""Diagnosis reads a ranker's declared capability, never its exceptions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.relations import SKIP_ARTIFICIAL, SKIP_NO_SCORE
from axiomatic.diagnose.result import instance_frame
from axiomatic.rankers.runfile import RunFileRanker

DOCS = {
    "d1": Document("d1", "apple apple pie"),
    "d2": Document("d2", "apple pie cake"),
}
ART = {"d1-k2": Document("d1-k2", "apple apple pie apple apple pie")}


def _dataset() -> Dataset:
    return Dataset(
        name="toy",
        queries={"q1": Query("q1", "apple")},
        documents=DOCS,
        qrels={"q1": {"d1": 1, "d2": 0}},
        candidates={"q1": ["d1", "d2"]},
    )


def _instances():
    base = {"query_id": "q1", "variant": "relaxed", "doc_c": None, "split": "test"}
    return instance_frame(
        [
            base | {"axiom": "TFC1", "spec": "TFC1", "doc_a": "d1", "doc_b": "d2",
                    "relation": ">", "artificial": False},
            base | {"axiom": "LNC2", "spec": "LNC2", "doc_a": "d1-k2", "doc_b": "d1",
                    "relation": ">=", "artificial": True},
        ]
    )  # fmt: skip


class LongDocFailure:
    """A neural-style ranker that fails on long inputs (it declares nothing: it scores text)."""

    name = "fragile"

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        if any(len(d.text.split()) > 4 for d in documents):
            raise ValueError("input longer than the model's maximum length")
        return np.array([d.text.count("apple") for d in documents], dtype=float)


class NamedLikeARun(LongDocFailure):
    """Spelled like the old guesses (class name, attribute), but declares it scores text."""

    can_score_artificial = False
    can_score_unseen_documents = True


def test_value_error_of_a_text_ranker_propagates_instead_of_becoming_skips():
    with pytest.raises(ValueError, match="maximum length"):
        diagnose(_instances(), [LongDocFailure()], _dataset(), ART)


def test_old_spellings_and_class_names_are_not_capabilities():
    NamedLikeARun.__name__ = "RunFileRanker"
    with pytest.raises(ValueError, match="maximum length"):
        diagnose(_instances(), [NamedLikeARun()], _dataset(), ART)


def test_declared_run_ranker_skips_artificial_and_counts_missing():
    run = RunFileRanker({"q1": {"d1": 2.0}}, name="sys", collection=DOCS)
    diag = diagnose(_instances(), [run], _dataset(), ART)
    # d2 is absent from the run (NaN: no score); d1-k2 is artificial (never asked for)
    assert diag.outcomes["sys"].tolist() == [-1, -1]
    assert diag.skips["sys"] == {SKIP_NO_SCORE: 1, SKIP_ARTIFICIAL: 1}


def test_declared_run_ranker_errors_propagate_too():
    """missing='error' is the caller's choice: diagnosis does not swallow it."""
    run = RunFileRanker({"q1": {"d1": 2.0}}, name="sys", missing="error")
    with pytest.raises(KeyError, match="'d2' is not in the run"):
        diagnose(_instances(), [run], _dataset(), ART)

"""Diagnosing a neural ranker costs one forward pass per distinct input.

A diagnosis hands all queries' documents (real and LNC2's artificial duplicates) to the model in
one :func:`~axiomatic.rankers.base.score_lists` call: a bi-encoder encodes each distinct query
text and document text once, a cross-encoder scores each distinct (query text, document text)
pair once, across queries and axioms. The scores must be those of scoring every instance's
documents directly, pair by pair.

Each test below was checked by breaking the code it guards (see the test docstrings).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch

from axiomatic.data.demo import demo_dataset
from axiomatic.data.instances import read_instances
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.mining import mine
from axiomatic.index.cache import dataset_index
from axiomatic.models import NeuralRanker, build_model
from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.hf import HFBiEncoderRanker, HFCrossEncoderRanker
from axiomatic.models.hf_loader import minilm_path
from axiomatic.models.transformer import BiEncoder
from axiomatic.rankers.base import score_lists


@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> tuple[Dataset, pd.DataFrame, dict[str, Document]]:
    """Demo instances (TFC1, M-TDC, LNC2) of three queries whose candidates overlap, plus a
    query repeating q1 (its text, its candidates in reverse order): documents (and their LNC2
    duplicates) recur across queries and axioms, and so do a query text and its (query text,
    document) pairs."""
    demo = demo_dataset()
    keep = ("q1", "q2", "q10")  # q1 and q2 share coffee documents, q1 and q10 bread-tf3
    queries = {q: demo.queries[q] for q in keep} | {
        "again": Query("again", demo.queries["q1"].text)
    }
    candidates = {q: list(demo.candidate_ids(q)) for q in keep}
    candidates["again"] = candidates["q1"][::-1]
    qrels = {q: demo.qrels[q] for q in keep}
    ds = dataclasses.replace(demo, queries=queries, candidates=candidates, qrels=qrels)
    out = tmp_path_factory.mktemp("instances")
    index = dataset_index(ds, cache_dir=False)
    mine(ds, "TFC1,M-TDC,LNC2", out, index=index, progress=False)
    instances, artificial = read_instances(out)
    assert instances["artificial"].any()
    return ds, instances, artificial


@pytest.fixture(scope="module")
def bi_encoder() -> BiEncoder:
    return BiEncoder(max_length=32).eval()


@pytest.fixture(scope="module")
def cross_encoder() -> NeuralRankingModel:
    return build_model("cross-encoder", max_length=32, seed=0).eval()


@pytest.fixture(scope="module")
def cross_encoder_folder(tmp_path_factory) -> str:
    """A small random ``BertForSequenceClassification`` folder with MiniLM's tokenizer."""
    from transformers import BertConfig, BertForSequenceClassification

    from axiomatic.models.hf_loader import load_tokenizer

    folder = tmp_path_factory.mktemp("ce-folder")
    torch.manual_seed(0)
    tok = load_tokenizer()
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=4, intermediate_size=64, num_labels=1)  # fmt: skip
    BertForSequenceClassification(cfg).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return f"hf:{folder}"


KINDS = ["bi_encoder", "cross_encoder", "st_folder", "cross_encoder_folder"]
"""The packaged MiniLM models (through ``NeuralRanker``) and the folder rankers (``st:DIR``,
``cross-encoder:DIR``)."""


def _ranker(which: str, request: pytest.FixtureRequest, batch_size: int = 128) -> tuple:
    """``(ranker, scorer, encoder module)``: the scorer is the object whose ``embed_texts`` /
    ``score_pairs`` the diagnosis calls, the module the one whose forward passes it pays."""
    if which in ("bi_encoder", "cross_encoder"):
        model = request.getfixturevalue(which)
        ranker = NeuralRanker(model, name="dedup", batch_size=batch_size, bf16=False)
        return ranker, model, model.encoder
    if which == "st_folder":
        folder_ranker: Any = HFBiEncoderRanker(
            f"st:{minilm_path()}", name="dedup", batch_size=batch_size, max_length=32
        )
    else:
        folder_ranker = HFCrossEncoderRanker(
            request.getfixturevalue("cross_encoder_folder"),
            name="dedup",
            batch_size=batch_size,
            max_length=32,
        )
    return folder_ranker, folder_ranker, folder_ranker.components()[1]


def _slots(ds: Dataset, inst: pd.DataFrame, art: dict[str, Document]) -> list[tuple[str, str]]:
    """Distinct (query id, document id) of the instances, as the diagnosis indexes them."""
    out = set()
    for col in ("doc_a", "doc_b", "doc_c"):
        for q, d in zip(inst["query_id"], inst[col], strict=True):
            if isinstance(d, str):
                out.add((str(q), d))
    return sorted(out)


def _text(ds: Dataset, art: dict[str, Document], doc_id: str) -> str:
    return art[doc_id].text if doc_id in art else ds.documents[doc_id].text


class DirectPairs:
    """The reference: every document scored for its query on its own (one pair per model
    call, no batching, nothing shared): a bi-encoder's query and document vectors, a
    cross-encoder's pair score."""

    def __init__(self, model: Any, name: str = "direct") -> None:
        self._model = model  # not ``model``: that would take the neural path under test
        self.name = name
        self._memo: dict[tuple[str, str], float] = {}  # only to keep the test short

    def _one(self, query: str, doc: str) -> float:
        if (query, doc) not in self._memo:
            m = self._model
            if callable(getattr(m, "embed_texts", None)):
                q = m.embed_texts([query], 1, False, as_query=True)[0]
                s = m.score_embedded(q, m.embed_texts([doc], 1, False))[0]
            else:
                s = m.score_pairs([query], [doc], batch_size=1, bf16=False)[0]
            self._memo[(query, doc)] = float(s)
        return self._memo[(query, doc)]

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        return np.array([self._one(query.text, d.text) for d in documents])


@pytest.mark.parametrize("which", KINDS)
def test_deduplicated_diagnosis_equals_scoring_every_pair_directly(
    which: str, mined, request: pytest.FixtureRequest
) -> None:
    """One input per forward pass (batch size 1): the deduplicated, length-sorted path gives
    the reference's very numbers, so the same outcomes and margins; in batches of 128 the
    same up to float noise. Broken checks: scoring a document against another query's vector,
    or scattering sorted scores back in the wrong order, fails both comparisons."""
    ds, inst, art = mined
    slots = _slots(ds, inst, art)
    exact, scorer, _ = _ranker(which, request, batch_size=1)
    direct = DirectPairs(scorer)
    lists = [
        (ds.queries[q], [art.get(d) or ds.documents[d] for qq, d in slots if qq == q])
        for q in sorted({q for q, _ in slots})
    ]
    got = score_lists(exact, lists)
    want = [direct.score(q, docs) for q, docs in lists]
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)  # bit for bit

    diag = diagnose(inst, {"dedup": exact, "direct": direct}, ds, art, band=0.0)
    assert diag.outcomes["dedup"].equals(diag.outcomes["direct"])
    assert diag.margins is not None
    np.testing.assert_array_equal(diag.margins["dedup"], diag.margins["direct"])

    batched = _ranker(which, request)[0]  # SCORE_BATCH_SIZE
    for g, w in zip(score_lists(batched, lists), want, strict=True):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6)


@pytest.mark.parametrize("which", KINDS)
def test_diagnosis_encodes_each_distinct_input_once(
    which: str, mined, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The encoder's forward passes see exactly one row per distinct query text and document
    text (bi-encoder) or distinct text pair (cross-encoder), fewer than the (query, document)
    slots the instances name. Broken checks: scoring query by query (the old per-query
    ``Ranker.score`` loop) encodes shared documents again and fails the counts; keying the
    pairs by ids instead of texts scores the repeated query's pairs twice."""
    ranker, model, encoder = _ranker(which, request)
    ds, inst, art = mined
    slots = _slots(ds, inst, art)
    pairs = {(ds.queries[q].text, _text(ds, art, d)) for q, d in slots}
    bi = which in ("bi_encoder", "st_folder")
    if bi:
        expected = Counter({(True, q): 1 for q, _ in pairs})
        expected.update({(False, d): 1 for _, d in pairs})
        method = "embed_texts"
    else:
        expected = Counter({p: 1 for p in pairs})
        method = "score_pairs"
    seen: Counter = Counter()
    inner = getattr(model, method)

    def counting(*args, **kwargs):
        if method == "score_pairs":
            seen.update(zip(args[0], args[1], strict=True))
        else:
            seen.update((bool(kwargs.get("as_query", False)), t) for t in args[0])
        return inner(*args, **kwargs)

    rows: list[int] = []
    hook = encoder.register_forward_pre_hook(
        lambda _m, _a, kw: rows.append(int(kw["input_ids"].shape[0])), with_kwargs=True
    )
    monkeypatch.setattr(model, method, counting)
    try:
        diag = diagnose(inst, ranker, ds, art)
    finally:
        hook.remove()
    assert len(diag.outcomes) == len(inst)
    assert seen == expected  # every distinct input, each once, nothing else
    assert sum(rows) == sum(expected.values())  # one encoder row per distinct input
    assert sum(expected.values()) < len(slots) + bi * len(ds.queries)
    assert len(pairs) < len(slots)  # the repeated query text shares pairs


def test_a_ranker_without_a_model_is_still_asked_query_by_query(mined) -> None:
    """Lexical and other rankers keep their one ``score`` call per query."""
    ds, inst, art = mined
    calls: list[str] = []

    class Counting:
        name = "count"

        def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
            calls.append(query.query_id)
            return np.array([d.text.count("e") for d in documents], dtype=float)

    diagnose(inst, Counting(), ds, art)
    assert sorted(calls) == sorted(set(inst["query_id"].astype(str)))


def test_score_lists_returns_empty_arrays_for_empty_lists(bi_encoder: BiEncoder) -> None:
    ranker = NeuralRanker(bi_encoder, bf16=False)
    q = Query("q", "yeast bread")
    got = score_lists(ranker, [(q, []), (q, [Document("d", "bread with yeast")]), (q, [])])
    assert [g.shape for g in got] == [(0,), (1,), (0,)]
    assert torch.isfinite(torch.from_numpy(got[1])).all()

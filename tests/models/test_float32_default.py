"""One meaning per ranker spec: neural inference is float32 by default on every device, so a
(query, document) pair gets the same score whatever it is batched with (``rank`` against
``diagnose``, one probe set against another, this machine against one without fast bf16).
bf16 runs only when asked for (``bf16=True``, ``minilm:bf16=true``).

Each test was checked by breaking the code it guards: ``use_bf16`` returning bf16 for
``None`` where the device is fast at it (the old default) fails the batch-composition and the
default tests; ``use_bf16`` ignoring ``True`` fails the opt-in tests; ``minilm`` dropping its
``bf16`` parameter or the spec check accepting any text fails the spec test.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import axiomatic.models.device as device
from axiomatic.data.demo import demo_dataset
from axiomatic.data.records import Dataset, Document
from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.device import inference_dtype, use_bf16
from axiomatic.models.transformer import CrossEncoder
from axiomatic.rankers.base import rerank, score_lists
from axiomatic.rankers.registry import RankerSpecError, make_ranker


@pytest.fixture(scope="module")
def demo() -> Dataset:
    return demo_dataset()


@pytest.fixture(scope="module")
def minilm(demo: Dataset):  # type: ignore[no-untyped-def]
    return make_ranker("minilm", demo)


def _others(demo: Dataset, skip: str, n: int) -> list[Document]:
    """``n`` documents other than ``skip``: the demo's, then copies cut to other lengths (so
    that the batch holds inputs of many lengths, and so other padding)."""
    docs = [d for i, d in demo.documents.items() if i != skip]
    out = list(docs)
    k = 0
    while len(out) < n:
        d = docs[k % len(docs)]
        words = d.text.split()
        out.append(Document(f"{d.doc_id}-cut{k}", " ".join(words[: 3 + (k * 7) % len(words)])))
        k += 1
    return out[:n]


def test_a_pair_scores_the_same_in_any_batch_and_in_rank_and_diagnose(
    minilm, demo: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The pair alone, in a batch of 64 with other documents, in that batch reversed and
    among other queries' lists: one float32 score (to 1e-6), and the one ``rank`` writes
    (a diagnosis scores its documents through ``score_lists``), on a device that is fast at
    bf16 (patched, so that the test means the same on every machine). Under bf16 the same
    pair differed by up to 6e-4 here (1.8e-3 over the first 64 demo pairs)."""
    monkeypatch.setattr(device, "bf16_supported", lambda d: True)
    assert minilm.bf16 is None  # the spec's default, not an explicit float32
    qid = "q1"
    query = demo.queries[qid]
    did = demo.candidate_ids(qid)[0]
    doc = demo.documents[did]
    others = _others(demo, did, 63)
    batch = [doc, *others]
    alone = score_lists(minilm, [(query, [doc])])[0][0]
    in_batch = score_lists(minilm, [(query, batch)])[0][0]
    reversed_ = score_lists(minilm, [(query, batch[::-1])])[0][-1]
    mixed = score_lists(
        minilm,
        [(demo.queries["q2"], others[:20]), (query, [*others[20:40], doc]), (query, others[40:])],
    )[1][-1]
    ranked = rerank(minilm, demo)[qid][did]
    scores = np.array([alone, in_batch, reversed_, mixed, ranked])
    np.testing.assert_allclose(scores, alone, rtol=0, atol=1e-6)
    # and every document of the batch of 64 scores as it does alone
    together = score_lists(minilm, [(query, batch)])[0]
    each = np.array([score_lists(minilm, [(query, [d])])[0][0] for d in batch[:16]])
    np.testing.assert_allclose(together[:16], each, rtol=0, atol=1e-6)


@pytest.mark.parametrize("fast", [True, False])
def test_the_default_is_float32_whatever_the_device_is_fast_at(
    monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    monkeypatch.setattr(device, "bf16_supported", lambda d: fast)
    assert use_bf16(None) is False
    assert use_bf16(False) is False
    assert use_bf16(True) is True
    assert inference_dtype() == inference_dtype(None) == "float32"
    assert inference_dtype(True) == "bfloat16"

    seen: list[bool] = []

    class Probe(NeuralRankingModel):
        supports_bf16 = True

        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(1))

        def encode_batch(self, queries, documents):  # type: ignore[no-untyped-def]
            return {"x": torch.ones(len(queries), 4)}

        def forward(self, x):  # type: ignore[no-untyped-def]
            seen.append(torch.is_autocast_enabled("cpu"))
            return (x @ torch.ones(4, 1)).squeeze(-1) * self.w

    Probe().score_pairs(["q"], ["d"])
    Probe().score_pairs(["q"], ["d"], bf16=True)
    Probe().score_pairs(["q"], ["d"], bf16=False)
    assert seen == [False, True, False]


QUERIES = ["solar power for homes", "yeast in bread baking"]
DOCS = [
    "Solar panels on a roof turn sunlight into electricity for the house.",
    "Bakers add yeast to the dough so that the bread rises before it is baked.",
]


@pytest.fixture(scope="module")
def cross_encoder() -> CrossEncoder:
    torch.manual_seed(0)
    return CrossEncoder(max_length=32).eval()


def test_minilm_models_score_float32_by_default_and_bf16_when_asked(
    monkeypatch: pytest.MonkeyPatch, cross_encoder: CrossEncoder, minilm
) -> None:  # type: ignore[no-untyped-def]
    """The MiniLM models (``supports_bf16``) on a device that is fast at bf16 (patched):
    the default scores are the float32 ones, bit for bit; ``bf16=True`` runs the bf16 copy
    of the encoder (other scores, and the copy is built)."""
    monkeypatch.setattr(device, "bf16_supported", lambda d: True)
    fp32 = cross_encoder.score_pairs(QUERIES, DOCS, bf16=False)
    assert torch.equal(cross_encoder.score_pairs(QUERIES, DOCS), fp32)
    cross_encoder.__dict__.pop("_bf16_cache", None)
    bf16 = cross_encoder.score_pairs(QUERIES, DOCS, bf16=True)
    assert "_bf16_cache" in cross_encoder.__dict__
    assert not torch.equal(bf16, fp32)
    torch.testing.assert_close(bf16, fp32, atol=0.02, rtol=0.05)

    bi = minilm.model
    fp32 = bi.score_query(QUERIES[0], DOCS, bf16=False)
    assert torch.equal(bi.score_query(QUERIES[0], DOCS), fp32)
    assert not torch.equal(bi.score_query(QUERIES[0], DOCS, bf16=True), fp32)


def test_minilm_spec_takes_bf16_true_or_false(demo: Dataset) -> None:
    assert make_ranker("minilm:bf16=true", demo).bf16 is True
    assert make_ranker("minilm:bf16=false", demo).bf16 is False
    with pytest.raises(RankerSpecError) as info:
        make_ranker("minilm:bf16=fast", demo)
    assert str(info.value) == (
        "parameter 'bf16' of ranker 'minilm' in spec 'minilm:bf16=fast' must be true or false "
        "(got 'fast'); e.g. bf16=true"
    )

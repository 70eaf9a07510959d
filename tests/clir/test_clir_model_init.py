"""The dual-encoder CLIR model's construction and input encoding, value by value.

The first mutation run of ``models/clir.py`` left 57 survivors, most in ``__init__`` (defaults,
the document table's initialization, its zeroed padding/OOV rows, freezing, sharing) and in
``_encode`` (the token-id cache and padding). These tests pin each of them.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from axiomatic.models.clir import SmoothDualEncoder
from axiomatic.models.vocab import OOV_ID, PAD_ID, Vocabulary, model_analyzer

TEXTS = [
    "cheap flights to berlin",
    "berlin hotels near the station",
    "günstige flüge nach berlin",
    "hotels in der nähe vom bahnhof",
    "the station opens at six",
]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.build(TEXTS, model_analyzer("en"))


def test_defaults_are_the_documented_ones(vocab) -> None:
    torch.manual_seed(0)
    m = SmoothDualEncoder(vocab)
    assert m.embedding_dim == 64 and m.max_query_len == 32 and m.max_doc_len == 160
    assert m.encoder_kind == "avg" and m.eps == 1.0 and m.shared_embeddings is False
    assert m.config["encoder"] == "avg" and m.config["eps"] == 1.0
    assert m.config["shared_embeddings"] is False
    assert m.doc_embedding is not m.embedding
    assert tuple(m.doc_embedding.weight.shape) == (len(vocab), 64)
    assert m.doc_embedding.padding_idx == PAD_ID
    assert m.doc_embedding.weight.requires_grad


def test_document_table_initialization(vocab) -> None:
    rng = np.random.default_rng(0)
    q = rng.normal(0, 0.3, (len(vocab), 8)).astype(np.float32)
    d = rng.normal(0, 0.3, (len(vocab), 8)).astype(np.float32)
    m = SmoothDualEncoder(vocab, embedding_dim=8, embeddings=q, doc_embeddings=d)
    w = m.doc_embedding.weight.detach().numpy()
    # padding and OOV rows are zero, every other row is the given vector exactly
    assert np.all(w[: OOV_ID + 1] == 0.0)
    assert np.array_equal(w[OOV_ID + 1 :], d[OOV_ID + 1 :])
    # without doc_embeddings the document table starts from the query table's init
    m2 = SmoothDualEncoder(vocab, embedding_dim=8, embeddings=q)
    assert np.array_equal(m2.doc_embedding.weight.detach().numpy()[OOV_ID + 1 :], q[OOV_ID + 1 :])
    assert np.all(m2.doc_embedding.weight.detach().numpy()[: OOV_ID + 1] == 0.0)


def test_random_document_table_has_std_point_one() -> None:
    words = [f"w{i}" for i in range(4000)]
    big = Vocabulary.build([" ".join(words)], model_analyzer("en"))
    torch.manual_seed(0)
    m = SmoothDualEncoder(big, embedding_dim=32)
    w = m.doc_embedding.weight.detach().numpy()[OOV_ID + 1 :]
    assert abs(float(w.std()) - 0.1) < 0.003 and abs(float(w.mean())) < 0.003
    assert np.all(m.doc_embedding.weight.detach().numpy()[: OOV_ID + 1] == 0.0)


def test_shape_mismatch_names_both_shapes(vocab) -> None:
    bad = np.zeros((len(vocab), 5), dtype=np.float32)
    with pytest.raises(ValueError, match=rf"^doc_embeddings have shape \({len(vocab)}, 5\); "):
        SmoothDualEncoder(vocab, embedding_dim=8, doc_embeddings=bad)
    with pytest.raises(ValueError, match=rf"expected \({len(vocab)}, 8\)$"):
        SmoothDualEncoder(vocab, embedding_dim=8, doc_embeddings=bad)


def test_freezing_and_sharing(vocab) -> None:
    frozen = SmoothDualEncoder(vocab, embedding_dim=8, freeze_embeddings=True)
    assert not frozen.doc_embedding.weight.requires_grad
    assert not frozen.embedding.weight.requires_grad
    q = np.random.default_rng(1).normal(0, 0.3, (len(vocab), 8)).astype(np.float32)
    d = np.random.default_rng(2).normal(0, 0.3, (len(vocab), 8)).astype(np.float32)
    shared = SmoothDualEncoder(
        vocab, embedding_dim=8, shared_embeddings=True, embeddings=q, doc_embeddings=d
    )
    assert shared.doc_embedding is shared.embedding  # one table: the query side's init kept
    assert shared.config["shared_embeddings"] is True
    w = shared.embedding.weight.detach().numpy()
    assert np.array_equal(w[OOV_ID + 1 :], q[OOV_ID + 1 :])


@pytest.mark.parametrize("bad_eps", [-0.5, float("nan")])
def test_eps_is_validated(vocab, bad_eps) -> None:
    with pytest.raises(ValueError):
        SmoothDualEncoder(vocab, embedding_dim=8, eps=bad_eps)


def test_encode_pads_caches_and_handles_empty_inputs(vocab) -> None:
    m = SmoothDualEncoder(vocab, embedding_dim=8)
    texts = ["berlin station", "cheap flights to berlin hotels", "", "berlin station"]
    out = m._encode(texts, 4)
    expected = [vocab.encode(t, 4) or [PAD_ID] for t in texts]
    width = max(len(e) for e in expected)
    assert tuple(out.shape) == (4, width) and out.dtype == torch.long
    for row, e in zip(out.tolist(), expected, strict=True):
        assert row == e + [PAD_ID] * (width - len(e))
    # each (text, length) is tokenized once and reused
    assert set(m._ids_cache) == {(t, 4) for t in texts}
    assert m._ids_cache[("", 4)].tolist() == [PAD_ID]
    again = m._encode(["berlin station"], 4)
    assert again.tolist() == [expected[0]]
    assert m._encode([], 4).shape == (0, 1)
    # the length is part of the key
    m._encode(["cheap flights to berlin hotels"], 2)
    assert ("cheap flights to berlin hotels", 2) in m._ids_cache
    assert len(m._ids_cache[("cheap flights to berlin hotels", 2)]) == 2

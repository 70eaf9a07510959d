"""The CLIR dual encoder's CNN and LSTM towers and its batching, value by value.

The second mutation run of ``models/clir.py`` left 29 survivors. These tests pin the ones a
caller can observe: the CNN tower against a by-hand convolution (3-gram "same" padding,
300 filters, max over the real positions only, OOV words read as zero vectors, a text without
any word reads as all padding), the LSTM tower over a text ending in an OOV word, the OOV rows
that never get a gradient, the token-id cache (reused, cleared past 200,000 texts), the
truncation of queries and documents, the empty batch's integer ids, the encoder-name
suggestions. Equivalent survivors are listed in docs/architecture.md.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import torch

from axiomatic.models.clir import _CNN, SmoothDualEncoder, _encoder
from axiomatic.models.similarity import smooth_cosine
from axiomatic.models.vocab import OOV_ID, PAD_ID, Vocabulary, model_analyzer

WORDS = "alpha beta gamma delta epsilon zeta eta theta"


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.build([WORDS], model_analyzer("en"))


def _raises(exc: type[Exception], text: str):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


# ---------------------------------------------------------------------- the CNN by hand
def _conv_ref(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(F, L)`` 1-D convolution of ``x (L, E)`` with ``w (F, E, k)``, zero "same" padding."""
    L, k = x.shape[0], w.shape[2]
    half = k // 2
    out = np.tile(b[:, None], (1, L)).astype(np.float64)
    for t in range(L):
        for j in range(k):
            s = t + j - half
            if 0 <= s < L:
                out[:, t] += w[:, :, j] @ x[s]
    return out


def _cnn_ref(tower: Any, table: np.ndarray, ids: list[int]) -> np.ndarray:
    """The CNN tower of one unpadded text: tanh(dense(max over real positions of
    tanh(conv))), OOV and padding embedded as zero vectors; every position padding: the max
    is the fill value -2."""
    x = np.stack([table[i] if i > OOV_ID else np.zeros(table.shape[1]) for i in ids])
    w = tower.conv.weight.detach().double().numpy()
    b = tower.conv.bias.detach().double().numpy()
    h = np.tanh(_conv_ref(x, w, b))
    real = np.asarray([i != PAD_ID for i in ids])
    pooled = h[:, real].max(axis=1) if real.any() else np.full(h.shape[0], -2.0)
    dw = tower.dense.weight.detach().double().numpy()
    db = tower.dense.bias.detach().double().numpy()
    return np.tanh(dw @ pooled + db)


def _spoil_oov_rows(m: SmoothDualEncoder) -> None:
    """Non-zero OOV rows (as a checkpoint edited by hand could have): the towers must still
    read an OOV word as the zero vector."""
    with torch.no_grad():
        m.embedding.weight[OOV_ID] = 0.7
        m.doc_embedding.weight[OOV_ID] = -0.9


def test_cnn_tower_is_the_hand_convolution_over_real_positions(vocab) -> None:
    torch.manual_seed(1)
    m = SmoothDualEncoder(vocab, embedding_dim=5, encoder="cnn", eps=0.5).eval()
    tower = m.doc_encoder
    assert isinstance(tower, _CNN)
    assert tuple(tower.conv.weight.shape) == (300, 5, 3) and tower.conv.padding == (1,)
    assert tuple(tower.dense.weight.shape) == (5, 300) and tower.drop.p == 0.4
    _spoil_oov_rows(m)
    texts = [
        "alpha beta gamma delta epsilon zeta",  # the longest: no padding
        "gamma qqqq",  # ends in an OOV word, then padding
        "qqqq",  # an OOV word only: one real position, a zero vector
        "",  # no word at all: all padding
        "theta eta",
    ]
    enc = m.encode_batch(texts, texts[::-1])
    with torch.no_grad():
        fq = m.encode_queries(enc["query_ids"]).double().numpy()
        fd = m.encode_documents(enc["doc_ids"]).double().numpy()
        score = m(**enc).double().numpy()
    Q = m.embedding.weight.detach().double().numpy()
    D = m.doc_embedding.weight.detach().double().numpy()
    ref_q = np.stack([_cnn_ref(m.query_encoder, Q, vocab.encode(t) or [PAD_ID]) for t in texts])
    ref_d = np.stack([_cnn_ref(m.doc_encoder, D, vocab.encode(t) or [PAD_ID]) for t in texts[::-1]])
    assert np.allclose(fq, ref_q, atol=1e-5)
    assert np.allclose(fd, ref_d, atol=1e-5)
    want = smooth_cosine(torch.tensor(ref_q), torch.tensor(ref_d), 0.5).numpy()
    assert np.allclose(score, want, atol=1e-5)
    # the OOV position matters: dropping it from the max changes the representation
    ids = vocab.encode("gamma qqqq")
    without = _cnn_ref(m.query_encoder, Q, [i if i > OOV_ID else PAD_ID for i in ids])
    assert not np.allclose(without, ref_q[1], atol=1e-3)


def test_cnn_window_five_keeps_every_position() -> None:
    torch.manual_seed(2)
    tower: Any = _CNN(4, 3, filters=6, window=5, dropout=0.0).eval()
    assert tower.conv.padding == (2,)
    emb = torch.randn(2, 4, 4, dtype=torch.float32)
    emb[1, 3] = 0.0  # the second text's last position is padding
    mask = torch.tensor([[True] * 4, [True, True, True, False]])
    with torch.no_grad():
        got = tower(emb, mask).double().numpy()
    w = tower.conv.weight.detach().double().numpy()
    b = tower.conv.bias.detach().double().numpy()
    dw = tower.dense.weight.detach().double().numpy()
    db = tower.dense.bias.detach().double().numpy()
    for r, n in ((0, 4), (1, 3)):
        h = np.tanh(_conv_ref(emb[r, :n].double().numpy(), w, b))
        assert np.allclose(got[r], np.tanh(dw @ h.max(axis=1) + db), atol=1e-5), r


def test_lstm_tower_reads_a_final_oov_word(vocab) -> None:
    torch.manual_seed(0)
    m = SmoothDualEncoder(vocab, embedding_dim=6, encoder="lstm").eval()
    tower: Any = m.doc_encoder
    assert tower.lstm.hidden_size == 64 and tower.dense.in_features == 128
    assert tower.drop.p == 0.4
    _spoil_oov_rows(m)
    texts = ["alpha beta qqqq", "gamma", "qqqq"]
    enc = m.encode_batch(texts, texts)
    with torch.no_grad():
        got = m.encode_documents(enc["doc_ids"])
        for i, t in enumerate(texts):
            ids = torch.tensor([vocab.encode(t)])
            emb = m.doc_embedding(ids) * (ids > OOV_ID).unsqueeze(-1).float()
            out, _ = tower.lstm(emb)  # the whole unpadded text, OOV word included
            want = torch.tanh(tower.dense(torch.cat([out[0, -1, :64], out[0, 0, 64:]])))
            assert torch.allclose(got[i], want, atol=1e-5), i


@pytest.mark.parametrize("encoder", ["cnn", "lstm", "avg"])
def test_oov_and_padding_rows_get_no_gradient(vocab, encoder) -> None:
    torch.manual_seed(3)
    m = SmoothDualEncoder(vocab, embedding_dim=4, encoder=encoder)
    enc = m.encode_batch(["alpha qqqq beta", "gamma"], ["delta qqqq", "qqqq epsilon zeta"])
    m(**enc).sum().backward()
    for table in (m.embedding, m.doc_embedding):
        g = table.weight.grad
        assert g is not None
        assert float(g[: OOV_ID + 1].abs().sum()) == 0.0
        assert float(g[OOV_ID + 1 :].abs().sum()) > 0.0


# ---------------------------------------------------------------------- batching
def test_encode_batch_truncates_each_side_and_checks_lengths(vocab) -> None:
    m = SmoothDualEncoder(vocab, embedding_dim=4, max_query_len=2, max_doc_len=3)
    long = WORDS
    enc = m.encode_batch([long, "beta"], [long, "beta"])
    ids = vocab.encode(long)
    assert enc["query_ids"].tolist() == [ids[:2], [vocab.encode("beta")[0], PAD_ID]]
    assert enc["doc_ids"].tolist() == [ids[:3], [vocab.encode("beta")[0], PAD_ID, PAD_ID]]
    with _raises(ValueError, "encode_batch needs one query per document (got 2 and 1)"):
        m.encode_batch(["a", "b"], ["c"])
    empty = m.encode_batch([], [])
    for k in ("query_ids", "doc_ids"):
        assert empty[k].dtype == torch.long and tuple(empty[k].shape) == (0, 1)
    assert m._encode([], 5).dtype == torch.long


def test_token_ids_come_from_the_cache(vocab) -> None:
    m = SmoothDualEncoder(vocab, embedding_dim=4)
    m._ids_cache[("alpha beta", 5)] = torch.tensor([7, 6, 5])
    assert m._encode(["alpha beta", "gamma"], 5).tolist() == [
        [7, 6, 5],
        [vocab.encode("gamma")[0], PAD_ID, PAD_ID],
    ]


def test_token_id_cache_is_cleared_past_200000_texts(vocab) -> None:
    m = SmoothDualEncoder(vocab, embedding_dim=4)
    row = torch.tensor([2])
    m._ids_cache.update({(f"t{i}", 9): row for i in range(200_000)})
    m._encode(["alpha"], 9)  # 200,000 cached: kept
    assert len(m._ids_cache) == 200_001
    m._encode(["beta"], 9)  # 200,001 cached: cleared first
    assert set(m._ids_cache) == {("beta", 9)}


# ---------------------------------------------------------------------- encoder names
def test_unknown_encoder_suggests_the_one_closest_name() -> None:
    with _raises(
        ValueError, "unknown encoder 'avgcnn' (did you mean 'cnn'?); expected one of avg, cnn, lstm"
    ):
        _encoder("avgcnn", 4)  # as close to 'avg' as to 'cnn': one suggestion only
    with _raises(ValueError, "unknown encoder 'abcg'; expected one of avg, cnn, lstm"):
        _encoder("abcg", 4)  # 'avg' is 0.57 alike: below the 0.6 cutoff
    with _raises(
        ValueError, "unknown encoder 'lstn' (did you mean 'lstm'?); expected one of avg, cnn, lstm"
    ):
        SmoothDualEncoder(Vocabulary.build(["a b"], model_analyzer("en")), encoder="lstn")

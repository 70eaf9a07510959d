"""Fast value tests of ARES pre-training (``axiomatic.ares.pretrain``) for its mutation
campaign.

Every number is checked against a reference computation written here: the masking functions
against loops over the positions, the LM head against ``LayerNorm(GELU(W h + b)) @ E^T + bias``,
the fused step (one embedding lookup, tied decoder, last layer at the masked positions) against
the plain ``model(**enc)`` + :meth:`AresCrossEncoder.mlm_loss` and their gradients, the
strategy's loss against hinge + weight x MLM, the pair ordering against the (stand-in) axioms
and predictor, and the driver's files and trainer configuration against the values they must
hold. The model is a 2-layer, 32-d BERT with MiniLM's word pieces, built per test (a module
fixture would hide the constructors from mutmut's test mapping).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pytest
import torch
import torch.nn.functional as F

# imported here, not in the fixtures: mutmut's fork server imports the test module once, so
# the mutants' runs do not each pay for transformers' BERT (seconds)
from transformers import BertConfig, BertModel
from transformers.masking_utils import create_bidirectional_mask  # noqa: F401

import axiomatic.models.transformer as T
from axiomatic.ares import pretrain as P
from axiomatic.ares.pretrain import (
    AresCrossEncoder,
    AresLossStrategy,
    MLMHead,
    check_masking,
    check_variant,
    mask_tokens,
    mask_whole_words,
)

TINY = {
    "vocab_size": 30522,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 128,
}


@pytest.fixture(autouse=True)
def _one_thread():
    """The tiny model's ops are far too small for threads: with the CPU shared (mutation runs,
    CI), intra-op threads only contend (a backward pass: ~1 s with 2 threads, ~10 ms with 1)."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture
def tiny(monkeypatch):
    """Every MiniLM encoder built during the test is a tiny random BERT (no pooler found)."""

    def load_encoder(source=None, pretrained=True):
        return BertModel(BertConfig(**TINY), add_pooling_layer=False)

    monkeypatch.setattr(T, "load_encoder", load_encoder)
    monkeypatch.setattr(T, "load_pooler", lambda *a, **k: None)
    return load_encoder


def _net(max_length=24, head="mlp", seed=0):
    """A tiny AresCrossEncoder whose LM head is not at its zero/one initialization (so that
    a dropped bias or LayerNorm affine shows)."""
    torch.manual_seed(seed)
    net = AresCrossEncoder(max_length=max_length, pretrained=False, head=head)
    g = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        h = net.mlm_head
        h.bias.copy_(torch.randn(h.bias.shape, generator=g) * 0.5)
        h.norm.weight.copy_(1 + 0.3 * torch.randn(h.norm.weight.shape, generator=g))
        h.norm.bias.copy_(0.3 * torch.randn(h.norm.bias.shape, generator=g))
        h.dense.weight.copy_(0.3 * torch.randn(h.dense.weight.shape, generator=g))
        net.head.weight.copy_(0.5 * torch.randn(net.head.weight.shape, generator=g))
    return net


# ------------------------------------------------------------------ names and messages
def test_check_variant_normalizes_and_names_the_variants_word_for_word() -> None:
    assert check_variant(" ARES_Simple ") == "simple"
    assert check_variant("ares-RANK") == "rank"
    assert check_variant("Hard") == "hard"
    assert check_variant("strict") == "strict"
    assert check_variant("ARES_rep") == "rep"
    with pytest.raises(ValueError) as e:
        check_variant("ARES_strikt")
    assert str(e.value) == (
        "unknown ARES variant 'ARES_strikt' (did you mean 'strict'?); "
        "expected one of simple, hard, strict, rep, rank"
    )
    with pytest.raises(ValueError) as e:
        check_variant("zzz")
    assert (
        str(e.value)
        == "unknown ARES variant 'zzz'; expected one of simple, hard, strict, rep, rank"
    )
    # one suggestion at most, and only a close one (cutoff 0.6)
    with pytest.raises(ValueError) as e:
        check_variant("ran")
    assert "(did you mean 'rank'?)" in str(e.value)
    with pytest.raises(ValueError) as e:
        check_variant("harnk")  # close to rank and to hard: the closest named only
    assert str(e.value).startswith("unknown ARES variant 'harnk' (did you mean 'rank'?); ")
    with pytest.raises(ValueError) as e:
        check_variant("sxmxxe")
    assert "did you mean" not in str(e.value)


def test_check_masking_word_for_word() -> None:
    assert check_masking("input") == "input"
    assert check_masking("document-wwm") == "document-wwm"
    with pytest.raises(ValueError) as e:
        check_masking("Input")
    assert str(e.value) == ("unknown ARES masking 'Input'; expected one of 'input', 'document-wwm'")


# ------------------------------------------------------------------ masking
def _ref_replace(ids, target, mask_id, vocab_size, g):
    """BERT's 80/10/10 replacement, position by position, with the draws of the spec (one
    uniform per position, then one random token per position)."""
    r = torch.rand(ids.shape, generator=g)
    rand = torch.randint(vocab_size, ids.shape, generator=g)
    out = ids.clone()
    labels = torch.full_like(ids, -100)
    for b in range(ids.shape[0]):
        for i in range(ids.shape[1]):
            if not target[b, i]:
                continue
            labels[b, i] = ids[b, i]
            if r[b, i] < 0.8:
                out[b, i] = mask_id
            elif r[b, i] < 0.9:
                out[b, i] = rand[b, i]
    return out, labels


def test_replace_targets_is_80_10_10_with_labels_at_the_targets() -> None:
    ids = torch.randint(5, 1000, (40, 30))
    target = torch.rand(40, 30, generator=torch.Generator().manual_seed(1)) < 0.5
    g1, g2 = torch.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    got, labels = P._replace_targets(ids, target, 3, 1000, g1)
    ref, ref_labels = _ref_replace(ids, target, 3, 1000, g2)
    assert torch.equal(got, ref) and torch.equal(labels, ref_labels)
    assert torch.equal(g1.get_state(), g2.get_state())  # the same draws, no more
    assert (ids[:5, :5] == ids[:5, :5]).all()  # the input is not modified in place
    n = int(target.sum())
    assert (got[target] == 3).sum() / n == pytest.approx(0.8, abs=0.04)
    assert (got[~target] == ids[~target]).all()


def test_mask_tokens_targets_15_percent_of_the_non_special_tokens() -> None:
    ids = torch.randint(5, 1000, (50, 40))
    special = torch.rand(50, 40, generator=torch.Generator().manual_seed(2)) < 0.3
    g1, g2 = torch.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    got, labels = mask_tokens(ids, special, 3, 1000, g1)  # default prob: 0.15
    p = torch.rand(ids.shape, generator=g2)
    target = torch.zeros_like(special)
    for b in range(50):
        for i in range(40):
            target[b, i] = bool(p[b, i] < 0.15) and not bool(special[b, i])
    ref, ref_labels = _ref_replace(ids, target, 3, 1000, g2)
    assert torch.equal(got, ref) and torch.equal(labels, ref_labels)
    assert torch.equal(g1.get_state(), g2.get_state())
    # another rate
    g1, g2 = torch.Generator().manual_seed(12), torch.Generator().manual_seed(12)
    got, labels = mask_tokens(ids, special, 4, 1000, g1, prob=0.5)
    p = torch.rand(ids.shape, generator=g2)
    ref, ref_labels = _ref_replace(ids, (p < 0.5) & ~special, 4, 1000, g2)
    assert torch.equal(got, ref) and torch.equal(labels, ref_labels)
    assert not (labels[special] != -100).any()


def _ref_whole_words(ids, cand, cont, prob, g):
    """The words (a candidate token plus the candidate '##' pieces right after it), keys drawn
    as float64 uniforms per position, the k = max(1, round(prob * n)) words of smallest key."""
    B, L = ids.shape
    keys = torch.rand((B, L), generator=g, dtype=torch.float64)
    target = torch.zeros((B, L), dtype=torch.bool)
    for b in range(B):
        words: list[list[int]] = []
        for i in range(L):
            if not cand[b, i]:
                continue
            if cont[b, i] and i > 0 and cand[b, i - 1] and words and words[-1][-1] == i - 1:
                words[-1].append(i)
            else:
                words.append([i])
        if not words:
            continue
        k = max(1, round(prob * len(words)))
        for w in sorted(words, key=lambda w: float(keys[b, w[0]]))[:k]:
            target[b, w] = True
    return target


def test_mask_whole_words_picks_k_whole_words_per_row() -> None:
    L = 16
    rows = []
    cands = []
    conts = []
    gen = torch.Generator().manual_seed(3)
    for n_cand in (0, 1, 2, 3, 5, 7, 10, 12, 14, 16):
        c = torch.zeros(L, dtype=torch.bool)
        c[L - n_cand :] = True
        k = torch.rand(L, generator=gen) < 0.4
        rows.append(torch.randint(1000, 2000, (L,), generator=gen))
        cands.append(c)
        conts.append(k)
    # a row whose first position is a candidate '##' piece (a word of its own: nothing before
    # it), a '##' piece after a non-candidate, and pieces that are not candidates
    c = torch.tensor([1, 1, 1, 0, 1, 1, 0, 1] * 2, dtype=torch.bool)
    k = torch.tensor([1, 1, 0, 1, 1, 0, 1, 1] * 2, dtype=torch.bool)
    rows.append(torch.arange(1000, 1000 + L))
    cands.append(c)
    conts.append(k)
    ids, cand, cont = torch.stack(rows), torch.stack(cands), torch.stack(conts)
    for prob in (0.15, 0.25, 0.5):
        g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
        if prob == 0.15:
            got, labels = mask_whole_words(ids, cand, cont, 3, 1000, g1)  # the default prob
        else:
            got, labels = mask_whole_words(ids, cand, cont, 3, 1000, g1, prob=prob)
        target = _ref_whole_words(ids, cand, cont, prob, g2)
        ref, ref_labels = _ref_replace(ids, target, 3, 1000, g2)
        assert torch.equal(labels, ref_labels), prob
        assert torch.equal(got, ref), prob
        assert torch.equal(g1.get_state(), g2.get_state())
    # round half to even: 10 words at 25 % -> 2 words (not 3), 2 words at 25 % -> 1 (at least)
    assert int((labels[7] != -100).sum()) > 0


def test_mask_whole_words_rounds_the_word_count() -> None:
    L = 12
    ids = torch.arange(100, 100 + 4 * L).view(4, L)
    cand = torch.zeros(4, L, dtype=torch.bool)
    for r, n in enumerate((2, 6, 10, 1)):
        cand[r, :n] = True
    cont = torch.zeros(4, L, dtype=torch.bool)
    _, labels = mask_whole_words(ids, cand, cont, 3, 1000, torch.Generator().manual_seed(0), 0.25)
    # 2 * 0.25 = 0.5 -> 0 -> at least 1; 6 * 0.25 = 1.5 -> 2; 10 * 0.25 = 2.5 -> 2; 1 -> 1
    assert (labels != -100).sum(1).tolist() == [1, 2, 2, 1]


# ------------------------------------------------------------------ the LM head
class _FakeEncoder(torch.nn.Module):
    """An encoder whose config has no ``layer_norm_eps`` (only what the constructors read)."""

    def __init__(self) -> None:
        super().__init__()
        self.config = SimpleNamespace(hidden_size=8, vocab_size=50)
        self.emb = torch.nn.Embedding(50, 8)

    def get_input_embeddings(self):
        return self.emb


def test_mlm_head_initialization_and_tied_decoder() -> None:
    emb = torch.nn.Embedding(50, 8)
    torch.manual_seed(0)
    head = MLMHead(8, emb)
    assert head.word_embeddings is emb
    assert head.norm.eps == 1e-12 and head.norm.normalized_shape == (8,)
    assert head.dense.in_features == 8 and head.dense.out_features == 8
    assert head.bias.shape == (50,) and torch.count_nonzero(head.bias) == 0
    assert torch.count_nonzero(head.dense.bias) == 0
    big = MLMHead(256, torch.nn.Embedding(10, 256), eps=1e-5)
    assert big.norm.eps == 1e-5
    assert big.dense.weight.std().item() == pytest.approx(0.02, rel=0.03)
    assert big.dense.weight.mean().abs().item() < 0.001
    # forward = LayerNorm(GELU(W h + b)) @ E^T + bias
    with torch.no_grad():
        head.bias.normal_()
        head.dense.bias.normal_()
        head.norm.weight.normal_()
        head.norm.bias.normal_()
    h = torch.randn(5, 8)
    a = h @ head.dense.weight.T + head.dense.bias
    a = 0.5 * a * (1 + torch.erf(a / 2**0.5))
    mu, var = a.mean(-1, keepdim=True), a.var(-1, unbiased=False, keepdim=True)
    x = (a - mu) / torch.sqrt(var + 1e-12) * head.norm.weight + head.norm.bias
    torch.testing.assert_close(head.transform(h), x, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(head(h), x @ emb.weight.T + head.bias, rtol=1e-5, atol=1e-5)
    # the decoder is the embedding matrix itself: its gradient reaches the embedding
    head(h).sum().backward()
    assert emb.weight.grad is not None
    torch.testing.assert_close(emb.weight.grad, x.sum(0).expand(50, 8), rtol=1e-5, atol=1e-5)


def test_ares_cross_encoder_defaults_and_layer_norm_eps(tiny, monkeypatch) -> None:
    w, b = torch.randn(32, 32), torch.randn(32)
    monkeypatch.setattr(T, "load_pooler", lambda *a, **k: (w, b))
    net = AresCrossEncoder()  # pretrained, the paper's head: the checkpoint's pooler
    assert net.max_length == 128 and net.dropout.p == 0.1 and net.head_type == "mlp"
    assert torch.equal(net.pooler.weight, w) and torch.equal(net.pooler.bias, b)
    assert net.mlm_head.word_embeddings is net.encoder.get_input_embeddings()
    assert net.mlm_head.bias.shape == (30522,) and net.mlm_head.dense.in_features == 32
    assert net.mlm_head.norm.eps == 1e-12
    assert net.model_type == "ares-cross-encoder"

    def eps_encoder(source=None, pretrained=True):
        return BertModel(BertConfig(**TINY, layer_norm_eps=1e-7), add_pooling_layer=False)

    monkeypatch.setattr(T, "load_encoder", eps_encoder)
    other = AresCrossEncoder(max_length=16, dropout=0.25, pretrained=False, head="linear")
    assert other.mlm_head.norm.eps == 1e-7
    assert other.max_length == 16 and other.dropout.p == 0.25 and other.pooler is None
    monkeypatch.setattr(T, "load_encoder", lambda source=None, pretrained=True: _FakeEncoder())
    bare = AresCrossEncoder(max_length=16, pretrained=False)
    assert bare.mlm_head.norm.eps == 1e-12  # BERT's default when the config has none
    assert bare.mlm_head.bias.shape == (50,)


# ------------------------------------------------------------------ the MLM loss
def _batch(net, padded=True):
    long = "solar panels convert sunlight into electricity on the roof of a farm near the river"
    qs = ["solar power", "x", "the river"]
    ds = ["the [UNK] river floods the valley every spring", "short", long]
    if not padded:  # every row truncated at max_length
        qs, ds = ["solar power", "the river"], [long, long]
    return net.encode_batch(qs, ds)


def _labels(enc, rows, Lm, seed=0, frac=0.3):
    ids = enc["input_ids"][:rows, :Lm]
    g = torch.Generator().manual_seed(seed)
    sel = (torch.rand(ids.shape, generator=g) < frac) & (enc["attention_mask"][:rows, :Lm] == 1)
    sel[0, 1] = True
    labels = torch.where(sel, ids, torch.full_like(ids, -100))
    masked = torch.where(sel, torch.full_like(ids, 103), ids)
    return masked, labels


def _ref_mlm(net, ids, am, tt, labels):
    """Mean cross-entropy of LayerNorm(GELU(dense(h))) @ E^T + bias at the targets."""
    h = net.encoder(input_ids=ids, attention_mask=am, token_type_ids=tt).last_hidden_state
    head = net.mlm_head
    x = head.norm(F.gelu(head.dense(h)))
    logits = x @ net.encoder.get_input_embeddings().weight.T + head.bias
    logp = torch.log_softmax(logits, -1)
    sel = labels != -100
    return -logp[sel, labels[sel]].mean()


def test_mlm_loss_is_the_mean_cross_entropy_at_the_targets(tiny) -> None:
    net = _net().eval()
    enc = _batch(net)
    L = enc["input_ids"].shape[1]
    ids, labels = _labels(enc, 3, L)
    got = net.mlm_loss(ids, enc["attention_mask"], enc["token_type_ids"], labels)
    ref = _ref_mlm(net, ids, enc["attention_mask"], enc["token_type_ids"], labels)
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)
    assert float(got.detach()) > 1.0
    none = torch.full_like(labels, -100)
    zero = net.mlm_loss(ids, enc["attention_mask"], enc["token_type_ids"], none)
    assert float(zero) == 0.0 and zero.requires_grad
    zero.backward()  # a graph that reaches the encoder: the step can backprop through it
    # token types default (None) as in BertModel
    got = net.mlm_loss(ids, enc["attention_mask"], None, labels)
    ref = _ref_mlm(net, ids, enc["attention_mask"], None, labels)
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)


def _fused_and_reference(net, enc, B, Lm, train, seed=0):
    """Scores, MLM loss and gradients of the fused step and of the plain passes. Position 3
    of row 0 is a [PAD] id that attention sees: its embedding gets a lookup gradient, which
    nn.Embedding(padding_idx=0) drops."""
    enc = {k: v.clone() for k, v in enc.items()}
    enc["input_ids"][0, 3] = 0
    ids, labels = _labels(enc, B, Lm, seed=seed)
    N = enc["input_ids"].shape[0]
    coef = torch.linspace(-1.0, 2.0, N)
    out = []
    for fused in (True, False):
        net.train(train)
        net.zero_grad(set_to_none=True)
        torch.manual_seed(123)
        if fused:
            scores, mlm = net.scores_and_mlm_loss(enc, ids, labels)
        else:
            scores = net(**enc)
            mlm = net.mlm_loss(
                ids, enc["attention_mask"][:B, :Lm], enc["token_type_ids"][:B, :Lm], labels
            )
        ((scores * coef).sum() + mlm).backward()
        grads = {n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None}
        out.append((scores.detach(), float(mlm.detach()), grads))
    return out


def _assert_same(a, b):
    (s0, m0, g0), (s1, m1, g1) = a, b
    torch.testing.assert_close(s0, s1, rtol=1e-5, atol=1e-5)
    assert m0 == pytest.approx(m1, abs=1e-5, rel=1e-5)
    assert g0.keys() == g1.keys()
    for k in g1:
        torch.testing.assert_close(g0[k], g1[k], rtol=1e-4, atol=1e-5, msg=k)


@pytest.mark.parametrize("train", [False, True])
def test_scores_and_mlm_loss_equal_the_plain_passes_and_gradients(tiny, train) -> None:
    net = _net()
    enc = _batch(net)
    am = enc["attention_mask"]
    # MLM rows: the first 2 rows (padded: row 1 is shorter), cut at their longest row
    Lm = int(am[:2].sum(1).max())
    assert Lm < am.shape[1] and int(am[1].sum()) < Lm
    a, b = _fused_and_reference(net, enc, 2, Lm, train)
    _assert_same(a, b)
    emb = "encoder.embeddings.word_embeddings.weight"
    assert emb in a[2] and "mlm_head.bias" in a[2] and "mlm_head.dense.weight" in a[2]
    # no padding at all (attention without a padding mask), every row an MLM row
    enc = _batch(net, padded=False)
    a, b = _fused_and_reference(net, enc, 2, enc["input_ids"].shape[1], train, seed=4)
    _assert_same(a, b)


def test_the_tied_lookup_without_a_padding_index_sums_every_row(tiny) -> None:
    net = _net().eval()
    net.encoder.get_input_embeddings().padding_idx = None
    enc = _batch(net)
    Lm = int(enc["attention_mask"][:2].sum(1).max())
    a, b = _fused_and_reference(net, enc, 2, Lm, False)
    _assert_same(a, b)


def test_fused_step_without_targets_gives_a_zero_loss_with_a_graph(tiny) -> None:
    net = _net().eval()
    enc = _batch(net)
    labels = torch.full_like(enc["input_ids"][:2], -100)
    scores, mlm = net.scores_and_mlm_loss(enc, enc["input_ids"][:2], labels)
    torch.testing.assert_close(scores, net(**enc), rtol=1e-5, atol=1e-5)
    assert float(mlm) == 0.0 and mlm.requires_grad
    (scores.sum() + mlm).backward()


def _spy_apply(monkeypatch, cls):
    calls = []
    real = cls.apply

    def apply(*a):
        calls.append(len(a))
        return real(*a)

    monkeypatch.setattr(cls, "apply", apply)
    return calls


def test_fused_step_uses_the_tied_lookup_and_decoder(tiny, monkeypatch) -> None:
    net = _net().eval()
    lookups = _spy_apply(monkeypatch, P._TiedLookup)
    decoders = _spy_apply(monkeypatch, P._TiedDecoder)
    enc = _batch(net)
    Lm = int(enc["attention_mask"][:2].sum(1).max())
    a, b = _fused_and_reference(net, enc, 2, Lm, False)
    _assert_same(a, b)
    assert lookups == [4] and decoders == [4]


@pytest.mark.parametrize(
    ("option", "value"), [("scale_grad_by_freq", True), ("sparse", True), ("max_norm", 100.0)]
)
def test_embedding_options_the_tied_lookup_does_not_mirror_fall_back(
    tiny, monkeypatch, option, value
) -> None:
    net = _net().eval()
    setattr(net.encoder.get_input_embeddings(), option, value)
    lookups = _spy_apply(monkeypatch, P._TiedLookup)
    decoders = _spy_apply(monkeypatch, P._TiedDecoder)
    enc = _batch(net)
    Lm = int(enc["attention_mask"][:2].sum(1).max())
    ids, labels = _labels(enc, 2, Lm)
    res = []
    for fused in (True, False):
        net.zero_grad(set_to_none=True)
        if fused:
            scores, mlm = net.scores_and_mlm_loss(enc, ids, labels)
        else:
            scores = net(**enc)
            mlm = net.mlm_loss(
                ids, enc["attention_mask"][:2, :Lm], enc["token_type_ids"][:2, :Lm], labels
            )
        (scores.sum() + mlm).backward()
        g = net.encoder.get_input_embeddings().weight.grad
        res.append((scores.detach(), float(mlm.detach()), g.to_dense().clone()))
    torch.testing.assert_close(res[0][0], res[1][0], rtol=1e-5, atol=1e-5)
    assert res[0][1] == pytest.approx(res[1][1], abs=1e-5)
    if option != "scale_grad_by_freq":  # (counted over both passes' ids when fused)
        torch.testing.assert_close(res[0][2], res[1][2], rtol=1e-4, atol=1e-5)
    assert lookups == [] and decoders == []


def _last_layer_calls(net):
    calls = []
    net.encoder.encoder.layer[-1].register_forward_hook(lambda *a: calls.append(1))
    return calls


@pytest.mark.parametrize("train", [False, True])
def test_hidden_at_skips_the_last_layer_where_nobody_reads_it(tiny, train) -> None:
    net = _net().train(train)
    enc = _batch(net)
    am, tt = enc["attention_mask"], enc["token_type_ids"]
    sel = torch.zeros_like(am, dtype=torch.bool)
    sel[0, [1, 4, 9]] = True
    sel[2, [2]] = True
    emb = net.encoder.get_input_embeddings()(enc["input_ids"])
    calls = _last_layer_calls(net)
    torch.manual_seed(9)
    got = net._hidden_at(emb, am, tt, sel)
    assert calls == []  # the last layer's module never ran on all positions
    torch.manual_seed(9)
    ref = net.encoder(inputs_embeds=emb, attention_mask=am, token_type_ids=tt).last_hidden_state
    torch.testing.assert_close(got, ref[sel], rtol=1e-5, atol=1e-5)
    assert got.shape == (4, 32)


@pytest.mark.parametrize("setting", ["chunk", "decoder"])
def test_hidden_at_falls_back_to_the_full_pass(tiny, setting) -> None:
    net = _net().eval()
    if setting == "chunk":
        net.encoder.config.chunk_size_feed_forward = 4
    else:
        net.encoder.config.is_decoder = True
    enc = _batch(net)
    am, tt = enc["attention_mask"], enc["token_type_ids"]
    sel = torch.zeros_like(am, dtype=torch.bool)
    sel[0, [1, 4]] = True
    sel[1, 3] = True
    emb = net.encoder.get_input_embeddings()(enc["input_ids"])
    calls = _last_layer_calls(net)
    got = net._hidden_at(emb, am, tt, sel)
    assert calls == [1]
    ref = net.encoder(inputs_embeds=emb, attention_mask=am, token_type_ids=tt).last_hidden_state
    torch.testing.assert_close(got, ref[sel], rtol=0, atol=0)


def test_export_is_the_plain_cross_encoder_with_the_same_weights(tiny) -> None:
    from axiomatic.models.transformer import CrossEncoder

    for head in ("mlp", "linear"):
        torch.manual_seed(0)
        net = AresCrossEncoder(max_length=20, dropout=0.3, pretrained=False, head=head)
        net.train()
        plain = net.export()
        assert type(plain) is CrossEncoder
        assert plain.max_length == 20 and plain.dropout.p == 0.3 and plain.head_type == head
        assert not plain.training
        state = {k: v for k, v in net.state_dict().items() if not k.startswith("mlm_head.")}
        assert plain.state_dict().keys() == state.keys()
        for k, v in plain.state_dict().items():
            assert torch.equal(v, state[k]), k


# ------------------------------------------------------------------ the loss strategy
def test_strategy_arguments_are_checked_word_for_word() -> None:
    s = AresLossStrategy()
    assert (s.mlm_weight, s.mask_prob, s.masking) == (1.0, 0.15, "input")
    assert s._continuation is None and s.name == "ares"
    s = AresLossStrategy(mlm_weight=0, mask_prob=0.5, masking="document-wwm")
    assert (s.mlm_weight, s.mask_prob, s.masking) == (0.0, 0.5, "document-wwm")
    assert isinstance(s.mlm_weight, float) and isinstance(s.mask_prob, float)
    with pytest.raises(ValueError) as e:
        AresLossStrategy(mlm_weight=-0.5)
    assert str(e.value) == "mlm_weight must be >= 0 (got -0.5)"
    for bad in (0, 1, 1.5):
        with pytest.raises(ValueError) as e:
            AresLossStrategy(mask_prob=bad)
        assert str(e.value) == f"mask_prob must lie in (0, 1) (got {bad})"
    with pytest.raises(ValueError, match=r"^unknown ARES masking 'wwm'"):
        AresLossStrategy(masking="wwm")


class _Tokenizer:
    """convert_ids_to_tokens over a fixed vocabulary, counting its calls."""

    def __init__(self, tokens):
        self.tokens = tokens
        self.calls = 0

    def __len__(self):
        return len(self.tokens)

    def convert_ids_to_tokens(self, ids):
        self.calls += 1
        return [self.tokens[i] for i in ids]


def test_continuation_flags_are_the_word_pieces_computed_once_per_tokenizer() -> None:
    s = AresLossStrategy(masking="document-wwm")
    tok = _Tokenizer(["[PAD]", "a", "##b", "#c", "##", None, "x##", "##d"])
    flags = s.continuation(tok)
    assert flags.dtype == torch.bool
    assert flags.tolist() == [False, False, True, False, True, False, False, True]
    assert s.continuation(tok) is flags and tok.calls == 1  # cached
    other = _Tokenizer(["##a", "b"])
    assert s.continuation(other).tolist() == [True, False] and other.calls == 1
    assert s.continuation(tok).tolist() == flags.tolist() and tok.calls == 2


def test_setup_needs_an_ares_model_for_mlm(tiny) -> None:
    from axiomatic.training.strategy_base import StepContext

    plain = SimpleNamespace()
    ctx = StepContext(model=plain, config=None, train_data=None, device=None, text=None)
    with pytest.raises(TypeError) as e:
        AresLossStrategy().setup(ctx, {})
    assert str(e.value) == (
        "ARES pre-training with MLM needs an AresCrossEncoder (got SimpleNamespace); "
        "use mlm_weight=0 for a plain cross-encoder"
    )
    AresLossStrategy(mlm_weight=0).setup(ctx, {})  # no MLM: any cross-encoder
    ctx = StepContext(model=_net(), config=None, train_data=None, device=None, text=None)
    AresLossStrategy().setup(ctx, {})


DOCS = {
    "d0": "solar panels convert sunlight into electricity on the roof of a farm near the river",
    "d1": "the [UNK] river floods unbelievably photovoltaic valleys every spring",
    "d2": "short",
}
PQ = {
    "a": "roof",
    "b": "solar farm river valley floods spring water melt",
    "c": "river",
    "d": "x",
    "e": "photovoltaic electrification",
}


def _ctx(net, seed=3, margin=1.0, dist=None):
    from axiomatic.training.distributed import DistributedContext
    from axiomatic.training.samplers import Pair
    from axiomatic.training.strategy_base import StepContext

    ctx = StepContext(
        config=SimpleNamespace(margin=margin, seed=seed),
        train_data=SimpleNamespace(queries={k: SimpleNamespace(text=v) for k, v in DOCS.items()}),
        text=lambda pid: PQ[pid],
        model=net,
        device=torch.device("cpu"),
        dist=dist or DistributedContext(),
    )
    # the (q-, d0) row is the longest: the MLM rows are cut shorter than the hinge batch
    batch = [Pair("d0", "a", "b", 1, 0), Pair("d1", "c", "e", 1, 0), Pair("d2", "d", "a", 1, 0)]
    return ctx, batch


def _reference_step(net, ctx, batch, step, weight, prob, masking, rank_seed=None):
    """hinge(model(**enc)) + weight * mlm_loss of the masked rows, masks drawn as specified:
    generator seeded with seed * 1,000,003 + step, special tokens from the tokenizer."""
    from axiomatic.ares.pretrain import mask_tokens as mt

    tok = net.tokenizer
    B = len(batch)
    docs = [DOCS[p.query_id] for p in batch]
    qs = [PQ[p.doc_hi] for p in batch] + [PQ[p.doc_lo] for p in batch]
    enc = net.encode_batch(qs, docs + docs)
    rows = B if masking == "input" else 2 * B
    am = enc["attention_mask"][:rows]
    Lm = int(am.sum(1).max())
    ids = enc["input_ids"][:rows, :Lm]
    special = torch.tensor(
        [tok.get_special_tokens_mask(r, already_has_special_tokens=True) for r in ids.tolist()],
        dtype=torch.bool,
    ) | (am[:, :Lm] == 0)
    seed = ctx.config.seed * 1_000_003 + step if rank_seed is None else rank_seed
    gen = torch.Generator().manual_seed(seed)
    mask_id, V = tok.mask_token_id, net.encoder.config.vocab_size
    if masking == "input":
        mids, labels = mt(ids, special, mask_id, V, gen, prob)
    else:
        doc = ~special & (enc["token_type_ids"][:rows, :Lm] == 1)
        cont = torch.tensor(
            [[t.startswith("##") for t in tok.convert_ids_to_tokens(r)] for r in ids.tolist()]
        )
        mids, labels = mask_whole_words(ids, doc, cont, mask_id, V, gen, prob)
    with torch.no_grad():
        s = net(**enc).float()
        rel = torch.clamp(ctx.config.margin - s[:B] + s[B:], min=0).mean()
        mlm = net.mlm_loss(
            mids, enc["attention_mask"][:rows, :Lm], enc["token_type_ids"][:rows, :Lm], labels
        )
    return float(rel), float(mlm), labels


@pytest.mark.parametrize("masking", ["input", "document-wwm"])
def test_step_loss_is_hinge_plus_weighted_mlm(tiny, monkeypatch, masking) -> None:
    net = _net().eval()
    ctx, batch = _ctx(net, seed=3, margin=2.0)
    seen = []
    real = net.scores_and_mlm_loss

    def spy(enc, ids, labels):
        seen.append(labels)
        return real(enc, ids, labels)

    monkeypatch.setattr(net, "scores_and_mlm_loss", spy)
    strategy = AresLossStrategy(mlm_weight=0.7, mask_prob=0.3, masking=masking)
    loss, info = strategy.step_loss(ctx, batch, 5)
    rel, mlm, labels = _reference_step(net, ctx, batch, 5, 0.7, 0.3, masking)
    assert torch.equal(seen[0], labels)
    assert int((labels != -100).sum()) >= 3
    assert set(info) == {"rel_loss", "mlm_loss"}
    assert info["rel_loss"] == pytest.approx(rel, abs=1e-5)
    assert info["mlm_loss"] == pytest.approx(mlm, abs=1e-5)
    assert float(loss.detach()) == pytest.approx(rel + 0.7 * mlm, abs=1e-5)
    assert rel > 0.5 and mlm > 1.0
    loss.backward()  # one graph through both losses
    assert net.mlm_head.bias.grad is not None and net.head.weight.grad is not None


def test_step_loss_defaults_and_rank_seeds(tiny, monkeypatch) -> None:
    from axiomatic.training.distributed import DistributedContext

    net = _net().eval()
    ctx, batch = _ctx(net, seed=2)
    loss, info = AresLossStrategy().step_loss(ctx, batch, 1)
    rel, mlm, labels = _reference_step(net, ctx, batch, 1, 1.0, 0.15, "input")
    assert float(loss.detach()) == pytest.approx(rel + mlm, abs=1e-5)
    assert info["mlm_loss"] == pytest.approx(mlm, abs=1e-5)
    # under torchrun: rank 1 of 2 draws its own masks (seed * 1000 + rank)
    ctx, batch = _ctx(net, seed=2, dist=DistributedContext(rank=1, world_size=2))
    seen = []
    real = net.scores_and_mlm_loss

    def spy(enc, ids, labels):
        seen.append(labels)
        return real(enc, ids, labels)

    monkeypatch.setattr(net, "scores_and_mlm_loss", spy)
    AresLossStrategy().step_loss(ctx, batch, 1)
    _, _, labels1 = _reference_step(
        net, ctx, batch, 1, 1.0, 0.15, "input", rank_seed=(2 * 1_000_003 + 1) * 1000 + 1
    )
    assert torch.equal(seen[0], labels1) and not torch.equal(labels1, labels)


def test_step_loss_without_mlm_is_the_plain_hinge(tiny, monkeypatch) -> None:
    net = _net().eval()
    ctx, batch = _ctx(net, margin=1.5)
    monkeypatch.setattr(net, "scores_and_mlm_loss", None)  # not used without MLM
    loss, info = AresLossStrategy(mlm_weight=0.0).step_loss(ctx, batch, 0)
    rel, _, _ = _reference_step(net, ctx, batch, 0, 0.0, 0.15, "input")
    assert info == {"rel_loss": pytest.approx(rel, abs=1e-6)}
    assert float(loss.detach()) == pytest.approx(rel, abs=1e-6)


# ------------------------------------------------------------------ pairs
# 9 documents: rows 0..8 of the index; row 4 has a single pseudo query (never paired), row 7
# none; pseudo queries are grouped by document as the sampler writes them
_PSEUDO_DOC = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 4, 5, 5, 5, 5, 5, 6, 6, 8, 8, 8])


def _axiom_table(n_axioms=9, seed=0):
    """Per pseudo query, per axiom: a score in {0, 1, 2} (a pair's preference is the sign of
    the difference, so ties, agreements and disagreements all occur)."""
    return np.random.default_rng(seed).integers(0, 3, size=(len(_PSEUDO_DOC), n_axioms))


@pytest.fixture
def fake_axioms(monkeypatch):
    """preference_features replaced by the signs of score differences; every call recorded."""
    import axiomatic.axioms.query_pairs as QP

    calls = []
    table = _axiom_table()

    def preference_features(ctx, i, j, axioms="all"):
        n = 9 if axioms == "all" else len(axioms)
        X = np.sign(table[i, :n] - table[j, :n]).astype(float)
        calls.append((ctx, np.asarray(i), np.asarray(j), axioms, X))
        return X

    monkeypatch.setattr(QP, "preference_features", preference_features)
    return calls


def _prep_for_pairs():
    return SimpleNamespace(pseudo=SimpleNamespace(doc=_PSEUDO_DOC), ctx="the-context")


def _reference_draws(P_, seed):
    """The pairs as specified: per document with >= 2 pseudo queries (in row order), P_ draws
    a ~ U{0..n-1}, b ~ U{0..n-2} shifted past a, from default_rng([seed, 31])."""
    rows, first, counts = np.unique(_PSEUDO_DOC, return_index=True, return_counts=True)
    ok = counts >= 2
    rows, first, counts = rows[ok], first[ok], counts[ok]
    rng = np.random.default_rng([seed, 31])
    a = rng.integers(0, counts[:, None], size=(len(rows), P_))
    b = rng.integers(0, counts[:, None] - 1, size=(len(rows), P_))
    i, j, d = [], [], []
    for r in range(len(rows)):
        for k in range(P_):
            bb = b[r, k] + 1 if b[r, k] >= a[r, k] else b[r, k]
            i.append(first[r] + a[r, k])
            j.append(first[r] + bb)
            d.append(rows[r])
    return np.array(d), np.array(i), np.array(j)


def _expected(d, i, j, X, rule, strict_min=3, p=None):
    out = []
    for n in range(len(d)):
        if rule == "predictor":
            if p[n] == 0.5:
                continue
            pair = (i[n], j[n]) if p[n] > 0.5 else (j[n], i[n])
        else:
            pos, neg = int((X[n] > 0).sum()), int((X[n] < 0).sum())
            need = strict_min if rule == "strict" else 1
            if (pos and neg) or pos + neg < need:
                continue
            pair = (i[n], j[n]) if pos else (j[n], i[n])
        out.append((d[n], *pair))
    return out


@pytest.mark.parametrize(
    ("variant", "axioms"),
    [("strict", "all"), ("rep", ["Q-REP-QL", "Q-REP-TFIDF"]), ("rank", ["Q-RANK"])],
)
def test_axiom_variants_order_each_pair_by_its_axioms(fake_axioms, variant, axioms) -> None:
    prep = _prep_for_pairs()
    d, qp, qn = P.ares_pairs(prep, f"ARES_{variant}", None, pairs_per_doc=3, seed=4)
    ((ctx, i, j, used, X),) = fake_axioms
    assert ctx == "the-context" and used == axioms
    rd, ri, rj = _reference_draws(3, 4)
    assert np.array_equal(i, ri) and np.array_equal(j, rj)
    exp = _expected(rd, i, j, X, variant)
    assert len(exp) > 0 and len(exp) < len(rd)
    assert list(zip(d.tolist(), qp.tolist(), qn.tolist(), strict=True)) == [
        tuple(int(x) for x in e) for e in exp
    ]
    # q+ is preferred by every decisive axiom: the reversed pair would be dispreferred
    table = _axiom_table()[:, : X.shape[1]]
    assert (np.sign(table[qp] - table[qn]) >= 0).all()
    assert (np.sign(table[qp] - table[qn]) > 0).any(axis=1).all()


def test_strict_needs_strict_min_decisive_axioms(fake_axioms) -> None:
    prep = _prep_for_pairs()
    for m in (1, 2, 4):
        d, qp, qn = P.ares_pairs(prep, "strict", None, pairs_per_doc=3, seed=4, strict_min=m)
        X = fake_axioms[-1][4]
        i, j = fake_axioms[-1][1], fake_axioms[-1][2]
        exp = _expected(_reference_draws(3, 4)[0], i, j, X, "strict", strict_min=m)
        assert list(zip(d.tolist(), qp.tolist(), qn.tolist(), strict=True)) == [
            tuple(int(x) for x in e) for e in exp
        ]
    # the default is 3; rep/rank need one decisive axiom whatever strict_min says
    d3, *_ = P.ares_pairs(prep, "strict", None, pairs_per_doc=3, seed=4)
    X = fake_axioms[-1][4]
    decisive = (X != 0).sum(1)
    agree = ((X > 0).sum(1) == 0) | ((X < 0).sum(1) == 0)
    assert len(d3) == int(((decisive >= 3) & agree).sum())
    dr, *_ = P.ares_pairs(prep, "rank", None, pairs_per_doc=3, seed=4, strict_min=5)
    assert len(dr) == int((fake_axioms[-1][4][:, 0] != 0).sum())


class _Predictor:
    """p(first over second) from the first axiom's sign: 0.8 / 0.5 / 0.3; records its input."""

    def __init__(self):
        self.X = None

    def predict_proba(self, X):
        self.X = X
        return np.where(X[:, 0] > 0, 0.8, np.where(X[:, 0] < 0, 0.3, 0.5))


@pytest.mark.parametrize("variant", ["simple", "hard"])
def test_predictor_variants_put_the_preferred_query_first(fake_axioms, variant) -> None:
    prep = _prep_for_pairs()
    pred = _Predictor()
    d, qp, qn = P.ares_pairs(prep, variant, pred, seed=1)  # 2 pairs per document
    ((_, i, j, used, X),) = fake_axioms
    assert used == "all" and pred.X is X
    rd, ri, rj = _reference_draws(2, 1)
    assert np.array_equal(i, ri) and np.array_equal(j, rj)
    p = pred.predict_proba(X)
    exp = _expected(rd, i, j, X, "predictor", p=p)
    assert 0 < len(exp) < len(rd)
    got = list(zip(d.tolist(), qp.tolist(), qn.tolist(), strict=True))
    assert got == [tuple(int(x) for x in e) for e in exp]
    with pytest.raises(ValueError) as e:
        P.ares_pairs(prep, variant, None)
    assert str(e.value) == f"variant {variant!r} needs a trained preference predictor"


def test_pair_draws_are_uniform_over_ordered_pairs_and_seeded(fake_axioms) -> None:
    prep = _prep_for_pairs()
    P.ares_pairs(prep, "rank", None, pairs_per_doc=600, seed=0)
    _, i, j, _, _ = fake_axioms[-1]
    assert (_PSEUDO_DOC[i] == _PSEUDO_DOC[j]).all() and (i != j).all()
    # document 0: 3 pseudo queries, 6 ordered pairs, each ~1/6 of its 600 draws
    sel = _PSEUDO_DOC[i] == 0
    counts = {}
    for a, b in zip(i[sel].tolist(), j[sel].tolist(), strict=True):
        counts[(a, b)] = counts.get((a, b), 0) + 1
    assert sorted(counts) == [(a, b) for a in range(3) for b in range(3) if a != b]
    assert all(60 < c < 140 for c in counts.values())
    assert set(_PSEUDO_DOC[i].tolist()) == {0, 1, 2, 3, 5, 6, 8}  # not 4 (one query), not 7
    P.ares_pairs(prep, "rank", None, pairs_per_doc=600, seed=0)
    assert np.array_equal(fake_axioms[-1][1], i)
    P.ares_pairs(prep, "rank", None, pairs_per_doc=600, seed=1)
    assert not np.array_equal(fake_axioms[-1][1], i)


# ------------------------------------------------------------------ the training data
WORDS = ["running", "dogs", "cats", "rivers", "solar", "panels", "flooding", "valley"]


class _Pseudo:
    def __init__(self, doc, term_lists):
        self.doc = np.asarray(doc)
        self.offsets = np.cumsum([0] + [len(t) for t in term_lists])
        self.term_ids = np.array([t for ts in term_lists for t in ts])

    def terms(self, k):
        return self.term_ids[self.offsets[k] : self.offsets[k + 1]]


def _prepared(fingerprint="coll-1"):
    """A prepared sample of 9 documents (D0..D8), the pseudo queries of _PSEUDO_DOC."""
    from axiomatic.text.analyzer import Analyzer

    an = Analyzer()
    terms = an.stem(WORDS)
    rng = np.random.default_rng(0)
    docs = [f"D{r}" for r in range(9)]
    texts = {
        d: " ".join(str(w) for w in rng.choice(WORDS, size=5)) + f" the doc {r}"
        for r, d in enumerate(docs)
    }
    term_lists = [
        [int(t) for t in rng.choice(len(terms), size=2, replace=False)] for _ in _PSEUDO_DOC
    ]
    return SimpleNamespace(
        collection=SimpleNamespace(fingerprint=lambda: fingerprint),
        pseudo=_Pseudo(_PSEUDO_DOC, term_lists),
        index=SimpleNamespace(terms=terms, doc_ids=docs, texts=texts, analyzer=an),
        ctx="the-context",
        real_doc=np.array([0, 2, 5]),
    )


def test_surface_forms_are_the_most_frequent_word_of_each_stem() -> None:
    from axiomatic.text.analyzer import Analyzer

    an = Analyzer()
    texts = {"a": "The dogs ran; a dog runs.", "b": "Dogs and running dogs", "c": "running"}
    prep = SimpleNamespace(index=SimpleNamespace(analyzer=an, texts=texts))
    got = P.surface_forms(prep)
    # dog: dogs x3 (across documents) over dog x1; run: running x2 over runs x1; no stopwords
    assert got == {"dog": "dogs", "ran": "ran", "run": "running"}
    prep = SimpleNamespace(index=SimpleNamespace(analyzer=an, texts=None))
    assert P.surface_forms(prep) == {}


def test_ares_dataset_puts_documents_as_queries_and_pseudo_queries_as_documents() -> None:
    prep = _prepared()
    d = np.array([0, 2, 0])
    a = np.array([1, 5, 2])
    b = np.array([0, 8, 1])
    terms = prep.index.terms
    ds = P.ares_dataset(prep, d, a, b)
    assert ds.name == "ares-pretraining"
    assert ds.description == (
        "ARES pre-training pairs (queries = documents, documents = pseudo queries)"
    )
    assert list(ds.queries) == ["D0#0", "D2#1", "D0#2"]
    assert [q.query_id for q in ds.queries.values()] == list(ds.queries)
    assert [q.text for q in ds.queries.values()] == [
        prep.index.texts[x] for x in ("D0", "D2", "D0")
    ]
    assert ds.qrels == {
        "D0#0": {"pq1": 1, "pq0": 0},
        "D2#1": {"pq5": 1, "pq8": 0},
        "D0#2": {"pq2": 1, "pq1": 0},
    }
    assert ds.candidates == {"D0#0": ["pq1", "pq0"], "D2#1": ["pq5", "pq8"], "D0#2": ["pq2", "pq1"]}
    assert sorted(ds.documents) == ["pq0", "pq1", "pq2", "pq5", "pq8"]
    for k in (0, 1, 2, 5, 8):
        doc = ds.documents[f"pq{k}"]
        assert doc.doc_id == f"pq{k}"
        assert doc.text == " ".join(terms[t] for t in prep.pseudo.terms(k))
    surface = {terms[0]: "RUNNING", terms[3]: "RIVERS"}
    ds = P.ares_dataset(prep, d, a, b, surface)
    for k in (0, 1, 2, 5, 8):
        want = " ".join(surface.get(terms[t], terms[t]) for t in prep.pseudo.terms(k))
        assert ds.documents[f"pq{k}"].text == want


def test_prefixed_and_merge() -> None:
    from axiomatic.data.records import Dataset, Document, Query

    one = Dataset(
        name="x",
        queries={"q": Query("q", "text q")},
        documents={"d": Document("d", "text d"), "e": Document("e", "text e")},
        qrels={"q": {"d": 1, "e": 0}},
        candidates={"q": ["d", "e"]},
        description="first",
    )
    p = P._prefixed(one, "c0:")
    assert p.name == "x" and p.description == "first"
    assert p.queries == {"c0:q": Query("c0:q", "text q")}
    assert p.documents == {"c0:d": Document("c0:d", "text d"), "c0:e": Document("c0:e", "text e")}
    assert p.qrels == {"c0:q": {"c0:d": 1, "c0:e": 0}} and p.candidates == {
        "c0:q": ["c0:d", "c0:e"]
    }
    bare = Dataset(name="y", queries={"r": Query("r", "t")}, documents={}, description="second")
    b = P._prefixed(bare, "c1:")
    assert b.qrels == {} and b.candidates == {} and b.queries == {"c1:r": Query("c1:r", "t")}
    m = P._merge([p, b])
    assert m.name == "ares-pretraining" and m.description == "first"
    assert m.queries == {**p.queries, **b.queries} and m.documents == p.documents
    assert m.qrels == p.qrels and m.candidates == p.candidates
    m = P._merge([b, p])
    assert m.description == "second" and m.qrels == p.qrels and m.candidates == p.candidates
    empty = P._merge([])
    assert empty.description == "" and empty.queries == {} and empty.qrels == {}
    assert empty.candidates == {} and empty.name == "ares-pretraining"


def test_per_1k_steps_pair_versions_and_fingerprint() -> None:
    import hashlib

    from axiomatic.ares.pipeline import SCORES_VERSION
    from axiomatic.ares.sampling import SAMPLING_VERSION

    assert P.per_1k_steps({"steps": 4, "seconds": 2.0}) == 500.0
    assert P.per_1k_steps({"steps": 3, "seconds": 1.0}) == 333.3
    assert P.per_1k_steps({"steps": 7, "seconds": 0.0}) == 0.0
    assert P.per_1k_steps({"steps": 0, "seconds": 5.0}) is None
    assert P.per_1k_steps({"seconds": 5.0}) is None
    assert P.per_1k_steps({"steps": 4}) is None
    assert P.pair_versions() == {"pairs": 2, "sampling": SAMPLING_VERSION, "scores": SCORES_VERSION}
    prep = _prepared("abc")
    h = hashlib.sha1(b"abc")
    for arr in (prep.pseudo.doc, prep.pseudo.offsets, prep.pseudo.term_ids, prep.real_doc):
        h.update(np.ascontiguousarray(arr).tobytes())
    fp = P._sample_fingerprint(prep)
    assert fp == h.hexdigest()[:16]
    # each part counts
    for change in ("collection", "doc", "offsets", "term_ids", "real_doc"):
        other = _prepared("abc")
        if change == "collection":
            other.collection = SimpleNamespace(fingerprint=lambda: "abd")
        elif change == "real_doc":
            other.real_doc = np.array([0, 2, 6])
        else:
            arr = getattr(other.pseudo, change).copy()
            arr[-1] += 1
            setattr(other.pseudo, change, arr)
        assert P._sample_fingerprint(other) != fp, change


def test_build_model_is_seeded_and_leaves_the_callers_rng(tiny) -> None:
    torch.manual_seed(42)
    before = torch.random.get_rng_state()
    a = P.build_model(max_length=20, pretrained=False, seed=3)
    assert torch.equal(torch.random.get_rng_state(), before)
    b = P.build_model(max_length=20, pretrained=False, seed=3)
    c = P.build_model(max_length=20, pretrained=False, seed=4, head="linear")
    assert isinstance(a, AresCrossEncoder) and a.max_length == 20 and a.head_type == "mlp"
    assert c.head_type == "linear" and c.pooler is None
    for k, v in a.state_dict().items():
        assert torch.equal(v, b.state_dict()[k]), k
    assert not torch.equal(a.head.weight, c.head.weight)
    d = P.build_model(seed=3)  # defaults: 128 word pieces, pretrained (here: no pooler found)
    assert d.max_length == 128 and d.head_type == "mlp"
    assert torch.equal(d.head.weight, a.head.weight)


def test_build_model_default_is_pretrained(tiny, monkeypatch) -> None:
    w, b = torch.randn(32, 32), torch.randn(32)
    monkeypatch.setattr(T, "load_pooler", lambda *a, **k: (w, b))
    assert torch.equal(P.build_model().pooler.weight, w)
    a = P.build_model(pretrained=False)
    assert not torch.equal(a.pooler.weight, w)
    b = P.build_model(pretrained=False, seed=0)  # the default seed is 0
    for k, v in a.state_dict().items():
        assert torch.equal(v, b.state_dict()[k]), k


def test_train_predictor_fits_on_every_collection(monkeypatch) -> None:
    import axiomatic.ares.pipeline as PL
    import axiomatic.ares.predictor as PR

    calls = []

    def setting_features(p, setting, axioms, seed=0):
        calls.append((p, setting, axioms, seed))
        n = 2 if p == "p1" else 3
        return np.full((n, 2), float(len(calls))), np.arange(n) % 2, {}

    class Fake:
        def __init__(self, seed=0):
            self.seed = seed

        def fit(self, X, y):
            self.X, self.y = X, y
            return self

    monkeypatch.setattr(PL, "setting_features", setting_features)
    monkeypatch.setattr(PR, "PreferencePredictor", Fake)
    m = P.train_predictor(["p1", "p2"], "IV", ("Q-RANK",), seed=7)
    assert calls == [("p1", "IV", ["Q-RANK"], 7), ("p2", "IV", ["Q-RANK"], 7)]
    assert m.seed == 7
    assert m.X.tolist() == [[1.0, 1.0]] * 2 + [[2.0, 2.0]] * 3
    assert m.y.tolist() == [0, 1, 0, 1, 0]
    calls.clear()
    m = P.train_predictor(["p1"], "I")
    assert calls == [("p1", "I", "all", 0)] and m.seed == 0


# ------------------------------------------------------------------ the driver
class _FakeTrainer:
    """The trainer's interface: records what it was given; fit returns a summary."""

    made: ClassVar[list[_FakeTrainer]] = []

    def __init__(self, model, config, out_dir, train, dev=None, loss_strategy=None):
        self.model, self.config, self.out_dir, self.train = model, config, out_dir, train
        self.dev, self.strategy, self.resume = dev, loss_strategy, None
        _FakeTrainer.made.append(self)

    def fit(self, resume=False):
        self.resume = resume
        steps = self.config.steps
        return SimpleNamespace(to_dict=lambda: {"steps": steps, "seconds": 2.5, "best_step": 1})


class _SavedPredictor(_Predictor):
    def save(self, path):
        path.write_text("fake predictor")


@pytest.fixture
def driver(tiny, fake_axioms, monkeypatch):
    """pretrain_ares with the fake trainer and a predictor that needs no training."""
    import axiomatic.ares.predictor as PR
    import axiomatic.training.trainer as TR

    _FakeTrainer.made = []
    monkeypatch.setattr(TR, "Trainer", _FakeTrainer)
    trained, loaded = [], []

    def train_predictor(prepared, setting, feats, seed):
        trained.append((list(prepared), setting, feats, seed))
        return _SavedPredictor()

    def load(path):
        loaded.append(path.read_text())
        return _SavedPredictor()

    monkeypatch.setattr(P, "train_predictor", train_predictor)
    monkeypatch.setattr(PR.PreferencePredictor, "load", staticmethod(load))
    return SimpleNamespace(trained=trained, loaded=loaded, trainers=_FakeTrainer.made)


def test_pretrain_ares_writes_pairs_record_encoder_and_summary(driver, tmp_path) -> None:
    import pyarrow.parquet as pq

    from axiomatic.models.io import load_model
    from axiomatic.training.config import TrainConfig

    preps = [_prepared("one"), _prepared("two")]
    out = tmp_path / "run"
    kw = dict(steps=6, batch_size=4, lr=3e-5, max_length=20, eval_every=3, checkpoint_every=2)
    dev = SimpleNamespace(name="dev")
    res = P.pretrain_ares(preps, out, "ARES_rank", dev=dev, mlm_weight=0.5, seed=2,
                          pairs_per_doc=3, masking="document-wwm", **kw)  # fmt: skip
    assert driver.trained == [] and driver.loaded == []  # rank: no predictor
    pairs = [P.ares_pairs(p, "rank", None, 3, 2) for p in preps]
    n = sum(len(x[0]) for x in pairs)
    assert res == {
        "variant": "rank",
        "setting": None,
        "features": ["Q-RANK"],
        "head": "mlp",
        "masking": "document-wwm",
        "n_pairs": n,
        "versions": P.pair_versions(),
        "train": {"steps": 6, "seconds": 2.5, "best_step": 1},
        "encoder": str(out / "encoder"),
        "seconds_per_1k_steps": 416.7,
    }
    assert json.loads((out / "pretrain.json").read_text()) == res
    assert json.loads((out / "versions.json").read_text()) == P.pair_versions()
    assert json.loads((out / "unit.json").read_text()) == {
        "samples": [P._sample_fingerprint(p) for p in preps],
        "variant": "rank",
        "seed": 2,
        "pairs_per_doc": 3,
        "batch_size": 4,
        "lr": 3e-5,
        "max_length": 20,
        "mlm_weight": 0.5,
        "head": "mlp",
        "masking": "document-wwm",
    }
    t = pq.read_table(out / "pairs.parquet").to_pydict()
    assert t["collection"] == [0] * len(pairs[0][0]) + [1] * len(pairs[1][0])
    for col, k in (("doc", 0), ("q_pos", 1), ("q_neg", 2)):
        assert t[col] == pairs[0][k].tolist() + pairs[1][k].tolist()
    (tr,) = driver.trainers
    assert tr.config == TrainConfig(
        dataset="ares-pretraining",
        model="ares-cross-encoder",
        model_config={"max_length": 20},
        loss="hinge",
        margin=1.0,
        optimizer="adamw",
        lr=3e-5,
        lr_schedule="linear(warmup=0.1)",
        batch_size=4,
        steps=6,
        eval_every=3,
        checkpoint_every=2,
        patience=0,
        dev_depth=20,
        candidate_depth=2,
        seed=2,
    )
    assert tr.out_dir == out / "train" and tr.dev is dev and tr.resume is True
    assert isinstance(tr.strategy, AresLossStrategy)
    assert tr.strategy.mlm_weight == 0.5 and tr.strategy.masking == "document-wwm"
    assert tr.strategy.mask_prob == 0.15
    net = tr.model
    assert isinstance(net, AresCrossEncoder) and net.max_length == 20 and net.head_type == "mlp"
    ref = P.build_model(20, seed=2)
    for k, v in ref.state_dict().items():
        assert torch.equal(v, net.state_dict()[k]), k
    train = tr.train
    parts = [
        P._prefixed(P.ares_dataset(p, *x, P.surface_forms(p)), f"c{k}:")
        for k, (p, x) in enumerate(zip(preps, pairs, strict=True))
    ]
    want = P._merge(parts)
    assert train.queries == want.queries and train.documents == want.documents
    assert train.qrels == want.qrels and train.candidates == want.candidates
    assert len(train.queries) == n
    plain = load_model(out / "encoder")
    assert plain.head_type == "mlp" and plain.max_length == 20
    for k, v in net.export().state_dict().items():
        assert torch.equal(v, plain.state_dict()[k]), k
    # the finished stage is reused as it is
    assert P.pretrain_ares(preps, out, "rank", dev=dev, mlm_weight=0.5, seed=2,
                           pairs_per_doc=3, masking="document-wwm", **kw) == res  # fmt: skip
    assert len(driver.trainers) == 1
    # more steps: trains on, the pairs read back from their file
    res2 = P.pretrain_ares(preps, out, "rank", dev=dev, mlm_weight=0.5, seed=2, pairs_per_doc=3,
                           masking="document-wwm", **{**kw, "steps": 8})  # fmt: skip
    assert len(driver.trainers) == 2 and res2["train"]["steps"] == 8 and res2["n_pairs"] == n
    again = driver.trainers[1].train
    assert again.queries == want.queries and again.qrels == want.qrels
    assert json.loads((out / "pretrain.json").read_text())["train"]["steps"] == 8


def test_pretrain_ares_trains_the_predictor_once(driver, tmp_path) -> None:
    preps = [_prepared()]
    out = tmp_path / "simple"
    res = P.pretrain_ares(preps, out, "simple", steps=2, seed=1, head="linear")
    assert driver.trained == [(preps, "I", None, 1)]
    assert (out / "predictor.txt").read_text() == "fake predictor"
    d, _, _ = P.ares_pairs(preps[0], "simple", _Predictor(), 2, 1)
    assert res["n_pairs"] == len(d) and res["setting"] == "I" and res["features"] == "all"
    assert res["head"] == "linear" and res["masking"] == "input"
    (tr,) = driver.trainers
    assert tr.model.head_type == "linear" and tr.model.max_length == 128
    assert tr.strategy.mlm_weight == 1.0 and tr.strategy.masking == "input"
    assert tr.config.batch_size == 16 and tr.config.lr == 2e-5 and tr.config.eval_every == 250
    assert tr.config.checkpoint_every == 50 and tr.config.seed == 1 and tr.dev is None
    (out / "pairs.parquet").unlink()  # the predictor is loaded, not trained again
    P.pretrain_ares(preps, out, "simple", steps=3, seed=1, head="linear")
    assert len(driver.trained) == 1 and driver.loaded == ["fake predictor"]
    # a model passed in is trained (with the head asked for)
    model = P.build_model(24, pretrained=False, seed=5, head="linear")
    P.pretrain_ares(preps, out, "simple", steps=4, seed=1, head="linear", model=model)
    assert driver.trainers[-1].model is model


def test_pretrain_ares_refuses_other_versions_and_settings_word_for_word(driver, tmp_path) -> None:
    preps = [_prepared()]
    out = tmp_path / "old"
    out.mkdir()
    (out / "pairs.parquet").write_bytes(b"")
    (out / "predictor.txt").write_text("x")
    versions = P.pair_versions()
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, out, "rank")
    assert str(e.value) == (
        f"{out} holds predictor.txt, pairs.parquet written under other ARES versions "
        f"(unversioned; now {versions}): its pseudo queries or pair order are not the current "
        "ones. Remove the folder to pre-train this variant again"
    )
    old = {**versions, "pairs": 1}
    (out / "versions.json").write_text(json.dumps(old))
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, out, "rank")
    assert f"under other ARES versions ({old}; now {versions})" in str(e.value)
    (out / "versions.json").write_text(json.dumps(versions))
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, out, "rank")
    assert str(e.value) == (
        f"{out} holds predictor.txt, pairs.parquet no record of the settings it was made with. "
        "Remove the folder (or use another output folder) to pre-train with these settings"
    )
    # a finished run: its record, then another seed and another head asked for
    new = tmp_path / "new"
    P.pretrain_ares(preps, new, "rank", steps=2)
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, new, "rank", steps=2, seed=5, head="linear")
    assert str(e.value) == (
        f"{new} holds pretrain.json, pairs.parquet made with other settings: seed 0 -> 5; "
        "head 'mlp' -> 'linear'. Remove the folder (or use another output folder) to "
        "pre-train with these settings"
    )
    with pytest.raises(ValueError, match=r"other settings: samples \["):
        P.pretrain_ares([_prepared("other")], new, "rank", steps=2)
    # a record written before head and masking existed: the linear head and input masking
    record = json.loads((new / "unit.json").read_text())
    del record["head"], record["masking"]
    (new / "unit.json").write_text(json.dumps(record))
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, new, "rank", steps=2)
    assert "made with other settings: head 'linear' -> 'mlp'. Remove" in str(e.value)
    res = P.pretrain_ares(preps, new, "rank", steps=2, head="linear", masking="input")
    assert res["train"]["steps"] == 2 and len(driver.trainers) == 1  # reused


def test_pretrain_ares_checks_its_arguments_before_writing(driver, tmp_path) -> None:
    with pytest.raises(ValueError, match=r"^unknown ARES variant 'nope'"):
        P.pretrain_ares([], tmp_path / "a", "nope")
    with pytest.raises(ValueError, match=r"^unknown cross-encoder head 'cls'"):
        P.pretrain_ares([], tmp_path / "b", "rank", head="cls")
    with pytest.raises(ValueError, match=r"^unknown ARES masking 'wwm'"):
        P.pretrain_ares([], tmp_path / "c", "rank", masking="wwm")
    with pytest.raises(ValueError) as e:
        P.pretrain_ares([], tmp_path / "d", "rank", model=SimpleNamespace(head_type="linear"))
    assert str(e.value) == (
        "the model passed in has the 'linear' scoring head, not head='mlp': pass the head it "
        "was built with"
    )
    # a model without a scoring head is not a cross-encoder: it takes the hinge alone
    with pytest.raises(ValueError, match=r"takes the pairwise hinge only.*mlm_weight=0"):
        P.pretrain_ares([], tmp_path / "e", "rank", head="linear", model=SimpleNamespace())
    assert not any((tmp_path / x).exists() for x in "abcde")


def test_pretrain_ares_without_any_pair_is_an_error_word_for_word(driver, tmp_path, monkeypatch):
    empty = np.empty(0, dtype=np.int64)
    monkeypatch.setattr(P, "ares_pairs", lambda *a, **k: (empty, empty, empty))
    preps = [_prepared()]
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, tmp_path / "r", "rep")
    assert str(e.value) == (
        "ARES_rep: no pseudo-query pair is decided by the axioms Q-REP-QL, Q-REP-TFIDF "
        "without a disagreement"
    )
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, tmp_path / "s", "strict")
    assert str(e.value) == (
        "ARES_strict: no pseudo-query pair is decided by the axioms (all nine) "
        "without a disagreement"
    )
    with pytest.raises(ValueError) as e:
        P.pretrain_ares(preps, tmp_path / "h", "hard")
    assert str(e.value) == (
        "ARES_hard: the predictor of setting IV orders none of the pseudo-query pairs. The "
        "monotone predictor is flat (0.5 for every pair) when no axiom tells the real queries "
        "from the pseudo ones in its own direction on these collections (see the predictor's "
        "per-axiom AUC); it may not learn an axiom backwards"
    )
    assert not (tmp_path / "r" / "pairs.parquet").exists()
    assert json.loads((tmp_path / "r" / "versions.json").read_text()) == P.pair_versions()


def test_mask_whole_words_a_first_position_piece_starts_a_word_and_ints_are_flags() -> None:
    # the only candidates: a '##' piece at position 0 (nothing before it: a word's start) and
    # the piece after it; the word is the row's one word, so always drawn, both tokens targets
    ids = torch.tensor([[1001, 1002, 1003, 1004]] * 3)
    cand = torch.tensor([[1, 1, 0, 0]] * 3, dtype=torch.bool)
    cont = torch.tensor([[1, 1, 0, 1]] * 3, dtype=torch.bool)
    _, labels = mask_whole_words(ids, cand, cont, 3, 1000, torch.Generator().manual_seed(0))
    assert labels.tolist() == [[1001, 1002, -100, -100]] * 3
    # 0/1 integer flags are read as booleans
    L = 16
    gen = torch.Generator().manual_seed(8)
    ids = torch.randint(1000, 2000, (6, L), generator=gen)
    cand = torch.rand(6, L, generator=gen) < 0.7
    cont = torch.rand(6, L, generator=gen) < 0.4
    g1, g2 = torch.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    want = mask_whole_words(ids, cand, cont, 3, 1000, g1, 0.3)
    got = mask_whole_words(ids, cand.to(torch.uint8), cont.to(torch.int64), 3, 1000, g2, 0.3)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


def test_step_loss_moves_the_batch_to_the_runs_device(tiny, monkeypatch) -> None:
    import dataclasses

    net = _net().eval()
    ctx, batch = _ctx(net)
    ctx = dataclasses.replace(ctx, device=torch.device("meta"))
    seen = []

    def spy(enc, ids, labels):
        seen.append([v.device.type for v in enc.values()] + [ids.device.type, labels.device.type])
        return torch.zeros(2 * len(batch)), torch.zeros(())

    monkeypatch.setattr(net, "scores_and_mlm_loss", spy)
    AresLossStrategy().step_loss(ctx, batch, 0)
    assert seen == [["meta"] * 5]


class _ConfigWithout:
    """A model config that lacks some attributes (a config class without them)."""

    def __init__(self, cfg, missing):
        self._cfg, self._missing = cfg, set(missing)

    def __getattr__(self, name):
        if name in self._missing:
            raise AttributeError(name)
        return getattr(self._cfg, name)


@pytest.mark.parametrize("train", [False, True])
def test_hidden_at_with_a_config_without_chunking_or_decoder_fields(tiny, train) -> None:
    net = _net().train(train)
    enc = _batch(net)
    am, tt = enc["attention_mask"], enc["token_type_ids"]
    sel = torch.zeros_like(am, dtype=torch.bool)
    sel[0, [1, 4]] = True
    sel[2, 5] = True
    emb = net.encoder.get_input_embeddings()(enc["input_ids"])
    torch.manual_seed(4)
    ref = net.encoder(inputs_embeds=emb, attention_mask=am, token_type_ids=tt).last_hidden_state
    net.encoder.config = _ConfigWithout(
        net.encoder.config, ["chunk_size_feed_forward", "is_decoder"]
    )
    calls = _last_layer_calls(net)
    torch.manual_seed(4)
    got = net._hidden_at(emb, am, tt, sel)
    assert calls == []  # neither field: the fast path
    torch.testing.assert_close(got, ref[sel], rtol=1e-5, atol=1e-5)


def test_hidden_at_zero_dropout_in_training_is_the_eval_pass_and_draws_nothing(tiny) -> None:
    net = _net()
    for m in net.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    net.train()
    enc = _batch(net)
    am, tt = enc["attention_mask"], enc["token_type_ids"]
    sel = am.to(torch.bool).clone()
    emb = net.encoder.get_input_embeddings()(enc["input_ids"])
    torch.manual_seed(1)
    got = net._hidden_at(emb, am, tt, sel)
    after = torch.random.get_rng_state()
    torch.manual_seed(1)
    net.encoder(inputs_embeds=emb, attention_mask=am, token_type_ids=tt)
    assert torch.equal(after, torch.random.get_rng_state())  # p = 0: no noise drawn
    net.eval()
    ref = net.encoder(inputs_embeds=emb, attention_mask=am, token_type_ids=tt).last_hidden_state
    torch.testing.assert_close(got, ref[sel], rtol=1e-5, atol=1e-5)


def test_hidden_at_float64_dropout_is_exact(tiny) -> None:
    """With dropout in float64 the noise is in the activations' dtype (1 / 0.9 not rounded to
    float32): the same values as the full pass to 1e-12."""
    net = _net().double().train()
    enc = _batch(net)
    am, tt = enc["attention_mask"], enc["token_type_ids"]
    sel = am.to(torch.bool).clone()
    emb = net.encoder.get_input_embeddings()(enc["input_ids"]).detach()
    torch.manual_seed(2)
    got = net._hidden_at(emb, am, tt, sel)
    torch.manual_seed(2)
    ref = net.encoder(inputs_embeds=emb, attention_mask=am, token_type_ids=tt).last_hidden_state
    assert got.dtype == emb.dtype == torch.float64
    torch.testing.assert_close(got, ref[sel], rtol=1e-12, atol=1e-12)


def test_axiom_variants_keep_agreeing_pairs_with_enough_decisive_axioms(monkeypatch) -> None:
    """Fixed preferences per sampled pair: strict keeps >= strict_min (default 3) decisive
    axioms that all agree, rep/rank >= 1; q+ is the query the axioms prefer."""
    import axiomatic.axioms.query_pairs as QP

    rows = [
        [1, 1, 1, 0, 0, 0, 0, 0, 0],  # 3 agree: strict keeps (default), not with 4
        [1, 1, 0, 0, 0, 0, 0, 0, 0],  # 2 agree: strict drops, strict_min=2 keeps
        [-1, -1, -1, -1, 0, 0, 0, 0, 0],  # 4 agree, second query first
        [1, -1, 1, 1, 0, 0, 0, 0, 0],  # a disagreement: dropped
        [0, 0, 0, 0, 0, 0, 0, 0, 0],  # nothing decided: dropped
        [-1, 0, 0, 0, 0, 0, 0, 0, 0],  # 1 decisive (second query first): rank keeps
    ]

    def preference_features(ctx, i, j, axioms="all"):
        n = 9 if axioms == "all" else len(axioms)
        X = np.array([rows[k % len(rows)] for k in range(len(i))], dtype=float)
        return X[:, :n]

    monkeypatch.setattr(QP, "preference_features", preference_features)
    prep = SimpleNamespace(pseudo=SimpleNamespace(doc=np.array([0, 0, 0, 1, 1, 1])), ctx=None)
    # 2 documents x 3 pairs = rows 0..5 in draw order
    _, i, j = _reference_draws_for(prep.pseudo.doc, 3, 0)

    def got(variant, **kw):
        _, qp, qn = P.ares_pairs(prep, variant, None, pairs_per_doc=3, **kw)
        return list(zip(qp.tolist(), qn.tolist(), strict=True))

    assert got("strict") == [(i[0], j[0]), (j[2], i[2])]
    assert got("strict", strict_min=4) == [(j[2], i[2])]
    assert got("strict", strict_min=2) == [(i[0], j[0]), (i[1], j[1]), (j[2], i[2])]
    # rank: the first column only
    assert got("rank") == [(i[0], j[0]), (i[1], j[1]), (j[2], i[2]), (i[3], j[3]), (j[5], i[5])]
    assert got("rank", strict_min=5) == got("rank")
    assert got("rep") == [(i[0], j[0]), (i[1], j[1]), (j[2], i[2]), (j[5], i[5])]
    assert got("rank", seed=0) == got("rank")  # the default seed is 0


def _reference_draws_for(doc, P_, seed):
    rows, first, counts = np.unique(doc, return_index=True, return_counts=True)
    rng = np.random.default_rng([seed, 31])
    a = rng.integers(0, counts[:, None], size=(len(rows), P_))
    b = rng.integers(0, counts[:, None] - 1, size=(len(rows), P_))
    b = np.where(b >= a, b + 1, b)
    return np.repeat(rows, P_), (first[:, None] + a).ravel(), (first[:, None] + b).ravel()


def test_ares_dataset_refuses_columns_of_other_lengths() -> None:
    prep = _prepared()
    with pytest.raises(ValueError, match="zip"):
        P.ares_dataset(prep, np.array([0, 2]), np.array([1, 5]), np.array([0]))


def test_surface_forms_refuse_an_analyzer_whose_stems_do_not_match_its_tokens() -> None:
    an = SimpleNamespace(
        tokenize=lambda t: t.split(), is_stopword=lambda t: False, stem=lambda ts: ts[:-1]
    )
    prep = SimpleNamespace(index=SimpleNamespace(analyzer=an, texts={"a": "x y"}))
    with pytest.raises(ValueError, match="zip"):
        P.surface_forms(prep)


def test_pretrain_ares_defaults(driver, tmp_path) -> None:
    preps = [_prepared()]
    out = tmp_path / "new" / "default"  # parent folders are made
    res = P.pretrain_ares(preps, out)
    assert res["variant"] == "simple" and res["setting"] == "I"
    (tr,) = driver.trainers
    assert tr.config.steps == 1000 and tr.config.seed == 0 and res["train"]["steps"] == 1000
    assert driver.trained == [(preps, "I", None, 0)]
    d, _, _ = P.ares_pairs(preps[0], "simple", _Predictor(), 2, 0)
    assert res["n_pairs"] == len(d)
    # a summary without the trainer's part is not a finished stage: trained (resumed) again
    (out / "pretrain.json").write_text(json.dumps({"variant": "simple"}))
    assert P.pretrain_ares(preps, out) == res and len(driver.trainers) == 2
    # nor is a summary without the exported encoder
    (out / "encoder" / "config.json").unlink()
    assert P.pretrain_ares(preps, out) == res and len(driver.trainers) == 3
    assert P.pretrain_ares(preps, out) == res and len(driver.trainers) == 3  # now finished


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_hidden_at_on_cuda_in_eval_mode_is_the_full_pass(tiny) -> None:
    """The fast path's index tensors live on the activations' device (evaluation on a GPU)."""
    net = _net().eval().cuda()
    enc = {k: v.cuda() for k, v in _batch(net).items()}
    am, tt = enc["attention_mask"], enc["token_type_ids"]
    sel = torch.zeros_like(am, dtype=torch.bool)
    sel[0, [1, 4]] = True
    sel[2, 5] = True
    with torch.no_grad():
        emb = net.encoder.get_input_embeddings()(enc["input_ids"])
        got = net._hidden_at(emb, am, tt, sel)
        ref = net.encoder(inputs_embeds=emb, attention_mask=am, token_type_ids=tt)
    torch.testing.assert_close(got, ref.last_hidden_state[sel], rtol=1e-4, atol=1e-4)

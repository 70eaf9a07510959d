"""The paper's MLP(h_[CLS]) scoring head and the two MLM maskings of ARES.

* ``CrossEncoder(head="linear")`` (the toolkit's default) scores ``w^T h_[CLS] + b`` exactly as
  before; ``head="mlp"`` scores ``w^T tanh(W_p h_[CLS] + b_p) + b`` (BERT's pooler, started from
  the checkpoint's), in float32 under autocast too; the head survives save/load and export().
* ``masking="input"`` is BERT's token masking of the (q+, d) input, unchanged;
  ``masking="document-wwm"`` (the authors' code) masks whole words of the document only, on
  both the (q+, d) and the (q-, d) inputs.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import torch

from axiomatic.ares.pretrain import (
    AresCrossEncoder,
    AresLossStrategy,
    build_model,
    mask_tokens,
    mask_whole_words,
    pretrain_ares,
)
from axiomatic.models import build_model as build_ranker
from axiomatic.models import load_model, save_model
from axiomatic.models.hf_loader import minilm_path
from axiomatic.models.transformer import CrossEncoder

QUERIES = ["what do cats eat", "capital of france", "solar power"]
DOCS = [
    "Cats are carnivores and eat mostly meat such as fish and chicken.",
    "Paris is the capital and largest city of France.",
    "Photovoltaic panels convert sunlight into electricity.",
]


@pytest.fixture(scope="module")
def linear_ce():
    return build_ranker("cross-encoder", max_length=32, seed=0).eval()


@pytest.fixture(scope="module")
def mlp_ce():
    return build_ranker("cross-encoder", max_length=32, seed=0, head="mlp").eval()


def _cls(model, enc):
    with torch.no_grad():
        return model.token_embeddings(
            enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]
        )[:, 0]


def _checkpoint_pooler():
    from safetensors import safe_open

    with safe_open(str(minilm_path() / "model.safetensors"), framework="pt") as f:
        return f.get_tensor("pooler.dense.weight"), f.get_tensor("pooler.dense.bias")


# ------------------------------------------------------------------ (a) the linear head
def test_linear_head_is_the_default_and_scores_w_h_cls_plus_b(linear_ce, mlp_ce) -> None:
    m = linear_ce
    assert m.head_type == "linear" and m.config["head"] == "linear"
    assert m.pooler is None
    assert not [k for k in m.state_dict() if k.startswith("pooler")]
    enc = m.encode_batch(QUERIES, DOCS)
    h = _cls(m, enc)
    expected = h @ m.head.weight[0] + m.head.bias[0]  # dropout is the identity in eval mode
    with torch.no_grad():
        got = m(**enc)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-6)
    # the same seed gives the same encoder and the same w, b under both heads: the pooler is
    # drawn after the linear layer, so adding the option changed no draw of the linear head
    lin, mlp = m.state_dict(), mlp_ce.state_dict()
    assert set(mlp) - set(lin) == {"pooler.weight", "pooler.bias"}
    for k, v in lin.items():
        assert torch.equal(v, mlp[k]), k


# ------------------------------------------------------------------ (b) the MLP head
def test_mlp_head_is_pooler_tanh_then_linear_from_the_checkpoint_pooler(mlp_ce) -> None:
    m = mlp_ce
    assert m.head_type == "mlp" and m.config["head"] == "mlp"
    # the packaged all-MiniLM-L6-v2 has a pooler: the MLP head starts from it
    w, b = _checkpoint_pooler()
    assert torch.equal(m.pooler.weight, w) and torch.equal(m.pooler.bias, b)
    enc = m.encode_batch(QUERIES, DOCS)
    h = _cls(m, enc)
    pooled = torch.tanh(h @ w.T + b)
    expected = pooled @ m.head.weight[0] + m.head.bias[0]
    with torch.no_grad():
        got = m(**enc)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-6)
    # not the linear head's value on the same vectors
    linear = h @ m.head.weight[0] + m.head.bias[0]
    assert (got - linear).abs().max() > 1e-3
    # score_pairs (the ranking path) scores alike
    torch.testing.assert_close(m.score_pairs(QUERIES, DOCS, bf16=False), got)


def test_mlp_head_without_pretrained_weights_is_initialized_as_bert() -> None:
    torch.manual_seed(0)
    m = CrossEncoder(max_length=16, pretrained=False, head="mlp")
    w, _ = _checkpoint_pooler()
    assert not torch.equal(m.pooler.weight, w)
    assert torch.count_nonzero(m.pooler.bias) == 0
    assert m.pooler.weight.std().item() == pytest.approx(0.02, rel=0.05)
    assert m.pooler.weight.mean().abs().item() < 0.001


def test_the_head_runs_in_float32_under_autocast(mlp_ce) -> None:
    cls = torch.randn(4, mlp_ce.hidden_size)
    with torch.no_grad():
        plain = mlp_ce.score_cls(cls)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            auto = mlp_ce.score_cls(cls.to(torch.bfloat16))
    assert auto.dtype == torch.float32
    expected = mlp_ce.score_cls(cls.to(torch.bfloat16).float())
    torch.testing.assert_close(auto, expected, rtol=0, atol=0)
    assert plain.dtype == torch.float32


# ------------------------------------------------------------------ (c) save / load / export
def test_save_and_load_keep_the_head_and_the_scores(mlp_ce, linear_ce, tmp_path) -> None:
    before = mlp_ce.score_pairs(QUERIES, DOCS, bf16=False)
    save_model(mlp_ce, tmp_path / "mlp")
    meta = json.loads((tmp_path / "mlp" / "config.json").read_text())
    assert meta["config"]["head"] == "mlp"
    back = load_model(tmp_path / "mlp")
    assert isinstance(back, CrossEncoder) and back.head_type == "mlp"
    assert torch.equal(back.score_pairs(QUERIES, DOCS, bf16=False), before)
    # a model saved before the option existed (no "head" in its config) loads as linear
    lin_before = linear_ce.score_pairs(QUERIES, DOCS, bf16=False)
    save_model(linear_ce, tmp_path / "old")
    path = tmp_path / "old" / "config.json"
    meta = json.loads(path.read_text())
    del meta["config"]["head"]
    path.write_text(json.dumps(meta))
    old = load_model(tmp_path / "old")
    assert old.head_type == "linear" and old.pooler is None
    assert torch.equal(old.score_pairs(QUERIES, DOCS, bf16=False), lin_before)


def test_ares_export_keeps_the_mlp_head_and_its_scores(tmp_path) -> None:
    net = build_model(max_length=32, seed=0)  # ARES default: the paper's MLP head
    assert isinstance(net, AresCrossEncoder) and net.head_type == "mlp"
    with torch.no_grad():  # as if pre-trained: the pooler is no longer the checkpoint's
        net.pooler.weight.add_(0.01 * torch.randn_like(net.pooler.weight))
        net.head.bias.fill_(0.3)
    net.eval()
    plain = net.export()
    assert type(plain) is CrossEncoder and plain.head_type == "mlp"
    assert plain.config["head"] == "mlp"
    state = {k: v for k, v in net.state_dict().items() if not k.startswith("mlm_head.")}
    assert state.keys() == plain.state_dict().keys()
    for k, v in plain.state_dict().items():
        assert torch.equal(v, state[k]), k
    s_net = net.score_pairs(QUERIES, DOCS, bf16=False)
    assert torch.equal(plain.score_pairs(QUERIES, DOCS, bf16=False), s_net)
    save_model(plain, tmp_path / "enc")
    assert torch.equal(load_model(tmp_path / "enc").score_pairs(QUERIES, DOCS, bf16=False), s_net)
    # the fused pre-training step scores through score_cls, so with the same head
    enc = net.encode_batch(QUERIES, DOCS)
    labels = torch.full_like(enc["input_ids"], -100)
    labels[:, 2] = enc["input_ids"][:, 2]
    with torch.no_grad():
        fused, _ = net.scores_and_mlm_loss(enc, enc["input_ids"], labels)
        torch.testing.assert_close(fused, net(**enc), rtol=0, atol=1e-6)
    linear = build_model(max_length=32, seed=0, head="linear")
    assert linear.head_type == "linear" and linear.export().head_type == "linear"


# ------------------------------------------------------------------ masking
def _fake_trainer(model, docs, pqs, seed=3):
    """The StepContext a trainer would build (strategies see nothing else of it)."""
    from axiomatic.training.samplers import Pair
    from axiomatic.training.strategy_base import StepContext

    trainer = StepContext(
        config=SimpleNamespace(margin=1.0, seed=seed),
        train_data=SimpleNamespace(
            queries={f"d{i}": SimpleNamespace(text=t) for i, t in enumerate(docs)}
        ),
        text=lambda pid: pqs[pid],
        model=model,
        device=torch.device("cpu"),
    )
    batch = [
        Pair(f"d{i}", f"p{i % len(pqs)}", f"p{(i + 1) % len(pqs)}", 1, 0) for i in range(len(docs))
    ]
    return trainer, batch


WWM_DOCS = [
    "unbelievably photovoltaic electrification of antidisestablishmentarianism continues",
    "the hydroelectricity plant near Reykjavik produces geothermally heated water",
    "short",
    "tokenization of supercalifragilisticexpialidocious words is unconventional but fun",
    "a [UNK] token and the quick brown fox jumps over the lazy dog every single morning",
    "cryptocurrencies and blockchains decentralise infrastructural microtransactions",
]
PQS = {
    "p0": "photovoltaic electrification",
    "p1": "hydroelectricity geothermally",
    "p2": "supercalifragilisticexpialidocious",
    "p3": "x",
}


@pytest.fixture(scope="module")
def small_net():
    torch.manual_seed(0)
    return AresCrossEncoder(max_length=40, pretrained=False)


def _words(tokens, types, mask):
    """The document's words (lists of positions), segmented independently of the code under
    test: from the first second-segment token, a '##' piece joins the word before it."""
    words: list[list[int]] = []
    for i, (t, ty, m) in enumerate(zip(tokens, types, mask, strict=True)):
        if not m or ty != 1 or t in ("[SEP]", "[CLS]", "[PAD]", "[UNK]", "[MASK]"):
            continue
        if t.startswith("##") and words and words[-1][-1] == i - 1:
            words[-1].append(i)
        else:
            words.append([i])
    return words


def _spied_steps(net, strategy, steps, monkeypatch, repeat=1):
    trainer, batch = _fake_trainer(net, WWM_DOCS, PQS)
    batch = batch * repeat
    seen = []

    def spy(enc, mlm_input_ids, labels):
        seen.append((enc, mlm_input_ids, labels))
        n = enc["input_ids"].shape[0]
        return torch.zeros(n, requires_grad=True), torch.zeros((), requires_grad=True)

    monkeypatch.setattr(net, "scores_and_mlm_loss", spy)
    for step in range(steps):
        strategy.step_loss(trainer, batch, step)
    return trainer, batch, seen


def test_document_wwm_masks_whole_document_words_of_both_inputs(small_net, monkeypatch) -> None:
    net = small_net
    tok = net.tokenizer
    _, batch, seen = _spied_steps(
        net, AresLossStrategy(masking="document-wwm"), 30, monkeypatch, repeat=3
    )
    B = len(batch)
    target_words = n_words = rows_with_targets_neg = 0
    multi_piece_targets = 0
    for enc, ids, labels in seen:
        assert ids.shape[0] == 2 * B  # both inputs: (q+, d) and (q-, d)
        Lm = ids.shape[1]
        types = enc["token_type_ids"][:, :Lm]
        am = enc["attention_mask"][:, :Lm]
        target = labels != -100
        orig = enc["input_ids"][:, :Lm]
        # never a query-segment token, a special token or padding
        assert not (target & (types == 0)).any()
        assert not (target & (am == 0)).any()
        assert not (target & torch.isin(orig, torch.tensor(tok.all_special_ids))).any()
        assert (labels[target] == orig[target]).all()
        assert (ids[~target] == orig[~target]).all()
        rows_with_targets_neg += int(target[B:].any(1).sum())
        for r in range(2 * B):
            toks = tok.convert_ids_to_tokens(orig[r].tolist())
            words = _words(toks, types[r].tolist(), am[r].tolist())
            in_words = {i for w in words for i in w}
            assert set(target[r].nonzero().flatten().tolist()) <= in_words
            chosen = 0
            for w in words:
                flags = {bool(target[r, i]) for i in w}
                assert len(flags) == 1, (toks, w)  # all of a word's pieces, or none
                if True in flags:
                    chosen += 1
                    multi_piece_targets += len(w) > 1
            # max(1, round(15 % of the document's words)) words per input
            assert chosen == max(1, round(0.15 * len(words)))
            target_words += chosen
            n_words += len(words)
    assert rows_with_targets_neg == 30 * B  # the (q-, d) inputs are masked too
    assert multi_piece_targets > 50  # the documents do have multi-piece words
    # ~15 % of the document words (the rounding and the at-least-one rule move it a little)
    assert n_words > 5000
    assert target_words / n_words == pytest.approx(0.15, abs=0.03)


def test_whole_word_masking_draws_words_uniformly_and_replaces_80_10_10() -> None:
    # 4000 copies of one row: [CLS] q q [SEP] then 40 words (every third has a '##' piece)
    pieces = []
    for w in range(40):
        pieces.append(False)
        if w % 3 == 0:
            pieces.append(True)
    L = 4 + len(pieces) + 1
    cand = torch.zeros(L, dtype=torch.bool)
    cand[4 : 4 + len(pieces)] = True
    cont = torch.zeros(L, dtype=torch.bool)
    cont[4 : 4 + len(pieces)] = torch.tensor(pieces)
    n = 4000
    ids = torch.randint(1000, 2000, (n, L))
    g = torch.Generator().manual_seed(0)
    masked, labels = mask_whole_words(
        ids, cand.expand(n, L), cont.expand(n, L), 3, 1000, g, prob=0.15
    )
    target = labels != -100
    assert not target[:, ~cand].any()
    starts = [4 + i for i, c in enumerate(pieces) if not c]
    per_word = target[:, starts].float()
    assert (per_word.sum(1) == round(0.15 * 40)).all()  # 6 words a row
    freq = per_word.mean(0)  # each word ~6/40 = 0.15 (s.e. 0.0056)
    assert (freq - 0.15).abs().max().item() < 0.03
    # the '##' piece follows its word
    for i, c in enumerate(pieces):
        if c:
            assert torch.equal(target[:, 4 + i], target[:, 4 + i - 1])
    frac_mask = (masked[target] == 3).float().mean().item()
    frac_same = (masked[target] == ids[target]).float().mean().item()
    assert frac_mask == pytest.approx(0.8, abs=0.02)
    assert frac_same == pytest.approx(0.1, abs=0.02)
    assert (masked[~target] == ids[~target]).all()
    # a row without candidates gets no target
    nothing = torch.zeros(2, L, dtype=torch.bool)
    g = torch.Generator().manual_seed(1)
    _, none = mask_whole_words(ids[:2], nothing, cont.expand(2, L), 3, 1000, g)
    assert (none == -100).all()


def _reference_mask_tokens(input_ids, special, mask_id, vocab_size, generator, prob=0.15):
    """mask_tokens as it was before the masking option (kept verbatim as the reference)."""
    ids = input_ids.clone()
    labels = input_ids.clone()
    p = torch.rand(ids.shape, generator=generator)
    target = (p < prob) & ~special
    labels[~target] = -100
    r = torch.rand(ids.shape, generator=generator)
    to_mask = target & (r < 0.8)
    to_random = target & (r >= 0.8) & (r < 0.9)
    ids[to_mask] = mask_id
    rand = torch.randint(vocab_size, ids.shape, generator=generator)
    ids[to_random] = rand[to_random]
    return ids, labels


def test_input_masking_is_unchanged(small_net, monkeypatch) -> None:
    ids = torch.randint(5, 1000, (64, 50))
    special = torch.rand(64, 50) < 0.2
    g1, g2 = torch.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    got = mask_tokens(ids, special, 3, 1000, g1)
    ref = _reference_mask_tokens(ids, special, 3, 1000, g2)
    assert torch.equal(got[0], ref[0]) and torch.equal(got[1], ref[1])
    assert torch.equal(g1.get_state(), g2.get_state())  # the same draws, no more
    # the strategy's default masks the (q+, d) rows only, with exactly those draws
    strategy = AresLossStrategy()
    assert strategy.masking == "input"
    _, batch, seen = _spied_steps(small_net, strategy, 2, monkeypatch)
    tok = small_net.tokenizer
    for step, (enc, mids, labels) in enumerate(seen):
        B = len(batch)
        am = enc["attention_mask"][:B]
        Lm = int(am.sum(1).max())
        rows = enc["input_ids"][:B, :Lm]
        special = torch.tensor(
            [
                tok.get_special_tokens_mask(r, already_has_special_tokens=True)
                for r in rows.tolist()
            ],
            dtype=torch.bool,
        ) | (am[:, :Lm] == 0)
        gen = torch.Generator().manual_seed(3 * 1_000_003 + step)
        rid, rlab = _reference_mask_tokens(
            rows, special, tok.mask_token_id, small_net.encoder.config.vocab_size, gen
        )
        assert torch.equal(mids, rid) and torch.equal(labels, rlab)


@pytest.mark.parametrize("train_mode", [False, True])
def test_document_wwm_step_equals_the_plain_formulation(small_net, train_mode) -> None:
    """The fused step with both inputs as MLM rows: the hinge of model(**enc) plus the mean
    cross-entropy of mlm_loss over both masked inputs."""
    from axiomatic.training.losses import pairwise_hinge

    net = small_net
    net.train(train_mode)
    trainer, batch = _fake_trainer(net, WWM_DOCS[:4], PQS)
    strategy = AresLossStrategy(masking="document-wwm")
    torch.manual_seed(5)
    loss, info = strategy.step_loss(trainer, batch, 4)
    B = len(batch)
    docs = [trainer.train_data.queries[p.query_id].text for p in batch]
    queries = [PQS[p.doc_hi] for p in batch] + [PQS[p.doc_lo] for p in batch]
    enc = net.encode_batch(queries, docs + docs)
    Lm = int(enc["attention_mask"].sum(1).max())
    ids = enc["input_ids"][:, :Lm]
    special = torch.isin(ids, torch.tensor(net.tokenizer.all_special_ids)) | (
        enc["attention_mask"][:, :Lm] == 0
    )
    document = ~special & (enc["token_type_ids"][:, :Lm] == 1)
    cont = strategy.continuation(net.tokenizer)[ids]
    gen = torch.Generator().manual_seed(3 * 1_000_003 + 4)
    mids, labels = mask_whole_words(
        ids, document, cont, net.tokenizer.mask_token_id, net.encoder.config.vocab_size, gen
    )
    torch.manual_seed(5)
    with torch.no_grad():
        scores = net(**enc).float()
        rel = pairwise_hinge(scores[:B], scores[B:], 1.0)
        mlm = net.mlm_loss(
            mids, enc["attention_mask"][:, :Lm], enc["token_type_ids"][:, :Lm], labels
        )
    assert info["mlm_loss"] == pytest.approx(float(mlm), abs=1e-5)
    assert info["rel_loss"] == pytest.approx(float(rel), abs=1e-5)
    assert float(loss.detach()) == pytest.approx(float(rel + mlm), abs=1e-5)
    net.eval()


def test_continuation_flags_are_the_tokenizers_word_pieces(small_net) -> None:
    tok = small_net.tokenizer
    flags = AresLossStrategy(masking="document-wwm").continuation(tok)
    assert flags.shape == (len(tok),)
    ids = tok("antidisestablishmentarianism", add_special_tokens=False)["input_ids"]
    assert len(ids) > 1
    assert flags[ids].tolist() == [False] + [True] * (len(ids) - 1)
    assert not flags[tok.all_special_ids].any()


# ------------------------------------------------------------------ (f) bad values, records
def test_bad_head_or_masking_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"head 'MLP'.*'linear', 'mlp'"):
        CrossEncoder(head="MLP")
    with pytest.raises(ValueError, match=r"head 'pooler'.*'linear', 'mlp'"):
        build_model(head="pooler")
    with pytest.raises(ValueError, match=r"masking 'wwm'.*'input', 'document-wwm'"):
        AresLossStrategy(masking="wwm")
    with pytest.raises(ValueError, match=r"masking 'document'.*'input', 'document-wwm'"):
        pretrain_ares([], tmp_path / "x", "rank", masking="document")
    with pytest.raises(ValueError, match=r"head 'cls'"):
        pretrain_ares([], tmp_path / "y", "rank", head="cls")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
    with pytest.raises(ValueError, match=r"model passed in has the 'linear' scoring head"):
        pretrain_ares([], tmp_path / "z", "rank", model=SimpleNamespace(head_type="linear"))


def test_pretraining_records_head_and_masking_and_refuses_a_folder_of_others(
    tmp_path, monkeypatch
) -> None:
    import numpy as np

    from axiomatic.ares import pretrain as P

    empty = np.empty(0, dtype=np.int64)
    monkeypatch.setattr(P, "ares_pairs", lambda *a, **k: (empty, empty, empty))
    monkeypatch.setattr(P, "_sample_fingerprint", lambda p: "a sample")
    out = tmp_path / "run"
    with pytest.raises(ValueError, match="no pseudo-query pair"):
        pretrain_ares([None], out, "rank")  # writes unit.json, then finds no pair
    record = json.loads((out / "unit.json").read_text())
    assert record["head"] == "mlp" and record["masking"] == "input"  # the defaults
    (out / "pairs.parquet").write_bytes(b"")  # the folder now holds a (cached) stage
    with pytest.raises(ValueError, match=r"other settings: head 'mlp' -> 'linear'"):
        pretrain_ares([None], out, "rank", head="linear")
    with pytest.raises(ValueError, match=r"other settings: masking 'input' -> 'document-wwm'"):
        pretrain_ares([None], out, "rank", masking="document-wwm")
    # a record written before the options existed was made with the linear head and BERT's
    # input masking: refused for the new default head, accepted for those settings
    del record["head"], record["masking"]
    (out / "unit.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"other settings: head 'linear' -> 'mlp'"):
        pretrain_ares([None], out, "rank")
    with pytest.raises(Exception) as exc:  # past the check: the empty stand-in parquet
        pretrain_ares([None], out, "rank", head="linear", masking="input")
    assert "other settings" not in str(exc.value)

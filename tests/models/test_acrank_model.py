"""The ACRank scorer: E() = cosine translation matrix -> kernel pooling -> MLP over BERT-style
token vectors; local encoder folders, save/load, the Ranker protocol, bad paths."""

from __future__ import annotations

import json

import pytest
import torch

from axiomatic.models import build_model, load_model, save_model
from axiomatic.models.acrank import ACRankModel, check_bert_path


def test_e_signal_backprops_into_encoder_and_mlp(tiny_bert):
    model = build_model("acrank", encoder_path=str(tiny_bert), max_length=32, seed=0)
    assert model.model_type == "acrank" and model.hidden_size == 32
    model.train()
    batch = model.encode_batch(["kernel pooling", "x"], ["kernel pooling counts", "y z"])
    feats = model.signals(**batch)
    assert feats.shape == (2, 11)
    scores = model(**batch)
    scores.sum().backward()
    assert model.mlp[0].weight.grad.abs().sum() > 0
    emb = model.encoder.embeddings.word_embeddings.weight.grad
    assert emb is not None and emb.abs().sum() > 0


def test_signal_ignores_padding_and_special_tokens(tiny_bert):
    model = build_model("acrank", encoder_path=str(tiny_bert), max_length=32, seed=0).eval()
    one = model.encode_batch(["kernel"], ["kernel pooling"])
    two = model.encode_batch(
        ["kernel", "a much longer query with many words"], ["kernel pooling"] * 2
    )
    with torch.no_grad():
        a = model.signals(**one)[0]
        b = model.signals(**two)[0]
    assert torch.allclose(a, b, atol=1e-5)  # padding of the batch changes nothing


def test_cls_ablation_and_round_trip_as_a_ranker(tiny_bert, tmp_path):
    from axiomatic.rankers.registry import make_ranker

    for signal in ("kernel", "cls"):
        model = build_model(
            "acrank", encoder_path=str(tiny_bert), max_length=32, signal=signal, seed=1
        )
        s0 = model.score_pairs(["kernel"], ["kernel pooling"], bf16=False)
        out = save_model(model, tmp_path / signal)
        back = load_model(out)
        assert isinstance(back, ACRankModel) and back.signal == signal
        assert torch.allclose(back.score_pairs(["kernel"], ["kernel pooling"], bf16=False), s0)
    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.records import Document, Query

    ranker = make_ranker(f"model:{tmp_path / 'kernel'}", demo_dataset())

    scores = ranker.score(Query("q", "kernel"), [Document("a", "kernel"), Document("b", "x")])
    assert len(scores) == 2


def test_bad_encoder_paths_and_options_explain_themselves(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"ACRank encoder '.*missing' does not exist"):
        check_bert_path(tmp_path / "missing")
    with pytest.raises(ValueError, match=r"holds no config\.json"):
        check_bert_path(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    with pytest.raises(ValueError, match="BERT-style"):
        build_model("acrank", encoder_path=str(tmp_path))
    with pytest.raises(ValueError, match=r"unknown ACRank signal 'kernal'.*'kernel'"):
        ACRankModel(signal="kernal")

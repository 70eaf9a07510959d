"""ACRank's scorer (models/acrank.py) beyond E()'s values - its defaults, the encoder
and tokenizer it loads, the [CLS] ablation, the MLP kept out of autocast, its output shape and
every refusal word for word (each of these survived a mutation run of the module)."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file

from axiomatic.models.acrank import BERT_STYLE, ACRankModel, check_bert_path


@pytest.fixture
def model(tiny_bert):
    # built per test (not per module): mutmut maps a mutant of __init__ to the tests that run
    # __init__, and a module-scoped model runs it in the first test only
    torch.manual_seed(123)  # not the seed the folder's random weights were drawn with
    return ACRankModel(encoder_path=str(tiny_bert)).eval()


def _folder(tmp_path, config):
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


def test_check_bert_path_names_what_the_folder_holds_word_for_word(tmp_path):
    styles = "bert, electra, ernie, megatron-bert, nezha"
    assert ", ".join(BERT_STYLE) == styles
    (tmp_path / "gpt").mkdir()
    gpt = _folder(tmp_path / "gpt", {"model_type": "gpt2"})
    with pytest.raises(ValueError) as err:
        check_bert_path(gpt)
    assert str(err.value) == (
        f"{gpt} holds a 'gpt2' model; ACRank needs a BERT-style encoder with segment ids "
        f"([CLS] q [SEP] d [SEP]): model_type one of {styles}"
    )
    (tmp_path / "none").mkdir()
    untyped = _folder(tmp_path / "none", {"hidden_size": 4})
    with pytest.raises(ValueError) as err:
        check_bert_path(untyped)
    assert str(err.value).startswith(f"{untyped} holds a 'unknown' model; ACRank needs")


def test_defaults_and_the_config_that_is_saved(model):
    assert model.config == {
        "max_length": 256,
        "signal": "kernel",
        "n_kernels": 11,
        "sigma": 0.1,
        "exact_sigma": 0.05,
        "mlp_hidden": 32,
        "dropout": 0.1,
        "encoder_config": model.encoder.config.to_dict(),
    }
    assert model.sigmas.tolist() == pytest.approx([0.05] + [0.1] * 10)
    assert model.mlp[0].in_features == 11 and model.mlp[0].out_features == 32
    assert model.mlp[2].in_features == 32


def test_the_encoder_weights_and_the_tokenizer_come_from_the_folder(tiny_bert, model, tmp_path):
    saved = load_file(str(tiny_bert / "model.safetensors"))
    key = next(k for k in saved if k.endswith("word_embeddings.weight"))
    assert torch.equal(model.encoder.embeddings.word_embeddings.weight, saved[key])
    assert model.tokenizer.name_or_path == str(tiny_bert)
    # an explicit tokenizer folder wins over the encoder's
    other = tmp_path / "tok"
    model.tokenizer.save_pretrained(str(other))
    m2 = ACRankModel(encoder_path=str(tiny_bert), tokenizer_path=str(other))
    assert m2.tokenizer.name_or_path == str(other)


def test_cls_ablation_is_the_first_token_vector(tiny_bert):
    torch.manual_seed(0)
    m = ACRankModel(encoder_path=str(tiny_bert), signal="cls", max_length=32).eval()
    batch = m.encode_batch(["kernel pooling", "a"], ["kernel pooling counts", "b c"])
    with torch.no_grad():
        h = m.token_embeddings(**batch)
        assert torch.equal(m.signals(**batch), h[:, 0].float())
    assert m.mlp[0].in_features == 32  # the hidden size, not the kernels


def test_scores_are_float32_mlp_outputs_of_shape_batch_even_under_autocast(model):
    batch = model.encode_batch(["kernel pooling", "query"], ["kernel pooling counts", "doc"])
    with torch.no_grad():
        feats = model.signals(**batch)
        want = model.mlp(feats.float()).squeeze(-1)
        plain = model(**batch)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            auto = model(**batch)
    assert plain.shape == (2,) and plain.dtype == torch.float32
    assert torch.equal(plain, want)
    assert auto.dtype == torch.float32 and auto.shape == (2,)
    single = model.encode_batch(["kernel"], ["kernel pooling"])
    with torch.no_grad():
        assert model(**single).shape == (1,)


def test_e_needs_segment_ids_word_for_word(model):
    batch = model.encode_batch(["kernel"], ["kernel pooling"])
    batch.pop("token_type_ids")
    with pytest.raises(ValueError) as err:
        model.signals(**batch)
    assert str(err.value) == "ACRank's E() needs token_type_ids (a BERT-style tokenizer)"


def test_refusals_word_for_word(tiny_bert):
    expected = (
        "; expected 'kernel' (E(): cosine matrix + kernel pooling) or 'cls' ([CLS] + MLP, "
        "the w/L() ablation)"
    )
    with pytest.raises(ValueError) as err:
        ACRankModel(encoder_path=str(tiny_bert), signal="kernal")
    assert str(err.value) == "unknown ACRank signal 'kernal' (did you mean 'kernel'?)" + expected
    # 'kerxyz' is 0.5 similar to 'kernel': below the 0.6 cutoff, so no suggestion
    with pytest.raises(ValueError) as err:
        ACRankModel(encoder_path=str(tiny_bert), signal="kerxyz")
    assert str(err.value) == "unknown ACRank signal 'kerxyz'" + expected
    for bad in (7, 513):
        with pytest.raises(ValueError) as err:
            ACRankModel(encoder_path=str(tiny_bert), max_length=bad)
        assert str(err.value) == (
            f"max_length must be between 8 and 512 word pieces (got {bad}); "
            "128 or 256 are usual for passages"
        )
    for ok in (8, 512):
        assert ACRankModel(encoder_path=str(tiny_bert), max_length=ok).max_length == ok


def test_the_mlp_is_linear_tanh_linear_by_hand(model):
    batch = model.encode_batch(["kernel pooling", "query"], ["kernel pooling counts", "doc"])
    l1, l2 = model.mlp[0], model.mlp[-1]
    with torch.no_grad():
        feats = model.signals(**batch).float()
        want = (torch.tanh(feats @ l1.weight.T + l1.bias) @ l2.weight.T + l2.bias)[:, 0]
        got = model(**batch)
    assert torch.allclose(got, want, atol=1e-6, rtol=0)
    assert len(model.mlp) == 3 and isinstance(model.mlp[1], torch.nn.Tanh)


def test_kernels_and_special_ids_are_not_saved_with_the_weights(model):
    tok = model.tokenizer
    assert model.special_ids.tolist() == [tok.cls_token_id, tok.sep_token_id, tok.pad_token_id]
    keys = set(model.state_dict())
    assert not keys & {"mus", "sigmas", "special_ids"}
    assert {"mus", "sigmas", "special_ids"} <= {n for n, _ in model.named_buffers()}


def test_pretrained_false_builds_the_folder_architecture_with_fresh_weights(tiny_bert):
    saved = load_file(str(tiny_bert / "model.safetensors"))
    key = next(k for k in saved if k.endswith("word_embeddings.weight"))
    torch.manual_seed(1)
    fresh = ACRankModel(encoder_path=str(tiny_bert), pretrained=False)
    assert fresh.hidden_size == 32
    assert not torch.equal(fresh.encoder.embeddings.word_embeddings.weight, saved[key])


def test_check_bert_path_refuses_a_config_that_is_not_a_json_object(tmp_path):
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        check_bert_path(tmp_path)
    cfg = tmp_path / "config.json"
    assert str(err.value) == (
        f"{cfg}: not valid JSON (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1))"
    )
    cfg.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        check_bert_path(tmp_path)
    assert str(err.value) == f"{cfg}: not valid JSON ('list' object has no attribute 'get')"

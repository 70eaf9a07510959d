"""Fixtures of the model tests."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    """A 2-layer, 32-d BERT with MiniLM's word pieces (random weights drawn with seed 0),
    saved as a local Hugging Face folder: fast and offline."""
    from transformers import BertConfig, BertModel

    from axiomatic.models.hf_loader import load_tokenizer

    path = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    tok = load_tokenizer()
    cfg = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    BertModel(cfg, add_pooling_layer=False).save_pretrained(str(path))
    tok.save_pretrained(str(path))
    return path


CHAT = (
    "{% for m in messages %}<{{ m['role'] }}> {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
)
"""A small chat template for the tiny Llama: ``<user> TEXT <assistant>``."""


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory):
    """A 2-layer, 32-d random Llama over MiniLM's word pieces (seed 0), saved twice: without a
    chat template (``plain``) and with one (``chat``); returns the folders, the model, the
    tokenizer and ``reference(prompt, first, second, special=True)``, :func:`llm_reference`."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from axiomatic.models.hf_loader import load_tokenizer

    tok = load_tokenizer()
    cfg = LlamaConfig(
        vocab_size=tok.vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=False,
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg).eval()
    with torch.no_grad():  # logits of a visible size: the random init is tiny
        model.lm_head.weight.mul_(50.0)
    plain = tmp_path_factory.mktemp("tiny-llama")
    model.save_pretrained(str(plain))
    tok.save_pretrained(str(plain))
    chat = tmp_path_factory.mktemp("tiny-llama-chat")
    model.save_pretrained(str(chat))
    tok.chat_template = CHAT
    tok.save_pretrained(str(chat))
    tok.chat_template = None
    tiny = {"plain": plain, "chat": chat, "model": model, "tok": tok}
    tiny["reference"] = lambda *args: llm_reference(tiny, *args)
    return tiny


def llm_reference(tiny, prompt: str, first: str, second: str, special: bool = True) -> float:
    """logit(first) - logit(second) of the next token after ``prompt``: one plain forward pass
    of the tiny Llama on the prompt alone."""
    tok, model = tiny["tok"], tiny["model"]
    ids = tok(prompt, add_special_tokens=special)["input_ids"]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
    a = tok.encode(first, add_special_tokens=False)[0]
    b = tok.encode(second, add_special_tokens=False)[0]
    return float(logits[a] - logits[b])

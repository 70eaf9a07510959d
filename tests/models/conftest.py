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

"""Length-sorted batches tokenized once (:mod:`axiomatic.models.batching`).

Each test below was checked by breaking the code it guards (see the test docstrings).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from axiomatic.models.batching import (
    CPU_TENSOR_BYTES,
    length_batches,
    pad_batch,
    rows_within,
    tokenize_once,
)
from axiomatic.models.hf_loader import load_tokenizer
from axiomatic.models.transformer import BiEncoder

TEXTS = [
    "yeast",
    "Baker's yeast ferments sugar into carbon dioxide and ethanol, which makes dough rise.",
    "the capital of France is Paris",
    " ".join(["a long passage about bread and yeast"] * 12),
    "short",
]
QUERIES = ["what is yeast", "bread", "capital of france", "yeast bread", "x"]


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer()


@pytest.fixture(scope="module")
def bi_encoder() -> BiEncoder:
    return BiEncoder(max_length=32).eval()


@pytest.mark.parametrize("pairs", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_a_padded_batch_is_what_the_tokenizer_pads(tokenizer, pairs: bool, side: str) -> None:
    """Broken check: padding always on the right fails the left-padded cases."""
    tokenizer.padding_side = side
    try:
        second = TEXTS if pairs else None
        tok = tokenize_once(tokenizer, QUERIES if pairs else TEXTS, second, max_length=24)
        rows = np.array([3, 0, 4])
        got = pad_batch(tok, rows)
        want = tokenizer(
            [(QUERIES if pairs else TEXTS)[i] for i in rows],
            [TEXTS[i] for i in rows] if pairs else None,
            max_length=24,
            truncation="longest_first" if pairs else True,
            padding=True,
            return_tensors="pt",
        )
    finally:
        tokenizer.padding_side = "right"
    keys = ["input_ids", "attention_mask"] + (["token_type_ids"] if pairs else [])
    assert sorted(got) == sorted(keys)
    for k in keys:
        assert torch.equal(got[k], want[k]), k
    assert tok.lengths.tolist() == [len(x) for x in tok.input_ids]


def test_length_batches_go_longest_first_within_the_row_cap() -> None:
    lengths = np.array([3, 9, 1, 9, 5])
    assert [b.tolist() for b in length_batches(lengths, 2)] == [[1, 3], [4, 0], [2]]
    capped = length_batches(lengths, 3, max_rows=lambda width: 1 if width > 8 else 3)
    assert [b.tolist() for b in capped] == [[1], [3], [4, 0, 2]]
    with pytest.raises(ValueError, match="batch_size"):
        length_batches(lengths, 0)


def test_rows_within_keeps_every_activation_under_the_budget() -> None:
    """MiniLM's dimensions: at 256 word pieces 10 rows (attention scores of 31.5 MB)."""
    dims = {"hidden": 384, "intermediate": 1536, "heads": 12}
    assert rows_within(256, **dims) == 10
    for width in range(1, 513):
        rows = rows_within(width, **dims)
        biggest = 4 * max(width * 1536, 12 * width * width)
        assert rows * biggest <= CPU_TENSOR_BYTES or rows == 1
        assert (rows + 1) * biggest > CPU_TENSOR_BYTES


def test_embed_texts_batches_by_length_and_returns_input_order(bi_encoder: BiEncoder) -> None:
    """One text at a time, the sorted path gives the very numbers of encoding each text by
    itself; batched, the same up to float noise, in the order given. Broken checks: leaving
    the vectors in sorted order, or padding with the wrong mask, fails."""
    alone = []
    with torch.inference_mode():
        for t in TEXTS:
            enc = bi_encoder.tokenizer([t], max_length=32, truncation=True, return_tensors="pt")
            v = bi_encoder.embed(enc["input_ids"], enc["attention_mask"])
            alone.append(torch.nn.functional.normalize(v.float(), dim=-1))
    reference = torch.cat(alone)
    assert torch.equal(bi_encoder.embed_texts(TEXTS, batch_size=1, bf16=False), reference)
    batched = bi_encoder.embed_texts(TEXTS, batch_size=4, bf16=False)
    torch.testing.assert_close(batched, reference, atol=1e-6, rtol=0)


def test_cpu_batches_are_cut_to_the_activation_budget(
    bi_encoder: BiEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every forward pass on the CPU stays within the budget (here shrunk so that the toy
    texts need cutting); with ``cap_cpu_batches = False`` a batch is the full batch size.
    Broken check: ignoring ``max_rows`` in ``length_batches`` fails the first assertion."""
    import axiomatic.models.batching as batching

    shapes: list[tuple[int, int]] = []
    hook = bi_encoder.encoder.register_forward_pre_hook(
        lambda _m, _a, kw: shapes.append(tuple(kw["input_ids"].shape)), with_kwargs=True
    )
    budget = 4 * 12 * 32 * 32 * 2  # two rows of 32 word pieces
    monkeypatch.setattr(
        batching,
        "rows_within",
        lambda width, **dims: rows_within(width, **dims, budget=budget),
    )
    try:
        texts = TEXTS * 3
        capped = bi_encoder.embed_texts(texts, batch_size=8, bf16=False)
        cut = list(shapes)
        shapes.clear()
        monkeypatch.setattr(bi_encoder, "cap_cpu_batches", False)
        whole = bi_encoder.embed_texts(texts, batch_size=8, bf16=False)
    finally:
        hook.remove()
    dims = {"hidden": 384, "intermediate": 1536, "heads": 12}
    assert all(b <= rows_within(w, **dims, budget=budget) for b, w in cut)
    assert max(b for b, _ in cut) < 8 and sum(b for b, _ in cut) == len(texts)
    assert [b for b, _ in shapes] == [8, 7]
    torch.testing.assert_close(capped, whole, atol=1e-6, rtol=0)

"""Length-sorted batches of word pieces, tokenized once (the inference limit of a transformer).

A transformer's cost is the number of word pieces it runs, padding included: a batch costs its
longest member times its size. Diagnosis mixes short passages with LNC2's duplicates (the same
passage 2-4 times, at ``max_length``), so batches in arrival order pad most passages to the
longest one; sorted by length, a batch holds texts of about one length (on five TREC DL 2019
queries, 1,910 texts: 27 % fewer padded word pieces at batch size 128, and less attention, which
grows with the square of the width).

:func:`tokenize_once` tokenizes every text (or pair) in one call to the fast tokenizer, without
padding; :func:`length_batches` cuts the indices, longest first, into batches;
:func:`pad_batch` pads one batch as the tokenizer's ``padding=True`` would (same ids, attention
mask and token types, right or left padding), so a batch's model input is the same tensors as
tokenizing that batch alone would give, without tokenizing twice.

On the CPU a batch is also cut so that no activation of the forward pass exceeds
:data:`CPU_TENSOR_BYTES` (:func:`rows_within`): glibc's allocator maps a block larger than its
mmap threshold (at most 32 MiB) afresh from the kernel on every allocation and unmaps it on
free, so every forward pass of a large batch page-faults through its attention scores and
feed-forward activations again. 128 LNC2 duplicates at 256 word pieces (an attention tensor of
400 MB a layer) took 17.9 s in one batch (1.4 million page faults, 4.4 s of system time) and
11.0 s in the batches of 10 this cap gives (no page faults), on one thread of an AMD EPYC
without AVX512-BF16. The GPU keeps whole batches.

Sorting changes which texts share a batch, and float results depend on the batch in their last
bits (padding width changes the kernels' blocking), never more: scores computed one text at a
time are the same numbers either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

__all__ = [
    "CPU_TENSOR_BYTES",
    "Tokenized",
    "cpu_row_cap",
    "length_batches",
    "pad_batch",
    "rows_within",
    "run_sorted",
    "sorted_batches",
    "tokenize_once",
]

CPU_TENSOR_BYTES = 32 << 20
"""Largest activation (bytes) a CPU forward pass should allocate: glibc's largest dynamic mmap
threshold, above which every allocation is a fresh mapping (page faults on first touch)."""


@dataclass(frozen=True)
class Tokenized:
    """Unpadded word-piece ids of ``n`` inputs (``token_type_ids`` for pairs, else ``None``),
    their lengths, and how to pad them (the tokenizer's pad id, pad token type and side)."""

    input_ids: list[list[int]]
    token_type_ids: list[list[int]] | None
    lengths: np.ndarray
    pad_id: int
    pad_type_id: int = 0
    left: bool = False

    def __len__(self) -> int:
        return len(self.input_ids)


def tokenize_once(
    tokenizer: Any,
    first: Sequence[str],
    second: Sequence[str] | None = None,
    *,
    max_length: int,
) -> Tokenized:
    """Word pieces of ``first`` (or of the pairs ``first[i], second[i]``), truncated to
    ``max_length`` as the models truncate them (a pair: longest segment first), unpadded."""
    if second is not None and len(second) != len(first):
        raise ValueError(
            f"tokenize_once needs one second text per first text (got {len(first)} and "
            f"{len(second)})"
        )
    enc = tokenizer(
        list(first),
        list(second) if second is not None else None,
        max_length=max_length,
        truncation="longest_first" if second is not None else True,
        padding=False,
        return_attention_mask=False,
        return_token_type_ids=second is not None,
    )
    ids = enc["input_ids"]
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        raise ValueError(
            f"tokenizer {type(tokenizer).__name__} has no pad token; batches cannot be padded"
        )
    return Tokenized(
        input_ids=ids,
        token_type_ids=enc["token_type_ids"] if second is not None else None,
        lengths=np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids)),
        pad_id=int(pad_id),
        pad_type_id=int(getattr(tokenizer, "pad_token_type_id", 0) or 0),
        left=getattr(tokenizer, "padding_side", "right") == "left",
    )


def rows_within(
    width: int, *, hidden: int, intermediate: int, heads: int, budget: int = CPU_TENSOR_BYTES
) -> int:
    """Rows of ``width`` word pieces whose largest float32 activation in a BERT-style layer
    (the feed-forward ``(B, L, intermediate)`` or the attention scores ``(B, heads, L, L)``)
    stays within ``budget`` bytes; at least 1."""
    per_row = 4 * max(width * max(hidden, intermediate), heads * width * width)
    return max(1, budget // max(per_row, 1))


def length_batches(
    lengths: np.ndarray, batch_size: int, max_rows: Callable[[int], int] | None = None
) -> list[np.ndarray]:
    """Indices into ``lengths``, longest first (ties in input order), in batches of at most
    ``batch_size`` (and at most ``max_rows(width)`` for a batch whose longest input has
    ``width``): each batch holds inputs of about one length, and a batch too large for memory
    fails at the start."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
    lengths = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")
    if max_rows is None:
        return [order[i : i + batch_size] for i in range(0, order.size, batch_size)]
    out = []
    i = 0
    while i < order.size:
        rows = max(1, min(batch_size, int(max_rows(int(lengths[order[i]])))))
        out.append(order[i : i + rows])
        i += rows
    return out


def pad_batch(tok: Tokenized, rows: np.ndarray) -> dict[str, torch.Tensor]:
    """``input_ids``, ``attention_mask`` (and ``token_type_ids`` for pairs) of ``rows``, padded
    to their longest member as the tokenizer pads (``(B, L)`` int64 tensors)."""
    lengths = tok.lengths[rows]
    width = int(lengths.max()) if rows.size else 0
    ids = np.full((rows.size, width), tok.pad_id, dtype=np.int64)
    mask = np.zeros((rows.size, width), dtype=np.int64)
    types = (
        np.full((rows.size, width), tok.pad_type_id, dtype=np.int64)
        if tok.token_type_ids is not None
        else None
    )
    for j, (i, n) in enumerate(zip(rows.tolist(), lengths.tolist(), strict=True)):
        cols = slice(width - n, width) if tok.left else slice(0, n)
        ids[j, cols] = tok.input_ids[i]
        mask[j, cols] = 1
        if types is not None:
            types[j, cols] = tok.token_type_ids[i]  # type: ignore[index]
    out = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask)}
    if types is not None:
        out["token_type_ids"] = torch.from_numpy(types)
    return out


def sorted_batches(
    tok: Tokenized, batch_size: int, max_rows: Callable[[int], int] | None = None
) -> Iterator[tuple[np.ndarray, dict[str, torch.Tensor]]]:
    """``(rows, padded inputs)`` of every length-sorted batch (:func:`length_batches`)."""
    for rows in length_batches(tok.lengths, batch_size, max_rows):
        yield rows, pad_batch(tok, rows)


def cpu_row_cap(config: Any, device: torch.device | str) -> Callable[[int], int] | None:
    """``max_rows`` of :func:`length_batches` for a BERT-style encoder ``config`` on ``device``:
    on the CPU, :func:`rows_within` with the config's sizes (``hidden_size``,
    ``intermediate_size``, ``num_attention_heads``); ``None`` (whole batches) on a GPU or for
    a config that does not name them."""
    if torch.device(device).type != "cpu":
        return None
    try:
        hidden = int(config.hidden_size)
        heads = int(config.num_attention_heads)
    except (AttributeError, TypeError, ValueError):
        return None
    intermediate = int(getattr(config, "intermediate_size", None) or 4 * hidden)
    return lambda width: rows_within(width, hidden=hidden, intermediate=intermediate, heads=heads)


def run_sorted(
    tok: Tokenized,
    batch_size: int,
    step: Callable[[dict[str, torch.Tensor]], torch.Tensor],
    device: torch.device | str,
    max_rows: Callable[[int], int] | None = None,
) -> torch.Tensor:
    """``step(inputs)`` (a score or a vector per input) over the length-sorted batches of
    ``tok`` (inputs moved to ``device``), without grad, put back in input order: a CPU float32
    tensor ``(len(tok), ...)``."""
    out: torch.Tensor | None = None
    with torch.inference_mode():
        for rows, batch in sorted_batches(tok, batch_size, max_rows):
            got = step({k: v.to(device) for k, v in batch.items()}).float().cpu()
            if out is None:
                out = torch.empty((len(tok), *got.shape[1:]), dtype=torch.float32)
            out[torch.from_numpy(rows)] = got
    return out if out is not None else torch.zeros(0)

"""Interface shared by every neural ranking model (the training layer relies only on this).

A model turns raw ``(query, document)`` text pairs into a batch of tensors with
:meth:`NeuralRankingModel.encode_batch` and scores that batch with ``forward``. Training code never
needs to know whether the model is KNRM over word ids or a cross-encoder over word pieces.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, ClassVar

import torch
from torch import nn

from axiomatic.models.device import autocast, use_bf16


def suggest_num_threads(reserve_self: bool = True) -> int:
    """Torch threads that fit the CPU cores other processes leave free (at least 1).

    On a shared machine, OpenMP threads that outnumber the free cores wait for each other while
    descheduled: here a KNRM training step took 564 ms with 2 threads and 28 ms with 1 at a load
    average of 6 on 2 cores. Pass the result to ``torch.set_num_threads``. With
    ``reserve_self`` one unit of the 1-minute load average is assumed to be the caller itself.
    """
    import os

    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not available on this platform
        return cores
    busy = max(0.0, load - (1.0 if reserve_self else 0.0))
    return max(1, min(cores, int(cores - busy + 0.5)))


def seeded_init(seed: int) -> contextlib.AbstractContextManager:
    """Context in which torch's global RNG is seeded with ``seed`` and restored afterwards."""

    @contextlib.contextmanager
    def _ctx() -> Any:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            yield

    return _ctx()


class NeuralRankingModel(nn.Module):
    """Base class: subclasses implement ``encode_batch`` and ``forward``.

    ``model_type`` is the registry name (e.g. ``"knrm"``); ``config`` holds every constructor
    argument needed to rebuild the model (written next to the weights on save, so it must be
    JSON-serializable). ``supports_bf16`` says whether bf16 inference, when asked for
    (``bf16=True``; float32 is the default), pays for the model (True for the transformers;
    False for kernel models whose exact-match kernel, sigma = 1e-3, stays float32 anyway).
    ``word_level`` says how the model is built and rebuilt (see
    :func:`axiomatic.models.io.build_model` and :func:`~axiomatic.models.io.load_model`):
    True for a model over the word ids of a :class:`~axiomatic.models.vocab.Vocabulary`,
    whose constructor takes ``vocab=`` and ``embeddings=`` and whose vocabulary is saved beside
    its weights (:class:`~axiomatic.models.word.WordRankingModel` sets it); False for a model
    built from its ``config`` alone (the transformers, which bring their own tokenizer).
    ``citation`` is where the model comes from (``axiomatic models`` lists it).
    """

    model_type: str = "base"
    supports_bf16: bool = False
    word_level: ClassVar[bool] = False
    citation: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__()
        self.config: dict[str, Any] = {}
        self.build_info: dict[
            str, Any
        ] = {}  # how it was built (seed, embeddings); saved as metadata

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        """Tokenize/pad ``len(queries) == len(documents)`` text pairs into model inputs (on CPU)."""
        raise NotImplementedError

    def forward(self, **batch: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        """Scores of shape ``(batch,)``."""
        raise NotImplementedError

    @property
    def device(self) -> torch.device:
        try:
            return next(self.parameters()).device
        except StopIteration:
            return torch.device("cpu")

    def score_pairs(
        self,
        queries: Sequence[str],
        documents: Sequence[str],
        batch_size: int = 64,
        bf16: bool | None = None,
    ) -> torch.Tensor:
        """Scores (no grad, eval mode) of text pairs, batched; returns a CPU float tensor.

        Float32 unless ``bf16=True`` asks for bf16 autocast (faster on AMX CPUs and bf16
        GPUs, but a score then depends on the batch it is computed in, by up to ~2e-3).
        """
        if len(queries) != len(documents):
            raise ValueError(
                f"score_pairs needs one query per document (got {len(queries)} queries and "
                f"{len(documents)} documents)"
            )
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
        device = self.device
        bf16 = use_bf16(bf16)
        was_training = self.training
        self.eval()
        out = []
        try:
            with torch.inference_mode(), autocast(device, enabled=bf16):
                for i in range(0, len(queries), batch_size):
                    batch = self.encode_batch(
                        queries[i : i + batch_size], documents[i : i + batch_size]
                    )
                    batch = {k: v.to(device) for k, v in batch.items()}
                    out.append(self(**batch).float().cpu())
        finally:
            self.train(was_training)
        return torch.cat(out) if out else torch.zeros(0)

    def num_parameters(self, trainable_only: bool = False) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad or not trainable_only)

"""Transformer rankers on the packaged all-MiniLM-L6-v2 (6 layers, 384-d, offline).

* :class:`CrossEncoder`: ``[CLS] q [SEP] d [SEP]`` through the MiniLM encoder, a linear head on the
  last-layer ``[CLS]`` vector (Nogueira & Cho, 2019, with MiniLM instead of BERT-large), or with
  ``head="mlp"`` BERT's pooler (dense + tanh) before it. The head is new, so it needs training
  before it ranks well.
* :class:`BiEncoder`: query and document encoded separately, mean pooling over tokens, cosine
  similarity (Reimers & Gurevych, 2019). With the pretrained weights this *is* the
  sentence-transformers model all-MiniLM-L6-v2, so it ranks zero-shot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.batching import Tokenized, cpu_row_cap, run_sorted, tokenize_once
from axiomatic.models.device import use_bf16
from axiomatic.models.hf_loader import load_encoder, load_pooler, load_tokenizer

# optimizer steps taken in this process (one global hook, registered with the first model)
_optimizer_steps = [0]
_optimizer_hook: list[Any] = []


def _count_optimizer_steps() -> None:
    if not _optimizer_hook:
        from torch.optim.optimizer import register_optimizer_step_post_hook

        def bump(*_: Any) -> None:
            _optimizer_steps[0] += 1

        _optimizer_hook.append(register_optimizer_step_post_hook(bump))


def _count_load(module: nn.Module, _keys: Any) -> None:
    module.__dict__["_loads"] = module.__dict__.get("_loads", 0) + 1


class _MiniLMModel(NeuralRankingModel):
    supports_bf16 = True

    def __init__(
        self, max_length: int, pretrained: bool = True, tokenizer_path: str | Path | None = None
    ) -> None:
        super().__init__()
        if not 8 <= int(max_length) <= 512:
            raise ValueError(
                f"max_length must be between 8 and 512 word pieces (got {max_length}); "
                "128 or 256 are usual for passages"
            )
        self.max_length = int(max_length)
        self.encoder = load_encoder(pretrained=pretrained)
        self.tokenizer: Any = load_tokenizer(tokenizer_path)
        self.hidden_size = int(self.encoder.config.hidden_size)
        _count_optimizer_steps()
        self.register_load_state_dict_post_hook(_count_load)

    def token_embeddings(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Last-layer token vectors ``(B, L, hidden)``."""
        kwargs: dict[str, torch.Tensor] = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None:
            kwargs["token_type_ids"] = token_type_ids
        encoder = self.encoder
        if self.__dict__.get("_fast_bf16") and not torch.is_grad_enabled():
            encoder = self._bf16_encoder()
        return encoder(**kwargs).last_hidden_state

    def _bf16_encoder(self) -> Any:
        """A bf16 copy of the encoder for inference, rebuilt whenever the weights change
        (optimizer steps and ``load_state_dict`` bump the tensors' version counters)."""
        key = self._weights_key()
        cached = self.__dict__.get("_bf16_cache")
        if cached is None or cached[0] != key:
            import copy

            copy_ = copy.deepcopy(self.encoder).to(torch.bfloat16).eval()
            copy_.requires_grad_(False)
            # plain attribute (not a submodule): stays out of state_dict, parameters() and .to()
            self.__dict__["_bf16_cache"] = (key, copy_)
            cached = self.__dict__["_bf16_cache"]
        return cached[1]

    #: whether ``encode_batch`` is :class:`CrossEncoder`'s (``[CLS] q [SEP] d [SEP]``, truncated
    #: longest first to ``max_length``): then :meth:`score_pairs` tokenizes every pair once and
    #: runs length-sorted batches (:mod:`axiomatic.models.batching`). A subclass that builds
    #: its inputs otherwise sets it to ``False`` (the base class's batches, in input order).
    tokenizes_pairs = False

    def score_pairs(
        self,
        queries: Sequence[str],
        documents: Sequence[str],
        batch_size: int = 64,
        bf16: bool | None = None,
    ) -> torch.Tensor:
        """Scores of text pairs (no grad), in float32 unless ``bf16=True``: then the encoder
        runs on a cached bf16 copy of its weights, about 1.6x faster than autocast on AMX CPUs;
        the scoring head stays float32, so scores are not rounded to bf16, but they depend on
        the batch a pair is scored in (padding, summation order) by up to ~2e-3.

        A pair model (:attr:`tokenizes_pairs`) tokenizes all pairs in one call and runs them
        in batches sorted by length, longest first: a batch pads to about its own length
        instead of to the longest pair that arrived with it."""
        bf16 = use_bf16(bf16)
        self.__dict__["_fast_bf16"] = bf16
        try:
            if not self.tokenizes_pairs:
                return super().score_pairs(queries, documents, batch_size, bf16=False)
            return self._score_sorted(queries, documents, batch_size)
        finally:
            self.__dict__["_fast_bf16"] = False

    def _score_sorted(
        self, queries: Sequence[str], documents: Sequence[str], batch_size: int
    ) -> torch.Tensor:
        if len(queries) != len(documents):
            raise ValueError(
                f"score_pairs needs one query per document (got {len(queries)} queries and "
                f"{len(documents)} documents)"
            )
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
        tok = tokenize_once(self.tokenizer, queries, documents, max_length=self.max_length)
        return self._run_sorted(tok, batch_size, lambda batch: self(**batch))

    #: whether a CPU batch is cut so that no activation exceeds
    #: :data:`~axiomatic.models.batching.CPU_TENSOR_BYTES` (see :mod:`axiomatic.models.batching`)
    cap_cpu_batches = True

    def _run_sorted(
        self,
        tok: Tokenized,
        batch_size: int,
        step: Callable[[dict[str, torch.Tensor]], torch.Tensor],
    ) -> torch.Tensor:
        """``step(batch)`` (a score or a vector per input) over the length-sorted batches of
        ``tok`` (:func:`~axiomatic.models.batching.run_sorted`), in eval mode without grad,
        put back in input order (a CPU float32 tensor)."""
        device = self.device
        cap = cpu_row_cap(self.encoder.config, device) if self.cap_cpu_batches else None
        was_training = self.training
        self.eval()
        try:
            return run_sorted(tok, batch_size, step, device, cap)
        finally:
            self.train(was_training)

    def _weights_key(self) -> tuple[Any, ...]:
        """What the bf16 copy depends on, from public API only: the storages, the optimizer
        steps taken in this process (a step may touch only a few embedding rows), the
        ``load_state_dict`` calls on this model, and a strided sample of every weight (~256
        values a tensor: catches in-place edits such as ``p.copy_(...)`` under ``no_grad``)."""
        sample = []
        for p in self.encoder.parameters():
            flat = p.detach().reshape(-1)
            sample.append(flat[:: max(1, flat.numel() // 256)].double().sum())
        sums = torch.stack(sample).tolist() if sample else []
        return (
            tuple(p.data_ptr() for p in self.encoder.parameters()),
            _optimizer_steps[0],
            self.__dict__.get("_loads", 0),
            tuple(sums),
        )

    def train(self, mode: bool = True) -> _MiniLMModel:
        if mode:
            self.__dict__.pop("_bf16_cache", None)  # free the copy while training
        return super().train(mode)


HEADS = ("linear", "mlp")
"""Scoring heads of :class:`CrossEncoder` (its ``head`` option)."""


def check_head(head: str) -> str:
    """``head`` if it is one of :data:`HEADS`, else a ``ValueError`` naming them."""
    if head not in HEADS:
        raise ValueError(
            f"unknown cross-encoder head {head!r}; expected one of {', '.join(map(repr, HEADS))}"
        )
    return head


class CrossEncoder(_MiniLMModel):
    """MiniLM cross-encoder: ``s(q, d) = w^T h_[CLS]([CLS] q [SEP] d [SEP]) + b``.

    ``head`` chooses what scores the last-layer ``[CLS]`` vector ``h``:

    * ``"linear"`` (the default): ``w^T dropout(h) + b``;
    * ``"mlp"``: ``w^T dropout(tanh(W_p h + b_p)) + b``, BERT's pooler followed by its
      sequence-classification layer (``BertForSequenceClassification``; the "MLP(h_[CLS]) of
      the pooled output" of Chen et al. 2022). With ``pretrained`` the pooler ``(W_p, b_p)``
      starts from the checkpoint's pooler (the packaged all-MiniLM-L6-v2 has one, though an
      apparently untrained one: see :func:`~axiomatic.models.hf_loader.load_pooler`); a
      checkpoint without one, or ``pretrained=False``, initializes it as BERT does (normal
      std 0.02, zero bias).

    ``w, b`` are new (normal std 0.02, zero bias) in both cases, drawn before the pooler, so a
    seed gives the same ``w, b`` for both heads. The head is saved in :attr:`config`; a saved
    model without it (written before the option existed) loads with the linear head.

    Pairs longer than ``max_length`` word pieces are truncated, longest segment first.
    Batch keys: ``input_ids``, ``attention_mask``, ``token_type_ids`` (each ``(B, L)``).
    """

    model_type = "cross-encoder"
    citation = "Nogueira & Cho, arXiv 2019; MiniLM: Wang et al., NeurIPS 2020"
    tokenizes_pairs = True

    def __init__(
        self,
        max_length: int = 256,
        dropout: float = 0.1,
        pretrained: bool = True,
        tokenizer_path: str | Path | None = None,
        head: str = "linear",
    ) -> None:
        check_head(head)
        super().__init__(max_length, pretrained, tokenizer_path)
        self.head_type = head
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(self.hidden_size, 1)
        nn.init.normal_(self.head.weight, std=0.02)
        nn.init.zeros_(self.head.bias)
        self.pooler: nn.Linear | None = None
        if head == "mlp":
            self.pooler = nn.Linear(self.hidden_size, self.hidden_size)
            found = load_pooler() if pretrained else None
            with torch.no_grad():
                if found is not None:
                    self.pooler.weight.copy_(found[0])
                    self.pooler.bias.copy_(found[1])
                else:
                    nn.init.normal_(self.pooler.weight, std=0.02)
                    nn.init.zeros_(self.pooler.bias)
        self.config = {"max_length": self.max_length, "dropout": dropout, "head": head}

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        if len(queries) != len(documents):
            raise ValueError(
                f"encode_batch needs one query per document (got {len(queries)} and "
                f"{len(documents)})"
            )
        enc = self.tokenizer(
            list(queries),
            list(documents),
            max_length=self.max_length,
            truncation="longest_first",
            padding=True,
            return_tensors="pt",
        )
        return {k: enc[k] for k in ("input_ids", "attention_mask", "token_type_ids")}

    def forward(  # type: ignore[override]
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        return self.score_cls(
            self.token_embeddings(input_ids, attention_mask, token_type_ids)[:, 0]
        )

    def score_cls(self, cls: torch.Tensor) -> torch.Tensor:
        """Scores ``(B,)`` from last-layer ``[CLS]`` vectors ``(B, hidden)`` (the pooler of the
        ``"mlp"`` head, dropout, linear layer); a method of its own so subclasses that run the
        encoder themselves score alike."""
        # the head runs in float32 even under autocast: bf16 scores would be rounded to ~3
        # significant digits and create ties (a tie violates a strict axiom preference)
        with torch.autocast(device_type=cls.device.type, enabled=False):
            h = cls.to(self.head.weight.dtype)
            if self.pooler is not None:
                h = torch.tanh(self.pooler(h))
            return self.head(self.dropout(h)).squeeze(-1)


def mean_pool(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of the token vectors ``(B, L, H)`` over real tokens (``mask (B, L)``)."""
    tokens = tokens.float()
    m = mask.unsqueeze(-1).float()
    return (tokens * m).sum(1) / m.sum(1).clamp(min=1e-9)


class BiEncoder(_MiniLMModel):
    """MiniLM bi-encoder: ``s(q, d) = cos(mean(E(q)), mean(E(d)))`` (sentence-transformers).

    Batch keys: ``query_input_ids``, ``query_attention_mask``, ``doc_input_ids``,
    ``doc_attention_mask``. ``scale`` multiplies the cosine (1 = plain cosine; a temperature such
    as 20 helps softmax losses during training).
    """

    model_type = "bi-encoder"
    citation = "Reimers & Gurevych, EMNLP 2019 (all-MiniLM-L6-v2)"

    def __init__(
        self,
        max_length: int = 256,
        max_query_length: int = 64,
        scale: float = 1.0,
        pretrained: bool = True,
        tokenizer_path: str | Path | None = None,
    ) -> None:
        super().__init__(max_length, pretrained, tokenizer_path)
        self.max_query_length = min(int(max_query_length), self.max_length)
        self.scale = float(scale)
        self.config = {
            "max_length": self.max_length,
            "max_query_length": self.max_query_length,
            "scale": self.scale,
        }

    def _tok(self, texts: Sequence[str], max_length: int, prefix: str) -> dict[str, torch.Tensor]:
        enc = self.tokenizer(
            list(texts), max_length=max_length, truncation=True, padding=True, return_tensors="pt"
        )
        return {
            f"{prefix}_input_ids": enc["input_ids"],
            f"{prefix}_attention_mask": enc["attention_mask"],
        }

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        if len(queries) != len(documents):
            raise ValueError(
                f"encode_batch needs one query per document (got {len(queries)} and "
                f"{len(documents)})"
            )
        return {
            **self._tok(queries, self.max_query_length, "query"),
            **self._tok(documents, self.max_length, "doc"),
        }

    def embed(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Mean-pooled sentence vectors ``(B, hidden)`` (not normalized)."""
        return mean_pool(self.token_embeddings(input_ids, attention_mask), attention_mask)

    def forward(  # type: ignore[override]
        self,
        query_input_ids: torch.Tensor,
        query_attention_mask: torch.Tensor,
        doc_input_ids: torch.Tensor,
        doc_attention_mask: torch.Tensor,
    ) -> torch.Tensor:
        q = self.embed(query_input_ids, query_attention_mask).float()
        d = self.embed(doc_input_ids, doc_attention_mask).float()
        return self.scale * F.cosine_similarity(q, d, dim=-1)

    def embed_texts(
        self,
        texts: Sequence[str],
        batch_size: int = 64,
        bf16: bool | None = None,
        as_query: bool = False,
    ) -> torch.Tensor:
        """L2-normalized vectors ``(N, hidden)`` of ``texts`` (no grad), truncated as documents
        (``max_length``) or, with ``as_query``, as queries (``max_query_length``).

        The texts are tokenized in one call and encoded in batches sorted by length, longest
        first (:mod:`axiomatic.models.batching`), as sentence-transformers' ``encode`` sorts
        them; the vectors come back in input order."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
        if not texts:
            return torch.zeros((0, self.hidden_size))
        bf16 = use_bf16(bf16)
        max_length = self.max_query_length if as_query else self.max_length
        tok = tokenize_once(self.tokenizer, texts, max_length=max_length)
        self.__dict__["_fast_bf16"] = bool(bf16)
        try:
            return self._run_sorted(
                tok,
                batch_size,
                lambda b: F.normalize(
                    self.embed(b["input_ids"], b["attention_mask"]).float(), dim=-1
                ),
            )
        finally:
            self.__dict__["_fast_bf16"] = False

    def score_query(
        self, query: str, documents: Sequence[str], batch_size: int = 64, bf16: bool | None = None
    ) -> torch.Tensor:
        """Scores of ``documents`` for one query, encoding the query once (same values as
        :meth:`score_pairs`)."""
        q = self.embed_texts([query], batch_size, bf16, as_query=True)
        d = self.embed_texts(documents, batch_size, bf16)
        return self.score_embedded(q[0], d)

    def score_embedded(self, query: torch.Tensor, documents: torch.Tensor) -> torch.Tensor:
        """Scores ``(N,)`` of document vectors ``(N, hidden)`` for one query vector
        ``(hidden,)``, both from :meth:`embed_texts` (unit length): ``scale * cos``, the value
        of :meth:`forward` (see :mod:`axiomatic.models.scoring`, which encodes each distinct
        text of a dataset once and scores through this).

        Each row is reduced on its own (a product and a row sum, not a matrix-vector product,
        whose blocking depends on the number of rows), so a document's score does not depend
        on which other documents are scored with it."""
        return self.scale * (documents * query).sum(-1)

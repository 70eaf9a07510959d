"""Activation patching of transformer rankers: which components carry an axiom's score
difference (Chen, Merullo & Eickhoff, SIGIR 2024, "Axiomatic causal interventions for reverse
engineering relevance computation in neural retrieval models").

For a minimal pair (:mod:`axiomatic.perturb.minimal_pairs`: a *baseline* and a *perturbed*
document of the same length in word pieces) the ranker is run three ways: on the perturbed
document (its activations cached), on the baseline, and on the baseline with one component's
activation replaced by the cached one. The **restored fraction** of that component is

    (s(baseline, patched) - s(baseline)) / (s(perturbed) - s(baseline))

per pair: 1 means the component alone carries the whole difference, 0 that it carries none
(negative: it works against it). Components (PyTorch forward hooks on a BERT-style encoder; no
fork of the model):

- ``residual``: the residual stream after layer ``l`` (``l = 0``: the embeddings), at the
  positions of one *role* (:data:`ROLES`): ``[CLS]``, the query segment (cross-encoders),
  ``[SEP]``, the ``perturbed`` positions (where the two token sequences differ), other
  occurrences of a query term in the document (``query term``) and the rest of the document;
- ``head``: one attention head's output (its slice of the attention output projection's input),
  at every position;
- ``mlp``: one layer's MLP output (before the residual sum and layer norm), at every position.

Per component the mean restored fraction over pairs with a 95 % t-interval; pairs whose score
difference is below ``min_delta`` times the median absolute difference of their axiom are left
out (the ratio is noise there) and counted. Two identities hold exactly and are tested: patching
the embeddings at the ``perturbed`` positions restores 1 (nothing else differs at the input),
and so does patching the last layer at every position the score reads ([CLS] for a
cross-encoder, every document position for a mean-pooled bi-encoder).

With ``attention`` the heads' attention is also measured in the perturbed run: the mean
attention mass from each perturbed position to the *other* occurrences of its own token in the
document (``dup_doc``) and in the query segment (``dup_query``), against what uniform attention
would give (``dup_doc_uniform``): Chen et al.'s "duplicate token heads" attend from a repeated
query term to its earlier occurrences.

Scores are computed in float32 (no bf16: small differences are what is measured). Encoders
with BERT's module layout (``embeddings``, ``encoder.layer[i].attention.self``,
``.attention.output.dense``, ``.intermediate``, ``.output.dense``, ``.output.LayerNorm``) and
the pointwise LLM ranker over a Llama-style decoder (:class:`DecoderPatchTarget`: the score is
the ranker's ``logit(yes) - logit(no)`` at the prompt's last token, a head is a query head,
the residual roles are the prompt's ``template``, ``query``, document roles and ``last
token``) are supported; others are refused by name.

Cost: the perturbed and baseline runs of a batch are cached once; the components of one kind and
layer are stacked along the batch (:func:`_groups`), and each patched run starts where its
component sits, from the cached baseline (:func:`_patched_group`), so a component deep in the
model costs only the layers after it; a row whose patched activation equals the baseline's (a
residual role its pair does not have) is not run and keeps the baseline's score. The work left is
the layers after each component, for every component and pair: the matrix products, at the
CPU's float32 throughput, are about three quarters of it. Progress goes through
:mod:`axiomatic._progress`, one unit per forward pass.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from axiomatic.explain.model import _Ticker
from axiomatic.perturb.minimal_pairs import MinimalPair

__all__ = [
    "COMPONENTS",
    "ROLES",
    "DecoderPatchTarget",
    "PatchResult",
    "PatchTarget",
    "TokenPairs",
    "patch",
    "patch_tokens",
    "patching_target",
]

COMPONENTS = ("residual", "head", "mlp")
"""Component kinds that can be patched (see the module docstring)."""

ROLES = ("[CLS]", "query", "[SEP]", "perturbed", "query term", "document", "template", "last token")
"""Position roles of residual patching (``query``: the query segment of a cross-encoder or of a
decoder's prompt; ``template`` and ``last token``: a decoder's prompt text around the query and
the document, and the position whose next-token logits are the score)."""

_PAD = -1


@dataclass
class TokenPairs:
    """Tokenized minimal pairs: ``base`` and ``pert`` input ids ``(N, L)`` (same padding),
    ``attention_mask`` and ``token_type_ids`` ``(N, L)``, ``roles`` ``(N, L)`` (indexes into
    :data:`ROLES`, -1 for padding), ``query_ids`` (for a bi-encoder: the query of each pair, the
    fixed side), and ``meta`` (one dict per pair: axiom, ids, texts)."""

    base: torch.Tensor
    pert: torch.Tensor
    attention_mask: torch.Tensor
    token_type_ids: torch.Tensor
    roles: torch.Tensor
    meta: list[dict[str, Any]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


class PatchTarget:
    """A BERT-style ranker prepared for patching: its encoder module, tokenizer and how it turns
    the encoder's output into a score.

    ``kind`` is ``"cross-encoder"`` (the patched run is ``[CLS] q [SEP] d [SEP]``) or
    ``"bi-encoder"`` (the patched run is the document alone; the query vector is computed once,
    unpatched). ``score_fn(inputs, queries)`` runs the whole model on ``inputs`` (``input_ids``,
    ``attention_mask``, ``token_type_ids``) and returns scores ``(B,)``; it must call
    ``encoder`` so the hooks see the run. ``prepare(queries)`` (bi-encoders) computes the
    fixed query side before any hook is installed.
    """

    def __init__(
        self,
        name: str,
        kind: str,
        encoder: nn.Module,
        score_fn: Callable[[dict[str, torch.Tensor], list[str]], torch.Tensor],
        tokenizer: Any = None,
        max_length: int = 512,
        prepare: Callable[[list[str]], Any] | None = None,
    ) -> None:
        if kind not in ("cross-encoder", "bi-encoder"):
            raise ValueError(f"kind must be 'cross-encoder' or 'bi-encoder' (got {kind!r})")
        self.name = name
        self.kind = kind
        self.encoder: Any = encoder
        self.score_fn = score_fn
        self.tokenizer = tokenizer
        self.max_length = int(max_length)
        self.prepare = prepare
        self.layers: Any = _bert_layers(encoder, name)
        attn = self.layers[0].attention.self
        self.n_layers = len(self.layers)
        self.n_heads = int(attn.num_attention_heads)
        self.head_dim = int(attn.attention_head_size)
        self.roles = tuple(
            i for i, r in enumerate(ROLES[:6]) if r != "query" or kind == "cross-encoder"
        )

    # the four steps :func:`patch_tokens` runs; :class:`DecoderPatchTarget` has its own

    def cache_run(
        self, inputs: dict[str, torch.Tensor], queries: list[str]
    ) -> tuple[torch.Tensor, dict[tuple[str, int], torch.Tensor]]:
        """Scores of a run and its cached activations (:func:`_cache_run`)."""
        return _cache_run(self, inputs, queries)

    def patched_group(
        self,
        inputs: dict[str, torch.Tensor],
        queries: list[str],
        kind: str,
        layer: int,
        indexes: Sequence[int],
        pert_cache: dict[tuple[str, int], torch.Tensor],
        base_cache: dict[tuple[str, int], torch.Tensor],
        roles: torch.Tensor,
        base_scores: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Scores ``(len(indexes), B)`` with one component patched per block
        (:func:`_patched_group`)."""
        return _patched_group(
            self, inputs, queries, kind, layer, indexes, pert_cache, base_cache, roles,
            base_scores,
        )  # fmt: skip

    def rows(self, width: int, max_rows: int | None) -> int:
        """Rows of one patched forward pass (:func:`_rows`)."""
        return _rows(self, width, max_rows)

    def duplicate_attention(
        self,
        cache: dict[tuple[str, int], torch.Tensor],
        inputs: dict[str, torch.Tensor],
        roles: torch.Tensor,
    ) -> np.ndarray:
        """Duplicate-token attention sums of a batch (:func:`_duplicate_attention`)."""
        return _duplicate_attention(self, cache, inputs, roles)

    @property
    def device(self) -> torch.device:
        return next(self.encoder.parameters()).device

    def pieces(self, word: str) -> int:
        """Word pieces of ``word`` (for :func:`~axiomatic.perturb.minimal_pairs.minimal_pairs`)."""
        return len(self.tokenizer.tokenize(word))

    def tokenize(self, pairs: Sequence[MinimalPair]) -> tuple[TokenPairs, dict[str, int]]:
        """The pairs' token ids, keeping pairs whose baseline and perturbed texts have the same
        number of word pieces and fit ``max_length`` untruncated; returns the kept pairs and the
        counts left out (``unequal length``, ``too long``)."""
        if self.tokenizer is None:
            raise ValueError(f"{self.name}: no tokenizer; pass TokenPairs to patch_tokens")
        dropped = {"unequal length": 0, "too long": 0}
        rows: list[tuple[list[int], list[int], list[int], list[int], MinimalPair]] = []
        for p in pairs:
            b, tt = self._ids(p.query, p.baseline)
            q, _ = self._ids(p.query, p.perturbed)
            if len(b) != len(q):
                dropped["unequal length"] += 1
                continue
            if len(b) > self.max_length:
                dropped["too long"] += 1
                continue
            qids = set(self._ids(p.query, None)[0][1:-1]) if self.kind == "bi-encoder" else set()
            rows.append((b, q, tt, _roles(b, q, tt, self.kind, qids), p))
        return _pack_pairs(rows, pad=0), dropped

    def _ids(self, query: str, doc: str | None) -> tuple[list[int], list[int]]:
        if self.kind == "cross-encoder" and doc is not None:
            enc = self.tokenizer(query, doc, truncation=False)
        else:
            enc = self.tokenizer(query if doc is None else doc, truncation=False)
        ids = list(enc["input_ids"])
        types = list(enc.get("token_type_ids") or [0] * len(ids))
        return ids, types


class DecoderPatchTarget(PatchTarget):
    """A pointwise LLM ranker (:class:`~axiomatic.models.llm.LLMRanker`: ``llm:PATH``,
    ``smollm2``) prepared for patching. The patched run is the ranker's own prompt (its template,
    truncation and special tokens) and the score its own, ``logit(yes) - logit(no)`` at the
    prompt's last token (:meth:`~axiomatic.models.llm.LLMRanker.last_token_difference`), in
    float32.

    Components of a Llama-style decoder (``embed_tokens``, ``layers[i]`` with
    ``input_layernorm``, ``self_attn.o_proj``, ``post_attention_layernorm``, ``mlp``; RMSNorm,
    rotary positions and the causal mask stay inside the model's own forward pass): ``residual``
    after layer ``l`` (0: the token embeddings) at the positions of one role (``template``,
    ``query``, ``perturbed``, ``query term``, ``document``, ``last token``); ``head``: one
    *query* head's output (its slice of ``o_proj``'s input; with grouped-query attention
    several query heads share a key/value head and are still patched one by one); ``mlp``: one
    layer's MLP output before the residual sum. The duplicate-token attention is not measured.
    """

    def __init__(
        self, name: str, ranker: Any, max_length: int = 512
    ) -> None:  # no BERT layout: the base initializer is not run
        tok, model, _ = ranker.components()
        decoder = model.base_model
        layers = getattr(decoder, "layers", None)
        ok = (
            isinstance(layers, nn.ModuleList)
            and len(layers) > 0
            and hasattr(decoder, "embed_tokens")
            and all(
                hasattr(getattr(layer, "self_attn", None), "o_proj")
                and hasattr(layer, "post_attention_layernorm")
                and hasattr(layer, "mlp")
                for layer in layers
            )
        )
        if not ok:
            raise ValueError(
                f"{name}: patching an LLM needs a Llama-style decoder (embed_tokens, layers[i] "
                f"with self_attn.o_proj, post_attention_layernorm, mlp); got "
                f"{type(decoder).__name__}"
            )
        config = model.config
        self.name = name
        self.kind = "decoder"
        self.ranker = ranker
        self.model = model
        self.encoder = decoder
        self.tokenizer = tok
        self.max_length = int(max_length)
        self.prepare = None
        self.layers = layers
        self.n_layers = len(self.layers)
        self.n_heads = int(config.num_attention_heads)
        self.head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // self.n_heads)
        self.roles = tuple(
            ROLES.index(r)
            for r in ("template", "query", "perturbed", "query term", "document", "last token")
        )
        self.answers: tuple[int, int] | None = None
        self._head: tuple[Any, Any] | None = None

        def score(inputs: dict[str, torch.Tensor], queries: list[str]) -> torch.Tensor:
            if self._head is None:
                raise ValueError(f"{name}: tokenize the pairs first (the answers are unknown)")
            mask = inputs["attention_mask"]
            hidden = decoder(input_ids=inputs["input_ids"], attention_mask=mask).last_hidden_state
            return ranker.last_token_difference(hidden, mask, self._head).float()

        self.score_fn = score

    def pieces(self, word: str) -> int:
        """Tokens of ``word`` inside a text (after a space)."""
        return len(self.tokenizer.encode(" " + word, add_special_tokens=False))

    def tokenize(self, pairs: Sequence[MinimalPair]) -> tuple[TokenPairs, dict[str, int]]:
        """The pairs' prompts as the ranker builds them, tokenized as it does; keeps pairs whose
        two prompts have the same number of tokens and at most ``max_length``."""
        dropped = {"unequal length": 0, "too long": 0}
        rows: list[tuple[list[int], list[int], list[int] | None, list[int], MinimalPair]] = []
        for p in pairs:
            b, q, roles = self._prompt_ids(p.query, p.baseline, p.perturbed)
            if len(b) != len(q):
                dropped["unequal length"] += 1
                continue
            if len(b) > self.max_length:
                dropped["too long"] += 1
                continue
            rows.append((b, q, None, roles, p))
        pad = self.tokenizer.pad_token_id
        pad = int(pad if pad is not None else (self.tokenizer.eos_token_id or 0))
        return _pack_pairs(rows, pad=pad), dropped

    def _prompt_ids(
        self, query: str, baseline: str, perturbed: str
    ) -> tuple[list[int], list[int], list[int]]:
        """Token ids of the baseline and perturbed prompts and the role of every position (of
        the baseline prompt when the lengths differ)."""
        from axiomatic.models.llm import POINTWISE_TEMPLATES

        ranker = self.ranker
        prompts, chat, answers = ranker.prompts([query, query], [baseline, perturbed])
        if self.answers is None:
            self.answers = answers
            self._head = ranker.answer_head(answers)
        text, _, _, _ = ranker.resolve_template(ranker.template, POINTWISE_TEMPLATES)
        docs = ranker.truncate([baseline, perturbed])
        out = []
        for prompt, doc in zip(prompts, docs, strict=True):
            body, spans = _filled_spans(text, {"query": query, "document": doc})
            at = prompt.find(body)
            if at < 0:
                raise ValueError(f"{self.name}: the prompt does not hold its filled template")
            enc = self.tokenizer(
                prompt,
                add_special_tokens=not chat,
                truncation=False,
                return_offsets_mapping=True,
            )
            spans = {k: [(at + s, at + e) for s, e in v] for k, v in spans.items()}
            out.append((list(enc["input_ids"]), list(enc["offset_mapping"]), spans))
        (b, offsets, spans), (q, _, _) = out
        roles = []
        query_vocab = {t for t, o in zip(q, offsets, strict=False) if _overlaps(o, spans["query"])}
        for i, (t, o) in enumerate(zip(b, offsets, strict=True)):
            if i < len(q) and t != q[i]:  # also the last token, where a template ends there
                r = "perturbed"
            elif i == len(b) - 1:
                r = "last token"
            elif _overlaps(o, spans["document"]):
                r = "query term" if i < len(q) and q[i] in query_vocab else "document"
            elif _overlaps(o, spans["query"]):
                r = "query"
            else:
                r = "template"
            roles.append(ROLES.index(r))
        return b, q, roles

    def cache_run(
        self, inputs: dict[str, torch.Tensor], queries: list[str]
    ) -> tuple[torch.Tensor, dict[tuple[str, int], torch.Tensor]]:
        """Scores of a run and its activations: the residual stream after each layer (0: the
        token embeddings), each layer's ``o_proj`` input (the query heads' outputs), the residual
        after the attention block (the post-attention norm's input) and the MLP output."""
        cache: dict[tuple[str, int], torch.Tensor] = {}
        handles = []
        for l_ in range(self.n_layers + 1):

            def keep_res(_m: Any, _i: Any, out: Any, l_: int = l_) -> None:
                cache[("residual", l_)] = _hidden(out).detach()

            module = self.encoder.embed_tokens if l_ == 0 else self.layers[l_ - 1]
            handles.append(module.register_forward_hook(keep_res))
        for l_, layer in enumerate(self.layers):

            def keep_heads(_m: Any, args: Any, l_: int = l_) -> None:
                cache[("head", l_)] = args[0].detach()

            def keep_attention(_m: Any, args: Any, l_: int = l_) -> None:
                cache[("attention", l_)] = args[0].detach()

            def keep_mlp(_m: Any, _i: Any, out: Any, l_: int = l_) -> None:
                cache[("mlp", l_)] = _hidden(out).detach()

            handles.append(layer.self_attn.o_proj.register_forward_pre_hook(keep_heads))
            handles.append(layer.post_attention_layernorm.register_forward_pre_hook(keep_attention))
            handles.append(layer.mlp.register_forward_hook(keep_mlp))
        with _hooks(handles):
            scores = self.score_fn(inputs, queries)
        return scores.detach(), cache

    @contextmanager
    def _start_at(self, layer: int, hidden: torch.Tensor) -> Iterator[None]:
        """Run the decoder from layer ``layer`` on ``hidden``: the token embeddings are replaced
        by it (the model still builds its causal mask and rotary positions from the inputs) and
        the layers before ``layer`` are left out."""
        full = self.encoder.layers

        def feed(_m: Any, _i: Any, out: Any) -> Any:
            return _replace_hidden(out, hidden)

        handle = self.encoder.embed_tokens.register_forward_hook(feed)
        self.encoder.layers = full[layer:]
        try:
            yield
        finally:
            self.encoder.layers = full
            handle.remove()

    def patched_group(
        self,
        inputs: dict[str, torch.Tensor],
        queries: list[str],
        kind: str,
        layer: int,
        indexes: Sequence[int],
        pert_cache: dict[tuple[str, int], torch.Tensor],
        base_cache: dict[tuple[str, int], torch.Tensor],
        roles: torch.Tensor,
        base_scores: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """As :func:`_patched_group`, on a decoder layer: a head patch starts at ``o_proj``
        (then the residual sum, the post-attention norm and the MLP), an MLP patch adds the
        cached perturbed MLP output to the cached baseline residual after attention. Every row
        is run (``base_scores`` is not used)."""
        c, b = len(indexes), int(inputs["input_ids"].shape[0])
        rep = {k: v.repeat(c, 1) for k, v in inputs.items()}
        qs = list(queries) * c
        if kind == "residual":
            wanted = torch.tensor(indexes, device=roles.device).repeat_interleave(b)
            where = (roles.repeat(c, 1) == wanted[:, None]).unsqueeze(-1)
            hidden = torch.where(
                where,
                pert_cache[("residual", layer)].repeat(c, 1, 1),
                base_cache[("residual", layer)].repeat(c, 1, 1),
            )
            with self._start_at(layer, hidden):
                return self.score_fn(rep, qs).detach().view(c, b)
        block = self.layers[layer]
        if kind == "head":
            heads = base_cache[("head", layer)].repeat(c, 1, 1)
            cached = pert_cache[("head", layer)]
            for j, h in enumerate(indexes):
                lo, hi = h * self.head_dim, (h + 1) * self.head_dim
                heads[j * b : (j + 1) * b, :, lo:hi] = cached[..., lo:hi]
            mid = base_cache[("residual", layer)].repeat(c, 1, 1) + block.self_attn.o_proj(heads)
            hidden = mid + _hidden(block.mlp(block.post_attention_layernorm(mid)))
        else:
            hidden = (base_cache[("attention", layer)] + pert_cache[("mlp", layer)]).repeat(c, 1, 1)
        with self._start_at(layer + 1, hidden):
            return self.score_fn(rep, qs).detach().view(c, b)

    def rows(self, width: int, max_rows: int | None) -> int:
        """Rows of one patched forward pass (as :func:`_rows`, from the decoder's sizes)."""
        if max_rows is not None:
            return max_rows
        if self.device.type != "cpu":
            return 64
        from axiomatic.models.batching import rows_within

        config = self.model.config
        return rows_within(
            width,
            hidden=int(config.hidden_size),
            intermediate=int(config.intermediate_size),
            heads=self.n_heads,
        )

    def duplicate_attention(
        self,
        cache: dict[tuple[str, int], torch.Tensor],
        inputs: dict[str, torch.Tensor],
        roles: torch.Tensor,
    ) -> np.ndarray:
        """Not measured on a decoder: no position counts."""
        return np.zeros((self.n_layers, self.n_heads, 4))


def _filled_spans(
    template: str, values: dict[str, str]
) -> tuple[str, dict[str, list[tuple[int, int]]]]:
    """``template`` filled as :func:`axiomatic.models.llm._fill` fills it (each ``{field}``
    replaced in one pass), and the character spans of every field's text in the result."""
    import re

    fields = "|".join(map(re.escape, values))
    parts: list[str] = []
    spans: dict[str, list[tuple[int, int]]] = {k: [] for k in values}
    at = prev = 0
    for m in re.finditer(r"\{(" + fields + r")\}", template):
        parts.append(template[prev : m.start()])
        at += m.start() - prev
        value = values[m.group(1)]
        spans[m.group(1)].append((at, at + len(value)))
        parts.append(value)
        at += len(value)
        prev = m.end()
    parts.append(template[prev:])
    return "".join(parts), spans


def _overlaps(offset: Sequence[int], spans: list[tuple[int, int]]) -> bool:
    s, e = int(offset[0]), int(offset[1])
    return e > s and any(s < hi and lo < e for lo, hi in spans)


def _pack_pairs(
    rows: Sequence[tuple[list[int], list[int], list[int] | None, list[int], MinimalPair]],
    pad: int,
) -> TokenPairs:
    """Kept pairs ``(baseline ids, perturbed ids, token types or None, roles, pair)`` as
    right-padded tensors (``pad`` in the id rows, :data:`_PAD` in the roles, token type 0 where
    a model has none) with each pair's identification."""
    n = len(rows)
    width = max((len(r[0]) for r in rows), default=1)
    base = torch.full((n, width), pad, dtype=torch.long)
    pert = torch.full((n, width), pad, dtype=torch.long)
    types = torch.zeros((n, width), dtype=torch.long)
    roles = torch.full((n, width), _PAD, dtype=torch.long)
    mask = torch.zeros((n, width), dtype=torch.long)
    for i, (b, q, tt, r, _) in enumerate(rows):
        k = len(b)
        base[i, :k] = torch.tensor(b)
        pert[i, :k] = torch.tensor(q)
        if tt is not None:
            types[i, :k] = torch.tensor(tt)
        roles[i, :k] = torch.tensor(r)
        mask[i, :k] = 1
    meta = [
        {
            "axiom": p.axiom,
            "query_id": p.query_id,
            "doc_id": p.doc_id,
            "term": p.term,
            "replaced": p.replaced,
        }
        for *_, p in rows
    ]
    return TokenPairs(base, pert, mask, types, roles, meta, [p.query for *_, p in rows])


def _roles(
    base: list[int], pert: list[int], types: list[int], kind: str, query_vocab: set[int]
) -> list[int]:
    """Role index of every position (see :data:`ROLES`)."""
    n = len(base)
    out = []
    if kind == "cross-encoder":
        sep = [i for i in range(n) if types[i] == 0][-1]  # the first [SEP] closes segment 0
        query_vocab = set(pert[1:sep])
    for i in range(n):
        if i == 0:
            r = "[CLS]"
        elif i == n - 1 or (kind == "cross-encoder" and types[i] == 0 and i == sep):
            r = "[SEP]"
        elif kind == "cross-encoder" and types[i] == 0:
            r = "query"
        elif base[i] != pert[i]:
            r = "perturbed"
        elif pert[i] in query_vocab:
            r = "query term"
        else:
            r = "document"
        out.append(ROLES.index(r))
    return out


def _bert_layers(encoder: nn.Module, name: str) -> Any:
    layers = getattr(getattr(encoder, "encoder", None), "layer", None)
    ok = (
        isinstance(layers, nn.ModuleList)
        and len(layers) > 0
        and hasattr(encoder, "embeddings")
        and all(
            hasattr(getattr(layer, "attention", None), "self")
            and hasattr(getattr(layer.attention, "output", None), "dense")
            and hasattr(layer, "intermediate")
            and hasattr(getattr(layer, "output", None), "dense")
            and hasattr(layer.output, "LayerNorm")
            for layer in layers
        )
    )
    if not ok:
        raise ValueError(
            f"{name}: patching needs a BERT-style encoder (embeddings, encoder.layer[i] with "
            f"attention.self, attention.output.dense, intermediate, output.dense, "
            f"output.LayerNorm); got "
            f"{type(encoder).__name__}"
        )
    return layers


def patching_target(ranker: Any, name: str | None = None, max_length: int = 512) -> PatchTarget:
    """A :class:`PatchTarget` for a ranker or model the toolkit loads: the MiniLM
    :class:`~axiomatic.models.transformer.CrossEncoder` / ``BiEncoder`` (or a
    :class:`~axiomatic.models.ranker.NeuralRanker` over one: ``minilm``, ``model:PATH``), and the
    ``st:`` / ``cross-encoder:`` / ``hf:`` rankers of a local Hugging Face folder."""
    from axiomatic.models.hf import HFBiEncoderRanker, HFCrossEncoderRanker
    from axiomatic.models.llm import LLMRanker
    from axiomatic.models.transformer import BiEncoder, CrossEncoder

    model = getattr(ranker, "model", ranker)
    label = name or str(getattr(ranker, "name", type(model).__name__))
    if isinstance(ranker, LLMRanker):
        return DecoderPatchTarget(label, ranker, max_length)
    if isinstance(model, CrossEncoder):
        model.eval()

        def ce_score(inputs: dict[str, torch.Tensor], queries: list[str]) -> torch.Tensor:
            return model(**inputs).float()

        return PatchTarget(label, "cross-encoder", model.encoder, ce_score, model.tokenizer,
                           max_length)  # fmt: skip
    if isinstance(model, BiEncoder):
        model.eval()
        qcache: dict[str, torch.Tensor] = {}

        def embed_q(texts: list[str]) -> torch.Tensor:
            return model.embed_texts(texts, bf16=False, as_query=True)

        def bi_score(inputs: dict[str, torch.Tensor], queries: list[str]) -> torch.Tensor:
            q = _query_vectors(qcache, queries, embed_q)
            d = model.embed(inputs["input_ids"], inputs["attention_mask"]).float()
            return model.scale * (F.normalize(d, dim=-1) * q.to(d.device)).sum(-1)

        return PatchTarget(label, "bi-encoder", model.encoder, bi_score, model.tokenizer,
                           max_length, lambda qs: _query_vectors(qcache, qs, embed_q))  # fmt: skip
    if isinstance(ranker, HFCrossEncoderRanker):
        tok, hf, _ = ranker.components()

        def hf_ce_score(inputs: dict[str, torch.Tensor], queries: list[str]) -> torch.Tensor:
            logits = hf(**inputs).logits.float()
            return logits[:, 0] if logits.shape[1] == 1 else logits[:, 1] - logits[:, 0]

        return PatchTarget(label, "cross-encoder", hf.base_model, hf_ce_score, tok, max_length)
    if isinstance(ranker, HFBiEncoderRanker):
        tok, hf, _ = ranker.components()
        qcache_hf: dict[str, torch.Tensor] = {}

        def embed_hf(texts: list[str]) -> torch.Tensor:
            return torch.from_numpy(ranker.embed(texts)).float()

        def hf_bi_score(inputs: dict[str, torch.Tensor], queries: list[str]) -> torch.Tensor:
            q = _query_vectors(qcache_hf, queries, embed_hf)
            d = ranker.pool(hf(**inputs).last_hidden_state.float(), inputs["attention_mask"])
            return (d * q.to(d.device)).sum(-1)

        return PatchTarget(label, "bi-encoder", hf, hf_bi_score, tok, max_length,
                           lambda qs: _query_vectors(qcache_hf, qs, embed_hf))  # fmt: skip
    raise ValueError(
        f"cannot patch {label!r} ({type(model).__name__}): patching needs a transformer ranker "
        "(minilm, model:PATH of a MiniLM cross- or bi-encoder, st:DIR, cross-encoder:DIR, hf:DIR, "
        "or a pointwise LLM: llm:PATH, smollm2)"
    )


def _query_vectors(
    cache: dict[str, torch.Tensor], queries: list[str], embed: Callable[[list[str]], torch.Tensor]
) -> torch.Tensor:
    missing = [q for q in dict.fromkeys(queries) if q not in cache]
    if missing:
        for q, v in zip(missing, embed(missing), strict=True):
            cache[q] = v.float()
    return torch.stack([cache[q] for q in queries])


# ------------------------------------------------------------------ hooks


def _hidden(output: Any) -> torch.Tensor:
    return output[0] if isinstance(output, tuple) else output


def _replace_hidden(output: Any, new: torch.Tensor) -> Any:
    if isinstance(output, tuple):
        return (new, *output[1:])
    return new


@contextmanager
def _hooks(handles: list[Any]) -> Iterator[None]:
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def _residual_module(target: PatchTarget, layer: int) -> Any:
    return target.encoder.embeddings if layer == 0 else target.layers[layer - 1]


def _cache_run(
    target: PatchTarget, inputs: dict[str, torch.Tensor], queries: list[str]
) -> tuple[torch.Tensor, dict[tuple[str, int], torch.Tensor]]:
    """Scores of a run and its activations: residual after each layer (0 = embeddings), each
    layer's attention-output input (the heads' concatenated outputs), attention block output
    (the MLP's input) and MLP output."""
    cache: dict[tuple[str, int], torch.Tensor] = {}
    handles = []
    for l_ in range(target.n_layers + 1):

        def keep_res(_m: Any, _i: Any, out: Any, l_: int = l_) -> None:
            cache[("residual", l_)] = _hidden(out).detach()

        handles.append(_residual_module(target, l_).register_forward_hook(keep_res))
    for l_, layer in enumerate(target.layers):

        def keep_heads(_m: Any, args: Any, l_: int = l_) -> None:
            cache[("head", l_)] = args[0].detach()

        def keep_attention(_m: Any, args: Any, l_: int = l_) -> None:
            cache[("attention", l_)] = args[0].detach()

        def keep_mlp(_m: Any, _i: Any, out: Any, l_: int = l_) -> None:
            cache[("mlp", l_)] = out.detach()

        handles.append(layer.attention.output.dense.register_forward_pre_hook(keep_heads))
        handles.append(layer.intermediate.register_forward_pre_hook(keep_attention))
        handles.append(layer.output.dense.register_forward_hook(keep_mlp))
    with _hooks(handles):
        scores = target.score_fn(inputs, queries)
    return scores.detach(), cache


@contextmanager
def _start_at(target: PatchTarget, layer: int, hidden: torch.Tensor) -> Iterator[None]:
    """Run the encoder from layer ``layer`` on ``hidden`` (the residual stream entering it):
    the embeddings' output is replaced by ``hidden`` and the layers before ``layer`` are left
    out (their output would equal the cached baseline's), so a component deep in the model costs
    only the layers after it."""
    enc = target.encoder.encoder
    full = enc.layer

    def feed(_m: Any, _i: Any, out: Any) -> Any:
        return _replace_hidden(out, hidden)

    handle = target.encoder.embeddings.register_forward_hook(feed)
    enc.layer = full[layer:]
    try:
        yield
    finally:
        enc.layer = full
        handle.remove()


def _patched_group(
    target: PatchTarget,
    inputs: dict[str, torch.Tensor],
    queries: list[str],
    kind: str,
    layer: int,
    indexes: Sequence[int],
    pert_cache: dict[tuple[str, int], torch.Tensor],
    base_cache: dict[tuple[str, int], torch.Tensor],
    roles: torch.Tensor,
    base_scores: torch.Tensor | None = None,
) -> torch.Tensor:
    """Scores ``(len(indexes), B)`` of the baseline run with one component patched per block:
    the components of one kind and layer (roles of the residual stream, heads) are stacked along
    the batch and run in one forward pass from their layer on.

    Nothing before the patched activation is recomputed. A residual patch enters its layer; a
    head patch starts at its layer's attention output projection (the self-attention of that
    layer is the cached baseline's: patching a head leaves the others as they were); an MLP
    patch needs no matrix product in its own layer (its output is the cached perturbed one, the
    attention block's the cached baseline's) and enters the next layer.

    With ``base_scores`` (the baseline run's scores ``(B,)``) a row whose patched activation
    equals the baseline's bit for bit (a residual role absent from its pair, such as other
    occurrences of a query term in a document that has none) is not run: its score is the
    baseline's, which running it would reproduce exactly (every matrix product and norm works
    row by row, and the attention mixes only a row's own positions)."""
    c, b = len(indexes), int(inputs["input_ids"].shape[0])
    moved: torch.Tensor | None = None  # (c * b,): rows whose patched activation differs
    if kind == "residual":
        wanted = torch.tensor(indexes, device=roles.device).repeat_interleave(b)
        where = roles.repeat(c, 1) == wanted[:, None]
        base = base_cache[("residual", layer)]
        pert = pert_cache[("residual", layer)]
        if base_scores is not None:
            moved = (where & (pert != base).any(-1).repeat(c, 1)).any(1)
        hidden = torch.where(where.unsqueeze(-1), pert.repeat(c, 1, 1), base.repeat(c, 1, 1))
        start = layer
    elif kind == "head":
        heads = base_cache[("head", layer)].repeat(c, 1, 1)
        cached = pert_cache[("head", layer)]
        for j, h in enumerate(indexes):
            lo, hi = h * target.head_dim, (h + 1) * target.head_dim
            heads[j * b : (j + 1) * b, :, lo:hi] = cached[..., lo:hi]
        if base_scores is not None:
            shape = (b, -1, target.n_heads, target.head_dim)
            differs = (cached != base_cache[("head", layer)]).view(shape).any(-1).any(1)  # (B, H)
            moved = differs[:, list(indexes)].T.reshape(-1)
        # BertLayer after its self-attention: BertSelfOutput, then the feed-forward chunk
        block = target.layers[layer]
        attention = block.attention.output(heads, base_cache[("residual", layer)].repeat(c, 1, 1))
        hidden = block.output(block.intermediate(attention), attention)
        start = layer + 1
    else:
        # BertOutput with its dense layer's output replaced (dropout: identity in eval mode)
        out = target.layers[layer].output
        cached = pert_cache[("mlp", layer)]
        if base_scores is not None:
            moved = (cached != base_cache[("mlp", layer)]).flatten(1).any(1).repeat(c)
        hidden = out.LayerNorm(out.dropout(cached) + base_cache[("attention", layer)]).repeat(
            c, 1, 1
        )
        start = layer + 1
    rep = {k: v.repeat(c, 1) for k, v in inputs.items()}
    qs = list(queries) * c
    if base_scores is None or moved is None or bool(moved.all()):
        with _start_at(target, start, hidden):
            return target.score_fn(rep, qs).detach().view(c, b)
    scores = base_scores.detach().repeat(c)
    rows = moved.nonzero().squeeze(1)
    if len(rows):
        sub = {k: v[rows] for k, v in rep.items()}
        with _start_at(target, start, hidden[rows]):
            scores[rows] = target.score_fn(sub, [qs[i] for i in rows.tolist()]).detach()
    return scores.view(c, b)


def _rows(target: PatchTarget, width: int, max_rows: int | None) -> int:
    """Rows of one patched forward pass over inputs of ``width`` word pieces (see
    :func:`patch_tokens`)."""
    if max_rows is not None:
        return max_rows
    if target.device.type != "cpu":
        return 64
    from axiomatic.models.batching import rows_within

    block = target.layers[0]
    hidden = int(block.attention.output.dense.out_features)
    intermediate = int(block.output.dense.in_features)
    return rows_within(width, hidden=hidden, intermediate=intermediate, heads=target.n_heads)


def _groups(
    comps: Sequence[tuple[str, int, int]], rows: int, batch: int
) -> list[tuple[str, int, list[int]]]:
    """Components of one kind and layer together, at most ``rows // batch`` per forward pass.
    The embeddings' residual differs only at the perturbed positions: its other roles restore
    exactly nothing and are not run."""
    size = max(1, rows // max(batch, 1))
    out: dict[tuple[str, int], list[int]] = {}
    for kind, layer, index in comps:
        if kind == "residual" and layer == 0 and ROLES[index] != "perturbed":
            continue
        out.setdefault((kind, layer), []).append(index)
    return [
        (kind, layer, idx[i : i + size])
        for (kind, layer), idx in out.items()
        for i in range(0, len(idx), size)
    ]


def _components(target: PatchTarget, kinds: Sequence[str]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    roles = target.roles
    for kind in kinds:
        if kind == "residual":
            out += [("residual", l_, r) for l_ in range(target.n_layers + 1) for r in roles]
        elif kind == "head":
            out += [("head", l_, h) for l_ in range(target.n_layers) for h in range(target.n_heads)]
        elif kind == "mlp":
            out += [("mlp", l_, -1) for l_ in range(target.n_layers)]
        else:
            raise ValueError(f"unknown component {kind!r}; expected one of {', '.join(COMPONENTS)}")
    return out


def _duplicate_attention(
    target: PatchTarget,
    cache: dict[tuple[str, int], torch.Tensor],
    inputs: dict[str, torch.Tensor],
    roles: torch.Tensor,
) -> np.ndarray:
    """``(layers, heads, 4)`` sums over the batch's perturbed positions that have another
    occurrence of their token: attention mass to the other occurrences in the document, in the
    query segment, the uniform expectation of the first, and the number of positions."""
    ids = inputs["input_ids"]
    mask = inputs["attention_mask"].bool()
    out = np.zeros((target.n_layers, target.n_heads, 4))
    same = ids.unsqueeze(2) == ids.unsqueeze(1)  # (B, L, L)
    eye = torch.eye(ids.shape[1], dtype=torch.bool, device=ids.device)
    in_doc = (roles >= ROLES.index("perturbed")).unsqueeze(1)  # key positions in the document
    in_query = (roles == ROLES.index("query")).unsqueeze(1)
    other = same & ~eye & mask.unsqueeze(1)
    dup_doc, dup_query = other & in_doc, other & in_query
    src = (roles == ROLES.index("perturbed")) & (dup_doc.any(-1) | dup_query.any(-1))
    if not bool(src.any()):
        return out
    n_real = mask.sum(-1, keepdim=True).float()  # (B, 1)
    uniform = dup_doc.sum(-1).float() / n_real  # (B, L)
    for l_, layer in enumerate(target.layers):
        att = layer.attention.self
        h = cache[("residual", l_)]
        b, n, _ = h.shape
        q = att.query(h).view(b, n, target.n_heads, target.head_dim).transpose(1, 2)
        k = att.key(h).view(b, n, target.n_heads, target.head_dim).transpose(1, 2)
        logits = (q @ k.transpose(-1, -2)) / math.sqrt(target.head_dim)
        logits = logits.masked_fill(~mask[:, None, None, :], float("-inf"))
        probs = logits.softmax(-1)  # (B, H, L, L)
        m_doc = (probs * dup_doc[:, None].float()).sum(-1)  # (B, H, L)
        m_query = (probs * dup_query[:, None].float()).sum(-1)
        sel = src[:, None, :].expand_as(m_doc)
        out[l_, :, 0] = (m_doc * sel).sum((0, 2)).cpu().numpy()
        out[l_, :, 1] = (m_query * sel).sum((0, 2)).cpu().numpy()
        out[l_, :, 2] = float((uniform * src).sum())
        out[l_, :, 3] = float(src.sum())
    return out


# ------------------------------------------------------------------ the run


@dataclass
class PatchResult:
    """What :func:`patch` measured.

    ``pairs``: one row per pair (axiom, ids, tokens, ``s_base``, ``s_pert``, ``delta``, ``kept``);
    ``effects``: one row per axiom and component (``component`` residual/head/mlp, ``layer``,
    ``head``, ``role``, ``n``, ``mean``, ``sd``, ``ci_low``, ``ci_high`` of the per-pair restored
    fraction; ``aggregate``, ``agg_low``, ``agg_high``: the restored share, the per-pair
    fractions weighted by the size of their score difference, with a bootstrap interval,
    :func:`_aggregate_ci`); ``fractions``: the per-pair restored fraction of every component
    (one row per pair as in ``pairs``, one column ``kind:layer:head-or-role`` per component);
    ``attention``: per axiom, layer and head, the duplicate-token attention (see the module
    docstring); ``timing``: seconds, pairs per second, forward passes, seconds per component;
    ``dropped``: pairs left out before patching and why; ``settings``: the run's settings.
    """

    model: str
    kind: str
    pairs: pd.DataFrame
    effects: pd.DataFrame
    fractions: pd.DataFrame
    attention: pd.DataFrame
    timing: dict[str, float]
    dropped: dict[str, int]
    settings: dict[str, Any]

    def top(self, axiom: str, component: str = "head", k: int = 5) -> pd.DataFrame:
        """The ``k`` components of one kind with the largest restored share (``aggregate``)."""
        e = self.effects
        e = e[(e["axiom"] == axiom) & (e["component"] == component)]
        return e.sort_values("aggregate", ascending=False).head(k)


def patch(
    target: PatchTarget,
    pairs: Sequence[MinimalPair],
    components: Sequence[str] = COMPONENTS,
    batch_size: int = 16,
    min_delta: float = 0.05,
    attention: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> PatchResult:
    """Patch every component for every pair (tokenized with the target's tokenizer; pairs whose
    two texts differ in word pieces or exceed ``max_length`` are left out and counted)."""
    tokens, dropped = target.tokenize(pairs)
    result = patch_tokens(target, tokens, components, batch_size, min_delta, attention, progress)
    result.dropped.update(dropped)
    return result


def patch_tokens(
    target: PatchTarget,
    tokens: TokenPairs,
    components: Sequence[str] = COMPONENTS,
    batch_size: int = 16,
    min_delta: float = 0.05,
    attention: bool = True,
    progress: Callable[[int, int], None] | None = None,
    max_rows: int | None = None,
) -> PatchResult:
    """:func:`patch` on pre-tokenized pairs (a model without a tokenizer, tests). ``max_rows``:
    the most rows (components x pairs) of one patched forward pass; by default, on the CPU, as
    many as keep every activation within
    :data:`~axiomatic.models.batching.CPU_TENSOR_BYTES` (larger ones page-fault on every
    pass), elsewhere 64."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
    if not 0 <= min_delta < 1:
        raise ValueError(f"min_delta must be in [0, 1) (got {min_delta})")
    comps = _components(target, components)
    position = {comp: i for i, comp in enumerate(comps)}
    n = int(tokens.base.shape[0])
    if n == 0:
        raise ValueError(f"{target.name}: no minimal pair to patch (all were left out)")
    device = target.device
    lengths = tokens.attention_mask.sum(1)
    order = torch.argsort(lengths, stable=True).tolist()  # batches of similar length
    s_base = np.zeros(n)
    s_pert = np.zeros(n)
    s_patch = np.zeros((len(comps), n))
    axes = [m.get("axiom", "") for m in tokens.meta] or [""] * n
    att_sums: dict[str, np.ndarray] = {}
    t0 = time.perf_counter()
    forwards = 0
    kind_seconds: dict[str, float] = {}
    was_training = target.encoder.training
    target.encoder.eval()
    if target.prepare is not None and tokens.queries:
        with torch.inference_mode():
            target.prepare(list(dict.fromkeys(tokens.queries)))
    batches = [order[start : start + batch_size] for start in range(0, n, batch_size)]
    plans = [
        _groups(comps, target.rows(int(lengths[idx].max()), max_rows), len(idx)) for idx in batches
    ]
    units = sum(len(plan) + 1 for plan in plans)  # a batch's cached runs, then its groups
    done = 0
    try:
        with torch.inference_mode(), _Ticker(units, f"patching {target.name}") as tick:
            for idx, plan in zip(batches, plans, strict=True):
                width = int(lengths[idx].max())
                sl = (idx, slice(0, width))
                common = {
                    "attention_mask": tokens.attention_mask[sl].to(device),
                    "token_type_ids": tokens.token_type_ids[sl].to(device),
                }
                base = {"input_ids": tokens.base[sl].to(device), **common}
                pert = {"input_ids": tokens.pert[sl].to(device), **common}
                roles = tokens.roles[sl].to(device)
                queries = [tokens.queries[i] for i in idx] if tokens.queries else [""] * len(idx)
                sp, cache = target.cache_run(pert, queries)
                sb, base_cache = target.cache_run(base, queries)
                forwards += 2
                s_pert[idx] = sp.cpu().double().numpy()
                s_base[idx] = sb.cpu().double().numpy()
                s_patch[:, idx] = s_base[idx][None]  # components not run restore nothing
                if attention:
                    for ax in dict.fromkeys(axes[i] for i in idx):
                        sub = torch.tensor([axes[i] == ax for i in idx], device=device)
                        part = {k: v[sub] for k, v in pert.items()}
                        sub_cache = {k: v[sub] for k, v in cache.items() if k[0] == "residual"}
                        acc = target.duplicate_attention(sub_cache, part, roles[sub])
                        att_sums[ax] = att_sums.get(ax, 0) + acc
                tick()
                for kind, layer, indexes in plan:
                    tk = time.perf_counter()
                    scores = target.patched_group(
                        base, queries, kind, layer, indexes, cache, base_cache, roles, sb
                    )
                    kind_seconds[kind] = kind_seconds.get(kind, 0.0) + time.perf_counter() - tk
                    for j, index in enumerate(indexes):
                        s_patch[position[(kind, layer, index)], idx] = (
                            scores[j].cpu().double().numpy()
                        )
                    forwards += 1
                    tick()
                done += len(idx)
                if progress is not None:
                    progress(done, n)
    finally:
        target.encoder.train(was_training)
    seconds = time.perf_counter() - t0
    delta = s_pert - s_base
    pairs = pd.DataFrame(tokens.meta) if tokens.meta else pd.DataFrame({"axiom": axes})
    pairs["tokens"] = lengths.numpy()
    pairs["s_base"], pairs["s_pert"], pairs["delta"] = s_base, s_pert, delta
    kept = np.zeros(n, dtype=bool)
    for ax in dict.fromkeys(axes):
        sel = np.array([a == ax for a in axes])
        scale = float(np.median(np.abs(delta[sel])))
        kept[sel] = (np.abs(delta[sel]) > min_delta * scale) & (np.abs(delta[sel]) > 0)
    pairs["kept"] = kept
    frac = np.divide(
        s_patch - s_base[None], delta[None], out=np.zeros_like(s_patch), where=delta[None] != 0
    )
    rows = []
    for ax in dict.fromkeys(axes):
        sel = np.array([a == ax for a in axes]) & kept
        agg = _aggregate_ci(s_patch[:, sel] - s_base[None, sel], delta[sel], seed=0)
        for c, (kind, layer, index) in enumerate(comps):
            rows.append(
                {
                    "axiom": ax,
                    "component": kind,
                    "layer": layer,
                    "head": index if kind == "head" else -1,
                    "role": ROLES[index] if kind == "residual" else "all",
                    **_mean_ci(frac[c, sel]),
                    "aggregate": agg[0][c],
                    "agg_low": agg[1][c],
                    "agg_high": agg[2][c],
                }
            )
    effects = pd.DataFrame(rows)
    ids = [c for c in ("axiom", "query_id", "doc_id") if c in pairs.columns]
    names = [f"{k}:{layer}:{ROLES[i] if k == 'residual' else i}" for k, layer, i in comps]
    fractions = pd.concat(
        [pairs[ids].reset_index(drop=True), pd.DataFrame(frac.T, columns=names)], axis=1
    )
    att_rows = []
    for ax, acc in att_sums.items():
        for l_ in range(target.n_layers):
            for h in range(target.n_heads):
                cnt = acc[l_, h, 3]
                if cnt == 0:
                    continue
                att_rows.append(
                    {
                        "axiom": ax,
                        "layer": l_,
                        "head": h,
                        "positions": int(cnt),
                        "dup_doc": acc[l_, h, 0] / cnt,
                        "dup_query": acc[l_, h, 1] / cnt,
                        "dup_doc_uniform": acc[l_, h, 2] / cnt,
                    }
                )
    att_cols = ["axiom", "layer", "head", "positions", "dup_doc", "dup_query", "dup_doc_uniform"]
    timing = {
        "seconds": seconds,
        "pairs": float(n),
        "pairs_per_second": n / seconds if seconds > 0 else float("inf"),
        "forward_passes": float(forwards),
        "seconds_per_component": seconds / max(len(comps), 1),
        **{
            f"seconds_per_{kind}": kind_seconds.get(kind, 0.0)
            / max(1, sum(c[0] == kind for c in comps))
            for kind in dict.fromkeys(c[0] for c in comps)
        },
    }
    settings = {
        "components": list(components),
        "batch_size": batch_size,
        "min_delta": min_delta,
        "layers": target.n_layers,
        "heads": target.n_heads,
        "max_length": target.max_length,
    }
    return PatchResult(
        target.name,
        target.kind,
        pairs,
        effects,
        fractions,
        pd.DataFrame(att_rows, columns=att_cols),
        timing,
        {"small difference": int((~kept).sum())},
        settings,
    )


def _aggregate_ci(
    restored: np.ndarray, delta: np.ndarray, seed: int = 0, resamples: int = 1000
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per component (rows of ``restored``, ``(C, n)``: ``s(baseline, patched) - s(baseline)``
    per pair): the restored share ``sum(sign(delta) * restored) / sum(|delta|)``, i.e. the mean
    of the per-pair fractions weighted by ``|delta|`` (``sum(restored) / sum(delta)`` when every
    perturbed document scores higher; pairs in which it scores lower count with their own
    direction instead of cancelling the others), with a 95 % percentile bootstrap interval over
    pairs (``resamples`` draws, seeded). Steadier than the unweighted mean, in which a pair with
    a tiny difference weighs as much as one with a large difference."""
    c, n = restored.shape
    nan = np.full(c, np.nan)
    size = np.abs(delta)
    if n == 0 or size.sum() == 0:
        return nan, nan, nan
    signed = restored * np.sign(delta)[None]
    point = signed.sum(1) / size.sum()
    if n < 2:
        return point, nan, nan
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    den = size[idx].sum(1)  # (R,)
    num = signed[:, idx].sum(2)  # (C, R)
    boot = np.divide(num, den[None], out=np.full_like(num, np.nan), where=den[None] != 0)
    lo, hi = np.nanpercentile(boot, [2.5, 97.5], axis=1)
    return point, lo, hi


def _mean_ci(x: np.ndarray) -> dict[str, float]:
    from scipy import stats

    n = len(x)
    if n == 0:
        return {"n": 0, "mean": math.nan, "sd": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    mean = float(np.mean(x))
    if n < 2:
        return {"n": 1, "mean": mean, "sd": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    sd = float(np.std(x, ddof=1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": mean - half, "ci_high": mean + half}

"""Axiomatically regularized pre-training (Chen et al., SIGIR 2022, section 4.3, eqs. 10-12).

``L_total = L_Rel + L_MLM`` (eq. 10) on the MiniLM cross-encoder:

* ``L_Rel = max(0, margin - s(q+, d) + s(q-, d))`` (eq. 11, margin 1): for each document two
  random pairs of its pseudo queries, ordered by the preference predictor (``q+`` is the query
  the predictor prefers);
* ``L_MLM = -sum log p(x_hat | x without m(x))`` (eq. 12) on masked inputs (``masking``,
  below). all-MiniLM-L6-v2 is a sentence-embedding checkpoint without an MLM head, so
  :class:`AresCrossEncoder` adds a BERT LM head (dense + GELU + LayerNorm + decoder tied to the
  input embeddings + bias), newly initialized (normal std 0.02, as BERT's initializer).

Scoring head (``head``; :func:`pretrain_ares`, :func:`build_model` and
:class:`AresCrossEncoder` default to ``"mlp"``). The paper: "P(q|d) can be obtained by
calculating MLP(h_[CLS]), where h_[CLS] is the pooled output of transformer", and the authors'
code scores ``Linear(Dropout(pooled_output))`` with BERT's pooler (dense + tanh on the
last-layer ``[CLS]``): ``head="mlp"`` is that, its pooler starting from the checkpoint's
(all-MiniLM-L6-v2 has one). ``"linear"`` is the toolkit's plain cross-encoder head (a linear
layer on the last-layer ``[CLS]``, :class:`~axiomatic.models.transformer.CrossEncoder`'s
default), and what ARES pre-training used before the option existed. The paper's head is the
default because the rest of the setup follows the paper; the exported encoder keeps its head,
so fine-tuning and re-ranking score with the head that was pre-trained.

Masking (``masking``; default ``"input"``):

* ``"input"``, the paper's text (sec. 5.1.4: "the masking strategy of BERT (randomly selecting
  15% words in the input sequence ...)"): BERT's token masking of the ``[CLS] q+ [SEP] d [SEP]``
  input, each real (non-special, non-padding) token a target with probability 15 %, of which
  80 % become ``[MASK]``, 10 % a random token, 10 % stay (Devlin et al. 2019);
* ``"document-wwm"``, the authors' released code (``pretrain/dataloader.py``,
  ``create_masked_lm_predictions(..., whole_word_mask=True)``): only the document's tokens are
  candidates (the second segment, specials and padding excluded), whole words (a token and its
  ``##`` pieces) are masked together, ``max(1, round(15 % of the document's words))`` words per
  input, each of their tokens replaced 80/10/10 as above (decided per token, as there), and
  both inputs, (q+, d) and (q-, d), are masked, each with its own draw, their MLM losses
  averaged over all their targets (:func:`mask_whole_words`).

``"input"`` is the default because the paper's text is the specification this package
reproduces (and it is the masking of the pre-training runs made before the option existed);
``"document-wwm"`` is there to match the released code. Two further differences of the released code are not reproduced in
either mode: it scores the hinge on the *masked* inputs (one pass for both losses; here the
hinge sees the unmasked inputs), and it puts the two scores of a pair through a softmax before
the margin loss.

The loop is the project's :class:`~axiomatic.training.trainer.Trainer` (checkpoints, exact
resume, dev selection, logs) with :class:`AresLossStrategy` as its loss strategy. The trainer
expects (query, doc_hi, doc_lo) pairs; ARES pairs are (document, q+, q-), so the training data
is a :class:`~axiomatic.data.records.Dataset` whose "queries" are the documents (one entry per
pair, ``<doc>#<k>``) and whose "documents" are the pseudo queries; the strategy puts each text
back in its place (``[CLS] query [SEP] document [SEP]``).

Step cost (the budget: <= 1.5x a plain hinge step): the MLM pass over the (q+, d) rows is half
the hinge's two encoder passes, and the 30,522-way LM head comes on top, so the same objective
cannot cost much less than ~1.5x. :meth:`AresCrossEncoder.scores_and_mlm_loss` removes the
rest without changing a number beyond float rounding (the dropout draws included): one
tokenization, one word-embedding lookup and one embedding-gradient buffer for both passes (the
tied decoder adds into it), the LM head and the last encoder layer's queries, attention output
and feed-forward only at the masked positions. ``benchmarks/bench_ares.py --step`` times it
against the plain step and the first implementation.

Variants (ours where the paper is silent): ``simple`` (predictor of setting I), ``hard``
(setting IV), ``strict`` (no predictor: pairs on which every axiom with a preference agrees and
at least ``strict_min`` axioms have one), ``rep`` and ``rank`` (no predictor: the pairs that
Q-REP-QL/Q-REP-TFIDF resp. Q-RANK decide, in the axioms' own direction, i.e. the better REP scores,
length-normalized as the paper's, resp. the query under which BM25 ranks the document higher;
a pair on which the two REP axioms disagree is dropped). The paper defines ARES_REP/ARES_RANK as
"leveraging only the REP and RANK axioms"; a predictor trained on those features learns
whatever separates real from pseudo queries (on the first msmarco-20k corpus: Q-RANK
*backwards*; now mostly Q-STM-1), so the variants order by the axioms themselves. :func:`axiomatic.ares.pairs.axiom_agreement` reports
how the pairs of every variant agree with each axiom.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from axiomatic._suggest import suggest
from axiomatic.models.transformer import CrossEncoder, check_head
from axiomatic.training.distributed import rank_seed
from axiomatic.training.strategy_base import LossStrategy, StepContext

if TYPE_CHECKING:
    from axiomatic.ares.pipeline import Prepared
    from axiomatic.ares.predictor import PreferencePredictor
    from axiomatic.data.records import Dataset
    from axiomatic.training.samplers import Pair

VARIANTS = {
    "simple": ("I", None),
    "hard": ("IV", None),
    "strict": (None, None),
    "rep": (None, ("Q-REP-QL", "Q-REP-TFIDF")),
    "rank": (None, ("Q-RANK",)),
}
"""variant -> (negative-sampling setting of its predictor or None: ordered by the axioms,
the axioms it uses or None: all nine)."""

PAIRS_VERSION = 2
"""Version 2: monotone, antisymmetric predictor; rep/rank ordered by their axioms. Stamped in
the output folder so that a folder with older pairs or predictor is not silently reused."""


def check_variant(name: str) -> str:
    v = str(name).strip().lower().removeprefix("ares_").removeprefix("ares-")
    if v not in VARIANTS:
        raise ValueError(
            f"unknown ARES variant {name!r}{suggest(v, VARIANTS, n=1, cutoff=0.6)}; "
            f"expected one of {', '.join(VARIANTS)}"
        )
    return v


# ------------------------------------------------------------------------------ model
class _TiedGradient:
    """One gradient buffer for the word embeddings, shared by their two uses in a step.

    The decoder of the LM head is the word-embedding matrix W (tied), so W's gradient is
    ``scatter(lookup grads) + G^T x`` (G: the logits' gradient, x: the head's inputs). Autograd
    would build both 30,522 x 384 terms and add them; here the decoder's backward only records
    ``(G, x)`` and the lookup's backward (which always runs later: the decoder's inputs depend
    on the lookup's output) adds ``G^T x`` into its own buffer with one ``addmm_``. The same sum,
    in another order (float rounding)."""

    def __init__(self) -> None:
        self.pending: list[tuple[torch.Tensor, torch.Tensor]] = []


class _TiedLookup(torch.autograd.Function):
    """``F.embedding(ids, W, padding_idx)`` whose backward also adds the decoder's part."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, weight: torch.Tensor, ids: torch.Tensor, padding_idx: int | None, tied: Any
    ) -> torch.Tensor:
        ctx.save_for_backward(ids)
        ctx.shape, ctx.padding_idx, ctx.tied = weight.shape, padding_idx, tied
        return weight.index_select(0, ids)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, grad: torch.Tensor) -> Any:  # type: ignore[override]
        (ids,) = ctx.saved_tensors
        out = grad.new_zeros(ctx.shape)
        if ctx.padding_idx is not None:  # nn.Embedding leaves the padding row's gradient at 0
            keep = ids != ctx.padding_idx
            ids, grad = ids[keep], grad[keep]
        out.index_add_(0, ids, grad)
        for g, x in ctx.tied.pending:
            out.addmm_(g.t(), x)
        ctx.tied.pending.clear()
        return out, None, None, None


class _TiedDecoder(torch.autograd.Function):
    """``F.linear(x, W, b)`` leaving W's gradient to :class:`_TiedLookup` (see
    :class:`_TiedGradient`)."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, tied: Any
    ) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.tied = tied
        return F.linear(x, weight, bias)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, g: torch.Tensor) -> Any:  # type: ignore[override]
        x, weight = ctx.saved_tensors
        ctx.tied.pending.append((g, x))
        return g @ weight, None, g.sum(0), None


class MLMHead(nn.Module):
    """BERT's LM prediction head with the decoder tied to the input word embeddings."""

    def __init__(self, hidden: int, word_embeddings: nn.Embedding, eps: float = 1e-12) -> None:
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden, eps=eps)
        self.bias = nn.Parameter(torch.zeros(word_embeddings.num_embeddings))
        self.word_embeddings = word_embeddings  # shared module: the tied decoder weight
        nn.init.normal_(self.dense.weight, std=0.02)
        nn.init.zeros_(self.dense.bias)

    def transform(self, h: torch.Tensor) -> torch.Tensor:
        """Dense + GELU + LayerNorm: the decoder's input."""
        return self.norm(F.gelu(self.dense(h)))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        x = self.transform(h)
        # = x @ W.T + b; F.linear's backward writes dW in W's own layout (x @ W.T would hand
        # autograd a transposed 30,522 x 384 gradient to add to the embedding's)
        return F.linear(x, self.word_embeddings.weight, self.bias)


class AresCrossEncoder(CrossEncoder):
    """The MiniLM cross-encoder plus an MLM head for pre-training (eq. 12).

    Scoring is the plain cross-encoder's, with its ``head`` (default ``"mlp"``, the paper's
    ``MLP(h_[CLS])``: see the module docstring); :meth:`export` gives that plain
    :class:`~axiomatic.models.transformer.CrossEncoder` (the MLM head dropped) for re-ranking
    and fine-tuning. ``model_type`` is not a registered ranker on purpose: the trainer then
    keeps the state dict (``model.pt``) instead of a ``model/`` folder a plain loader would
    misread.
    """

    model_type = "ares-cross-encoder"

    def __init__(
        self,
        max_length: int = 128,
        dropout: float = 0.1,
        pretrained: bool = True,
        head: str = "mlp",
    ) -> None:
        super().__init__(max_length=max_length, dropout=dropout, pretrained=pretrained, head=head)
        emb = self.encoder.get_input_embeddings()
        eps = float(getattr(self.encoder.config, "layer_norm_eps", 1e-12))
        self.mlm_head = MLMHead(self.hidden_size, emb, eps)

    def mlm_loss(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None,
        labels: torch.Tensor,
    ) -> torch.Tensor:
        """Mean cross-entropy over the masked positions (``labels == -100`` elsewhere)."""
        h = self.token_embeddings(input_ids, attention_mask, token_type_ids)
        sel = labels != -100
        if not bool(sel.any()):
            return h.sum() * 0.0
        logits = self.mlm_head(h[sel].float())
        return F.cross_entropy(logits, labels[sel])

    def scores_and_mlm_loss(
        self,
        enc: dict[str, torch.Tensor],
        mlm_input_ids: torch.Tensor,
        labels: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Scores of the hinge batch ``enc`` (``(N, L)``) and the MLM loss of the masked
        inputs ``mlm_input_ids`` (``(B, Lm)``, ``Lm <= L``, whose attention mask and token
        types are ``enc``'s first ``B`` rows' first ``Lm`` columns).

        The same numbers as ``self(**enc)`` followed by :meth:`mlm_loss` (the dropout draws
        too: the two encoder passes run in that order), but the word embeddings of both
        batches come from one lookup, so the backward builds one dense 30,522 x 384 embedding
        gradient instead of two that then have to be added, and the tied decoder adds its part
        into that same buffer (:class:`_TiedGradient`); the LM head only sees the masked
        positions, and the last encoder layer runs only where the head reads it
        (:meth:`_hidden_at`)."""
        B, Lm = mlm_input_ids.shape
        n = enc["input_ids"].numel()
        ids = torch.cat((enc["input_ids"].reshape(-1), mlm_input_ids.reshape(-1)))
        emb = self.encoder.get_input_embeddings()
        tied = None
        if emb.max_norm is None and not emb.scale_grad_by_freq and not emb.sparse:
            tied = _TiedGradient()
            words = _TiedLookup.apply(emb.weight, ids, emb.padding_idx, tied)
        else:  # embedding options the tied lookup does not mirror
            words = emb(ids)
        hinge = self.encoder(
            inputs_embeds=words[:n].view(*enc["input_ids"].shape, -1),
            attention_mask=enc["attention_mask"],
            token_type_ids=enc["token_type_ids"],
        ).last_hidden_state
        scores = self.score_cls(hinge[:, 0])
        sel = labels != -100
        h = self._hidden_at(
            words[n:].view(B, Lm, -1),
            enc["attention_mask"][:B, :Lm],
            enc["token_type_ids"][:B, :Lm],
            sel,
        )
        if not bool(sel.any()):
            return scores, h.sum() * 0.0
        head = self.mlm_head
        if tied is None:
            logits = head(h.float())
        else:
            logits = _TiedDecoder.apply(head.transform(h.float()), emb.weight, head.bias, tied)
        return scores, F.cross_entropy(logits, labels[sel])

    def _hidden_at(
        self,
        inputs_embeds: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor,
        sel: torch.Tensor,
    ) -> torch.Tensor:
        """``encoder(...).last_hidden_state[sel]`` (``(n, hidden)``) without computing the last
        layer where nobody reads it.

        The MLM loss reads the last layer only at the masked positions (~15 %), and there a
        position needs every position's keys and values but only its own query, attention
        output, feed-forward and layer norms. So layers 1..n-1 run on all positions as in
        ``BertModel.forward``, the last layer's keys and values too; its queries, attention,
        output projection and feed-forward (10 of the layer's 12 hidden x hidden products)
        only at the selected positions. Its dropouts take their noise from a full-size draw
        (attention probabilities: ``(B, heads, L, L)``), exactly as ``F.dropout`` on the full
        tensor would, so the random stream and the values are the full pass's (up to float
        rounding). Falls back to the full pass for configurations it does not
        mirror (feed-forward chunking, decoders) and when training off the CPU (CUDA's fused
        dropout and attention kernels draw their noise differently; not verified there)."""
        bert = self.encoder
        cfg = bert.config
        if (
            getattr(cfg, "chunk_size_feed_forward", 0)
            or getattr(cfg, "is_decoder", False)
            or (self.training and inputs_embeds.device.type != "cpu")
        ):
            return bert(
                inputs_embeds=inputs_embeds,
                attention_mask=attention_mask,
                token_type_ids=token_type_ids,
            ).last_hidden_state[sel]
        from transformers.masking_utils import create_bidirectional_mask

        h = bert.embeddings(token_type_ids=token_type_ids, inputs_embeds=inputs_embeds)
        # the mask BertModel.forward builds for an encoder: public since transformers 5.0 (the
        # model's own helper is private and changed its signature in 5.24). Positional: the
        # second parameter was renamed (input_embeds -> inputs_embeds) within 5.x
        mask = create_bidirectional_mask(cfg, h, attention_mask)
        *first, last = bert.encoder.layer
        for layer in first:
            h = layer(h, mask)
        # the selected positions of each row first (stable: in position order), padded to the
        # longest row's count with position 0; out[valid] is then h[sel]'s row-major order
        B, L, H = h.shape
        k = max(int(sel.sum(1).max()), 1)
        idx = torch.argsort((~sel).to(torch.int8), dim=1, stable=True)[:, :k]
        valid = torch.arange(k, device=h.device)[None, :] < sel.sum(1, keepdim=True)

        def rows(x: torch.Tensor) -> torch.Tensor:  # (B, L, ...) -> (B, k, ...) at idx
            return x.gather(1, idx.view(B, k, *([1] * (x.dim() - 2))).expand(B, k, *x.shape[2:]))

        def dropout(
            x: torch.Tensor, module: nn.Module, full: tuple[int, ...], dim: int
        ) -> torch.Tensor:
            # F.dropout on the full tensor draws empty_like(full).bernoulli_(1 - p) / (1 - p):
            # the same draw (same shape, same generator), read at the selected rows
            p = float(module.p)  # type: ignore[arg-type]
            if not module.training or p == 0.0:
                return x
            noise = torch.empty(full, dtype=x.dtype, device=x.device).bernoulli_(1 - p)
            noise = noise.div_(1 - p).movedim(dim, 1)
            return x * rows(noise).movedim(1, dim)

        sa = last.attention.self
        nh, d = int(sa.num_attention_heads), int(sa.attention_head_size)
        hq = rows(h)  # (B, k, H)
        q = sa.query(hq).view(B, k, nh, d).transpose(1, 2)  # (B, nh, k, d)
        key = sa.key(h).view(B, L, nh, d).transpose(1, 2)  # (B, nh, L, d)
        val = sa.value(h).view(B, L, nh, d).transpose(1, 2)
        scores = torch.matmul(q, key.transpose(-1, -2)) * float(sa.scaling)
        keep = attention_mask.to(torch.bool)[:, None, None, :]
        probs = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
        # the attention-probability dropout of the full (B, nh, L, L) attention
        probs = dropout(probs, sa.dropout, (B, nh, L, L), 2)
        ctx = torch.matmul(probs, val).transpose(1, 2).reshape(B, k, H)
        so, out = last.attention.output, last.output
        a = so.LayerNorm(dropout(so.dense(ctx), so.dropout, (B, L, H), 1) + hq)
        y = out.LayerNorm(dropout(out.dense(last.intermediate(a)), out.dropout, (B, L, H), 1) + a)
        return y[valid]

    def export(self) -> CrossEncoder:
        """A plain cross-encoder with this model's encoder and scoring head (same ``head``,
        same weights, same dropout rate)."""
        plain = CrossEncoder(
            max_length=self.max_length,
            dropout=float(self.dropout.p),
            pretrained=False,
            head=self.head_type,
        )
        state = {k: v for k, v in self.state_dict().items() if not k.startswith("mlm_head.")}
        plain.load_state_dict(state, strict=True)
        plain.eval()
        return plain


MASKINGS = ("input", "document-wwm")
"""MLM masking modes of :class:`AresLossStrategy` (see the module docstring)."""


def check_masking(masking: str) -> str:
    """``masking`` if it is one of :data:`MASKINGS`, else a ``ValueError`` naming them."""
    if masking not in MASKINGS:
        raise ValueError(
            f"unknown ARES masking {masking!r}; expected one of {', '.join(map(repr, MASKINGS))}"
        )
    return masking


def mask_tokens(
    input_ids: torch.Tensor,
    special: torch.Tensor,
    mask_id: int,
    vocab_size: int,
    generator: torch.Generator,
    prob: float = 0.15,
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT masking: ``prob`` of the non-special tokens are targets; 80 % of them become
    ``mask_id``, 10 % a random token, 10 % stay. Returns ``(masked_ids, labels)`` with
    ``labels = -100`` where there is no target."""
    p = torch.rand(input_ids.shape, generator=generator)
    target = (p < prob) & ~special
    return _replace_targets(input_ids, target, mask_id, vocab_size, generator)


def mask_whole_words(
    input_ids: torch.Tensor,
    candidates: torch.Tensor,
    continuation: torch.Tensor,
    mask_id: int,
    vocab_size: int,
    generator: torch.Generator,
    prob: float = 0.15,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Whole-word masking over the ``candidates`` (``(B, L)`` bool) of each row, as the ARES
    authors' ``create_masked_lm_predictions`` (from Google's BERT code).

    A word is a candidate token plus the candidate ``'##'`` pieces (``continuation``, ``(B,
    L)`` bool) right after it. Each row with ``n`` words gets ``max(1, round(prob * n))``
    words drawn uniformly without replacement (none when ``n = 0``); every token of a drawn
    word is a target, and each target token then independently becomes ``mask_id`` (80 %),
    a random token (10 %) or stays (10 %), the decision taken per token as in the authors'
    code. Returns ``(masked_ids, labels)`` with ``labels = -100`` where there is no target.

    Unlike the authors' code, the count is of words, not a budget of tokens that skips a word
    whose pieces would overrun it, and there is no ``max_predictions_per_seq`` cap (60 there;
    it binds only on documents of more than ~400 words).
    """
    B, L = input_ids.shape
    cand = candidates.to(torch.bool)
    prev = F.pad(cand[:, :-1], (1, 0), value=False)
    start = cand & ~(continuation.to(torch.bool) & prev)
    keys = torch.rand((B, L), generator=generator, dtype=torch.float64)
    keys = torch.where(start, keys, torch.full_like(keys, 2.0))
    rank = torch.argsort(torch.argsort(keys, dim=1), dim=1)
    n_words = start.sum(1)
    k = torch.clamp(torch.round(prob * n_words.double()), min=1).long()
    chosen = start & (rank < k[:, None])
    # every token belongs to the word of the last start at or before it
    pos = torch.arange(L).expand(B, L)
    word_start = torch.cummax(torch.where(start, pos, torch.full_like(pos, -1)), dim=1).values
    target = cand & chosen.gather(1, word_start.clamp(min=0))
    return _replace_targets(input_ids, target, mask_id, vocab_size, generator)


def _replace_targets(
    input_ids: torch.Tensor,
    target: torch.Tensor,
    mask_id: int,
    vocab_size: int,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's replacement of the ``target`` tokens, decided per token: 80 % ``mask_id``,
    10 % a random token, 10 % unchanged; ``labels`` are the original ids at the targets,
    ``-100`` elsewhere."""
    ids = input_ids.clone()
    labels = input_ids.clone()
    labels[~target] = -100
    r = torch.rand(ids.shape, generator=generator)
    to_mask = target & (r < 0.8)
    to_random = target & (r >= 0.8) & (r < 0.9)
    ids[to_mask] = mask_id
    rand = torch.randint(vocab_size, ids.shape, generator=generator)
    ids[to_random] = rand[to_random]
    return ids, labels


# ------------------------------------------------------------------------------ strategy
class AresLossStrategy(LossStrategy):
    """Eq. 10: pairwise hinge on (q+, q-, d) plus MLM on masked inputs.

    ``masking`` (see the module docstring): ``"input"`` (default, the paper's text) masks the
    (q+, d) input with BERT's token masking over all its real tokens (:func:`mask_tokens`);
    ``"document-wwm"`` (the authors' released code) masks both the (q+, d) and the (q-, d)
    inputs, each independently, with whole-word masking over the document's tokens only
    (:func:`mask_whole_words`). The hinge scores the unmasked inputs in both modes.

    Batch items are :class:`~axiomatic.training.samplers.Pair` of the ARES dataset (see the
    module docstring): ``query_id`` names the document entry, ``doc_hi``/``doc_lo`` the
    preferred and the other pseudo query. Deterministic given ``(seed, step)``.
    """

    name = "ares"

    def __init__(
        self, mlm_weight: float = 1.0, mask_prob: float = 0.15, masking: str = "input"
    ) -> None:
        if mlm_weight < 0:
            raise ValueError(f"mlm_weight must be >= 0 (got {mlm_weight})")
        if not 0 < mask_prob < 1:
            raise ValueError(f"mask_prob must lie in (0, 1) (got {mask_prob})")
        self.mlm_weight = float(mlm_weight)
        self.mask_prob = float(mask_prob)
        self.masking = check_masking(masking)
        self._continuation: tuple[Any, torch.Tensor] | None = None

    def continuation(self, tokenizer: Any) -> torch.Tensor:
        """``(len(tokenizer),)`` bool: which token ids are word-piece continuations (``'##'``
        prefix), computed once per tokenizer."""
        cached = self._continuation
        if cached is None or cached[0] is not tokenizer:
            tokens = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
            flags = [isinstance(t, str) and t.startswith("##") for t in tokens]
            cached = (tokenizer, torch.tensor(flags, dtype=torch.bool))
            self._continuation = cached
        return cached[1]

    def setup(self, ctx: StepContext, pools: dict[str, list[Pair]]) -> None:
        if not isinstance(ctx.model, AresCrossEncoder) and self.mlm_weight > 0:
            raise TypeError(
                "ARES pre-training with MLM needs an AresCrossEncoder (got "
                f"{type(ctx.model).__name__}); use mlm_weight=0 for a plain cross-encoder"
            )

    def step_loss(
        self, ctx: StepContext, batch: list[Pair], step: int
    ) -> tuple[torch.Tensor, dict[str, float]]:
        from axiomatic.training.losses import pairwise_hinge

        cfg = ctx.config
        docs = [ctx.query_text(p.query_id) for p in batch]
        q_hi = [ctx.text(p.doc_hi) for p in batch]
        q_lo = [ctx.text(p.doc_lo) for p in batch]
        B = len(batch)
        if self.mlm_weight <= 0:
            scores = self.scores(ctx, q_hi + q_lo, docs + docs)
            rel = pairwise_hinge(scores[:B], scores[B:], cfg.margin)
            return rel, {"rel_loss": float(rel.detach())}
        model: Any = ctx.model
        # one tokenization: the MLM input (q+, d) is the hinge batch's first B rows (both
        # inputs, all 2B rows, for document-wwm), cut to their own longest row (what
        # tokenizing them alone with padding=True gives)
        enc = model.encode_batch(q_hi + q_lo, docs + docs)
        rows = B if self.masking == "input" else 2 * B
        am = enc["attention_mask"][:rows]
        Lm = int(am.sum(1).max())
        ids = enc["input_ids"][:rows, :Lm]
        special_ids = torch.tensor(model.tokenizer.all_special_ids, dtype=ids.dtype)
        # = tokenizer.get_special_tokens_mask(row, already_has_special_tokens=True), vectorized
        special = torch.isin(ids, special_ids) | (am[:, :Lm] == 0)
        # the step's masks (each rank's own under torchrun: its slice gets other draws)
        seed = rank_seed(int(cfg.seed) * 1_000_003 + int(step), ctx.dist)
        gen = torch.Generator().manual_seed(seed)
        mask_id = int(model.tokenizer.mask_token_id)
        vocab_size = int(model.encoder.config.vocab_size)
        if self.masking == "input":
            ids, labels = mask_tokens(ids, special, mask_id, vocab_size, gen, self.mask_prob)
        else:  # document-wwm: the second segment's (the document's) real tokens only
            document = ~special & (enc["token_type_ids"][:rows, :Lm] == 1)
            cont = self.continuation(model.tokenizer)[ids]
            ids, labels = mask_whole_words(
                ids, document, cont, mask_id, vocab_size, gen, self.mask_prob
            )
        dev = ctx.device
        scores, mlm = model.scores_and_mlm_loss(
            {k: v.to(dev) for k, v in enc.items()}, ids.to(dev), labels.to(dev)
        )
        scores = scores.float()
        rel = pairwise_hinge(scores[:B], scores[B:], cfg.margin)
        info = {"rel_loss": float(rel.detach()), "mlm_loss": float(mlm.detach())}
        total = rel + self.mlm_weight * mlm
        return total, info


# ------------------------------------------------------------------------------ pairs
def surface_forms(prepared: Prepared) -> dict[str, str]:
    """Index term -> its most frequent surface word in the corpus (pseudo queries are sets of
    stemmed index terms; MiniLM reads words, so they are shown in a surface form)."""
    from collections import Counter

    an = prepared.index.analyzer
    counts: dict[str, Counter[str]] = {}
    texts = prepared.index.texts or {}
    for text in texts.values():
        toks = [t for t in an.tokenize(text) if not an.is_stopword(t)]
        for tok, stem in zip(toks, an.stem(toks), strict=True):
            counts.setdefault(stem, Counter())[tok] += 1
    return {stem: c.most_common(1)[0][0] for stem, c in counts.items()}


def ares_pairs(
    prepared: Prepared,
    variant: str,
    predictor: PreferencePredictor | None,
    pairs_per_doc: int = 2,
    seed: int = 0,
    strict_min: int = 3,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(doc row, q+ index, q- index)``: ``pairs_per_doc`` random pseudo-query pairs per
    document, ordered by the predictor (``simple``/``hard``; a pair it gives 0.5 is dropped)
    or by the variant's own axioms in their direction (``strict``: all nine, at least
    ``strict_min`` decisive; ``rep``/``rank``: Q-REP-QL and Q-REP-TFIDF resp. Q-RANK, at least one
    decisive), a pair on which one of them disagrees dropped."""
    from axiomatic.axioms.query_pairs import preference_features

    v = check_variant(variant)
    setting, feats = VARIANTS[v]
    doc = prepared.pseudo.doc
    rows, first, counts = np.unique(doc, return_index=True, return_counts=True)
    ok = counts >= 2
    rows, first, counts = rows[ok], first[ok], counts[ok]
    rng = np.random.default_rng([int(seed), 31])
    P = int(pairs_per_doc)
    a = rng.integers(0, counts[:, None], size=(len(rows), P))
    b = rng.integers(0, counts[:, None] - 1, size=(len(rows), P))
    b = np.where(b >= a, b + 1, b)  # a != b
    i = (first[:, None] + a).ravel()
    j = (first[:, None] + b).ravel()
    d = np.repeat(rows, P)
    axioms: Sequence[str] | str = list(feats) if feats else "all"
    X = preference_features(prepared.ctx, i, j, axioms)
    if setting is None:
        pos = (X > 0).sum(axis=1)
        neg = (X < 0).sum(axis=1)
        need = strict_min if v == "strict" else 1
        keep = ((pos == 0) | (neg == 0)) & (pos + neg >= need)
        first_wins = pos > 0
    else:
        if predictor is None:
            raise ValueError(f"variant {v!r} needs a trained preference predictor")
        p = predictor.predict_proba(X)
        keep = p != 0.5
        first_wins = p > 0.5
    qp = np.where(first_wins, i, j)[keep]
    qn = np.where(first_wins, j, i)[keep]
    return d[keep], qp, qn


def ares_dataset(
    prepared: Prepared,
    doc: np.ndarray,
    q_pos: np.ndarray,
    q_neg: np.ndarray,
    surface: dict[str, str] | None = None,
) -> Dataset:
    """The trainer's view of ARES pairs: queries = document entries (one per pair), documents
    = pseudo-query texts, qrels ``{q+: 1, q-: 0}`` per entry (see the module docstring)."""
    from axiomatic.data.records import Dataset, Document, Query

    index = prepared.index
    words = index.terms if surface is None else [surface.get(t, t) for t in index.terms]
    pq = prepared.pseudo
    needed = np.unique(np.concatenate((q_pos, q_neg)))
    docs = {
        f"pq{k}": Document(f"pq{k}", " ".join(words[t] for t in pq.terms(int(k)))) for k in needed
    }
    texts = index.texts or {}
    queries, qrels, cands = {}, {}, {}
    for n, (r, a, b) in enumerate(zip(doc.tolist(), q_pos.tolist(), q_neg.tolist(), strict=True)):
        qid = f"{index.doc_ids[r]}#{n}"
        queries[qid] = Query(qid, texts[index.doc_ids[r]])
        qrels[qid] = {f"pq{a}": 1, f"pq{b}": 0}
        cands[qid] = [f"pq{a}", f"pq{b}"]
    return Dataset(
        name="ares-pretraining",
        queries=queries,
        documents=docs,
        qrels=qrels,
        candidates=cands,
        description="ARES pre-training pairs (queries = documents, documents = pseudo queries)",
    )


def build_model(
    max_length: int = 128, pretrained: bool = True, seed: int = 0, head: str = "mlp"
) -> Any:
    """A fresh :class:`AresCrossEncoder` with the scoring ``head`` (``"mlp"``, the paper's
    ``MLP(h_[CLS])``, or ``"linear"``; see the module docstring); the new heads are
    initialized from ``seed`` (the caller's torch RNG is left untouched), so a re-run starts
    from the same weights."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        return AresCrossEncoder(max_length=max_length, pretrained=pretrained, head=head)


# ------------------------------------------------------------------------------ orchestration
def train_predictor(
    prepared: Sequence[Prepared],
    setting: str,
    features: Sequence[str] | None = None,
    seed: int = 0,
) -> PreferencePredictor:
    """The predictor of ``setting`` trained on all (real, pseudo) pairs of the collections."""
    from axiomatic.ares.pipeline import setting_features
    from axiomatic.ares.predictor import PreferencePredictor

    axioms: Sequence[str] | str = list(features) if features else "all"
    Xs, ys = [], []
    for p in prepared:
        X, y, _ = setting_features(p, setting, axioms, seed=seed)
        Xs.append(X)
        ys.append(y)
    X = np.concatenate(Xs)
    y = np.concatenate(ys)
    return PreferencePredictor(seed=seed).fit(X, y)


def pretrain_ares(
    prepared: Sequence[Prepared],
    out_dir: Any,
    variant: str = "simple",
    dev: Dataset | None = None,
    steps: int = 1000,
    batch_size: int = 16,
    lr: float = 2e-5,
    max_length: int = 128,
    eval_every: int = 250,
    checkpoint_every: int = 50,
    mlm_weight: float = 1.0,
    seed: int = 0,
    pairs_per_doc: int = 2,
    model: Any = None,
    *,
    head: str = "mlp",
    masking: str = "input",
) -> dict[str, Any]:
    """Stage 4 end to end: predictor -> ordered pairs (Parquet) -> trainer (resumable) ->
    plain cross-encoder exported to ``out_dir/encoder``. Every stage is skipped when its
    output exists, so a killed run resumes where it stopped.

    ``head`` is the cross-encoder's scoring head (``"mlp"``: the paper's ``MLP(h_[CLS])``,
    BERT's pooler + linear layer; ``"linear"``: a linear layer on ``h_[CLS]``), ``masking``
    the MLM masking (``"input"``: BERT's over the (q+, d) input, the paper's text;
    ``"document-wwm"``: whole words of the document, on both inputs, the authors' code); see
    the module docstring. Both are recorded in ``unit.json`` (a folder pre-trained with
    another head or masking is refused, not resumed) and in ``pretrain.json``. A ``model``
    passed in must have the scoring ``head`` asked for."""
    import json
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq

    from axiomatic._atomic import atomic_path, atomic_write_text
    from axiomatic.ares.predictor import PreferencePredictor
    from axiomatic.models.io import save_model
    from axiomatic.training.config import TrainConfig
    from axiomatic.training.distributed import distributed_context
    from axiomatic.training.trainer import Trainer

    v = check_variant(variant)
    check_head(head)
    check_masking(masking)
    # any other ranker (KNRM, Conv-KNRM, ...) is pre-trained on the pairs' hinge alone: it has
    # no masked-language-model head and no scoring head to choose
    other = (
        model is not None
        and not isinstance(model, CrossEncoder)
        and not hasattr(model, "head_type")  # a cross-encoder has a scoring head
    )
    if other and mlm_weight != 0:
        raise ValueError(
            f"ARES pre-training of a {getattr(model, 'model_type', type(model).__name__)} "
            "takes the pairwise hinge only: it has no masked-language-model head (pass "
            "mlm_weight=0)"
        )
    if model is not None and not other and getattr(model, "head_type", None) != head:
        raise ValueError(
            f"the model passed in has the {getattr(model, 'head_type', None)!r} scoring head, "
            f"not head={head!r}: pass the head it was built with"
        )
    setting, feats = VARIANTS[v]
    out = Path(out_dir)
    # the cached stages (folder stamps, predictor, pairs) are written by rank 0 alone under
    # torchrun: the other ranks run them after it and read its files
    ctx = distributed_context()
    with ctx.main_first():
        out.mkdir(parents=True, exist_ok=True)
        # the cached stages index pseudo queries and follow the ordering rules of one version:
        # a folder of another version is refused, not resumed with pairs of the old rules
        versions = pair_versions()
        stamp = out / "versions.json"
        written = [
            f for f in ("pretrain.json", "predictor.txt", "pairs.parquet") if (out / f).exists()
        ]
        if written:
            old = json.loads(stamp.read_text(encoding="utf-8")) if stamp.is_file() else None
            if old != versions:
                raise ValueError(
                    f"{out} holds {', '.join(written)} written under other ARES versions "
                    f"({old or 'unversioned'}; now {versions}): its pseudo queries or pair order "
                    "are not the current ones. Remove the folder to pre-train this variant again"
                )
        else:
            atomic_write_text(stamp, json.dumps(versions))
        # everything else that decides the predictor, the pairs (row indices into *these* pseudo
        # queries) and the trained model: a folder made for another sample or other settings is
        # refused with the differing fields named, never resumed
        record = {
            "samples": [_sample_fingerprint(p) for p in prepared],
            "variant": v,
            "seed": int(seed),
            "pairs_per_doc": int(pairs_per_doc),
            "batch_size": int(batch_size),
            "lr": float(lr),
            "max_length": int(max_length),
            "mlm_weight": float(mlm_weight),
            "head": head,
            "masking": masking,
        }
        if other:  # the record of a cross-encoder's folder is what it always was
            record["model"] = str(getattr(model, "model_type", type(model).__name__))
            record["model_state"] = _state_fingerprint(model)
        unit = out / "unit.json"
        if written:
            old_record = json.loads(unit.read_text(encoding="utf-8")) if unit.is_file() else None
            if old_record is not None:
                # written before the options existed: the linear head and BERT's input masking
                old_record = {"head": "linear", "masking": "input", **old_record}
            if old_record != record:
                if old_record is None:
                    why = "no record of the settings it was made with"
                else:
                    diff = [
                        f"{k} {old_record.get(k)!r} -> {record.get(k)!r}"
                        for k in record
                        if old_record.get(k) != record.get(k)
                    ]
                    why = "made with other settings: " + "; ".join(diff)
                raise ValueError(
                    f"{out} holds {', '.join(written)} {why}. Remove the folder (or use another "
                    "output folder) to pre-train with these settings"
                )
        else:
            atomic_write_text(unit, json.dumps(record, indent=1))
        done = out / "pretrain.json"
        if done.is_file() and (out / "encoder" / "config.json").is_file():
            previous = json.loads(done.read_text(encoding="utf-8"))
            if previous.get("train", {}).get("steps") == steps:
                return dict(previous)  # the finished stage (its timings are the original run's)
        predictor = None
        if setting is not None:
            pfile = out / "predictor.txt"
            if pfile.exists():
                predictor = PreferencePredictor.load(pfile)
            else:
                predictor = train_predictor(prepared, setting, feats, seed)
                predictor.save(pfile)
        pair_file = out / "pairs.parquet"
        parts = []
        if pair_file.exists():
            t = pq.read_table(pair_file)
            for k in range(len(prepared)):
                sel = t.filter(pa.compute.equal(t["collection"], k))
                parts.append(tuple(sel[c].to_numpy() for c in ("doc", "q_pos", "q_neg")))
        else:
            cols: dict[str, list[np.ndarray]] = {
                "collection": [],
                "doc": [],
                "q_pos": [],
                "q_neg": [],
            }
            for k, p in enumerate(prepared):
                d, a, b = ares_pairs(p, v, predictor, pairs_per_doc, seed)
                parts.append((d, a, b))
                cols["collection"].append(np.full(len(d), k))
                cols["doc"].append(d)
                cols["q_pos"].append(a)
                cols["q_neg"].append(b)
            if not sum(len(x) for x in cols["doc"]):
                if setting is None:
                    raise ValueError(
                        f"ARES_{v}: no pseudo-query pair is decided by the axioms "
                        f"{', '.join(feats) if feats else '(all nine)'} without a disagreement"
                    )
                raise ValueError(
                    f"ARES_{v}: the predictor of setting {setting} orders none of the pseudo-query "
                    "pairs. The monotone predictor is flat (0.5 for every pair) when no axiom tells "
                    "the real queries from the pseudo ones in its own direction on these "
                    "collections (see the predictor's per-axiom AUC); it may not learn an axiom "
                    "backwards"
                )
            with atomic_path(pair_file) as tmp:
                pq.write_table(pa.table({c: np.concatenate(x) for c, x in cols.items()}), tmp)
    # one training dataset over all collections (entry ids are unique per collection)
    datasets = []
    for k, (p, (d, a, b)) in enumerate(zip(prepared, parts, strict=True)):
        ds = ares_dataset(p, d, a, b, surface_forms(p))
        datasets.append(_prefixed(ds, f"c{k}:"))
    train = _merge(datasets)
    cfg = TrainConfig(
        dataset="ares-pretraining",
        model=str(record.get("model", "ares-cross-encoder")),
        model_config={} if other else {"max_length": max_length},
        loss="hinge",
        margin=1.0,
        optimizer="adamw",
        lr=lr,
        # the paper's AdamW with 10 % linear warm-up, then linear decay (BERT's schedule)
        lr_schedule="linear(warmup=0.1)",
        batch_size=batch_size,
        steps=steps,
        eval_every=eval_every,
        checkpoint_every=checkpoint_every,
        patience=0,
        dev_depth=20,
        candidate_depth=2,
        seed=seed,
    )
    net = model if model is not None else build_model(max_length, seed=seed, head=head)
    trainer = Trainer(
        net, cfg, out / "train", train, dev=dev,
        loss_strategy=AresLossStrategy(mlm_weight=mlm_weight, masking=masking),
    )  # fmt: skip
    result = trainer.fit(resume=True)
    enc_dir = out / "encoder"
    if ctx.is_main:
        save_model(net.export() if isinstance(net, AresCrossEncoder) else net, enc_dir)
    summary = {
        "variant": v,
        "setting": setting,
        "features": list(feats) if feats else "all",
        "head": head,
        "masking": masking,
        "n_pairs": int(sum(len(x[0]) for x in parts)),
        "versions": versions,
        "train": result.to_dict(),
        "encoder": str(enc_dir),
        "seconds_per_1k_steps": per_1k_steps(result.to_dict()),
    }
    if ctx.is_main:
        atomic_write_text(out / "pretrain.json", json.dumps(summary, indent=1))
    ctx.barrier()
    return summary


def _state_fingerprint(model: Any) -> str:
    """SHA-1 of a model's initial weights (names, shapes and values): what decides the start
    of a ranker passed in to be pre-trained, so a folder made from another start is refused."""
    import hashlib

    h = hashlib.sha1()
    for name, t in sorted(model.state_dict().items()):
        a = t.detach().cpu().contiguous()
        h.update(f"{name}:{tuple(a.shape)}:{a.dtype}".encode())
        h.update(a.numpy().tobytes())
    return h.hexdigest()[:16]


def _sample_fingerprint(prepared: Prepared) -> str:
    """What identifies one collection's prepared sample: its documents and positives, the
    pseudo queries drawn and the real queries' analysed terms."""
    import hashlib

    h = hashlib.sha1(prepared.collection.fingerprint().encode())
    for a in (prepared.pseudo.doc, prepared.pseudo.offsets, prepared.pseudo.term_ids):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(np.ascontiguousarray(prepared.real_doc).tobytes())
    return h.hexdigest()[:16]


def pair_versions() -> dict[str, int]:
    """The versions that decide which pairs a pre-training folder holds (pseudo queries, their
    axiom scores, the ordering rules)."""
    from axiomatic.ares.pipeline import SCORES_VERSION
    from axiomatic.ares.sampling import SAMPLING_VERSION

    return {"pairs": PAIRS_VERSION, "sampling": SAMPLING_VERSION, "scores": SCORES_VERSION}


def per_1k_steps(train: dict[str, Any]) -> float | None:
    """Wall seconds per 1,000 training steps of a finished run (its trainer summary: total
    seconds over the steps taken, dev evaluations and checkpoints included)."""
    steps, secs = train.get("steps"), train.get("seconds")
    if not steps or secs is None:
        return None
    return round(1000.0 * float(secs) / int(steps), 1)


def _prefixed(ds: Dataset, prefix: str) -> Dataset:
    from axiomatic.data.records import Dataset, Document, Query

    return Dataset(
        name=ds.name,
        queries={prefix + q: Query(prefix + q, v.text) for q, v in ds.queries.items()},
        documents={prefix + d: Document(prefix + d, v.text) for d, v in ds.documents.items()},
        qrels={
            prefix + q: {prefix + d: g for d, g in r.items()} for q, r in (ds.qrels or {}).items()
        },
        candidates={prefix + q: [prefix + d for d in c] for q, c in (ds.candidates or {}).items()},
        description=ds.description,
    )


def _merge(parts: Sequence[Dataset]) -> Dataset:
    from axiomatic.data.records import Dataset

    queries: dict[str, Any] = {}
    documents: dict[str, Any] = {}
    qrels: dict[str, dict[str, int]] = {}
    candidates: dict[str, list[str]] = {}
    for ds in parts:
        queries.update(ds.queries)
        documents.update(ds.documents)
        qrels.update(ds.qrels or {})
        candidates.update(ds.candidates or {})
    return Dataset(
        name="ares-pretraining",
        queries=queries,
        documents=documents,
        qrels=qrels,
        candidates=candidates,
        description=parts[0].description if parts else "",
    )

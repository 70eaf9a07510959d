r"""ACRank's scorer (Bo et al. 2023, sections 4.2-4.3): BERT token vectors -> E() -> S(q, d).

Stage 2 (encoding): ``[CLS] q [SEP] d [SEP]`` through a BERT-style encoder (the packaged
all-MiniLM-L6-v2 by default, or any local Hugging Face BERT-style folder), last-layer token
vectors :math:`\mathbf v_t` (paper eq. 6).

Stage 3 (matching-signal extraction E(), eq. 7): the translation matrix
:math:`T_{ij} = \cos(\mathbf v_{q_i}, \mathbf v_{d_j})` between query and document tokens,
KNRM RBF kernel pooling :math:`\phi(T)_k = \sum_i \log \sum_j \exp(-(T_{ij}-\mu_k)^2 /
2\sigma_k^2)` (soft-TF, Xiong et al. 2017), and an MLP: :math:`S(q, d) = \mathrm{MLP}(\phi(T))`.

``signal="cls"`` replaces E() by an MLP over the ``[CLS]`` vector: the paper's "w/L()" ablation
(contrastive loss without signal extraction). The model is an ordinary
:class:`~axiomatic.models.base.NeuralRankingModel` (registry name ``acrank``), so it ranks,
evaluates and is diagnosed like any other (``axiomatic rank --ranker model:DIR``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

from axiomatic._suggest import suggest
from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.knrm import kernel_mus, kernel_pooling
from axiomatic.models.transformer import CrossEncoder, _MiniLMModel

SIGNALS = ("kernel", "cls")
BERT_STYLE = ("bert", "electra", "ernie", "megatron-bert", "nezha")
"""Hugging Face ``model_type``s with ``[CLS] q [SEP] d [SEP]`` inputs and segment ids."""


def check_bert_path(path: str | Path) -> Path:
    """``path`` must name a local Hugging Face folder of a BERT-style encoder (config.json with
    a ``model_type`` in :data:`BERT_STYLE`, and a tokenizer; ``hf:DIR`` allowed); the folder,
    or a one-line error (:func:`~axiomatic.models.hf_loader.resolve_source`)."""
    from axiomatic.models.hf_loader import resolve_source

    p = resolve_source(path, "ACRank encoder")
    cfg = p / "config.json"
    try:
        model_type = str(json.loads(cfg.read_text(encoding="utf-8")).get("model_type", ""))
    except (json.JSONDecodeError, AttributeError) as exc:
        raise ValueError(f"{cfg}: not valid JSON ({exc})") from None
    if model_type.lower() not in BERT_STYLE:
        raise ValueError(
            f"{p} holds a {model_type or 'unknown'!r} model; ACRank needs a BERT-style "
            f"encoder with segment ids ([CLS] q [SEP] d [SEP]): model_type one of "
            f"{', '.join(BERT_STYLE)}"
        )
    return p


class ACRankModel(_MiniLMModel):
    """ACRank scorer ``S(q, d) = MLP(phi(T))`` (or ``MLP(h_[CLS])`` with ``signal="cls"``).

    Parameters: ``max_length`` (word pieces of the pair, truncated longest-first), ``signal``
    (``kernel`` = E(), ``cls`` = the w/L() ablation), ``n_kernels`` / ``sigma`` /
    ``exact_sigma`` (RBF kernels; the first at mu = 1), ``mlp_hidden`` (hidden units),
    ``encoder_path`` (local BERT-style folder; default the packaged MiniLM).
    Batch keys as :class:`~axiomatic.models.transformer.CrossEncoder`.
    """

    model_type = "acrank"
    citation = "Bo et al. 2023, ACRank (docs/acrank.md)"
    mus: torch.Tensor
    sigmas: torch.Tensor
    special_ids: torch.Tensor

    def __init__(
        self,
        max_length: int = 256,
        signal: str = "kernel",
        n_kernels: int = 11,
        sigma: float = 0.1,
        exact_sigma: float = 0.05,
        mlp_hidden: int = 32,
        dropout: float = 0.1,
        encoder_path: str | None = None,
        encoder_config: dict[str, Any] | None = None,
        pretrained: bool = True,
        tokenizer_path: str | Path | None = None,
    ) -> None:
        NeuralRankingModel.__init__(self)
        if signal not in SIGNALS:
            raise ValueError(
                f"unknown ACRank signal {signal!r}{suggest(signal, SIGNALS, n=1, cutoff=0.6)}; "
                "expected 'kernel' (E(): cosine matrix + kernel pooling) or 'cls' ([CLS] + MLP, "
                "the w/L() ablation)"
            )
        if not 8 <= int(max_length) <= 512:
            raise ValueError(
                f"max_length must be between 8 and 512 word pieces (got {max_length}); "
                "128 or 256 are usual for passages"
            )
        self.max_length = int(max_length)
        self.signal = signal
        self.encoder = _load_encoder(encoder_path, encoder_config, pretrained)
        from axiomatic.models.hf_loader import load_tokenizer

        if tokenizer_path is None and encoder_path is not None:
            tokenizer_path = encoder_path
        self.tokenizer: Any = load_tokenizer(tokenizer_path)
        self.hidden_size = int(self.encoder.config.hidden_size)
        mus = kernel_mus(n_kernels)
        sigmas = [float(exact_sigma)] + [float(sigma)] * (n_kernels - 1)
        self.register_buffer("mus", torch.tensor(mus), persistent=False)
        self.register_buffer("sigmas", torch.tensor(sigmas), persistent=False)
        width = n_kernels if signal == "kernel" else self.hidden_size
        self.dropout = nn.Dropout(dropout)
        self.mlp = nn.Sequential(nn.Linear(width, mlp_hidden), nn.Tanh(), nn.Linear(mlp_hidden, 1))
        special = [self.tokenizer.cls_token_id, self.tokenizer.sep_token_id]
        special.append(self.tokenizer.pad_token_id)
        self.register_buffer(
            "special_ids", torch.tensor([s for s in special if s is not None]), persistent=False
        )
        self.config = {
            "max_length": self.max_length,
            "signal": signal,
            "n_kernels": int(n_kernels),
            "sigma": float(sigma),
            "exact_sigma": float(exact_sigma),
            "mlp_hidden": int(mlp_hidden),
            "dropout": float(dropout),
        }
        if encoder_path is not None:
            # the folder's architecture travels with the saved model (load needs no path)
            self.config["encoder_config"] = self.encoder.config.to_dict()

    encode_batch = CrossEncoder.encode_batch
    tokenizes_pairs = True  # CrossEncoder's inputs: score_pairs runs length-sorted batches

    def signals(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The extracted matching signal: ``phi(T)`` ``(B, n_kernels)`` or ``h_[CLS]``."""
        h = self.token_embeddings(input_ids, attention_mask, token_type_ids)
        if self.signal == "cls":
            return h[:, 0].float()
        if token_type_ids is None:
            raise ValueError("ACRank's E() needs token_type_ids (a BERT-style tokenizer)")
        real = attention_mask.bool() & ~torch.isin(input_ids, self.special_ids)
        qmask = real & (token_type_ids == 0)
        dmask = real & (token_type_ids == 1)
        lq = int(qmask.sum(1).max().item()) + 1  # query tokens sit at positions 1..|q|
        hn = nn.functional.normalize(h.float(), dim=-1)
        sim = hn[:, :lq] @ hn.transpose(1, 2)  # (B, Lq, L): cosine translation matrix T
        return kernel_pooling(sim, qmask[:, :lq], dmask, self.mus, self.sigmas, log_scale=0.1)

    def forward(  # type: ignore[override]
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        feats = self.signals(input_ids, attention_mask, token_type_ids)
        with torch.autocast(device_type=feats.device.type, enabled=False):
            return self.mlp(self.dropout(feats.float())).squeeze(-1)


def _load_encoder(path: str | None, config: dict[str, Any] | None, pretrained: bool) -> Any:
    from axiomatic.models.hf_loader import encoder_from_config, load_encoder

    if config is not None and not pretrained:
        return encoder_from_config(config)
    if path is not None:
        check_bert_path(path)
    return load_encoder(path, pretrained=pretrained)

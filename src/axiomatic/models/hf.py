"""Rankers over local Hugging Face / sentence-transformers folders (``st:PATH``,
``cross-encoder:PATH``, ``hf:PATH``, or ``model:PATH`` on such a folder).

A researcher's own model should be diagnosable without converting it: a sentence-transformers
bi-encoder folder (``modules.json``, ``1_Pooling/config.json``) scores by the cosine (or dot
product, as its config says) of pooled token vectors; a cross-encoder folder (a
``*ForSequenceClassification`` checkpoint) scores ``[CLS] q [SEP] d [SEP]`` by its logit.

Nothing is downloaded: folders are resolved and loaded by the one Hugging Face loader
(:mod:`axiomatic.models.hf_loader`, offline), so a folder that is missing or is not a model
folder is an error naming what was expected. The constructors only check the folder; weights
load on the first :meth:`score` call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from axiomatic.models.hf_loader import load_hf_model, load_tokenizer, resolve_source
from axiomatic.models.scoring import TextListScoring

HFKind = Literal["bi-encoder", "cross-encoder"]

__all__ = ["HFBiEncoderRanker", "HFCrossEncoderRanker", "detect_hf_kind", "hf_ranker"]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} is not readable JSON ({exc})") from None
    return data if isinstance(data, dict) else {}


def detect_hf_kind(path: str | Path) -> HFKind:
    """``"cross-encoder"`` for a sequence-classification checkpoint, else ``"bi-encoder"``.

    sentence-transformers folders (``modules.json`` or ``config_sentence_transformers.json``)
    are bi-encoders unless they are saved CrossEncoders (their config names a
    ``*ForSequenceClassification`` architecture).
    """
    folder = resolve_source(path)
    archs = _read_json(folder / "config.json").get("architectures") or []
    if any(str(a).endswith("ForSequenceClassification") for a in archs):
        return "cross-encoder"
    return "bi-encoder"


class _HFRanker(TextListScoring):
    """A local Hugging Face folder as a ranker; :meth:`score` and :meth:`score_lists` are
    :class:`~axiomatic.models.scoring.TextListScoring`'s (the one path of the neural rankers)."""

    can_score_unseen_documents = True

    def __init__(
        self,
        path: str | Path,
        name: str | None = None,
        batch_size: int = 32,
        max_length: int = 256,
        device: Any = None,
    ) -> None:
        self.path = resolve_source(path)
        self.name = name or self.path.name
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self.device = device
        self._loaded: Any = None

    def _tokenizer_and_model(self, auto_class: str) -> tuple[Any, Any, Any]:
        if self._loaded is None:
            from axiomatic.models.device import choose_device

            dev = choose_device(self.device)
            tok = load_tokenizer(self.path)
            model = load_hf_model(self.path, auto_class, "model")
            self._loaded = (tok, model.to(dev).eval(), dev)
        return self._loaded  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, path={str(self.path)!r})"


class HFBiEncoderRanker(_HFRanker):
    """A local sentence-transformers (or plain Hugging Face encoder) folder as a bi-encoder:
    ``s(q, d) = sim(pool(E(q)), pool(E(d)))``.

    Pooling follows ``1_Pooling/config.json`` (mean, CLS, max; mean when absent); the similarity
    follows ``config_sentence_transformers.json`` (cosine unless it says ``dot``).
    """

    def __init__(self, path: str | Path, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(path, name, **kwargs)
        pool_cfg = self.path / "1_Pooling" / "config.json"
        cfg = _read_json(pool_cfg) if pool_cfg.is_file() else {}
        if cfg.get("pooling_mode_cls_token"):
            self.pooling = "cls"
        elif cfg.get("pooling_mode_max_tokens"):
            self.pooling = "max"
        else:
            self.pooling = "mean"
        st_cfg = self.path / "config_sentence_transformers.json"
        sim = _read_json(st_cfg).get("similarity_fn_name") if st_cfg.is_file() else None
        self.similarity = "dot" if sim in ("dot", "dot_product") else "cosine"
        sbert = self.path / "sentence_bert_config.json"
        if sbert.is_file() and "max_length" not in kwargs:
            self.max_length = int(_read_json(sbert).get("max_seq_length", self.max_length))

    def components(self) -> tuple[Any, Any, Any]:
        """``(tokenizer, model, device)``, loaded on first use (the encoder is an ``AutoModel``)."""
        return self._tokenizer_and_model("AutoModel")

    def pool(self, tokens: Any, mask: Any) -> Any:
        """Sentence vectors ``(B, H)`` from token vectors ``(B, L, H)`` and the attention mask
        ``(B, L)``: this folder's pooling, L2-normalized under cosine similarity."""
        import torch

        m = mask.unsqueeze(-1).float()
        if self.pooling == "cls":
            v = tokens[:, 0]
        elif self.pooling == "max":
            v = tokens.masked_fill(m == 0, -1e9).max(1).values
        else:
            v = (tokens * m).sum(1) / m.sum(1).clamp(min=1e-9)
        if self.similarity == "cosine":
            v = torch.nn.functional.normalize(v, dim=-1)
        return v

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors ``(N, H)`` of ``texts`` (float64), as :meth:`score` compares them."""
        if not texts:
            return np.zeros((0, 1))
        return self.embed_texts(texts).numpy().astype(np.float64)

    def embed_texts(
        self,
        texts: Sequence[str],
        batch_size: int | None = None,
        bf16: bool | None = None,
        as_query: bool = False,
    ) -> Any:
        """Sentence vectors ``(N, H)`` (a CPU float32 tensor) of ``texts``, tokenized once and
        encoded in length-sorted batches (:mod:`axiomatic.models.batching`); the signature of
        :class:`~axiomatic.models.scoring.SeparateEncoder` (queries and documents are truncated
        alike here, and ``bf16`` is not offered: the folder's weights run as saved)."""
        import torch

        from axiomatic.models.batching import cpu_row_cap, run_sorted, tokenize_once

        tok, model, dev = self.components()
        if not texts:
            return torch.zeros((0, int(model.config.hidden_size)))
        ids = tokenize_once(tok, texts, max_length=self.max_length)

        def step(batch: dict[str, Any]) -> Any:
            return self.pool(model(**batch).last_hidden_state.float(), batch["attention_mask"])

        size = self.batch_size if batch_size is None else int(batch_size)
        return run_sorted(ids, size, step, dev, cpu_row_cap(model.config, dev))

    def score_embedded(self, query: Any, documents: Any) -> Any:
        """Scores ``(N,)`` of document vectors for one query vector (cosine or dot, as the
        folder says; row by row, so a score does not depend on the other documents)."""
        return (documents * query).sum(-1)


class HFCrossEncoderRanker(_HFRanker):
    """A local cross-encoder folder (``*ForSequenceClassification``): the logit of
    ``[CLS] q [SEP] d [SEP]`` (with two labels, the logit of label 1 minus that of label 0)."""

    def components(self) -> tuple[Any, Any, Any]:
        """``(tokenizer, model, device)``, loaded on first use (the model is an
        ``AutoModelForSequenceClassification``)."""
        return self._tokenizer_and_model("AutoModelForSequenceClassification")

    def score_pairs(
        self,
        queries: Sequence[str],
        documents: Sequence[str],
        batch_size: int | None = None,
        bf16: bool | None = None,
    ) -> Any:
        """Scores (a CPU float32 tensor) of text pairs, tokenized once and run in
        length-sorted batches (:mod:`axiomatic.models.batching`); ``bf16`` is not offered (the
        folder's weights run as saved)."""
        import torch

        from axiomatic.models.batching import cpu_row_cap, run_sorted, tokenize_once

        if len(queries) != len(documents):
            raise ValueError(
                f"score_pairs needs one query per document (got {len(queries)} queries and "
                f"{len(documents)} documents)"
            )
        if not documents:
            return torch.zeros(0)
        tok, model, dev = self.components()
        ids = tokenize_once(tok, queries, documents, max_length=self.max_length)

        def step(batch: dict[str, Any]) -> Any:
            logits = model(**batch).logits.float()
            return logits[:, 0] if logits.shape[1] == 1 else logits[:, 1] - logits[:, 0]

        size = self.batch_size if batch_size is None else int(batch_size)
        cap = cpu_row_cap(getattr(model, "config", None), dev)
        return run_sorted(ids, size, step, dev, cap)


def hf_ranker(
    path: str | Path, kind: HFKind | None = None, name: str | None = None, **kwargs: Any
) -> _HFRanker:
    """The ranker of a local model folder; ``kind=None`` detects it (:func:`detect_hf_kind`)."""
    kind = kind or detect_hf_kind(path)
    cls = HFCrossEncoderRanker if kind == "cross-encoder" else HFBiEncoderRanker
    return cls(path, name=name, **kwargs)

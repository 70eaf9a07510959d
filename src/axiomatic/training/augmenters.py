"""Document augmenters used by the loss strategies (split out of ``trainer.py``).

An augmenter turns a training document into edited copies. Two families live in the project:

* Rosset et al. (2019) perturbations (TFC1-A, TFC1-D, TFC3, LNC; one edit at a random
  position), built here for the AR regularizer and the ``perturb(...)`` (AP) augmentation;
* ACRank's TFC-A / TFC-D (Bo et al. 2023; query terms inserted at the front / query-term
  occurrences deleted with probability p), in :mod:`axiomatic.perturb.acrank`.

Both respect the model's truncation (:func:`visible_tokens`): an edit the model cannot see
teaches nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from axiomatic.models.base import NeuralRankingModel


def visible_tokens(model: NeuralRankingModel) -> int | None:
    """How many leading document words the model sees (insertions past it would be invisible).

    Word models truncate documents to ``max_doc_len`` tokens; the cross-encoder truncates the
    pair to ``max_length`` word pieces (about half of them document words is a safe bound).
    """
    if getattr(model, "max_doc_len", None):
        return int(model.max_doc_len)  # type: ignore[arg-type]
    if getattr(model, "max_length", None):
        return max(int(model.max_length) // 2, 8)  # type: ignore[arg-type]
    return None


def rosset_perturber(
    model: NeuralRankingModel,
    texts: Iterable[str],
    analyzer: Any,
    lnc_terms: int,
) -> Any:
    """A :class:`~axiomatic.perturb.DocumentPerturber` over the vocabulary of ``texts``, its
    insertions limited to what ``model`` reads."""
    from axiomatic.perturb import DocumentPerturber, build_vocabulary

    vocab = build_vocabulary(sorted(texts), analyzer, min_count=1)
    return DocumentPerturber(
        analyzer, vocab, lnc_terms=lnc_terms, max_position=visible_tokens(model)
    )

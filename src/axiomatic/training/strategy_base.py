"""The loss-strategy base class of the trainer (one step's loss from a batch of pairs) and the
:class:`StepContext` a strategy works with.

A strategy never sees the trainer: the trainer builds one :class:`StepContext` per run (the
model, the config, the training data, the device, document texts, a way to train the
strategy's own parameters, the analyzer and the distributed context) and passes it to
:meth:`LossStrategy.setup` and :meth:`LossStrategy.step_loss`. That is the whole interface, so
a strategy can be written and tested without a trainer.

Apart from :mod:`axiomatic.training.strategies` so that strategies living in other modules
(:mod:`axiomatic.training.contrastive`, :mod:`axiomatic.ares.pretrain`) subclass it without
importing the module that picks a strategy from the config (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from axiomatic.training.distributed import DistributedContext

if TYPE_CHECKING:
    from axiomatic.data.records import Dataset
    from axiomatic.models.base import NeuralRankingModel
    from axiomatic.training.config import TrainConfig
    from axiomatic.training.samplers import Pair


def step_key(ctx: Any, step: int, salt: int) -> list[int]:
    """The seed of a step's random draws, for ``np.random.default_rng``: ``[seed, step,
    salt]`` in a single process (so they need no saved state: resume relies on it), with the
    rank appended under torchrun, where each rank's slice of the batch draws its own
    (:mod:`axiomatic.training.distributed`). ``ctx`` is anything with ``config.seed`` and
    ``dist`` (a :class:`StepContext`)."""
    key = [int(ctx.config.seed), int(step), int(salt)]
    dist = getattr(ctx, "dist", None)
    if dist is not None and dist.active:
        key.append(int(dist.rank))
    return key


def _no_parameters(params: Sequence[torch.nn.Parameter]) -> None:
    if params:
        raise RuntimeError("this StepContext trains no extra parameters (no optimizer given)")


@dataclass(frozen=True)
class StepContext:
    """What a loss strategy sees of a training run.

    ``text(doc_id)`` is a document's text (the training documents and the extra, e.g.
    artificial, ones); ``add_parameters(params)`` trains a strategy's own parameters with the
    model (an optimizer group without weight decay; call it in ``setup``); ``dist`` is this
    process' place under torchrun (a single process by default).
    """

    model: NeuralRankingModel
    config: TrainConfig
    train_data: Dataset
    device: torch.device
    text: Callable[[str], str]
    add_parameters: Callable[[Sequence[torch.nn.Parameter]], None] = _no_parameters
    analyzer: Any = None
    dist: DistributedContext = field(default_factory=DistributedContext)

    def query_text(self, query_id: str) -> str:
        """The text of a training query."""
        return self.train_data.queries[query_id].text

    def rng(self, step: int, salt: int) -> np.random.Generator:
        """The step's random generator (:func:`step_key`): the same draws for the same
        ``(seed, step, salt)``, so resume needs no saved state."""
        return np.random.default_rng(step_key(self, step, salt))


class LossStrategy:
    """Base class. ``setup`` runs once before training with the run's :class:`StepContext`
    and the sampler's pools (the ``"qrels"`` pool first); ``step_loss`` gets the same context
    and returns ``(loss, info)`` where ``info`` holds the numbers to log for the step (floats).

    The loss must be a mean over the batch's items: under torchrun each rank computes it on
    its slice and the trainer averages the gradients. ``count_keys`` names the ``info`` values
    that are counts (summed over the ranks in the log; the others are averaged)."""

    name = "base"
    count_keys: frozenset[str] = frozenset()

    def setup(self, ctx: StepContext, pools: dict[str, list[Pair]]) -> None:
        """Prepare what the steps need (negatives, perturbers, loss objects)."""

    def step_loss(
        self, ctx: StepContext, batch: list[Pair], step: int
    ) -> tuple[torch.Tensor, dict[str, float]]:
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """What the strategy accumulates over the steps (e.g. augmentation counters), saved in
        the trainer's checkpoint so that a resumed run ends with what an uninterrupted one
        would. Plain ints, floats and strings only (checkpoints load with ``weights_only``)."""
        return {}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state_dict` output (called on resume, before the remaining steps)."""

    def scores(self, ctx: StepContext, queries: list[str], docs: list[str]) -> torch.Tensor:
        """One forward pass over text pairs -> float32 scores ``(N,)`` on the run's device."""
        enc = ctx.model.encode_batch(queries, docs)
        return ctx.model(**{k: v.to(ctx.device) for k, v in enc.items()}).float()

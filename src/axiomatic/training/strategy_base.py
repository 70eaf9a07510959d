"""The loss-strategy base class of the trainer (one step's loss from a batch of pairs).

Apart from :mod:`axiomatic.training.strategies` so that strategies living in other modules
(:mod:`axiomatic.training.contrastive`) subclass it without importing the module that picks a
strategy from the config (no import cycle).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from axiomatic.training.samplers import Pair
    from axiomatic.training.trainer import Trainer


def step_key(trainer: Any, step: int, salt: int) -> list[int]:
    """The seed of a step's random draws, for ``np.random.default_rng``: ``[seed, step,
    salt]`` in a single process (so they need no saved state: resume relies on it), with the
    rank appended under torchrun, where each rank's slice of the batch draws its own
    (:mod:`axiomatic.training.distributed`)."""
    key = [int(trainer.config.seed), int(step), int(salt)]
    ctx = getattr(trainer, "dist", None)
    if ctx is not None and ctx.active:
        key.append(int(ctx.rank))
    return key


class LossStrategy:
    """Base class. ``setup`` runs once before training (pools are the sampler's pools, the
    ``"qrels"`` pool first); ``step_loss`` returns ``(loss, info)`` where ``info`` holds the
    numbers to log for the step (floats).

    The loss must be a mean over the batch's items: under torchrun each rank computes it on
    its slice and the trainer averages the gradients. ``count_keys`` names the ``info`` values
    that are counts (summed over the ranks in the log; the others are averaged)."""

    name = "base"
    count_keys: frozenset[str] = frozenset()

    def setup(self, trainer: Trainer, pools: dict[str, list[Pair]]) -> None:
        """Prepare what the steps need (negatives, perturbers, loss objects)."""

    def step_loss(
        self, trainer: Trainer, batch: list[Pair], step: int
    ) -> tuple[torch.Tensor, dict[str, float]]:
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """What the strategy accumulates over the steps (e.g. augmentation counters), saved in
        the trainer's checkpoint so that a resumed run ends with what an uninterrupted one
        would. Plain ints, floats and strings only (checkpoints load with ``weights_only``)."""
        return {}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state_dict` output (called on resume, before the remaining steps)."""

    def scores(self, trainer: Trainer, queries: list[str], docs: list[str]) -> torch.Tensor:
        """One forward pass over text pairs -> float32 scores ``(N,)`` on the trainer device."""
        enc = trainer.model.encode_batch(queries, docs)
        return trainer.model(**{k: v.to(trainer.device) for k, v in enc.items()}).float()

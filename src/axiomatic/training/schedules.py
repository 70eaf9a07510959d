"""Learning-rate schedules of the one trainer (``TrainConfig.lr_schedule``).

A schedule is a pure function of the step: the trainer sets every parameter group's learning
rate to ``lr * factor(step)`` before each optimizer step, so a resumed run continues the same
curve without any scheduler state in the checkpoint.

* ``constant``: ``factor = 1``.
* ``exponential(gamma=0.95, every=N)``: ``gamma ** floor((step - 1) / every)``, i.e. torch's
  ``ExponentialLR`` stepped every ``every`` optimizer steps (``every=0``, the default: once per
  epoch of the main pair pool). Liu et al. train the CNN / LSTM towers with initial lr 0.001 and
  exponential decay 0.95.
* ``linear(warmup=0.1)``: linear warm-up over the first ``warmup`` fraction of the steps, then
  linear decay to 0 at the last step: Hugging Face's ``get_linear_schedule_with_warmup`` (BERT's
  schedule, used by ARES' AdamW pre-training: 10 % warm-up), evaluated at ``step - 1`` exactly as
  that scheduler is (so the first update of a warm-up has learning rate 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from axiomatic._suggest import suggest

SCHEDULES = ("constant", "exponential", "linear")


@dataclass(frozen=True)
class LRSchedule:
    kind: str = "constant"
    gamma: float = 0.95
    every: int = 0
    warmup: float = 0.0

    def factor(self, step: int, total_steps: int, steps_per_epoch: int = 1) -> float:
        """The multiplier of the base learning rate for optimizer step ``step`` (1-based) of
        ``total_steps``."""
        s = max(int(step) - 1, 0)
        if self.kind == "exponential":
            every = self.every if self.every > 0 else max(int(steps_per_epoch), 1)
            return float(self.gamma ** (s // every))
        if self.kind == "linear":
            total = max(int(total_steps), 1)
            warm = math.floor(self.warmup * total)
            if s < warm:
                return s / max(warm, 1)
            return max(0.0, (total - s) / max(total - warm, 1))
        return 1.0

    def __str__(self) -> str:
        if self.kind == "exponential":
            return f"exponential(gamma={self.gamma!r}, every={self.every})"
        if self.kind == "linear":
            return f"linear(warmup={self.warmup!r})"
        return "constant"


def parse_lr_schedule(spec: str | None) -> LRSchedule:
    """``"constant"``, ``"exponential(gamma=0.95)"``, ``"linear(warmup=0.1)"`` ->
    :class:`LRSchedule`; ``ValueError`` naming what is wrong."""
    from axiomatic._keyvalue import parse_call

    if spec is None or not str(spec).strip():
        return LRSchedule()
    name, params = parse_call(
        str(spec), what="learning-rate schedule", example="linear(warmup=0.1)"
    )
    name = name.lower()
    if name not in SCHEDULES:
        raise ValueError(
            f"unknown learning-rate schedule {name!r}; expected one of {', '.join(SCHEDULES)}"
            + suggest(name, SCHEDULES, n=1, cutoff=0.6)
        )
    allowed = {"constant": (), "exponential": ("gamma", "every"), "linear": ("warmup",)}[name]
    for k in params:
        if k not in allowed:
            raise ValueError(
                f"unknown parameter {k!r} of the {name} schedule in {spec!r}; expected "
                + (", ".join(allowed) if allowed else "none")
            )

    def number(key: str, default: float) -> float:
        from axiomatic._keyvalue import as_number

        return as_number(params.get(key, default), what=f"{key} of the {name} schedule")  # type: ignore[no-any-return]

    if name == "exponential":
        gamma = number("gamma", 0.95)
        every = params.get("every", 0)
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma of the exponential schedule must lie in (0, 1] (got {gamma})")
        if isinstance(every, bool) or not isinstance(every, int) or every < 0:
            raise ValueError(
                f"every of the exponential schedule must be an integer >= 0 (steps; 0 = one "
                f"epoch) (got {every!r})"
            )
        return LRSchedule("exponential", gamma=gamma, every=every)
    if name == "linear":
        warmup = number("warmup", 0.0)
        if not 0 <= warmup < 1:
            raise ValueError(
                f"warmup of the linear schedule is a fraction of the steps in [0, 1) (got {warmup})"
            )
        return LRSchedule("linear", warmup=warmup)
    return LRSchedule()

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

from axiomatic._params import ParamInfo
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


SCHEDULE_PARAMS: dict[str, dict[str, ParamInfo]] = {
    "constant": {},
    "exponential": {
        "gamma": ParamInfo(
            "gamma",
            "float",
            LRSchedule.gamma,
            low=0,
            low_open=True,
            high=1,
            description="the factor of each decay (Liu et al.: 0.95)",
        ),
        "every": ParamInfo(
            "every",
            "int",
            LRSchedule.every,
            low=0,
            high=2**31,
            high_open=True,
            description="optimizer steps between decays (0: one epoch of the main pair pool)",
        ),
    },
    "linear": {
        "warmup": ParamInfo(
            "warmup",
            "float",
            LRSchedule.warmup,
            low=0,
            high=1,
            high_open=True,
            description="the fraction of the steps that warms up from 0 (ARES: 0.1); then "
            "linear decay to 0",
        ),
    },
}
"""Each schedule's parameters (:func:`parse_lr_schedule` checks them)."""
SCHEDULE_TEXT = {
    "constant": "the learning rate lr at every step",
    "exponential": "lr * gamma ** floor((step - 1) / every), torch's ExponentialLR",
    "linear": "linear warm-up, then linear decay to 0 (Hugging Face's "
    "get_linear_schedule_with_warmup)",
}


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
    records = SCHEDULE_PARAMS[name]
    for k in params:
        if k not in records:
            raise ValueError(
                f"unknown parameter {k!r} of the {name} schedule in {spec!r}; expected "
                + (", ".join(records) if records else "none")
            )
    values = {
        k: records[k].coerce(v, f"{k} of the {name} schedule in {spec!r}")
        for k, v in params.items()
    }
    return LRSchedule(name, **values)

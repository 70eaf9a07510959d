"""One training run of ``test_ddp.py``: in the test's own process (the single-process
reference) or as each rank of ``torchrun --nproc_per_node 2 ddp_worker.py OUT RECORD``.

Under torchrun the run is killed after step 12 (the checkpoint of step 10 survives) and resumed
from it by a fresh trainer with another initialization, as a new process would; rank 1 starts
from other weights than rank 0 (the trainer must copy rank 0's). Each process records the pairs
it trained on per step and the files it wrote, in ``RECORD/rank<r>.json``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import torch
from training_helpers import TinyRanker, make_toy_dataset

from axiomatic.training import trainer as trainer_module
from axiomatic.training.config import TrainConfig
from axiomatic.training.samplers import split_dev
from axiomatic.training.strategies import PairwiseLossStrategy
from axiomatic.training.trainer import Trainer

STEPS = 20
KILL_AT = 12


def config() -> TrainConfig:
    """Hinge loss, no perturbation, a model without dropout: nothing random in a step, so the
    two processes must give the single process's numbers up to float rounding. The margin
    keeps the hinge active over all 20 steps (with margin 1 the toy task's loss is 0 from
    step 2 on, and a comparison of zeros tells nothing); the loss falls from 3.8 to 0.3."""
    return TrainConfig(
        dataset="toy",
        model="tiny",
        steps=STEPS,
        batch_size=8,
        margin=5.0,
        lr=0.05,
        eval_every=5,
        checkpoint_every=5,
        patience=0,
        seed=3,
    )


class MaskedTinyRanker(TinyRanker):
    """:class:`TinyRanker` with the embeddings averaged over the real tokens only. The plain
    one averages over the padded length, which is the longest text *of the batch*, so an
    item's score depends on the rest of its batch, and half a batch scores differently from
    the whole (a model property that no data-parallel scheme can undo; real models mask)."""

    def forward(self, q: torch.Tensor, d: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        match = ((q[:, :, None] == d[:, None, :]) & (d[:, None, :] > 0)).float().sum(-1)
        tf = torch.log1p(match).sum(-1)
        qm, dm = (q > 0).float().unsqueeze(-1), (d > 0).float().unsqueeze(-1)
        qe = (self.emb(q) * qm).sum(1) / qm.sum(1).clamp_min(1.0)
        de = (self.emb(d) * dm).sum(1) / dm.sum(1).clamp_min(1.0)
        sem = (qe * de).sum(-1)
        return self.w(torch.stack([tf, sem], dim=-1)).squeeze(-1)


class RecordingStrategy(PairwiseLossStrategy):
    """The pairwise hinge, recording the pairs of each step's (local) batch."""

    def __init__(self, batches: dict[str, list[list[str]]]) -> None:
        self.batches = batches

    def step_loss(self, ctx, batch, step):  # type: ignore[no-untyped-def]
        self.batches[str(step)] = [[p.query_id, p.doc_hi, p.doc_lo] for p in batch]
        return super().step_loss(ctx, batch, step)


class Killed(Exception):
    pass


def run(out: Path, init_seed: int = 0, kill_at: int | None = None) -> dict[str, Any]:
    """Train into ``out``; returns ``{"batches": {step: pairs}, "writes": [file names]}``."""
    torch.set_num_threads(1)
    train, dev = split_dev(make_toy_dataset(), 4, seed=0)
    record: dict[str, Any] = {"batches": {}, "writes": []}

    def recorded(name: str) -> Any:
        real = getattr(trainer_module, name)

        def write(*args: Any) -> Any:
            record["writes"] += [Path(a).name for a in args if isinstance(a, str | os.PathLike)]
            return real(*args)

        return write

    saved = {n: getattr(trainer_module, n) for n in ("atomic_torch_save", "write_json")}
    for name in saved:
        setattr(trainer_module, name, recorded(name))

    def kill(step: int, rec: dict[str, Any]) -> None:
        if step == kill_at:
            raise Killed

    try:
        strategy = RecordingStrategy(record["batches"])
        trainer = Trainer(
            MaskedTinyRanker(seed=init_seed), config(), out, train, dev, loss_strategy=strategy,
            callback=kill if kill_at else None,
        )  # fmt: skip
        try:
            trainer.fit(resume=False)
        except Killed:
            # a new process: other initial weights, everything else from the checkpoint
            again = Trainer(
                MaskedTinyRanker(seed=99), config(), out, train, dev, loss_strategy=strategy
            )
            again.fit(resume=True)
    finally:
        for name, real in saved.items():
            setattr(trainer_module, name, real)
    return record


if __name__ == "__main__":
    rank = int(os.environ["RANK"])
    out, rec_dir = Path(sys.argv[1]), Path(sys.argv[2])
    result = run(out, init_seed=rank, kill_at=KILL_AT)
    (rec_dir / f"rank{rank}.json").write_text(json.dumps(result), encoding="utf-8")

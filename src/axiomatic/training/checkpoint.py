"""Checkpoint and log I/O of the trainer (split out of ``trainer.py``).

Everything here is plain file handling: atomic writes (temp file + ``os.replace``), the
``log.jsonl`` reader that tolerates a line cut by a kill, and the validation of a checkpoint
before a resume (corrupt, truncated, or written with another configuration). Keeping it apart
from the training loop lets a loss strategy or a new trainer variant reuse it unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from axiomatic._atomic import atomic_path, atomic_write_text


def atomic_torch_save(obj: Any, path: Path) -> None:
    """``torch.save`` through a temporary file, so a kill never leaves half a checkpoint."""
    with atomic_path(path) as tmp:
        torch.save(obj, tmp)


def write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=1))


def read_log(path: Path) -> list[dict[str, Any]]:
    """The records of a ``log.jsonl`` (stops at a line cut by a kill)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut by a kill
                break
    return out


def truncate_log(path: Path, step: int) -> None:
    """Drop log records after the checkpointed step (they will be re-run on resume)."""
    keep = [r for r in read_log(path) if r.get("step", 0) <= step]
    atomic_write_text(path, "".join(json.dumps(r) + "\n" for r in keep))


def load_checkpoint_state(
    path: Path,
    device: torch.device | str,
    config: Mapping[str, Any] | None = None,
    data: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Read and validate a trainer checkpoint; ``config`` (the run's ``TrainConfig.to_dict()``)
    must equal the one the checkpoint was written with, and ``data`` (the trainer's
    :meth:`~axiomatic.training.trainer.Trainer.data_fingerprint`: hashes of the training pairs
    and texts, the dev data and the vocabulary) the one recorded with it. The config names the
    dataset only; the fingerprint catches a collection edited under the same name, whose
    rebuilt vocabulary would re-label the embedding rows of the saved weights.

    A checkpoint written before fingerprints were recorded has none to compare: it is resumed
    (the weights must still fit the model; the trainer checks their shapes).

    ``weights_only``: the checkpoint holds only tensors and plain containers; never unpickle
    code. Raises ``ValueError`` naming the file, what differs and the fix for a corrupt or
    foreign file.
    """
    try:
        state = torch.load(path, map_location=device, weights_only=True)
        if not isinstance(state, dict) or "model" not in state or "step" not in state:
            raise ValueError("not a checkpoint written by this trainer")
    except Exception as exc:  # torch raises RuntimeError, EOFError, UnpicklingError, ...
        # first sentence only: torch's text goes on to suggest weights_only=False (unsafe)
        first = (str(exc).strip().splitlines() or [""])[0].split(". ")[0][:200]
        raise ValueError(
            f"{path} is corrupt or truncated ({type(exc).__name__}: {first}); delete it, or "
            "train with --no-resume (resume=False) to start afresh in this folder"
        ) from exc
    saved = state.get("config")
    if saved is not None and config is not None:
        mine = dict(config)
        # a setting added to TrainConfig after the checkpoint was written: its default (the
        # old behaviour) is what the checkpoint was trained with
        from axiomatic.training.config import TrainConfig

        defaults = TrainConfig().to_dict()
        saved = {**{k: v for k, v in defaults.items() if k not in saved}, **saved}
        diff = sorted(k for k in set(saved) | set(mine) if saved.get(k) != mine.get(k))
        if diff:
            raise ValueError(
                f"{path} was written with another configuration "
                f"(differs in {', '.join(diff)}); resume with the same settings, or use a "
                "new output folder / --no-resume to start afresh"
            )
    recorded = state.get("data")
    if isinstance(recorded, Mapping) and data is not None:
        diff = sorted(k for k in set(recorded) | set(data) if recorded.get(k) != data.get(k))
        if diff:
            raise ValueError(
                f"{path} was trained on other data than this run's (differs in: "
                f"{', '.join(diff)}): resuming would pair its weights with the new data. "
                "Resume with the same data, or use a new output folder / --no-resume "
                "(resume=False) to train afresh"
            )
    return state

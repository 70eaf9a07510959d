"""The built-in demo collection (no files needed)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import spec_adder
from axiomatic.data.demo import demo_dataset
from axiomatic.data.records import Dataset


def _demo_loader(root: Path, split: str | None = None) -> Dataset:
    return demo_dataset(split)


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    for split in (None, "train", "test"):
        suffix = f"/{split}" if split else ""
        add(
            f"demo{suffix}",
            "built-in English demo collection (shaped for every axiom)"
            + (f", {split} split" if split else ""),
            None,
            partial(_demo_loader, split=split),
        )
    return specs

"""QBQTC: Chinese query -> title ranking (listwise 2021-10 and final pointwise releases)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import pairwise_dataset, spec_adder
from axiomatic.data.records import Dataset


def load_qbqtc(root: Path, split: str, pointwise: bool = False) -> Dataset:
    """QBQTC: listwise 2021-10 release (train/dev/test = test_public) or, with ``pointwise``, the
    final pointwise release (dev/test = test_public). Chinese; grades 0/1/2; rel_threshold=1."""
    from axiomatic.data.readers.qbqtc import read_qbqtc

    fname = "test_public.json" if split == "test" else f"{split}.json"
    if pointwise:
        path = root / "qbqtc-zh" / "raw" / "dataset" / fname
        name, source = f"qbqtc-pointwise/{split}", "qbqtc-zh"
    else:
        path = root / "qbqtc-zh-listwise-2021-10" / "raw" / fname
        name, source = f"qbqtc/{split}", "qbqtc-zh-listwise-2021-10"
    s = read_qbqtc(path)
    return pairwise_dataset(
        name,
        s,
        split,
        "zh",
        None,
        1,
        f"QBQTC query-title ranking ({'pointwise' if pointwise else 'listwise 2021-10'}) {split}",
        source,
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    for split in ("train", "dev", "test"):
        add(
            f"qbqtc/{split}",
            f"QBQTC listwise 2021-10 (Chinese query-title) {split}, 0/1/2",
            "qbqtc-zh-listwise-2021-10",
            partial(load_qbqtc, split=split),
            (f"raw/{'test_public' if split == 'test' else split}.json",),
        )
    for split in ("dev", "test"):
        add(
            f"qbqtc-pointwise/{split}",
            f"QBQTC final pointwise release {split}, 0/1/2",
            "qbqtc-zh",
            partial(load_qbqtc, split=split, pointwise=True),
            (f"raw/dataset/{'test_public' if split == 'test' else split}.json",),
        )
    return specs

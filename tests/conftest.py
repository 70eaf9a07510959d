"""Shared fixtures: where ../shared/data is (see shared_data.py; ``AXIOMATIC_REQUIRE_DATA=1``
turns a missing collection into a failure), quiet progress bars."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shared_data import REPO, require_collection, shared_data_root, skip_missing_data

os.environ.setdefault("AXIOMATIC_NO_PROGRESS", "1")

__all__ = ["REPO", "require_collection", "shared_data_root", "skip_missing_data"]


@pytest.fixture(scope="session")
def data_root() -> Path:
    root = shared_data_root()
    if root is None:
        skip_missing_data("../shared/data is not present (set AXIOMATIC_DATA to run data tests)")
    return root

"""Shared fixtures: where ../shared/data is, and a skip marker for tests that need it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("AXIOMATIC_NO_PROGRESS", "1")


def shared_data_root() -> Path | None:
    env = os.environ.get("AXIOMATIC_DATA")
    root = Path(env) if env else REPO.parent / "shared" / "data"
    return root if root.is_dir() else None


@pytest.fixture(scope="session")
def data_root() -> Path:
    root = shared_data_root()
    if root is None:
        pytest.skip("../shared/data is not present (set AXIOMATIC_DATA to run data tests)")
    return root


def require_collection(name: str) -> Path:
    """Path of collection folder ``name`` under the shared data, or skip the test."""
    root = shared_data_root()
    if root is None or not (root / name).is_dir():
        pytest.skip(f"shared collection {name!r} is not present")
    return root / name

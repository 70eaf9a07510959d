"""Where ../shared/data is, and a skip helper for tests that need one of its collections.

Import as ``from shared_data import require_collection`` (``tests/`` is on ``sys.path`` through the
root conftest; ``conftest`` itself is not importable by name, as sub-folders have their own).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data_root() -> Path | None:
    env = os.environ.get("AXIOMATIC_DATA")
    root = Path(env) if env else REPO.parent / "shared" / "data"
    return root if root.is_dir() else None


def require_collection(name: str) -> Path:
    """Path of collection folder ``name`` under the shared data, or skip the test."""
    root = shared_data_root()
    if root is None or not (root / name).is_dir():
        pytest.skip(f"shared collection {name!r} is not present")
    return root / name

"""Where ../shared/data is, and the skip helpers for tests that need one of its collections.

Import as ``from shared_data import require_collection`` (``tests/`` is on ``sys.path`` through the
root conftest; ``conftest`` itself is not importable by name, as sub-folders have their own).

A missing collection skips the test, unless ``AXIOMATIC_REQUIRE_DATA=1`` is set (``.ci/run`` sets
it when ``../shared/data`` exists): then it FAILS, so that data tests cannot silently turn into
skips (a renamed folder, a wrong data root). Only absent *data* may skip, never a project module
that fails to import or a loader that raises: those errors propagate.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REQUIRE_DATA_ENV = "AXIOMATIC_REQUIRE_DATA"


def data_required() -> bool:
    """True when ``$AXIOMATIC_REQUIRE_DATA`` is set to a true value (``1``, ``true``, ``yes``)."""
    return os.environ.get(REQUIRE_DATA_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def skip_missing_data(reason: str) -> None:
    """Skip the test because shared data is absent, or fail when the data is required."""
    if data_required():
        pytest.fail(
            f"{reason}, but {REQUIRE_DATA_ENV}=1 requires the shared data (data root: "
            f"{shared_data_root() or 'none found'}); fix the data root (AXIOMATIC_DATA) or unset "
            f"{REQUIRE_DATA_ENV} to skip data tests",
            pytrace=False,
        )
    pytest.skip(reason)


def shared_data_root() -> Path | None:
    env = os.environ.get("AXIOMATIC_DATA")
    root = Path(env) if env else REPO.parent / "shared" / "data"
    return root if root.is_dir() else None


def require_collection(name: str) -> Path:
    """Path of collection folder ``name`` under the shared data, or skip the test (fail when
    ``AXIOMATIC_REQUIRE_DATA=1``)."""
    root = shared_data_root()
    if root is None:
        skip_missing_data(f"shared data root is not present (needed for collection {name!r})")
    elif not (root / name).is_dir():
        skip_missing_data(f"shared collection {name!r} is not present under {root}")
    return root / name  # type: ignore[operator]

"""Fixtures of the training tests (helpers live in training_helpers.py)."""

from __future__ import annotations

import pytest
from training_helpers import make_toy_dataset

from axiomatic.data.records import Dataset


@pytest.fixture
def toy_dataset() -> Dataset:
    return make_toy_dataset()

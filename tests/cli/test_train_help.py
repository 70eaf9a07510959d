"""`train --help` shows the defaults that apply when neither an option nor --config sets a value."""

from __future__ import annotations

import dataclasses

from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.cli.train_cmds import TRAIN_DEFAULTS
from axiomatic.training.config import TrainConfig


def test_the_shown_defaults_are_train_configs() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(TrainConfig)}
    for key, shown in TRAIN_DEFAULTS.items():
        assert fields[key] == shown, key


def test_train_help_lists_the_defaults() -> None:
    res = CliRunner().invoke(app, ["train", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    for key in ("steps", "batch_size", "lr", "seed"):
        assert f"(default: {TRAIN_DEFAULTS[key]}, or the --config file's)" in text, key

"""Every ``train --config`` setting is type- and range-checked at load time; the
error names the file and the setting (``lr = true`` used to train with lr 1.0, ``epochs = -1``
and ``dev_depth = -1`` ran silently, others ended in internal errors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from axiomatic.training.config import TrainConfig, load_config


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("lr = true", "setting 'lr' must be a finite number > 0 (got true, a boolean)"),
        ("lr = nan", "setting 'lr' must be a finite number > 0"),
        (
            "epochs = -1",
            "setting 'epochs' must be a finite number > 0 (or left out) (got -1",
        ),
        ("dev_depth = -1", "setting 'dev_depth' must be an integer >= 1 (got -1, an integer)"),
        ("steps = 1.5", "setting 'steps' must be an integer >= 1 (got 1.5, a number)"),
        ("batch_size = true", "setting 'batch_size' must be an integer >= 1 (got true"),
        ("margin = -0.5", "setting 'margin' must be a finite number >= 0"),
        ('weight_decay = "0.1"', "setting 'weight_decay' must be a finite number >= 0"),
        ("patience = -3", "setting 'patience' must be an integer >= 0"),
        ("dev_queries = -1", "setting 'dev_queries' must be an integer >= 0"),
        ("candidate_depth = 0", "setting 'candidate_depth' must be an integer >= 1"),
        ("grad_clip = -1.0", "setting 'grad_clip' must be a finite number >= 0 (or left out)"),
        ("seed = -1", "setting 'seed' must be an integer >= 0"),
        ("seed = 4294967296", "setting 'seed' must be an integer < 2**32 (got 4294967296"),
        (
            "steps = 2147483648",
            "setting 'steps' must be an integer < 2**31 (got 2147483648",
        ),
        ("epochs = 1e300", "setting 'epochs' must be a number < 2**31 (or left"),
        ("steps = 1" + "0" * 30, "setting 'train.steps' is an integer of 31 digits, beyond TOML's"),
        ("x = " + "[" * 5000 + "]" * 5000, "nest too deep to read"),
        ("seed = 1.0", "setting 'seed' must be an integer >= 0 (got 1.0, a number)"),
        ("log_grad_norm = 1", "setting 'log_grad_norm' must be true or false"),
        ("model_config = 3", "setting 'model_config' must be a table"),
        ("model = 5", "setting 'model' must be a non-empty string (got 5, an integer)"),
        ("regularizer = 1", "setting 'regularizer' must be a string (or left out)"),
        ('dataset = ""', "setting 'dataset' must be a non-empty string"),
    ],
)
def test_bad_settings_name_the_file_and_the_key(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "train.toml"
    path.write_text(f"[train]\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: "), info.value
    assert message in str(info.value)


def test_a_train_key_that_is_no_table_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "train.toml"
    path.write_text("train = 5\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"'train' must be a table \(\[train\] followed by"):
        load_config(path)


def test_good_settings_and_their_edges_still_load(tmp_path: Path) -> None:
    path = tmp_path / "train.toml"
    path.write_text(
        "[train]\nlr = 1\nepochs = 2.5\npatience = 0\ndev_queries = 0\ngrad_clip = 0\n"
        "margin = 0\nseed = 0\nmodel_config = {max_length = 64}\n",
        encoding="utf-8",
    )
    cfg = load_config(path)
    assert (cfg.lr, cfg.epochs, cfg.patience, cfg.grad_clip) == (1, 2.5, 0, 0)
    import numpy as np

    assert TrainConfig(steps=np.int64(3), lr=np.float64(0.1)).steps == 3  # numpy numbers pass

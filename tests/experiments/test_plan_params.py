"""Plans describe their parameters (ParamInfo from fields and metadata), check every field once
before any work, share TrainConfig's ranges, and print them with `experiment NAME --describe`."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic._params import PARAM_COLUMNS
from axiomatic._report import markdown_table
from axiomatic.cli.main import app
from axiomatic.experiments.engine import TrainingPlan, experiments, get_experiment
from axiomatic.training.config import TRAIN_PARAMS, TrainConfig

NAMES = [e.name for e in experiments()]
FIX = "; fix the --config file's [plan] table or the keyword"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"steps": -5}, "rosset2019 setting 'steps' must be an integer >= 1 (got -5, an integer)"),
        ({"lr": -1}, "rosset2019 setting 'lr' must be a finite number > 0 (got -1, an integer)"),
        ({"lr": 0.0}, "rosset2019 setting 'lr' must be a finite number > 0 (got 0.0, a number)"),
        ({"batch_size": 0}, "setting 'batch_size' must be an integer >= 1 (got 0, an integer)"),
        ({"seeds": [0, -1]}, "setting 'seeds' must be a list of integers >= 0 (got [0, -1]"),
        ({"eval_every": 0}, "rosset2019 setting 'eval_every' must be an integer >= 1 (got 0"),
        ({"train_depth": 0}, "rosset2019 setting 'train_depth' must be an integer >= 1 (got 0"),
        ({"lambda_": -0.5}, "rosset2019 setting 'lambda_' must be a finite number >= 0 (got -0.5"),
        ({"steps": 2**31}, "rosset2019 setting 'steps' must be an integer < 2**31 (got 2147483648"),
        ({"axioms": ["TFC9"]}, "setting 'axioms' must be a list whose items are one of 'TFC1-A'"),
        ({"ar_normalize": "all"}, "setting 'ar_normalize' must be one of 'applicable', 'batch'"),
        ({"embeddings": "glove"}, "setting 'embeddings' must be one of 'random', 'word2vec'"),
        ({"threads": 0}, "setting 'threads' must be an integer >= 1 (or left out) (got 0"),
    ],
)
def test_rosset2019_refuses_impossible_values(overrides: dict, message: str) -> None:
    exp = get_experiment("rosset2019")
    for quick in (True, False):
        with pytest.raises(ValueError) as err:
            exp.plan(quick=quick, **overrides)
        text = str(err.value)
        assert message in text and text.endswith(FIX) and "\n" not in text


@pytest.mark.parametrize(
    ("name", "overrides", "message"),
    [
        ("liu-smooth", {"epochs": 0}, "liu-smooth setting 'epochs' must be a finite number > 0"),
        (
            "liu-smooth",
            {"eps_grid": [0.0, -1.0]},
            "'eps_grid' must be a list of finite numbers >= 0",
        ),
        (
            "liu-smooth",
            {"parts": ["table9"]},
            "'parts' must be a list whose items are one of 'table2'",
        ),
        (
            "acrank2023",
            {"p": 1.5},
            "acrank2023 setting 'p' must be a finite number >= 0 and <= 1 (got 1.5",
        ),
        ("acrank2023", {"negatives": 0}, "acrank2023 setting 'negatives' must be an integer >= 1"),
        (
            "ares2022",
            {"seeds": [-1]},
            "ares2022 setting 'auc_seeds' must be a list of integers >= 0",
        ),
        (
            "ares2022",
            {"masking": "all"},
            "setting 'masking' must be one of 'input', 'document-wwm'",
        ),
        (
            "rennings-augment",
            {"depth": 0},
            "rennings-augment setting 'depth' must be an integer >= 1",
        ),
        (
            "rennings-augment",
            {"steps": 0},
            "rennings-augment setting 'steps' must be an integer >= 1",
        ),
        (
            "compare-training",
            {"alpha": 1.0},
            "compare-training setting 'alpha' must be a finite number > 0 and < 1",
        ),
        ("compare-training", {"ares_lr": -1e-5}, "setting 'ares_lr' must be a finite number > 0"),
    ],
)
def test_every_experiment_checks_its_ranges(name: str, overrides: dict, message: str) -> None:
    with pytest.raises(ValueError) as err:
        get_experiment(name).plan(quick=True, **overrides)
    assert message in str(err.value)


def test_nested_tables_are_checked_item_by_item() -> None:
    bad = {"train": "demo/train", "test": "demo/test", "sizes": [6, 0]}
    with pytest.raises(ValueError) as err:
        get_experiment("rosset2019").plan(quick=True, datasets=[bad])
    assert str(err.value).startswith(
        "rosset2019 setting 'datasets[0].sizes' must be a list of integers >= 1 (got [6, 0]"
    )
    setting = {"name": "x", "train": "demo/train", "test": "demo/test", "train_queries": "all"}
    with pytest.raises(ValueError, match=r"setting 'settings\[0\].train_queries' must be an in"):
        get_experiment("acrank2023").plan(quick=True, settings=[setting])


@pytest.mark.parametrize("name", NAMES)
def test_every_quick_and_full_plan_validates(name: str) -> None:
    exp = get_experiment(name)
    for quick in (True, False):
        plan = exp.plan(quick=quick)
        for field_name, info in exp.params().items():
            info.check(getattr(plan, field_name))


def test_the_plans_share_trainconfigs_records() -> None:
    """The same concept reads the same record: a plan's range is TrainConfig's, not a copy."""
    params = TrainingPlan.params()
    for name in ("steps", "batch_size", "lr", "eval_every", "patience", "dev_queries", "analyzer"):
        plan, train = params[name], TRAIN_PARAMS[name]
        assert (plan.low, plan.low_open, plan.high, plan.high_open) == (
            train.low,
            train.low_open,
            train.high,
            train.high_open,
        ), name
    seed = TRAIN_PARAMS["seed"]
    assert (params["seeds"].low, params["seeds"].high) == (seed.low, seed.high)
    # a subclass redeclaring a field (a new default) keeps its range
    rennings = get_experiment("rennings-augment").params()["steps"]
    assert rennings.default == 400 and rennings.low == TRAIN_PARAMS["steps"].low
    # TrainConfig checks itself with the same records
    with pytest.raises(ValueError, match=r"setting 'steps' must be an integer >= 1 \(got -5"):
        TrainConfig(steps=-5)
    assert [f.name for f in fields(TrainConfig)] == list(TRAIN_PARAMS)


def test_ares_masking_choices_are_the_pretrainers() -> None:
    from axiomatic.ares.pretrain import MASKINGS

    assert get_experiment("ares2022").params()["masking"].choices == MASKINGS


@pytest.mark.parametrize("name", NAMES)
def test_describe_prints_the_records(name: str) -> None:
    exp = get_experiment(name)
    params = exp.params()
    plan_fields = fields(exp.load().plan_class)
    assert list(params) == [f.name for f in plan_fields]
    res = CliRunner().invoke(app, ["experiment", name, "--describe"], terminal_width=400)
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert lines[0] == "| " + " | ".join(PARAM_COLUMNS) + " |"
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:]]
    assert len(rows) == len(params)
    for row, (field_name, info) in zip(rows, params.items(), strict=True):
        assert row[0] == field_name
        assert row[1] == info.type.replace("|", "\\|")
        assert row[3] == info.range_text()
    expected = markdown_table([p.row() for p in params.values()], PARAM_COLUMNS)
    assert res.output.strip() == expected.strip()


def test_describe_shows_the_ranges_of_rosset2019() -> None:
    res = CliRunner().invoke(app, ["experiment", "rosset2019", "--describe"], terminal_width=400)
    assert (
        "| steps | int | 300 | >= 1, < 2**31 | training steps (optimizer updates) |" in res.output
    )
    assert "| lr | float | 0.001 | > 0 | learning rate |" in res.output


def test_describe_needs_a_name() -> None:
    res = CliRunner().invoke(app, ["experiment", "--describe"])
    assert res.exit_code == 2 and "--describe prints one experiment's parameters" in res.output


def test_the_command_refuses_a_config_out_of_range_before_any_work(tmp_path: Path) -> None:
    config = tmp_path / "plan.toml"
    out = tmp_path / "out"
    for line, message in [
        ("lr = -1", "rosset2019 setting 'lr' must be a finite number > 0 (got -1, an integer)"),
        ("steps = -5", "rosset2019 setting 'steps' must be an integer >= 1 (got -5, an integer)"),
        (
            "batch_size = 0",
            "rosset2019 setting 'batch_size' must be an integer >= 1 (got 0, an integer)",
        ),
    ]:
        config.write_text(f"[plan]\n{line}\n", encoding="utf-8")
        res = CliRunner().invoke(
            app,
            ["experiment", "rosset2019", "--quick", "--config", str(config), "-o", str(out)],
            terminal_width=400,
        )
        assert res.exit_code == 2
        assert " ".join(res.output.split()).startswith(f"error: {message}"), res.output
        assert not (out / "config.toml").exists() and not (out / "runs").exists()

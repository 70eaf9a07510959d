"""`axiomatic axioms` and `axiomatic train --help` read the parameter records (ParamInfo)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from axiomatic.axioms.catalogue import default_catalogue, get_definition
from axiomatic.cli.main import app
from axiomatic.training.config import TRAIN_PARAMS

runner = CliRunner()


def test_a_record_s_description_reaches_train_help_and_the_axiom_listing() -> None:
    steps = TRAIN_PARAMS["steps"]
    res = runner.invoke(app, ["train", "--help"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    help_text = " ".join(res.output.split())
    said = steps.description[:1].upper() + steps.description[1:]
    assert f"{said}. (default: {steps.default}, or the --config file's)" in help_text
    lr = TRAIN_PARAMS["lr"].description
    assert f"{lr[:1].upper() + lr[1:]}. (default: 0.001," in help_text

    margin = get_definition("LNC1").param_info()["margin"]
    assert margin.description  # a record that describes itself
    res = runner.invoke(app, ["axioms"])
    assert res.exit_code == 0, res.output
    row = next(line for line in res.stdout.splitlines() if line.startswith("| LNC1 |"))
    assert f"margin (float, default 0.1): {margin.description}" in row
    rows = {
        r["name"]: r for r in json.loads(runner.invoke(app, ["axioms", "--format", "json"]).stdout)
    }
    assert {
        "name": "margin",
        "type": "float",
        "default": "0.1",
        "range": "",
        "description": margin.description,
    } in rows["LNC1"]["parameters"]
    assert rows["LNC1"]["params"]["margin"] == 0.1  # name -> default, as before


def test_every_own_axiom_parameter_is_described() -> None:
    for d in default_catalogue():
        for key, info in d.param_info().items():
            assert info.description, f"{d.name}: parameter {key} has no description"


def test_losses_lists_every_training_spec_with_its_records() -> None:
    from axiomatic._params import param_dicts
    from axiomatic.cli.common import parameter_text
    from axiomatic.training.config import training_specs

    families = training_specs()
    res = runner.invoke(app, ["losses", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [
        {
            "setting": f.setting,
            "name": f.name,
            "what": f.description,
            "example": f.example,
            "parameters": param_dicts(f.params),
        }
        for f in families
    ]
    res = runner.invoke(app, ["losses"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    lines = [" ".join(line.split()) for line in res.stdout.splitlines()]
    for f in families:
        assert any(line.startswith(f"{f.name} {f.description}") for line in lines), f.name
        for row in param_dicts(f.params):
            assert " ".join(parameter_text(row).split()) in lines, (f.name, row["name"])
    scale = next(f for f in families if f.name == "po").params["scale"]
    assert scale.description and "scale (float, default 10.0, > 0): the slope s of s * r" in lines


def test_train_help_points_at_the_listing_of_the_specs() -> None:
    res = runner.invoke(app, ["train", "--help"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.replace("│", " ").split())
    for option in ("--loss", "--regularizer", "--augmentation", "--graded-loss", "--lr-schedule"):
        after = text.split(f" {option} ", 1)[1]
        assert "`axiomatic losses`" in after[:400], option  # in the option's own help


def test_the_graded_loss_and_schedule_options_reach_the_config(tmp_path) -> None:
    for args, line in (
        (
            ["--loss", "graded", "--graded-loss", "po(scale=0)"],
            "error: graded loss 'po' parameter 'scale' in 'po(scale=0)' must be a finite number "
            "> 0 (got 0.0, a number)",
        ),
        (
            ["--lr-schedule", "linear(warmup=2)"],
            "error: warmup of the linear schedule in 'linear(warmup=2)' must be a finite number "
            ">= 0 and < 1 (got 2.0, a number)",
        ),
    ):
        res = runner.invoke(
            app, ["train", "-d", "demo", *args, "-o", str(tmp_path / "out")], env={"COLUMNS": "300"}
        )
        assert res.exit_code == 2, res.output
        assert " ".join(res.output.split()) == line

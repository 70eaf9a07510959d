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

"""``mine --variant`` applies only where an axiom has the variant, and
``mine --shard-size`` is recorded in the manifest (a resume with another size is refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.axioms import parse_axioms
from axiomatic.cli.main import app
from axiomatic.data.instances import MANIFEST

runner = CliRunner()


def test_global_variant_applies_only_to_axioms_that_have_it() -> None:
    tfc1, lnc1 = parse_axioms("TFC1,LNC1", default_variant="relaxed")
    assert tfc1.variant == "relaxed"
    assert lnc1.variant == "extended"  # LNC1 has no relaxed variant: its own default
    # an explicit variant the axiom lacks is still an error
    with pytest.raises(ValueError, match="LNC1 has no variant 'relaxed'"):
        parse_axioms("LNC1(variant='relaxed')")


def test_mine_variant_relaxed_with_lnc1_says_which_kept_their_default(tmp_path: Path) -> None:
    from axiomatic.data.instances import read_instances

    out = tmp_path / "inst"
    res = runner.invoke(
        app, ["mine", "-d", "demo", "-a", "TFC1,LNC1", "--variant", "relaxed", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "LNC1" in res.output and "kept" in res.output and "extended" in res.output
    inst, _ = read_instances(out)
    variants = inst.groupby("axiom")["variant"].first().to_dict()
    assert variants.get("TFC1") == "relaxed"
    assert variants.get("LNC1", "extended") == "extended"
    help_text = " ".join(runner.invoke(app, ["mine", "--help"]).output.replace("│", " ").split())
    assert "only" in help_text and "own default" in help_text


def test_mine_shard_size_is_recorded_and_a_different_one_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "inst"
    res = runner.invoke(
        app, ["mine", "-d", "demo", "-a", "TFC1", "--shard-size", "2", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["config"]["shard_size"] == 2
    n_queries = manifest["config"]["queries"]
    assert len(manifest["shards"]) == -(-n_queries // 2)
    # same size: resumed, nothing re-mined
    res = runner.invoke(
        app, ["mine", "-d", "demo", "-a", "TFC1", "--shard-size", "2", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "written 0" in res.output
    # another size would mix shard boundaries: refused, naming the change
    res = runner.invoke(
        app, ["mine", "-d", "demo", "-a", "TFC1", "--shard-size", "3", "-o", str(out)]
    )
    assert res.exit_code != 0
    assert "shard_size: 2 -> 3" in res.output
    res = runner.invoke(
        app, ["mine", "-d", "demo", "-a", "TFC1", "--shard-size", "0", "-o", str(out)]
    )
    assert res.exit_code != 0

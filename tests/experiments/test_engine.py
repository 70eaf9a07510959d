"""The experiment framework (experiments/engine.py): registry, plan overrides, the one entry
point, the command's listing and options, --report-only, and the documented toy experiment."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic._registry import Registry
from axiomatic.cli.main import app
from axiomatic.experiments import engine
from axiomatic.experiments.engine import (
    REGISTRY,
    Experiment,
    Runner,
    get_experiment,
    run_experiment,
)
from axiomatic.experiments.units import UnitMismatchError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
REGISTERED = [
    "rosset2019",
    "rennings-augment",
    "liu-smooth",
    "acrank2023",
    "ares2022",
    "compare-training",
]


def test_the_registry_lists_the_five_experiments_and_each_loads_its_runner() -> None:
    assert list(REGISTRY) == REGISTERED
    for exp in REGISTRY.values():
        runner = exp.load()
        assert issubclass(runner, Runner) and runner.name == exp.name
        assert exp.summary and exp.paper
        # quick and full plans build, and the full plan prints as text
        assert runner.make_plan(True, {}) != runner.make_plan(False, {})
    assert [e.name for e in REGISTRY.values() if e.options] == ["liu-smooth"]


def test_unknown_experiment_and_setting_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as exc:
        get_experiment("rosset2020")
    assert str(exc.value).startswith(
        "unknown experiment 'rosset2020' (did you mean 'rosset2019' or 'ares2022'?); expected one of "
        "rosset2019, rennings-augment, liu-smooth, acrank2023, ares2022"
    )
    assert get_experiment(" Liu-Smooth ").name == "liu-smooth"
    with pytest.raises(ValueError) as exc:
        run_experiment("rosset2019", tmp_path / "o", quick=True, stepz=3)
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith("unknown rosset2019 setting 'stepz' (did you mean 'steps'?)")
    with pytest.raises(ValueError, match=r"liu-smooth setting 'epochs': expected float or int"):
        run_experiment("liu-smooth", tmp_path / "o", quick=True, epochs="4")
    with pytest.raises(ValueError, match=r"rosset2019 setting 'ablation': expected bool, got 1"):
        run_experiment("rosset2019", tmp_path / "o", quick=True, ablation=1)
    with pytest.raises(ValueError, match="acrank2023 selects rows per setting"):
        run_experiment("acrank2023", tmp_path / "o", quick=True, models=["knrm"])
    with pytest.raises(ValueError, match=r"\[\[plan.datasets\]\] table: 'tset'.*'test'"):
        run_experiment("rosset2019", tmp_path / "o", datasets=[{"train": "a", "tset": "b"}])
    assert not (tmp_path / "o").exists()  # refused before any work


def test_overrides_use_the_plans_own_names_and_types() -> None:
    ares = get_experiment("ares2022").plan(True, seeds=[3], models=["rep"], steps=None)
    assert ares.auc_seeds == [3] and ares.variants == ["rep"] and ares.steps == 2
    rosset = get_experiment("rosset2019").plan(True, axioms=["TFC3"], datasets=[
        {"train": "demo/train", "test": "demo/test", "sizes": [3]}
    ])  # fmt: skip
    assert rosset.axioms == ("TFC3",) and rosset.datasets[0].sizes == [3]
    assert type(rosset.datasets[0]).__name__ == "DatasetPlan"
    liu = get_experiment("liu-smooth").plan(True, epochs=2)  # an int for a float field
    assert liu.epochs == 2


def test_the_command_lists_the_registry_and_passes_its_options(tmp_path: Path, monkeypatch) -> None:
    res = CliRunner().invoke(app, ["experiment"])
    assert res.exit_code == 0, res.output
    for e in REGISTRY.values():
        assert e.name in res.output and e.paper in res.output
    res = CliRunner().invoke(app, ["experiment", "rosset2020", "--quick"])
    assert res.exit_code == 2 and "did you mean 'rosset2019'" in res.output
    res = CliRunner().invoke(
        app, ["experiment", "acrank2023", "--quick", "-o", str(tmp_path), "--sasaki", "x"]
    )
    assert res.exit_code == 2 and "--sasaki is an option of the liu-smooth experiment" in (
        res.output
    )
    seen: dict = {}
    monkeypatch.setattr(engine, "run_experiment", lambda *a, **k: seen.update(k, name=a[0]))
    res = CliRunner().invoke(
        app,
        [
            *("experiment", "ares2022", "--quick", "-o", str(tmp_path / "a")),
            *("--workers", "2", "--scheduler", "tcp://h:8786", "--seeds", "4"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert seen["workers"] == 2 and seen["scheduler"] == "tcp://h:8786"
    assert seen["seeds"] == [4] and seen["name"] == "ares2022" and seen["quick"] is True


def test_ares_report_only_refuses_a_folder_without_its_stages(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["experiment", "ares2022", "--report-only", "-o", str(tmp_path)])
    assert res.exit_code == 2
    assert "predictor.json: the predictor stage has not finished" in res.output


def test_rennings_report_only_summarizes_the_finished_units(tmp_path: Path) -> None:
    out = tmp_path / "r"
    small = {"seeds": [0], "steps": 2, "schemes": ["regular", "paired"]}
    run_experiment("rennings-augment", out, quick=True, echo=lambda _m: None, **small)
    first = json.loads((out / "results.json").read_text())
    (out / "results.json").unlink()
    (out / "summary.md").unlink()
    stamps = sorted(p.stat().st_mtime_ns for p in out.glob("runs/*/*/seed0/test_run.json"))
    # the folder's own config.toml (steps 2, two schemes) is the plan, not the quick plan
    res = CliRunner().invoke(
        app, ["experiment", "rennings-augment", "--report-only", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    again = json.loads((out / "results.json").read_text())
    assert again["rows"] == first["rows"] and again["significance"] == first["significance"]
    assert "Table 4.9" in (out / "summary.md").read_text()
    assert sorted(p.stat().st_mtime_ns for p in out.glob("runs/*/*/seed0/test_run.json")) == (
        stamps
    )  # nothing retrained or re-scored
    res = CliRunner().invoke(
        app, ["experiment", "rennings-augment", "--report-only", "-o", str(tmp_path / "none")]
    )
    assert res.exit_code == 2 and "no mined test instances" in res.output


# ---------------------------------------------------------------------- the documented toy
def _toy_module(tmp_path: Path, monkeypatch) -> str:
    """The toy experiment of docs/architecture.md, as an importable module."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(
        r"<!-- toy experiment: begin -->\n```python\n(.*?)```\n<!-- toy experiment: end -->",
        text,
        re.S,
    )
    assert block is not None, "docs/architecture.md lost its toy experiment"
    path = tmp_path / "toy_experiment.py"
    path.write_text(block.group(1), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("toy_experiment", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "toy_experiment", module)
    spec.loader.exec_module(module)
    entry = re.search(
        r'REGISTRY\.register\(\s*"toy",\s*Experiment\("toy", "([^"]+)", "([^"]+)",\s*"[^"]+"\)',
        text,
    )
    assert entry is not None, "docs/architecture.md lost the toy's registry entry"
    return "toy_experiment:Toy"


def test_the_documented_toy_experiment_runs_resumes_and_refuses(
    tmp_path: Path, monkeypatch
) -> None:
    import numpy as np

    where = _toy_module(tmp_path, monkeypatch)
    registry = Registry("experiment")
    for name, entry in REGISTRY.items():
        registry.register(name, entry)
    registry.register("toy", Experiment("toy", "mean of draws", "none", where))
    monkeypatch.setattr(engine, "REGISTRY", registry)
    out = tmp_path / "out"
    lines: list[str] = []
    res = run_experiment("toy", out, quick=True, echo=lines.append)
    expected = [float(np.random.default_rng(s).random(10).mean()) for s in (0, 1)]
    assert [r["mean"] for r in res["rows"]] == expected
    assert lines == [f"[toy] seed {s}: {m:.4f}" for s, m in zip((0, 1), expected, strict=True)]
    assert json.loads((out / "results.json").read_text())["rows"] == res["rows"]
    assert 'experiment = "toy"' in (out / "config.toml").read_text()
    # resumed: the finished units are reused, a new seed computed
    lines.clear()
    res = run_experiment("toy", out, quick=True, seeds=[0, 1, 2], echo=lines.append)
    assert len(res["rows"]) == 3 and len(lines) == 2  # one unit computed, one plan-change note
    assert "seeds" in lines[0] and lines[1].startswith("[toy] seed 2:")
    # other settings: refused naming the field, redone with overwrite
    with pytest.raises(UnitMismatchError, match="draws 10 -> 12"):
        run_experiment("toy", out, quick=True, draws=12, echo=lines.append)
    res = run_experiment("toy", out, quick=True, draws=12, overwrite=True, echo=lines.append)
    assert [r["mean"] for r in res["rows"]][:1] == [
        float(np.random.default_rng(0).random(12).mean())
    ]
    with pytest.raises(ValueError, match=r"unknown toy setting 'draw' \(did you mean 'draws'\?\)"):
        run_experiment("toy", out, quick=True, draw=3)
    assert (
        run_experiment("toy", out, quick=True, draws=12, report_only=True)["rows"] == (res["rows"])
    )
    res_cli = CliRunner().invoke(app, ["experiment"])
    assert "toy" in res_cli.output

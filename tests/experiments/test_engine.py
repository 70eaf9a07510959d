"""The experiment framework (experiments/engine.py): registry, plan overrides, the one entry
point, the command's listing and options, --report-only, and the documented toy experiment."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.experiments import engine
from axiomatic.experiments.engine import (
    REGISTRY,
    ExperimentRegistry,
    Runner,
    get_experiment,
    run_experiment,
)
from axiomatic.experiments.units import UnitMismatchError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
SRC = Path(__file__).resolve().parents[2] / "src"


def _runner_classes() -> set[type[Runner]]:
    """Every runner of the package's modules (the listing imports them all): the Runner
    subclasses no other class of the package derives from (a package's computing half, such
    as liu-smooth's ``LiuRun``, is the base of its registered runner)."""
    REGISTRY.names()
    found, todo = set(), [Runner]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            inside = [s for s in sub.__subclasses__() if s.__module__.startswith(_PACKAGE)]
            if sub.__module__.startswith(_PACKAGE) and not inside:
                found.add(sub)
    return found


_PACKAGE = "axiomatic.experiments."


def test_every_runner_of_the_package_registers_itself_and_loads() -> None:
    """No list of names: each runner's decorator registers it, the registry finds it by its
    module, and every entry's plans build."""
    runners = _runner_classes()
    assert {r.name for r in runners} == set(REGISTRY) and len(REGISTRY) == len(runners) >= 6
    assert list(REGISTRY) == sorted(REGISTRY)
    for exp in REGISTRY.values():
        runner = exp.load()
        assert runner in runners and runner.name == exp.name and runner.dask == exp.dask
        assert exp.summary and exp.paper
        # quick and full plans build, and the full plan prints as text
        assert runner.make_plan(True, {}) != runner.make_plan(False, {})
    assert [e.name for e in REGISTRY.values() if e.options] == ["liu-smooth"]
    no_dask = {e.name for e in REGISTRY.values() if not e.dask}
    assert {"ares2022", "compare-training"} <= no_dask


def test_a_name_is_found_by_importing_only_its_module() -> None:
    code = (
        "import sys\n"
        "from axiomatic.experiments.engine import get_experiment\n"
        "print(get_experiment('Rennings_Augment').name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('axiomatic.experiments.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    name, modules = out.stdout.splitlines()
    assert name == "rennings-augment"
    assert "axiomatic.experiments.liu_smooth" not in modules
    assert "axiomatic.experiments.rennings_augment" in modules


def test_unknown_experiment_and_setting_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as exc:
        get_experiment("rosset2020")
    assert str(exc.value).startswith(
        "unknown experiment 'rosset2020' (did you mean 'rosset2019' or 'ares2022'?); expected one of "
        "acrank2023, ares2022, compare-training, liu-smooth, rennings-augment, rosset2019"
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
            *("experiment", "rosset2019", "--quick", "-o", str(tmp_path / "a")),
            *("--workers", "2", "--scheduler", "tcp://h:8786", "--seeds", "4"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert seen["workers"] == 2 and seen["scheduler"] == "tcp://h:8786"
    assert seen["seeds"] == [4] and seen["name"] == "rosset2019" and seen["quick"] is True


@pytest.mark.parametrize("option", [["--workers", "2"], ["--scheduler", "tcp://h:8786"]])
def test_workers_are_refused_in_one_line_where_units_cannot_run_on_dask(
    tmp_path: Path, option: list[str]
) -> None:
    """An experiment that declares no Dask units refuses --workers / --scheduler before any
    work, in one error line (compare-training ignored them, ares2022 refused them itself)."""
    for exp in REGISTRY.values():
        if exp.dask:
            continue
        out = tmp_path / exp.name
        res = CliRunner().invoke(app, ["experiment", exp.name, "--quick", "-o", str(out), *option])
        assert res.exit_code == 2, (exp.name, res.output)
        lines = [line for line in res.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), res.output
        assert f"experiment {exp.name!r} runs its units in this process, not on Dask" in lines[0]
        assert lines[0].endswith("leave out --workers / --scheduler")
        assert not out.exists()
        with pytest.raises(ValueError, match="not on Dask"):
            run_experiment(exp.name, out, quick=True, workers=2)
        with pytest.raises(ValueError, match="not on Dask"):
            exp.load()(exp.load().plan_class.quick(), out, workers=2)


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
def _toy_source() -> str:
    """The toy experiment of docs/architecture.md (a module outside the package)."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(
        r"<!-- toy experiment: begin -->\n```python\n(.*?)```\n<!-- toy experiment: end -->",
        text,
        re.S,
    )
    assert block is not None, "docs/architecture.md lost its toy experiment"
    return block.group(1)


def _toy_module(tmp_path: Path, monkeypatch) -> None:
    """The documented toy imported from tmp_path, registered by its own decorator into a copy
    of the registry (the package's registry is left as it was)."""
    registry = ExperimentRegistry("experiment")
    for name, entry in REGISTRY.items():
        registry.register(name, entry)
    monkeypatch.setattr(engine, "REGISTRY", registry)
    (tmp_path / "toy_experiment.py").write_text(_toy_source(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toy_experiment", raising=False)
    importlib.import_module("toy_experiment")
    monkeypatch.setitem(sys.modules, "toy_experiment", sys.modules["toy_experiment"])
    assert registry.get("toy").paper == "none (an example)" and not registry.get("toy").dask


def test_the_documented_toy_experiment_runs_resumes_and_refuses(
    tmp_path: Path, monkeypatch
) -> None:
    import numpy as np

    _toy_module(tmp_path, monkeypatch)
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


def test_the_toy_registered_from_outside_runs_from_the_cli(tmp_path: Path, monkeypatch) -> None:
    import numpy as np

    _toy_module(tmp_path, monkeypatch)
    out = tmp_path / "cli"
    res = CliRunner().invoke(app, ["experiment", "toy", "--quick", "-o", str(out)])
    assert res.exit_code == 0, res.output
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert [r["mean"] for r in rows] == [
        float(np.random.default_rng(s).random(10).mean()) for s in (0, 1)
    ]
    res = CliRunner().invoke(app, ["experiment", "toy", "--quick", "-o", str(out), "--seeds", "5"])
    assert res.exit_code == 0, res.output
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert [r["mean"] for r in rows] == [float(np.random.default_rng(5).random(10).mean())]
    res = CliRunner().invoke(
        app, ["experiment", "toy", "--quick", "-o", str(out), "--workers", "2"]
    )
    assert res.exit_code == 2 and "experiment 'toy' runs its units in this process" in res.output


def test_an_entry_point_experiment_is_listed_and_run_in_a_fresh_process(tmp_path: Path) -> None:
    """An installed package's ``axiomatic.experiments`` entry point: nothing imports it first."""
    import numpy as np

    (tmp_path / "toy_experiment.py").write_text(_toy_source(), encoding="utf-8")
    info = tmp_path / "toyexp-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyexp\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent("""\
            [axiomatic.experiments]
            toy = toy_experiment:Toy
        """)
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)])}
    env["AXIOMATIC_NO_PROGRESS"] = "1"
    out = tmp_path / "out"
    cli = [sys.executable, "-m", "axiomatic.cli.main", "experiment"]
    ran = subprocess.run(
        [*cli, "toy", "--quick", "-o", str(out)], env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert [r["mean"] for r in rows] == [
        float(np.random.default_rng(s).random(10).mean()) for s in (0, 1)
    ]
    listed = subprocess.run([*cli], env={**env, "COLUMNS": "200"}, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert "none (an example)" in listed.stdout and "rosset2019" in listed.stdout


def test_units_of_transformers_record_the_dtype_they_score_in(tmp_path: Path, monkeypatch) -> None:
    """Neural scoring is float32 by default on every device; before, transformers scored in
    bf16 on CPUs fast at it. A transformer unit's record names the dtype, so one recorded
    without it (perhaps bf16 numbers) is refused rather than reused as float32; a word-model
    unit (float32 before and after) keeps its record. Broken checks: leaving the key out fails
    the refusal; adding it for word models fails the reuse of the KNRM unit."""
    import axiomatic.models.device as device
    from axiomatic.experiments.ares2022.plan import _settings
    from axiomatic.experiments.units import UnitRecord, UnitStore, inference_dtype_settings

    monkeypatch.setattr(device, "bf16_supported", lambda d: True)
    assert inference_dtype_settings("cross-encoder") == {"inference_dtype": "float32"}
    assert inference_dtype_settings("knrm", "bi-encoder") == {"inference_dtype": "float32"}
    assert inference_dtype_settings("knrm", "conv-knrm") == {}
    assert _settings("evaluation")["inference_dtype"] == "float32"
    runner = Runner(None, tmp_path)
    store = UnitStore(tmp_path)
    for model, refused in (("cross-encoder", True), ("knrm", False)):
        old = runner.record_settings(model=model, seed=0)
        unit = tmp_path / model
        assert store.enter(unit, UnitRecord(old)) == "absent"
        (unit / "test_metrics.json").write_text("{}")
        now = UnitRecord(
            runner.record_settings(model=model, seed=0, **inference_dtype_settings(model))
        )
        if refused:
            with pytest.raises(UnitMismatchError, match=r"inference_dtype \(none\) -> float32"):
                store.enter(unit, now)
        else:
            assert store.enter(unit, now) == "done"

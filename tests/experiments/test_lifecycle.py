"""The engine owns an experiment's lifecycle: it times the invocation and writes
``results.json`` (with its record: plan, machine, timing), the figures, ``summary.md`` and the
docs page, each atomically; an experiment only says what it computes and how it reads."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from axiomatic._report import new_figure
from axiomatic.experiments.engine import ENGINE_KEYS, Plan, Runner

PNG = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class ProbePlan(Plan):
    draws: int = 3
    docs: str | None = None


class Probe(Runner):
    """An experiment with one unit, one figure, a summary and a docs page."""

    name = "probe"
    plan_class = ProbePlan

    def compute(self) -> None:
        (self.out_dir / "unit.txt").write_text(str(self.plan.draws), encoding="utf-8")

    def results(self) -> dict[str, Any]:
        draws = int((self.out_dir / "unit.txt").read_text(encoding="utf-8"))
        return {"rows": [{"i": i, "square": i * i} for i in range(draws)]}

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        fig, ax = new_figure()
        ax.plot([r["square"] for r in results["rows"]])
        return {"img/squares.png": fig}

    def summary(self, results: Mapping[str, Any]) -> str:
        squares = ", ".join(str(r["square"]) for r in results["rows"])
        return f"# Probe\n\nSquares: {squares}.\n\n![squares](img/squares.png)\n"

    def docs_page(self, results: Mapping[str, Any], page: Path) -> str:
        return f"# Probe page ({page.stem})\n\n{len(results['rows'])} rows.\n"


@pytest.fixture
def atomic_writes(monkeypatch) -> list[Path]:
    """The paths written through ``atomic_write_text`` / ``atomic_write_bytes``."""
    import axiomatic._atomic as atomic

    written: list[Path] = []
    for name in ("atomic_write_text", "atomic_write_bytes"):
        real = getattr(atomic, name)

        def spy(path: Any, data: Any, *args: Any, _real: Any = real, **kw: Any) -> Path:
            written.append(Path(path))
            return _real(path, data, *args, **kw)  # type: ignore[no-any-return]

        monkeypatch.setattr(atomic, name, spy)
    monkeypatch.setattr("axiomatic._report.atomic_write_bytes", atomic.atomic_write_bytes)
    return written


def test_the_engine_writes_every_output_atomically_with_its_record(
    tmp_path: Path, atomic_writes: list[Path]
) -> None:
    out, page = tmp_path / "out", tmp_path / "docs" / "probe.md"
    page.parent.mkdir()
    page.with_suffix(".notes.md").write_text("Hand-written notes.\n", encoding="utf-8")
    plan = ProbePlan(draws=3, docs=str(page))
    res = Probe(plan, out, echo=lambda _m: None).run()

    rows = [{"i": 0, "square": 0}, {"i": 1, "square": 1}, {"i": 2, "square": 4}]
    on_disk = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert on_disk == res
    assert set(res) == {"rows", *ENGINE_KEYS} and res["rows"] == rows
    assert res["plan"] == {"draws": 3, "docs": str(page)}
    assert {"platform", "cpu", "cpus", "python", "torch", "device"} <= set(res["machine"])
    [invocation] = res["timing"]["invocations"]
    assert invocation["wall_seconds"] >= 0
    assert (out / "summary.md").read_text(encoding="utf-8") == (
        "# Probe\n\nSquares: 0, 1, 4.\n\n![squares](img/squares.png)\n"
    )
    assert (out / "img" / "squares.png").read_bytes().startswith(PNG)
    assert (page.parent / "img" / "squares.png").read_bytes().startswith(PNG)
    assert page.read_text(encoding="utf-8") == (
        "# Probe page (probe)\n\n3 rows.\n\nHand-written notes.\n"
    )
    written = {p.resolve() for p in atomic_writes}
    for path in (
        out / "results.json",
        out / "summary.md",
        out / "timing.json",
        out / "img" / "squares.png",
        page,
        page.parent / "img" / "squares.png",
    ):
        assert path.resolve() in written, path

    # --report-only: summarized again, no invocation timed; a run adds one
    again = Probe(plan, out, echo=lambda _m: None).report()
    assert again["rows"] == rows and len(again["timing"]["invocations"]) == 1
    later = Probe(plan, out, echo=lambda _m: None).run()
    assert len(later["timing"]["invocations"]) == 2


def test_a_page_that_keeps_its_own_text_gets_no_notes(tmp_path: Path) -> None:
    page = tmp_path / "probe.md"
    page.with_suffix(".notes.md").write_text("Notes.\n", encoding="utf-8")

    class Block(Probe):
        docs_notes = False

    Block(ProbePlan(docs=str(page)), tmp_path / "out", echo=lambda _m: None).run()
    assert page.read_text(encoding="utf-8") == "# Probe page (probe)\n\n3 rows.\n"


def test_no_experiment_writes_its_own_reports() -> None:
    """Every registered experiment leaves run() and report() to the engine."""
    from axiomatic.experiments.engine import experiments

    for exp in experiments():
        runner = exp.load()
        assert runner.run is Runner.run and runner.report is Runner.report, exp.name
        assert runner.compute is not Runner.compute, exp.name
        assert runner.summary is not Runner.summary, exp.name


# ---------------------------------------------------------------------- before and after
def _structure(obj: Any) -> Any:
    """The shape of a JSON value: keys kept, every leaf replaced by its kind, the distinct
    shapes of a list's items in order."""
    if isinstance(obj, dict):
        return {k: _structure(v) for k, v in obj.items()}
    if isinstance(obj, list):
        kinds: list[Any] = []
        for item in obj:
            if (s := _structure(item)) not in kinds:
                kinds.append(s)
        return kinds
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "bool"
    return "number" if isinstance(obj, (int, float)) else "string"


def test_rennings_quick_results_keep_the_structure_they_had_before_the_engine(
    tmp_path: Path,
) -> None:
    """The structure of rennings-augment's quick ``results.json`` as it was written before the
    engine owned the writing (tests/experiments/data), plus the engine's record."""
    from axiomatic.experiments.engine import run_experiment

    res = run_experiment("rennings-augment", tmp_path / "out", quick=True, echo=lambda _m: None)
    expected = json.loads(
        (Path(__file__).parent / "data" / "rennings_augment_quick.structure.json").read_text()
    )
    assert _structure({k: v for k, v in res.items() if k not in ("machine", "timing")}) == expected
    assert {"machine", "timing"} <= set(res)


def _compare_script() -> Any:
    path = ROOT / "benchmarks" / "compare_experiment_results.py"
    spec = importlib.util.spec_from_file_location("compare_experiment_results", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_before_after_script_ignores_only_what_measures_the_run(tmp_path: Path) -> None:
    cmp = _compare_script()
    before, after = tmp_path / "before" / "x", tmp_path / "after" / "x"
    for folder, seconds, extra in ((before, 1.0, {}), (after, 9.0, {"machine": {"cpus": 2}})):
        folder.mkdir(parents=True)
        results = {
            "rows": [{"AP": 0.5, "seconds": seconds, "model": str(folder / "model")}],
            "plan": {"steps": 2},
            **extra,
        }
        (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    assert cmp.compare(before, after) == ([], ["machine"])
    assert cmp.main([str(before.parent), str(after.parent)]) == 0

    changed = json.loads((after / "results.json").read_text())
    changed["rows"][0]["AP"] = 0.5000001
    (after / "results.json").write_text(json.dumps(changed), encoding="utf-8")
    assert cmp.compare(before, after)[0] == ["rows[0].AP: 0.5 != 0.5000001"]
    assert cmp.main([str(before.parent), str(after.parent)]) == 1

"""A discoverable top-level API, the version, packaging and atomic TOML writes."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from typer.testing import CliRunner

from axiomatic.cli.main import app

ROOT = Path(__file__).resolve().parents[2]


def test_import_axiomatic_is_light_and_lists_the_api() -> None:
    code = (
        "import sys, axiomatic as ax; "
        "heavy = [m for m in ('torch', 'pandas', 'matplotlib', 'transformers') if m in sys.modules]; "
        "print(ax.__version__, heavy, len(dir(ax)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    version, rest = out.stdout.split(" ", 1)
    assert version[0].isdigit()
    assert rest.startswith("[]"), f"import axiomatic loaded heavy modules: {rest}"


def test_top_level_api_runs_the_documented_workflow(tmp_path: Path) -> None:
    import axiomatic as ax

    for name in ("load_dataset", "make_ranker", "mine", "diagnose", "evaluate", "read_run"):
        assert name in ax.__all__ and callable(getattr(ax, name))
    ds = ax.load_dataset("demo")
    bm25 = ax.make_ranker("bm25", ds)
    ax.mine(ds, ax.parse_axioms("TFC1,M-TDC"), tmp_path / "inst", progress=False)
    inst, art = ax.read_instances(tmp_path / "inst")
    diag = ax.diagnose(inst, [bm25], ds, art, oracle=False)
    assert not diag.table().empty
    run = ax.rerank(bm25, ds)
    ax.write_run(run, tmp_path / "r.trec", tag="bm25")
    res = ax.evaluate(ax.read_run(tmp_path / "r.trec"), ds.qrels, "nDCG@10")
    assert 0 < next(iter(res.values())) <= 1


def test_unknown_top_level_name_suggests() -> None:
    import axiomatic as ax

    try:
        ax.load_datset  # noqa: B018
    except AttributeError as exc:
        assert "load_dataset" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("no AttributeError")


def test_version_flag() -> None:
    import axiomatic

    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.output.strip() == f"axiomatic {axiomatic.__version__}"


def test_package_data_globs_match_files() -> None:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for pkg, globs in cfg["tool"]["setuptools"]["package-data"].items():
        base = ROOT / "src" / pkg
        for g in globs:
            assert list(base.glob(g)), f"pyproject packages {pkg}/{g}, which matches no file"


def test_write_toml_is_atomic(tmp_path: Path, monkeypatch) -> None:
    import axiomatic._atomic as atomic
    from axiomatic.training.config import read_toml, write_toml

    calls = []
    real = atomic.atomic_path

    def spy(path):
        calls.append(Path(path))
        return real(path)

    monkeypatch.setattr(atomic, "atomic_path", spy)
    p = write_toml({"plan": {"steps": 3}}, tmp_path / "c.toml")
    assert calls == [p]
    assert read_toml(p) == {"plan": {"steps": 3}}
    assert [f.name for f in tmp_path.iterdir()] == ["c.toml"]

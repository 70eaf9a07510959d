"""The distribution: what the wheel carries, what install messages name, what the lock pins."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "axiomatic"


def _pyproject() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_install_hints_name_the_distribution_and_an_existing_extra() -> None:
    """``pip install 'axiomatic[...]'`` installs an unrelated project of that name; a hint
    names ``axiomatic-ir`` and an extra that exists."""
    extras = set(_pyproject()["project"]["optional-dependencies"])
    hints = []
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"pip install '(axiomatic[\w.-]*)\[([\w,-]+)\]'", text):
            hints.append((path.name, m.group(1), m.group(2)))
    assert hints, "no install hint found: the pattern no longer matches the messages"
    for name, dist, extra in hints:
        assert dist == "axiomatic-ir", f"{name}: pip install '{dist}[{extra}]'"
        assert set(extra.split(",")) <= extras, f"{name}: unknown extra [{extra}]"


def test_ranges_have_upper_bounds_and_the_lock_satisfies_them() -> None:
    """Libraries that break APIs across majors are bounded, torch stays on the local CPU
    build, and every pinned version in requirements/lock.txt lies in pyproject's ranges."""
    from packaging.requirements import Requirement
    from packaging.version import Version

    project = _pyproject()["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        reqs += [Requirement(r) for r in extra]
    bounded = {
        "transformers",
        "torch",
        "numpy",
        "pandas",
        "pyarrow",
        "scikit-learn",
        "lightgbm",
        "ir-measures",
        "ir-datasets",
        "python-terrier",
        "dask",
    }
    for r in reqs:
        if r.name in bounded:
            assert any(s.operator in ("<", "<=", "==") for s in r.specifier), str(r)
    lock = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            lock[m.group(1).lower().replace("_", "-")] = Version(m.group(2))
    assert str(lock["torch"]).endswith("+cpu"), "the lock must pin the local CPU build of torch"
    for r in reqs:
        name = r.name.lower().replace("_", "-")
        assert name in lock, f"{name} is not in requirements/lock.txt: run make lock"
        assert r.specifier.contains(lock[name], prereleases=True), (
            f"lock pins {name}=={lock[name]} outside {r}: run make lock"
        )


@pytest.mark.slow
def test_wheel_carries_the_package_data(tmp_path: Path) -> None:
    """The wheel holds the stopword lists and ``py.typed`` and declares the console script
    (a fresh-venv smoke test of the wheel: ``make dist`` + the README's steps)."""
    pytest.importorskip("build")
    res = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    (wheel,) = tmp_path.glob("axiomatic_ir-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in (
        "axiomatic/resources/stopwords_en.txt",
        "axiomatic/resources/acrank_stopwords_zh.txt",
    ):
        assert f in names
    assert "axiomatic/py.typed" in names
    assert "axiomatic/cli/main.py" in names
    dist_info = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    entry = zipfile.ZipFile(wheel).read(dist_info).decode()
    assert "axiomatic = axiomatic.cli.main:app" in entry
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)

"""The top-level facade: ``dir(axiomatic)`` is the documented API, ``ax.diagnose`` and
``ax.evaluate`` are the plain functions (with their own signatures) whatever was imported
first, and no module's class is swapped at import."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import axiomatic as ax

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(Path(ax.__file__).resolve().parents[1])}


def _documented() -> set[str]:
    """The names of the table in docs/architecture.md, "The top-level API"."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The top-level API", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Za-z_]\w*)` \|", section, re.M))


def test_dir_lists_exactly_the_documented_api() -> None:
    assert dir(ax) == sorted(ax.__all__)
    assert set(ax.__all__) == _documented() | {"__version__"}
    for leak in ("Any", "annotations", "import_module", "PackageNotFoundError", "version"):
        assert leak not in dir(ax) and leak not in vars(ax), leak
    for name in ax.__all__:
        getattr(ax, name)  # every listed name resolves


def test_diagnose_and_evaluate_are_the_plain_functions() -> None:
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.evaluate.api import evaluate

    assert ax.diagnose is diagnose and ax.evaluate is evaluate
    assert isinstance(ax.diagnose, types.FunctionType)
    assert list(inspect.signature(ax.diagnose).parameters)[:4] == [
        "instances",
        "rankers",
        "dataset",
        "artificial_docs",
    ]
    assert list(inspect.signature(ax.evaluate).parameters)[:3] == ["run", "qrels", "measures"]
    for name in ("axiomatic", "axiomatic.diagnose", "axiomatic.evaluate"):
        assert type(sys.modules[name]) is types.ModuleType, name  # no class swapped in


def test_the_functions_win_whatever_is_imported_first() -> None:
    """A submodule imported before (or after) the facade never rebinds the names to the
    subpackages."""
    code = (
        "import inspect, types\n"
        "from axiomatic.diagnose.mining import mine\n"
        "from axiomatic.evaluate import significance\n"
        "import axiomatic.diagnose.result\n"
        "import axiomatic as ax\n"
        "from axiomatic import diagnose, evaluate\n"
        "assert diagnose is ax.diagnose and evaluate is ax.evaluate\n"
        "print(type(ax.diagnose).__name__, type(ax.evaluate).__name__)\n"
        "print(inspect.signature(ax.evaluate))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    kinds, signature = out.stdout.splitlines()
    assert kinds == "function function"
    assert signature.startswith("(run: 'Run | Mapping[str, Run]', qrels")

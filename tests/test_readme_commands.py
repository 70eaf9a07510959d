"""Every number in the README comes from its command.

* each "Measured" row names a command that exists, whose ``--help`` works and knows the
  options the row uses;
* the cheap commands (well under a minute) are run and the figures they print are compared with
  the README's text: BM25 on SciFact, the mining benchmark's ``readme_figure`` key (on a tiny
  synthetic collection: its format, the README's figure in that format);
* the DL19 study writes to ``--out`` and leaves ``docs/`` alone unless asked (``--write-docs``),
  and the README's DL19 figures are those of the report it generated (docs/diagnosis.md);
* the mining figure agrees with the docs/axioms.md table it summarizes.

The whole file runs in well under a minute (subprocesses of a few seconds each).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from shared_data import require_collection

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
ENV = {**os.environ, "AXIOMATIC_NO_PROGRESS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
MINING = re.compile(r"(\d+(?:\.\d)?)M pairs/s on one core, (\d+) MB peak")


def measured_rows() -> list[tuple[str, str, str]]:
    """``(what, figure, command)`` of every row of the README's "Measured" table."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Measured", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("what", "---") or set(cells[0]) <= {"-"}:
            continue
        command = re.fullmatch(r"`([^`]+)`", cells[2])
        assert command, f"the command cell of {cells[0]!r} is not one `command`: {cells[2]!r}"
        rows.append((cells[0], cells[1], command.group(1)))
    return rows


ROWS = measured_rows()


def _run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=ENV, cwd=REPO, timeout=timeout
    )


def _row(prefix: str) -> tuple[str, str, str]:
    return next(r for r in ROWS if r[0].startswith(prefix))


def _speed_entry(command: str) -> tuple[str, list[str], list[str]]:
    """The ``benchmarks/run.py`` SPEED entry a README command names (``run.py NAME``): its
    script and full and quick arguments."""
    import importlib.util

    argv = shlex.split(command)
    assert argv[1] == "benchmarks/run.py" and len(argv) == 3, command
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert argv[2] in module.SPEED, f"{command}: {argv[2]} is no benchmark of run.py"
    return module.SPEED[argv[2]]


def test_the_measured_table_is_read() -> None:
    assert len(ROWS) >= 7, ROWS
    assert all(cmd.startswith("python benchmarks/") for _, _, cmd in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[r[0][:40] for r in ROWS])
def test_each_measured_command_exists_and_its_help_knows_its_options(row) -> None:
    _, _, command = row
    argv = shlex.split(command)[1:]  # drop "python"
    script = REPO / argv[0]
    assert script.is_file(), f"{argv[0]} does not exist"
    sub = [a for a in argv[1:2] if not a.startswith("-")]  # a sub-command (bench_axioms)
    res = _run([argv[0], *sub, "--help"])
    assert res.returncode == 0, res.stderr[-2000:]
    for option in (a.split("=")[0] for a in argv[1:] if a.startswith("--")):
        assert option in res.stdout, f"{command}: {option} is not an option ({res.stdout})"
    if argv[0] == "benchmarks/run.py":
        script, _, _ = _speed_entry(command)  # a benchmark it knows, whose script exists
        assert (REPO / "benchmarks" / script).is_file(), script


def test_bm25_on_scifact_prints_the_readme_figure() -> None:
    require_collection("scifact")
    _, figure, command = _row("BM25 on SciFact")
    assert command == "python benchmarks/lexical_effectiveness.py"
    # the README row's part of the default run: the same numbers, in a few seconds
    res = _run(
        [
            "benchmarks/lexical_effectiveness.py",
            "--datasets",
            "scifact/test",
            "--rankers",
            "bm25",
            "--measures",
            "nDCG@10",
        ]
    )
    assert res.returncode == 0, res.stderr[-2000:]
    (out,) = json.loads(res.stdout)
    (scores,) = out["results"].values()
    assert f"nDCG@10 {scores['nDCG@10']:.3f}" in figure, (scores, figure)


def test_mining_benchmark_prints_the_readme_figure_under_a_key() -> None:
    _, figure, command = _row("mining")
    script, full, _ = _speed_entry(command)
    assert script == "bench_axioms.py" and full[0] == "mine", command
    readme = MINING.search(figure)
    assert readme, f"the README's mining figure is not in the printed format: {figure!r}"
    args = ["mine-one", "--source", "synthetic", "--synthetic-queries", "2"]
    res = _run(["benchmarks/bench_axioms.py", *args, "--synthetic-candidates", "30"])
    assert res.returncode == 0, res.stderr[-2000:]
    printed = json.loads(res.stdout)
    assert MINING.fullmatch(printed["readme_figure"]), printed["readme_figure"]
    rate = printed["candidate_pairs_per_second"] / 1e6
    assert printed["readme_figure"].startswith(f"{rate:.1f}M pairs/s")
    # the README's figure is the docs/axioms.md measurement it summarizes
    axioms_md = (REPO / "docs" / "axioms.md").read_text(encoding="utf-8")
    row = next(ln for ln in axioms_md.splitlines() if ln.startswith("| synthetic"))
    assert f"| {readme.group(1)} M |" in row and f"| {readme.group(2)} MB |" in row, row


def test_dl19_study_writes_to_out_not_docs_and_the_readme_quotes_its_report(
    tmp_path: Path,
) -> None:
    docs = REPO / "docs" / "diagnosis.md"
    before = hashlib.sha256(docs.read_bytes()).hexdigest()
    res = _run(["benchmarks/dl19_diagnosis.py", "--parts", "none", "--out", str(tmp_path)])
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "diagnosis.md").is_file()
    assert hashlib.sha256(docs.read_bytes()).hexdigest() == before  # docs/ untouched
    help_text = _run(["benchmarks/dl19_diagnosis.py", "--help"]).stdout
    assert "--out" in help_text and "--write-docs" in help_text

    _, figure, command = _row("six TREC DL 2019 systems")
    assert command == "python benchmarks/dl19_diagnosis.py"
    text = " ".join(docs.read_text(encoding="utf-8").split())
    for view in ("own list", "union"):
        m = re.search(
            rf"{view} view, mean over TFC1, TFC2, M-TDC: Spearman ρ = \S+ \(p = \S+\), "
            r"Kendall τ = (-?\d\.\d+) \(p = (\d\.\d+)\), n = (\d+)",
            text,
        )
        assert m, f"docs/diagnosis.md has no {view} headline"
        tau, p, n = float(m.group(1)), float(m.group(2)), int(m.group(3))
        quoted = f"Kendall τ = {tau:.2f} (p = {p:.2f}) in the own-list view"
        if view == "union":
            quoted = f"{tau:.2f} (p = {p:.2f}) in the union view"
        assert quoted in figure, (quoted, figure)
        assert f"over {n} systems" in figure

"""The command blocks of the README and docs/ are written as they run.

* every ``axiomatic ...`` command in a shell block of README.md and docs/*.md parses: the command
  exists and click accepts its options and values (unknown options, a value out of range, a
  missing required option fail here), without running anything;
* the fast ones run for real on the demo collection: README's pipe, docs/diagnosis.md's demo
  commands and its Python snippet (which must not trigger the analyzer-mismatch warning);
* no page, and no command's help, speaks of "issue N" (the project's tracker means nothing to a
  user), and the model zoo cites files that exist.

The commands on shared collections (the DL19 table of docs/diagnosis.md, training) take minutes
to hours and are run by their benchmarks (``benchmarks/dl19_diagnosis.py``), not here.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from axiomatic.cli.main import app

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELLS = ("bash", "sh", "shell", "console", "")
FENCE = re.compile(r"^```(\S*)\s*$")


def shell_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, command line)`` of each line of a shell block, continuations joined."""
    out: list[tuple[int, str]] = []
    lang: str | None = None
    buf, start = "", 0
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = FENCE.match(line.strip())
        if m:
            lang = None if lang is not None else m.group(1)
            continue
        if lang not in SHELLS:
            continue
        text = line.strip().removeprefix("$ ")
        if not buf:
            start = i
        buf = f"{buf} {text}" if buf else text
        if buf.endswith("\\"):
            buf = buf[:-1]
            continue
        out.append((start, buf))
        buf = ""
    return out


def axiomatic_commands(line: str) -> list[list[str]]:
    """The argument lists of the ``axiomatic`` commands of a shell line (pipes split, output
    redirections and comments dropped)."""
    lex = shlex.shlex(line, posix=True, punctuation_chars="|><")
    lex.whitespace_split = True
    lex.commenters = "#"
    tokens = list(lex)
    commands: list[list[str]] = [[]]
    skip = False
    for tok in tokens:
        if skip:
            skip = False
        elif tok == "|":
            commands.append([])
        elif tok in (">", ">>", "<", "2>"):
            skip = True
        else:
            commands[-1].append(tok)
    return [c[1:] for c in commands if c and c[0] == "axiomatic"]


def documented_commands() -> list[tuple[str, list[str]]]:
    found = []
    for page in PAGES:
        for lineno, line in shell_lines(page):
            if "axiomatic " not in line:
                continue
            for args in axiomatic_commands(line):
                if "..." not in args:  # an elided command ("axiomatic train ... --no-resume")
                    found.append((f"{page.name}:{lineno}", args))
    return found


COMMANDS = documented_commands()


def test_the_docs_hold_commands() -> None:
    assert len(COMMANDS) >= 60, len(COMMANDS)
    assert {args[0] for _, args in COMMANDS} >= {
        "rank", "evaluate", "mine", "diagnose", "rerank", "explain", "patch", "train",
        "experiment", "datasets", "probe",
    }  # fmt: skip


@pytest.mark.parametrize("where,args", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_each_documented_command_parses(where: str, args: list[str]) -> None:
    group = get_command(app)
    ctx = group.make_context("axiomatic", args[:1])
    command = group.get_command(ctx, args[0])
    assert command is not None, f"{where}: no command {args[0]!r}"
    try:
        command.make_context(args[0], args[1:], parent=ctx)
    except Exception as exc:  # click's usage errors: the command would not start
        pytest.fail(f"{where}: axiomatic {shlex.join(args)}: {exc}")


def test_a_wrong_option_would_be_caught() -> None:
    # the check itself: an option the command lacks, a value out of range
    group = get_command(app)
    ctx = group.make_context("axiomatic", ["rank"])
    rank = group.get_command(ctx, "rank")
    assert rank is not None
    with pytest.raises(Exception, match="No such option"):
        rank.make_context("rank", ["-d", "demo", "--nope"], parent=ctx)
    with pytest.raises(Exception, match=r"greater than or equal to 1|range"):
        rank.make_context("rank", ["-d", "demo", "--depth", "0"], parent=ctx)


def _env() -> dict[str, str]:
    env = dict(os.environ, AXIOMATIC_NO_PROGRESS="1")
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _page_line(page: str, needle: str) -> str:
    for _, line in shell_lines(REPO / page):
        if needle in line:
            return line.split("#", 1)[0].strip()
    raise AssertionError(f"{page} has no command with {needle!r}")


def test_readme_pipe_runs_as_written(tmp_path: Path) -> None:
    line = _page_line("README.md", "-o - | axiomatic evaluate")
    axiomatic = f"{shlex.quote(sys.executable)} -m axiomatic.cli.main"
    res = subprocess.run(
        ["bash", "-o", "pipefail", "-c", line.replace("axiomatic ", f"{axiomatic} ")],
        capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    header, *rows = res.stdout.splitlines()
    assert header.startswith("ranker,measure,value") and len(rows) == 3
    assert all(r.startswith("QL(mu=1000),") for r in rows)


def test_diagnosis_page_demo_commands_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    mine = shlex.split(_page_line("docs/diagnosis.md", "axiomatic mine --dataset demo"))[1:]
    res = runner.invoke(app, mine)
    assert res.exit_code == 0, res.output
    my = ["rank", "-d", "demo", "-r", "tfidf", "--analyzer", "thesis", "-o", "my.trec"]
    assert runner.invoke(app, my).exit_code == 0
    diagnose = shlex.split(_page_line("docs/diagnosis.md", "--instances inst/ --analyzer thesis"))[
        1:
    ]
    res = runner.invoke(app, [*diagnose, "--no-plots"])
    assert res.exit_code == 0, res.output
    assert "analyzes text with" not in res.output  # no analyzer-mismatch warning
    assert "instances mined with: thesis" in res.output
    assert (tmp_path / "rep" / "report.html").is_file()


def test_diagnosis_page_python_snippet_runs_without_a_mismatch_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (REPO / "docs" / "diagnosis.md").read_text(encoding="utf-8")
    snippet = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert "analyzer=thesis" in snippet  # mined and ranked with one analyzer
    from axiomatic.diagnose.diagnosis import AnalyzerMismatchWarning

    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AnalyzerMismatchWarning)
        exec(compile(snippet.replace("print_tables(diag, eff)", ""), "diagnosis.md", "exec"), {})
    assert (tmp_path / "rep" / "report.html").is_file()


ISSUE = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_speaks_of_issue_numbers(page: Path) -> None:
    hits = [
        f"{page.name}:{i}: {line.strip()[:90]}"
        for i, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        if ISSUE.search(re.sub(r"test_issue\d+", "", line))  # test file names are names
    ]
    assert not hits, "say what the project does, not which issue asked:\n" + "\n".join(hits)


def test_no_command_help_speaks_of_issue_numbers() -> None:
    group = get_command(app)
    runner = CliRunner()
    for name in group.list_commands(group.make_context("axiomatic", ["datasets"])):
        res = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200"})
        assert res.exit_code == 0, (name, res.output)
        assert not ISSUE.search(res.output), (name, ISSUE.search(res.output))


def test_the_model_zoo_cites_files_that_exist() -> None:
    from axiomatic.cli.collection_cmds import model_zoo

    cites = {r["name"]: r["cite"] for r in model_zoo()}
    builtin = ("knrm", "conv-knrm", "drmm", "matchpyramid", "duet", "anmm", "arc-i", "mv-lstm")
    builtin += ("cross-encoder", "bi-encoder", "clir-dual", "acrank")
    assert cites["knrm"] == "Xiong et al., SIGIR 2017"
    assert all(cites[name] for name in builtin), cites
    for name, cite in cites.items():
        assert "DESIGN.md" not in cite, name
        for ref in re.findall(r"docs/[\w.-]+\.md", cite):
            assert (REPO / ref).is_file(), (name, ref)
    assert "## The method in English" in (REPO / "docs" / "acrank.md").read_text(encoding="utf-8")

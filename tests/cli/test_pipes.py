"""TREC runs through pipes: ``-o -`` writes the run to standard output, ``--run -`` (and
``--base -``) reads one from standard input, ``-o /dev/stdout`` and named pipes are written
straight into, and every command reads the same run syntax (files, ``-``, catalog systems)."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.trec import read_run

runner = CliRunner()
SRC = Path(__file__).resolve().parents[2] / "src"


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "axiomatic.cli.main", *args]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["AXIOMATIC_NO_PROGRESS"] = "1"
    return env


def _rows(text: str) -> list[dict[str, str]]:
    """evaluate's CSV rows without the column naming where the run came from."""
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        row.pop("path")
    return rows


def test_rank_to_stdout_piped_into_evaluate_gives_the_file_table(tmp_path: Path) -> None:
    env = _env()
    file_run = tmp_path / "bm25.trec"
    subprocess.run(
        _cmd("rank", "-d", "demo", "-r", "bm25", "-o", str(file_run)),
        env=env, check=True, capture_output=True, cwd=tmp_path,
    )  # fmt: skip
    rank = subprocess.Popen(
        _cmd("rank", "-d", "demo", "-r", "bm25", "-o", "-"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    evaluate = subprocess.run(
        _cmd("evaluate", "-d", "demo", "--run", "-", "--format", "csv"),
        stdin=rank.stdout, capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert rank.stdout is not None
    rank.stdout.close()
    rank_err = rank.stderr.read().decode() if rank.stderr else ""
    assert rank.wait() == 0, rank_err
    assert evaluate.returncode == 0, evaluate.stderr
    assert not (tmp_path / "-").exists()  # no file named '-'
    assert "wrote standard output" in rank_err and "nDCG@10=" in rank_err  # the summary: stderr
    by_file = subprocess.run(
        _cmd("evaluate", "-d", "demo", "--run", str(file_run), "--format", "csv"),
        capture_output=True, text=True, env=env, check=True, cwd=tmp_path,
    )  # fmt: skip
    piped, direct = _rows(evaluate.stdout), _rows(by_file.stdout)
    assert piped == direct and len(piped) == 3  # nDCG@10, RR@10, AP of one run
    assert piped[0]["ranker"] == "BM25(k1=0.9,b=0.4)"  # named by the run's tag, as the file


def test_rank_to_dev_stdout_through_head(tmp_path: Path) -> None:
    env = _env()
    shell = f"{' '.join(_cmd('rank', '-d', 'demo', '-r', 'bm25', '-o', '/dev/stdout'))} | head -n 3"
    res = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert ".tmp" not in res.stderr and "error" not in res.stderr
    reference = tmp_path / "ref.trec"
    assert (
        runner.invoke(app, ["rank", "-d", "demo", "-r", "bm25", "-o", str(reference)]).exit_code
        == 0
    )
    assert res.stdout.splitlines() == reference.read_text().splitlines()[:3]


def test_rank_dash_writes_the_same_run_as_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "ql.trec"
    assert runner.invoke(app, ["rank", "-d", "demo", "-r", "ql", "-o", str(out)]).exit_code == 0
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["rank", "-d", "demo", "-r", "ql", "-o", "-"])
    assert res.exit_code == 0, res.output
    assert not (tmp_path / "-").exists()
    text = res.stdout
    assert text.startswith(out.read_text())  # the run first; the summary is on stderr
    from axiomatic.data.trec import read_run_text

    assert read_run_text(text) == read_run(out)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_rank_writes_into_a_named_pipe_and_evaluate_reads_one(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    res = runner.invoke(app, ["rank", "-d", "demo", "-r", "bm25", "-o", str(fifo)])
    reader.join(timeout=60)
    assert res.exit_code == 0, res.output
    assert fifo.is_fifo()  # written into, not replaced by a regular file
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no temporary file beside it
    ref = tmp_path / "ref.trec"
    assert runner.invoke(app, ["rank", "-d", "demo", "-r", "bm25", "-o", str(ref)]).exit_code == 0
    assert got == [ref.read_bytes()]
    # and a named pipe is a run argument (as `--run <(axiomatic rank ... -o -)` gives one)
    writer = threading.Thread(target=lambda: fifo.write_bytes(ref.read_bytes()), daemon=True)
    writer.start()
    res = runner.invoke(app, ["evaluate", "-d", "demo", "--run", str(fifo), "--format", "csv"])
    writer.join(timeout=60)
    direct = runner.invoke(app, ["evaluate", "-d", "demo", "--run", str(ref), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert _rows(res.stdout) == _rows(direct.stdout)


def test_a_broken_pipe_ends_quietly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import axiomatic.data.trec as trec

    def closed(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(trec, "write_run", closed)
    res = runner.invoke(app, ["rank", "-d", "demo", "-r", "bm25", "-o", "-"])
    assert res.exit_code == 141
    assert "error" not in res.output and "Broken pipe" not in res.output


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "bm25.trec"
    res = runner.invoke(app, ["rank", "-d", "demo", "-r", "bm25", "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_rerank_takes_its_base_from_stdin(demo_run: Path, tmp_path: Path) -> None:
    piped, direct = tmp_path / "piped.trec", tmp_path / "direct.trec"
    args = ["rerank", "-d", "demo", "-a", "TFC1,M-TDC", "--depth", "5"]
    res = runner.invoke(app, [*args, "--base", "-", "-o", str(piped)], input=demo_run.read_text())
    assert res.exit_code == 0, res.output
    res2 = runner.invoke(app, [*args, "--base", str(demo_run), "-o", str(direct)])
    assert res2.exit_code == 0, res2.output
    assert read_run(piped) == read_run(direct)
    assert "base BM25(k1=0.9,b=0.4)" in res.output  # named by its tag, as the file


def test_diagnose_reads_a_run_from_stdin(demo_run: Path, tmp_path: Path) -> None:
    inst = tmp_path / "inst"
    assert runner.invoke(app, ["mine", "-d", "demo", "-a", "TFC1", "-o", str(inst)]).exit_code == 0
    common = ["diagnose", "-i", str(inst), "--no-plots", "--format", "csv"]
    res = runner.invoke(
        app, [*common, "--run", "a=-", "--run", f"b={demo_run}", "-o", str(tmp_path / "r")],
        input=demo_run.read_text(),
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = {r.pop("ranker"): r for r in csv.DictReader(io.StringIO(res.stdout))}
    assert set(rows) == {"a", "b", "oracle"}  # stdout holds the table's numbers only
    assert rows["a"] == rows["b"]
    assert float(rows["a"]["nDCG@10"]) > 0.9 and "TFC1 (δ*≤0.1)" in rows["a"]


def test_explain_takes_stdin_and_catalog_systems_like_the_others(
    demo_run: Path, tmp_path: Path
) -> None:
    res = runner.invoke(
        app,
        ["explain", "-d", "demo", "--run", "a=-", "--run", f"b={demo_run}", "--trees", "5",
         "--folds", "2", "--depth", "5", "--format", "csv"],
        input=demo_run.read_text(),
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = {r["system"]: r for r in csv.DictReader(io.StringIO(res.stdout))}
    assert set(rows) == {"a", "b"}
    drop = {"system"}
    assert {k: v for k, v in rows["a"].items() if k not in drop} == {
        k: v for k, v in rows["b"].items() if k not in drop
    }


def test_stdin_once_and_not_a_terminal(demo_run: Path) -> None:
    from axiomatic.data.runs import read_runs

    with pytest.raises(ValueError, match="standard input can be read once"):
        read_runs(["-", "x=-"], stdin=io.StringIO(demo_run.read_text()))

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    with pytest.raises(ValueError, match="standard input is a terminal"):
        read_runs(["-"], stdin=Tty())
    one = read_runs(["mine=-"], stdin=io.BytesIO(demo_run.read_bytes()))[0]
    assert one.name == "mine" and one.source == "-" and one.run == read_run(demo_run)
    bad = "q1 Q0 d1 1 x tag\n"
    with pytest.raises(ValueError, match=r"<stdin>:1: .*score"):
        read_runs(["-"], stdin=io.StringIO(bad))

"""Long work tells where it is in a log (no TTY), and experiments show their plan."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from axiomatic.cli.main import app

runner = CliRunner()


def _invoke(args: list[str]):
    res = runner.invoke(app, args)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert "Traceback" not in res.output, res.output
    return res


def test_train_without_tty_prints_plain_log_lines(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("AXIOMATIC_LOG_EVERY", "0")  # every step (default: every 30 s)
    monkeypatch.delenv("AXIOMATIC_NO_PROGRESS", raising=False)
    res = _invoke(
        [
            "train",
            "-d",
            "demo/train",
            "-m",
            "knrm",
            "--steps",
            "4",
            "--batch-size",
            "4",
            "--threads",
            "1",
            "-o",
            str(tmp_path / "m"),
        ]
    )
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.output.splitlines() if "training knrm:" in ln]
    assert len(lines) >= 4, res.output
    first = lines[0]
    assert re.search(r"training knrm: 1/4 \(25\.0%\)", first), first
    assert re.search(r"\bloss -?\d+(\.\d+)?(e[-+]\d+)?\b", first), first
    assert "it/s" in first and "ETA" in first
    assert "{" not in "".join(lines) and "np.float" not in "".join(lines)  # numbers, not reprs


def test_progress_lines_are_numbers_and_keep_the_dev_metric(monkeypatch, capsys) -> None:
    from axiomatic._progress import track

    monkeypatch.setenv("AXIOMATIC_LOG_EVERY", "0")
    monkeypatch.delenv("AXIOMATIC_NO_PROGRESS", raising=False)
    records = [
        {"step": 1, "loss": 0.5},
        {"step": 2, "loss": 0.25, "dev_mrr@10": 0.3},
        {"step": 3, "loss": 0.125},
    ]
    seen: list[dict] = []
    for rec in track(records, "training x", status=lambda: seen[-1] if seen else None):
        seen.append(rec)
    err = capsys.readouterr().err.splitlines()
    assert "loss 0.125" in err[2] and "dev_mrr@10 0.3" in err[2]  # dev stays until replaced
    assert "step" not in err[2].split(":", 3)[-1].replace("training x", "")


def test_experiment_without_flags_prints_the_plan_and_refuses(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    for name in ("rosset2019", "rennings-augment"):
        res = _invoke(["experiment", name, "-o", str(out)])
        assert res.exit_code == 2, res.output
        assert "training runs:" in res.output and "estimated time" in res.output
        assert "--full" in res.output and "--quick" in res.output
        assert not out.exists()  # nothing started


def test_report_only_uses_the_folders_own_config(tmp_path: Path, monkeypatch) -> None:
    import axiomatic.experiments.engine as engine
    from axiomatic.training.config import write_toml

    out = tmp_path / "exp"
    write_toml({"experiment": "rosset2019", "seeds": [7, 8], "steps": 11}, out / "config.toml")
    seen: dict = {}

    def fake(name, out_dir, *, report_only=False, **overrides):
        seen.update(overrides, name=name, report_only=report_only)
        return {}

    monkeypatch.setattr(engine, "run_experiment", fake)
    res = _invoke(["experiment", "rosset2019", "-o", str(out), "--report-only"])
    assert res.exit_code == 0, res.output
    assert seen["seeds"] == [7, 8] and seen["steps"] == 11 and seen["report_only"] is True
    write_toml({"experiment": "liu-smooth"}, out / "config.toml")
    res = _invoke(["experiment", "rosset2019", "-o", str(out), "--report-only"])
    assert res.exit_code == 2 and "belongs to experiment 'liu-smooth'" in res.output


def test_a_folders_config_toml_is_a_valid_config(tmp_path: Path, monkeypatch) -> None:
    import axiomatic.experiments.engine as engine
    from axiomatic.training.config import write_toml

    out = tmp_path / "exp"
    write_toml({"experiment": "rosset2019", "seeds": [5], "steps": 9}, out / "config.toml")
    res = _invoke(["experiment", "rosset2019", "-o", str(out)])
    assert res.exit_code == 2 and f"--config {out / 'config.toml'}" in res.output
    seen: dict = {}
    monkeypatch.setattr(engine, "run_experiment", lambda *a, **k: seen.update(k) or {})
    res = _invoke(
        ["experiment", "rosset2019", "-o", str(out), "--config", str(out / "config.toml")]
    )
    assert res.exit_code == 0, res.output
    assert seen["seeds"] == [5] and seen["steps"] == 9  # was silently ignored (no [plan] table)

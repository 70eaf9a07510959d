"""`rerank` warns when its base run is shallower than --depth."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from axiomatic.cli.main import app


def test_rerank_warns_about_a_base_run_shallower_than_depth(tmp_path: Path) -> None:
    runner = CliRunner()
    full = tmp_path / "bm25.trec"
    res = runner.invoke(app, ["rank", "-d", "demo", "-r", "bm25", "-o", str(full)])
    assert res.exit_code == 0, res.output
    kept: dict[str, int] = {}
    lines = []
    for line in full.read_text().splitlines():
        q = line.split()[0]
        kept[q] = kept.get(q, 0) + 1
        if kept[q] <= 3:
            lines.append(line)
    shallow = tmp_path / "top3.trec"
    shallow.write_text("\n".join(lines) + "\n")
    out = tmp_path / "rr.trec"
    res = runner.invoke(
        app, ["rerank", "-d", "demo", "--base", str(shallow), "--depth", "10", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "warning: the base run has at most 3 documents per query, fewer than --depth 10" in text
    res = runner.invoke(
        app, ["rerank", "-d", "demo", "--base", str(full), "--depth", "3", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "fewer than --depth" not in res.output

"""The documented duck-typed Ranker example runs as written (docs/rankers.md)."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_ranker_protocol_example_in_docs_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    text = (DOCS / "rankers.md").read_text(encoding="utf-8")
    blocks = re.findall(
        r"<!-- the block below is executed by tests/cli/test_ranker_docs_example.py -->\n"
        r"```python\n(.*?)```",
        text,
        re.DOTALL,
    )
    assert blocks, "docs/rankers.md lost its Python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(blocks[0], "docs/rankers.md", "exec"), namespace)
    table = namespace["diagnosis"].table()
    assert {"qtc"} <= set(table["ranker"])
    assert "qtc" in capsys.readouterr().out

"""The docs speak of the project, not of who ran what when: experiments state the
machine and load, never "this session" or how many people shared the machine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FORBIDDEN = re.compile(
    r"this session|other sessions|sessions running|engineers|shared by (?:five|six|\d+) ",
    re.IGNORECASE,
)


@pytest.mark.parametrize(
    "path", [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))], ids=lambda p: p.name
)
def test_no_session_wording(path: Path) -> None:
    hits = [
        f"{path.name}:{i}: {line.strip()[:80]}"
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if FORBIDDEN.search(line)
    ]
    assert not hits, "say machine and load instead:\n" + "\n".join(hits)

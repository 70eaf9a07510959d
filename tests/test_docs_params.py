"""The docs' parameter tables (docs/axioms.md, docs/rankers.md, docs/training.md) are what the
parameter records generate: a record changed without `make docs-tables` fails here."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from axiomatic._params import ParamInfo, param_table
from axiomatic.report.params import DOCS_PAGES, param_tables, render_docs, sync_docs

REPO = Path(__file__).resolve().parents[1]


def test_the_docs_tables_are_the_records() -> None:
    stale = [str(p.relative_to(REPO)) for p in sync_docs(REPO)]
    assert stale == [], (
        f"{', '.join(stale)}: the parameter tables differ from the records; run "
        "`make docs-tables` (benchmarks/param_tables.py --write-docs)"
    )


def test_a_changed_description_is_caught_and_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from axiomatic.training import config

    for page in DOCS_PAGES.values():
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / page, tmp_path / page)
    changed = dataclasses.replace(config.AR_PARAMS["mu"], description="a description changed")
    monkeypatch.setitem(config.AR_PARAMS, "mu", changed)
    assert sync_docs(tmp_path) == [tmp_path / "docs" / "training.md"]
    assert sync_docs(tmp_path, write=True) == [tmp_path / "docs" / "training.md"]
    text = (tmp_path / "docs" / "training.md").read_text(encoding="utf-8")
    assert "| regularizer ar | mu | float | 0.1 | >= 0 | a description changed |" in text
    assert sync_docs(tmp_path) == []
    old = (REPO / "docs" / "training.md").read_text(encoding="utf-8")
    assert text.replace("a description changed", config.AR_PARAMS["mu"].description) != old
    monkeypatch.undo()
    assert (
        sync_docs(tmp_path, write=True)
        and (tmp_path / "docs" / "training.md").read_text(encoding="utf-8") == old
    )


def test_each_page_holds_its_table() -> None:
    tables = param_tables()
    for name, page in DOCS_PAGES.items():
        text = (REPO / page).read_text(encoding="utf-8")
        assert tables[name] in text
    assert "| axiom | parameter | type | default | range | description |" in tables["axioms"]
    assert "| bm25 | k1 | float | 0.9 | >= 0 | term-frequency saturation |" in tables["rankers"]
    assert (
        "| graded_loss po | scale | float | 10.0 | > 0 | the slope s of s * r |"
        in tables["training"]
    )


def test_render_docs_replaces_between_the_markers_only() -> None:
    text = "a\n<!-- params:x -->\nold\n<!-- /params:x -->\nb\n"
    out = render_docs(text, "x", "| t |")
    assert out.startswith("a\n<!-- params:x -->\n") and out.endswith("<!-- /params:x -->\nb\n")
    assert "old" not in out and "\n| t |\n" in out
    assert render_docs(out, "x", "| t |") == out  # idempotent
    with pytest.raises(ValueError, match=r"no <!-- params:y --> \.\.\. <!-- /params:y --> markers"):
        render_docs(text, "y", "| t |")


def test_param_table_renders_records_and_groups() -> None:
    k = ParamInfo("k", "int", 3, low=1, description="a | count")
    assert param_table({"k": k}) == (
        "| name | type | default | range | description |\n"
        "|---|---|---|---|---|\n"
        "| k | int | 3 | >= 1 | a \\| count |"
    )
    assert param_table({"f": {"k": k}, "g": {}}, group="family") == (
        "| family | parameter | type | default | range | description |\n"
        "|---|---|---|---|---|---|\n"
        "| f | k | int | 3 | >= 1 | a \\| count |\n"
        "| g | (none) |  |  |  |  |"
    )

"""One HTML page shell and one HTML table writer (``axiomatic._report``) for every page."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from axiomatic._report import html_page, html_table, report_css

SRC = Path(__file__).resolve().parents[2] / "src" / "axiomatic"


def test_the_page_shell() -> None:
    page = html_page("A <b> & c", ["<p>one</p>", "<p>two</p>"], css="p{x:1}")
    assert page == (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>\n"
        "<title>A &lt;b&gt; &amp; c</title><style>p{x:1}</style></head><body>\n"
        "<h1>A &lt;b&gt; &amp; c</h1>\n<p>one</p>\n<p>two</p>\n</body></html>\n"
    )
    assert f"<style>{report_css()}</style>" in html_page("t", [])  # the package's style


def test_the_table_writer_escapes_formats_and_marks_cells() -> None:
    frame = pd.DataFrame(
        {"name": ["<a>", "b&c"], "x": [0.12345, math.nan], "n": [3, 40]},
        index=pd.Index(["r1", "r2"], name="row"),
    )
    assert html_table(frame) == (
        '<table class="tbl"><thead><tr><th>row</th><th>name</th><th>x</th><th>n</th></tr>'
        '</thead><tbody><tr><th class="row">r1</th><td>&lt;a&gt;</td><td>0.123</td>'
        '<td>3</td></tr><tr><th class="row">r2</th><td>b&amp;c</td><td>-</td><td>40</td>'
        "</tr></tbody></table>"
    )
    numbers = html_table(pd.DataFrame({"x": [0.5], "n": [3]}))
    assert "<td>0.500</td><td>3</td>" in numbers  # an integer column stays integer beside floats
    marked = html_table(
        frame.reset_index(drop=True),
        floats=lambda v: f"{v:.1f}",
        css_class="dataframe tbl",
        cell_class=lambda s: "up" if s == "3" else None,
    )
    assert marked.startswith('<table class="dataframe tbl"><thead><tr><th>name</th>')
    assert '<td>0.1</td><td class="up">3</td>' in marked and "<td>nan</td>" in marked


def test_no_other_module_writes_a_page_head() -> None:
    heads = [
        p.relative_to(SRC).as_posix()
        for p in SRC.rglob("*.py")
        if "<!DOCTYPE" in p.read_text(encoding="utf-8")
    ]
    assert heads == ["_report.py"]

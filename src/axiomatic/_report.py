"""Report primitives every layer may use: one Markdown table writer and figures that leave the
caller's matplotlib alone.

Tables: :func:`markdown_table` (rows of mappings or sequences) and :func:`markdown_frame` (a
pandas frame) write GitHub-flavoured Markdown; every ``|`` in a header or cell is escaped and a
line break becomes a space, so that no name can break a table.

Figures: :func:`new_figure` builds a ``matplotlib.figure.Figure`` on its own Agg canvas, with no
pyplot and no ``matplotlib.use``: a library function that draws never switches the backend of
the notebook or program that called it (``matplotlib.use("Agg")`` inside a function did), and
registers no figure with pyplot that would have to be closed. :func:`save_figure` writes one
atomically (through :mod:`axiomatic._atomic`), the format taken from the final file name;
:func:`figure_bytes` returns it. :data:`FIGURE_DPI` and :func:`plain_text` are the shared style:
one resolution for every figure of the package, and every name a user chose shown literally
(matplotlib reads ``$...$`` as mathtext and fails on ``$\\foo{$`` at drawing time).

HTML: :func:`html_page` is the one page shell (head, the package's style sheet
:func:`report_css`, title, sections) and :func:`html_table` the one table writer (escaped, a
float format, optional cell classes) of every HTML page: the diagnosis report, the
explanations page and the patching page.

The diagnosis report composed from these (:mod:`axiomatic.report`) stays on top of the layer map;
matplotlib loads only when a figure is drawn.
"""

from __future__ import annotations

import html
import io
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from axiomatic._atomic import atomic_write_bytes

FIGURE_DPI = 110
"""Resolution of every figure (the figure's own dpi and the saved file's, unless told)."""

_ALIGN = {"": "---", "left": ":---", "right": "---:", "center": ":---:"}


def plain_text(text: object) -> str:
    """``text`` for a matplotlib label, shown literally: every ``$`` escaped, so that no name
    is parsed as mathtext (an unbalanced or unknown ``$\\foo{$`` raises at drawing time)."""
    return str(text).replace("$", r"\$")


def _cell(text: object) -> str:
    return " ".join(str(text).replace("|", "\\|").splitlines())


def markdown_table(
    rows: Iterable[Mapping[str, Any]] | Iterable[Sequence[Any]],
    columns: Sequence[Any],
    *,
    floats: str | Callable[[float], str] = "{:.4f}",
    missing: str = "",
    align: Sequence[str] | None = None,
) -> str:
    """A GitHub-flavoured Markdown table (no trailing newline).

    ``rows`` are mappings (a cell is looked up by its column; an absent key is missing) or
    sequences (cells in column order). A cell that is ``None`` or a NaN float shows ``missing``,
    another float goes through ``floats`` (a ``str.format`` pattern or a function), anything else
    through ``str``. ``align`` gives each column ``""``, ``"left"``, ``"right"`` or ``"center"``
    and writes the delimiter row spaced (``| --- | ---: |``); without it the row is ``|---|---|``.

    >>> print(markdown_table([{"a": "x|y", "b": 0.5}, {"a": None}], ["a", "b"]))
    | a | b |
    |---|---|
    | x\\|y | 0.5000 |
    |  |  |
    """
    fmt = floats.format if isinstance(floats, str) else floats

    def show(v: Any) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return missing
        return _cell(fmt(v) if isinstance(v, float) else v)

    cols = list(columns)
    lines = ["| " + " | ".join(_cell(c) for c in cols) + " |"]
    if align is None:
        lines.append("|" + "---|" * len(cols))
    else:
        if len(align) != len(cols):
            raise ValueError(f"align has {len(align)} entries for {len(cols)} columns")
        bad = sorted({a for a in align if a not in _ALIGN})
        if bad:
            raise ValueError(f"unknown alignment {bad}; expected one of {sorted(_ALIGN)}")
        lines.append("| " + " | ".join(_ALIGN[a] for a in align) + " |")
    for r in rows:
        cells = [r.get(c) for c in cols] if isinstance(r, Mapping) else list(r)
        if len(cells) != len(cols):
            raise ValueError(f"a row has {len(cells)} cells for {len(cols)} columns: {cells!r}")
        lines.append("| " + " | ".join(show(v) for v in cells) + " |")
    return "\n".join(lines)


def markdown_frame(
    frame: Any,
    *,
    index: bool = False,
    floats: str | Callable[[float], str] = "{:.4f}",
    missing: str = "",
    align: Sequence[str] | None = None,
) -> str:
    """:func:`markdown_table` of a pandas frame, its index as the first column when ``index``
    (headed by the index name). ``align`` covers the index column too."""
    head = ([frame.index.name or ""] if index else []) + list(frame.columns)
    rows = (([i] if index else []) + row.tolist() for i, row in frame.iterrows())
    return markdown_table(rows, head, floats=floats, missing=missing, align=align)


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float] | None = None,
    dpi: float = FIGURE_DPI,
    **subplots: Any,
) -> tuple[Any, Any]:
    """``(figure, axes)`` as ``pyplot.subplots`` returns them (``squeeze``, ``sharex``, ...
    passed on), but on a figure of its own Agg canvas: no pyplot state, no backend switch,
    nothing to close (the figure is freed with its last reference)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, **subplots)


def figure_bytes(fig: Any, format: str = "png", dpi: float = FIGURE_DPI) -> bytes:
    """The figure rendered as ``format`` (``png``, ``pdf``, ``svg``, ...)."""
    buf = io.BytesIO()
    fig.savefig(buf, format=format, dpi=dpi)
    return buf.getvalue()


def save_figure(
    fig: Any,
    path: str | os.PathLike[str],
    *,
    dpi: float = FIGURE_DPI,
    format: str | None = None,
) -> Path:
    """Write ``fig`` to ``path`` atomically (a reader never sees half a file; the folder is
    created), in ``format`` or the one the file name ends with (``.png`` when it has none);
    returns ``path``."""
    path = Path(path)
    fmt = format or path.suffix.lstrip(".").lower() or "png"
    atomic_write_bytes(path, figure_bytes(fig, fmt, dpi))
    return path


# ---------------------------------------------------------------------------------- HTML
def report_css() -> str:
    """The style sheet of every HTML page of the package (``axiomatic/resources/report.css``)."""
    from importlib import resources

    return resources.files("axiomatic.resources").joinpath("report.css").read_text("utf-8")


def html_page(title: str, sections: Iterable[str], *, css: str | None = None) -> str:
    """A self-contained HTML page: the head (charset, ``title``, the style sheet inline:
    :func:`report_css` unless ``css``), ``title`` as its heading, then ``sections`` (HTML
    fragments, one per line). Every HTML page of the package is this shell."""
    esc = html.escape
    head = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>\n"
        f"<title>{esc(title)}</title><style>{report_css() if css is None else css}</style>"
        "</head><body>"
    )
    return "\n".join([head, f"<h1>{esc(title)}</h1>", *sections, "</body></html>"]) + "\n"


def _html_float(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.3f}"


def html_table(
    frame: Any,
    *,
    index: bool = True,
    floats: Callable[[float], str] = _html_float,
    css_class: str = "tbl",
    cell_class: Callable[[str], str | None] | None = None,
) -> str:
    """An HTML table of a pandas frame, every header and cell escaped: the one table writer
    of the HTML pages. The index is the first column (a header cell per row) when ``index``
    and it is not a plain range; a float cell goes through ``floats`` (3 decimals, ``-`` for
    NaN by default), anything else through ``str``; ``cell_class`` may give a cell's text a
    CSS class (the report marks significance arrows)."""
    import pandas as pd

    esc = html.escape
    has_index = index and not isinstance(frame.index, pd.RangeIndex)
    head = ([frame.index.name or ""] if has_index else []) + [str(c) for c in frame.columns]
    parts = [f'<table class="{esc(css_class)}"><thead><tr>']
    parts += [f"<th>{esc(str(h))}</th>" for h in head]
    parts.append("</tr></thead><tbody>")
    for idx, row in zip(frame.index, frame.itertuples(index=False, name=None), strict=True):
        parts.append("<tr>")
        if has_index:
            parts.append(f'<th class="row">{esc(str(idx))}</th>')
        for v in row:
            s = floats(float(v)) if isinstance(v, float) else str(v)
            cls = cell_class(s) if cell_class is not None else None
            attr = f' class="{esc(cls)}"' if cls else ""
            parts.append(f"<td{attr}>{esc(s)}</td>")
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)

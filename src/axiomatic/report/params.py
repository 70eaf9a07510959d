"""The docs' parameter tables, generated from the parameter records (:class:`ParamInfo`).

A docs page holds a table between two markers, ``<!-- params:NAME -->`` and
``<!-- /params:NAME -->``; :func:`render_docs` puts in what the records of NAME say now:

- ``axioms`` (``docs/axioms.md``): every axiom's parameters (:meth:`AxiomDef.param_info`);
- ``rankers`` (``docs/rankers.md``): the built-in ranker families' parameters;
- ``training`` (``docs/training.md``): the parameters of the training specs (graded losses,
  ``ar(...)``, the augmentations, the learning-rate schedules; :func:`training_specs`).

``benchmarks/param_tables.py --write-docs`` (``make docs-tables``) rewrites the pages, and a
test fails while a page differs from what the records generate, so the tables cannot drift.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path

from axiomatic._atomic import atomic_write_text
from axiomatic._params import ParamInfo, param_table

__all__ = [
    "DOCS_PAGES",
    "axiom_params",
    "param_tables",
    "ranker_params",
    "render_docs",
    "sync_docs",
    "training_params",
]

Groups = dict[str, Mapping[str, ParamInfo]]


def axiom_params() -> Groups:
    """Axiom name -> its parameters' records, for the built-in catalogue (built afresh, so that
    an axiom registered at run time never reaches the docs)."""
    from axiomatic.axioms.catalogue import FAMILY_MODULES

    out: Groups = {}
    for module in FAMILY_MODULES:
        for d in importlib.import_module(module).definitions():
            out[d.name] = d.param_info()
    return out


def ranker_params() -> Groups:
    """Ranker family -> its parameters' records, for the families of this package (not those
    of other installed packages)."""
    from axiomatic.rankers.registry import RANKERS

    return {
        f.name: f.param_info
        for f in RANKERS.values()
        if getattr(f.factory, "__module__", "").startswith("axiomatic.")
    }


def training_params() -> Groups:
    """``setting name`` (``regularizer ar``) -> the parameters of that training spec; the
    losses of ``loss`` have none of their own and are left out."""
    from axiomatic.training.config import training_specs

    return {f"{f.setting} {f.name}": f.params for f in training_specs() if f.setting != "loss"}


TABLES: dict[str, tuple[str, Callable[[], Groups]]] = {
    "axioms": ("axiom", axiom_params),
    "rankers": ("ranker", ranker_params),
    "training": ("spec", training_params),
}
"""Table name -> (the title of its first column, the records)."""

DOCS_PAGES = {
    "axioms": "docs/axioms.md",
    "rankers": "docs/rankers.md",
    "training": "docs/training.md",
}
"""Table name -> the page (relative to the repository) that holds it."""


def param_tables() -> dict[str, str]:
    """Table name -> its Markdown table (:func:`axiomatic._params.param_table`)."""
    return {name: param_table(records(), group) for name, (group, records) in TABLES.items()}


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- params:{name} -->", f"<!-- /params:{name} -->"


def render_docs(text: str, name: str, table: str) -> str:
    """``text`` with the table between the markers of ``name`` replaced by ``table``;
    ``ValueError`` when the markers are missing or out of order."""
    begin, end = _markers(name)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"no {begin} ... {end} markers to put the {name} parameters table in")
    head = text[: start + len(begin)]
    note = (
        "<!-- generated from the parameter records by benchmarks/param_tables.py --write-docs -->"
    )
    return f"{head}\n{note}\n\n{table}\n\n{text[stop:]}"


def sync_docs(root: str | Path, write: bool = False) -> list[Path]:
    """The pages under ``root`` (the repository) whose parameter tables differ from the
    records; with ``write`` they are rewritten (atomically) to agree."""
    root = Path(root)
    tables = param_tables()
    stale = []
    for name, page in DOCS_PAGES.items():
        path = root / page
        old = path.read_text(encoding="utf-8")
        new = render_docs(old, name, tables[name])
        if new != old:
            stale.append(path)
            if write:
                atomic_write_text(path, new)
    return stale

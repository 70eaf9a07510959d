"""Bring-your-own-collection helpers and the ``models`` command.

* :func:`load_dataset_cli` is what every ``--dataset`` option goes through: catalog names,
  ``irds:<id>``, a TOML descriptor or a rank_llm JSON (with ``--qrels``), with
  ``--skip-malformed`` counts reported on stderr;
* ``axiomatic datasets init FILE.toml`` (dispatched from ``datasets``) writes a commented
  descriptor template;
* ``axiomatic models`` lists the model zoo, one line each.
"""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from axiomatic._suggest import suggest
from axiomatic.cli.app import app
from axiomatic.cli.common import (
    FORMAT_HELP,
    JsonAliasOpt,
    check_format,
    cli_wording,
    console,
    err_console,
    fail,
    format_from_json_flag,
    print_records,
)

QrelsOpt = Annotated[
    Path | None,
    typer.Option(
        "--qrels",
        help="TREC qrels file for the dataset (replaces its qrels); gives a rank_llm JSON "
        "--dataset its judgments.",
    ),
]
SkipMalformedOpt = Annotated[
    bool,
    typer.Option(
        "--skip-malformed",
        help="Skip malformed lines of run, qrels, topics and document files (the count of "
        "skipped lines is reported) instead of stopping at the first one.",
    ),
]
DATASET_HELP = (
    "Catalog name (e.g. scifact/test; list: `axiomatic datasets`), irds:<id>, a dataset "
    "descriptor FILE.toml (`axiomatic datasets init FILE.toml`) or a rank_llm results FILE.json."
)


def report_data_warnings(caught: list[warnings.WarningMessage]) -> None:
    """Print the readers' :class:`DataWarning` messages (skipped / duplicate line counts)."""
    from axiomatic.cli.common import warn
    from axiomatic.data.errors import DataWarning

    for w in caught:
        if issubclass(w.category, DataWarning):
            warn(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def load_dataset_cli(
    name: str,
    data_root: Path | None,
    qrels: Path | None = None,
    skip_malformed: bool = False,
) -> Any:
    """Load ``--dataset`` (name, ``irds:`` id, descriptor or rank_llm JSON) or exit with the
    error; skipped-line counts are printed as warnings."""
    from axiomatic.data import catalog

    set_cli_skip_malformed(skip_malformed)
    kwargs: dict[str, Any] = {}
    if qrels is not None:
        kwargs["qrels"] = qrels
    if skip_malformed:
        kwargs["skip_malformed"] = True
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ds = catalog.load_dataset(name, data_root=data_root, **kwargs)
    except (KeyError, FileNotFoundError, ValueError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        raise fail(cli_wording(str(msg))) from None
    report_data_warnings(caught)
    return ds


def _current_click_context() -> Any:
    """The running command's click context (typer vendors click in newer versions)."""
    import importlib

    for module in ("typer._click.globals", "click.globals"):
        try:
            ctx = importlib.import_module(module).get_current_context(silent=True)
        except (ImportError, AttributeError):
            continue
        if ctx is not None:
            return ctx
    return None


def set_cli_skip_malformed(skip_malformed: bool) -> None:
    """``--skip-malformed`` for every TREC file the command reads, also later and deep down
    (a ``run:FILE`` ranker reads its run on first use). Undone when the command ends, so that
    nothing outlives it in the process (library calls and later commands, e.g. in tests)."""
    from axiomatic.data.trec import (
        set_skip_malformed_default,
        skip_malformed_default,
    )

    previous = skip_malformed_default()
    if previous == skip_malformed:
        return
    set_skip_malformed_default(skip_malformed)
    ctx = _current_click_context()
    if ctx is not None:
        ctx.call_on_close(lambda: set_skip_malformed_default(previous))


def read_run_cli(path: Path, skip_malformed: bool = False) -> Any:
    """A TREC run for a CLI command: errors name ``--skip-malformed``; skipped lines reported."""
    from axiomatic.data.trec import read_run

    set_cli_skip_malformed(skip_malformed)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = read_run(path, skip_malformed=skip_malformed)
    except (ValueError, FileNotFoundError, UnicodeDecodeError) as exc:
        raise fail(cli_wording(str(exc))) from None
    report_data_warnings(caught)
    return run


# ------------------------------------------------------------------------- datasets init
def datasets_action(action: list[str], force: bool = False) -> None:
    """``axiomatic datasets ACTION ...``: only ``init FILE.toml`` exists."""
    from axiomatic.data.descriptor import DescriptorError, write_descriptor_template

    verb, args = action[0], action[1:]
    if verb != "init":
        raise fail(
            f"unknown datasets action {verb!r}{suggest(verb, ['init'])}; expected "
            "`axiomatic datasets init FILE.toml` (or no argument to list the catalog)"
        )
    if len(args) != 1:
        raise fail("usage: axiomatic datasets init FILE.toml [--force]")
    target = Path(args[0])
    if target.suffix != ".toml":
        raise fail(f"{target}: a dataset descriptor is a .toml file, e.g. {target.stem}.toml")
    try:
        path = write_descriptor_template(target, overwrite=force)
    except DescriptorError as exc:
        raise fail(str(exc)) from None
    console.print(
        f"wrote {escape(str(path))}: edit queries/documents (and qrels, candidates), then use it "
        f"as --dataset {escape(str(path))}",
        highlight=False,
    )


# ------------------------------------------------------------------------------- models
_HIDDEN_DEFAULTS = ("embeddings", "doc_embeddings", "tokenizer_path", "encoder_path")


def model_zoo() -> list[dict[str, str]]:
    """One row per registered model: name, what (first docstring sentence), citation (the
    class's ``citation``), defaults (constructor defaults, read from the class so that they cannot go stale)."""
    from axiomatic.models.io import list_models, model_class

    rows = []
    for name in list_models():
        try:
            cls = model_class(name)
        except ImportError as exc:  # an optional dependency of one model
            rows.append({"name": name, "what": f"(unavailable: {exc})", "cite": "", "defaults": ""})
            continue
        doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        what = doc.split(". ")[0].rstrip(".")
        defaults = []
        for p in inspect.signature(cls).parameters.values():
            if p.default is inspect.Parameter.empty or p.name in _HIDDEN_DEFAULTS:
                continue
            if p.default is None:
                continue
            defaults.append(f"{p.name}={p.default}")
        rows.append(
            {
                "name": name,
                "what": what,
                "cite": str(getattr(cls, "citation", "") or ""),
                "defaults": ", ".join(defaults),
            }
        )
    return rows


@app.command()
def models(
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    as_json: JsonAliasOpt = False,
) -> None:
    """List the model zoo: one line per model (what it is, citation, defaults).

    Use a name with `axiomatic train --model NAME`; options override the defaults shown (in a
    --config TOML, under [train] model_config). Details: docs/models.md.
    """
    fmt = check_format(format_from_json_flag(output_format, as_json))
    rows = model_zoo()
    if fmt != "table":
        print_records(rows, fmt)
        return
    if not rows:
        err_console.print("no models registered")
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        cite = f" [{r['cite']}]" if r["cite"] else ""
        console.print(
            f"[bold]{escape(r['name']).ljust(width)}[/]  {escape(r['what'])}{escape(cite)}"
            f"  [dim]defaults: {escape(r['defaults'])}[/]",
            highlight=False,
            soft_wrap=True,
        )


def ranker_rows() -> list[dict[str, str]]:
    """One row per registered ranker family: name, what it is, an example spec and its
    parameters (``k1: float = 0.9, >= 0 (term-frequency saturation)``), from the records of
    :func:`axiomatic.rankers.registry.list_rankers`."""
    from axiomatic.rankers.registry import list_rankers

    rows = []
    for info in list_rankers():
        params = [
            f"{p.name}: {p.type} = {p.default_text()}"
            + (f", {p.range_text()}" if p.range_text() else "")
            + (f" ({p.description})" if p.description else "")
            for p in info.param_info.values()
        ]
        rows.append(
            {
                "name": info.name,
                "what": info.description,
                "example": info.example,
                "params": "; ".join(params),
            }
        )
    return rows


@app.command()
def rankers(
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    as_json: JsonAliasOpt = False,
) -> None:
    """List the ranker families a ranker spec may name: what each is, an example spec and its
    parameters (type, default, description).

    Use a spec with `--ranker` (e.g. `bm25:k1=0.9,b=0.4`; `run:PATH`, `model:PATH`).
    """
    fmt = check_format(format_from_json_flag(output_format, as_json))
    rows = ranker_rows()
    if fmt != "table":
        print_records(rows, fmt)
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        params = f"\n{' ' * (width + 2)}[dim]{escape(r['params'])}[/]" if r["params"] else ""
        console.print(
            f"[bold]{escape(r['name']).ljust(width)}[/]  {escape(r['what'])}"
            f"  [dim]e.g. {escape(r['example'])}[/]{params}",
            highlight=False,
            soft_wrap=True,
        )

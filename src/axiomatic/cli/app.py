"""The typer application object shared by every command module (no commands are defined here)."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="axiomatic",
    help=(
        "Axiomatic neural IR: diagnose rankers with IR axioms, train and pre-train rankers "
        "with them. Start with `axiomatic demo`, then `axiomatic datasets`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

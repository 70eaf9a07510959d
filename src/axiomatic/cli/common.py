"""Shared CLI helpers: consoles, friendly errors, close-match suggestions."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


def suggest(name: str, choices: Iterable[str], n: int = 3) -> str:
    """' Did you mean: a, b?' or '' when nothing is close."""
    close = difflib.get_close_matches(name, list(choices), n=n, cutoff=0.5)
    return f" Did you mean: {', '.join(close)}?" if close else ""


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` as an error and return the Exit to raise."""
    err_console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)

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


ANALYZER_HELP = (
    "Text analysis: 'thesis' (Rennings 2019 sec. 3.4.1: Snowball stemming, no stopword removal, "
    "alphanumeric tokens), 'default' (stopwords removed + Snowball), or key=value settings such "
    "as 'stopwords=false,stemmer=porter' or 'thesis,stemmer=none'."
)


def analyzer_or_exit(spec: str | None, language: str | None = None, option: str = "--analyzer"):
    """The :class:`~axiomatic.text.analyzer.Analyzer` of ``spec``, or a clear CLI error."""
    from axiomatic.text.analyzer import AnalyzerSpecError, parse_analyzer

    try:
        return parse_analyzer(spec, language=language)
    except AnalyzerSpecError as exc:
        raise fail(f"bad {option} {spec!r}: {exc}") from None


def dataset_language(ds) -> str:
    """The language a dataset's documents are analyzed in (documents first, then queries)."""
    return getattr(ds, "doc_language", None) or getattr(ds, "language", None) or "en"

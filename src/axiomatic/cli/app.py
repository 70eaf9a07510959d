"""The typer application object shared by every command module (no commands are defined here).

It also holds the CLI's one top-level error handler (:class:`AxiomaticGroup`): whatever a
command raises ends as a short message, never a traceback, unless ``--debug`` (or
``AXIOMATIC_DEBUG=1``) asks for one.

* the project's errors (:class:`~axiomatic.data.errors.DataError`, the ``ValueError`` /
  ``KeyError`` our validation raises, any ``OSError`` such as a missing file or an unreachable
  scheduler, undecodable text) are bad input: one red line and exit code 2;
* anything else is a bug: a red line naming the exception, "this is a bug, please report it",
  exit code 1, and the traceback with ``--debug``;
* typer/click usage errors (``--depth -1``, unknown options) keep click's own handling;
* a pipe whose reader stopped (``... -o - | head``) ends the command quietly with 141.
"""

from __future__ import annotations

import os
import traceback
from typing import Any

import typer
from typer.core import TyperGroup

EXIT_INPUT = 2
EXIT_BUG = 1
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a C tool whose reader went away reports (``set -o pipefail`` sees it)."""


def _silence_stdout() -> None:
    """Point standard output at the null device, so that flushing it at exit raises nothing."""
    import sys

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # a captured stdout (tests)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _debug_from_env() -> bool:
    return os.environ.get("AXIOMATIC_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


def report_exception(exc: BaseException, debug: bool) -> int:
    """Print ``exc`` for a user and return the exit code (see the module docstring)."""
    from rich.markup import escape

    from axiomatic.cli.common import (
        describe_error,
        err_console,
        is_ours,
        is_user_error,
        shorten_echoes,
    )

    if debug:
        err_console.print(
            "".join(traceback.format_exception(exc)), markup=False, highlight=False, end=""
        )
    if is_user_error(exc):
        err_console.print(
            f"[bold red]error:[/] {escape(shorten_echoes(describe_error(exc)))}",
            highlight=False,
            soft_wrap=True,
        )
        if not debug and not is_ours(exc):
            err_console.print("(run with --debug for the traceback)", style="dim")
        return EXIT_INPUT
    err_console.print(
        f"[bold red]internal error:[/] {escape(type(exc).__name__)}: "
        f"{escape(shorten_echoes(str(exc)))}",
        highlight=False,
        soft_wrap=True,
    )
    err_console.print(
        "This is a bug, please report it to the axiomatic maintainers with the command line"
        + (" and this traceback." if debug else "; run again with --debug for the traceback."),
        highlight=False,
    )
    return EXIT_BUG


def _is_cli_control(exc: BaseException) -> bool:
    """typer/click's own exceptions (exit, abort, usage errors such as a ``min=`` violation):
    they keep click's handling. Matched by class name because typer 0.12 raises click's classes
    and newer typer its vendored copies."""
    for cls in type(exc).__mro__:
        if cls.__name__ in ("Exit", "Abort", "ClickException") and cls.__module__.split(".")[0] in (
            "typer",
            "click",
        ):
            return True
    return False


def _show_warning(
    message: Any, category: Any, filename: str, lineno: int, *a: Any, **k: Any
) -> None:
    from axiomatic.cli.common import warn

    warn(str(message))


def _hide_flag_types() -> None:
    """Help shows no value type for a flag: ``--version`` takes no value, yet typer >= 0.20
    prints ``--version <bool>`` as if it took one (``--json <bool>``, ``--help <bool>``).
    Options that take a value keep their ``<str>`` / ``<int range>`` column."""
    from typer import core

    option: Any = getattr(core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if option is None or shown is None or getattr(shown, "_axiomatic_flags", False):
        return  # an older typer: it prints no type for flags

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) and self.metavar is None:
            return None
        return shown(self, ctx)

    display_type_rich._axiomatic_flags = True  # type: ignore[attr-defined]
    option.display_type_rich = display_type_rich


_hide_flag_types()


class AxiomaticGroup(TyperGroup):
    """The command group: turns exceptions of every command into messages (module docstring)."""

    def invoke(self, ctx: Any) -> Any:
        import warnings

        try:
            with warnings.catch_warnings():
                # library warnings (a run matching no query, skipped lines, ...) reach the user
                # as one "warning:" line each, not as "file.py:123: UserWarning" noise
                warnings.showwarning = _show_warning
                return super().invoke(ctx)
        except BrokenPipeError:
            # the reader of a pipe stopped early (`axiomatic rank ... -o - | head`): end quietly,
            # as a Unix tool does, without a message or Python's own complaint at exit
            _silence_stdout()
            raise typer.Exit(EXIT_BROKEN_PIPE) from None
        except Exception as exc:
            if _is_cli_control(exc):
                raise
            debug = bool(ctx.params.get("debug")) or _debug_from_env()
            raise typer.Exit(report_exception(exc, debug)) from None


app = typer.Typer(
    name="axiomatic",
    help=(
        "Axiomatic neural IR: diagnose rankers with IR axioms, train and pre-train rankers "
        "with them. Start with `axiomatic demo`, then `axiomatic datasets`."
    ),
    cls=AxiomaticGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


def _print_version(value: bool) -> None:
    if value:
        from axiomatic import __version__

        typer.echo(f"axiomatic {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
    debug: bool = typer.Option(
        False,
        "--debug",
        envvar="AXIOMATIC_DEBUG",
        help="Show the full traceback of an error (also AXIOMATIC_DEBUG=1).",
    ),
) -> None:
    """Axiomatic neural IR: diagnose rankers with IR axioms, train and pre-train rankers with
    them. Start with `axiomatic demo`, then `axiomatic datasets`."""

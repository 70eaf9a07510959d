"""Shared CLI helpers: consoles, friendly errors (close-match suggestions: ``axiomatic._suggest``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape

from axiomatic._report import markdown_table
from axiomatic._suggest import suggest

PIPE_WIDTH = 10_000
"""Line width when output is not a terminal: wide enough that nothing wraps."""


class PipeAwareConsole(Console):
    """A rich console that does not wrap when its output is not a terminal.

    Rich wraps at 80 columns when it cannot ask a terminal for its width, so
    ``axiomatic counts ... > counts.md`` wrote Markdown rows broken over several lines. Piped or
    redirected, lines are as long as their content (tables at their natural width), so that a
    file or a ``grep`` sees whole rows; ``COLUMNS`` still sets a width explicitly.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fixed_width: int | None = kwargs.get("width")

    @property
    def size(self) -> ConsoleDimensions:
        dims = super().size
        if (
            self.fixed_width is None
            and not self.is_terminal
            and not os.environ.get("COLUMNS", "").strip().isdigit()
        ):
            return ConsoleDimensions(PIPE_WIDTH, dims.height)
        return dims

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]
        self.fixed_width = new_size[0]

    def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Tables print as Markdown when the output is not a terminal (a file, a pipe), so
        that ``axiomatic diagnose ... > out.md`` is a document and not box-drawing art."""
        from rich.table import Table

        if not self.is_terminal and objects and any(isinstance(o, Table) for o in objects):
            objects = tuple(table_markdown(o) if isinstance(o, Table) else o for o in objects)
            if all(isinstance(o, str) for o in objects):
                kwargs.setdefault("markup", False)
                kwargs.setdefault("highlight", False)
            kwargs.setdefault("soft_wrap", True)
        super().print(*objects, **kwargs)


def _plain(value: Any) -> str:
    """The text of a table title, header or cell (rich markup and styles removed)."""
    from rich.text import Text

    if value is None:
        return ""
    if isinstance(value, Text):
        text = value.plain
    elif isinstance(value, str):
        text = Text.from_markup(value).plain
    else:
        text = str(value)
    return " ".join(text.split())


def table_markdown(table: Any) -> str:
    """A rich ``Table`` as a GitHub-flavoured Markdown table (title in bold above, caption
    below); right-justified columns stay right-aligned."""
    columns = list(table.columns)
    lines = []
    title = _plain(table.title)
    if title:
        lines += [f"**{title}**", ""]
    rows = zip(*([_plain(v) for v in c.cells] for c in columns), strict=True)
    lines.append(
        markdown_table(
            rows,
            [_plain(c.header) for c in columns],
            align=["right" if c.justify == "right" else "" for c in columns],
        )
    )
    caption = _plain(table.caption)
    if caption:
        lines += ["", caption]
    return "\n".join(lines) + "\n"


console = PipeAwareConsole()
err_console = PipeAwareConsole(stderr=True)


def stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (tables) rather than a file or pipe (plain text)."""
    return bool(console.is_terminal)


ECHO_LIMIT = 200
"""The most characters of one echoed value (a quoted option value, a spec, a long token) in an
error or warning line; longer ones keep their start and end around an ellipsis."""
_CLOSERS = " \t\n:;,.)]}"


def _clip_echo(text: str, limit: int) -> str:
    tail = limit // 4
    return f"{text[: limit - tail - 1]}\u2026{text[-tail:]}"


def shorten_echoes(message: str, limit: int = ECHO_LIMIT) -> str:
    """``message`` with every echoed value longer than ``limit`` characters shortened: quoted
    spans (``'...'`` / ``"..."``, closed by a quote before a space or punctuation) and runs
    without whitespace. The one place every CLI error and warning line passes through, so a
    140,000-character expression is never printed back whole."""
    if len(message) <= limit:
        return message
    out: list[str] = []
    i, n = 0, len(message)
    while i < n:
        ch = message[i]
        if ch in "'\"" and (i == 0 or not message[i - 1].isalnum()):
            j = i + 1
            while True:  # the closing quote: the same quote before a space, punctuation, the end
                j = message.find(ch, j)
                if j < 0 or j + 1 == n or message[j + 1] in _CLOSERS:
                    break
                j += 1
            if j > 0 and j - i - 1 > limit:
                out.append(ch + _clip_echo(message[i + 1 : j], limit) + ch)
                i = j + 1
                continue
        out.append(ch)
        i += 1
    return re.sub(rf"\S{{{limit + 1},}}", lambda m: _clip_echo(m.group(), limit), "".join(out))


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` as an error and return the Exit to raise.

    The message is escaped: it usually quotes user input (a file line, a path, an option value),
    and text such as ``[/x]`` would otherwise be read as rich markup and raise ``MarkupError``;
    echoed values are shortened (:func:`shorten_echoes`).
    """
    err_console.print(
        f"[bold red]error:[/] {escape(shorten_echoes(str(message)))}",
        highlight=False,
        soft_wrap=True,
    )
    return typer.Exit(code)


def _raised_by_us(exc: BaseException) -> bool:
    """Whether the innermost frame of ``exc``'s traceback is in the axiomatic package."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    return f"{os.sep}axiomatic{os.sep}" in last.tb_frame.f_code.co_filename


def is_ours(exc: BaseException) -> bool:
    """Whether ``exc`` is one of the project's errors or was raised by its code."""
    return type(exc).__module__.startswith("axiomatic") or _raised_by_us(exc)


def is_user_error(exc: BaseException) -> bool:
    """Bad input rather than a bug: the project's own error classes, a ``ValueError`` /
    ``KeyError`` / ``ImportError`` raised by our code (validation), an ``OSError`` (files,
    network) or undecodable input (``UnicodeError``, ``json.JSONDecodeError``) from anywhere.
    A ``ValueError`` deep inside pandas or numpy is a bug of ours, not the user's."""
    import json

    if type(exc).__module__.startswith("axiomatic"):  # DataError, RankerSpecError, ...
        return True
    if isinstance(exc, (OSError, UnicodeError, json.JSONDecodeError)):
        return True
    return isinstance(exc, (ValueError, KeyError, ImportError)) and _raised_by_us(exc)


def describe_error(exc: BaseException) -> str:
    """A one-line text for a user-facing error: the message itself, with the file name of an
    ``OSError`` and the exception type when the error did not come from our own validation."""
    if isinstance(exc, OSError) and not exc.args[1:] and exc.args and isinstance(exc.args[0], str):
        text = exc.args[0]  # our own FileNotFoundError("... does not exist; ...")
    elif isinstance(exc, OSError) and exc.strerror:
        target = exc.filename2 if exc.filename2 is not None else exc.filename
        text = f"{exc.strerror}: {target}" if target is not None else exc.strerror
    elif isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str):
        text = exc.args[0]  # str(KeyError) would quote the message
    else:
        text = str(exc) or type(exc).__name__
    text = " ".join(text.split()) if "\n" not in text.strip() else text.strip()
    if not is_ours(exc) and not text.startswith(type(exc).__name__):
        text = f"{type(exc).__name__}: {text}"
    return text


# Library messages name API arguments; the CLI user needs the flags.
API_TO_CLI = (
    ("pass skip_malformed=True (CLI: --skip-malformed)", "pass --skip-malformed"),
    ("pass skip_malformed=True", "pass --skip-malformed"),
    (
        "Use missing='min' to rank absent documents below the run's lowest score for the query "
        "(registry spec: run:PATH,missing=min).",
        "Pass the run as --ranker run:FILE,missing=min to rank absent documents below the "
        "run's lowest score for the query.",
    ),
    ("(registry spec: run:PATH,missing=min)", "(--ranker run:FILE,missing=min)"),
    (
        "pass artificial_docs from axiomatic.read_instances",
        "the instances folder lacks its artificial documents (_artificial_docs.parquet); "
        "mine again with `axiomatic mine ... --overwrite`",
    ),
    (
        "with missing='min' (spec run:PATH,missing=min)",
        "by passing the run as --ranker run:FILE,missing=min (or --base run:FILE,missing=min)",
    ),
    ("or pass oracle=False", "or pass --no-oracle"),
    ("pass overwrite=True", "pass --overwrite"),
    ("(overwrite=True)", "(`axiomatic mine ... --overwrite`)"),
    ("use a new output directory", "use a new --out folder"),
    ("Use a new output directory", "Use a new --out folder"),
    ("pass allow_partial=True", "pass --allow-partial"),
)
"""(library wording, command wording) pairs :func:`cli_wording` replaces."""


def cli_wording(message: str, *extra: tuple[str, str]) -> str:
    """A library message in the command's words (:data:`API_TO_CLI`, then ``extra``)."""
    for api, cli in (*API_TO_CLI, *extra):
        message = message.replace(api, cli)
    return message


@contextmanager
def library_errors(*extra: tuple[str, str]) -> Iterator[None]:
    """Run a library call: its bad-input errors (``ValueError``, ``KeyError``, a missing file,
    ...; :func:`is_user_error`) end the command as one ``error:`` line in the
    command's words (:func:`cli_wording`); every data warning (skipped lines) is shown."""
    import warnings

    from axiomatic.data.errors import DataWarning

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", DataWarning)
            yield
    except typer.Exit:
        raise
    except Exception as exc:
        if not (is_user_error(exc) and is_ours(exc)):
            raise  # the command group reports it, with its --debug hint
        raise fail(cli_wording(describe_error(exc), *extra)) from None


def warn(message: str) -> None:
    """Print ``message`` (user text, escaped, echoes shortened) as a warning on stderr."""
    err_console.print(
        f"[yellow]warning:[/] {escape(shorten_echoes(str(message)))}",
        highlight=False,
        soft_wrap=True,
    )


def check_output_file(path: Path, option: str = "--out") -> None:
    """Fail before any work when ``path`` cannot be written as a file (a folder, or a parent that
    is a file, a socket or block device, a symbolic link loop), instead of an error after all the
    ranking work. ``-`` (standard output), a FIFO and a character device are fine: a run is
    written straight into them. A symbolic link is fine: the write goes through it to the file it points to
    (:func:`axiomatic._atomic.resolve_target`)."""
    from axiomatic._atomic import NotARegularFileError, is_stream_target, resolve_target

    if is_stream_target(path):  # '-', /dev/stdout, a named pipe: written straight into
        return
    if path.is_dir():
        raise fail(f"{option} {path} is a folder; expected a file name, e.g. {path / 'run.trec'}")
    try:
        resolve_target(path)
    except NotARegularFileError as exc:
        raise fail(f"{option} {exc}") from None
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise fail(f"{option} {path}: {parent} is a file, not a folder")
            break


TABLE_FORMATS = ("table", "csv", "json")
FORMAT_HELP = (
    "Output of the printed tables: table (a table on a terminal, Markdown when piped), csv or "
    "json (data on standard output; notes go to standard error)."
)


def check_format(value: str | None, default: str = "table", choices=TABLE_FORMATS) -> str:
    """``--format`` (the same option on every command that prints tables), checked before any
    work; ``None`` is ``default``."""
    fmt = default if value is None else value.strip().lower()
    if fmt not in choices:
        raise fail(
            f"unknown --format {value!r}{suggest(fmt, choices)}; expected one of {', '.join(choices)}"
        )
    return fmt


TESTS = ("t", "wilcoxon")
TEST_HELP = (
    "Paired test of each measure against the baseline: t or wilcoxon; Holm-corrected over the "
    "runs compared with the baseline on each measure (adding measures never changes a p-value)."
)


def check_test(test: str) -> Any:
    """``--test`` (evaluate, diagnose): the paired test against the baseline."""
    if test not in TESTS:
        raise fail(f"--test must be 't' or 'wilcoxon' (got {test!r}){suggest(test, TESTS)}")
    return test


def format_from_json_flag(value: str | None, as_json: bool) -> str | None:
    """``--json``, the older spelling of ``--format json`` (a hidden, deprecated alias: it
    says so on standard error)."""
    if not as_json:
        return value
    if value is not None and value.strip().lower() != "json":
        raise fail(f"--json and --format {value} disagree; give --format {value} alone")
    warn("--json is deprecated: use --format json (the option every table command takes)")
    return "json"


def parameter_text(p: dict[str, str]) -> str:
    """One parameter record (a row of :func:`axiomatic._params.param_dicts`) as a line of a
    listing: ``margin (float, default 0.1, >= 0): relative tolerance ...``."""
    facts = [p["type"]] + (["default " + p["default"]] if p["default"] != "None" else [])
    facts += [p["range"]] if p["range"] else []
    return f"{p['name']} ({', '.join(facts)})" + (
        f": {p['description']}" if p["description"] else ""
    )


def print_records(rows: list[dict[str, Any]], fmt: str, document: Any = None) -> None:
    """Rows as ``--format csv`` (one column per key, in first-seen order; lists and mappings
    as JSON text) or ``json`` (``document`` when given, else the rows) on standard output."""
    import csv
    import json
    import sys

    if fmt == "json":
        sys.stdout.write(json.dumps(rows if document is None else document, indent=2, default=str))
        sys.stdout.write("\n")
        return
    fields = list(dict.fromkeys(k for row in rows for k in row))
    writer = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                k: json.dumps(v, default=str) if isinstance(v, (list, dict)) else v
                for k, v in row.items()
            }
        )


JsonAliasOpt = Annotated[
    bool, typer.Option("--json", hidden=True, help="Same as --format json (older spelling).")
]


def report_console(out: Path | None) -> PipeAwareConsole:
    """Where a command that writes ``out`` prints its tables and notes: standard error when
    ``out`` is standard output (``-o -``, ``-o /dev/stdout``), so that the run stays clean for
    the next command of a pipe; else standard output."""
    from axiomatic._atomic import is_stdout

    return err_console if out is not None and is_stdout(out) else console


def check_output_dir(path: Path, option: str = "--out") -> None:
    """Fail before any work when ``path`` (an output folder) is an existing file, or lies under
    one, or is a symbolic link that leads nowhere (a loop, a missing target): ``FileExistsError``
    / ``NotADirectoryError`` otherwise, after the work."""
    for p in (path, *path.parents):
        if p.is_symlink() and not p.exists():
            import errno
            import os

            try:
                os.stat(p)
                what = "a symbolic link that cannot be followed"
            except OSError as exc:
                what = (
                    "a symbolic link loop (it points back to itself)"
                    if exc.errno == errno.ELOOP
                    else f"a symbolic link to {os.readlink(p)}, which does not exist"
                )
            where = "" if p == path else f" (under {p}, which is {what})"
            what = f"is {what}" if p == path else "lies under a broken link"
            raise fail(
                f"{option} {path} {what}{where}; remove or fix the link, or choose another folder"
            )
        if p.exists():
            if not p.is_dir():
                what = "is a file" if p == path else f"lies under {p}, which is a file"
                raise fail(f"{option} {path} {what}; expected a folder (new or existing)")
            break


ANALYZER_HELP = (
    "Text analysis: 'default' (stopwords removed + Snowball; the default of every command), "
    "'thesis' (Rennings 2019 sec. 3.4.1: Snowball stemming, no stopword removal, alphanumeric "
    "tokens; to reproduce the thesis), or key=value settings such as "
    "'stopwords=false,stemmer=porter' or 'thesis,stemmer=none'."
)
DEFAULT_ANALYZER = "default"
"""The analyzer every command uses unless ``--analyzer`` says otherwise: one spec, one ranker
(``-r bm25`` in ``rank`` is the same BM25 as in ``diagnose``; instances mined by ``mine`` are
analyzed as the rankers analyze text)."""


def analyzer_label(analyzer: Any) -> str:
    """A short name of an analyzer for a table header: its preset (``default``, ``thesis``),
    else its full spec."""
    return str(analyzer.preset or analyzer.spec)


def warn_analyzer_mismatch(
    analyzer: Any,
    instances_spec: str | None,
    ds: Any,
    what: str,
    option: str = "--instances",
) -> bool:
    """Warn (and return True) when ``analyzer`` (the rankers' or counts' text processing)
    differs from the one the mined instances were analyzed with: the instances then describe
    other terms than the rankers see (a stopword-driven instance, a tie of two documents both
    scored 0), so fulfilment is not comparable. ``None`` (an old manifest) is the default."""
    from axiomatic.diagnose.folder import dataset_language

    mined = analyzer_or_exit(instances_spec or DEFAULT_ANALYZER, dataset_language(ds), option)
    if mined == analyzer:
        return False
    warn(
        f"{what} analyzes text with '{analyzer_label(analyzer)}' but the instances ({option}) "
        f"were mined with '{analyzer_label(mined)}': they see different terms, so fulfilment is not "
        f"comparable. Pass --analyzer {analyzer_label(mined)!r} to use the instances' text "
        "processing, or mine them again with this one"
    )
    return True


def analyzer_or_exit(spec: str | None, language: str | None = None, option: str = "--analyzer"):
    """The :class:`~axiomatic.text.analyzer.Analyzer` of ``spec``, or a clear CLI error."""
    from axiomatic.text.analyzer import AnalyzerSpecError, parse_analyzer

    try:
        return parse_analyzer(spec, language=language)
    except AnalyzerSpecError as exc:
        raise fail(f"bad {option} {spec!r}: {exc}") from None


def analyzer_for(spec: str | None, ds: Any) -> Any:
    """The analyzer of ``--analyzer`` in ``ds``'s language, or a clear CLI error."""
    from axiomatic.diagnose.folder import dataset_language

    return analyzer_or_exit(spec, dataset_language(ds))


BAND_HELP = (
    "Calibrated effects (ABNIRML's no-difference band), per ranker on its scores of the "
    "diagnosed queries' candidates: 'top-gap' (alias 'auto') = the median over queries of the "
    "gap between its top two candidates; 'abnirml' = ABNIRML's median of the gaps between "
    "adjacent documents of its top 10, pooled over queries; or a number (the same band for "
    "every ranker)."
)
BAND_TEST_HELP = (
    "Test of the effect: 'sign' = two-sided sign test of pos against neg; 't' = ABNIRML's "
    "one-sample t-test of the score margins against 0."
)


def band_option(band: str) -> str | float:
    """``--band`` checked: a calibration name or a number >= 0 (one clear error otherwise)."""
    from axiomatic.diagnose.effects import resolve_band

    try:
        value = resolve_band(band)
    except ValueError:
        raise fail(
            f"--band must be 'top-gap' (or 'auto'), 'abnirml' or a finite number >= 0 (got "
            f"{band!r}){suggest(band, ['auto', 'top-gap', 'abnirml'])}; e.g. --band top-gap "
            "calibrates it per ranker, --band 0.5 uses 0.5 for every ranker"
        ) from None
    assert isinstance(value, (str, float))
    return value


def band_test_option(test: str) -> str:
    """``--band-test`` checked: ``sign`` or ``t``."""
    from axiomatic.diagnose.effects import BAND_TESTS

    if test not in BAND_TESTS:
        raise fail(
            f"--band-test must be 'sign' or 't' (got {test!r}){suggest(test, BAND_TESTS)}; "
            "'sign' tests pos against neg, 't' is ABNIRML's t-test of the score margins"
        )
    return test

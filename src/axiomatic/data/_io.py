"""Small I/O helpers shared by the readers: strict decoding, gzip, atomic writes."""

from __future__ import annotations

import gzip
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from axiomatic._atomic import atomic_write_text  # noqa: F401  (re-exported for the readers)
from axiomatic.data.errors import ParseError


class ParsedDict(dict):  # type: ignore[type-arg]
    """A ``dict`` returned by a reader, with how many malformed lines were skipped.

    It *is* the plain nested dict (qrels / run / topics) so it flows into ir_measures unchanged;
    ``skipped`` is 0 unless the reader ran with ``skip_malformed=True`` and ``skipped_lines``
    lists the 1-based line numbers that were dropped.
    """

    skipped: int
    skipped_lines: list[int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.skipped = 0
        self.skipped_lines = []


def read_bytes(path: str | Path) -> bytes:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: no such file; check the path (or the data root: --data-root / $AXIOMATIC_DATA)"
        )
    if path.suffix == ".gz":
        with gzip.open(path, "rb") as fh:
            return fh.read()
    return path.read_bytes()


def decode(data: bytes, path: str | Path, encoding: str = "utf-8") -> str:
    """Decode ``data`` strictly; a bad byte raises :class:`ParseError` naming file, line, offset."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(
            f"byte 0x{data[exc.start]:02x} at byte offset {exc.start} is not valid {encoding}",
            path,
            line,
            expected=f"{encoding}-encoded text",
            hint="Re-encode the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`) or pass the "
            "right encoding",
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    return decode(read_bytes(path), path, encoding)


def iter_lines(path: str | Path, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """``(line_number, line)`` pairs (1-based, line endings ``\\n``/``\\r\\n`` removed)."""
    for i, line in enumerate(read_text(path, encoding).split("\n"), start=1):
        yield i, line.rstrip("\r")


def report_skipped(result: ParsedDict, path: str | Path, what: str) -> None:
    if result.skipped:
        first = ", ".join(str(n) for n in result.skipped_lines[:5])
        warnings.warn(
            f"{path}: skipped {result.skipped} malformed {what} line(s) (first at line(s) {first})",
            stacklevel=3,
        )

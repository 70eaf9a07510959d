"""Small I/O helpers shared by the readers: strict decoding, gzip, strict numbers, warnings.

Every reader goes through :func:`read_bytes` / :func:`read_text` / :func:`iter_lines`, so a
truncated or fake ``.gz`` file and a bad byte become a :class:`~axiomatic.data.errors.ParseError`
naming the file in one place. ``.gz`` input is inflated in chunks and refused with a
``ParseError`` once it exceeds :func:`max_decompressed` bytes (``$AXIOMATIC_MAX_DECOMPRESSED``,
default 2 GiB: a gzip bomb of a few megabytes must not exhaust memory), and line readers stream
(:func:`iter_lines` holds one chunk of lines, never the whole text). The number parsers are stricter than ``int()`` / ``float()``, which accept ``inf``,
``nan``, ``1_0`` and non-ASCII digits (``'１'``): such values in a run or qrels file are a
corrupt file far more often than an intended score.
"""

from __future__ import annotations

import codecs
import gzip
import json
import math
import os
import warnings
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from axiomatic.data.errors import DataWarning, ParseError

GRADE_LIMIT = 2**31
"""Relevance grades must satisfy ``abs(grade) < GRADE_LIMIT`` (pytrec_eval stores a C int)."""

RANK_LIMIT = 2**63


class ParsedDict(dict):  # type: ignore[type-arg]
    """A ``dict`` returned by a reader, with how many malformed lines were skipped.

    It *is* the plain nested dict (qrels / run / topics) so it flows into ir_measures unchanged;
    ``skipped`` is 0 unless the reader ran with ``skip_malformed=True`` and ``skipped_lines``
    lists the 1-based line numbers that were dropped; ``duplicates`` counts lines that repeated
    an earlier one exactly (kept once; a repeat with another value is an error).
    """

    skipped: int
    skipped_lines: list[int]
    duplicates: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.skipped = 0
        self.skipped_lines = []
        self.duplicates = 0


MAX_DECOMPRESSED_ENV = "AXIOMATIC_MAX_DECOMPRESSED"
DEFAULT_MAX_DECOMPRESSED = 2 * 1024**3
"""Default cap on the decompressed size of one ``.gz`` input (2 GiB)."""

_CHUNK = 1 << 20  # bytes inflated / read per step
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
# ASCII-compatible encodings: a b"\n" byte is always a line end, so chunks cut after one decode
# independently (utf-16/32 are not; they are decoded whole)
_STREAMABLE = {"utf-8", "ascii", "iso8859-1", "cp1252"}


def max_decompressed() -> int:
    """The most bytes one ``.gz`` input may inflate to: ``$AXIOMATIC_MAX_DECOMPRESSED`` (bytes,
    or with a K/M/G/T suffix such as ``8G``), else :data:`DEFAULT_MAX_DECOMPRESSED`."""
    raw = os.environ.get(MAX_DECOMPRESSED_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_DECOMPRESSED
    text = raw.lower().removesuffix("ib").removesuffix("b")
    unit = text[-1:] if text[-1:] in _SIZE_UNITS and not text[-1:].isdigit() else ""
    digits = text[: len(text) - len(unit)].strip()
    if not (digits.isascii() and digits.isdigit()) or int(digits) < 1:
        raise ValueError(
            f"{MAX_DECOMPRESSED_ENV}={raw!r} is not a size; expected a positive number of bytes, "
            "optionally with a K/M/G/T suffix (e.g. 4294967296 or 4G)"
        )
    return int(digits) * _SIZE_UNITS[unit]


def _size(n: int) -> str:
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= factor:
            return f"{n / factor:g} {unit}"
    return f"{n} bytes"


def _check_file(path: Path) -> None:
    if not path.is_file():
        if path.is_symlink():  # is_file() is False for a dangling link and for a link loop
            raise FileNotFoundError(
                f"{path}: a symbolic link to no readable file (its target is missing, or it "
                "points back to itself: a link loop); point it at the real file"
            )
        raise FileNotFoundError(
            f"{path}: no such file; check the path (or the data root: --data-root / $AXIOMATIC_DATA)"
        )


def _gzip_error(path: Path, exc: BaseException) -> ParseError:
    """The :class:`ParseError` for an exception met while inflating ``path``."""
    if isinstance(exc, EOFError):
        problem = "the gzip stream is truncated (the file ends before the compressed data)"
    elif isinstance(exc, gzip.BadGzipFile):
        problem = f"not a gzip file ({exc})"
    elif isinstance(exc, zlib.error):
        problem = f"corrupt gzip data ({exc})"
    else:  # older gzip versions raise a bare OSError for a bad header
        problem = f"unreadable gzip file ({exc})"
    return ParseError(
        problem,
        path,
        None,
        expected="a complete gzip file",
        hint="Re-download or re-compress the file, or drop the .gz suffix if it is plain text",
    )


def _chunks(path: Path) -> Iterator[bytes]:
    """The file's bytes in chunks, inflated when the name ends in ``.gz`` (at most
    :func:`max_decompressed` bytes; more is a :class:`ParseError`)."""
    _check_file(path)
    if path.suffix != ".gz":
        with open(path, "rb") as raw:
            while chunk := raw.read(_CHUNK):
                yield chunk
        return
    limit = max_decompressed()
    total = 0
    with gzip.open(path, "rb") as fh:  # the header is read (and checked) by the first read
        while True:
            try:
                chunk = fh.read(_CHUNK)
            except (EOFError, zlib.error, OSError) as exc:
                if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
                    raise
                raise _gzip_error(path, exc) from None
            if not chunk:
                return
            total += len(chunk)
            if total > limit:
                raise ParseError(
                    f"decompresses to more than {_size(limit)}, the limit for one .gz input "
                    "(a gzip bomb, or a much larger file than expected)",
                    path,
                    None,
                    hint=f"If the file is genuine, raise the limit with {MAX_DECOMPRESSED_ENV}"
                    "=SIZE (e.g. 8G) or decompress it and pass the plain file",
                )
            yield chunk


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, decompressed when the name ends in ``.gz``.

    A truncated gzip stream, a plain file named ``.gz`` or a corrupt one raise :class:`ParseError`
    naming the file (never ``EOFError`` / ``BadGzipFile`` / ``zlib.error``), and so does a
    ``.gz`` file that inflates to more than :func:`max_decompressed` bytes.
    """
    path = Path(path)
    if path.suffix != ".gz":
        _check_file(path)
        return path.read_bytes()
    return b"".join(_chunks(path))


def read_head(path: str | Path, n: int = 4096) -> bytes:
    """At most the first ``n`` bytes of the (decompressed) file: for format sniffing without
    reading, or inflating, the whole file."""
    out: list[bytes] = []
    got = 0
    for chunk in _chunks(Path(path)):
        out.append(chunk)
        got += len(chunk)
        if got >= n:
            break
    return b"".join(out)[:n]


def decode(
    data: bytes, path: str | Path, encoding: str = "utf-8", *, line: int = 0, offset: int = 0
) -> str:
    """Decode ``data`` strictly; a bad byte raises :class:`ParseError` naming file, line, offset.

    ``line`` / ``offset``: how many lines and bytes of the file come before ``data`` (for a
    chunk of a streamed file); a byte-order mark is dropped only at the start of the file.
    """
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        where = line + data.count(b"\n", 0, exc.start) + 1
        raise ParseError(
            f"byte 0x{data[exc.start]:02x} at byte offset {offset + exc.start} is not valid "
            f"{encoding}",
            path,
            where,
            expected=f"{encoding}-encoded text",
            hint="Re-encode the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`) or pass the "
            "right encoding",
        ) from None
    if offset == 0 and text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    return decode(read_bytes(path), path, encoding)


def iter_lines(path: str | Path, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """``(line_number, line)`` pairs (1-based, line endings ``\\n``/``\\r\\n`` removed).

    Streams: the file (inflated chunk by chunk when ``.gz``) is decoded and split one chunk of
    lines at a time, so memory stays at a chunk however long the file (or a gzip bomb of empty
    lines) is. Lines are exactly ``text.split("\\n")`` of the whole text (a file ending in a
    newline ends with an empty line).
    """
    path = Path(path)
    try:
        streamable = codecs.lookup(encoding).name in _STREAMABLE
    except LookupError:
        streamable = False
    if not streamable:
        for i, line in enumerate(read_text(path, encoding).split("\n"), start=1):
            yield i, line.rstrip("\r")
        return
    lineno = 0
    offset = 0  # bytes of the file before `parts`
    parts: list[bytes] = []
    for chunk in _chunks(path):
        cut = chunk.rfind(b"\n")
        if cut < 0:
            parts.append(chunk)  # a line longer than a chunk: joined once its end comes
            continue
        parts.append(chunk[:cut])
        block = b"".join(parts)
        parts = [chunk[cut + 1 :]]
        text = decode(block, path, encoding, line=lineno, offset=offset)
        offset += len(block) + 1
        for line in text.split("\n"):
            lineno += 1
            yield lineno, line.rstrip("\r")
    tail = decode(b"".join(parts), path, encoding, line=lineno, offset=offset)
    yield lineno + 1, tail.rstrip("\r")


def report_skipped(result: ParsedDict, path: str | Path, what: str) -> None:
    """Warn (:class:`DataWarning`) about skipped malformed lines and identical duplicates."""
    if result.skipped:
        first = ", ".join(str(n) for n in result.skipped_lines[:5])
        warnings.warn(
            f"{path}: skipped {result.skipped} malformed {what} line(s) (first at line(s) {first})",
            DataWarning,
            stacklevel=3,
        )
    if result.duplicates:
        warnings.warn(
            f"{path}: {result.duplicates} duplicate {what} line(s) repeat an earlier line exactly "
            "and were ignored",
            DataWarning,
            stacklevel=3,
        )


def require_nonempty(n_records: int, path: str | Path, what: str, expected: str) -> None:
    """Raise :class:`ParseError` when a file yielded no records: an empty run, qrels, topics or
    collection file is a broken download or a wrong path, never a useful input."""
    if n_records == 0:
        raise ParseError(
            f"no {what} lines: the file is empty or holds only blank or skipped lines",
            path,
            None,
            expected,
            hint="Check the path and that the file was written completely",
        )


# ----------------------------------------------------------------------------- strict numbers
def parse_int(text: str, what: str, limit: int = RANK_LIMIT) -> int:
    """``text`` as an integer written with ASCII digits and an optional sign, ``|n| < limit``.

    Raises ``ValueError`` with a message naming ``what`` and the value (readers wrap it into a
    :class:`ParseError` with ``file:line``).
    """
    if text.isascii() and "_" not in text:
        try:
            n = int(text)
        except ValueError:
            pass
        else:
            if -limit < n < limit:
                return n
            raise ValueError(f"{what} {text!r} is out of range (|{what}| must be < {_pow2(limit)})")
    raise ValueError(f"{what} {text!r} is not an integer (ASCII digits with an optional sign)")


def parse_float(text: str, what: str) -> float:
    """``text`` as a finite float written in ASCII (no ``inf``/``nan``, no ``_``, no overflow)."""
    if text.isascii() and "_" not in text:
        try:
            value = float(text)
        except ValueError:
            pass
        else:
            if math.isfinite(value):
                return value
    raise ValueError(
        f"{what} {text!r} is not a finite ASCII decimal number (such as 12.5 or -3e2; "
        "inf, nan, overflowing values like 1e400, '_' and non-ASCII digits are refused)"
    )


def parse_grade(value: object, what: str = "relevance") -> int:
    """A relevance grade: an integer (``3``, or integral float text such as ``3.0``) with
    ``|grade| < 2**31``; JSON ints and integral floats are accepted, booleans, ``None`` and
    fractional values are not."""
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
    elif isinstance(value, float):
        text = repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise ValueError(f"{what} {value!r} is not an integer grade")
    try:
        return parse_int(text, what, GRADE_LIMIT)
    except ValueError as exc:
        if "out of range" in str(exc):
            raise
    try:
        f = parse_float(text, what)
    except ValueError:
        raise ValueError(
            f"{what} {text!r} is not an integer grade (expected an integer with |grade| < 2**31)"
        ) from None
    if not f.is_integer():
        raise ValueError(
            f"{what} {text!r} is not an integer grade (expected an integer with |grade| < 2**31)"
        )
    if not -GRADE_LIMIT < f < GRADE_LIMIT:
        raise ValueError(f"{what} {text!r} is out of range (|{what}| must be < 2**31)")
    return int(f)


def _pow2(limit: int) -> str:
    exp = limit.bit_length() - 1
    return f"2**{exp}" if limit == 2**exp else str(limit)


def json_number(value: object, what: str) -> float:
    """A finite number from a JSON value (int, float or numeric string; not a boolean)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            f = float(value)
        except OverflowError:  # a JSON integer such as 10**400
            raise ValueError(
                f"{what} {_digits(value)} is out of the range of a float (|{what}| must be "
                "< 1.8e308)"
            ) from None
        if math.isfinite(f):
            return f
        raise ValueError(f"{what} {value!r} is not a finite number")
    if isinstance(value, str):
        return parse_float(value.strip(), what)
    raise ValueError(f"{what} {value!r} is not a number")


def _digits(n: int | float) -> str:
    """A huge integer for a message: its first digits and how many there are."""
    text = str(n)
    return text if len(text) <= 24 else f"{text[:12]}...({len(text.lstrip('-'))} digits)"


def json_int(value: object, what: str) -> int:
    """An integer from a JSON value (an int, an integral float or an integer string)."""
    if isinstance(value, bool):
        raise ValueError(f"{what} {value!r} is not an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return parse_int(value.strip(), what)
    raise ValueError(f"{what} {value!r} is not an integer")


def json_id(value: object, what: str) -> str:
    """An id from a JSON value: a string or an integer, non-empty and without whitespace (ids
    end up in whitespace-separated TREC files)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"{what} {value!r} is not a string or integer id")
    text = str(value)
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"{what} {text!r} is empty or contains whitespace")
    return text


def json_str(value: object, what: str) -> str:
    """A text from a JSON value (strings; numbers are accepted and converted)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"{what} {value!r} is not a string")


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON (RFC 8259 has no NaN or Infinity)")


def loads_json(
    text: str, path: str | Path, line: int | None = None, expected: str | None = None
) -> Any:
    """``json.loads`` whose every failure is a :class:`ParseError` naming ``path`` (and ``line``
    for JSON-lines files): syntax errors, ``NaN``/``Infinity``, over-long integers, nesting so
    deep that the parser recurses out."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = exc.lineno if line is None else line + exc.lineno - 1
        raise ParseError(
            f"invalid JSON ({exc.msg} at column {exc.colno})", path, where, expected
        ) from None
    except (ValueError, RecursionError) as exc:
        raise ParseError(f"invalid JSON ({exc})", path, line, expected) from None


def read_json(path: str | Path, expected: str | None = None) -> Any:
    """Read and parse a JSON file (see :func:`loads_json`)."""
    return loads_json(read_text(path), path, None, expected)


def malformed(exc: BaseException) -> str:
    """A short description of an exception met while walking malformed structured data."""
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}" if exc.args else "missing key"
    if isinstance(exc, ValueError):
        return str(exc)
    return f"unexpected structure ({type(exc).__name__}: {exc})"


STRUCTURE_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError)
"""What walking a wrongly shaped JSON/CSV value can raise; readers map these to ParseError."""

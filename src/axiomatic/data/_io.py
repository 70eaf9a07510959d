"""Small I/O helpers shared by the readers: strict decoding, gzip, strict numbers, warnings.

Every reader goes through :func:`read_bytes` / :func:`read_text` / :func:`iter_lines`, so a
truncated or fake ``.gz`` file and a bad byte become a :class:`~axiomatic.data.errors.ParseError`
naming the file in one place. Hostile input costs what the file says, bounded by
:class:`InputLimits` (each refusal a ``ParseError`` naming the file, and the line where there
is one):

- memory: ``.gz`` input is inflated in chunks, at most :func:`max_decompressed` bytes
  (``$AXIOMATIC_MAX_DECOMPRESSED``, default 2 GiB); line readers stream (:func:`iter_lines`
  holds one chunk of lines, never the whole text) and refuse a line longer than
  ``$AXIOMATIC_MAX_LINE`` (default 32 MiB), so a file without line ends is not gathered whole;
- work: a ``.gz`` input may inflate to at most ``$AXIOMATIC_MAX_GZIP_RATIO`` (default 100)
  times its compressed size once past 16 MiB (real runs, qrels and collections compress 3-6:1;
  a gzip bomb about 1000:1), and a line reader refuses more than 1,000,000 blank lines (a bomb
  of line ends would otherwise cost a Python step per byte). The number parsers are stricter than ``int()`` / ``float()``, which accept ``inf``,
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
from dataclasses import dataclass
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

MAX_RATIO_ENV = "AXIOMATIC_MAX_GZIP_RATIO"
DEFAULT_MAX_RATIO = 100
"""Default bound on decompressed / compressed size of a ``.gz`` input past :data:`RATIO_FLOOR`."""
RATIO_FLOOR = 16 * 1024**2
"""Bytes any ``.gz`` input may inflate to whatever its ratio (small files compress well too)."""
MAX_LINE_ENV = "AXIOMATIC_MAX_LINE"
DEFAULT_MAX_LINE = 32 * 1024**2
"""Default bound on one line's length in bytes (line readers)."""
DEFAULT_MAX_BLANK_LINES = 1_000_000
"""Default bound on the blank (empty or whitespace-only) lines of one file (line readers)."""

_CHUNK = 1 << 20  # bytes inflated / read per step
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
# ASCII-compatible encodings: a b"\n" byte is always a line end, so chunks cut after one decode
# independently (utf-16/32 are not; they are decoded whole)
_STREAMABLE = {"utf-8", "ascii", "iso8859-1", "cp1252"}


def _env_size(name: str, default: int, example: str) -> int:
    """``$name`` as a size in bytes (a positive number with an optional K/M/G/T suffix)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    text = raw.lower().removesuffix("ib").removesuffix("b")
    unit = text[-1:] if text[-1:] in _SIZE_UNITS and not text[-1:].isdigit() else ""
    digits = text[: len(text) - len(unit)].strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 18 or int(digits) < 1:
        raise ValueError(
            f"{name}={raw[:40]!r} is not a size; expected a positive number of bytes, "
            f"optionally with a K/M/G/T suffix (e.g. {example})"
        )
    return int(digits) * _SIZE_UNITS[unit]


def max_decompressed() -> int:
    """The most bytes one ``.gz`` input may inflate to: ``$AXIOMATIC_MAX_DECOMPRESSED`` (bytes,
    or with a K/M/G/T suffix such as ``8G``), else :data:`DEFAULT_MAX_DECOMPRESSED`."""
    return _env_size(MAX_DECOMPRESSED_ENV, DEFAULT_MAX_DECOMPRESSED, "4294967296 or 4G")


def _env_ratio() -> int:
    raw = os.environ.get(MAX_RATIO_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_RATIO
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or int(raw) < 1:
        raise ValueError(
            f"{MAX_RATIO_ENV}={raw[:40]!r} is not a ratio; expected a positive integer such as "
            f"{DEFAULT_MAX_RATIO * 10} (decompressed bytes per compressed byte)"
        )
    return int(raw)


@dataclass(frozen=True)
class InputLimits:
    """What one input file may cost a reader (see the module docstring).

    ``max_bytes``: decompressed bytes of a ``.gz`` input; ``max_ratio``: decompressed over
    compressed size of a ``.gz`` input once past ``ratio_floor`` bytes; ``max_line``: bytes of
    one line (line readers); ``max_blank_lines``: blank lines of one file (line readers).
    :meth:`from_env` gives the defaults with the environment's overrides.
    """

    max_bytes: int = DEFAULT_MAX_DECOMPRESSED
    max_ratio: int = DEFAULT_MAX_RATIO
    ratio_floor: int = RATIO_FLOOR
    max_line: int = DEFAULT_MAX_LINE
    max_blank_lines: int = DEFAULT_MAX_BLANK_LINES

    @classmethod
    def from_env(cls) -> InputLimits:
        return cls(
            max_bytes=max_decompressed(),
            max_ratio=_env_ratio(),
            ratio_floor=RATIO_FLOOR,
            max_line=_env_size(MAX_LINE_ENV, DEFAULT_MAX_LINE, "67108864 or 64M"),
        )


def _size(n: int) -> str:
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= factor:
            return f"{n / factor:.4g} {unit}"
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


def _chunks(path: Path, limits: InputLimits | None = None, size: int = _CHUNK) -> Iterator[bytes]:
    """The file's bytes in chunks of at most ``size``, inflated when the name ends in ``.gz``
    (at most ``limits.max_bytes`` bytes and ``limits.max_ratio`` times the compressed size past
    ``limits.ratio_floor``; more is a :class:`ParseError`)."""
    _check_file(path)
    if path.suffix != ".gz":
        with open(path, "rb") as raw:
            while chunk := raw.read(size):
                yield chunk
        return
    limits = limits or InputLimits.from_env()
    packed = path.stat().st_size
    by_ratio = max(limits.ratio_floor, limits.max_ratio * packed)
    limit = min(limits.max_bytes, by_ratio)
    total = 0
    with gzip.open(path, "rb") as fh:  # the header is read (and checked) by the first read
        while True:
            try:
                chunk = fh.read(size)
            except (EOFError, zlib.error, OSError) as exc:
                if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
                    raise
                raise _gzip_error(path, exc) from None
            if not chunk:
                return
            total += len(chunk)
            if total > limit and limit < limits.max_bytes:
                raise ParseError(
                    f"decompresses to more than {_size(limit)}, over {limits.max_ratio} times "
                    f"its compressed size of {_size(packed)} (a gzip bomb: real runs, qrels and "
                    "collections compress 3-6:1)",
                    path,
                    None,
                    hint=f"If the file is genuine, raise the ratio with {MAX_RATIO_ENV}=N "
                    "(e.g. 1000) or decompress it and pass the plain file",
                )
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


def read_bytes(path: str | Path, limits: InputLimits | None = None) -> bytes:
    """The file's bytes, decompressed when the name ends in ``.gz``.

    A truncated gzip stream, a plain file named ``.gz`` or a corrupt one raise :class:`ParseError`
    naming the file (never ``EOFError`` / ``BadGzipFile`` / ``zlib.error``), and so does a
    ``.gz`` file that inflates beyond ``limits`` (:class:`InputLimits`: its size, its ratio).
    """
    path = Path(path)
    if path.suffix != ".gz":
        _check_file(path)
        return path.read_bytes()
    return b"".join(_chunks(path, limits))


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


def read_text(path: str | Path, encoding: str = "utf-8", limits: InputLimits | None = None) -> str:
    return decode(read_bytes(path, limits), path, encoding)


def _line_too_long(path: Path, line: int, limit: int) -> ParseError:
    return ParseError(
        f"the line is longer than {_size(limit)} (the file holds one record per line; this one "
        "never ends: a file without line ends, or not of this format)",
        path,
        line,
        hint=f"If the line is genuine, raise the limit with {MAX_LINE_ENV}=SIZE (e.g. 256M)",
    )


def _blank_lines(lines: list[str]) -> int:
    """How many of ``lines`` are empty or whitespace only (counted at C speed)."""
    return lines.count("") + sum(map(str.isspace, lines))


def _too_many_blank(path: Path, lines: list[str], first: int, seen: int, limit: int) -> ParseError:
    """The error for the blank line of ``lines`` (numbered from ``first``) that is the
    ``limit + 1``-th of the file, ``seen`` blank lines coming before ``lines``."""
    where = first + len(lines) - 1
    for i, line in enumerate(lines):
        if not line or line.isspace():
            seen += 1
            if seen > limit:
                where = first + i
                break
    return ParseError(
        f"more than {limit:,} blank lines (a bomb of line ends, or not a file of this format)",
        path,
        where,
        hint="Remove the blank lines (e.g. `grep -v '^[[:space:]]*$'`) and read the file again",
    )


def iter_lines(
    path: str | Path, encoding: str = "utf-8", limits: InputLimits | None = None
) -> Iterator[tuple[int, str]]:
    """``(line_number, line)`` pairs (1-based, line endings ``\\n``/``\\r\\n`` removed).

    Streams: the file (inflated chunk by chunk when ``.gz``) is decoded and split one chunk of
    lines at a time, so memory stays at a chunk however long the file is. Lines are exactly
    ``text.split("\\n")`` of the whole text (a file ending in a newline ends with an empty
    line). A line longer than ``limits.max_line`` bytes and more than
    ``limits.max_blank_lines`` blank lines are a :class:`ParseError` naming the line
    (:class:`InputLimits`; the environment's by default).
    """
    path = Path(path)
    limits = limits or InputLimits.from_env()
    try:
        streamable = codecs.lookup(encoding).name in _STREAMABLE
    except LookupError:
        streamable = False
    if not streamable:
        lines = read_text(path, encoding, limits).split("\n")
        for i, line in enumerate(lines, start=1):
            if len(line.encode(encoding, "replace")) > limits.max_line:
                raise _line_too_long(path, i, limits.max_line)
        if _blank_lines(lines) > limits.max_blank_lines:
            raise _too_many_blank(path, lines, 1, 0, limits.max_blank_lines)
        for i, line in enumerate(lines, start=1):
            yield i, line.rstrip("\r")
        return
    lineno = 0
    offset = 0  # bytes of the file before `parts`
    parts: list[bytes] = []
    pending = 0  # bytes in `parts`: the start of a line whose end has not come yet
    blank = 0
    # a chunk no longer than a line may be: a line inside one chunk is then short enough
    for chunk in _chunks(path, limits, min(_CHUNK, limits.max_line)):
        cut = chunk.rfind(b"\n")
        if cut < 0:
            pending += len(chunk)
            if pending > limits.max_line:
                raise _line_too_long(path, lineno + 1, limits.max_line)
            parts.append(chunk)  # a line longer than a chunk: joined once its end comes
            continue
        if pending and pending + chunk.find(b"\n") > limits.max_line:
            raise _line_too_long(path, lineno + 1, limits.max_line)
        parts.append(chunk[:cut])
        block = b"".join(parts)
        parts = [chunk[cut + 1 :]]
        pending = len(parts[0])
        text = decode(block, path, encoding, line=lineno, offset=offset)
        offset += len(block) + 1
        lines = text.split("\n")
        more = _blank_lines(lines)
        if blank + more > limits.max_blank_lines:
            raise _too_many_blank(path, lines, lineno + 1, blank, limits.max_blank_lines)
        blank += more
        for line in lines:
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

"""Errors raised by the data layer.

Every error says what was wrong, what was expected and how to fix it; parse errors carry the file
and line (``path:line``) so that an editor can jump straight to the offending input.
"""

from __future__ import annotations

from pathlib import Path


class DataError(Exception):
    """Base class of every data-layer error.

    These are "our" errors: the CLI turns them into a message without a traceback, and the fuzz
    tests (``tests/fuzz/``) assert that a reader lets nothing else escape on any input file.
    """


class DataWarning(UserWarning):
    """A counted, non-fatal oddity in an input file (skipped lines, identical duplicates).

    The message names the file and the count; filter with
    ``warnings.simplefilter("error", DataWarning)`` to make such input fatal.
    """


class ParseError(DataError, ValueError):
    """A malformed line (or byte) in an input file.

    ``path`` and ``line`` (1-based; ``None`` when unknown) locate the problem, ``expected`` describes
    the format that was expected. ``str(error)`` reads ``path:line: message (expected ...)``.
    """

    def __init__(
        self,
        message: str,
        path: str | Path | None = None,
        line: int | None = None,
        expected: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        self.expected = expected
        self.hint = hint
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        text = f"{where}: {message}"
        if expected:
            text += f"; expected {expected}"
        if hint:
            text += f". {hint}"
        super().__init__(text)


class InvalidIdError(DataError, ValueError):
    """An id or run tag that a whitespace-separated TREC file cannot hold (empty or with
    whitespace). Raised by :func:`axiomatic.data.trec.check_trec_id` and the TREC writers."""


class UnknownDatasetError(DataError, ValueError):
    """A dataset name that the catalog does not know (the message lists close matches)."""


class DatasetUnavailableError(DataError, FileNotFoundError):
    """A known dataset whose files are not present under the data root."""

"""Atomic file writes: a temporary file in the target's folder, then ``os.replace``.

A crash at any point leaves either the previous file or the complete new one, never a torn file.
Every writer of the project (TREC files, Parquet shards, manifests, reports, checkpoints) goes
through these helpers.

Durability: the temporary file is ``fsync``-ed before ``os.replace`` (else a power loss right
after the rename can leave an empty file under the final name on ext4/xfs), and the folder is
``fsync``-ed after it where the platform allows (so the rename itself is on disk).

Permissions: the temporary file is created with ``os.open(..., 0o666)``, so the kernel applies the
process umask, as for any ``open()``. The module never calls ``os.umask`` (reading it means setting
it, a race with every other thread that creates files meanwhile).

A kill (SIGKILL, power loss) between creation and rename leaves a ``.<name>.<8 chars>.tmp`` file
behind; :func:`clean_stale_temp_files` removes such leftovers when a job resumes.

Targets: only a regular file (or a new name) is ever replaced. An existing folder, FIFO, socket or
device (``/dev/null``) is refused with :class:`NotARegularFileError` instead of being turned
into a regular file. :func:`write_output_text` is for outputs a user names (``-o FILE``): ``-``
and standard output itself (``/dev/stdout``) are written to ``sys.stdout``, a FIFO or character
device straight into it (a pipe has nothing to replace), anything else atomically. A symbolic link is written *through*: the link is resolved (every level) and
the file it points to is replaced atomically, with the temporary file beside that target; the
link itself stays as it was (:func:`resolve_target`).
"""

from __future__ import annotations

import gzip
import os
import random
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_TEMP_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_"
_TEMP_RE = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
"""Names of this module's temporary files (``tempfile.mkstemp``'s alphabet, which earlier
versions used, so leftovers from them match too)."""

_rng = random.SystemRandom()  # names only; never seeded, like tempfile's


class NotARegularFileError(OSError):
    """The target of a write exists and is not a regular file (a folder, FIFO, socket, device)
    or is a symbolic link that cannot be resolved (a loop): it is never replaced."""


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or for a symbolic link the file it
    points to (all levels resolved; the link is written through, not replaced).

    Raises :class:`NotARegularFileError` when that file exists and is not a regular file, or when
    the link cannot be resolved (a loop). A missing file (or a dangling link's missing target) is
    fine: the write creates it.
    """
    target = Path(path)
    if target.is_symlink():
        try:
            os.stat(target)
        except FileNotFoundError:
            pass  # dangling: the write creates the file the link names
        except OSError as exc:
            raise NotARegularFileError(
                f"{target} is a symbolic link that cannot be resolved ({exc.strerror}); "
                "refusing to write through it: remove it or choose another file name"
            ) from None
        target = Path(os.path.realpath(target))
    try:
        mode = os.stat(target).st_mode
    except OSError:  # missing (created by the write) or unreachable (the write says why)
        return target
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        via = "" if target == Path(path) else f" (the target of the link {path})"
        raise NotARegularFileError(
            f"{target}{via} is {kind}, not a regular file: refusing to replace it with a "
            "file; choose a file name"
        )
    return target


def _create_temp(target: Path) -> Path:
    """Create (O_EXCL) an empty temporary file beside ``target``, mode ``0o666 & ~umask``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        token = "".join(_rng.choice(_TEMP_ALPHABET) for _ in range(8))
        tmp = target.parent / f".{target.name}.{token}.tmp"
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"could not create a temporary file beside {target}")


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    """Persist a rename; folders cannot be opened (or fsync-ed) on every platform: best effort."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on normal exit it replaces ``path``.

    For writers that want a file name (``pyarrow.parquet.write_table``, ``torch.save``). On an
    exception the temporary file is removed and ``path`` is left untouched.

    ``path`` must be a regular file or a new name; a symbolic link is written through (its
    target is replaced, beside which the temporary file lies; the link stays) and anything else
    (a folder, FIFO, device, link loop) raises :class:`NotARegularFileError` before anything is
    written (:func:`resolve_target`).
    """
    target = resolve_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp = _create_temp(target)
    except OSError as exc:
        raise _about_target(exc, target, creating=True) from None
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is not None and Path(exc.filename) == tmp:
            raise _about_target(exc, target) from None
        raise
    _fsync_dir(target.parent)


def _about_target(exc: OSError, target: Path, creating: bool = False) -> OSError:
    """``exc`` about the temporary file beside ``target`` as an error about ``target``: the
    user named ``target`` (``-o /proc/x.trec``), never the internal temporary name."""
    reason = exc.strerror or str(exc)
    where = f" (the folder {target.parent} does not take new files)" if creating else ""
    new = type(exc)(f"cannot write {target}: {reason}{where}; choose another output path")
    new.errno = exc.errno
    return new


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (a symbolic link is written through, a non-regular
    file refused: :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (gzip-compressed when the name ends in ``.gz``; a
    symbolic link is written through, a non-regular file refused: :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        if Path(path).suffix == ".gz":
            with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
                fh.write(text.encode(encoding))
        else:
            with open(tmp, "w", encoding=encoding, newline="\n") as fh:
                fh.write(text)
    return Path(path)


STDOUT = "-"
"""The output name that means standard output (``axiomatic rank -o -``)."""


def is_stdout(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is ``-`` or the very file standard output is (``/dev/stdout``,
    ``/proc/self/fd/1``, a redirection's file reached by its name)."""
    if os.fspath(path) == STDOUT:
        return True
    try:
        fd = sys.stdout.fileno()
        here, there = os.stat(path), os.fstat(fd)
    except (OSError, AttributeError, ValueError):  # no such file, or a stdout without a descriptor
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def is_stream_target(path: str | os.PathLike[str]) -> bool:
    """Whether a write to ``path`` goes to a stream rather than replacing a file: ``-``,
    standard output, or an existing FIFO or character device (links followed)."""
    if is_stdout(path):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def write_output_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to an output the user named: ``-`` and standard output itself go to
    ``sys.stdout``; a FIFO or character device (a named pipe, ``/dev/null``) is written
    straight into, without a temporary file (there is no file to replace, and none could be
    created beside it); anything else atomically (:func:`atomic_write_text`)."""
    if is_stdout(path):
        sys.stdout.write(text)
        sys.stdout.flush()
        return Path(path)
    if is_stream_target(path):
        with open(path, "w", encoding=encoding, newline="\n") as fh:
            fh.write(text)
        return Path(path)
    return atomic_write_text(path, text, encoding)


def is_stale_temp_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path``'s name is one of this module's temporary names (``.<name>.<8>.tmp``)."""
    return _TEMP_RE.fullmatch(Path(path).name) is not None


def clean_stale_temp_files(
    folder: str | os.PathLike[str], *, recursive: bool = False
) -> list[Path]:
    """Remove leftover temporary files of :func:`atomic_path` in ``folder``; return them.

    Call it when a job resumes into an output folder, *before* starting writers there (a writer
    running at the same time in the same folder would lose its temporary file). Only names of
    this module's pattern are touched (``.<name>.<8 chars>.tmp``); other ``*.tmp`` files stay. A
    missing folder is not an error (nothing to clean).
    """
    base = Path(folder)
    if not base.is_dir():
        return []
    candidates = base.rglob(".*.tmp") if recursive else base.glob(".*.tmp")
    removed = []
    for p in sorted(candidates):
        if is_stale_temp_file(p) and p.is_file() and not p.is_symlink():
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


# ----------------------------------------------------------------------------- folder units
INCOMPLETE_MARKER = "INCOMPLETE.txt"
"""A file in a folder whose files are being replaced as one unit (a report): present from the
first replaced file to the last, so a writer killed in between leaves the folder marked."""


def mark_incomplete(folder: str | os.PathLike[str], what: str) -> Path:
    """Mark ``folder`` incomplete (write :data:`INCOMPLETE_MARKER`, saying ``what`` is being
    written and how to repair it) before replacing its files one by one."""
    return atomic_write_text(
        Path(folder) / INCOMPLETE_MARKER,
        f"This folder is incomplete: {what} was being written into it when the writer stopped, "
        "so its files may mix two runs. Write it again into this folder (that repairs it), or "
        "delete the folder.\n",
    )


def mark_complete(folder: str | os.PathLike[str]) -> None:
    """Remove the mark of :func:`mark_incomplete` once the last file is in place."""
    (Path(folder) / INCOMPLETE_MARKER).unlink(missing_ok=True)
    _fsync_dir(Path(folder))


def incomplete_note(folder: str | os.PathLike[str]) -> str | None:
    """The text of ``folder``'s :data:`INCOMPLETE_MARKER` (``None`` when it is not marked)."""
    marker = Path(folder) / INCOMPLETE_MARKER
    if not marker.is_file():
        return None
    try:
        return " ".join(marker.read_text(encoding="utf-8", errors="replace").split())[:500]
    except OSError:
        return "(unreadable)"

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
"""

from __future__ import annotations

import gzip
import os
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_TEMP_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_"
_TEMP_RE = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
"""Names of this module's temporary files (``tempfile.mkstemp``'s alphabet, which earlier
versions used, so leftovers from them match too)."""

_rng = random.SystemRandom()  # names only; never seeded, like tempfile's


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
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _create_temp(target)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (gzip-compressed when the name ends in ``.gz``)."""
    with atomic_path(path) as tmp:
        if Path(path).suffix == ".gz":
            with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
                fh.write(text.encode(encoding))
        else:
            with open(tmp, "w", encoding=encoding, newline="\n") as fh:
                fh.write(text)
    return Path(path)


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

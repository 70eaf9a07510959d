"""Progress bars (rich) that stay quiet when output is not a terminal or when disabled.

A bottom-layer module (it imports nothing from the package) so that every layer, from the index
to the trainer, can show progress without importing upward into ``report``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress_enabled() -> bool:
    if os.environ.get("AXIOMATIC_NO_PROGRESS"):
        return False
    return sys.stderr.isatty()


def track(iterable: Iterable[T], description: str = "", total: int | None = None) -> Iterator[T]:
    """``rich.progress.track`` when attached to a terminal, the plain iterable otherwise."""
    if not progress_enabled():
        yield from iterable
        return
    from rich.progress import track as rich_track

    yield from rich_track(iterable, description=description, total=total, transient=True)

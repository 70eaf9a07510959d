"""Progress of long loops: rich bars on a terminal, plain log lines everywhere else.

A bottom-layer module (it imports nothing from the package) so that every layer, from the index
to the trainer, can show progress without importing upward into ``report``.

* On a terminal (stderr is a TTY): a transient rich bar with count, elapsed time, ETA and the
  loop's ``status`` (e.g. the training loss and dev metric).
* Otherwise (a pipe, ``nohup``, a SLURM log): one plain line every ``AXIOMATIC_LOG_EVERY``
  seconds (default 30) with the count, percentage, rate, elapsed time, ETA and the status as
  ``name value`` pairs, so that a log file shows where a job is. Loops shorter than the
  interval print nothing.
* ``AXIOMATIC_NO_PROGRESS=1`` turns both off.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

LOG_EVERY_ENV = "AXIOMATIC_LOG_EVERY"
DEFAULT_LOG_EVERY = 30.0

Status = Callable[[], Mapping[str, Any] | None]


def progress_enabled() -> bool:
    """Whether a rich bar is shown (a terminal, and progress not turned off)."""
    if os.environ.get("AXIOMATIC_NO_PROGRESS"):
        return False
    return sys.stderr.isatty()


def log_every() -> float:
    """Seconds between plain log lines when stderr is not a terminal (``AXIOMATIC_LOG_EVERY``)."""
    raw = os.environ.get(LOG_EVERY_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_LOG_EVERY
    except ValueError:
        return DEFAULT_LOG_EVERY
    return value if math.isfinite(value) and value >= 0 else DEFAULT_LOG_EVERY


def format_value(value: Any) -> str:
    """A number as a short plain number (4 significant digits, no ``np.float64(...)``)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (hasattr(value, "is_integer") and float(value).is_integer()):
        try:
            return str(int(value))
        except (TypeError, ValueError, OverflowError):
            return str(value)
    try:
        return f"{float(value):.4g}"
    except (TypeError, ValueError):
        return str(value)


def format_status(status: Mapping[str, Any] | None, skip: Iterable[str] = ("step",)) -> str:
    """``{"loss": 0.43123, "dev_mrr@10": 0.2}`` -> ``"loss 0.4312  dev_mrr@10 0.2"``."""
    if not status:
        return ""
    skipped = set(skip)
    parts = []
    for k, v in status.items():
        # numbers only: a nested dict or list would print as a repr nobody can read
        if k in skipped or isinstance(v, (str, bytes, Mapping, list, tuple)) or v is None:
            continue
        if isinstance(v, (int, float)) or hasattr(v, "__float__"):
            parts.append(f"{k} {format_value(v)}")
    return "  ".join(parts)


def _duration(seconds: float) -> str:
    total = max(0, round(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


def log_line(
    description: str,
    done: int,
    total: int | None,
    elapsed: float,
    status: Mapping[str, Any] | None = None,
) -> str:
    """One plain progress line: ``training knrm: 120/2000 (6.0%)  loss 0.4312  3.2 it/s
    elapsed 0:00:37  ETA 0:09:47``."""
    rate = done / elapsed if elapsed > 0 else float("nan")
    parts = [f"{description or 'progress'}: {done}" + (f"/{total}" if total else "")]
    if total:
        parts[0] += f" ({100 * done / total:.1f}%)"
    text = format_status(status)
    if text:
        parts.append(text)
    if math.isfinite(rate):
        parts.append(f"{rate:.0f} it/s" if rate >= 100 else f"{rate:.3g} it/s")
    parts.append(f"elapsed {_duration(elapsed)}")
    if total and math.isfinite(rate) and rate > 0 and done < total:
        parts.append(f"ETA {_duration((total - done) / rate)}")
    return "  ".join(parts)


def _plain(
    iterable: Iterable[T], description: str, total: int | None, status: Status | None
) -> Iterator[T]:
    every = log_every()
    t0 = last = time.monotonic()
    sticky: dict[str, Any] = {}  # a dev metric logged every k steps stays on the line
    done = 0
    for item in iterable:
        yield item
        done += 1
        now = time.monotonic()
        if now - last >= every:
            last = now
            if status is not None:
                sticky.update(status() or {})
            line = log_line(description, done, total, now - t0, sticky)
            print(time.strftime("[%H:%M:%S] ") + line, file=sys.stderr, flush=True)
    elapsed = time.monotonic() - t0
    if done and elapsed >= every and last != t0:
        if status is not None:
            sticky.update(status() or {})
        line = log_line(description, done, total, elapsed, sticky)
        print(time.strftime("[%H:%M:%S] ") + line + "  done", file=sys.stderr, flush=True)


def _rich(
    iterable: Iterable[T], description: str, total: int | None, status: Status | None
) -> Iterator[T]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    sticky: dict[str, Any] = {}
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total, status="")
        for item in iterable:
            yield item
            if status is not None:
                sticky.update(status() or {})
                bar.update(task, advance=1, status=format_status(sticky))
            else:
                bar.advance(task)


def track(
    iterable: Iterable[T],
    description: str = "",
    total: int | None = None,
    status: Status | None = None,
) -> Iterator[T]:
    """Iterate ``iterable`` showing progress (module docstring): a rich bar on a terminal,
    periodic plain log lines otherwise. ``status`` (called after items) returns numbers to show
    with the count, e.g. ``{"loss": 0.43, "dev_mrr@10": 0.21}``; keys persist until replaced."""
    if os.environ.get("AXIOMATIC_NO_PROGRESS"):
        yield from iterable
        return
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    if not sys.stderr.isatty():
        yield from _plain(iterable, description, total, status)
        return
    yield from _rich(iterable, description, total, status)

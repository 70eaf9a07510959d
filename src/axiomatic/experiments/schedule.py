"""Units of an experiment run one after another in this process, or scheduled on Dask.

:func:`run_units` is the one place where an experiment's units are run. With neither
``workers`` nor ``scheduler`` it calls ``run_one(unit)`` for each unit in order, in this
process (the experiments' behaviour before Dask). Otherwise each unit is shipped to Dask:

- ``workers=N``: a ``LocalCluster`` of ``N`` single-threaded worker **processes** (a unit trains
  a model: CPU-bound, so threads would serialize on the GIL);
- ``scheduler="tcp://HOST:8786"``: the workers of an existing scheduler, e.g. started by
  dask-jobqueue on SLURM (docs/training.md); ``workers`` is then ignored. Units write their
  folders into the experiment's output folder and read the data from the data root, so workers
  on other machines need both on a shared file system (unlike ``axiomatic mine``, whose workers
  return tables).

What is shipped is ``task`` (default ``run_one``) and the unit, both picklable. For an
experiment runner, :func:`run_runner_units` ships the runner's class, plan and output folder:
the worker rebuilds the runner (:func:`worker_runner` keeps it, with its loaded data, for the
worker's next units) and calls the runner's unit method there. Units write their own folders atomically, so the order in which they finish
does not matter; the results come back in the order of ``units``, and the parent echoes the
lines a unit printed on its worker as it finishes. Units with one label (one folder) are one
unit, run once: two workers must never write one folder. Work that needs finished units (a
diagnosis of trained models, a choice on dev) is a later call of :func:`run_units`, or runs in
the parent between two calls.

Failures:

- a unit whose worker dies (killed, out of memory, a crash) is run again on another worker:
  Dask reschedules the tasks of a dead worker, and a unit resumes from its own checkpoint. A
  unit may be on a dying worker :data:`ALLOWED_FAILURES` times (Dask's
  ``distributed.scheduler.allowed-failures``, set here for a local cluster; an external
  scheduler uses its own setting, e.g. ``DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=3``);
  once more and the run stops with one :class:`UnitWorkerError` naming the unit;
- an exception raised by a unit is not retried (it would fail again: bad data, a bug); it is
  raised in the parent as it was raised (same type), its message led by the unit's name.

Torch threads: 1 per worker (Dask's nanny starts each worker with ``OMP_NUM_THREADS=1``, and
before a unit the worker sets ``torch.set_num_threads(1)``, or ``OMP_NUM_THREADS=1`` when torch
is not imported yet); a plan's own ``threads`` setting, when given, still applies inside its
units. Results equal a sequential run's: every unit seeds its own random state and rebuilds its
data deterministically.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "ALLOWED_FAILURES",
    "UnitWorkerError",
    "run_runner_units",
    "run_units",
    "scheduled",
    "worker_echo",
    "worker_runner",
]

U = TypeVar("U")
R = TypeVar("R")

ALLOWED_FAILURES = 3
"""How many times a unit may be on a worker that dies before the run stops (Dask's
``distributed.scheduler.allowed-failures``): a unit runs at most ``ALLOWED_FAILURES + 1``
times."""

_RUNNERS_KEPT = 2
"""Runners (with their loaded data) a worker keeps between units: enough for one experiment's
units; a scheduler serving several experiments rebuilds a runner now and then."""


class UnitWorkerError(RuntimeError):
    """A unit killed the worker it ran on more often than :data:`ALLOWED_FAILURES` allows
    (``unit``: its name)."""

    def __init__(self, message: str, unit: str) -> None:
        super().__init__(message)
        self.unit = unit


def scheduled(workers: int | None, scheduler: str | None) -> bool:
    """Whether ``workers`` / ``scheduler`` ask for Dask (else units run in this process).
    ``workers`` below 1 is refused with the fix."""
    if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
        raise ValueError(
            f"workers must be a number >= 1 (got {workers!r}): --workers N runs the units on N "
            "local worker processes; leave it out to run them in this process"
        )
    return workers is not None or scheduler is not None


# ---------------------------------------------------------------------- on a worker
_LINES: list[str] = []
_RUNNERS: OrderedDict[tuple[str, str, str], Any] = OrderedDict()


def worker_echo(message: str) -> None:
    """The ``echo`` of a runner on a worker: the lines are sent back with the unit's result
    and printed by the parent when the unit finishes (one buffer per worker process: workers
    run one unit at a time, single-threaded)."""
    _LINES.append(str(message))


def worker_runner(cls: Callable[..., R], plan: Any, out_dir: str | Path, **kwargs: Any) -> R:
    """``cls(plan, out_dir, echo=worker_echo, **kwargs)``, built once per worker process and
    kept (with the data it loads) for the next units of the same plan and folder."""
    from axiomatic.experiments.units import canonical

    key = (
        f"{getattr(cls, '__module__', '')}.{getattr(cls, '__qualname__', cls)}",
        json.dumps(canonical({"plan": plan, "kwargs": kwargs}), sort_keys=True),
        str(Path(out_dir)),
    )
    if key in _RUNNERS:
        _RUNNERS.move_to_end(key)
        return _RUNNERS[key]  # type: ignore[no-any-return]
    runner = cls(plan, out_dir, echo=worker_echo, **kwargs)
    _RUNNERS[key] = runner
    while len(_RUNNERS) > _RUNNERS_KEPT:
        _RUNNERS.popitem(last=False)
    return runner


def _runner_task(cls: Callable[..., Any], plan: Any, out_dir: str, method: str, unit: Any) -> Any:
    """``runner.<method>(unit)`` on a worker, with the runner of :func:`worker_runner`."""
    return getattr(worker_runner(cls, plan, out_dir), method)(unit)


def _on_worker(task: Callable[[Any], Any], unit: Any) -> tuple[Any, list[str], float]:
    """Run one unit on a worker: one torch thread, the unit's echo lines collected."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    else:  # read when the unit imports torch (not imported here: a unit may not need it)
        os.environ["OMP_NUM_THREADS"] = "1"
    _LINES.clear()
    t0 = time.perf_counter()
    result = task(unit)
    return result, list(_LINES), time.perf_counter() - t0


# ---------------------------------------------------------------------- in the parent
def _named(exc: BaseException, name: str) -> BaseException:
    """``exc`` with the unit named: its message (first argument, when a string) led by
    ``name``, so that a one-line error names the unit (else a note for the traceback)."""
    args = getattr(exc, "args", ())
    if args and isinstance(args[0], str):
        if not args[0].startswith(name):
            exc.args = (f"{name}: {args[0]}", *args[1:])
    elif not args:
        exc.args = (f"{name}: {type(exc).__name__}",)
    else:  # e.g. OSError(errno, text): its message is not the first argument
        exc.add_note(f"raised by {name}")
    return exc


def run_units(
    units: Sequence[U],
    run_one: Callable[[U], R],
    *,
    task: Callable[[U], R] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    echo: Callable[[str], None] = print,
    label: Callable[[U], str] = str,
    what: str = "unit",
    allowed_failures: int = ALLOWED_FAILURES,
) -> list[R]:
    """Run every unit; return the results in the order of ``units``.

    Without ``workers`` / ``scheduler``: ``run_one(unit)`` one after another in this process.
    With them: ``task(unit)`` (default ``run_one``; it and the units must pickle) on Dask, see
    the module docstring. ``label(unit)`` names a unit in progress lines and errors (``what``
    leads it, e.g. ``"liu-smooth unit"``); units of one label are one unit (its folder), run once
    (the first of them). A unit's exception is re-raised with its name; a unit
    that kills more than ``allowed_failures`` workers raises :class:`UnitWorkerError`.
    """
    units = list(units)
    # a unit planned twice (same label: same folder) runs once, or two workers would race on
    # its folder; each place gets its result
    first = {label(u): i for i, u in reversed(list(enumerate(units)))}
    distinct = [units[i] for i in sorted(set(first.values()))]
    if not scheduled(workers, scheduler):
        done: dict[str, R] = {}
        for u in distinct:
            try:
                done[label(u)] = run_one(u)
            except Exception as exc:
                raise _named(exc, f"{what} {label(u)}") from None
        return [done[label(u)] for u in units]
    if not units:
        return []
    results = _run_dask(
        distinct,
        task or run_one,
        workers=workers,
        scheduler=scheduler,
        echo=echo,
        label=label,
        what=what,
        allowed_failures=allowed_failures,
    )
    by_label = {label(u): r for u, r in zip(distinct, results, strict=True)}
    return [by_label[label(u)] for u in units]


def run_runner_units(
    runner: Any,
    units: Sequence[U],
    method: str,
    *,
    label: Callable[[U], str],
    what: str,
) -> list[Any]:
    """:func:`run_units` for an experiment runner: ``runner.<method>(unit)`` for each unit,
    here or on the Dask workers the runner was given (its ``workers`` and ``scheduler``), with
    its ``echo``. On a worker the runner is rebuilt as ``type(runner)(runner.plan,
    runner.out_dir, echo=...)`` (:func:`worker_runner`): the runner's class, plan and units must
    pickle."""
    return run_units(
        units,
        getattr(runner, method),
        task=partial(_runner_task, type(runner), runner.plan, str(runner.out_dir), method),
        workers=runner.workers,
        scheduler=runner.scheduler,
        echo=runner.echo,
        label=label,
        what=what,
    )


def _run_dask(
    units: list[U],
    task: Callable[[U], R],
    *,
    workers: int | None,
    scheduler: str | None,
    echo: Callable[[str], None],
    label: Callable[[U], str],
    what: str,
    allowed_failures: int,
) -> list[R]:
    import dask
    from dask.distributed import KilledWorker, as_completed

    from axiomatic.diagnose.dask_utils import dask_client, n_workers

    # read by the scheduler when it starts: a local cluster's scheduler runs in this process
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": int(allowed_failures)}),
        dask_client(workers, scheduler, processes=True) as client,
    ):
        where = (
            f"{workers} local worker processes"
            if scheduler is None
            else f"the Dask scheduler at {scheduler} ({n_workers(client)} workers)"
        )
        echo(f"{len(units)} {what}s on {where}")
        futures = {
            client.submit(_on_worker, task, u, pure=False, retries=0): i
            for i, u in enumerate(units)
        }
        results: dict[int, R] = {}
        for fut in as_completed(list(futures)):
            i = futures[fut]
            name = f"{what} {label(units[i])}"
            try:
                result, lines, seconds = fut.result()
            except KilledWorker:
                times = (
                    f"{allowed_failures + 1} times"
                    if scheduler is None
                    else "more often than the scheduler's distributed.scheduler.allowed-failures"
                )
                raise UnitWorkerError(
                    f"{name} was on a Dask worker that died, {times}; the worker logs say "
                    "why (e.g. out of memory): run it without --workers / --scheduler to see "
                    "its error here",
                    label(units[i]),
                ) from None
            except Exception as exc:
                raise _named(exc, name) from None
            results[i] = result
            for line in lines:
                echo(line)
            echo(f"[{len(results)}/{len(units)}] {name} finished ({seconds:.0f} s)")
            fut.release()
    return [results[i] for i in range(len(units))]

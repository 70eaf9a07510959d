"""Units scheduled on Dask: ``run_units`` gives the sequential results on
two worker processes, re-runs a unit whose worker died, names a unit that keeps killing its
workers, and names the unit of an exception. The local-cluster path (``workers=2``) is tested
on liu-smooth (test_liu_smooth_dask.py); these tests share one cluster through its address."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest

from axiomatic.experiments.schedule import UnitWorkerError, run_units, scheduled


def square_unit(out: str, n: int) -> int:
    """A toy unit: writes its own file, returns a value computed from its argument."""
    value = n * n + 1
    Path(out, f"unit{n}.txt").write_text(str(value), encoding="utf-8")
    return value


def dies_once(out: str, n: int) -> int:
    """Unit 2 kills its worker process the first time it runs (a marker file remembers)."""
    marker = Path(out, "died")
    if n == 2 and not marker.exists():
        marker.write_text("once", encoding="utf-8")
        os._exit(1)
    return square_unit(out, n)


def always_dies(n: int) -> int:
    if n == 1:
        os._exit(1)
    return n


def fails(n: int) -> int:
    if n == 3:
        raise ValueError(f"bad input {n}")
    return n


@pytest.fixture(scope="module")
def scheduler():
    """A scheduler with two single-threaded worker processes that lets a task be on one dying
    worker (allowed-failures 1: an external scheduler's own setting)."""
    import dask
    from dask.distributed import LocalCluster

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
    with cluster:
        yield cluster.scheduler_address


def test_sequential_and_dask_agree(tmp_path, scheduler) -> None:
    seq, par = tmp_path / "seq", tmp_path / "par"
    seq.mkdir(), par.mkdir()
    units = [0, 1, 2, 3, 4, 5, 2]  # a unit planned twice runs once
    expected = [n * n + 1 for n in units]
    calls: list[int] = []

    def counted(n: int) -> int:
        calls.append(n)
        return square_unit(str(seq), n)

    assert run_units(units, counted) == expected
    assert calls == [0, 1, 2, 3, 4, 5]
    lines: list[str] = []
    got = run_units(units, partial(square_unit, str(par)), scheduler=scheduler, echo=lines.append)
    assert got == expected  # in the order of the units, whatever order they finished in
    for n in units:
        assert (par / f"unit{n}.txt").read_text() == (seq / f"unit{n}.txt").read_text()
    assert len(list(par.iterdir())) == 6
    assert lines[0] == f"6 units on the Dask scheduler at {scheduler} (2 workers)"
    assert sum("finished" in ln for ln in lines) == 6 and lines[-1].startswith("[6/6] unit ")


def test_a_unit_whose_worker_dies_is_run_again(tmp_path, scheduler) -> None:
    got = run_units([1, 2, 3], partial(dies_once, str(tmp_path)), scheduler=scheduler, echo=len)
    assert got == [2, 5, 10]
    assert (tmp_path / "died").exists() and (tmp_path / "unit2.txt").read_text() == "5"


def test_a_unit_that_keeps_killing_workers_is_named(scheduler) -> None:
    with pytest.raises(
        UnitWorkerError, match=r"^unit n1 was on a Dask worker that died, more"
    ) as e:
        run_units([0, 1], always_dies, scheduler=scheduler, echo=len, label=lambda n: f"n{n}")
    assert e.value.unit == "n1"


def test_an_exception_names_its_unit(scheduler) -> None:
    with pytest.raises(ValueError, match=r"^unit n3: bad input 3$"):
        run_units([1, 3], fails, label=lambda n: f"n{n}")
    with pytest.raises(ValueError, match=r"^liu-smooth unit n3: bad input 3$"):
        run_units(
            [3, 1],
            fails,
            scheduler=scheduler,
            echo=len,
            what="liu-smooth unit",
            label=lambda n: f"n{n}",
        )


def test_workers_must_be_positive() -> None:
    assert not scheduled(None, None) and scheduled(2, None) and scheduled(None, "tcp://h:1")
    with pytest.raises(ValueError, match=r"workers must be a number >= 1 \(got 0\)"):
        run_units([1], fails, workers=0)


def test_ares2022_refuses_workers(tmp_path) -> None:
    """ARES's stages feed each other: it says so instead of ignoring --workers."""
    from axiomatic.experiments.engine import run_experiment

    with pytest.raises(
        ValueError,
        match=r"^experiment 'ares2022' runs its units in this process, not on Dask "
        r"\(pre-training feeds every later stage; .*\): leave out --workers / --scheduler$",
    ):
        run_experiment("ares2022", tmp_path / "ares", quick=True, workers=2)
    assert not (tmp_path / "ares").exists()

"""Dask helpers: a client for a local cluster (``workers=N``) or an existing scheduler.

Per-query work is embarrassingly parallel, so mining ships whole shards to workers and gathers
their tables; the caller writes the results, so a remote cluster needs no shared file system.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def dask_client(
    workers: int | None = None, scheduler: str | None = None, processes: bool = False
) -> Iterator[Any]:
    """A ``dask.distributed.Client``: connected to ``scheduler`` if given, else a new
    ``LocalCluster`` of ``workers`` single-threaded workers (threads by default, so the index is
    shared without pickling; ``processes=True`` for CPU-bound pure-Python work). Closed on exit.
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is a dependency
        raise ImportError("parallel mining needs dask: pip install 'dask[distributed]'") from exc
    cluster = None
    if scheduler is not None:
        client = Client(scheduler)
    else:
        if workers is None or workers < 1:
            raise ValueError(f"workers must be >= 1 (got {workers}); or pass scheduler='ADDRESS'")
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=None
        )
        client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def n_workers(client: Any, default: int = 1) -> int:
    """Number of workers the scheduler knows (at least 1)."""
    try:
        return max(1, len(client.scheduler_info().get("workers", {})))
    except Exception:  # pragma: no cover - defensive
        return max(1, default)

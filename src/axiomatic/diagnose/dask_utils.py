"""Dask helpers: a client for a local cluster (``workers=N``) or an existing scheduler.

Per-query work is embarrassingly parallel, so mining ships whole shards to workers and gathers
their tables; the caller writes the results, so a remote cluster needs no shared file system.
The experiments' units (:mod:`axiomatic.experiments.schedule`) use the same client with worker
processes; they write their own folders (a remote cluster needs the output folder shared).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CONNECT_TIMEOUT_S = 10.0
"""How long to wait for a ``scheduler`` address to answer (dask's own default is 30 s)."""


@contextmanager
def dask_client(
    workers: int | None = None,
    scheduler: str | None = None,
    processes: bool = False,
    connect_timeout: float | None = None,
) -> Iterator[Any]:
    """A ``dask.distributed.Client``: connected to ``scheduler`` if given, else a new
    ``LocalCluster`` of ``workers`` single-threaded workers (threads by default, so the index is
    shared without pickling; ``processes=True`` for CPU-bound pure-Python work). Closed on exit.

    A scheduler that does not answer within ``connect_timeout`` seconds (default
    :data:`CONNECT_TIMEOUT_S`) raises
    ``ConnectionError`` naming the address, before any work is shipped.
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is a dependency
        raise ImportError("running on Dask needs dask: pip install 'dask[distributed]'") from exc
    cluster = None
    if scheduler is not None:
        timeout = CONNECT_TIMEOUT_S if connect_timeout is None else connect_timeout
        client = _connect(Client, scheduler, timeout)
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


def _connect(client_cls: Any, scheduler: str, timeout: float) -> Any:
    address = str(scheduler).strip()
    hint = (
        "check the address (e.g. tcp://HOST:8786) and that `dask scheduler` runs there and is "
        "reachable, or leave out --scheduler to run on local workers (--workers N)"
    )
    if not address:
        raise ValueError(f"empty Dask scheduler address; {hint}")
    try:
        return client_cls(address, timeout=timeout)
    except ValueError as exc:  # a malformed address
        raise ValueError(f"bad Dask scheduler address {address!r} ({exc}); {hint}") from None
    except (OSError, TimeoutError) as exc:  # CommClosedError/TimeoutError are OSError-like
        raise ConnectionError(
            f"cannot reach the Dask scheduler at {address!r} within {timeout:g} s "
            f"({type(exc).__name__}: {exc}); {hint}"
        ) from None
    except Exception as exc:  # something answered, but not the Dask protocol (e.g. MemoryError
        # decoding an HTTP server's reply as a frame length)
        raise ConnectionError(
            f"the address {address!r} answered, but not as a Dask scheduler "
            f"({type(exc).__name__}: {str(exc)[:120]}); {hint}"
        ) from None


def n_workers(client: Any, default: int = 1) -> int:
    """Number of workers the scheduler knows (at least 1)."""
    try:
        return max(1, len(client.scheduler_info().get("workers", {})))
    except Exception:  # pragma: no cover - defensive
        return max(1, default)

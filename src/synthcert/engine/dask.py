"""The Dask engine: the same per-partition functions as the local engine, run on a cluster.

``dask_client`` connects to an existing scheduler (``scheduler="tcp://host:8786"``) or starts a
``LocalCluster`` on loopback sized to the machine, and reports its dashboard link. Partials are
merged on the workers in the same fixed binary tree as the local engine, so the results are
the same numbers; sampled rows depend only on the seed and the chunking, not on the workers.

Every worker must see the input files and the output folder at the same paths (a shared or
network file system), and the fitted mean and covariance travel to the workers inside the
sampling tasks: on a remote cluster, secure its communications (Dask's TLS ``Security``).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from synthcert.engine.local import Done, FuturesEngine
from synthcert.engine.reduce import merge_copy, tree_pairs
from synthcert.errors import SynthcertError, import_extra

if TYPE_CHECKING:
    from distributed import Client

T = TypeVar("T")
Notify = Callable[[str], None]


def _apply(item: Any, fn: Callable[..., T], args: tuple = ()) -> T:
    """``fn(item, *args)`` (module-level so that workers can unpickle it)."""
    return fn(item, *args)


def _import_distributed():
    return import_extra(
        "distributed", "the dask engine needs dask and distributed: pip install 'synthcert[dask]'"
    )


@contextlib.contextmanager
def dask_client(
    scheduler: str | Client | None = None,
    *,
    n_workers: int | None = None,
    threads_per_worker: int = 1,
    processes: bool = True,
    notify: Notify | None = None,
) -> Iterator[Client]:
    """A Dask client: the given one, one connected to ``scheduler``, or a new loopback cluster.

    A new ``LocalCluster`` has one single-threaded worker process per core (``n_workers``),
    listens on 127.0.0.1 only, and its dashboard link is passed to ``notify``. What this
    function starts, it closes on exit; a client passed in is left open.

    Parameters
    ----------
    scheduler : str or distributed.Client, optional
        A client, a scheduler address (``"tcp://host:8786"``), or None for a local cluster.
    n_workers : int, optional
        Workers of a new local cluster (default: the cores).
    threads_per_worker : int
        Threads of each new worker.
    processes : bool
        Worker processes (True) or threads of this process.
    notify : callable, optional
        Receives the dashboard link.

    Yields
    ------
    distributed.Client
        The client.

    Raises
    ------
    SynthcertError
        dask/distributed is not installed, or the scheduler cannot be reached.
    """
    distributed = _import_distributed()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout="30s")
        except OSError as exc:
            raise SynthcertError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
        if notify:
            workers = len(client.scheduler_info().get("workers", {}))
            notify(f"Dask: {scheduler} ({workers} workers), dashboard {client.dashboard_link}")
        try:
            yield client
        finally:
            client.close()
        return
    n = n_workers or max(1, os.cpu_count() or 1)
    # worker processes talk TCP on loopback only; threads of this process use in-process comms
    where = {"host": "127.0.0.1", "scheduler_port": 0} if processes else {}
    cluster = distributed.LocalCluster(
        n_workers=n,
        threads_per_worker=threads_per_worker,
        processes=processes,
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
        **where,
    )
    client = distributed.Client(cluster)
    if notify:
        notify(f"Dask: started a local cluster of {n} workers, dashboard {client.dashboard_link}")
    try:
        yield client
    finally:
        client.close()
        cluster.close()


class DaskEngine(FuturesEngine):
    """Run per-partition functions as Dask tasks on ``client``'s cluster.

    Parameters
    ----------
    client : distributed.Client
        An open client (closed by whoever opened it).
    """

    name = "dask"

    def __init__(self, client: Client) -> None:
        self.client = client

    @property
    def n_workers(self) -> int:
        """Workers currently attached to the scheduler."""
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def _submitter(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> contextlib.AbstractContextManager[Callable[[Any], Any]]:
        """Submits a task to the cluster (the client is closed by whoever opened it)."""
        submit = self.client.submit
        return contextlib.nullcontext(lambda x: submit(_apply, x, func, args, pure=False))

    def _result(self, fut: Any) -> Any:
        """The task's value, its result then released on the cluster."""
        value = fut.result()
        fut.release()
        return value

    def reduce(
        self,
        func: Callable[..., T],
        items: Sequence[Any],
        *args: Any,
        merge: Callable[[T, T], T] = merge_copy,
        on_done: Done | None = None,
    ) -> T:
        """Merge ``func(item, *args)`` over the items on the workers, in the fixed tree.

        Parameters
        ----------
        func : callable
            The per-item reduction, run on the workers.
        items : sequence
            The items (partitions), in order.
        *args
            Further arguments of ``func``.
        merge : callable
            Merges two partials on a worker (default ``merge_copy``).
        on_done : callable, optional
            Called with each item's index when its task finishes.

        Returns
        -------
        object
            The merge of all partials: the same tree, so the same numbers, as the local engine.

        Raises
        ------
        Exception
            The first task's exception, re-raised here.
        """
        distributed = _import_distributed()
        futures = self.client.map(_apply, list(items), fn=func, args=args, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        root = tree_pairs(futures, lambda a, b: self.client.submit(merge, a, b, pure=False))
        for fut in distributed.as_completed(futures):
            if fut.status == "error":
                fut.result()  # raises the worker's exception here
            if on_done:
                on_done(index[fut.key])
        return root.result()

    def close(self) -> None:
        """The client is closed by whoever opened it."""


def parallel_map(
    func: Callable[..., T],
    items: Sequence[Any],
    *,
    scheduler: str | Client | None = None,
    n_workers: int | None = None,
    notify: Notify | None = None,
) -> list[T]:
    """``[func(x) for x in items]`` as Dask tasks (for audit trials), results in item order.

    ``func`` must be picklable (a module-level function or a ``functools.partial`` of one);
    each call should draw its randomness from a seed passed in its item.

    Parameters
    ----------
    func : callable
        Applied to each item on a worker.
    items : sequence
        The items.
    scheduler, n_workers, notify
        As for :func:`dask_client`.

    Returns
    -------
    list
        ``func(item)`` for each item, in order.
    """
    with dask_client(scheduler, n_workers=n_workers, notify=notify) as client:
        futures = client.map(func, list(items), pure=False)
        return client.gather(futures)


@contextlib.contextmanager
def joblib_backend(
    scheduler: str | Client | None = None,
    *,
    n_workers: int | None = None,
    notify: Notify | None = None,
) -> Iterator[Client]:
    """Within the block, ``joblib.Parallel`` runs its tasks on the Dask cluster.

    Parameters
    ----------
    scheduler, n_workers, notify
        As for :func:`dask_client`.

    Yields
    ------
    distributed.Client
        The client the tasks run on.
    """
    import joblib

    with (
        dask_client(scheduler, n_workers=n_workers, notify=notify) as client,
        joblib.parallel_config(backend="dask"),
    ):
        yield client

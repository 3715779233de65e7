"""The local engine: partitions processed on this machine by a small thread pool, streamed.

numpy and Arrow release the GIL while reading, drawing and multiplying, so a few threads keep
the cores busy; results are consumed in partition order, so they do not depend on the threads.
"""

from __future__ import annotations

import contextlib
import os
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from synthcert.engine.reduce import TreeMerger

T = TypeVar("T")
F = TypeVar("F")  # a future

Done = Callable[[int], None]  # called with the index of each item when it is finished


def in_order(
    submit: Callable[[Any], F], items: Sequence[Any], window: int
) -> Iterator[tuple[int, F]]:
    """``(i, submit(items[i]))`` in item order, with at most ``window`` submitted and unconsumed.

    Parameters
    ----------
    submit : callable
        Starts the work of one item and returns its future.
    items : sequence
        The items, in order.
    window : int
        Most futures submitted and not yet consumed.

    Yields
    ------
    tuple of (int, future)
        Index and future of each item, in item order.
    """
    pending: deque[tuple[int, F]] = deque()
    nxt = 0
    while nxt < len(items) or pending:
        while nxt < len(items) and len(pending) < window:
            pending.append((nxt, submit(items[nxt])))
            nxt += 1
        yield pending.popleft()


class FuturesEngine(ABC):
    """An engine that runs each item as one future: ``map_ordered`` for the local and Dask engines.

    A subclass says how to submit an item (:meth:`_submitter`) and, when it must, how to take a
    finished future's value (:meth:`_result`); the ordering, the window of items in flight and
    the ``on_done`` calls are the same for every engine, so they are written once here.
    """

    @property
    @abstractmethod
    def n_workers(self) -> int:
        """Workers (threads or Dask workers) the tasks run on."""

    @abstractmethod
    def _submitter(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> contextlib.AbstractContextManager[Callable[[Any], Any]]:
        """A context whose value ``submit(item)`` starts ``func(item, *args)`` and returns its
        future; leaving it releases what it opened."""

    def _result(self, fut: Any) -> Any:
        """The value of a finished future."""
        return fut.result()

    def map_ordered(
        self,
        func: Callable[..., T],
        items: Sequence[Any],
        *args: Any,
        window: int | None = None,
        on_done: Done | None = None,
    ) -> Iterator[T]:
        """Yield ``func(item, *args)`` in item order, with at most ``window`` items in flight.

        Parameters
        ----------
        func : callable
            Applied to each item (and ``args``); on Dask, a picklable function run on a worker.
        items : sequence
            The items, in order.
        *args
            Further arguments of ``func`` (on Dask, sent with each task).
        window : int, optional
            Items in flight (default twice the workers).
        on_done : callable, optional
            Called with each item's index when its result is consumed.

        Yields
        ------
        object
            The results, in item order.
        """
        window = window or 2 * self.n_workers
        with self._submitter(func, args) as submit:
            for i, fut in in_order(submit, items, window):
                value = self._result(fut)
                if on_done:
                    on_done(i)
                yield value


class LocalEngine(FuturesEngine):
    """Run per-partition functions with ``workers`` threads of this process.

    Parameters
    ----------
    workers : int, optional
        Threads (default: the cores, at most 8).
    """

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or min(os.cpu_count() or 1, 8))

    @property
    def n_workers(self) -> int:
        """Number of threads."""
        return self.workers

    @contextlib.contextmanager
    def _submitter(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> Iterator[Callable[[Any], Any]]:
        """Submits to a pool of ``workers`` threads, shut down (after its tasks) on exit."""
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            yield lambda x: pool.submit(func, x, *args)

    def reduce(
        self,
        func: Callable[..., T],
        items: Sequence[Any],
        *args: Any,
        merge: Callable[[T, T], T],
        on_done: Done | None = None,
    ) -> T:
        """Merge ``func(item, *args)`` over the items in the fixed tree of ``TreeMerger``.

        Parameters
        ----------
        func : callable
            The per-item reduction (for example ``partition_moments``).
        items : sequence
            The items (partitions), in order.
        *args
            Further arguments of ``func``.
        merge : callable
            Merges two partials (``merge_copy``).
        on_done : callable, optional
            Called with each item's index when it is finished.

        Returns
        -------
        object
            The merge of all partials.

        Raises
        ------
        ValueError
            ``items`` is empty.
        """
        merger: TreeMerger[T] = TreeMerger(merge)
        for value in self.map_ordered(func, items, *args, on_done=on_done):
            merger.push(value)
        return merger.result()

    def close(self) -> None:
        """Nothing to release."""

"""The local engine: partitions processed on this machine by a small thread pool, streamed.

numpy and Arrow release the GIL while reading, drawing and multiplying, so a few threads keep
the cores busy; results are consumed in partition order, so they do not depend on the threads.
"""

from __future__ import annotations

import os
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
    """``(i, submit(items[i]))`` in item order, with at most ``window`` submitted and unconsumed."""
    pending: deque[tuple[int, F]] = deque()
    nxt = 0
    while nxt < len(items) or pending:
        while nxt < len(items) and len(pending) < window:
            pending.append((nxt, submit(items[nxt])))
            nxt += 1
        yield pending.popleft()


class LocalEngine:
    """Run per-partition functions with ``workers`` threads of this process."""

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or min(os.cpu_count() or 1, 8))

    @property
    def n_workers(self) -> int:
        """Number of threads."""
        return self.workers

    def map_ordered(
        self,
        func: Callable[..., T],
        items: Sequence[Any],
        *args: Any,
        window: int | None = None,
        on_done: Done | None = None,
    ) -> Iterator[T]:
        """Yield ``func(item, *args)`` in item order, with at most ``window`` items in flight."""
        window = window or 2 * self.workers
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for i, fut in in_order(lambda x: pool.submit(func, x, *args), items, window):
                value = fut.result()
                if on_done:
                    on_done(i)
                yield value

    def reduce(
        self,
        func: Callable[..., T],
        items: Sequence[Any],
        *args: Any,
        merge: Callable[[T, T], T],
        on_done: Done | None = None,
    ) -> T:
        """Merge ``func(item, *args)`` over the items in the fixed tree of ``TreeMerger``."""
        merger: TreeMerger[T] = TreeMerger(merge)
        for value in self.map_ordered(func, items, *args, on_done=on_done):
            merger.push(value)
        return merger.result()

    def close(self) -> None:
        """Nothing to release."""

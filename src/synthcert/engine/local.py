"""The local engine: partitions processed on this machine by a small thread pool, streamed.

numpy and Arrow release the GIL while reading, drawing and multiplying, so a few threads keep
the cores busy; results are consumed in partition order, so they do not depend on the threads.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from synthcert.engine.reduce import TreeMerger

T = TypeVar("T")

Done = Callable[[int], None]  # called with the index of each item when it is finished


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
            pending: deque[tuple[int, Future]] = deque()
            nxt = 0
            while nxt < len(items) or pending:
                while nxt < len(items) and len(pending) < window:
                    pending.append((nxt, pool.submit(func, items[nxt], *args)))
                    nxt += 1
                i, fut = pending.popleft()
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

"""Run a graph of jobs as they become ready, on this process and on a pool of workers.

The game's jobs form a small graph (a trial's shadow tables → its attacks' training → its
scored generations). Running them phase by phase leaves workers idle at every barrier, and a
fresh process pool is idle for its start-up; here a job starts as soon as its inputs exist, in
priority order, and with ``k`` workers one of them is a thread of this process (already warm)
beside ``k - 1`` loky processes. On Dask every worker thread of the cluster is a slot and this
process only schedules.

A job is *heavy* when it needs the model libraries (scikit-learn, XGBoost, SciPy's statistics):
importing them costs a new worker process about 1 s of CPU, a tenth of a whole audit on Adult.
Heavy jobs go to this process's thread first; the worker processes take them only when there
are at least two of them (with one, the heavy share of the game, about a third, fits on this
process's thread), so a two-worker audit never imports scikit-learn in its worker process and
that process starts its first job after importing pandas alone.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any


@dataclass(order=True)
class Job:
    """``func(*args)``, identified by ``key``; lower ``priority`` runs first."""

    priority: tuple
    key: Hashable = field(compare=False)
    func: Callable[..., Any] = field(compare=False)
    args: tuple = field(compare=False, default=())
    heavy: bool = field(compare=False, default=False)  # needs the model libraries (see above)


# Called with a finished job's key and result; returns the jobs this makes ready.
OnResult = Callable[[Hashable, Any], Iterable[Job]]


@dataclass
class Slot:
    """An executor, how many jobs it runs at once, and which jobs it takes.

    ``local`` marks the thread of this process: it takes heavy jobs before the others. A slot
    that is not local takes the light jobs first, and heavy ones only when ``heavy`` is set.
    ``prefetch`` more light jobs may wait in the executor's queue while more than one is ready,
    so a worker process starts its next job at once instead of waiting for this process to
    see the result and send the next job (each step waits for the GIL, up to 5 ms).
    """

    executor: Executor
    capacity: int
    running: int = 0
    local: bool = False
    heavy: bool = True
    prefetch: int = 0


# what a light job needs (a heavy job imports the model libraries itself, when a worker first
# gets one); synthcert.audit imports its submodules lazily, so this does not pull in SciPy
WARM_MODULES = ("synthcert.audit.trial", "synthcert.synthesizers.registry")


_controller: tuple[int, Any] | None = None  # (len(sys.modules) when found, ThreadpoolController)
_controller_lock = threading.Lock()


def _thread_pools() -> Any:
    """This process's BLAS and OpenMP libraries, found again only after new imports.

    Finding them walks every loaded shared library (milliseconds, against microseconds to
    limit them), and the game runs a hundred jobs or more: each process looks once per set of
    loaded modules.
    """
    global _controller
    from threadpoolctl import ThreadpoolController

    with _controller_lock:
        if _controller is None or _controller[0] != len(sys.modules):
            _controller = (len(sys.modules), ThreadpoolController())
        return _controller[1]


def _single_threaded(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` with BLAS and OpenMP held to one thread (the slots are the parallelism)."""
    with _thread_pools().limit(limits=1):
        return func(*args)


def _warm() -> None:
    """Import what the jobs need, so a new worker process does it before its first job."""
    import importlib

    for name in WARM_MODULES:
        with suppress(ImportError):
            importlib.import_module(name)


@contextmanager
def open_slots(workers: int, engine: str = "local", scheduler: Any = None) -> Iterator[list[Slot]]:
    """Local: one thread here + ``workers - 1`` loky processes. Dask: every worker thread of the
    cluster at ``scheduler`` (an address or a Client; None starts a LocalCluster of
    ``workers`` processes), closed at the end if started here."""
    with ExitStack() as stack:
        if engine == "dask":
            from synthcert.engine.dask import dask_client

            client = stack.enter_context(dask_client(scheduler, n_workers=workers))
            threads = sum(client.nthreads().values()) or 1
            yield [Slot(client.get_executor(pure=False), threads)]
            return
        slots = [Slot(stack.enter_context(ThreadPoolExecutor(1)), 1, local=True)]
        if workers > 1:
            from joblib.externals.loky import get_reusable_executor

            one = {v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
            pool = get_reusable_executor(max_workers=workers - 1, reuse=True, env=one)
            for _ in range(workers - 1):
                pool.submit(_warm)
            slots.append(Slot(pool, workers - 1, heavy=workers > 2, prefetch=workers - 1))
        yield slots


def run_jobs(jobs: Iterable[Job], on_result: OnResult, slots: list[Slot]) -> None:
    """Run ``jobs`` and every job ``on_result`` releases, until none is left.

    ``on_result`` runs in this thread, in completion order; what it records must therefore not
    depend on that order (the game keys every result by trial and generation). A heavy job
    waits for a slot that takes heavy jobs (see :class:`Slot`); at least one slot must.
    """
    if not any(slot.local or slot.heavy for slot in slots):
        raise ValueError("no slot takes heavy jobs")
    light: list[tuple[Job, int]] = []
    heavy: list[tuple[Job, int]] = []
    tie = itertools.count()  # keeps equal priorities in submission order

    def push(new: Iterable[Job]) -> None:
        for job in new:
            heapq.heappush(heavy if job.heavy else light, (job, next(tie)))

    def take(slot: Slot) -> Job | None:
        if slot.running >= slot.capacity:  # a queued job: light, and not the last one ready
            ok = slot.running < slot.capacity + slot.prefetch and len(light) > 1
            return heapq.heappop(light)[0] if ok else None
        order = (heavy, light) if slot.local else (light, heavy) if slot.heavy else (light,)
        for queue in order:
            if queue:
                return heapq.heappop(queue)[0]
        return None

    push(jobs)
    running: dict[Future, tuple[Job, Slot]] = {}
    while light or heavy or running:
        for slot in slots:
            while (job := take(slot)) is not None:
                future = slot.executor.submit(_single_threaded, job.func, *job.args)
                running[future] = (job, slot)
                slot.running += 1
        done, _ = wait(list(running), return_when=FIRST_COMPLETED)
        for future in done:
            job, slot = running.pop(future)
            slot.running -= 1
            push(on_result(job.key, future.result()))

"""The audit's job graph runner: dependencies, priorities, errors, slots."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from synthcert.audit.schedule import Job, Slot, open_slots, run_jobs


def _square(x: int) -> int:
    return x * x


def _nap(x: int) -> int:
    time.sleep(0.01)
    return x


def _fail(x: int) -> int:
    raise ValueError(f"job {x} failed")


def test_jobs_released_by_results_all_run_once():
    """A two-level graph: each root releases three children keyed by the root's result."""
    seen: dict[tuple, int] = {}

    def on_result(key, result):
        seen[key] = result
        if key[0] == "root":
            return [
                Job((1, key[1], c), ("child", key[1], c), _square, (result + c,)) for c in range(3)
            ]
        return []

    roots = [Job((0, r), ("root", r), _square, (r,)) for r in range(4)]
    with open_slots(1) as slots:
        run_jobs(roots, on_result, slots)
    assert len(seen) == 4 + 12
    assert all(seen[("child", r, c)] == (r * r + c) ** 2 for r in range(4) for c in range(3))


def test_one_slot_runs_the_ready_jobs_in_priority_order():
    order: list[int] = []
    jobs = [Job((p,), p, _square, (p,)) for p in (5, 1, 4, 2, 3)]
    with ThreadPoolExecutor(1) as pool:
        run_jobs(jobs, lambda k, r: order.append(k) or [], [Slot(pool, 1)])
    assert order == [1, 2, 3, 4, 5]


def test_a_failing_job_raises_its_error():
    with open_slots(1) as slots, pytest.raises(ValueError, match="job 7 failed"):
        run_jobs([Job((0,), 0, _nap, (0,)), Job((1,), 7, _fail, (7,))], lambda k, r: [], slots)


def test_two_workers_use_this_process_and_a_process_pool():
    with open_slots(2) as slots:
        assert [(s.capacity, s.prefetch) for s in slots] == [(1, 0), (1, 1)]
        got: dict[int, int] = {}
        run_jobs(
            [Job((i,), i, _square, (i,)) for i in range(20)],
            lambda k, r: got.__setitem__(k, r) or [],
            slots,
        )
    assert got == {i: i * i for i in range(20)}


def _where(x: int) -> tuple[int, int]:
    import os
    import sys

    return os.getpid(), int("sklearn" in sys.modules)


def test_with_two_workers_heavy_jobs_stay_in_this_process():
    """The worker process takes light jobs only, so it never imports the model libraries."""
    import os

    seen: dict[tuple[str, int], tuple[int, int]] = {}
    jobs = [Job((0, i), ("light", i), _where, (i,)) for i in range(12)]
    jobs += [Job((1, i), ("heavy", i), _where, (i,), heavy=True) for i in range(12)]
    with open_slots(2) as slots:
        assert [(s.local, s.heavy) for s in slots] == [(True, True), (False, False)]
        run_jobs(jobs, lambda k, r: seen.__setitem__(k, r) or [], slots)
    assert len(seen) == 24
    assert all(seen["heavy", i][0] == os.getpid() for i in range(12))
    # the worker did take light jobs (they are not all run here)
    assert any(seen["light", i][0] != os.getpid() for i in range(12))


def _thread_name(x: int) -> str:
    import threading

    return threading.current_thread().name


def test_this_process_takes_heavy_jobs_first_and_other_slots_light_jobs_first():
    ran: dict[str, str] = {}
    jobs = [
        Job((0,), "light", _thread_name, (0,)),  # the better priority
        Job((5,), "heavy", _thread_name, (5,), heavy=True),
        Job((9,), "light-late", _thread_name, (9,)),
    ]
    with (
        ThreadPoolExecutor(1, thread_name_prefix="here") as a,
        ThreadPoolExecutor(1, thread_name_prefix="there") as b,
    ):
        slots = [Slot(a, 1, local=True), Slot(b, 1, heavy=True)]
        run_jobs(jobs, lambda k, r: ran.__setitem__(k, r) or [], slots)
    assert ran["heavy"].startswith("here")
    assert ran["light"].startswith("there")


def test_a_slot_set_that_takes_no_heavy_job_is_refused():
    with ThreadPoolExecutor(1) as pool, pytest.raises(ValueError, match="heavy"):
        run_jobs([Job((0,), 0, _square, (0,))], lambda k, r: [], [Slot(pool, 1, heavy=False)])


def _blas_threads(x: int) -> int:
    from threadpoolctl import threadpool_info

    return max((p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"), default=1)


def test_jobs_run_with_one_blas_thread_and_the_limit_is_lifted_after():
    from threadpoolctl import threadpool_info, threadpool_limits

    from synthcert.audit.schedule import _single_threaded

    with threadpool_limits(2, user_api="blas"):
        before = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
        for _ in range(3):  # the second and third reuse the libraries found by the first
            assert _single_threaded(_blas_threads, 0) == 1
        after = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    assert after == before

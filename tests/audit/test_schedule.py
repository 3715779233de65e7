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
        assert [s.capacity for s in slots] == [1, 1]
        got: dict[int, int] = {}
        run_jobs(
            [Job((i,), i, _square, (i,)) for i in range(20)],
            lambda k, r: got.__setitem__(k, r) or [],
            slots,
        )
    assert got == {i: i * i for i in range(20)}

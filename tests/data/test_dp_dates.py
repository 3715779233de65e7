"""DP bounds of date columns: a public calendar grid, and bounds every date can be decoded in."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))

from real_tables import dated_table

from synthcert.data.schema import DatetimeColumn, NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.privacy.domain import DATE_RANGE, date_grid, estimate_domain, plan_budget


def test_date_grid_is_every_day_of_the_public_range():
    day = DatetimeColumn("d", 18_000.0, 19_000.0)
    grid = date_grid(day)
    assert len(grid) == 73_049  # 1900-01-01 .. 2099-12-31
    assert grid[0] == DatetimeColumn.parse_bound(DATE_RANGE[0], "D") == -25_567.0
    assert np.all(np.diff(grid) == 1.0)
    stamp = DatetimeColumn("s", 1.6e9, 1.7e9, unit="s")
    assert np.array_equal(date_grid(stamp), grid * 86_400.0)


def test_dp_date_bounds_always_decode():
    df = dated_table(1_000)
    schema = Schema(
        (
            DatetimeColumn("opened", 18_262.0, 18_992.0, source="data", nullable=True),
            DatetimeColumn("seen_at", 1.6225e9, 1.6251e9, unit="s", source="data", nullable=True),
            NumericColumn("amount", 0.0, 2_000.0),
        )
    )
    budget = plan_budget(schema, 0.1, 1.0, 0.0)  # a small budget: wide, but valid, bounds
    lo, hi = (DatetimeColumn.parse_bound(d, "D") for d in DATE_RANGE)
    for seed in range(5):
        est = estimate_domain(
            [df], schema, budget, neighboring="unbounded", rng=np.random.default_rng(seed)
        )
        for col in est.schema.columns[:2]:
            scale = 86_400.0 if col.unit == "s" else 1.0
            assert lo * scale <= col.lower < col.upper < hi * scale
            assert not np.isnat(col.to_datetime(np.array([col.lower, col.upper]))).any()


def test_date_bounds_outside_datetime64_are_refused():
    with pytest.raises(DataError, match="datetime64"):
        DatetimeColumn("d", -3.6e6, 9.64e10)
    with pytest.raises(DataError, match="datetime64"):
        DatetimeColumn("s", 0.0, 1e13, unit="s")

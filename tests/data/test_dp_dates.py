"""DP bounds of date columns: public calendar-year buckets, and bounds every date can be decoded
in."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))

from real_tables import dated_table

from synthcert.data.schema import CategoricalColumn, DatetimeColumn, NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.privacy.calendar_buckets import MECHANISM as YEAR_MECHANISM
from synthcert.privacy.calendar_buckets import YEARS, CalendarYears, year_starts
from synthcert.privacy.claims import dp_claim
from synthcert.privacy.domain import compose_claim, estimate_domain, plan_budget
from synthcert.privacy.magnitude_bounds import FAILURE, dp_bounds, threshold


def day(text: str) -> float:
    return DatetimeColumn.parse_bound(text, "D")


def test_calendar_years_are_public_and_hold_their_dates():
    starts = year_starts("D")
    assert len(starts) == YEARS + 1 == 201
    assert starts[0] == day("1900-01-01") == -25_567.0
    assert starts[100] == day("2000-01-01") == 10_957.0 and starts[-1] == day("2100-01-01")
    assert np.array_equal(year_starts("s"), starts * 86_400.0)
    years = CalendarYears("D")
    dates = ["1850-06-01", "1900-01-01", "2021-01-01", "2021-12-31", "2022-01-01", "2099-12-31"]
    x = np.array([day(t) for t in [*dates, "2150-01-01"]] + [np.nan])
    assert years.index(x).tolist() == [0, 0, 121, 121, 122, 199, 199, -1]
    assert years.edges(121) == (day("2021-01-01"), day("2021-12-31"))
    stamps = CalendarYears("s")
    assert stamps.edges(121) == (day("2021-01-01") * 86_400.0, day("2022-01-01") * 86_400.0 - 1)
    assert stamps.index(np.array([day("2022-01-01") * 86_400.0 - 1])).tolist() == [121]


@pytest.mark.parametrize(("noise", "budget"), [("laplace", 0.05), ("gaussian", 2e-4)])
def test_empty_years_pass_the_threshold_rarely(noise, budget):
    """Simulated: data in 2021-2023 only; the bounds land on a year the data does not hold in at
    most FAILURE of the runs (the union bound over the 200 years), and the data's years pass."""
    years = CalendarYears("D")
    counts = np.zeros(YEARS)
    counts[121:124] = 10 * threshold(noise, budget, "bounded", buckets=YEARS)
    rng = np.random.default_rng(0)
    runs, wrong = 400, 0
    want = (day("2021-01-01"), day("2023-12-31"))
    for _ in range(runs):
        got = dp_bounds(counts, noise, budget, neighboring="bounded", integer=True, rng=rng,
                        buckets=years)  # fmt: skip
        assert got is not None
        wrong += got != want
    assert wrong / runs <= FAILURE


def admissions(n: int, seed: int) -> pd.DataFrame:
    """A hospital-like table of n rows: admission dates of 2021-2023 (3 % missing), a timestamp,
    a long-tailed cost, an age, a 12-level ward."""
    rng = np.random.default_rng(seed)
    admitted = pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 1_095, n), unit="D")
    stamp = pd.Timestamp("2022-03-01") + pd.to_timedelta(rng.integers(0, 86_400 * 400, n), "s")
    return pd.DataFrame(
        {
            "admitted": pd.Series(admitted).where(rng.random(n) >= 0.03).dt.strftime("%Y-%m-%d"),
            "seen_at": pd.Series(stamp).dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "cost": np.round(rng.lognormal(8, 1, n), 2),
            "age": rng.integers(0, 100, n),
            "ward": rng.choice([f"w{i}" for i in range(12)], n),
        }
    )


def test_dp_dates_of_a_small_table_stay_in_their_years():
    """A new user's hospital table (5,000 rows, admissions of 2021-2023): the exponential-
    mechanism quantiles over every day of 1900-2099 needed about 114,000 rows and gave bounds
    from 1985 to 2029. The calendar-year buckets give the data's years, and the claim names
    the mechanism."""
    df = admissions(5_000, 1)
    schema = Schema(
        (
            DatetimeColumn("admitted", 18_000.0, 19_000.0, source="data", nullable=True),
            DatetimeColumn("seen_at", 1.6e9, 1.7e9, unit="s", source="data"),
            NumericColumn("cost", 0.0, 1.0, source="data"),
            NumericColumn("age", 0.0, 1.0, source="data", integer=True),
            CategoricalColumn("ward", ("w0", "w1"), source="data"),
        )
    )
    budget = plan_budget(schema, 0.2, 1.0, 1e-6, neighboring="unbounded")
    assert budget.date_columns == ("admitted", "seen_at")
    for seed in range(5):
        est = estimate_domain([df], schema, budget, neighboring="unbounded",
                              rng=np.random.default_rng(seed))  # fmt: skip
        admitted = est.schema.column("admitted")
        assert (admitted.lower, admitted.upper) == (day("2021-01-01"), day("2023-12-31"))
        seen = est.schema.column("seen_at")
        assert (seen.lower, seen.upper) == (
            day("2022-01-01") * 86_400,
            day("2024-01-01") * 86_400 - 1,
        )
    assert any(e.mechanism.startswith(YEAR_MECHANISM) for e in est.ledger)
    synth_claim = dp_claim(
        epsilon=0.8, delta=0.0, rho=None, neighboring="unbounded", n_out=10,
        mechanisms=("laplace",), assumptions=(),
    )  # fmt: skip
    claim = compose_claim(synth_claim, est, 1.0, 1e-6)
    assert YEAR_MECHANISM in claim.mechanisms
    split = next(a for a in claim.assumptions if a.name == "domain_split").value
    assert "admitted: calendar-year buckets at rho" in split
    assert "cost: magnitude buckets at rho" in split
    lines = budget.needs()
    assert any(line.startswith("admitted: DP calendar-year buckets at rho") for line in lines)


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
    lo, hi = year_starts("D")[[0, -1]]
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

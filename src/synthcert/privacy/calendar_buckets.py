"""Public calendar-year buckets: the DP bounds of a date column from a noisy histogram of years.

The exponential mechanism over every day from 1900 to 2099 (73,049 candidates) needs a tail of
about 2 ln(73,049 / 0.05) / (0.01 epsilon) records before its 1 % quantile stops landing in the
flat region beyond the data: some 114,000 rows at a column's epsilon of 0.025, and on fewer a
table of 2021-2023 admissions came out spread over 1985-2029. A date column's bounds come
instead from the mechanism of :mod:`synthcert.privacy.magnitude_bounds` on these buckets:

* **Buckets (public).** One per calendar year from :data:`FIRST_YEAR` to :data:`LAST_YEAR`
  (200 buckets), in the column's unit (days or seconds since 1970-01-01, proleptic Gregorian).
  A date before the first year counts in the first bucket, one after the last year in the
  last; a missing or unparsable date in none.
* **Sensitivity, noise, threshold.** As for the magnitude buckets: one record is in at most one
  bucket, so adding or removing it moves one count by 1 and replacing it one unit between two
  counts; the threshold T makes all B empty buckets together pass with probability at most
  beta (:func:`synthcert.privacy.magnitude_bounds.threshold` with B = :data:`YEARS`).
* **Bounds (post-processing).** The first instant of the lowest kept year and the last whole
  unit of the highest (31 December, or 23:59:59 on it for a timestamp column).

A year holds a bound once about T records fall in it, however far 1900-2099 reaches: T is in
the hundreds at the budgets a wide table leaves each column, where the quantiles needed about
10^5 rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FIRST_YEAR = 1900
LAST_YEAR = 2099
YEARS = LAST_YEAR - FIRST_YEAR + 1
MECHANISM = "noisy calendar-year histogram (data-derived date bounds)"
SECONDS_PER_DAY = 86_400.0


def year_starts(unit: str) -> np.ndarray:
    """1 January of every year FIRST_YEAR..LAST_YEAR + 1 (YEARS + 1 edges), in ``unit`` ("D":
    days, "s": seconds) since 1970-01-01."""
    years = np.arange(FIRST_YEAR, LAST_YEAR + 2) - 1970  # datetime64[Y] counts from 1970
    days = years.astype("datetime64[Y]").astype("datetime64[D]").astype(np.int64)
    return days.astype(np.float64) * (SECONDS_PER_DAY if unit == "s" else 1.0)


@dataclass(frozen=True)
class CalendarYears:
    """The calendar-year buckets of a date column in ``unit``, as a
    :class:`~synthcert.privacy.magnitude_bounds.BucketSet`."""

    unit: str = "D"
    size: int = YEARS
    mechanism: str = MECHANISM

    def index(self, x: np.ndarray) -> np.ndarray:
        """The year of each value, 0..YEARS-1 (clipped at both ends); -1 for NaN."""
        x = np.asarray(x, dtype=np.float64)
        starts = year_starts(self.unit)
        idx = np.clip(np.searchsorted(starts, x, side="right") - 1, 0, YEARS - 1)
        return np.where(np.isnan(x), -1, idx).astype(np.int64)

    def edges(self, i: int) -> tuple[float, float]:
        """[1 January, the last whole unit of 31 December] of year ``i``."""
        starts = year_starts(self.unit)
        return float(starts[i]), float(starts[i + 1] - 1.0)


__all__ = [
    "FIRST_YEAR",
    "LAST_YEAR",
    "MECHANISM",
    "YEARS",
    "CalendarYears",
    "year_starts",
]

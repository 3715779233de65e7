"""DP bounds of a numeric column from a noisy histogram of public magnitude buckets.

The exponential mechanism over a wide public grid (:func:`synthcert.privacy.domain.dp_quantile`)
needs its tail to hold about 2 ln(C / beta) / epsilon records, C ~ 34,000 candidates: with the
epsilon a wide table leaves each column, tens of thousands of rows, and on fewer the quantile
lands anywhere among the candidates beyond the data (bounds of 10^11 for a column of wages).
Here each bucket is thresholded on its own, so what a bound needs does not grow with the grid's
reach (Korolova et al. 2009's stability idea on a public histogram; the magnitude buckets of
Google's ApproxBounds):

* **Buckets (public).** The value 0, and for each sign the intervals between consecutive
  points of {1, 2, 5} x 10^k, k = -6..12, closed by 10^13: [1e-6, 2e-6), [2e-6, 5e-6), ...,
  [5e12, 1e13] and their mirror images, :data:`BUCKETS` = 115 in all. A value nearer 0 than
  1e-6 counts in the innermost bucket of its sign, one beyond 1e13 in the outermost; a missing
  or unparsable value in none.
* **Sensitivity.** One record is in at most one bucket: adding or removing it changes one
  count by 1 (Delta_1 = Delta_2 = 1), replacing it moves one unit between two counts
  (Delta_1 = 2, Delta_2 = sqrt(2)).
* **Noise.** Discrete Laplace of scale Delta_1 / epsilon (epsilon-DP: thesis Def. 2.3.12,
  Canonne, Kamath & Steinke 2020) on the pure route, or discrete Gaussian of
  sigma^2 = Delta_2^2 / (2 rho) (rho-zCDP: CKS 2020, Thm. 4) on the zCDP route of the domain
  step (:class:`synthcert.privacy.domain.DomainBudget`).
* **Threshold (public).** A bucket is kept when its noisy count reaches T: an empty bucket
  passes with probability at most beta / B (Laplace: Pr[Z >= T] <= exp(-T / scale),
  T = scale ln(B / beta); Gaussian: :func:`synthcert.privacy.thresholds.gaussian_threshold` at
  beta / B), so all B empty buckets together with at most beta = :data:`FAILURE`. A kept
  bucket with no other kept bucket within :data:`NEIGHBOURHOOD` positions must also reach the
  stricter T of beta / :data:`ISOLATED` (a column's data fills neighbouring buckets; a lone
  empty bucket passing T set bounds 10^9 away from the data in about 4 % of columns).
* **Bounds (post-processing).** The lower edge of the lowest kept bucket and the upper edge of
  the highest (the innermost buckets of each sign reach 0, so values nearer 0 than 1e-6 stay
  inside), rounded outwards for an integer column; [0, 1] when only the bucket of 0 is kept;
  None when none is (the caller's public fallback rule). Values beyond are clipped by the
  synthesizer, as with any bound: the tails beyond the last bucket holding about T records,
  and any value beyond 10^13 in magnitude (declare public bounds for such a column).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from synthcert.errors import ParameterError
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.mechanisms import gaussian_mechanism, laplace_mechanism
from synthcert.privacy.thresholds import gaussian_threshold, threshold_sigma2

MECHANISM = "noisy magnitude histogram (data-derived numeric bounds)"
FAILURE = 0.05  # beta: the chance that some empty bucket passes the threshold
ISOLATED = 1_000  # a lone kept bucket must pass the threshold of beta / ISOLATED
NEIGHBOURHOOD = 2  # ... lone: no other kept bucket within this many positions
_POINTS = np.array([m * 10.0**k for k in range(-6, 13) for m in (1.0, 2.0, 5.0)] + [1e13])
POSITIVE_EDGES = np.array([float(f"{p:.0e}") for p in _POINTS])  # exact decimal points
_K = len(POSITIVE_EDGES) - 1  # buckets of one sign
BUCKETS = 2 * _K + 1  # negative buckets (outermost first), the bucket of 0, positive buckets
Rng = np.random.Generator


def bucket_index(x: np.ndarray) -> np.ndarray:
    """The bucket of each value, 0..BUCKETS-1 in increasing order of value; -1 for NaN."""
    x = np.asarray(x, dtype=np.float64)
    mag = np.clip(np.abs(x), POSITIVE_EDGES[0], POSITIVE_EDGES[-1])
    k = np.clip(np.searchsorted(POSITIVE_EDGES, mag, side="right") - 1, 0, _K - 1)
    idx = np.where(x > 0, _K + 1 + k, np.where(x < 0, _K - 1 - k, _K))
    return np.where(np.isnan(x), -1, idx).astype(np.int64)


def bucket_counts(x: np.ndarray) -> np.ndarray:
    """Counts of the non-missing values of ``x`` in every magnitude bucket (private)."""
    return counts_in(MAGNITUDES, x)


def bucket_edges(i: int) -> tuple[float, float]:
    """[lower, upper] of bucket ``i`` (the bucket of 0 is [0, 0])."""
    if i == _K:
        return 0.0, 0.0
    if i > _K:
        k = i - _K - 1
        return float(POSITIVE_EDGES[k]) if k else 0.0, float(POSITIVE_EDGES[k + 1])
    k = _K - 1 - i
    return -float(POSITIVE_EDGES[k + 1]), -float(POSITIVE_EDGES[k]) if k else 0.0


def sensitivities(neighboring: str) -> tuple[float, float]:
    """(Delta_1, Delta_2) of the bucket counts: (1, 1) add/remove, (2, sqrt 2) replace-one."""
    return (2.0, math.sqrt(2.0)) if neighboring == "bounded" else (1.0, 1.0)


def threshold(
    noise: str, budget: float, neighboring: str, failure: float = FAILURE, buckets: int = BUCKETS
) -> int:
    """T: an empty bucket's noisy count reaches it with probability at most failure / B, B the
    number of ``buckets`` (module docstring). Public: the budget, the relation and the rule."""
    l1, _ = sensitivities(neighboring)
    if noise == "laplace":
        return max(1, math.ceil(l1 / budget * math.log(buckets / failure)))
    if noise == "gaussian":
        return gaussian_threshold(threshold_sigma2(budget, neighboring), failure / buckets)
    raise ParameterError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")


class BucketSet(Protocol):
    """A public partition of the line into ``size`` buckets, numbered in increasing order of
    value: :data:`MAGNITUDES` here, :class:`synthcert.privacy.calendar_buckets.CalendarYears`
    for dates. The mechanism of :func:`dp_bounds` holds for any such set, since one record is
    in at most one bucket whatever the edges."""

    size: int
    mechanism: str

    def index(self, x: np.ndarray) -> np.ndarray:
        """The bucket of each value, 0..size-1; -1 for a missing value."""
        ...

    def edges(self, i: int) -> tuple[float, float]:
        """[lower, upper] of bucket ``i``."""
        ...


@dataclass(frozen=True)
class MagnitudeBuckets:
    """The magnitude buckets of the module docstring, as a :class:`BucketSet`."""

    size: int = BUCKETS
    mechanism: str = MECHANISM

    def index(self, x: np.ndarray) -> np.ndarray:
        """:func:`bucket_index`."""
        return bucket_index(x)

    def edges(self, i: int) -> tuple[float, float]:
        """:func:`bucket_edges`."""
        return bucket_edges(i)


MAGNITUDES = MagnitudeBuckets()


def counts_in(buckets: BucketSet, x: np.ndarray) -> np.ndarray:
    """Counts of the non-missing values of ``x`` in every bucket of ``buckets`` (private)."""
    idx = buckets.index(x)
    return np.bincount(idx[idx >= 0], minlength=buckets.size)


def noisy_histogram(
    counts: np.ndarray,
    size: int,
    noise: str,
    budget: float,
    *,
    neighboring: str,
    rng: Rng,
    accountant: PrivacyAccountant | None = None,
    name: str = MECHANISM,
) -> np.ndarray:
    """The ``size`` counts of a histogram in which one record is in at most one bucket, with
    discrete noise (module docstring): Laplace of scale Delta_1 / epsilon (``noise="laplace"``,
    ``budget`` = epsilon) or Gaussian of sigma^2 = Delta_2^2 / (2 rho) (``"gaussian"``,
    ``budget`` = rho), the sensitivities of ``neighboring`` (:func:`sensitivities`); recorded
    in ``accountant``."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.shape != (size,):
        raise ParameterError(f"{size} bucket counts expected, got {counts.shape}")
    l1, l2 = sensitivities(neighboring)
    if noise == "laplace":
        return laplace_mechanism(
            counts, l1, budget, integer=True, rng=rng, accountant=accountant, name=name
        )
    if noise == "gaussian":
        return gaussian_mechanism(
            counts, l2, rho=budget, integer=True, rng=rng, accountant=accountant, name=name
        )
    raise ParameterError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")


def dp_bounds(
    counts: np.ndarray,
    noise: str,
    budget: float,
    *,
    neighboring: str,
    integer: bool,
    rng: Rng,
    accountant: PrivacyAccountant | None = None,
    name: str = MECHANISM,
    buckets: BucketSet = MAGNITUDES,
) -> tuple[float, float] | None:
    """DP (lower, upper) from the counts of one column in ``buckets`` (the magnitude buckets by
    default), or None when no bucket passes.

    ``budget`` is epsilon (``noise="laplace"``) or rho (``"gaussian"``); the mechanism is
    recorded in ``accountant``. Everything after the noise is post-processing.
    """
    noisy = noisy_histogram(
        counts, buckets.size, noise, budget, neighboring=neighboring, rng=rng,
        accountant=accountant, name=name,
    )  # fmt: skip
    kept = np.flatnonzero(noisy >= threshold(noise, budget, neighboring, FAILURE, buckets.size))
    strict = threshold(noise, budget, neighboring, FAILURE / ISOLATED, buckets.size)
    near = np.abs(kept[:, None] - kept[None, :]) <= NEIGHBOURHOOD
    alone = near.sum(axis=1) == 1  # itself only
    kept = kept[~alone | (noisy[kept] >= strict)]
    if kept.size == 0:
        return None
    lower, upper = buckets.edges(int(kept[0]))[0], buckets.edges(int(kept[-1]))[1]
    if integer:
        return whole_bounds(lower, upper)
    if lower == upper:  # only the bucket of 0: a public unit range
        upper = lower + 1.0
    return lower, upper


def whole_bounds(lower: float, upper: float) -> tuple[float, float]:
    """Bounds rounded outwards to whole numbers, a unit range when they meet: public
    post-processing of the DP bounds of an integer column."""
    lo, hi = float(math.floor(lower)), float(math.ceil(upper))
    return (lo, hi) if hi > lo else (lo, lo + 1.0)


def per_column_budget(noise: str, quantile_epsilon: float) -> float:
    """The histogram's budget from what the domain plan gives a numeric column: its two
    quantiles' worth, 2 epsilon_q (pure route), or 2 epsilon_q^2 / 8 of rho (zCDP route, the
    exponential mechanism being epsilon^2/8-zCDP), so the step's total is unchanged."""
    if noise == "laplace":
        return 2.0 * quantile_epsilon
    return float(Fraction(quantile_epsilon) ** 2 / 4)


__all__ = [
    "BUCKETS",
    "FAILURE",
    "ISOLATED",
    "MAGNITUDES",
    "MECHANISM",
    "NEIGHBOURHOOD",
    "POSITIVE_EDGES",
    "BucketSet",
    "MagnitudeBuckets",
    "bucket_counts",
    "bucket_edges",
    "bucket_index",
    "counts_in",
    "dp_bounds",
    "noisy_histogram",
    "per_column_budget",
    "sensitivities",
    "threshold",
    "whole_bounds",
]

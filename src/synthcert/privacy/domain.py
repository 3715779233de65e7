"""A DP domain: bounds and category lists estimated with a declared share of the budget.

A schema drafted from the table (``"source": "data"``) publishes the minimum, maximum and the
categories present outside any accounting. ``--private-domain SHARE`` replaces every such part
by a differentially private estimate and marks it ``"source": "dp"``:

* **numeric bounds**: by default a noisy histogram of public magnitude buckets (0, and
  [1, 2), [2, 5), [5, 10) x 10^k for each sign), whose extreme buckets that pass a public
  threshold give the bounds (:mod:`synthcert.privacy.magnitude_bounds`: one record changes
  one count, so each bucket is judged on its own and a bound needs the same few records
  however far the grid reaches); a date column the same mechanism on public calendar years,
  1900 to 2099 (:mod:`synthcert.privacy.calendar_buckets`); a column given a public range
  (``--param domain_range``) gets two DP quantiles (the 1% and 99% ones), each by the
  exponential mechanism over a *public* candidate grid (Smith 2011; McSherry & Talwar 2007;
  one quantile at a time as in Gillenwater, Joseph & Kulesza 2021, section 2). The score of a
  candidate c is minus the distance from q m to the rank interval [#{x < c}, #{x <= c}]
  (0 when c is a q-quantile), m the column's non-missing count; adding, removing or replacing
  one record moves each end of the interval by at most 1 and q m by at most q, so
  Delta u <= 1 under both neighbouring relations. The interval (not the single rank
  #{x <= c}) matters for discrete columns, whose quantile sits on a tie. The grid never
  depends on the data: a log-spaced grid of +-{1.00, 1.01, ..., 9.99} x 10^k, k = -6..12,
  and 0 (integers only for an integer column), or a user-given public range per column.
* **category lists**: a stability-based histogram (Korolova et al. 2009; Vadhan 2017,
  Theorem 3.5) with Gaussian noise (Wilson et al. 2020): discrete Gaussian noise of variance
  sigma^2 = Delta_2^2 / (2 rho) on the count of every observed value, and a value is kept when
  its noisy count reaches the threshold T of :func:`gaussian_threshold`: a value held by one
  record alone then appears with probability at most delta_c. Delta_2^2 = 1 under add/remove
  neighbours (one count moves), 2 under replace-one (two counts move). This is
  delta_c-approximately rho-zCDP (:func:`stability_categories`), never pure.

The ``nullable`` and ``integer`` flags a draft read from the table (``"nullable_source"`` /
``"integer_source": "data"``) get a PUBLIC RULE instead of an estimate (:func:`flag_rule`,
applied before anything else, so the grids do not depend on them either): every such column is
nullable (its missing share is modelled, so a blanked value is never an event of probability 0)
and such a numeric column is not integer (decoding draws within bins). The rule costs no budget.
After it, a numeric column whose ``integer`` was read from the data gets a DP test of its
whole and fractional counts (:mod:`synthcert.privacy.integer_flag`), paid from its bounds'
budget (a part of its buckets', or of its two quantiles' when it has a public range): whole,
it is decoded to whole numbers.

The budget is split over the data-derived columns by a PUBLIC rule (:func:`plan_budget`): a
declared share per column (``--domain-share``), the rest in proportion to 1 per quantile (two per
numeric column) and :func:`category_weight` (>= 2) per category list. Without category lists the
quantiles' epsilons add up (pure DP); with lists every step is composed in zCDP (the exponential
mechanism is epsilon^2/8-zCDP, Cesar & Rogers 2021) and the shares split the rho that converts
to the step's (epsilon, delta), half of delta going to the lists' tails
(:class:`DomainBudget`). With 31 numeric and 19 categorical data-derived columns at a domain
budget of (0.2, 2e-7), a category then needs about 930 records to be kept under add/remove
neighbours (1,320 under replace-one), against about 7,700 with discrete Laplace noise and
epsilons added up. A list that keeps fewer than two values drops its
column from the model and the output (:func:`estimate_domain`): a rule applied to the DP output,
with a warning that depends on it only, instead of stopping the run. :meth:`DomainBudget.needs`
states, before the run, the rows each column's share needs (public figures only).

Only the kept categories and the chosen bounds are published (post-processing). Each step is
recorded in a :class:`~synthcert.privacy.accountant.PrivacyAccountant` of budget
(SHARE x epsilon, delta_domain); the run's claim is the basic composition of that step and the
synthesizer (:func:`compose_claim`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, cast

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.encode import category_text, numeric_values
from synthcert.data.schema import (
    CategoricalColumn,
    Column,
    DatetimeColumn,
    NumericColumn,
    Schema,
)
from synthcert.errors import AssumptionError, DataError, ParameterError
from synthcert.privacy.accountant import (
    TOLERANCE,
    LedgerEntry,
    PrivacyAccountant,
    Spent,
    rho_from_epsilon_delta,
)
from synthcert.privacy.calendar_buckets import MECHANISM as YEAR_MECHANISM
from synthcert.privacy.calendar_buckets import YEARS, CalendarYears
from synthcert.privacy.claims import Assumption, PrivacyClaim
from synthcert.privacy.integer_flag import MECHANISM as INTEGER_MECHANISM
from synthcert.privacy.integer_flag import PART as INTEGER_PART
from synthcert.privacy.integer_flag import ROUND_FAILURE, dp_integer, whole_counts
from synthcert.privacy.magnitude_bounds import (
    BUCKETS,
    MAGNITUDES,
    BucketSet,
    counts_in,
    dp_bounds,
    per_column_budget,
    whole_bounds,
)
from synthcert.privacy.magnitude_bounds import MECHANISM as BUCKET_MECHANISM
from synthcert.privacy.magnitude_bounds import threshold as bucket_threshold
from synthcert.privacy.mechanisms import discrete_gaussian_noise, exponential_mechanism
from synthcert.privacy.thresholds import (
    gaussian_log_tail,
    gaussian_threshold,
    sensitivity_sq,
    threshold_sigma2,
)

DP_SOURCE = "dp"  # the schema source of a part estimated here
DEFAULT_QUANTILES = (0.01, 0.99)
RANGE_POINTS = 1001  # candidates of a user-given public range (integer columns: every integer)
MAX_INTEGER_POINTS = 100_001
QUANTILE_MECHANISM = "exponential mechanism (DP quantiles: data-derived numeric bounds)"
THRESHOLD_MECHANISM = "discrete Gaussian threshold (stability histogram: data-derived categories)"
Rng = np.random.Generator


def default_grid(*, positive_only: bool = False, integer: bool = False) -> np.ndarray:
    """The public candidate grid: 0 and +-m 10^k, m in {1.00, 1.01, ..., 9.99}, k = -6..12.

    Relative resolution 0.1% to 1% over 19 decades (34,201 points), with every integer from 1
    to 999 on it; ``integer`` keeps the distinct rounded values (integer columns: no fractions).
    It depends on nothing but this definition. The fine resolution matters: when a column's
    tail quantile and its extreme fall in one grid cell, every candidate beyond the data ties
    with the best one (see :func:`quantile_scores`).
    """
    pos = np.array(
        [float(f"{j // 100}.{j % 100:02d}e{k}") for k in range(-6, 13) for j in range(100, 1000)]
    )
    if integer:
        pos = np.unique(np.round(pos[pos >= 1.0]))
    if positive_only:
        return pos
    return np.concatenate([-pos[::-1], [0.0], pos])


def range_grid(lower: float, upper: float, *, integer: bool = False) -> np.ndarray:
    """Candidates over a user-given PUBLIC range: every integer (integer columns, up to 100,001
    of them), else 1,001 equally spaced points."""
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise AssumptionError(
            f"a public domain range needs finite LO < HI, got {lower}:{upper}",
            assumption="a public range LO < HI",
            admissible="for example --param domain_range=age=0:120",
        )
    if integer:
        lo, hi = math.ceil(lower), math.floor(upper)
        if hi > lo and hi - lo + 1 <= MAX_INTEGER_POINTS:
            return np.arange(lo, hi + 1, dtype=np.float64)
    return np.linspace(lower, upper, RANGE_POINTS)


def reliable_rows(epsilon: float, q: float, candidates: int, failure: float = 0.05) -> float:
    """The table size m from which a DP q-quantile on ``candidates`` points rarely lands in the
    flat region beyond the data: there every candidate scores at most -min(q, 1-q) m, so their
    total probability is below candidates x exp(-epsilon min(q, 1-q) m / 2) <= ``failure``
    once m >= 2 ln(candidates / failure) / (epsilon min(q, 1-q)). Public (no data)."""
    return 2.0 * math.log(candidates / failure) / (epsilon * min(q, 1.0 - q))


def column_grid(column: NumericColumn, ranges: Mapping[str, tuple[float, float]]) -> np.ndarray:
    """The public grid of one column: its declared range, else :func:`default_grid` (positive
    points only for a column declared on a log scale, integers only for an integer column)."""
    if column.name in ranges:
        lo, hi = ranges[column.name]
        return range_grid(float(lo), float(hi), integer=column.integer)
    log = getattr(column, "scale", None) == "log"
    return default_grid(positive_only=log, integer=column.integer)


# -- the two mechanisms -----------------------------------------------------------------------
def quantile_scores(below: np.ndarray, upto: np.ndarray, m: int, q: float) -> np.ndarray:
    """u(c_j) = -max(0, #{x < c_j} - q m, q m - #{x <= c_j}): minus the distance from q m to the
    rank interval of each candidate (``below`` = #{x < c_j}, ``upto`` = #{x <= c_j})."""
    t = q * float(m)
    lo = np.asarray(below, dtype=np.float64)
    hi = np.asarray(upto, dtype=np.float64)
    return -np.maximum(0.0, np.maximum(lo - t, t - hi))


def dp_quantile(
    below: np.ndarray,
    upto: np.ndarray,
    m: int,
    grid: np.ndarray,
    q: float,
    epsilon: float,
    *,
    rng: Rng,
    accountant: PrivacyAccountant | None = None,
    name: str = QUANTILE_MECHANISM,
    base: np.ndarray | None = None,
) -> float:
    """The q-quantile of a column by the exponential mechanism over a public grid.

    epsilon-DP with score sensitivity 1 (module docstring; McSherry & Talwar 2007, Thm 6):
    Pr[c_j] proportional to exp(epsilon u(c_j) / 2), u of :func:`quantile_scores`; with a
    PUBLIC base measure ``base`` (positive weights mu_j, McSherry & Talwar's general form),
    Pr[c_j] proportional to mu_j exp(epsilon u(c_j) / 2): the term (2 / epsilon) ln mu_j added
    to every score is the same on neighbouring tables, so the sensitivity stays 1.
    """
    if not 0 < q < 1:
        raise AssumptionError(f"a quantile level must lie in (0, 1), got {q}")
    scores = quantile_scores(below, upto, m, q)
    if base is not None:
        mu = np.asarray(base, dtype=np.float64)
        if mu.shape != scores.shape or not np.all(mu > 0):
            raise AssumptionError("a base measure needs one positive weight per candidate")
        scores = scores + (2.0 / epsilon) * np.log(mu)
    idx = exponential_mechanism(scores, 1.0, epsilon, rng=rng, accountant=accountant, name=name)
    return float(grid[idx])


def discrete_gaussian(sigma2: float | Fraction, size: int, rng: Rng) -> np.ndarray:
    """Integer noise with Pr[Z = k] proportional to exp(-k^2 / (2 sigma^2)), drawn exactly
    (Canonne, Kamath & Steinke 2020, Algorithm 3, :func:`synthcert.privacy.discrete.
    discrete_gaussian`): uniform integers and exact Bernoulli(exp(-gamma)) trials only, with no
    floating-point inversion and no cut-off tail. ``sigma2`` is taken as the exact rational it
    denotes (a float's binary value). Delta_2^2 / (2 sigma^2)-zCDP for integer queries of L2
    sensitivity Delta_2 (CKS 2020, Theorem 4)."""
    return discrete_gaussian_noise(size, Fraction(sigma2), rng=rng)


def stability_categories(
    counts: Mapping[str, int],
    rho: float,
    delta: float,
    *,
    neighboring: str,
    rng: Rng,
    accountant: PrivacyAccountant | None = None,
    name: str = THRESHOLD_MECHANISM,
) -> tuple[str, ...]:
    """The observed values whose noisy count reaches the stability threshold, sorted.

    delta-approximately rho-zCDP (Bun & Steinke 2016, section 8): discrete Gaussian noise of
    sigma^2 = Delta_2^2 / (2 rho) on the count of every observed value, kept when the noisy
    count reaches T (:func:`gaussian_threshold`). Neighbouring tables x, x' share every value
    but at most one on each side, held by the differing record alone (count 1); let E be the
    event that x's such value is not kept (probability >= 1 - delta), E' the same for x'. The
    noise of each value is independent, so given E and E' the outputs are the thresholded
    noisy counts of the shared values, which differ between x and x' by at most Delta_2 in L2
    norm (sqrt 2 under replace-one, 1 under add/remove): rho-zCDP by post-processing. The
    accountant charges the conditioning (:func:`synthcert.privacy.accountant.
    approx_zcdp_epsilon`).
    """
    if not (rho > 0 and math.isfinite(rho)):
        raise AssumptionError(f"a category list needs a finite rho > 0, got {rho}")
    sigma2 = threshold_sigma2(rho, neighboring)
    threshold = gaussian_threshold(sigma2, delta)
    keys = sorted(counts)
    noisy = np.array([counts[k] for k in keys], dtype=np.int64) + discrete_gaussian(
        sigma2, len(keys), rng
    )
    if accountant is not None:
        accountant.record_approx_zcdp(name, rho, delta)
    return tuple(k for k, v in zip(keys, noisy, strict=True) if v >= threshold)


# -- sufficient statistics ----------------------------------------------------------------------
@dataclass
class DomainCounts:
    """Per data-derived column: ranks on the public grid (numeric) or value counts
    (categorical), accumulated chunk by chunk. Private: never published."""

    schema: Schema
    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    integer_columns: tuple[str, ...] = ()  # the columns whose integer flag is estimated
    grids: dict[str, np.ndarray] = field(init=False)
    buckets: dict[str, np.ndarray] = field(init=False)  # bucket-histogram counts
    whole: dict[str, np.ndarray] = field(init=False)  # (whole, fractional) counts
    cells: dict[str, np.ndarray] = field(init=False)
    ties: dict[str, np.ndarray] = field(init=False)
    nonmissing: dict[str, int] = field(init=False)
    values: dict[str, Counter[str]] = field(init=False)
    rows: int = field(init=False)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.ranges) - {c.name for c in data_numeric(self.schema)})
        if unknown:
            raise AssumptionError(
                f"--param domain_range names {', '.join(unknown)}, which is not a numeric column "
                'with data-derived bounds ("source": "data") in the schema',
                assumption="a range for a data-derived numeric column",
                admissible=", ".join(c.name for c in data_numeric(self.schema)) or "none",
            )
        self.grids = {
            c.name: column_grid(c, self.ranges)
            for c in data_numeric(self.schema)
            if not by_buckets(c, self.ranges)
        }
        self.buckets = {
            c.name: np.zeros(bucket_set(c).size, dtype=np.int64)
            for c in data_numeric(self.schema)
            if by_buckets(c, self.ranges)
        }
        self.whole = {n: np.zeros(2, dtype=np.int64) for n in self.integer_columns}
        self.cells = {k: np.zeros(len(g) + 1, dtype=np.int64) for k, g in self.grids.items()}
        self.ties = {k: np.zeros(len(g), dtype=np.int64) for k, g in self.grids.items()}
        self.nonmissing = dict.fromkeys(self.grids, 0)
        self.values = {c.name: Counter() for c in data_categorical(self.schema)}
        self.rows = 0

    def update(self, chunk: pd.DataFrame) -> DomainCounts:
        """Add one chunk of rows (missing and non-numeric values are skipped, by public rule)."""
        absent = [n for n in [*self.grids, *self.buckets, *self.values] if n not in chunk.columns]
        if absent:
            raise DataError(f"the input has no column(s) {absent}")
        self.rows += len(chunk)
        for name, grid in self.grids.items():
            # the column's own parser: dates become days or seconds since 1970, text NaN
            x = numeric_values(chunk[name], self.schema.column(name))  # type: ignore[arg-type]
            self.nonmissing[name] += add_to_grid(x, grid, self.cells[name], self.ties[name])
            if name in self.whole:
                self.whole[name] += whole_counts(x)
        for name, counts in self.buckets.items():
            col = cast(NumericColumn, self.schema.column(name))
            x = numeric_values(chunk[name], col)
            counts += counts_in(bucket_set(col), x)
            if name in self.whole:
                self.whole[name] += whole_counts(x)
        for name, counter in self.values.items():
            # the encoder's own reading (an integer code 1 read as 1.0 next to a blank is "1"),
            # so whether a column has a missing value never changes a category's name
            s = category_text(chunk[name], self.schema.column(name))  # type: ignore[arg-type]
            counter.update(s[s.notna()].tolist())
        return self

    def ranks(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(#{x < c_j}, #{x <= c_j}) for every candidate c_j of the column's grid."""
        return grid_ranks(self.cells[name], self.ties[name])


def add_to_grid(x: np.ndarray, grid: np.ndarray, cells: np.ndarray, ties: np.ndarray) -> int:
    """Add the non-missing values of ``x`` to the rank counts of a sorted public ``grid``, in
    place: ``cells[j]`` counts the values in (g_{j-1}, g_j] (``len(grid) + 1`` cells, the last
    beyond the grid), ``ties[j]`` those equal to g_j. Returns how many values were added."""
    x = np.asarray(x, dtype=np.float64)
    x = x[~np.isnan(x)]
    idx = np.searchsorted(grid, x, side="left")
    cells += np.bincount(idx, minlength=len(grid) + 1)
    on_grid = idx < len(grid)
    on_grid[on_grid] = grid[idx[on_grid]] == x[on_grid]
    ties += np.bincount(idx[on_grid], minlength=len(grid))
    return int(x.size)


def grid_ranks(cells: np.ndarray, ties: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(#{x < c_j}, #{x <= c_j}) for every grid point c_j from :func:`add_to_grid`'s counts."""
    upto = np.cumsum(cells)[:-1]
    return upto - ties, upto


def by_buckets(column: NumericColumn, ranges: Mapping[str, tuple[float, float]]) -> bool:
    """Whether a data-derived numeric column's bounds come from a noisy bucket histogram (a
    public rule): every one but a column given a public range, which keeps the
    exponential-mechanism quantiles on its grid."""
    return column.name not in ranges


def integer_estimated(column: NumericColumn) -> bool:
    """Whether a data-derived numeric column's integer flag gets a DP estimate
    (:mod:`synthcert.privacy.integer_flag`): a public rule on the schema's marks, whatever the
    flag's value. A date column is whole by kind."""
    return column.integer_source == "data" and not isinstance(column, DatetimeColumn)


def bucket_set(column: NumericColumn) -> BucketSet:
    """The public buckets of a column bounded by buckets: calendar years for a date column
    (:mod:`synthcert.privacy.calendar_buckets`), magnitudes for any other."""
    if isinstance(column, DatetimeColumn):
        return CalendarYears(column.unit)
    return MAGNITUDES


def data_numeric(schema: Schema) -> list[NumericColumn]:
    """The numeric columns whose bounds were read from the data."""
    return [c for c in schema.numeric if c.source == "data"]


def data_categorical(schema: Schema) -> list[CategoricalColumn]:
    """The categorical columns whose categories were read from the data."""
    return [c for c in schema.categorical if c.source == "data"]


def refuse_data_structure(schema: Schema) -> None:
    """Refuse column kinds (with a date's unit and a category's dtype) or a choice of dropped
    columns read from the data: no estimate here covers them, and one record can flip them
    (an eleventh distinct value turns a categorical column numeric, one time of day turns a
    date column's unit to seconds, one differing value keeps a constant column). The check
    reads the schema only, so neighbouring tables are refused alike, before any row is read.
    """
    structural = [f for f in schema.data_flags if f.endswith(": kind") or f.startswith("(")]
    if structural:
        raise AssumptionError(
            "the schema's " + ", ".join(structural) + " were read from the data "
            '("kind_source" or "drop_source": "data"); --param private_domain estimates bounds and '
            "category lists, not what a column is. Review the kinds (numeric, datetime with "
            "its unit, categorical with its dtype) and the dropped columns, then declare them "
            'public: `synthcert schema infer ... --public-kinds`, or set them to "public" '
            "in the schema file",
            assumption="public column kinds",
            admissible='"kind_source": "public" and "drop_source": "public"',
        )


def flag_rule(schema: Schema) -> Schema:
    """The public rule for data-derived flags: ``nullable`` when ``nullable_source`` is
    ``"data"``, not ``integer`` when ``integer_source`` is ``"data"``; both flags are then public
    (a rule of this step, the same for every table). Other columns are returned unchanged."""
    cols: list[Column] = []
    for col in schema.columns:
        change: dict[str, Any] = {}
        if col.nullable_source == "data":
            change.update(nullable=True, nullable_source="public")
        if isinstance(col, NumericColumn) and col.integer_source == "data":
            change.update(integer=False, integer_source="public")
        cols.append(replace(col, **change) if change else col)
    return replace(schema, columns=tuple(cols))


# -- the estimate --------------------------------------------------------------------------------
REFERENCE_CANDIDATES = 34_201  # len(default_grid()): the grid the allocation rule assumes
RELIABILITY_FAILURE = 0.05  # the failure probability of reliable_rows
CATEGORY_FLOOR = 2.0  # a category list weighs at least a numeric column (two quantiles)


def category_weight(delta_per_list: float, neighboring: str) -> float:
    """The weight (in rho) of one DP category list against one DP quantile (weight 1):
    r = max(2, 2 Delta_2^2 ln(1/delta_c) / ln(C / beta)^2).

    The second term balances the records each mechanism needs in the cell it estimates, at the
    same share of rho: a value is kept (with probability 1/2) once its count reaches
    T - 1 ~ sigma sqrt(2 ln(1/delta_c)) = Delta_2 sqrt(ln(1/delta_c) / rho_c)
    (:func:`gaussian_threshold`, sigma^2 = Delta_2^2 / (2 rho_c)); a q-quantile of
    epsilon_q = sqrt(8 rho_q) (the exponential mechanism is epsilon^2/8-zCDP) is reliable once
    its tail holds q m = 2 ln(C / beta) / epsilon_q = ln(C / beta) / sqrt(2 rho_q) records
    (:func:`reliable_rows`, C = :data:`REFERENCE_CANDIDATES`, beta = 0.05); equal when
    rho_c / rho_q is the second term, about 0.4 under replace-one at delta_c = 1e-8. The floor
    2 gives a list at least what a numeric column gets (its two quantiles), because the
    failures differ: a quantile short of rows lands beyond the data and still gives valid
    (wide) bounds, a list short of records keeps fewer than two values and loses its column
    (:func:`estimate_domain`). A PUBLIC rule: Delta_2, delta_c and C only.
    """
    if not delta_per_list > 0:
        return CATEGORY_FLOOR
    balance = (
        2.0
        * sensitivity_sq(neighboring)
        * math.log(1.0 / delta_per_list)
        / math.log(REFERENCE_CANDIDATES / RELIABILITY_FAILURE) ** 2
    )
    return max(CATEGORY_FLOOR, balance)


@dataclass(frozen=True)
class DomainBudget(Result):
    """How the domain step's budget (share x epsilon, delta) is split over the data-derived
    columns: a declared share of it per column (``--domain-share``), the rest by need
    (:func:`category_weight`: two quantiles of weight 1 per numeric column, one list of weight
    ``category_weight`` >= 2 per categorical column). Every figure is public (the schema, the
    budget, delta and the rule).

    Two routes, by a public rule (whether the schema has data-derived category lists):

    * **no lists**: the quantiles' epsilons add up to the step's epsilon (basic composition,
      pure DP, ``rho = 0``);
    * **lists**: every step is (approximately) zCDP and the shares split ``rho``, the largest
      zCDP budget that converts to (epsilon, delta) at ``delta_conversion`` after the
      conditioning of the lists (:func:`synthcert.privacy.accountant.approx_zcdp_epsilon`):
      half of delta is the lists' tails (``delta_per_category_list`` each), half the
      conversion. A quantile of rho_q runs at epsilon_q = sqrt(8 rho_q) (epsilon^2/8-zCDP), a
      list of rho_c adds discrete Gaussian noise of sigma^2 = Delta_2^2 / (2 rho_c).
      Composing in zCDP instead of adding epsilons lowers the records a category needs on a
      wide table by about sqrt(columns).
    """

    share: float
    epsilon: float
    delta: float
    delta_per_category_list: float
    numeric_columns: tuple[str, ...]
    categorical_columns: tuple[str, ...]
    quantile_epsilons: tuple[float, ...] = ()  # per numeric column: epsilon of EACH quantile
    category_rhos: tuple[float, ...] = ()  # per categorical column: rho of its list
    category_weight: float = 1.0
    neighboring: str = "bounded"
    declared_shares: dict[str, float] = field(default_factory=dict)
    rho: float = 0.0  # the zCDP budget split over the columns (0: the pure route)
    delta_conversion: float = 0.0  # the delta of converting rho (the lists' route)
    bucket_columns: tuple[str, ...] = ()  # numeric columns bounded by a bucket histogram
    date_columns: tuple[str, ...] = ()  # ... those of them in calendar years (rest: magnitudes)
    integer_columns: tuple[str, ...] = ()  # numeric columns whose integer flag is a DP estimate
    range_candidates: dict[str, int] = field(default_factory=dict)  # grid size per range column

    @property
    def bucket_noise(self) -> str:
        """The noise of the bucket histograms: Laplace on the pure route, discrete Gaussian on
        the zCDP route (a public rule: whether the schema has data-derived category lists)."""
        return "gaussian" if self.categorical_columns else "laplace"

    @property
    def bucket_unit(self) -> str:
        """What a bucket or integer-test budget is: epsilon (pure route) or rho (zCDP)."""
        return "epsilon" if self.bucket_noise == "laplace" else "rho"

    def bucket_budget(self, name: str) -> float:
        """epsilon (pure route) or rho (zCDP route) of column ``name``'s buckets:
        its two quantiles' worth (:func:`~synthcert.privacy.magnitude_bounds.
        per_column_budget`), less the part of its integer test when it has one."""
        full = per_column_budget(self.bucket_noise, self.quantile_epsilon(name))
        return full * (1.0 - INTEGER_PART) if name in self.integer_columns else full

    def range_epsilon(self, name: str) -> float:
        """Epsilon of each DP quantile of column ``name`` (one given a public range): its
        quantile epsilon, less the part of its integer test when it has one, so the column's
        total is unchanged: x (1 - PART) on the pure route (2 epsilon_q), x sqrt(1 - PART) on
        the zCDP route (2 epsilon_q^2 / 8, the exponential mechanism being epsilon^2/8-zCDP)."""
        eps = self.quantile_epsilon(name)
        if name not in self.integer_columns:
            return eps
        keep = 1.0 - INTEGER_PART
        return eps * keep if self.bucket_noise == "laplace" else eps * math.sqrt(keep)

    def range_rows(self, name: str, quantiles: tuple[float, float] = DEFAULT_QUANTILES) -> float:
        """The table size from which the DP quantiles of column ``name`` (one given a public
        range) are reliable (:func:`reliable_rows` on its grid, the worse of the two)."""
        candidates = self.range_candidates.get(name, REFERENCE_CANDIDATES)
        eps = self.range_epsilon(name)
        return max(reliable_rows(eps, q, candidates) for q in quantiles)

    def integer_budget(self, name: str) -> float:
        """epsilon or rho of column ``name``'s integer test (:mod:`synthcert.privacy.
        integer_flag`): its part of the column's budget (two quantiles' worth, as buckets or
        as quantiles)."""
        return per_column_budget(self.bucket_noise, self.quantile_epsilon(name)) * INTEGER_PART

    def bucket_records(self, name: str) -> int:
        """T of column ``name``'s buckets: the records a bucket needs to set a bound."""
        size = YEARS if name in self.date_columns else BUCKETS
        return bucket_threshold(
            self.bucket_noise, self.bucket_budget(name), self.neighboring, buckets=size
        )

    def integer_records(self, name: str) -> int:
        """T_w of column ``name``'s integer test (:mod:`synthcert.privacy.integer_flag`): with
        about this many whole values a column is declared whole half the time, with a few
        noise scales more almost always."""
        return bucket_threshold(
            self.bucket_noise, self.integer_budget(name), self.neighboring, ROUND_FAILURE, 1
        )

    def bucket_kind(self, name: str) -> str:
        """What column ``name``'s buckets are: calendar years or magnitudes (public)."""
        return "calendar-year buckets" if name in self.date_columns else "magnitude buckets"

    def quantile_epsilon(self, name: str) -> float:
        """Epsilon of each of the two quantiles of numeric column ``name``."""
        return self.quantile_epsilons[self.numeric_columns.index(name)]

    def category_rho(self, name: str) -> float:
        """rho of the category list of column ``name``."""
        return self.category_rhos[self.categorical_columns.index(name)]

    def category_threshold(self, name: str) -> int:
        """T of the column's list: a value held by T records is kept with probability >= 1/2
        (discrete Gaussian noise is symmetric), one held by T + sigma sqrt(2 ln(1/beta)) with
        about 1 - beta."""
        sigma2 = threshold_sigma2(self.category_rho(name), self.neighboring)
        return gaussian_threshold(sigma2, self.delta_per_category_list)

    def needs(self, max_lines: int = 10) -> list[str]:
        """What the split needs, per data-derived column (a summary over more than
        ``max_lines`` columns): PUBLIC figures from the budget, the schema and delta only."""
        num = [
            (n, f"epsilon {self.range_epsilon(n):.3g}", math.ceil(self.range_rows(n)))
            for n in self.numeric_columns
            if n not in self.bucket_columns
        ]
        unit = self.bucket_unit
        buckets = [
            (
                n,
                f"{self.bucket_kind(n)} at {unit} {self.bucket_budget(n):.3g}",
                self.bucket_records(n),
            )
            for n in self.bucket_columns
        ]
        cat = [
            (n, f"rho {r:.3g}", self.category_threshold(n))
            for n, r in zip(self.categorical_columns, self.category_rhos, strict=True)
        ]
        whole = [
            (n, f"{unit} {self.integer_budget(n):.3g}", self.integer_records(n))
            for n in self.integer_columns
        ]
        groups = (num, cat, buckets, whole)
        if sum(len(g) for g in groups) > max_lines:  # declared columns named, the rest summed up
            named = set(self.declared_shares)

            def part(declared: bool) -> list[list[tuple[str, str, int]]]:
                return [[x for x in g if (x[0] in named) == declared] for g in groups]

            return self.describe(*part(True)) + self.summarise(*part(False))
        return self.describe(*groups)

    @staticmethod
    def describe(
        num: list[tuple[str, str, int]],
        cat: list[tuple[str, str, int]],
        buckets: list[tuple[str, str, int]],
        whole: list[tuple[str, str, int]],
    ) -> list[str]:
        """One line per column: (name, its privacy parameter, rows or records needed)."""
        return [
            *(
                f"{n}: DP {e}; a bound needs about {t:,} records in its "
                "bucket (tails thinner than that are clipped)"
                for n, e, t in buckets
            ),
            *(
                f"{n}: two DP quantiles at {e} each; bounds reliable from about {r:,} rows"
                for n, e, r in num
            ),
            *(
                f"{n}: DP category list at {e}; a category needs about {t:,} records to be kept"
                for n, e, t in cat
            ),
            *(
                f"{n}: DP integer test at {e}; whole numbers need about {t:,} whole values "
                "(else the column is modelled as real numbers)"
                for n, e, t in whole
            ),
        ]

    @staticmethod
    def summarise(
        num: list[tuple[str, str, int]],
        cat: list[tuple[str, str, int]],
        buckets: list[tuple[str, str, int]],
        whole: list[tuple[str, str, int]],
    ) -> list[str]:
        """One line per kind of column: the range of what they need."""
        kinds = (
            (buckets, "numeric columns: a bound needs about", "records in its bucket"),
            (num, "numeric columns: bounds reliable from about", "rows"),
            (cat, "category lists: a category needs about", "records to be kept"),
            (whole, "integer tests: whole numbers need about", "whole values"),
        )
        lines = []
        for cols, what, unit in kinds:
            if cols:
                vals = sorted(v for _, _, v in cols)
                span = f"{vals[0]:,}" + (f" to {vals[-1]:,}" if vals[-1] != vals[0] else "")
                lines.append(f"{len(cols)} {what} {span} {unit}")
        return lines


def check_shares(schema: Schema, shares: Mapping[str, float]) -> None:
    """Refuse --domain-share items that name no data-derived column, or shares <= 0 or
    summing above 1 (ParameterError: a bad option)."""
    derived = [c.name for c in schema.columns if c.source == "data"]
    names = {c.name for c in schema.columns}
    for name, value in shares.items():
        if name not in names:
            raise ParameterError(
                f"--param domain_share names {name!r}, which is not a column of the schema "
                f"(data-derived columns: {', '.join(derived) or 'none'})"
            )
        if name not in derived:
            raise ParameterError(
                f"--param domain_share names {name!r}, whose domain is public: it needs no budget"
            )
        if not (math.isfinite(value) and value > 0):
            raise ParameterError(f"--param domain_share={name}={value}: a share must be > 0")
    if math.fsum(shares.values()) > 1.0 + TOLERANCE:
        raise ParameterError(
            f"--param domain_share values sum to {math.fsum(shares.values()):.6g}, more than the "
            "whole --param private_domain budget (1)"
        )


def plan_budget(
    schema: Schema,
    share: float,
    epsilon: float,
    delta: float,
    *,
    neighboring: str = "bounded",
    shares: Mapping[str, float] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
) -> DomainBudget:
    """The split of (share x epsilon, delta) over the data-derived parts of ``schema``:
    ``shares`` (fractions of the domain budget per column) first, the rest in proportion to
    2 per numeric column and :func:`category_weight` per categorical column. ``ranges``: the
    columns given a public range (their bounds are quantiles, not buckets: :func:`by_buckets`).
    """
    num = tuple(c.name for c in data_numeric(schema))
    cat = tuple(c.name for c in data_categorical(schema))
    bucketed = [c for c in data_numeric(schema) if by_buckets(c, ranges or {})]
    shares = dict(shares or {})
    check_shares(schema, shares)
    if not num and not cat:
        flags = schema.data_flags
        extra = (
            f"; its data-derived flags ({', '.join(flags)}) need no budget: declare them "
            'public ("nullable_source"/"integer_source": "public") after checking them'
            if flags
            else ""
        )
        raise AssumptionError(
            'the schema has no data-derived bounds or categories ("source": "data"), so '
            f"--param private_domain would spend budget on nothing: drop it{extra}",
            assumption="a data-derived part to estimate",
            admissible="omit --param private_domain",
        )
    if cat and not delta > 0:
        raise AssumptionError(
            f"the category lists of {', '.join(cat)} were read from the data; their DP "
            "estimate (a frequency threshold) is (epsilon, delta)-DP and needs delta > 0: pass "
            "--delta (e.g. 1e-6), or replace them by public categories in the schema",
            assumption="delta > 0 for DP category lists",
            admissible="--delta (e.g. 1e-6), or public categories in the schema",
        )
    eps = share * epsilon
    # the lists' route: half of delta for their tails, half for converting rho (public rule)
    delta_c = float(delta / 2.0 / len(cat)) if cat else 0.0
    r = category_weight(delta_c, neighboring)
    weight = {**dict.fromkeys(num, 2.0), **dict.fromkeys(cat, r)}
    rest = [n for n in weight if n not in shares]
    free = max(0.0, 1.0 - math.fsum(shares.values()))
    if rest and free <= TOLERANCE:
        raise ParameterError(
            "--param domain_share values take the whole --param private_domain budget, leaving "
            f"nothing for {', '.join(rest)}: lower them or give those columns a share too"
        )
    total_w = math.fsum(weight[n] for n in rest)
    part = {n: float(s) for n, s in shares.items()}
    part.update({n: free * weight[n] / total_w for n in rest})
    if cat:  # approximate zCDP: rho split by the shares (DomainBudget)
        delta_conv = float(delta) / 2.0
        left = eps + math.log1p(-delta_c * len(cat))  # after the lists' conditioning
        if not left > 0:
            raise AssumptionError(
                f"--param private_domain's epsilon {eps:.3g} does not cover the conditioning of "
                f"the category lists' tails, ln(1/(1 - delta/2)) = {-math.log1p(-delta / 2):.3g}",
                assumption="share x epsilon > ln(1/(1 - delta/2))",
                admissible="a smaller --delta or a larger share or epsilon",
            )
        rho = rho_from_epsilon_delta(left, delta_conv)
        quantile_eps = tuple(math.sqrt(8.0 * rho * part[n] / 2.0) for n in num)
        category_rhos = tuple(float(rho * part[n]) for n in cat)
    else:  # pure DP: epsilon split by the shares
        delta_conv = rho = 0.0
        quantile_eps = tuple(float(eps * part[n] / 2.0) for n in num)
        category_rhos = ()
    return DomainBudget(
        share=float(share),
        epsilon=float(eps),
        delta=float(delta) if cat else 0.0,
        delta_per_category_list=delta_c,
        numeric_columns=num,
        categorical_columns=cat,
        quantile_epsilons=quantile_eps,
        category_rhos=category_rhos,
        category_weight=float(r),
        neighboring=neighboring,
        declared_shares={n: float(s) for n, s in shares.items()},
        rho=float(rho),
        delta_conversion=delta_conv,
        bucket_columns=tuple(c.name for c in bucketed),
        date_columns=tuple(c.name for c in bucketed if isinstance(c, DatetimeColumn)),
        integer_columns=tuple(c.name for c in data_numeric(schema) if integer_estimated(c)),
        range_candidates={
            c.name: len(column_grid(c, ranges or {}))
            for c in data_numeric(flag_rule(schema))
            if not by_buckets(c, ranges or {})
        },
    )


@dataclass(frozen=True)
class DomainEstimate(Result):
    """The schema with every data-derived part replaced by its DP estimate, and the step's
    ledger (private) and totals."""

    schema: Schema
    budget: DomainBudget
    ledger: tuple[LedgerEntry, ...]
    spent: Spent
    rows: int = 0  # rows read (PRIVATE under add/remove neighbours: never publish)
    quantiles: tuple[float, float] = DEFAULT_QUANTILES
    candidates: int = 0  # the largest grid searched
    ruled_flags: tuple[str, ...] = ()  # "column: flag" set by flag_rule (public: the schema's)

    dropped: tuple[str, ...] = ()  # columns the fallback rule took out (public: a DP output)
    unbounded: tuple[str, ...] = ()  # numeric ones whose buckets all stayed below T (idem)

    def reliability_warning(self, public_rows: int | None) -> str | None:
        """A public warning when the DP bounds are likely to be wide, from a PUBLIC table size
        (n under replace-one neighbours, the declared --min-rows under add/remove): names the
        columns whose quantiles' epsilon needs more rows (:func:`reliable_rows`)."""
        quantiled = [n for n in self.budget.numeric_columns if n not in self.budget.bucket_columns]
        if public_rows is None or not quantiled:
            return None
        need = {n: self.budget.range_rows(n, self.quantiles) for n in quantiled}
        short = [n for n, v in need.items() if public_rows < v]
        if not short:
            return None
        worst = max(need[n] for n in short)
        eps = min(self.budget.range_epsilon(n) for n in short)
        cols = ", ".join(short[:5]) + (f" and {len(short) - 5} more" if len(short) > 5 else "")
        return (
            f"--param private_domain: with {eps:.3g} of epsilon per DP quantile, bounds are "
            f"reliable from about {math.ceil(worst):,} rows ({cols}); on fewer they may be far "
            "wider than the data (a valid but poor domain). Raise the share, --param "
            "domain_share or epsilon, give a tight public --param domain_range, or declare public "
            "bounds."
        )

    def bounds_note(self) -> str | None:
        """The DP bounds of every numeric column the step estimated, and whether each is whole:
        values outside them are clipped (the schema's public rule), so bounds a bucket short of
        the data's tail clip it, and a column where only the bucket of 0 passed gets [0, 1].
        Read off the DP schema: safe to publish."""
        cols = [
            c for c in self.schema.columns if isinstance(c, NumericColumn) and c.source == DP_SOURCE
        ]
        if not cols:
            return None

        def shown(c: NumericColumn) -> str:
            if isinstance(c, DatetimeColumn):
                return f"{c.name} {c.iso(c.lower)} to {c.iso(c.upper)}"
            whole = " whole" if c.integer and c.name in self.budget.integer_columns else ""
            return f"{c.name} [{c.lower:g}, {c.upper:g}]{whole}"

        return (
            f"private_domain: the DP bounds are {', '.join(shown(c) for c in cols)}; values "
            "outside them are clipped (if one looks too narrow, give the column public bounds, "
            "a --param domain_range or a --param domain_share)"
        )

    def lists_note(self) -> str | None:
        """How many values each kept DP category list holds: a value outside its column's list
        is read as missing (the public rule of the schema), so a short list on a small table
        turns real values into missing ones. The counts are read off the DP lists: safe to
        publish."""
        kept = [
            (name, len(self.schema.column(name).categories))  # type: ignore[union-attr]
            for name in self.budget.categorical_columns
            if name in self.schema.names  # a dropped column has left the schema
        ]
        if not kept:
            return None
        counts = ", ".join(f"{name} {k}" for name, k in kept)
        return (
            f"private_domain: the DP category lists kept {counts} value(s); a value outside "
            "its column's list is read as missing, so rare values come out as missing ones "
            "(more: --param domain_share, more epsilon, or public categories)"
        )

    def fallback_warning(self) -> str | None:
        """Names the columns the fallback rule dropped. It depends on the DP category lists
        and bucket histograms only (how many values or buckets each kept), so it is
        post-processing: safe to publish."""
        notes = []
        if self.dropped:
            notes.append(
                f"--param private_domain: the DP category list of {', '.join(self.dropped)} kept "
                "fewer than two values, so by public rule the column(s) are left out of the "
                "model and of the output. Give them a --param domain_share, more epsilon, or "
                "public categories."
            )
        if self.unbounded:
            notes.append(
                f"--param private_domain: no DP bucket of {', '.join(self.unbounded)} "
                "held enough records for a DP bound, so by public rule the column(s) are left "
                "out of the model and of the output. Give them a --param domain_share, more "
                "epsilon, a public --param domain_range, or public bounds."
            )
        return " ".join(notes) or None


def bounds_from_quantiles(
    lo: float, hi: float, grid: np.ndarray, integer: bool
) -> tuple[float, float]:
    """Public post-processing of two DP quantiles into bounds lower < upper: swap if crossed,
    widen to the next grid point if equal, and round outwards for integer columns."""
    lo, hi = min(lo, hi), max(lo, hi)
    if lo == hi:
        j = int(np.searchsorted(grid, lo))
        if j + 1 < len(grid):
            hi = float(grid[j + 1])
        else:
            lo = float(grid[j - 1])
    return whole_bounds(lo, hi) if integer else (lo, hi)


def estimate_domain(
    chunks: Iterable[pd.DataFrame],
    schema: Schema,
    budget: DomainBudget,
    *,
    neighboring: str,
    rng: Rng,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    quantiles: tuple[float, float] = DEFAULT_QUANTILES,
) -> DomainEstimate:
    """DP bounds and category lists for the data-derived columns of ``schema``.

    ``neighboring`` is the synthesizer's relation ("bounded": replace-one, "unbounded":
    add/remove); the quantile score has sensitivity 1 under both, the category counts 1 or 2.
    Columns marked public are returned unchanged, except for data-derived flags, which get
    :func:`flag_rule` first.
    """
    refuse_data_structure(schema)
    estimated = tuple(c.name for c in data_numeric(schema) if integer_estimated(c))
    ruled = tuple(schema.data_flags)
    schema = flag_rule(schema)
    counts = DomainCounts(schema, dict(ranges or {}), budget.integer_columns)
    if tuple(counts.buckets) != tuple(budget.bucket_columns):
        raise AssumptionError(
            "the domain plan and the estimate disagree on which columns have a public range: "
            "give plan_budget and estimate_domain the same ranges",
            assumption="one set of --param domain_range for the plan and the estimate",
        )
    if estimated != budget.integer_columns:
        raise AssumptionError(
            "the domain plan and the estimate disagree on which integer flags were read from "
            "the data: give plan_budget and estimate_domain the same schema",
            assumption="one schema for the plan and the estimate",
        )
    for chunk in chunks:
        counts.update(chunk)
    accountant = PrivacyAccountant(budget.epsilon, budget.delta or None)
    new: list[Column] = []
    dropped: list[str] = []
    unbounded: list[str] = []
    for col in schema.columns:
        if col.source != "data":
            new.append(col)
        elif isinstance(col, NumericColumn):
            if col.name in counts.buckets:
                buckets = bucket_set(col)
                bounds = dp_bounds(
                    counts.buckets[col.name], budget.bucket_noise, budget.bucket_budget(col.name),
                    neighboring=neighboring, integer=col.integer, rng=rng, accountant=accountant,
                    name=f"{buckets.mechanism}: {col.name}", buckets=buckets,
                )  # fmt: skip
            else:
                grid = counts.grids[col.name]
                below, upto = counts.ranks(col.name)
                m = counts.nonmissing[col.name]
                eps = budget.range_epsilon(col.name)
                lo, hi = (
                    dp_quantile(
                        below, upto, m, grid, q, eps, rng=rng, accountant=accountant,
                        name=f"{QUANTILE_MECHANISM}: {col.name}",
                    )
                    for q in quantiles
                )  # fmt: skip
                bounds = bounds_from_quantiles(lo, hi, grid, col.integer)
            # every planned step runs (the spent budget is the plan's), whatever the bounds
            whole = col.name in budget.integer_columns and dp_integer(
                counts.whole[col.name], budget.bucket_noise, budget.integer_budget(col.name),
                neighboring=neighboring, rng=rng, accountant=accountant,
                name=f"{INTEGER_MECHANISM}: {col.name}",
            )  # fmt: skip
            if bounds is None:
                # the fallback rule (public: a function of the DP output only): no bucket holds
                # enough records to set a bound, so the column leaves the model and the output
                unbounded.append(col.name)
                continue
            lower, upper = bounds
            # post-processing of the DP flag: whole bounds, decoded to whole numbers (a column
            # with a declared fractional atom stays real-valued, by public rule)
            if whole and all(float(a).is_integer() for a in col.atoms or ()):
                lower, upper = whole_bounds(lower, upper)
                col = replace(col, integer=True)
            fill = None if col.fill is None else min(max(col.fill, lower), upper)  # public
            new.append(
                replace(col, lower=lower, upper=upper, source=cast(Any, DP_SOURCE), fill=fill)
            )
        else:
            kept = stability_categories(
                counts.values[col.name],
                budget.category_rho(col.name),
                budget.delta_per_category_list,
                neighboring=neighboring,
                rng=rng,
                accountant=accountant,
                name=f"{THRESHOLD_MECHANISM}: {col.name}",
            )
            if len(kept) < 2:
                # the fallback rule (public: a function of the DP output ``kept`` only): a
                # column of fewer than two kept values carries no modelled information, so it
                # leaves the model and the output instead of stopping the run
                dropped.append(col.name)
                continue
            # values the threshold did not keep become the column's missing level (a public
            # rule of this step): modelled like any value, never a refusal or a dropped row
            fill = col.fill if col.fill in kept else None  # nullable now: fills are unused
            new.append(
                replace(col, categories=kept, source=cast(Any, DP_SOURCE), nullable=True, fill=fill)
            )
    spent = accountant.check_within_budget()
    if not new:
        raise AssumptionError(
            "every column's DP category list kept fewer than two values or DP buckets "
            "held no bound: nothing is left to model",
            assumption="at least one column to model",
            admissible="a larger --param private_domain share or epsilon, or public categories",
        )
    return DomainEstimate(
        schema=replace(schema, columns=tuple(new), drop=(*schema.drop, *dropped, *unbounded)),
        budget=budget,
        ledger=accountant.ledger,
        spent=spent,
        rows=counts.rows,
        quantiles=quantiles,
        candidates=max((len(g) for g in counts.grids.values()), default=0),
        ruled_flags=ruled,
        dropped=tuple(dropped),
        unbounded=tuple(unbounded),
    )


# -- the claim -----------------------------------------------------------------------------------
def compose_claim(
    claim: PrivacyClaim, estimate: DomainEstimate, epsilon: float, delta: float
) -> PrivacyClaim:
    """The run's claim: the domain step and the synthesizer by basic composition (thesis
    Prop. 2.3.16): (epsilon_d + epsilon_s, delta_d + delta_s), stated as the requested total
    (``epsilon``, ``delta``), which the two ledgers are checked not to exceed."""
    if claim.epsilon is None:
        raise AssumptionError("--param private_domain needs a DP synthesizer run with --epsilon")
    total_eps = estimate.spent.epsilon + float(claim.epsilon)
    total_delta = estimate.spent.delta + float(claim.delta or 0.0)
    if total_eps > epsilon + TOLERANCE or total_delta > delta + TOLERANCE:
        raise AssumptionError(
            f"the domain step and the synthesizer spend ({total_eps:.6g}, {total_delta:.3g}), "
            f"more than the requested ({epsilon:.6g}, {delta:.3g})"
        )
    stated_delta = 0.0 if total_delta == 0.0 else float(delta)
    dp_cols = [*estimate.budget.numeric_columns, *estimate.budget.categorical_columns]
    domain = Assumption(
        "domain",
        "bounds and categories of the schema; those of " + ", ".join(dp_cols) + " estimated "
        "with DP (--param private_domain)",
        "dp-estimate",
        "declared public bounds and categories, plus DP bucket histograms or quantiles and a DP "
        "frequency threshold paid from the budget; values outside are clipped or missing by "
        "public rule"
        + (
            "; left out by the fallback rule (a DP category list of fewer than two values): "
            + ", ".join(estimate.dropped)
            if estimate.dropped
            else ""
        )
        + (
            "; left out by the fallback rule (no DP bucket above its threshold): "
            + ", ".join(estimate.unbounded)
            if estimate.unbounded
            else ""
        ),
    )
    share = Assumption(
        "domain_share", estimate.budget.share, "declared", "share of epsilon spent on the domain"
    )
    b = estimate.budget
    route = (
        f"composed in zCDP: rho {b.rho:.4g} split by share, converted at delta "
        f"{b.delta_conversion:.3g}; delta {b.delta_per_category_list:.3g} per category list"
        if b.categorical_columns
        else "epsilons added up (pure DP)"
    )
    unit = b.bucket_unit
    split = Assumption(
        "domain_split",
        "; ".join(
            [
                (
                    f"{n}: {b.bucket_kind(n)} at {unit} {b.bucket_budget(n):.4g}"
                    if n in b.bucket_columns
                    else f"{n}: 2 quantiles at epsilon {b.range_epsilon(n):.4g}"
                )
                + (
                    f", integer test at {unit} {b.integer_budget(n):.4g}"
                    if n in b.integer_columns
                    else ""
                )
                for n in b.numeric_columns
            ]
            + [
                f"{n}: category list at rho {r:.4g}"
                for n, r in zip(b.categorical_columns, b.category_rhos, strict=True)
            ]
        ),
        "public-rule",
        "each DP step of the domain: declared --param domain_share, the rest by need "
        f"(a category list weighs {b.category_weight:.3g} quantiles); {route}",
    )
    ruled = (
        (
            Assumption(
                "flags",
                ", ".join(estimate.ruled_flags),
                "public-rule",
                "nullable and integer flags read from the data, replaced by the public rule of "
                "--param private_domain: every such column nullable (its missing share modelled); "
                "the integer flag of a numeric column estimated by a DP test of its whole and "
                "fractional counts",
            ),
        )
        if estimate.ruled_flags
        else ()
    )
    assumptions = tuple(
        a for a in claim.assumptions if a.name not in ("domain", "flags", "domain_split")
    )
    mechanisms = list(claim.mechanisms)
    if set(estimate.budget.bucket_columns) - set(estimate.budget.date_columns):
        mechanisms.append(BUCKET_MECHANISM)
    if estimate.budget.date_columns:
        mechanisms.append(YEAR_MECHANISM)
    if estimate.budget.integer_columns:
        mechanisms.append(INTEGER_MECHANISM)
    if set(estimate.budget.numeric_columns) - set(estimate.budget.bucket_columns):
        mechanisms.append(QUANTILE_MECHANISM)
    if estimate.budget.categorical_columns:
        mechanisms.append(THRESHOLD_MECHANISM)
    return replace(
        claim,
        model="pure-dp" if stated_delta == 0.0 else "approx-dp",
        epsilon=float(epsilon),
        delta=stated_delta,
        rho=None,
        mechanisms=tuple(sorted(set(mechanisms))),
        assumptions=(domain, *ruled, share, split, *assumptions),
    )


__all__ = [
    "DEFAULT_QUANTILES",
    "DP_SOURCE",
    "DomainBudget",
    "DomainCounts",
    "DomainEstimate",
    "add_to_grid",
    "bounds_from_quantiles",
    "bucket_set",
    "by_buckets",
    "category_weight",
    "check_shares",
    "compose_claim",
    "default_grid",
    "discrete_gaussian",
    "dp_quantile",
    "estimate_domain",
    "flag_rule",
    "gaussian_log_tail",
    "gaussian_threshold",
    "grid_ranks",
    "plan_budget",
    "quantile_scores",
    "range_grid",
    "refuse_data_structure",
    "reliable_rows",
    "sensitivity_sq",
    "stability_categories",
    "threshold_sigma2",
]

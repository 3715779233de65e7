"""Rubin-style combining rules for a scalar estimand from m synthetic datasets (seed 004, §3).

Each synthetic table i gives a point estimate q_i and a variance estimate u_i computed as if
it were real data. ``combine`` turns them into a valid estimate, variance, degrees of freedom
and confidence interval for one of three synthesis designs:

- ``"fully-synthetic"``: T_f = (1 + 1/m) b_m - u_bar_m, nu_f = (m-1)(1 - u_bar_m/((1+1/m) b_m))^2
  (Raghunathan, Reiter & Rubin 2003; seed 004 §3.1). Needs m >= 2 and posterior-predictive
  synthesis.
- ``"plug-in"``: T_s = (n_syn/n_org + 1/m) u_bar_m (Raab et al. 2016; seed 004 §3.2), for
  synthesis from the fitted (maximum-likelihood) model.
- ``"posterior-predictive"``: T_PPD = (n_syn/n_org + (1 + n_syn/n_org)/m) u_bar_m (seed 004 §3.2),
  for synthesis from posterior draws of the parameters.

``"naive"`` (treat the stacked synthetic rows as real data, u_bar_m/m) is there only to show
how badly it undercovers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from synthcert._result import Result
from synthcert.errors import AssumptionError, DataError

Method = Literal["fully-synthetic", "plug-in", "posterior-predictive", "naive"]
METHODS: tuple[str, ...] = ("fully-synthetic", "plug-in", "posterior-predictive", "naive")


@dataclass(frozen=True)
class CombinedEstimate(Result):
    """A combined point estimate with its variance, reference t distribution and interval."""

    method: str
    estimate: float
    variance: float
    df: float
    level: float
    lower: float
    upper: float
    m: int
    q_bar: float
    b_m: float
    u_bar: float
    n_syn: int | None = None
    n_org: int | None = None
    fallback: bool = False
    note: str = ""

    @property
    def se(self) -> float:
        """Standard error sqrt(variance)."""
        return math.sqrt(self.variance)


def summarise(q: ArrayLike, u: ArrayLike) -> tuple[float, float, float]:
    """q_bar_m, b_m, u_bar_m of seed 004 §3.1 (b_m is NaN when m = 1)."""
    q_a = np.asarray(q, dtype=float).ravel()
    u_a = np.asarray(u, dtype=float).ravel()
    m = q_a.size
    b = float(np.var(q_a, ddof=1)) if m > 1 else math.nan
    return float(q_a.mean()), b, float(u_a.mean())


def fully_synthetic_variance(
    q: ArrayLike, u: ArrayLike, *, n_syn: int | None = None, n_org: int | None = None
) -> tuple[float, float, bool]:
    """T_f = (1 + 1/m) b_m - u_bar_m and nu_f (seed 004 §3.1); ``(T, df, fallback)``.

    T_f can be negative (the between-copy spread happened to be small). Then, following
    Reiter (2002), the always-positive conservative T_f* = (n_syn/n_org) u_bar_m is used
    (u_bar_m when the sizes are not given, the n_syn = n_org design of Raghunathan et al.)
    with a normal reference distribution, and ``fallback`` is True.
    """
    q_a = np.asarray(q, dtype=float).ravel()
    m = q_a.size
    if m < 2:
        raise AssumptionError(
            "T_f needs the spread between synthetic copies, so at least m = 2 copies",
            assumption="m >= 2 synthetic datasets for the fully-synthetic estimator",
            admissible="release m >= 2 copies (m >= 5 recommended) or use plug-in/T_PPD",
        )
    _, b, u_bar = summarise(q_a, u)
    inflated = (1.0 + 1.0 / m) * b
    t_f = inflated - u_bar
    if t_f > 0:
        df = (m - 1) * (1.0 - u_bar / inflated) ** 2
        return t_f, df, False
    ratio = 1.0 if (n_syn is None or n_org is None) else n_syn / n_org
    return ratio * u_bar, math.inf, True


def plugin_variance(u: ArrayLike, n_syn: int, n_org: int) -> float:
    """T_s = (n_syn/n_org + 1/m) u_bar_m (Raab et al. 2016; seed 004 §3.2)."""
    u_a = np.asarray(u, dtype=float).ravel()
    return (n_syn / n_org + 1.0 / u_a.size) * float(u_a.mean())


def ppd_variance(u: ArrayLike, n_syn: int, n_org: int) -> float:
    """T_PPD = (n_syn/n_org + (1 + n_syn/n_org)/m) u_bar_m (seed 004 §3.2)."""
    u_a = np.asarray(u, dtype=float).ravel()
    r = n_syn / n_org
    return (r + (1.0 + r) / u_a.size) * float(u_a.mean())


def _check_inputs(q: np.ndarray, u: np.ndarray, level: float) -> None:
    if q.size == 0 or q.shape != u.shape:
        raise DataError(
            f"need one point estimate and one variance per synthetic table, got {q.size} "
            f"estimates and {u.size} variances"
        )
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(u))):
        raise DataError("point or variance estimates contain NaN/inf; check each synthetic table")
    if np.any(u < 0):
        raise DataError("variance estimates u_i must be non-negative")
    if not (0 < level < 1):
        raise AssumptionError(
            f"level must lie in (0, 1), got {level!r}",
            assumption="confidence level",
            admissible="e.g. 0.95",
        )


def _need_sizes(method: str, n_syn: int | None, n_org: int | None) -> tuple[int, int]:
    if n_syn is None or n_org is None or n_syn < 1 or n_org < 1:
        raise AssumptionError(
            f"the {method} estimator needs the synthetic and original sizes n_syn and n_org",
            assumption="n_syn/n_org known (published with the synthetic data)",
            admissible="pass n_syn= (rows per synthetic table) and n_org= (original rows)",
        )
    return int(n_syn), int(n_org)


def combine(
    q: ArrayLike,
    u: ArrayLike,
    *,
    method: Method,
    n_syn: int | None = None,
    n_org: int | None = None,
    level: float = 0.95,
) -> CombinedEstimate:
    """Combine m per-table estimates (q_i, u_i) into an estimate and interval (seed 004, §3).

    The interval is q_bar_m +- t_{df, (1+level)/2} sqrt(T); df is nu_f for T_f and infinite
    (normal reference, large samples) for T_s, T_PPD and the naive variance.

    With q_bar_m = (1/m) sum q_i, b_m = sum (q_i - q_bar_m)^2 / (m - 1) and
    u_bar_m = (1/m) sum u_i (seed 004 §3.1), the variance T is

    - ``"fully-synthetic"``: T_f = (1 + 1/m) b_m - u_bar_m with
      nu_f = (m - 1) (1 - u_bar_m / ((1 + 1/m) b_m))^2 (Raghunathan, Reiter & Rubin 2003);
      when T_f <= 0, the conservative T_f* = (n_syn/n_org) u_bar_m with a normal reference
      (Reiter 2002; ``fallback`` is True);
    - ``"plug-in"``: T_s = (n_syn/n_org + 1/m) u_bar_m (Raab et al. 2016; seed 004 §3.2);
    - ``"posterior-predictive"``: T_PPD = (n_syn/n_org + (1 + n_syn/n_org)/m) u_bar_m
      (seed 004 §3.2);
    - ``"naive"``: u_bar_m / m, the stacked rows treated as real data (NOT valid; shown only
      to measure its undercoverage).

    Parameters
    ----------
    q : array_like of float, shape (m,)
        Point estimates q_i, one per synthetic table.
    u : array_like of float, shape (m,)
        Their variance estimates u_i (as if each table were real data), non-negative.
    method : {"fully-synthetic", "plug-in", "posterior-predictive", "naive"}
        The combining rule, which must match how the tables were synthesised.
    n_syn : int or None, default None
        Rows per synthetic table (needed by plug-in and posterior-predictive).
    n_org : int or None, default None
        Rows of the original table (needed by plug-in and posterior-predictive).
    level : float, default 0.95
        Confidence level of the interval, in (0, 1).

    Returns
    -------
    CombinedEstimate
        The estimate q_bar_m, variance T, degrees of freedom, interval, and the inputs
        q_bar_m, b_m, u_bar_m, m (and a ``note`` for the fallback or the naive rule).

    Raises
    ------
    DataError
        ``q`` and ``u`` are empty, differ in length, hold NaN/inf, or a u_i is negative.
    AssumptionError
        ``level`` is outside (0, 1), the method is unknown, fully-synthetic with m < 2, or
        plug-in/posterior-predictive without positive ``n_syn`` and ``n_org``.

    Examples
    --------
    >>> q, u = [1.0, 1.2, 0.9, 1.1, 1.3], [0.01] * 5
    >>> r = combine(q, u, method="fully-synthetic")  # b_m = 0.025: T_f = 1.2 * 0.025 - 0.01
    >>> round(r.estimate, 4), round(r.variance, 4), round(r.df, 3), r.fallback
    (1.1, 0.02, 1.778, False)
    >>> r = combine(q, u, method="plug-in", n_syn=100, n_org=100)  # (1 + 1/5) * 0.01
    >>> round(r.variance, 4), r.df, (round(r.lower, 3), round(r.upper, 3))
    (0.012, inf, (0.885, 1.315))
    """
    q_a = np.asarray(q, dtype=float).ravel()
    u_a = np.asarray(u, dtype=float).ravel()
    _check_inputs(q_a, u_a, level)
    m = q_a.size
    q_bar, b, u_bar = summarise(q_a, u_a)
    fallback, note = False, ""
    if method == "fully-synthetic":
        var, df, fallback = fully_synthetic_variance(q_a, u_a, n_syn=n_syn, n_org=n_org)
        if fallback:
            note = "T_f <= 0: used the conservative T_f* = (n_syn/n_org) u_bar (Reiter 2002)"
    elif method == "plug-in":
        ns, no = _need_sizes(method, n_syn, n_org)
        var, df = plugin_variance(u_a, ns, no), math.inf
    elif method == "posterior-predictive":
        ns, no = _need_sizes(method, n_syn, n_org)
        var, df = ppd_variance(u_a, ns, no), math.inf
    elif method == "naive":
        var, df = u_bar / m, math.inf
        note = "treats the synthetic rows as real data: NOT a valid variance"
    else:
        raise AssumptionError(
            f"unknown method {method!r}",
            assumption="a combining rule of seed 004 §3",
            admissible=", ".join(METHODS),
        )
    if math.isinf(df):
        crit = float(stats.norm.ppf(0.5 + level / 2))
    else:
        crit = float(stats.t.ppf(0.5 + level / 2, df))
    half = crit * math.sqrt(max(var, 0.0))
    return CombinedEstimate(
        method=method,
        estimate=q_bar,
        variance=float(var),
        df=float(df),
        level=float(level),
        lower=q_bar - half,
        upper=q_bar + half,
        m=m,
        q_bar=q_bar,
        b_m=b,
        u_bar=u_bar,
        n_syn=None if n_syn is None else int(n_syn),
        n_org=None if n_org is None else int(n_org),
        fallback=fallback,
        note=note,
    )


__all__ = [
    "METHODS",
    "CombinedEstimate",
    "combine",
    "fully_synthetic_variance",
    "plugin_variance",
    "ppd_variance",
    "summarise",
]

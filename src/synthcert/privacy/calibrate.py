"""One calibrator: the largest or smallest value a budget admits, for a monotone predicate.

Every "how much does the budget allow" question of synthcert is one search: the largest number
of released records n_out (Proposition 2.5 of seed 000 composes them; Theorems R1/R2 with a
ridge; the plug-in and Bayesian syntheses of seed 004), the smallest table size N that allows
them, the smallest DP-SGD noise multiplier that keeps a budget. :func:`calibrate` answers it
for any predicate ``admissible`` that is monotone on the domain (true up to a boundary and
false beyond it for ``find="largest"``, false then true for ``find="smallest"``):

1. **bracketing**: from ``start``, probes away by factors of two (x·2 and x/2; an integer
   x//2, and 0 → 1) until the predicate changes, clipped to ``[lower, upper]`` (the bound
   itself is probed when the next factor of two would leave the domain);
2. **refinement**: on integers, bisection to the exact boundary; on floats, Brent's method on
   the caller's continuous ``slack`` (admissible where ``slack ≤ 0``) or bisection, then steps
   by factors ``1 ± rtol`` onto the admissible side.

Exactness: the value returned is always one at which ``admissible`` was evaluated and held.
On integers it is *the* boundary (the largest or smallest admissible integer of the domain:
a floor for n_out is never rounded up, a floor on N never down); on floats it lies within
about ``rtol`` of the boundary, on the admissible side. ``None`` means no value of the domain
is admissible.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Literal, TypeVar

from synthcert.errors import NumericalError

Number = TypeVar("Number", int, float)
Find = Literal["largest", "smallest"]

_MAX_NUDGES = 100_000  # steps of 1 ± rtol onto the admissible side after the root


def calibrate(
    admissible: Callable[[Number], bool],
    start: Number,
    *,
    find: Find,
    lower: Number | None = None,
    upper: Number | None = None,
    integer: bool = True,
    slack: Callable[[float], float] | None = None,
    rtol: float = 1e-12,
) -> Number | None:
    """The largest (or smallest) x in ``[lower, upper]`` with ``admissible(x)``.

    Parameters
    ----------
    admissible : callable
        The budget test, monotone on the domain: true then false as x grows (``largest``),
        false then true (``smallest``).
    start : int or float
        Where the bracketing starts (an analytic estimate of the boundary; clipped to the
        domain).
    find : {"largest", "smallest"}
        Which end of the admissible set is wanted.
    lower, upper : int or float, optional
        The domain. Integers: default 0 and unbounded (capped at 2**63). Floats: positive;
        default the smallest and largest normal floats.
    integer : bool, default True
        Search the integers (exact) or the positive floats (within ``rtol``).
    slack : callable, optional
        Floats only: a continuous margin with ``admissible(x) == (slack(x) <= 0)``, whose root
        Brent's method finds (bisection on the predicate without it).
    rtol : float, default 1e-12
        Floats only: the relative tolerance of the root and the step onto the admissible side.

    Returns
    -------
    int or float or None
        The value found (``admissible`` holds there), or None when no value of the domain is
        admissible.

    Raises
    ------
    NumericalError
        When the steps onto the admissible side do not reach it (a predicate that is not
        monotone, or a slack that does not match it).

    Examples
    --------
    >>> calibrate(lambda k: 0.3 * k <= 1.0, 10, find="largest")  # the floor of 1/0.3
    3
    >>> calibrate(lambda n: n * n >= 1000, 2, find="smallest")
    32
    >>> x = calibrate(lambda s: 1.0 / s <= 3.0, 1.0, find="smallest", integer=False,
    ...               slack=lambda s: 1.0 / s - 3.0, rtol=1e-9)
    >>> 1 / 3 <= x < 1 / 3 * (1 + 1e-8)
    True
    >>> calibrate(lambda k: k < 0, 5, find="largest") is None
    True
    """
    largest = find == "largest"
    if integer:
        lo = 0 if lower is None else int(lower)
        hi = 2**63 if upper is None else int(upper)
    else:
        lo = sys.float_info.min if lower is None else float(lower)
        hi = sys.float_info.max if upper is None else float(upper)
        if not 0 < lo <= hi:
            raise ValueError("a float domain must be positive: 0 < lower <= upper")
    if lo > hi:
        return None
    point = min(max(start, lo), hi)

    def grow(x: Number) -> Number:
        return (x * 2 if x else 1) if integer else x * 2.0

    def shrink(x: Number) -> Number:
        return x // 2 if integer else x / 2.0

    # the direction in which the admissible set lies, and the bound on that side
    toward_good, good_edge = (shrink, lo) if largest else (grow, hi)
    toward_bad, bad_edge = (grow, hi) if largest else (shrink, lo)
    if admissible(point):
        good, bad = point, _probe(admissible, point, toward_bad, bad_edge, lo, hi, want=False)
        if bad is None:  # admissible up to the bound (probed): the bound is the answer
            return bad_edge
    else:
        bad, good = point, _probe(admissible, point, toward_good, good_edge, lo, hi, want=True)
        if good is None:
            return None
    if integer:
        while abs(good - bad) > 1:
            mid = (good + bad) // 2
            if admissible(mid):
                good = mid
            else:
                bad = mid
        return good
    return _refine_float(admissible, good, bad, largest, slack, rtol)


def _probe(
    admissible: Callable, x: Number, step: Callable, edge: Number, lo: Number, hi: Number,
    *, want: bool,
) -> Number | None:  # fmt: skip
    """Probe step(x), step(step(x)), ... until ``admissible`` is ``want`` there; the edge is
    probed when the next step would leave [lo, hi] (or not move). None: never ``want``."""
    while True:
        nxt = step(x)
        if nxt == x or not lo <= nxt <= hi:
            if edge == x:
                return None
            return edge if bool(admissible(edge)) == want else None
        if bool(admissible(nxt)) == want:
            return nxt
        x = nxt


def _refine_float(
    admissible: Callable[[float], bool],
    good: float,
    bad: float,
    largest: bool,
    slack: Callable[[float], float] | None,
    rtol: float,
) -> float:
    """The boundary between an admissible ``good`` and an inadmissible ``bad`` float, on the
    admissible side: Brent's root of ``slack`` then steps of 1 ± rtol, or bisection."""
    if slack is None:
        while abs(good - bad) > rtol * abs(good):
            mid = 0.5 * (good + bad)
            if admissible(mid):
                good = mid
            else:
                bad = mid
        return good
    from scipy.optimize import brentq

    x = float(brentq(slack, min(good, bad), max(good, bad), rtol=rtol))
    factor = 1.0 / (1.0 + rtol) if largest else 1.0 + rtol
    for _ in range(_MAX_NUDGES):
        if admissible(x):
            return x
        x *= factor
    raise NumericalError("the calibration did not reach the admissible side of its root")


def floor_within(limit: float, per: float, admissible: Callable[[int], bool]) -> int:
    """The largest k ≤ floor(limit/per) with ``admissible(k)`` (0 if none): the n_out a budget
    ``limit`` allows at ``per`` a record.

    Proposition 2.5 of seed 000 composes k records to k·per, so floor(limit/per) bounds the
    count; the division can round up by one, and ``admissible`` (the budget test itself)
    decides. :func:`calibrate` below that bound, so the count is never rounded up.

    Parameters
    ----------
    limit : float
        The budget.
    per : float
        Cost of one record (positive and finite, else 0 records).
    admissible : callable
        ``admissible(k)`` is True when k records fit within the budget.

    Returns
    -------
    int
        The largest k ≥ 0 found (0 when ``per`` is not a positive finite number).

    Examples
    --------
    >>> floor_within(1.0, 0.3, lambda k: k * 0.3 <= 1.0)
    3
    """
    if not (math.isfinite(per) and per > 0) or limit < 0:
        return 0
    bound = math.floor(limit / per)
    return calibrate(admissible, bound, find="largest", upper=bound) or 0


__all__ = ["calibrate", "floor_within"]

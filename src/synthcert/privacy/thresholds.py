"""Thresholds of noisy counts: the discrete Gaussian's tail, and the count T a noisy count of
an absent value passes with probability at most delta (the stability histogram of the DP
category lists, :mod:`synthcert.privacy.domain`, and the magnitude buckets of the DP bounds,
:mod:`synthcert.privacy.magnitude_bounds`). Counts of one record per cell: Delta_2^2 = 1 under
add/remove, 2 under replace-one."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy import special

from synthcert.privacy.calibrate import calibrate
from synthcert.privacy.parameters import check_delta

TAIL_SLACK = 1e-9  # relative: the float tail bound must clear delta by this much


def gaussian_log_tail(t: int, sigma2: float | Fraction) -> float:
    """An upper bound on ln Pr[Z >= t], Z ~ N_Z(0, sigma^2) the discrete Gaussian, t >= 1.

    With f(x) = exp(-x^2 / (2 sigma^2)), Pr[Z >= t] = sum_{k >= t} f(k) / sum_{k in Z} f(k).
    f decreases on [0, inf), so the numerator is at most f(t) + int_t^inf f(x) dx
    = f(t) + sigma sqrt(2 pi) Phi(-t / sigma), and the denominator
    2 sum_{k >= 0} f(k) - f(0) >= 2 int_0^inf f(x) dx - 1 = sigma sqrt(2 pi) - 1; it is also
    >= f(0) = 1. Evaluated in logs (``scipy.special.log_ndtr``, relative error ~1e-15); the
    callers demand a slack of 1e-9 (:data:`TAIL_SLACK`), far above that error.
    """
    sigma = math.sqrt(float(sigma2))
    mass = sigma * math.sqrt(2.0 * math.pi)
    head = -(t * t) / (2.0 * float(sigma2))
    rest = math.log(mass) + float(special.log_ndtr(-t / sigma))
    return float(np.logaddexp(head, rest)) - math.log(max(1.0, mass - 1.0))


def gaussian_threshold(sigma2: float | Fraction, delta: float) -> int:
    """Smallest integer T >= 2 whose bound (:func:`gaussian_log_tail`) on Pr[1 + Z >= T] is at
    most delta (1 - 1e-9), Z ~ N_Z(0, sigma^2): a value held by one record alone is kept with
    probability at most delta. Near sigma sqrt(2 ln(1/delta)) + 1 (the sub-Gaussian tail);
    found by the one calibrator (:func:`synthcert.privacy.calibrate.calibrate`, exact on
    integers, monotone since the bound decreases in T)."""
    check_delta(delta, pure=False)
    target = math.log(delta) + math.log1p(-TAIL_SLACK)
    start = 2 + math.ceil(math.sqrt(2.0 * float(sigma2) * math.log(1.0 / delta)))
    t = calibrate(
        lambda tt: gaussian_log_tail(tt - 1, sigma2) <= target, start, find="smallest", lower=2
    )
    assert t is not None  # the bound tends to 0: some T is admissible
    return int(t)


def sensitivity_sq(neighboring: str) -> int:
    """Delta_2^2 of the category counts: 2 under replace-one ("bounded": one count down and
    one up), 1 under add/remove (one count moves)."""
    return 2 if neighboring == "bounded" else 1


def threshold_sigma2(rho: float, neighboring: str) -> Fraction:
    """sigma^2 = Delta_2^2 / (2 rho) of the category counts, as the exact rational (rho's binary
    value), so the discrete Gaussian is exactly rho-zCDP on them (CKS 2020, Theorem 4)."""
    return Fraction(sensitivity_sq(neighboring)) / (2 * Fraction(rho))


__all__ = [
    "TAIL_SLACK",
    "gaussian_log_tail",
    "gaussian_threshold",
    "sensitivity_sq",
    "threshold_sigma2",
]

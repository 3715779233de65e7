"""Theorem 3.2 of the CSS 2022 version (seed 001, Lemmas 4.6-4.9): bounded neighbours by a
direct bound (much looser than Corollary 3.2 and the exact worst case; kept for comparison).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from synthcert.privacy.gaussian_release.assumptions import (
    _check_inputs,
)
from synthcert.privacy.numerics import tau


def direct_alpha_limit(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """n²/(τ(n−1)) of Theorem 3.2 of seed 001 (bounded, direct): needs 1 < α below it."""
    n_a = np.asarray(n, dtype=float)
    t = tau(d, sigma)
    with np.errstate(divide="ignore"):
        return np.where(n_a > 1, n_a * n_a / (t * np.maximum(n_a - 1.0, 1e-300)), 0.0)


def epsilon_bounded_direct(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> np.ndarray:
    """Theorem 3.2 of seed 001 (Lemmas 4.6-4.9): bounded ε per record; +inf if α ≥ n²/(τ(n−1)).

    ε = α/2·τ/(n² − α(n−1)τ) + α/(2(α−1))·log(1 + k) − 1/(2(α−1))·log(1 − αk), k = (n−1)τ/n².
    (Seed 001 writes μ' = n/(n−1)·Σx_i in Lemma 4.6; the mean of the n−1 common records is
    1/(n−1)·Σx_i. The bound is unaffected: it only uses ‖x − μ'‖² ≤ 4d.)

    Parameters
    ----------
    alpha, n, d, sigma : array_like
        Rényi orders, records, encoded dimension, eigenvalue bound.

    Returns
    -------
    numpy.ndarray
        ε per record, +inf outside the admissible orders.

    Raises
    ------
    AssumptionError
        When n, d or σ is malformed.

    Examples
    --------
    >>> from synthcert.privacy.gaussian_release.corollary32 import epsilon_bounded
    >>> bool(epsilon_bounded_direct(2.0, 10**6, 6, 0.01) > epsilon_bounded(2.0, 10**6, 6, 0.01))
    True
    """
    _check_inputs(n, d, sigma)
    a = np.asarray(alpha, dtype=float)
    n_a = np.asarray(n, dtype=float)
    t = tau(d, sigma)
    a, n_a, t = np.broadcast_arrays(a, n_a, t)
    ok = (a > 1) & (n_a >= 2) & (a < direct_alpha_limit(n_a, np.asarray(d, float), sigma))
    a = np.where(ok, a, 2.0)
    n_a = np.where(ok, n_a, 1e6)
    t = np.where(ok, t, 1.0)
    k = (n_a - 1.0) * t / (n_a * n_a)
    l1 = a / 2.0 * t / (n_a * n_a - a * (n_a - 1.0) * t)
    eps = l1 + a / (2.0 * (a - 1.0)) * np.log1p(k) - np.log1p(-a * k) / (2.0 * (a - 1.0))
    return np.where(ok, eps, np.inf)


__all__ = [
    "direct_alpha_limit",
    "epsilon_bounded_direct",
]

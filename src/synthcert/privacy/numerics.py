"""Small numerical helpers the privacy modules share: accurate log1p(x) − x and τ = 4d/σ of
the Gaussian release (the largest count a budget allows is :mod:`synthcert.privacy.calibrate`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def log1p_minus_x(x: ArrayLike) -> np.ndarray:
    """l(x) = log(1+x) − x, to full relative precision also for |x| ≪ 1 (Taylor series).

    The terms of Theorem 3.1 (seed 000) that cancel to O(1/n²) are written with l(x) so that
    n up to 10^10 keeps full precision; ``np.log1p(x) - x`` loses it for |x| < 10^-3.

    Parameters
    ----------
    x : array_like
        Arguments, x > −1.

    Returns
    -------
    numpy.ndarray
        l(x), elementwise (−inf at x = −1, NaN below).

    Examples
    --------
    >>> round(float(log1p_minus_x(1e-8)) / 1e-16, 6)  # −x²/2 + x³/3 − … at x = 10⁻⁸
    -0.5
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(np.log1p(x) - x, dtype=float)
    small = np.abs(x) < 1e-3
    if np.any(small):
        xs = x[small] if out.ndim else x
        series = xs * xs * (-1 / 2 + xs * (1 / 3 + xs * (-1 / 4 + xs * (1 / 5 + xs * (-1 / 6)))))
        if out.ndim:
            out[small] = series
        else:
            out = np.asarray(series, dtype=float)
    return out


def tau(d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """τ := 4d/σ (seed 000 §3): squared diameter of [-1,1]^d over the smallest eigenvalue."""
    return 4.0 * np.asarray(d, dtype=float) / np.asarray(sigma, dtype=float)

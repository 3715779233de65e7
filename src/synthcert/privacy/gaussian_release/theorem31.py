"""Theorem 3.1 of Miura et al. (seed 000): unbounded (add/remove) neighbours.

The closed form of ε of (α, ε)-RDP of one record of M_G on the class D_σ, admissible for
1 < α < c of eq. (1); the terms that cancel to O(1/n²) are written with
``numerics.log1p_minus_x`` so that n up to 10^10 keeps full relative precision.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from synthcert.privacy.gaussian_release.assumptions import (
    _check_inputs,
)
from synthcert.privacy.numerics import log1p_minus_x, tau


def unbounded_alpha_limit(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """c = min{n+1, n²/(τ(n+1)−n)} of eq. (1) (seed 000): Theorem 3.1 needs 1 < α < c."""
    n_a = np.asarray(n, dtype=float)
    t = tau(d, sigma)
    den = t * (n_a + 1.0) - n_a
    with np.errstate(divide="ignore"):
        second = np.where(den > 0, n_a * n_a / np.where(den > 0, den, 1.0), np.inf)
    # den ≤ 0 means n/(n+1) ≥ τ, the first assumption of eq. (1) fails; report c = 0 then.
    return np.where(den > 0, np.minimum(n_a + 1.0, second), 0.0)


def _theorem31_parts(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean and covariance terms of ε_α1 and ε_α2 of Theorem 3.1 (seed 000); NaN where refused.

    NaN where eq. (1) fails. The pairs of logarithms that cancel to
    O(1/n²) are rewritten exactly with l(x) = log(1+x) − x:
      αd/(2(α−1))·log(n/(n+1)) − d/(2(α−1))·log(1−α/(n+1))
          = d/(2(α−1))·[−α l(1/n) − l(−α/(n+1)) − α/(n(n+1))],
      log(1+a) − α log(1+b) = l(a) − α l(b) + (a − αb), with a − αb in closed form.
    """
    a = np.asarray(alpha, dtype=float)
    n_a = np.asarray(n, dtype=float)
    d_a = np.asarray(d, dtype=float)
    t = tau(d, sigma)
    a, n_a, d_a, t = np.broadcast_arrays(a, n_a, d_a, t)
    c = unbounded_alpha_limit(n_a, d_a, 4.0 * d_a / t)
    ok = (a > 1) & (a < c) & (t > n_a / (n_a + 1.0))
    # Replace infeasible entries by harmless values; they are masked to NaN at the end.
    a = np.where(ok, a, 2.0)
    n_a = np.where(ok, n_a, 1e6)
    t = np.where(ok, t, 1.0)
    half = 1.0 / (2.0 * (a - 1.0))

    # ε_α1: s = +1 (Lemmas 4.4 and 4.5 with the n-record dataset as Σ1).
    l1 = a / 2.0 * t / ((n_a + 1.0) * (n_a + 1.0 - a))
    cancel1 = (
        -a * log1p_minus_x(1.0 / n_a) - log1p_minus_x(-a / (n_a + 1.0)) - a / (n_a * (n_a + 1.0))
    )
    a1 = a * n_a * t / ((n_a + 1.0) * (n_a + 1.0 - a))
    b1 = t / (n_a + 1.0)
    diff1 = a * t * (a - 1.0) / ((n_a + 1.0) * (n_a + 1.0 - a))  # a1 − α b1
    log_ratio1 = log1p_minus_x(a1) - a * log1p_minus_x(b1) + diff1

    # ε_α2: s = −1 (the (n+1)-record dataset is Σ1; Lemma 4.4/4.5 with n → n+1).
    l2 = a / 2.0 * t / (n_a * (n_a + a) - a * (n_a + 1.0) * t)
    cancel2 = a * log1p_minus_x(1.0 / n_a) - log1p_minus_x(a / n_a)
    a2 = -a * (n_a + 1.0) * t / ((n_a + a) * n_a)
    b2 = -t / n_a
    diff2 = a * t * (a - 1.0) / (n_a * (n_a + a))  # a2 − α b2
    log_ratio2 = log1p_minus_x(a2) - a * log1p_minus_x(b2) + diff2
    cov1 = d_a * half * cancel1 - half * np.minimum(0.0, log_ratio1)
    cov2 = d_a * half * cancel2 - half * np.minimum(0.0, log_ratio2)
    nan = np.nan
    return (
        np.where(ok, l1, nan),
        np.where(ok, cov1, nan),
        np.where(ok, l2, nan),
        np.where(ok, cov2, nan),
    )


def theorem31_terms(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """ε_α1 (add a record to the n-set) and ε_α2 (remove one from the (n+1)-set) of Theorem 3.1.

    Seed 000, Theorem 3.1: ε_α = max{ε_α1, ε_α2} per output record (:func:`epsilon_unbounded`).

    Parameters
    ----------
    alpha : array_like
        Rényi orders, 1 < α < c of eq. (1).
    n : array_like
        Records of the smaller dataset.
    d : array_like
        Encoded dimension.
    sigma : array_like
        Lower bound on the covariance eigenvalues (the class D_σ).

    Returns
    -------
    tuple of numpy.ndarray
        (ε_α1, ε_α2), broadcast over the inputs; NaN where eq. (1) fails.

    Examples
    --------
    >>> e1, e2 = theorem31_terms(4.0, 10**6, 6, 0.01)
    >>> round(float(max(e1, e2)) * 10**6, 4)  # Table 1 of seed 000 prints 5.8064
    5.8064
    """
    m1, c1, m2, c2 = _theorem31_parts(alpha, n, d, sigma)
    return m1 + c1, m2 + c2


def theorem31_components(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> dict[str, np.ndarray]:
    """Theorem 3.1 (seed 000) split into its mean-vector and covariance terms, per direction.

    The mean term is α/2 × the Lemma 4.4 bound on L1; the covariance term the Lemma 4.5 bound on
    −log L2/(2(α−1)). ``add``: the n-record dataset against the one with a record added (ε_α1);
    ``remove``: the (n+1)-record dataset against the one with a record removed (ε_α2).

    Parameters
    ----------
    alpha, n, d, sigma : array_like
        As in :func:`theorem31_terms` (the same order).

    Returns
    -------
    dict of str to numpy.ndarray
        ``mean_term_add``, ``mean_term_remove``, ``covariance_term_add``,
        ``covariance_term_remove``, ``epsilon_add``, ``epsilon_remove``; NaN where eq. (1)
        fails.

    Examples
    --------
    >>> parts = theorem31_components(4.0, 10**6, 6, 0.01)
    >>> bool(parts["epsilon_add"] == parts["mean_term_add"] + parts["covariance_term_add"])
    True
    """
    m1, c1, m2, c2 = _theorem31_parts(alpha, n, d, sigma)
    return {
        "mean_term_add": m1,
        "mean_term_remove": m2,
        "covariance_term_add": c1,
        "covariance_term_remove": c2,
        "epsilon_add": m1 + c1,
        "epsilon_remove": m2 + c2,
    }


def epsilon_unbounded(alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """Theorem 3.1 (seed 000): ε_α = max{ε_α1, ε_α2} per output record; +inf where eq. (1) fails.

    Parameters
    ----------
    alpha : array_like
        Rényi orders.
    n : array_like
        Records of the smaller dataset of the pair.
    d : array_like
        Encoded dimension.
    sigma : array_like
        Lower bound on the covariance eigenvalues.

    Returns
    -------
    numpy.ndarray
        ε of (α, ε)-RDP for one output record.

    Raises
    ------
    AssumptionError
        When n, d or σ is malformed (n, d whole and ≥ 1; σ > 0).

    Examples
    --------
    >>> round(float(epsilon_unbounded(4.0, 10**6, 6, 0.01)) * 10**6, 4)  # Table 1 of seed 000
    5.8064
    """
    _check_inputs(n, d, sigma)
    e1, e2 = theorem31_terms(alpha, n, d, sigma)
    out = np.maximum(e1, e2)
    return np.where(np.isnan(out), np.inf, out)


__all__ = [
    "epsilon_unbounded",
    "theorem31_components",
    "theorem31_terms",
    "unbounded_alpha_limit",
]

"""Corollary 3.2 of Miura et al. (seed 000): bounded (replacement) neighbours, via the weak
triangle inequality of Rényi divergence, eq. (3) under assumption eq. (2) (corrected, or as
printed with ``variant="paper"``); the split point p is optimised on a grid then refined.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from synthcert.privacy.gaussian_release.assumptions import (
    Variant,
    _check_inputs,
)
from synthcert.privacy.gaussian_release.theorem31 import (
    theorem31_terms,
    unbounded_alpha_limit,
)

_P_GRID = 256  # points of the log(p−1) grid before the bounded refinement


def bounded_alpha_limit(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """c²/(2c−1) of eq. (2) (seed 000): Corollary 3.2 needs 1 < α < c²/(2c−1)."""
    c = unbounded_alpha_limit(n, d, sigma)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c > 1, c * c / (2.0 * c - 1.0), 0.0)


def _second_leg(n: float, sigma: float, variant: Variant) -> tuple[float, float]:
    """(n, σ) at which the second leg D(M(D3) ‖ M(D2)) of eq. (3) is evaluated.

    The corollary's proof inserts D3 = D1 ∪ {y} = D2 ∪ {x} with n+1 records, so the second leg
    is the pair (n+1 → n), covered by ε(·, n) of Theorem 3.1, and Theorem 3.1 then needs the
    (n+1)-record D3 in D_σ'. D3 is not in D_σ in general, but Σ_{D3} = n/(n+1)·Σ_{D2} + (PSD),
    so σ' = nσ/(n+1) holds. The paper (eq. (3)) writes ε(·, n+1) with σ: this is a slip
    (not listed in the seeds README); ``variant="paper"`` reproduces the printed formula.
    """
    if variant == "paper":
        return n + 1.0, sigma
    return n, sigma * n / (n + 1.0)


def bounded_p_interval(
    alpha: float, n: float, d: float, sigma: float, variant: Variant
) -> tuple[float, float] | None:
    """Open interval of p in eq. (3) of seed 000: pα < c(n,σ) and (pα−1)/(p−1) < c(second leg).

    Parameters
    ----------
    alpha : float
        Rényi order.
    n, d, sigma : float
        Records, encoded dimension and eigenvalue bound, as in Corollary 3.2.
    variant : {"corrected", "paper"}
        Second leg at (n, σn/(n+1)) (corrected) or at (n+1, σ) as printed.

    Returns
    -------
    tuple of float or None
        (lower, upper) end of the admissible p, or None when no p is admissible.
    """
    n2, s2 = _second_leg(n, sigma, variant)
    c1 = float(unbounded_alpha_limit(n, d, sigma))
    c2 = c1 if variant == "paper" else float(unbounded_alpha_limit(n2, d, s2))
    if not (alpha > 1 and alpha < c1 and alpha < c2 and c2 > 1):
        return None
    lo = (c2 - 1.0) / (c2 - alpha)
    hi = c1 / alpha
    return (lo, hi) if lo < hi else None


def bounded_objective(
    p: np.ndarray, alpha: np.ndarray, n: float, d: float, sigma: float, variant: Variant
) -> np.ndarray:
    """Weak-triangle combination of eq. (3) at the points p (Lemma 2.7 of seed 000).

    Parameters
    ----------
    p : numpy.ndarray
        Points of the weak triangle inequality, inside :func:`bounded_p_interval`.
    alpha : numpy.ndarray
        Rényi orders (broadcast against ``p``).
    n, d, sigma : float
        As in Corollary 3.2.
    variant : {"corrected", "paper"}
        As in :func:`bounded_p_interval`.

    Returns
    -------
    numpy.ndarray
        The bound on ε per record at each p (+inf where Theorem 3.1 refuses a leg).
    """
    n2, s2 = _second_leg(n, sigma, variant)
    e1a, e1b = theorem31_terms(p * alpha, n, d, sigma)
    e2a, e2b = theorem31_terms((p * alpha - 1.0) / (p - 1.0), n2, d, s2)
    first = (alpha - 1.0 / p) / (alpha - 1.0) * np.maximum(e1a, e1b)
    out = first + np.maximum(e2a, e2b)
    return np.where(np.isnan(out), np.inf, out)


_FINE = 17  # points of each refinement grid around the best grid cell


def _bounded_vectorised(
    alpha: np.ndarray, n: float, d: float, sigma: float, variant: Variant
) -> tuple[np.ndarray, np.ndarray]:
    """Corollary 3.2 for a 1-D array of α: grid in log(p−1), then golden-section refinement.

    The feasible p run from ≈1 + O(1/c) to c/α (orders of magnitude apart) and the optimum sits
    near p ≈ 1.75 for the paper's settings, so a linear grid in p would miss it. Every α is
    refined simultaneously. Each returned value is the objective at an actual feasible p, so it
    is a valid bound even where the search is not exactly at the infimum.
    """
    k = alpha.size
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    for i, a in enumerate(alpha):
        interval = bounded_p_interval(float(a), n, d, sigma, variant)
        if interval is not None:
            lo[i], hi[i] = interval
    ok = np.isfinite(lo)
    eps = np.full(k, np.inf)
    ps = np.full(k, np.nan)
    if not np.any(ok):
        return eps, ps
    a = alpha[ok][:, None]
    u_lo, u_hi = np.log(lo[ok] - 1.0), np.log(hi[ok] - 1.0)
    frac = np.linspace(0.0, 1.0, _P_GRID + 2)[1:-1]
    u = u_lo[:, None] + (u_hi - u_lo)[:, None] * frac[None, :]
    vals = bounded_objective(1.0 + np.exp(u), a, n, d, sigma, variant)
    j = np.argmin(vals, axis=1)
    rows = np.arange(u.shape[0])
    best_val, best_u = vals[rows, j], u[rows, j]
    width = (u_hi - u_lo) / (_P_GRID + 1)
    a1 = a[:, 0]
    edge_lo = u_lo + 1e-12 * (u_hi - u_lo)
    edge_hi = u_hi - 1e-12 * (u_hi - u_lo)
    # Two rounds of a 17-point grid on the bracket around the best point (each a single
    # vectorised call for all α), then one parabolic step through the best three points.
    fine = np.linspace(-1.0, 1.0, _FINE)
    for _ in range(2):
        cu = np.clip(
            best_u[:, None] + width[:, None] * fine[None, :], edge_lo[:, None], edge_hi[:, None]
        )
        cv = bounded_objective(1.0 + np.exp(cu), a, n, d, sigma, variant)
        jj = np.argmin(cv, axis=1)
        better = cv[rows, jj] < best_val
        best_val = np.where(better, cv[rows, jj], best_val)
        best_u = np.where(better, cu[rows, jj], best_u)
        width = width * 2.0 / (_FINE - 1)
    h = width
    um, up = best_u - h, best_u + h
    fm = bounded_objective(1.0 + np.exp(um), a1, n, d, sigma, variant)
    fp = bounded_objective(1.0 + np.exp(up), a1, n, d, sigma, variant)
    curv = fm - 2.0 * best_val + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.where(curv > 0, 0.5 * h * (fm - fp) / curv, 0.0)
    uv = np.clip(best_u + np.clip(shift, -h, h), edge_lo, edge_hi)
    fv = bounded_objective(1.0 + np.exp(uv), a1, n, d, sigma, variant)
    better = fv < best_val
    eps[ok] = np.where(better, fv, best_val)
    ps[ok] = 1.0 + np.exp(np.where(better, uv, best_u))
    eps = np.where(np.isfinite(eps), eps, np.inf)
    ps = np.where(np.isfinite(eps), ps, np.nan)
    return eps, ps


def bounded_optimum(
    alpha: float, n: float, d: float, sigma: float, variant: Variant = "corrected"
) -> tuple[float, float]:
    """Corollary 3.2 (seed 000, eq. (3)) for one α: (ε, p*), the infimum over p and its place."""
    eps, ps = _bounded_vectorised(np.array([float(alpha)]), n, d, sigma, variant)
    return float(eps[0]), float(ps[0])


def epsilon_bounded(
    alpha: ArrayLike,
    n: float,
    d: float,
    sigma: float,
    *,
    variant: Variant = "corrected",
    return_p: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Corollary 3.2 (seed 000, eq. (3)), vectorised over α; +inf where eq. (2) fails.

    Parameters
    ----------
    alpha : array_like
        Rényi orders.
    n, d, sigma : float
        Records, encoded dimension, eigenvalue bound.
    variant : {"corrected", "paper"}
        The corrected second leg (at n, σn/(n+1)) or eq. (3) as printed (at n+1, σ).
    return_p : bool
        Also return the p of the weak triangle inequality at the optimum.

    Returns
    -------
    numpy.ndarray or tuple of numpy.ndarray
        ε per record (and p*), shaped like ``alpha``.

    Raises
    ------
    AssumptionError
        When n, d or σ is malformed.

    Examples
    --------
    >>> round(float(epsilon_bounded(4.0, 10**5, 6, 0.01, variant="paper")) * 10**5, 4)
    266.7349
    """
    _check_inputs(n, d, sigma)
    a = np.asarray(alpha, dtype=float)
    eps, ps = _bounded_vectorised(a.ravel(), float(n), float(d), float(sigma), variant)
    eps, ps = eps.reshape(a.shape), ps.reshape(a.shape)
    return (eps, ps) if return_p else eps


__all__ = [
    "bounded_alpha_limit",
    "bounded_objective",
    "bounded_optimum",
    "bounded_p_interval",
    "epsilon_bounded",
]

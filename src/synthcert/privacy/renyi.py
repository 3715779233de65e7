"""Closed-form Rényi divergence of two multivariate normals (Gil et al.; seed 000 Prop. 4.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from synthcert._result import Result
from synthcert.errors import SynthcertError


@dataclass(frozen=True)
class RenyiDivergence(Result):
    """D_α(N(μ1,Σ1) ‖ N(μ2,Σ2)) for one or more orders α, with the reason where it is infinite."""

    alpha: tuple[float, ...]
    divergence: tuple[float, ...]
    mean_term: tuple[float, ...]
    covariance_term: tuple[float, ...]
    finite: tuple[bool, ...]
    reason: tuple[str | None, ...]


def _as_gaussian(mu: ArrayLike, cov: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate one mean/covariance pair and return float arrays of shapes (d,) and (d, d)."""
    mu_a = np.atleast_1d(np.asarray(mu, dtype=float))
    cov_a = np.atleast_2d(np.asarray(cov, dtype=float))
    if mu_a.ndim != 1 or cov_a.shape != (mu_a.size, mu_a.size):
        raise SynthcertError(
            f"{name}: mean of shape {mu_a.shape} and covariance of shape {cov_a.shape} do not match"
        )
    if not (np.all(np.isfinite(mu_a)) and np.all(np.isfinite(cov_a))):
        raise SynthcertError(f"{name}: mean and covariance must be finite")
    if not np.allclose(cov_a, cov_a.T, rtol=1e-10, atol=1e-14):
        raise SynthcertError(f"{name}: covariance is not symmetric")
    return mu_a, 0.5 * (cov_a + cov_a.T)


def _whitened(
    mu1: np.ndarray, cov1: np.ndarray, mu2: np.ndarray, cov2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues e of Σ1^{-1/2}(Σ2−Σ1)Σ1^{-1/2} and the mean difference v in that eigenbasis."""
    try:
        chol = np.linalg.cholesky(cov1)
    except np.linalg.LinAlgError as exc:
        raise SynthcertError("Σ1 is not positive-definite; D_α is undefined") from exc
    try:
        np.linalg.cholesky(cov2)
    except np.linalg.LinAlgError as exc:
        raise SynthcertError("Σ2 is not positive-definite; D_α is undefined") from exc
    # Working with Σ2 − Σ1 (not Σ2 alone) keeps log(1+e) accurate when the covariances are close.
    inner = np.linalg.solve(chol, np.linalg.solve(chol, cov2 - cov1).T)
    e, u = np.linalg.eigh(0.5 * (inner + inner.T))
    v = u.T @ np.linalg.solve(chol, mu1 - mu2)
    return e, v


def renyi_gaussian_detail(
    alpha: ArrayLike, mu1: ArrayLike, cov1: ArrayLike, mu2: ArrayLike, cov2: ArrayLike
) -> RenyiDivergence:
    """Prop. 4.1 of seed 000 (Gil et al. 2013): D_α of two normals, +inf where Σ_α is not PD.

    D_α = α/2 Δμᵗ Σ_α⁻¹ Δμ − 1/(2(α−1)) log(|Σ_α| / (|Σ1|^{1−α} |Σ2|^α)),
    Σ_α = (1−α)Σ1 + αΣ2. Evaluated in the basis that whitens Σ1, where Σ_α has eigenvalues
    1 + α·e_i (e_i those of Σ1^{-1/2}(Σ2−Σ1)Σ1^{-1/2}) and the log-ratio is
    Σ_i [log1p(α e_i) − α log1p(e_i)], so nothing cancels catastrophically. Any α > 0, α ≠ 1.
    """
    m1, c1 = _as_gaussian(mu1, cov1, "first normal")
    m2, c2 = _as_gaussian(mu2, cov2, "second normal")
    if m1.size != m2.size:
        raise SynthcertError(f"dimensions differ: {m1.size} and {m2.size}")
    alphas = np.atleast_1d(np.asarray(alpha, dtype=float))
    if np.any(~np.isfinite(alphas)) or np.any(alphas <= 0) or np.any(alphas == 1):
        raise SynthcertError("orders α must be finite, positive and different from 1")
    e, v = _whitened(m1, c1, m2, c2)
    scale = 1.0 + alphas[:, None] * e[None, :]  # eigenvalues of the whitened Σ_α
    positive = np.all(scale > 0, axis=1)
    safe = np.where(positive[:, None], scale, 1.0)
    ae = np.where(positive[:, None], alphas[:, None] * e[None, :], 0.0)
    mean_term = 0.5 * alphas * np.sum(v[None, :] ** 2 / safe, axis=1)
    log_ratio = np.sum(np.log1p(ae), axis=1) - alphas * np.sum(np.log1p(e))
    cov_term = -log_ratio / (2.0 * (alphas - 1.0))
    div = np.where(positive, mean_term + cov_term, np.inf)
    # Rounding can push a true zero a hair below zero; a divergence is never negative.
    div = np.where(positive, np.maximum(div, 0.0), div)
    reasons: list[str | None] = []
    for a, ok, s in zip(alphas, positive, scale, strict=True):
        if ok:
            reasons.append(None)
        else:
            reasons.append(
                f"Σ_α = (1−α)Σ1 + αΣ2 is not positive-definite at α = {a:g} (smallest whitened "
                f"eigenvalue {float(np.min(s)):.3g}); the integral diverges, D_α = +inf"
            )
    return RenyiDivergence(
        alpha=tuple(float(a) for a in alphas),
        divergence=tuple(float(x) for x in div),
        mean_term=tuple(
            float(x) if ok else float("inf") for x, ok in zip(mean_term, positive, strict=True)
        ),
        covariance_term=tuple(
            float(x) if ok else float("inf") for x, ok in zip(cov_term, positive, strict=True)
        ),
        finite=tuple(bool(x) for x in positive),
        reason=tuple(reasons),
    )


def renyi_gaussian(
    alpha: ArrayLike, mu1: ArrayLike, cov1: ArrayLike, mu2: ArrayLike, cov2: ArrayLike
) -> np.ndarray:
    """Prop. 4.1 of seed 000: D_α(N(μ1,Σ1) ‖ N(μ2,Σ2)) as an array over α (+inf where not PD).

    Parameters
    ----------
    alpha : array_like
        Orders, finite, positive and ≠ 1.
    mu1, cov1 : array_like
        Mean and covariance of the first Gaussian.
    mu2, cov2 : array_like
        Mean and covariance of the second.

    Returns
    -------
    numpy.ndarray
        D_α at each order.

    Raises
    ------
    SynthcertError
        When the shapes differ, a covariance is not symmetric or not positive-definite, or
        an order is invalid.

    Examples
    --------
    >>> renyi_gaussian([2.0], [0.0], [[1.0]], [1.0], [[1.0]])  # α·Δμ²/2
    array([1.])
    """
    return np.asarray(renyi_gaussian_detail(alpha, mu1, cov1, mu2, cov2).divergence)

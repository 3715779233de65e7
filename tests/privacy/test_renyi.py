"""Closed-form Gaussian Rényi divergence against numerical integration and Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from synthcert.errors import SynthcertError
from synthcert.privacy.renyi import renyi_gaussian, renyi_gaussian_detail


def _log_integral_1d(alpha, m1, v1, m2, v2):
    def f(x):
        lp = stats.norm.logpdf(x, m1, math.sqrt(v1))
        lq = stats.norm.logpdf(x, m2, math.sqrt(v2))
        return math.exp(alpha * lp + (1 - alpha) * lq)

    lo = min(m1, m2) - 30 * math.sqrt(max(v1, v2))
    hi = max(m1, m2) + 30 * math.sqrt(max(v1, v2))
    val, _ = integrate.quad(f, lo, hi, limit=400, epsabs=0, epsrel=1e-11)
    return math.log(val) / (alpha - 1)


@pytest.mark.parametrize(
    ("alpha", "m1", "v1", "m2", "v2"),
    [
        (2.0, 0.0, 1.0, 0.5, 1.0),
        (4.0, 0.1, 0.3, -0.2, 0.35),
        (1.5, 0.0, 2.0, 1.0, 1.2),
        (0.5, 0.0, 1.0, 2.0, 3.0),
        (10.0, 0.0, 0.01, 0.001, 0.0101),
    ],
)
def test_one_dimension_matches_quadrature(alpha, m1, v1, m2, v2):
    exact = float(renyi_gaussian(alpha, [m1], [[v1]], [m2], [[v2]])[0])
    assert exact == pytest.approx(_log_integral_1d(alpha, m1, v1, m2, v2), rel=1e-7, abs=1e-12)


def _logpdf(mu, cov):
    """A fast Gaussian log-density for points of shape (..., d)."""
    inv = np.linalg.inv(cov)
    const = -0.5 * (len(mu) * math.log(2 * math.pi) + np.linalg.slogdet(cov)[1])

    def f(z):
        r = np.asarray(z) - mu
        return const - 0.5 * np.einsum("...i,ij,...j->...", r, inv, r)

    return f


def test_two_dimensions_match_quadrature():
    mu1, mu2 = np.array([0.1, -0.2]), np.array([0.3, 0.1])
    c1 = np.array([[0.5, 0.2], [0.2, 0.4]])
    c2 = np.array([[0.6, 0.1], [0.1, 0.45]])
    alpha = 3.0
    lp, lq = _logpdf(mu1, c1), _logpdf(mu2, c2)

    def f(y, x):
        z = np.array([x, y])
        return math.exp(alpha * lp(z) + (1 - alpha) * lq(z))

    val, _ = integrate.dblquad(f, -8, 8, -8, 8, epsabs=1e-10, epsrel=1e-8)
    want = math.log(val) / (alpha - 1)
    assert float(renyi_gaussian(alpha, mu1, c1, mu2, c2)[0]) == pytest.approx(want, rel=1e-6)


def test_six_dimensions_match_monte_carlo():
    rng = np.random.default_rng(20240601)
    d = 6
    a = rng.normal(size=(d, d))
    c1 = a @ a.T / d + 0.5 * np.eye(d)
    b = rng.normal(size=(d, d)) * 0.15
    c2 = c1 + b @ b.T
    mu1 = rng.normal(size=d) * 0.2
    mu2 = mu1 + rng.normal(size=d) * 0.2
    alpha = 1.5
    x = rng.multivariate_normal(mu1, c1, size=400_000)
    log_ratio = _logpdf(mu1, c1)(x) - _logpdf(mu2, c2)(x)
    # D_α = 1/(α−1) log E_P[(p/q)^{α−1}]
    m = np.max((alpha - 1) * log_ratio)
    est = (m + math.log(np.mean(np.exp((alpha - 1) * log_ratio - m)))) / (alpha - 1)
    exact = float(renyi_gaussian(alpha, mu1, c1, mu2, c2)[0])
    assert exact == pytest.approx(est, rel=0.02)


def test_two_dimensions_infinite_where_the_integral_diverges():
    # Σ_α = −2Σ1 + 3Σ2 has determinant −0.05: the integral over a box grows without limit.
    mu = np.zeros(2)
    c1 = np.array([[0.5, 0.2], [0.2, 0.4]])
    c2 = np.array([[0.6, -0.1], [-0.1, 0.45]])
    alpha = 3.0
    assert float(renyi_gaussian(alpha, mu, c1, mu, c2)[0]) == math.inf
    lp, lq = _logpdf(mu, c1), _logpdf(mu, c2)

    def box(r):
        xs = np.linspace(-r, r, 401)
        gx, gy = np.meshgrid(xs, xs)
        z = np.stack([gx.ravel(), gy.ravel()], axis=1)
        vals = np.exp(alpha * lp(z) + (1 - alpha) * lq(z))
        return vals.sum() * (xs[1] - xs[0]) ** 2

    assert box(20.0) > 10 * box(10.0)


def test_equal_covariances_give_the_mahalanobis_term():
    c = np.array([[0.3, 0.1, 0.0], [0.1, 0.2, 0.05], [0.0, 0.05, 0.4]])
    m1, m2 = np.array([0.1, 0.2, 0.3]), np.array([-0.1, 0.25, 0.0])
    dm = m1 - m2
    alphas = np.array([1.5, 2.0, 7.0])
    want = alphas / 2 * (dm @ np.linalg.solve(c, dm))
    np.testing.assert_allclose(renyi_gaussian(alphas, m1, c, m2, c), want, rtol=1e-12)
    np.testing.assert_allclose(renyi_gaussian(alphas, m1, c, m1, c), 0.0, atol=1e-15)


def test_nearly_equal_covariances_keep_precision():
    # Σ2 = (1+e)Σ1: D_α = −d/(2(α−1))·[log1p(αe) − α log1p(e)] ≈ d α e²/4, here ~1e-18.
    d, e, alpha = 4, 1e-9, 3.0
    c1 = np.diag([0.2, 0.3, 0.4, 0.5])
    got = float(renyi_gaussian(alpha, np.zeros(d), c1, np.zeros(d), c1 * (1 + e))[0])
    want = -d / (2 * (alpha - 1)) * (math.log1p(alpha * e) - alpha * math.log1p(e))
    assert got == pytest.approx(want, rel=1e-5)
    assert got == pytest.approx(d * alpha * e * e / 4, rel=1e-5)


def test_not_positive_definite_is_infinite_with_reason():
    # (1−α)·1 + α·0.1 < 0 for α = 2: the integral of p^α q^{1−α} diverges.
    res = renyi_gaussian_detail([1.05, 2.0], [0.0], [[1.0]], [0.0], [[0.1]])
    assert res.finite == (True, False)
    assert math.isfinite(res.divergence[0])
    assert res.divergence[1] == math.inf
    assert "not positive-definite" in res.reason[1]
    assert res.to_dict()["divergence"][1] == "inf"


def test_bad_input_is_refused():
    with pytest.raises(SynthcertError):
        renyi_gaussian(1.0, [0.0], [[1.0]], [0.0], [[1.0]])
    with pytest.raises(SynthcertError):
        renyi_gaussian(2.0, [0.0, 0.0], [[1.0]], [0.0], [[1.0]])
    with pytest.raises(SynthcertError):
        renyi_gaussian(2.0, [0.0], [[-1.0]], [0.0], [[1.0]])

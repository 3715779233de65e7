"""Exact discrete Laplace / Gaussian samplers (Canonne, Kamath & Steinke 2020) and the
floating-point-safe mechanisms built on them (Mironov 2012's support problem)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from synthcert.errors import AssumptionError
from synthcert.privacy import discrete as dz
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.mechanisms import (
    _integer_query,
    discrete_gaussian_noise,
    discrete_laplace_noise,
    gaussian_mechanism,
    grid_for,
    laplace_mechanism,
)

P_MIN = 1e-3


def _chi2_pvalue(samples: np.ndarray, pmf: dict[int, float]) -> float:
    """Chi-square of integer samples against a pmf, cells with expectation < 5 pooled."""
    keys = sorted(pmf)
    n = samples.size
    exp = np.array([pmf[k] * n for k in keys])
    obs = np.array([np.count_nonzero(samples == k) for k in keys], dtype=float)
    tail_obs, tail_exp = n - obs.sum(), n - exp.sum()
    keep = exp >= 5
    o = np.append(obs[keep], obs[~keep].sum() + tail_obs)
    e = np.append(exp[keep], exp[~keep].sum() + tail_exp)
    return float(stats.chisquare(o, e).pvalue)


def _dg_norm(sigma2: float) -> float:
    """sum_{x in Z} exp(-x^2/(2 sigma^2)) by mpmath: the Jacobi theta function theta_3(0, q)."""
    return float(mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * mpmath.mpf(sigma2)))))


# -- normalising constants ------------------------------------------------------------------
@pytest.mark.parametrize("t", [0.3, 1.0, 7.5, 120.0])
def test_discrete_laplace_normaliser_matches_mpmath(t):
    direct = mpmath.nsum(lambda x: mpmath.exp(-abs(x) / t), [-mpmath.inf, mpmath.inf])
    log_p0 = dz.discrete_laplace_logpmf(np.array([0]), t)[0]
    assert math.exp(-log_p0) == pytest.approx(float(direct), rel=1e-12)


@pytest.mark.parametrize("sigma2", [0.2, 1.0, 9.0, 400.0])
def test_discrete_gaussian_normaliser_theta_matches_direct_sum(sigma2):
    direct = mpmath.nsum(
        lambda x: mpmath.exp(-(x**2) / (2 * mpmath.mpf(sigma2))), [-mpmath.inf, mpmath.inf]
    )
    assert _dg_norm(sigma2) == pytest.approx(float(direct), rel=1e-12)
    # close to sqrt(2 pi sigma^2) for sigma >= 1 (Poisson summation), far from it below
    if sigma2 >= 1:
        assert _dg_norm(sigma2) == pytest.approx(math.sqrt(2 * math.pi * sigma2), rel=1e-6)


# -- the building blocks --------------------------------------------------------------------
def test_uniform_below_is_exact_beyond_64_bits():
    g = np.random.default_rng(5)
    bound = 3 * 2**100 + 12345
    bounds = np.array([bound] * 30_000, dtype=object)
    u = dz.uniform_below(g, bounds)
    assert all(0 <= v < bound for v in u)
    # the top-level thirds and the residues mod 7 are uniform
    thirds = np.array([v // 2**100 for v in u], dtype=np.int64)
    assert stats.chisquare(np.bincount(thirds, minlength=3)).pvalue > P_MIN
    mod7 = np.array([v % 7 for v in u], dtype=np.int64)
    assert stats.chisquare(np.bincount(mod7, minlength=7)).pvalue > P_MIN


@pytest.mark.parametrize("num,den", [(0, 1), (1, 3), (1, 1), (7, 2), (22, 7), (2**70 + 1, 2**70)])
def test_bernoulli_exp_frequency(num, den):
    g = np.random.default_rng(11)
    n = 40_000
    b = dz.bernoulli_exp(g, np.array([num] * n, dtype=object), np.array([den] * n, dtype=object))
    p = math.exp(-num / den)
    k = int(b.sum())
    if num == 0:
        assert k == n
    else:
        assert stats.binomtest(k, n, p).pvalue > P_MIN


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(1), Fraction(10, 3), Fraction(25)])
def test_discrete_laplace_matches_its_pmf(scale):
    x = discrete_laplace_noise(60_000, scale, rng=np.random.default_rng(21))
    t = float(scale)
    ks = range(-int(40 * t) - 5, int(40 * t) + 6)
    pmf = dict(zip(ks, np.exp(dz.discrete_laplace_logpmf(np.array(ks), t)), strict=True))
    assert _chi2_pvalue(x, pmf) > P_MIN
    # and a wrong scale is rejected by the same test
    wrong = dict(zip(ks, np.exp(dz.discrete_laplace_logpmf(np.array(ks), 1.1 * t)), strict=True))
    assert _chi2_pvalue(x, wrong) < P_MIN


@pytest.mark.parametrize(
    "sigma2", [Fraction(1, 4), Fraction(1), Fraction(10, 3), Fraction(200), Fraction(2**41, 3)]
)
def test_discrete_gaussian_matches_its_pmf(sigma2):
    x = discrete_gaussian_noise(60_000, sigma2, rng=np.random.default_rng(22))
    s2 = float(sigma2)
    if s2 < 1e6:
        norm = _dg_norm(s2)
        r = int(8 * math.sqrt(s2)) + 3
        pmf = {k: math.exp(-(k**2) / (2 * s2)) / norm for k in range(-r, r + 1)}
        assert _chi2_pvalue(x, pmf) > P_MIN
        wrong = {k: math.exp(-(k**2) / (2.4 * s2)) / _dg_norm(1.2 * s2) for k in range(-r, r + 1)}
        assert _chi2_pvalue(x, wrong) < P_MIN
    else:  # too many cells: KS of x/sigma against N(0, 1) (the lattice is negligible)
        z = x.astype(np.float64) / math.sqrt(s2)
        assert stats.kstest(z, "norm").pvalue > P_MIN
        assert stats.kstest(z / 1.05, "norm").pvalue < P_MIN


def test_secure_source_draws_the_same_distribution():
    x = discrete_laplace_noise(20_000, Fraction(3), rng=random.SystemRandom())
    ks = range(-150, 151)
    pmf = dict(zip(ks, np.exp(dz.discrete_laplace_logpmf(np.array(ks), 3.0)), strict=True))
    assert _chi2_pvalue(x, pmf) > 1e-6


# -- the mechanisms ----------------------------------------------------------------------------
def test_neighbouring_outputs_have_the_same_support():
    # Mironov 2012 / issue 16: with textbook float Laplace of scale 10, most outputs for input 0
    # cannot come from input 1. Now both outputs are integers whose noise has full support on Z:
    # every output seen from one input is seen from the other (the central range is dense).
    n, eps = 200_000, 0.1
    y0 = laplace_mechanism(np.zeros(n), 1.0, eps, integer=True, rng=np.random.default_rng(1))
    y1 = laplace_mechanism(np.ones(n), 1.0, eps, integer=True, rng=np.random.default_rng(2))
    assert np.all(y0 == np.rint(y0)) and np.all(y1 == np.rint(y1))
    c0 = set(y0[np.abs(y0) <= 40].tolist())
    c1 = set(y1[np.abs(y1 - 1) <= 40].tolist())
    assert set(range(-39, 41)) <= c0 & c1
    # the same for the textbook sampler fails: its outputs from 0 and 1 share almost nothing
    f0 = np.random.default_rng(1).laplace(0, 10, n)
    f1 = 1 + np.random.default_rng(2).laplace(0, 10, n)
    assert len(set(f0.tolist()) & set(f1.tolist())) < 0.01 * n


def test_real_valued_outputs_live_on_the_public_grid():
    # the grid depends only on the public (Delta, d): outputs for neighbouring real inputs are
    # all multiples of it, and the discrete noise reaches every multiple from either input
    eps, sens, d = 0.5, 0.25, 50_000
    g = grid_for(sens, d, 1)
    assert g == 2.0 ** math.floor(math.log2(sens / (d * 1024)))
    a = laplace_mechanism(np.full(d, 0.3), sens, eps, rng=np.random.default_rng(3))
    b = laplace_mechanism(np.full(d, 0.55), sens, eps, rng=np.random.default_rng(4))
    for y in (a, b):
        k = y / g
        assert np.all(k == np.rint(k))
        assert np.std(y - y.mean()) == pytest.approx(math.sqrt(2) * sens / eps, rel=0.03)
    assert grid_for(sens, 1, 1) == 2.0 ** math.floor(math.log2(sens / 1024))


def test_laplace_mechanism_integer_noise_is_discrete_laplace_of_scale_delta_over_eps():
    y = laplace_mechanism(np.zeros(60_000), 2.0, 0.5, integer=True, rng=np.random.default_rng(6))
    ks = range(-200, 201)
    pmf = dict(zip(ks, np.exp(dz.discrete_laplace_logpmf(np.array(ks), 4.0)), strict=True))
    assert _chi2_pvalue(y.astype(np.int64), pmf) > P_MIN


def test_laplace_mechanism_grid_noise_matches_continuous_laplace():
    # on a fine grid the discrete Laplace of scale (Delta/g + d)/eps, times g, is Lap(Delta/eps)
    # up to 2^-10: KS against the continuous law cannot tell them apart at 20,000 draws.
    y = laplace_mechanism(np.zeros(20_000), 2.0, 0.5, rng=np.random.default_rng(7))
    assert stats.kstest(y, stats.laplace(scale=4.0).cdf).pvalue > P_MIN
    assert stats.kstest(y, stats.laplace(scale=4.4).cdf).pvalue < P_MIN


def test_gaussian_mechanism_noise_and_accounting():
    acc = PrivacyAccountant(1.0, 1e-6)
    c = np.arange(20_000, dtype=float)
    y = gaussian_mechanism(c, 1.0, rho=0.005, integer=True, rng=8, accountant=acc)
    noise = (y - c).astype(np.int64)
    s2 = 1 / 0.01  # sigma^2 = Delta^2 / (2 rho)
    r = 100
    pmf = {k: math.exp(-(k**2) / (2 * s2)) / _dg_norm(s2) for k in range(-r, r + 1)}
    assert _chi2_pvalue(noise, pmf) > P_MIN
    wrong = {k: math.exp(-(k**2) / (2.4 * s2)) / _dg_norm(1.2 * s2) for k in range(-r, r + 1)}
    assert _chi2_pvalue(noise, wrong) < P_MIN
    assert acc.ledger[0].kind == "zcdp" and acc.ledger[0].rho == 0.005
    acc2 = PrivacyAccountant(1.0, 1e-6)
    gaussian_mechanism(c, 1.0, epsilon=1.0, delta=1e-6, calibration="analytic", integer=True,
                       rng=9, accountant=acc2)  # fmt: skip
    spent = acc2.spent()
    assert spent.epsilon <= 1.0 and spent.delta <= 1e-6


def test_integer_flag_refuses_a_real_valued_query():
    with pytest.raises(AssumptionError, match="integer-valued"):
        laplace_mechanism([0.5], 1.0, 1.0, integer=True, rng=0)


@settings(max_examples=200, deadline=None)
@given(
    d=st.integers(1, 40),
    sens=st.floats(1e-3, 1e3),
    seed=st.integers(0, 2**32 - 1),
    norm=st.sampled_from([1, 2]),
)
def test_grid_sensitivity_bounds_the_rounded_query(d, sens, seed, norm):
    # any neighbours with ||a - b||_norm <= Delta: the rounded queries differ by at most the
    # sensitivity in grid units that the mechanisms calibrate to
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1e4, 1e4, d)
    step = rng.normal(size=d)
    step *= sens / np.linalg.norm(step, ord=norm)
    b = a + step
    ia, _, s = _integer_query(a, sens, norm, False)
    ib, _, _ = _integer_query(b, sens, norm, False)
    assert float(np.linalg.norm((ia - ib).astype(float), ord=norm)) <= float(s) * (1 + 1e-12)
    # and the rounding costs at most 2^-10 of the sensitivity
    g = grid_for(sens, d, norm)
    assert float(s) <= (sens / g) * (1 + 2.0**-10) + 1e-9


def test_synthesizers_noise_their_counts_exactly(adult, monkeypatch):
    # PrivBayes's and the copula's Laplace marginals go through the integer path (noisy counts
    # are integers), the copula's Kendall taus through the grid
    from synthcert.data.datasets import adult_schema
    from synthcert.privacy import mechanisms
    from synthcert.synthesizers.copula import GaussianCopulaSynthesizer
    from synthcert.synthesizers.privbayes import PrivBayesSynthesizer

    calls: list[tuple[bool, np.ndarray]] = []
    real = mechanisms._integer_query

    def spy(value, sensitivity, norm, integer):
        out = real(value, sensitivity, norm, integer)
        calls.append((integer, out[0]))
        return out

    monkeypatch.setattr(mechanisms, "_integer_query", spy)
    cols = ["age", "sex", "race", "income"]
    schema, table = adult_schema().select(cols), adult[cols].iloc[:2000]
    PrivBayesSynthesizer(schema, epsilon=1.0, seed=0).fit(table)
    assert calls and all(flag for flag, _ in calls)
    calls.clear()
    GaussianCopulaSynthesizer(schema, epsilon=1.0, seed=0).fit(table)
    flags = [flag for flag, _ in calls]
    assert flags.count(True) == len(cols) and flags.count(False) == 1

"""Mechanisms of thesis section 2.3.3: samplers match their densities, privacy ratios hold."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

from synthcert.errors import AssumptionError
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.mechanisms import (
    exponential_mechanism,
    exponential_probabilities,
    gaussian_delta,
    gaussian_mechanism,
    gaussian_sigma_analytic,
    gaussian_sigma_classic,
    gaussian_sigma_zcdp,
    laplace_logpdf,
    laplace_mechanism,
    staircase_gamma_1d,
    staircase_logpdf,
    staircase_mean_l1,
    staircase_mechanism,
    staircase_optimal_gamma,
    staircase_sample,
    staircase_shell_index,
)

P_MIN = 1e-3  # a seeded goodness-of-fit test fails only if p < 0.001


def chi2_pvalue(observed: np.ndarray, expected: np.ndarray) -> float:
    """Chi-square p-value, cells with expected count <= 5 pooled into one."""
    keep = expected > 5
    obs, exp = observed[keep], expected[keep]
    if (~keep).any() and expected[~keep].sum() > 0:
        obs, exp = np.append(obs, observed[~keep].sum()), np.append(exp, expected[~keep].sum())
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


# -- Laplace ------------------------------------------------------------------------------
def test_laplace_matches_its_density():
    noise = laplace_mechanism(np.zeros(20_000), 2.0, 0.5, rng=1)
    assert stats.kstest(noise, stats.laplace(scale=4.0).cdf).pvalue > P_MIN


def test_laplace_density_ratio_is_bounded_by_e_eps():
    eps, sens = 0.7, 3.0
    rng = np.random.default_rng(2)
    q, q2 = np.zeros(4), np.array([1.0, -1.0, 0.5, -0.5])  # ||q - q2||_1 = 3
    y = laplace_mechanism(q, sens, eps, rng=rng)[None, :] + rng.normal(0, 5, (5000, 4))
    log_ratio = laplace_logpdf(y - q, sens, eps) - laplace_logpdf(y - q2, sens, eps)
    assert np.max(np.abs(log_ratio)) <= eps + 1e-12
    assert np.max(np.abs(log_ratio)) > 0.99 * eps  # the bound is attained


def test_laplace_records_pure_epsilon():
    acc = PrivacyAccountant(1.0)
    laplace_mechanism([1.0, 2.0], 1.0, 0.25, rng=0, accountant=acc)
    assert acc.ledger[0].kind == "pure" and acc.ledger[0].epsilon == 0.25
    assert acc.ledger[0].rho == pytest.approx(0.25**2 / 2)


# -- Gaussian -----------------------------------------------------------------------------
def test_gaussian_calibrations_figures():
    # sigma^2 = 2 Delta^2 ln(1.25/delta) / eps^2 (thesis Def. 2.3.14 corrected)
    assert gaussian_sigma_classic(2.0, 0.5, 1e-5) ** 2 == pytest.approx(
        2 * 4 * math.log(1.25e5) / 0.25
    )
    assert gaussian_sigma_zcdp(2.0, 0.5) ** 2 == pytest.approx(4.0 / (2 * 0.5))


def test_classic_gaussian_refuses_epsilon_at_least_one():
    with pytest.raises(AssumptionError, match="epsilon < 1"):
        gaussian_sigma_classic(1.0, 1.0, 1e-5)


@pytest.mark.parametrize("eps", [0.1, 0.5, 0.99])
def test_analytic_is_tighter_than_classic_and_classic_is_valid(eps):
    classic = gaussian_sigma_classic(1.0, eps, 1e-5)
    analytic = gaussian_sigma_analytic(1.0, eps, 1e-5)
    assert analytic < classic
    assert gaussian_delta(classic, 1.0, eps) <= 1e-5


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-5), (1.0, 1e-6), (4.0, 1e-5), (8.0, 1e-3)])
def test_analytic_sigma_is_the_exact_solution(eps, delta):
    sigma = gaussian_sigma_analytic(1.0, eps, delta)
    assert gaussian_delta(sigma, 1.0, eps) <= delta
    assert gaussian_delta(sigma, 1.0, eps) == pytest.approx(delta, rel=1e-6)
    assert gaussian_delta(sigma * 0.999, 1.0, eps) > delta


def test_gaussian_profile_matches_the_privacy_loss_distribution():
    """Independent form: the privacy loss is N(mu, 2 mu) with mu = Delta^2/(2 sigma^2)."""
    sigma, eps = 1.7, 0.8
    mu = 1.0 / (2 * sigma**2)
    s = math.sqrt(2 * mu)
    expected = stats.norm.sf((eps - mu) / s) - math.exp(eps) * stats.norm.sf((eps + mu) / s)
    assert gaussian_delta(sigma, 1.0, eps) == pytest.approx(expected, rel=1e-9)


def test_gaussian_profile_matches_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as pld

    sigma, eps = 2.0, 1.0
    dist = pld.from_gaussian_mechanism(sigma, sensitivity=1.0, value_discretization_interval=1e-4)
    assert gaussian_delta(sigma, 1.0, eps) == pytest.approx(
        dist.get_delta_for_epsilon(eps), rel=1e-2
    )


def test_gaussian_samples_and_accounting():
    acc = PrivacyAccountant(1.0, 1e-5)
    x = gaussian_mechanism(np.zeros(20_000), 1.0, rho=0.125, rng=3, accountant=acc)
    assert stats.kstest(x, stats.norm(scale=2.0).cdf).pvalue > P_MIN
    assert acc.ledger[0].kind == "zcdp" and acc.ledger[0].rho == 0.125
    acc2 = PrivacyAccountant(1.0, 1e-5)
    gaussian_mechanism([0.0], 1.0, epsilon=1.0, delta=1e-5, calibration="analytic", rng=0,
                       accountant=acc2)  # fmt: skip
    assert acc2.spent().epsilon <= 1.0 and acc2.spent().delta <= 1e-5


# -- Staircase ----------------------------------------------------------------------------
def _shell_probabilities_1d(eps: float, gamma: float, k_max: int) -> np.ndarray:
    """P(|X| in inner part / outer part of step k), Geng & Viswanath's density integrated."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * (gamma + (1 - gamma) * b))  # Delta = 1
    k = np.arange(k_max)
    inner = 2 * a * gamma * b**k
    outer = 2 * a * (1 - gamma) * b ** (k + 1)
    return np.column_stack([inner, outer]).ravel()


@pytest.mark.parametrize("form", ["l1", "coordinate"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_staircase_1d_matches_its_density(eps, form):
    gamma = staircase_gamma_1d(eps)
    x = staircase_sample(40_000, 1, eps, 1.0, form=form, rng=5)[:, 0]
    r = np.abs(x)
    k = np.floor(r)
    part = (r - k >= gamma).astype(int)
    k_max = 12
    idx = np.minimum(2 * k + part, 2 * k_max).astype(int)
    observed = np.bincount(idx, minlength=2 * k_max + 1)
    p = _shell_probabilities_1d(eps, gamma, k_max)
    expected = np.append(p, 1 - p.sum()) * len(x)
    assert chi2_pvalue(observed, expected) > P_MIN
    assert abs(np.mean(x > 0) - 0.5) < 0.02  # symmetric
    # within a step the magnitude is uniform
    inner = (r - k)[part == 0] / gamma
    assert stats.kstest(inner, "uniform").pvalue > P_MIN


@pytest.mark.parametrize("d", [1, 2, 5])
def test_staircase_density_integrates_to_one(d):
    """The density is constant on L1 shells; an L1 ball of radius r has volume (2r)^d / d!."""
    eps, gamma = 1.0, 0.3
    total = 0.0
    for k in range(200):
        r_in, r_out = max(k + gamma - 1, 0.0), k + gamma
        point = np.zeros(d)
        point[0] = (r_in + r_out) / 2
        value = math.exp(float(staircase_logpdf(point, eps, 1.0, gamma)))
        total += value * 2**d / math.factorial(d) * (r_out**d - r_in**d)
    assert total == pytest.approx(1.0, rel=1e-9)


def test_staircase_1d_density_by_quadrature():
    eps, gamma = 1.0, 0.3
    breaks = sorted({s * (k + g) for k in range(8) for g in (0.0, gamma) for s in (-1, 1)})
    mass = sum(
        integrate.quad(lambda t: math.exp(float(staircase_logpdf([t], eps, 1.0, gamma))), a, b)[0]
        for a, b in itertools.pairwise(breaks)
    )
    tail = 2 * sum(  # beyond |x| = 7: steps of e^{-k eps} on [k+gamma-1, k+gamma)
        math.exp(float(staircase_logpdf([k + gamma - 0.5], eps, 1.0, gamma))) for k in range(8, 400)
    )
    assert mass + tail == pytest.approx(1.0, rel=1e-8)


@pytest.mark.parametrize("d,eps", [(3, 1.0), (10, 2.0)])
def test_staircase_l1_radius_and_direction(d, eps):
    gamma = staircase_optimal_gamma(eps, d)
    x = staircase_sample(30_000, d, eps, 1.0, rng=7)
    r = np.abs(x).sum(axis=1)
    k = staircase_shell_index(r, gamma, 1.0).astype(int)
    ks = np.arange(200)
    w = np.exp(-ks * eps) * ((ks + gamma) ** d - np.clip(ks + gamma - 1, 0, None) ** d)
    expected = w / w.sum() * len(r)
    observed = np.bincount(k, minlength=200)[:200]
    assert observed.sum() == len(r)
    assert chi2_pvalue(observed, expected) > P_MIN
    # direction uniform on the L1 sphere: |x_1| / ||x||_1 ~ Beta(1, d - 1)
    assert stats.kstest(np.abs(x[:, 0]) / r, stats.beta(1, d - 1).cdf).pvalue > P_MIN
    assert np.mean(r) == pytest.approx(staircase_mean_l1(d, gamma, eps), rel=0.02)


@settings(max_examples=40, deadline=None)
@given(
    eps=st.floats(0.1, 5.0),
    gamma=st.floats(0.0, 1.0),
    d=st.integers(1, 6),
    seed=st.integers(0, 2**31),
)
def test_staircase_density_ratio_within_e_eps(eps, gamma, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 3, (200, d))
    v = rng.normal(0, 1, (200, d))
    v = v / np.abs(v).sum(axis=1, keepdims=True) * rng.uniform(0, 1, (200, 1))  # ||v||_1 <= 1
    ratio = staircase_logpdf(x, eps, 1.0, gamma) - staircase_logpdf(x + v, eps, 1.0, gamma)
    assert np.all(np.abs(ratio) <= eps + 1e-9)


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0, 8.0])
def test_staircase_gamma_star_minimises_expected_l1(eps):
    res = optimize.minimize_scalar(
        lambda g: staircase_mean_l1(1, g, eps), bounds=(1e-9, 1), method="bounded",
        options={"xatol": 1e-10},
    )  # fmt: skip
    assert staircase_gamma_1d(eps) == pytest.approx(res.x, abs=1e-5)
    # Geng & Viswanath: the optimal staircase beats Laplace's E|X| = 1/eps, by far at large eps
    assert staircase_mean_l1(1, staircase_gamma_1d(eps), eps) < 1 / eps


def test_staircase_mechanism_records_and_coordinate_split():
    acc = PrivacyAccountant(2.0)
    out = staircase_mechanism(np.zeros((3, 4)), 2.0, 1.0, rng=0, accountant=acc)
    assert out.shape == (3, 4)
    staircase_mechanism(np.zeros(5), 1.0, 1.0, form="coordinate", max_changed=2, rng=0,
                        accountant=acc)  # fmt: skip
    assert [e.epsilon for e in acc.ledger] == [1.0, 1.0]
    assert acc.check_within_budget().epsilon == pytest.approx(2.0)


# -- Exponential --------------------------------------------------------------------------
def test_exponential_mechanism_matches_its_probabilities():
    scores = np.array([0.0, 1.0, 2.0, 2.5, -1.0])
    p = exponential_probabilities(scores, 1.0, 2.0)
    rng = np.random.default_rng(11)
    draws = [exponential_mechanism(scores, 1.0, 2.0, rng=rng) for _ in range(20_000)]
    observed = np.bincount(draws, minlength=5)
    assert chi2_pvalue(observed, p * len(draws)) > P_MIN


@settings(max_examples=50, deadline=None)
@given(
    scores=st.lists(st.floats(-5, 5), min_size=2, max_size=8),
    eps=st.floats(0.05, 5.0),
    seed=st.integers(0, 2**31),
)
def test_exponential_probability_ratio_within_e_eps(scores, eps, seed):
    s = np.array(scores)
    shift = np.random.default_rng(seed).uniform(-1, 1, s.size)  # neighbour: |s - s'| <= 1
    ratio = np.log(exponential_probabilities(s, 1.0, eps)) - np.log(
        exponential_probabilities(s + shift, 1.0, eps)
    )
    assert np.all(np.abs(ratio) <= eps + 1e-9)


def test_exponential_records_eps_squared_over_8():
    acc = PrivacyAccountant(1.0, 1e-5)
    exponential_mechanism([1.0, 2.0], 1.0, 0.4, rng=0, accountant=acc)
    assert acc.ledger[0].rho == pytest.approx(0.4**2 / 8)

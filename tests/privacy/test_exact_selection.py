"""The exponential mechanism's exact sampler and the stability histogram's exact noise.

The selection probabilities are computed exactly (50-digit mpmath) from the rational exponents
the sampler uses; the sampler is tested against them, they are tested against the textbook
exp(epsilon s / (2 Delta)), and their ratios on neighbouring score vectors against e^epsilon.
"""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from synthcert.privacy.domain import discrete_gaussian, threshold_sigma2
from synthcert.privacy.mechanisms import (
    discrete_gaussian_noise,
    exponential_exponents,
    exponential_mechanism,
    grid_for,
)

FLOAT_VARIATES = (
    "random",
    "gumbel",
    "geometric",
    "exponential",
    "standard_exponential",
    "laplace",
    "normal",
    "standard_normal",
    "uniform",
)


class IntegersOnly(np.random.Generator):
    """A Generator that refuses every floating-point variate: only exact integers may be used."""

    def __getattribute__(self, name: str) -> object:
        if name in FLOAT_VARIATES:
            raise AssertionError(f"floating-point variate {name} drawn")
        return super().__getattribute__(name)


def exact_probabilities(scores, sensitivity: float, epsilon: float) -> list[mpmath.mpf]:
    """Pr[c] = exp(-gamma_c) / sum_j exp(-gamma_j) in 50-digit arithmetic."""
    num, den = exponential_exponents(scores, sensitivity, epsilon)
    with mpmath.workdps(50):
        w = [mpmath.exp(-mpmath.mpf(int(v)) / den) for v in num]
        total = mpmath.fsum(w)
        return [x / total for x in w]


def ideal_log_probabilities(scores, sensitivity: float, epsilon: float) -> list[mpmath.mpf]:
    """log Pr[c] of the textbook form exp(epsilon s_c / (2 Delta)) (thesis Def. 2.3.15)."""
    with mpmath.workdps(50):
        rate = mpmath.mpf(epsilon) / (2 * mpmath.mpf(sensitivity))
        logits = [rate * mpmath.mpf(s) for s in scores]
        top = max(logits)
        log_z = top + mpmath.log(mpmath.fsum(mpmath.exp(v - top) for v in logits))
        return [v - log_z for v in logits]


# -- (a) the output distribution -----------------------------------------------------------------


def test_selection_uses_integers_only():
    """No Gumbel (the old Gumbel-max) nor any other floating-point variate is drawn."""
    rng = IntegersOnly(np.random.PCG64(3))
    scores = np.linspace(-40.0, 3.0, 1400)
    picks = {exponential_mechanism(scores, 1.0, 1.0, rng=rng) for _ in range(20)}
    assert picks <= set(range(1400))
    with pytest.raises(AssertionError, match="gumbel"):
        rng.gumbel()


def test_selection_accepts_system_random():
    """OS entropy on every draw (random.SystemRandom) goes through the same exact sampler."""
    picks = [exponential_mechanism([0.0, 50.0, 0.0], 1.0, 1.0, rng=random.SystemRandom())]
    picks += [exponential_mechanism([0.0, 50.0, 0.0], 1.0, 1.0, rng=random.SystemRandom())]
    assert picks == [1, 1]  # the others have probability below e^-24


@pytest.mark.parametrize(
    ("scores", "sensitivity", "epsilon"),
    [
        ([0.0, 1.0, 2.0, 2.5, -1.0], 1.0, 2.0),
        ([3.0, 3.0, -7.5, 0.25], 2.5, 0.3),
        ([1e6, 1e6 - 4.0, 1e6 - 1.0, 0.0], 1.0, 1.0),  # a hopeless candidate and large scores
    ],
)
def test_draws_match_the_exact_probabilities(scores, sensitivity, epsilon):
    """Chi-square of 6,000 seeded draws against the exact pmf; the same draws reject the
    pmf of a 25 % larger epsilon, so the test can fail."""
    rng = np.random.default_rng(11)
    n = 6_000
    draws = [exponential_mechanism(scores, sensitivity, epsilon, rng=rng) for _ in range(n)]
    observed = np.bincount(draws, minlength=len(scores))

    def pvalue(eps: float) -> float:
        p = np.array([float(x) for x in exact_probabilities(scores, sensitivity, eps)])
        keep = p * n > 5
        obs = np.append(observed[keep], observed[~keep].sum())
        exp = np.append(p[keep], p[~keep].sum()) * n
        return float(stats.chisquare(obs[exp > 0], exp[exp > 0]).pvalue)

    assert pvalue(epsilon) > 1e-3
    assert pvalue(1.25 * epsilon) < 1e-3


@settings(max_examples=60, deadline=None)
@given(
    scores=st.lists(st.floats(-1e4, 1e4), min_size=1, max_size=12),
    sensitivity=st.floats(1e-3, 1e3),
    epsilon=st.floats(1e-3, 20.0),
)
def test_exact_probabilities_match_the_textbook_exponential_mechanism(scores, sensitivity, epsilon):
    """The rounding to the score grid and of the rate changes log Pr[c] by at most
    2 (2^-10 epsilon |s_c - s_max| / (2 Delta) + 2^-12 epsilon + 2^-29 ...): checked with the
    bound 2^-9 epsilon (1 + (max s - min s) / (2 Delta))."""
    exact = exact_probabilities(scores, sensitivity, epsilon)
    ideal = ideal_log_probabilities(scores, sensitivity, epsilon)
    spread = (max(scores) - min(scores)) / (2.0 * sensitivity)
    bound = 2.0**-9 * epsilon * (1.0 + spread) + 1e-30
    with mpmath.workdps(50):
        worst = max(abs(mpmath.log(p) - q) for p, q in zip(exact, ideal, strict=True))
    assert float(worst) <= bound


def test_exponents_are_rational_and_zero_at_the_best():
    num, den = exponential_exponents([2.0, -1.0, 2.0, 0.5], 1.0, 1.0)
    assert den & (den - 1) == 0  # a power of two
    assert num[0] == 0 and num[2] == 0 and all(int(v) > 0 for v in num[[1, 3]])
    # the rate is rounded down: gamma never smaller than epsilon (s_max - s_c) / (2 S)
    g = grid_for(1.0, 2, 1)
    s_steps = Fraction(1.0) / Fraction(g) + 2
    assert Fraction(int(num[1]), den) <= Fraction(1, 2) * Fraction(3.0) / Fraction(g) / s_steps


# -- (b) the privacy guarantee -------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    scores=st.lists(st.floats(-50, 50), min_size=2, max_size=8),
    sensitivity=st.sampled_from([1.0, 0.3, 7.0]),
    epsilon=st.floats(0.01, 8.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_neighbouring_scores_are_epsilon_dp_and_epsilon_bounded_range(
    scores, sensitivity, epsilon, seed
):
    """Neighbours move each score by at most Delta, plus up to g of floating-point round-off
    (the slack the grid absorbs): the exact probability ratio lies within e^{+-epsilon} and
    its range sup - inf (bounded range, which gives the recorded epsilon^2/8-zCDP) within
    epsilon."""
    s = np.array(scores)
    g = grid_for(sensitivity, 2, 1)
    shift = np.random.default_rng(seed).uniform(-1.0, 1.0, s.size) * (sensitivity + g)
    shift[0] = sensitivity + g  # one score at the extreme of the allowed move
    p = exact_probabilities(s, sensitivity, epsilon)
    q = exact_probabilities(s + shift, sensitivity, epsilon)
    with mpmath.workdps(50):
        logs = [mpmath.log(a / b) for a, b in zip(p, q, strict=True)]
        assert max(abs(v) for v in logs) <= epsilon
        assert max(logs) - min(logs) <= epsilon


def test_the_privacy_bound_is_nearly_attained():
    """Two candidates, scores (0, 0) against (Delta, -Delta): the textbook ratio is e^{eps/2}
    on each side and the range is epsilon; the rounded mechanism gets within 2^-9 of it."""
    eps = 1.0
    p = exact_probabilities([0.0, 0.0], 1.0, eps)
    q = exact_probabilities([1.0, -1.0], 1.0, eps)
    with mpmath.workdps(50):
        rng_ = mpmath.log(q[0] / p[0]) - mpmath.log(q[1] / p[1])
    assert (1 - 2.0**-9) * eps <= float(rng_) <= eps


# -- the stability histogram's noise -------------------------------------------------------------


def test_stability_noise_is_the_exact_discrete_gaussian():
    """domain.discrete_gaussian draws through synthcert.privacy.discrete (uniform integers and
    exact Bernoulli(exp(-gamma)) only), not numpy's floating-point normal, at the exact
    rational sigma^2 = Delta_2^2 / (2 rho)."""
    sigma2 = threshold_sigma2(0.3, "bounded")
    assert sigma2 == Fraction(2) / (2 * Fraction(0.3))
    z = discrete_gaussian(sigma2, 500, IntegersOnly(np.random.PCG64(8)))
    want = discrete_gaussian_noise(500, sigma2, rng=np.random.Generator(np.random.PCG64(8)))
    assert np.array_equal(z, want)

"""Trade-off curves from closed forms and from dp-accounting PLDs, and the audit's ceiling."""

from __future__ import annotations

import itertools
import math

import dp_accounting
import numpy as np
import pytest

from synthcert.audit.claim.estimate import ceiling, ceiling_from_event
from synthcert.errors import ParameterError
from synthcert.privacy.claims import GUARANTEE, PrivacyClaim
from synthcert.privacy.tradeoff import (
    claim_tradeoff,
    event_accountant,
    event_tradeoff,
    gdp_tradeoff,
    pure_dp_tradeoff,
)

ALPHA = np.unique(np.concatenate([np.geomspace(1e-8, 1.0, 400), np.linspace(0.0, 1.0, 1001)]))


def laplace_tradeoff(eps: float):
    """Lap(0, 1/ε) against Lap(1, 1/ε) (Dong, Roth & Su 2022, Appendix: the Laplace curve)."""

    def f(a: np.ndarray) -> np.ndarray:
        a = np.asarray(a, dtype=float)
        middle = np.exp(-eps) / (4.0 * np.maximum(a, 1e-300))
        return np.where(
            a < np.exp(-eps) / 2,
            1.0 - np.exp(eps) * a,
            np.where(a <= 0.5, middle, np.exp(-eps) * (1.0 - a)),
        )

    return f


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_laplace_pld_curve_matches_closed_form_and_lies_above_pure_dp(eps):
    f = event_tradeoff(dp_accounting.LaplaceDpEvent(noise_multiplier=1.0 / eps))
    got = f(ALPHA)
    assert np.max(np.abs(got - laplace_tradeoff(eps)(ALPHA))) < 2e-4
    # The Laplace mechanism is ε-DP: its curve lies above f_ε (the PLD envelope may sit below the
    # true curve by the discretisation only), and touches it in the tails.
    assert np.all(got >= pure_dp_tradeoff(eps)(ALPHA) - 2e-4)
    tail = math.exp(-eps) / 2 > ALPHA
    assert np.max(np.abs(got[tail] - pure_dp_tradeoff(eps)(ALPHA[tail]))) < 2e-4


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_gaussian_pld_curve_is_mu_gdp(mu):
    f = event_tradeoff(dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / mu))
    assert np.max(np.abs(f(ALPHA) - gdp_tradeoff(mu)(ALPHA))) < 1e-3


def test_closed_forms():
    f = pure_dp_tradeoff(math.log(3.0), 0.1)
    assert f(np.array([0.0, 0.1, 0.9, 1.0])) == pytest.approx([0.9, 0.6, 0.0, 0.0])
    g = gdp_tradeoff(0.0)
    assert g(ALPHA) == pytest.approx(1.0 - ALPHA)  # μ = 0: no test beats chance
    with pytest.raises(ParameterError):
        pure_dp_tradeoff(-1.0)


def test_zcdp_claim_curve_lies_below_its_gaussian():
    """N(0,1) vs N(μ,1) with μ = √(2ρ) is ρ-zCDP, so the claim's envelope must lie below G_μ."""
    rho = 0.5
    claim = PrivacyClaim("zcdp", GUARANTEE, "unbounded", rho=rho)
    env = claim_tradeoff(claim)(ALPHA)
    gauss = gdp_tradeoff(math.sqrt(2 * rho))(ALPHA)
    assert np.all(env <= gauss + 1e-9)
    assert np.max(gauss - env) < 0.2  # and is not vacuous
    assert np.all(env <= 1 - ALPHA + 1e-12)


def test_approx_and_pure_claims():
    pure = PrivacyClaim("pure-dp", GUARANTEE, "bounded", epsilon=1.0)
    approx = PrivacyClaim("approx-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=1e-2)
    assert claim_tradeoff(pure)(ALPHA) == pytest.approx(pure_dp_tradeoff(1.0)(ALPHA))
    assert claim_tradeoff(approx)(ALPHA) == pytest.approx(pure_dp_tradeoff(1.0, 1e-2)(ALPHA))


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_ceiling_below_truth_increasing_and_approaching(eps):
    event = dp_accounting.LaplaceDpEvent(noise_multiplier=1.0 / eps)
    runs = [100, 1_000, 5_000, 100_000, 10_000_000]
    c = [ceiling_from_event(event, runs=k, delta=0.0) for k in runs]
    print(f"Laplace eps={eps}: ceiling at runs {runs}: {np.round(c, 4).tolist()}")
    assert all(x < eps for x in c)
    assert all(b > a for a, b in itertools.pairwise(c))
    assert c[-1] > 0.97 * eps


def test_gaussian_ceiling_eps_and_mu():
    mu, delta = 1.0, 1e-5
    event = dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / mu)
    true_eps = event_accountant(event).get_epsilon(delta)
    c_eps = [ceiling_from_event(event, runs=k, delta=delta) for k in (1_000, 5_000, 10**7)]
    c_mu = [ceiling(gdp_tradeoff(mu), runs=k, delta=delta, gaussian=True) for k in (1_000, 10**7)]
    print(f"Gaussian mu=1: eps(1e-5)={true_eps:.3f}, ceilings {c_eps}, mu ceilings {c_mu}")
    assert all(x < true_eps for x in c_eps) and c_eps == sorted(c_eps)
    assert all(x < mu for x in c_mu) and c_mu[1] > 0.99 * mu


def test_inherent_rdp_claim_curve_lies_below_the_gaussian_it_covers():
    """N(0,1) vs N(μ,1) is (α, αμ²/2)-RDP at every α, so it satisfies the single-order claim."""
    mu, order = 1.0, 4.0
    claim = PrivacyClaim(
        "inherent-rdp", GUARANTEE, "unbounded", alpha=order, epsilon_rdp=order * mu**2 / 2
    )
    env = claim_tradeoff(claim)(ALPHA)
    assert np.all(env <= gdp_tradeoff(mu)(ALPHA) + 1e-9)
    assert np.max(1 - ALPHA - env) > 0.2  # not vacuous
    with pytest.raises(ParameterError):
        claim_tradeoff(PrivacyClaim("none", "none: no DP", "unbounded"))

"""RDP/zCDP → (ε, δ): cross-checked against Google's dp-accounting and the defining formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as dpa

from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.conversion import (
    conversion_offset,
    optimal_dp,
    rdp_to_dp,
    zcdp_to_dp,
)
from synthcert.privacy.gaussian_release import alpha_limit, epsilon_per_record

D, SIGMA = 6, 0.01


def _curve(n, rel):
    return lambda a: epsilon_per_record(a, n, D, SIGMA, rel) * n


@pytest.mark.parametrize(
    ("n", "rel"), [(10**6, "unbounded"), (10**7, "unbounded"), (10**7, "bounded")]
)
@pytest.mark.parametrize("delta", [1e-5, 1e-10, 1e-14])
def test_ckm_matches_dp_accounting_on_the_same_curve(n, rel, delta):
    orders = np.array([1.5, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64])
    orders = orders[orders < alpha_limit(n, D, SIGMA, rel)]
    rdp = _curve(n, rel)(orders)
    theirs, their_order = dpa.compute_epsilon(orders, rdp, delta)
    ours = rdp_to_dp(orders, rdp, delta, "ckm")
    assert float(np.min(ours)) == pytest.approx(theirs, rel=1e-12)
    assert orders[int(np.argmin(ours))] == their_order
    # optimising α continuously can only do better than their grid, and not by much
    best = optimal_dp(_curve(n, rel), delta, alpha_limit(n, D, SIGMA, rel), conversion="ckm")
    assert best.epsilon <= theirs + 1e-12
    assert best.epsilon >= 0.9 * theirs


def test_mironov_is_prop_2_6_and_looser_than_ckm():
    a = np.array([2.0, 4.0, 30.0])
    r = np.array([0.5, 1.0, 3.0])
    np.testing.assert_allclose(rdp_to_dp(a, r, 1e-10, "mironov"), r + math.log(1e10) / (a - 1))
    assert np.all(rdp_to_dp(a, r, 1e-10, "ckm") < rdp_to_dp(a, r, 1e-10, "mironov"))
    np.testing.assert_allclose(
        conversion_offset(a, 1e-10, "ckm"),
        np.log((a - 1) / a) - (math.log(1e-10) + np.log(a)) / (a - 1),
    )


def test_paper_headline_4_00_at_1e_10():
    """Abstract of seed 000: (4, 0.576)-RDP at n = 10^7 gives (4.00, 10^-10)-DP (α = 10)."""
    eps = float(rdp_to_dp(10.0, _curve(10**7, "unbounded")(10.0), 1e-10, "mironov"))
    assert round(eps, 2) == 4.00


def test_optimal_alpha_is_continuous_not_a_grid():
    best = optimal_dp(_curve(10**7, "unbounded"), 1e-10, 4000.0, conversion="mironov")
    assert best.alpha == pytest.approx(13.62, abs=0.05)
    assert best.alpha != round(best.alpha)
    near = rdp_to_dp(np.array([best.alpha * 0.99, best.alpha * 1.01]),
                     _curve(10**7, "unbounded")(np.array([best.alpha * 0.99, best.alpha * 1.01])),
                     1e-10, "mironov")  # fmt: skip
    assert np.all(near >= best.epsilon)
    assert best.to_dict()["conversion"] == "mironov"


def test_bun_steinke_formula():
    assert zcdp_to_dp(0.5, 1e-6, "bun-steinke") == pytest.approx(
        0.5 + 2 * math.sqrt(0.5 * math.log(1e6))
    )


@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.5, 3.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-12])
def test_cks_zcdp_inverts_thesis_prop_2_3_9(rho, delta):
    """δ(ε) = inf_α e^{(α−1)(αρ−ε)}/(α−1)·(1−1/α)^α at our ε gives back δ; tighter than BS."""
    eps = zcdp_to_dp(rho, delta, "cks")
    a = 1 + np.geomspace(1e-6, 1e6, 400_001)
    log_delta = (a - 1) * (a * rho - eps) - np.log(a - 1) + a * np.log1p(-1 / a)
    assert math.exp(float(np.min(log_delta))) == pytest.approx(delta, rel=1e-4)
    assert eps < zcdp_to_dp(rho, delta, "bun-steinke")


def test_cks_zcdp_matches_dp_accounting_on_alpha_rho():
    rho, delta = 0.2, 1e-8
    orders = np.linspace(1.02, 200, 40_000)
    theirs, _ = dpa.compute_epsilon(orders, orders * rho, delta)
    assert zcdp_to_dp(rho, delta, "cks") == pytest.approx(theirs, rel=1e-6)


def test_refusals():
    with pytest.raises(
        ParameterError, match=r"\(0, 1\) here"
    ):  # an epsilon or delta outside its interval
        rdp_to_dp(2.0, 1.0, 0.0)
    with pytest.raises(ParameterError, match=r"\[0, 1\)"):
        rdp_to_dp(2.0, 1.0, 1.0)
    with pytest.raises(ParameterError):
        rdp_to_dp(2.0, 1.0, 1e-5, "renyi")  # type: ignore[arg-type]
    assert float(rdp_to_dp(1.0, 1.0, 1e-5)) == math.inf
    assert float(rdp_to_dp(3.0, math.inf, 1e-5)) == math.inf
    with pytest.raises(AssumptionError):
        optimal_dp(_curve(10**6, "unbounded"), 1e-5, 1.0)

"""Attack-risk labels against closed forms: pure ε, (ε, δ), μ-GDP, and the Rényi regions."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from synthcert.privacy.claims import DATA_DOMAIN, GUARANTEE, PrivacyClaim, no_privacy_claim
from synthcert.privacy.risk import RiskLabel, advantage_bound, claim_tpr, risk_label, round_up
from synthcert.privacy.tradeoff import gdp_tradeoff, rdp_tpr

GRID = np.unique(np.concatenate([np.geomspace(1e-6, 1.0, 300), np.linspace(0.0, 1.0, 401)]))


def pure(eps: float, delta: float = 0.0) -> PrivacyClaim:
    model = "pure-dp" if delta == 0 else "approx-dp"
    return PrivacyClaim(model, GUARANTEE, "unbounded", epsilon=eps, delta=delta)


def zcdp(rho: float, eps: float | None = None, delta: float | None = None) -> PrivacyClaim:
    return PrivacyClaim("zcdp", GUARANTEE, "unbounded", epsilon=eps, delta=delta, rho=rho)


def dp_region(eps: float, delta: float, x: np.ndarray) -> np.ndarray:
    """Kairouz, Oh & Viswanath: TPR(x) = min(1, e^ε x + δ, 1 − e^{−ε}(1 − δ − x))."""
    return np.minimum.reduce(
        [np.ones_like(x), math.exp(eps) * x + delta, 1 - math.exp(-eps) * (1 - delta - x)]
    )


def gaussian_tpr(mu: float, x: np.ndarray) -> np.ndarray:
    """μ-GDP: TPR(α) = Φ(Φ⁻¹(α) + μ)."""
    return stats.norm.cdf(stats.norm.ppf(x) + mu)


def test_pure_epsilon_one_is_e_times_one_percent():
    label = pure(1.0).risk
    assert label.tpr_at_fpr["0.01"] == pytest.approx(0.0272, abs=1e-4)
    assert label.tpr_at_fpr["0.01"] >= math.e * 0.01
    assert label.tpr_at_fpr["0.05"] == pytest.approx(math.e * 0.05, abs=1e-9)
    assert label.advantage == pytest.approx((math.e - 1) / (math.e + 1), abs=1e-9)
    assert "at most 2.72 in 100" in label.sentence
    assert label.source.startswith("ε = 1")


@pytest.mark.parametrize(("eps", "delta"), [(0.1, 1e-3), (1.0, 1e-5), (3.0, 0.05), (8.0, 1e-9)])
def test_approximate_dp_is_the_region(eps, delta):
    tpr = claim_tpr(pure(eps, delta))(GRID)
    exact = dp_region(eps, delta, GRID)
    assert np.all(tpr >= exact)
    assert np.max(tpr - exact) < 1e-9
    label = pure(eps, delta).risk
    adv = delta + (1 - delta) * (math.exp(eps) - 1) / (math.exp(eps) + 1)
    assert label.advantage == pytest.approx(adv, abs=1e-9) and label.advantage >= adv


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0])
def test_gdp_curve_is_the_closed_form(mu):
    assert np.allclose(1 - gdp_tradeoff(mu)(GRID), gaussian_tpr(mu, GRID), atol=1e-12)


@pytest.mark.parametrize("mu", [0.2, 0.5, 1.0, 2.0])
def test_zcdp_label_never_below_the_gaussian_it_contains(mu):
    """N(0, 1) vs N(μ, 1) is (μ²/2)-zCDP: its tests must all lie under the zCDP label."""
    claim = zcdp(mu**2 / 2)
    tpr = claim_tpr(claim)(GRID)
    assert np.all(tpr >= gaussian_tpr(mu, GRID) - 1e-12)
    label = claim.risk
    for key, x in (("0.01", 0.01), ("0.05", 0.05)):
        assert label.tpr_at_fpr[key] >= float(gaussian_tpr(mu, np.array(x)))
    assert label.advantage >= 2 * stats.norm.cdf(mu / 2) - 1  # the Gaussian's TV distance


def test_zcdp_region_is_tighter_than_its_stated_epsilon_delta():
    from synthcert.privacy.conversion import zcdp_to_dp

    rho, delta = 0.02, 1e-6
    eps = zcdp_to_dp(rho, delta)
    label = zcdp(rho, eps, delta).risk
    assert label.tpr_at_fpr["0.01"] < math.exp(eps) * 0.01 + delta
    assert label.tpr_at_fpr["0.01"] >= float(gaussian_tpr(math.sqrt(2 * rho), np.array(0.01)))


@pytest.mark.parametrize(("a", "mu"), [(2.0, 0.5), (8.0, 1.0), (36.4, 0.3)])
def test_one_renyi_order_bounds_the_gaussian(a, mu):
    """N(0,1) vs N(μ,1) is (a, aμ²/2)-RDP at every a: one order's region must contain it."""
    tpr = rdp_tpr([a], [a * mu**2 / 2], GRID)
    assert np.all(tpr >= gaussian_tpr(mu, GRID) - 1e-12)


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_randomized_response_lies_under_every_description(eps):
    """Randomized response is ε-DP, hence (a, ε)-RDP: its test (1/(1+e^ε), e^ε/(1+e^ε))."""
    fpr, tpr = 1 / (1 + math.exp(eps)), math.exp(eps) / (1 + math.exp(eps))
    assert float(claim_tpr(pure(eps))(np.array(fpr))) >= tpr - 1e-12
    assert float(rdp_tpr([4.0], [eps], fpr)) >= tpr - 1e-12


@settings(max_examples=25, deadline=None)
@given(
    st.floats(0.01, 6.0),
    st.floats(0.01, 3.0),
    st.floats(0.0, 1e-3),
)
def test_tpr_grows_with_epsilon_and_never_falls_below_the_closed_form(eps, extra, delta):
    small, large = pure(eps, delta).risk, pure(eps + extra, delta).risk
    for key, x in (("0.01", 0.01), ("0.05", 0.05)):
        assert small.tpr_at_fpr[key] <= large.tpr_at_fpr[key]
        assert small.tpr_at_fpr[key] >= float(dp_region(eps, delta, np.array(x)))
    assert small.advantage <= large.advantage


@settings(max_examples=10, deadline=None)
@given(st.floats(1e-3, 2.0), st.floats(1.1, 3.0))
def test_zcdp_tpr_grows_with_rho(rho, factor):
    small, large = zcdp(rho).risk, zcdp(rho * factor).risk
    for key in ("0.01", "0.05"):
        assert small.tpr_at_fpr[key] <= large.tpr_at_fpr[key] + 1e-12
    mu = math.sqrt(2 * rho)
    assert small.tpr_at_fpr["0.01"] >= float(gaussian_tpr(mu, np.array(0.01)))


def test_advantage_bound_is_never_below_the_maximum():
    for mu in (0.3, 1.0, 3.0):
        exact = 2 * stats.norm.cdf(mu / 2) - 1
        bound = advantage_bound(lambda x, m=mu: gaussian_tpr(m, x))
        assert exact <= bound < exact + 1e-4


def test_no_guarantee_means_no_bound():
    label = no_privacy_claim(10).risk
    assert label.tpr_at_fpr is None and label.advantage is None and not label.bounded
    assert label.sentence.startswith("No bound")
    data = PrivacyClaim("pure-dp", DATA_DOMAIN, "unbounded", epsilon=1.0, delta=0.0)
    assert data.risk.tpr_at_fpr is None


def test_claim_round_trip_carries_and_recomputes_risk():
    claim = zcdp(0.05, 1.0, 1e-6)
    doc = json.loads(json.dumps(claim.to_dict()))
    assert set(doc["risk"]["tpr_at_fpr"]) == {"0.01", "0.05"}
    assert PrivacyClaim.from_dict(doc) == claim
    doc["risk"]["advantage"] = 0.0  # a tampered label is not read: it is recomputed
    assert PrivacyClaim.from_dict(doc).risk == claim.risk
    assert RiskLabel.from_dict(doc["risk"]).sentence == claim.risk.sentence
    assert risk_label(claim) is risk_label(claim)  # cached


def test_inherent_rdp_label_uses_its_order_and_its_epsilon_delta():
    claim = PrivacyClaim(
        "inherent-rdp", GUARANTEE, "unbounded", epsilon=0.9998, delta=1e-10, alpha=36.4,
        epsilon_rdp=0.5765,
    )  # fmt: skip
    label = claim.risk
    both = min(float(rdp_tpr([36.4], [0.5765], 0.01)), math.exp(0.9998) * 0.01 + 1e-10)
    assert both - 1e-12 <= label.tpr_at_fpr["0.01"] <= both + 1e-9  # same bound, two roundings
    assert "36.4" in label.source and "0.9998" in label.source


def test_round_up_never_rounds_down():
    for x in (2.718281828, 1.0000001, 99.99, 0.012345):
        assert round_up(x) >= x


def test_the_privacy_layer_imports_nothing_above_it():
    """Trade-off curves, labels and the ledger live in privacy: it never imports audit, report,
    workflows or the CLI (audit imports the curves from privacy, not the other way round)."""
    import ast
    from pathlib import Path

    import synthcert.privacy

    above = ("synthcert.audit", "synthcert.report", "synthcert.workflows", "synthcert.cli")
    offences = []
    for path in Path(synthcert.privacy.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offences += [f"{path.name}: {n}" for n in names if n.startswith(above)]
    assert offences == []


@pytest.mark.parametrize("eps", [700.5, 5000.0, math.inf])
def test_a_huge_epsilon_bounds_nothing_and_does_not_overflow(eps):
    label = pure(eps).risk
    if math.isinf(eps):
        assert label.tpr_at_fpr is None
    else:
        assert label.tpr_at_fpr == {"0.01": 1.0, "0.05": 1.0} and label.advantage == 1.0
        assert label.sentence.endswith("the claim sets no bound.")
    big = PrivacyClaim("inherent-rdp", GUARANTEE, "unbounded", epsilon=2e3, delta=1e-9,
                       alpha=2.0, epsilon_rdp=3e3)  # fmt: skip
    assert big.risk.tpr_at_fpr["0.01"] == 1.0

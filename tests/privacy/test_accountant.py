"""The accountant: composition rules, conversions, budget checks."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.errors import AssumptionError, BudgetError, ParameterError
from synthcert.privacy.accountant import (
    PrivacyAccountant,
    rho_from_epsilon_delta,
    zcdp_epsilon,
    zcdp_to_dp_fallback,
)


def test_basic_composition_of_pure_steps():
    acc = PrivacyAccountant(1.0)
    acc.record_pure("a", 0.3)
    acc.record_exponential("b", 0.2)
    acc.record_pure("c", 0.5)
    s = acc.check_within_budget()
    assert s.route == "basic" and s.epsilon == pytest.approx(1.0) and s.delta == 0.0
    assert s.rho == pytest.approx(0.3**2 / 2 + 0.2**2 / 8 + 0.5**2 / 2)
    assert acc.model() == "pure-dp"
    assert len(acc.ledger) == 3 and acc.ledger[1].kind == "exponential"


def test_over_budget_raises():
    acc = PrivacyAccountant(1.0)
    acc.record_pure("a", 0.6)
    acc.record_pure("b", 0.6)
    with pytest.raises(BudgetError, match="exceeds"):
        acc.check_within_budget()


def test_rho_from_epsilon_delta_inverts_bun_steinke():
    for eps, delta in [(1.0, 1e-5), (8.0, 1e-9), (0.1, 1e-3)]:
        rho = rho_from_epsilon_delta(eps, delta)
        assert zcdp_to_dp_fallback(rho, delta) == pytest.approx(eps, rel=1e-12)
        assert zcdp_epsilon(rho, delta) <= eps + 1e-12  # any conversion used is no looser
    # AIM's figure: eps = 1, delta = 1e-9 gives rho ~ 0.00244 (sqrt(L+1) - sqrt(L))^2
    L = math.log(1e9)
    assert rho_from_epsilon_delta(1.0, 1e-9) == pytest.approx(
        (math.sqrt(L + 1) - math.sqrt(L)) ** 2
    )


def test_zcdp_route_for_gaussian_steps():
    acc = PrivacyAccountant(1.0, 1e-5)
    rho = rho_from_epsilon_delta(1.0, 1e-5)
    acc.record_zcdp("g1", rho / 2)
    acc.record_zcdp("g2", rho / 2)
    s = acc.check_within_budget()
    assert s.route == "zcdp" and s.delta == 1e-5 and s.epsilon <= 1.0
    assert s.rho == pytest.approx(rho)
    assert acc.model() == "zcdp"


def test_many_small_pure_steps_compose_better_through_zcdp():
    acc = PrivacyAccountant(5.0, 1e-5)
    for _ in range(400):
        acc.record_pure("lap", 0.05)
    s = acc.spent()
    assert s.epsilon_pure == pytest.approx(20.0)
    assert s.route == "zcdp" and s.epsilon < 5.0
    assert s.epsilon == pytest.approx(zcdp_epsilon(400 * 0.05**2 / 2, 1e-5))


def test_rdp_route_needs_every_mechanism_at_the_order():
    acc = PrivacyAccountant(10.0, 1e-5)
    acc.record_rdp_curve("sgd", [2.0, 8.0, 32.0], [0.1, 0.4, 1.6])
    acc.record_rdp("other", 8.0, 0.2)
    s = acc.spent()
    assert s.route == "rdp" and s.alpha == 8.0  # the only order both mechanisms report
    assert s.epsilon < 0.6 + math.log(1e5) / 7 + 1e-9  # at most Mironov's conversion


def test_no_budget_means_no_privacy():
    acc = PrivacyAccountant()
    assert acc.model() == "none"
    assert acc.spent().steps == 0 and acc.spent().epsilon == 0.0
    acc.record_pure("x", 1.0)
    with pytest.raises(BudgetError):
        acc.check_within_budget()


def test_invalid_inputs_are_refused():
    with pytest.raises(ParameterError):  # an epsilon or delta outside its interval
        PrivacyAccountant(-1.0)
    with pytest.raises(AssumptionError):
        PrivacyAccountant(1.0).record_pure("x", float("nan"))
    with pytest.raises(ParameterError):
        rho_from_epsilon_delta(1.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(
    budget=st.floats(0.05, 20.0),
    weights=st.lists(st.floats(0.01, 1.0), min_size=1, max_size=30),
)
def test_split_budget_is_never_exceeded(budget, weights):
    acc = PrivacyAccountant(budget, 1e-6)
    total = sum(weights)
    for i, w in enumerate(weights):
        (acc.record_pure if i % 2 else acc.record_exponential)(f"m{i}", budget * w / total)
    s = acc.check_within_budget()
    assert s.epsilon <= budget + 1e-9

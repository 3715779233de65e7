"""Record budgets (thesis Table 5.2, floored), the smallest n for a release, and ``account``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthcert.errors import AssumptionError
from synthcert.privacy.budget import (
    account,
    max_records,
    max_records_dp,
    max_records_rdp,
    min_dataset_size,
)
from synthcert.privacy.conversion import optimal_dp, rdp_to_dp
from synthcert.privacy.gaussian_release import alpha_limit, epsilon_per_record, theorem_n

D, SIGMA = 6, 0.01


@pytest.mark.parametrize(
    ("rel", "n", "floor", "printed"),
    [
        ("unbounded", 10**4, 2, 3),
        ("unbounded", 10**5, 1597, 1598),
        ("unbounded", 10**6, 172222, 1.72e5),
        ("unbounded", 10**7, 17347201, 1.73e7),
        ("unbounded", 10**8, 1735970379, 1.74e9),
        ("bounded", 10**5, 374, 375),
        ("bounded", 10**6, 42812, 4.28e4),
        ("bounded", 10**7, 4334370, 4.33e6),
        ("bounded", 10**8, 433968293, 4.34e8),
    ],
)
def test_thesis_table_5_2_floored(rel, n, floor, printed):
    """Floors of the certificate (unbounded: Theorem 3.1 at n−1, protecting removal too)."""
    b = max_records_rdp(n, D, SIGMA, 4.0, 1.0, neighboring=rel, method="corollary")
    assert b.max_records == floor
    per = b.epsilon_rdp_per_record
    assert floor * per <= 1.0 < (floor + 1) * per
    # the thesis rounds 1/ε to the nearest integer (or 3 significant digits)
    raw = 1.0 / per
    assert float(f"{raw:.3g}") == pytest.approx(printed) or round(raw) == printed


def test_table_5_2_bounded_1e4_is_zero_with_reason():
    b = max_records_rdp(10**4, D, SIGMA, 4.0, 1.0, neighboring="bounded", method="corollary")
    assert b.max_records == 0 and not b.feasible
    assert "eq. (2)" in b.reason


def test_exact_multiple_is_not_rounded_up():
    per = float(epsilon_per_record(4.0, 10**6 - 1, D, SIGMA))
    for k in (1, 7, 1000, 172222):
        b = max_records_rdp(10**6, D, SIGMA, 4.0, k * per)
        assert b.max_records in (k - 1, k)
        assert b.epsilon_spent <= k * per


@pytest.mark.parametrize(
    ("rel", "conversion"),
    [("unbounded", "ckm"), ("unbounded", "mironov"), ("bounded", "ckm")],
)
def test_dp_budget_is_the_largest_count(rel, conversion):
    n, eps, delta = 10**6, 1.0, 1e-6
    b = max_records_dp(n, D, SIGMA, eps, delta, neighboring=rel, conversion=conversion)
    assert b.feasible and b.max_records > 0
    m = theorem_n(n, rel)
    lim = alpha_limit(m, D, SIGMA, rel)

    def cost(k):
        return optimal_dp(
            lambda a: epsilon_per_record(a, m, D, SIGMA, rel) * k, delta, lim, conversion=conversion
        ).epsilon

    assert (
        float(rdp_to_dp(b.alpha, b.max_records * b.epsilon_rdp_per_record, delta, conversion))
        <= eps
    )
    assert cost(b.max_records) <= eps
    assert cost(b.max_records + 1) > eps


def test_dp_budget_at_a_fixed_alpha():
    b = max_records(10**6, D, SIGMA, epsilon=1.0, delta=1e-6, alpha=30.0)
    per = float(epsilon_per_record(30.0, 10**6 - 1, D, SIGMA))
    room = 1.0 - (math.log1p(-1 / 30) - (math.log(1e-6) + math.log(30)) / 29)
    assert b.alpha == 30.0 and b.max_records == math.floor(room / per)


def test_max_records_dispatch_and_errors():
    a = max_records(10**6, D, SIGMA, alpha=4.0, epsilon_rdp=1.0)
    assert a.max_records == 172222 and a.budget_kind == "rdp"
    with pytest.raises(AssumptionError):
        max_records(10**6, D, SIGMA, alpha=4.0, epsilon_rdp=1.0, epsilon=1.0, delta=1e-6)
    with pytest.raises(AssumptionError):
        max_records(10**6, D, SIGMA, epsilon_rdp=1.0)
    with pytest.raises(AssumptionError):
        max_records(10**6, D, SIGMA, epsilon=1.0)


def test_min_dataset_size_is_the_smallest():
    n_out = 100_000
    n = min_dataset_size(n_out, D, SIGMA, alpha=4.0, epsilon_rdp=1.0)
    assert max_records_rdp(n, D, SIGMA, 4.0, 1.0).max_records >= n_out
    assert max_records_rdp(n - 1, D, SIGMA, 4.0, 1.0).max_records < n_out
    # ~ sqrt: ε per record ≈ α τ / n², so n_out = 10^5 needs n near 7.6e5
    assert 7e5 < n < 8e5


def test_min_dataset_size_dp():
    n = min_dataset_size(10_000, D, SIGMA, epsilon=1.0, delta=1e-6)
    assert max_records_dp(n, D, SIGMA, 1.0, 1e-6).max_records >= 10_000
    assert max_records_dp(n - 1, D, SIGMA, 1.0, 1e-6).max_records < 10_000


def test_account_with_alpha_and_delta():
    r = account(10**7, D, SIGMA, alpha=4.0, delta=1e-10, conversion="mironov")
    assert r.feasible
    assert r.epsilon_rdp == pytest.approx(0.5764617, rel=1e-6)
    assert r.epsilon == pytest.approx(8.252, abs=5e-4)  # Table 2, α = 4, δ = 10^-10
    keys = set(r.to_dict())
    assert {"neighboring", "n", "d", "sigma", "alpha", "n_out", "epsilon_rdp",
            "epsilon_rdp_per_record", "delta", "epsilon", "conversion", "feasible",
            "reason"} <= keys  # fmt: skip


def test_account_without_delta_has_null_dp_fields():
    r = account(10**7, D, SIGMA, alpha=4.0, n_out=1000).to_dict()
    assert r["delta"] is None and r["epsilon"] is None and r["conversion"] is None
    assert r["n_out"] == 1000


def test_account_optimises_alpha_when_only_delta_is_given():
    """Thesis §5.5.4: n = 10^7, δ = 10^-14, Mironov with α optimised gives 4.46."""
    r = account(10**7, D, SIGMA, delta=1e-14, conversion="mironov")
    assert round(r.epsilon, 2) == 4.46
    assert 14 < r.alpha < 18
    grid = np.linspace(2, 40, 381)
    per = epsilon_per_record(grid, 10**7 - 1, D, SIGMA) * 10**7
    assert r.epsilon <= float(np.min(rdp_to_dp(grid, per, 1e-14, "mironov"))) + 1e-9


def test_unbounded_certificate_covers_removal_of_a_member():
    """Theorem 3.1 bounds the pair (n, n+1); a table of n must also cover (n−1, n): ε(α, n−1)."""
    for n in (10**4, 10**6):
        r = account(n, D, SIGMA, alpha=2.0)
        assert r.epsilon_rdp_per_record == float(epsilon_per_record(2.0, n - 1, D, SIGMA))
        assert r.epsilon_rdp_per_record > float(epsilon_per_record(2.0, n, D, SIGMA))
        assert "n−1" in r.equation
    b = account(10**6, D, SIGMA, alpha=2.0, neighboring="bounded")
    assert "n−1" not in b.equation


def test_account_refuses_clearly():
    with pytest.raises(AssumptionError, match="delta is required"):
        account(10**7, D, SIGMA)
    r = account(10**4, D, SIGMA, alpha=4.0, neighboring="bounded", delta=1e-6, method="corollary")
    assert not r.feasible and "eq. (2)" in r.reason and r.epsilon is None
    r = account(100, D, SIGMA, delta=1e-6)
    assert not r.feasible and r.epsilon_rdp is None

"""DP-SGD composed with a ρ-zCDP step (privacy/dpsgd.py), against dp-accounting's RDP
accountant on the same events and orders: an independent implementation of the subsampled
Gaussian's RDP (Mironov, Talwar & Zhang 2019), of RDP composition and of the conversion."""

from __future__ import annotations

import pytest

from synthcert.privacy.dpsgd import calibrate_noise_multiplier, composed_epsilon

dp_accounting = pytest.importorskip("dp_accounting")
pytest.importorskip("opacus")

ORDERS = tuple([1.0 + x / 10.0 for x in range(1, 100)] + [float(a) for a in range(12, 64)])


def theirs(sigma: float, q: float, steps: int, rho: float, delta: float) -> float:
    acc = dp_accounting.rdp.RdpAccountant(list(ORDERS))
    sgd = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    acc.compose(dp_accounting.SelfComposedDpEvent(sgd, steps))
    if rho:
        acc.compose(dp_accounting.ZCDpEvent(rho))
    return float(acc.get_epsilon(delta))


@pytest.mark.parametrize(
    ("sigma", "q", "steps", "rho"),
    [
        (1.1, 0.01, 3000, 0.0),
        (0.8, 0.002, 20_000, 0.01),
        (2.5, 0.05, 500, 0.05),
        (4.0, 1.0, 10, 0.0),
    ],
)
def test_composed_epsilon_matches_dp_accounting(sigma, q, steps, rho):
    ours = composed_epsilon(sigma, sample_rate=q, steps=steps, rho=rho, delta=1e-6, orders=ORDERS)
    assert ours == pytest.approx(theirs(sigma, q, steps, rho, 1e-6), rel=1e-6)


def test_the_calibrated_noise_keeps_the_budget_and_is_the_smallest():
    kw = {"sample_rate": 0.01, "steps": 2000, "rho": 0.005, "delta": 1e-6}
    sigma = calibrate_noise_multiplier(epsilon=1.0, orders=ORDERS, **kw)
    assert theirs(sigma, 0.01, 2000, 0.005, 1e-6) <= 1.0 + 1e-9  # within budget, independently
    assert composed_epsilon(sigma * 0.995, orders=ORDERS, **kw) > 1.0  # and not much larger

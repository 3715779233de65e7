"""Combining rules of seed 004 §3 and a seeded coverage simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from synthcert.errors import AssumptionError, DataError
from synthcert.inference import combine, fully_synthetic_variance, summarise

Q = [1.0, 1.4, 0.8, 1.2, 1.1]
U = [0.02, 0.025, 0.018, 0.022, 0.015]


def test_summaries_by_hand():
    q_bar, b, u_bar = summarise(Q, U)
    assert q_bar == pytest.approx(5.5 / 5)
    assert b == pytest.approx(sum((x - 1.1) ** 2 for x in Q) / 4)  # 0.05
    assert b == pytest.approx(0.05)
    assert u_bar == pytest.approx(0.1 / 5)


def test_fully_synthetic_tf_and_nu_by_hand():
    c = combine(Q, U, method="fully-synthetic")
    t_f = 1.2 * 0.05 - 0.02
    nu = 4 * (1 - 0.02 / (1.2 * 0.05)) ** 2
    assert c.variance == pytest.approx(t_f)
    assert c.df == pytest.approx(nu)
    half = stats.t.ppf(0.975, nu) * math.sqrt(t_f)
    assert (c.lower, c.upper) == pytest.approx((1.1 - half, 1.1 + half))
    assert not c.fallback


def test_fully_synthetic_negative_tf_falls_back_to_conservative():
    q = [1.0, 1.001, 0.999]  # tiny spread, large within variance -> T_f < 0
    u = [0.5, 0.5, 0.5]
    t, df, fallback = fully_synthetic_variance(q, u, n_syn=200, n_org=100)
    assert fallback and df == math.inf and t == pytest.approx(2 * 0.5)
    c = combine(q, u, method="fully-synthetic")
    assert c.fallback and c.variance == pytest.approx(0.5) and c.variance > 0
    assert "T_f" in c.note


def test_plugin_and_ppd_formulas():
    c = combine(Q, U, method="plug-in", n_syn=500, n_org=1000)
    assert c.variance == pytest.approx((0.5 + 1 / 5) * 0.02)
    assert c.df == math.inf
    p = combine(Q, U, method="posterior-predictive", n_syn=500, n_org=1000)
    assert p.variance == pytest.approx((0.5 + 1.5 / 5) * 0.02)
    # T_PPD exceeds T_s by exactly (n_syn/n_org) u_bar / m.
    assert p.variance - c.variance == pytest.approx(0.5 * 0.02 / 5)
    one = combine([1.0], [0.01], method="plug-in", n_syn=100, n_org=100)
    assert one.variance == pytest.approx(0.02)  # valid from a single synthetic table


def test_interval_level():
    c90 = combine(Q, U, method="plug-in", n_syn=1000, n_org=1000, level=0.9)
    c99 = combine(Q, U, method="plug-in", n_syn=1000, n_org=1000, level=0.99)
    assert c90.upper - c90.lower < c99.upper - c99.lower
    assert (c99.upper - c99.estimate) / c99.se == pytest.approx(stats.norm.ppf(0.995))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"q": [1.0], "u": [0.1], "method": "fully-synthetic"}, AssumptionError),
        ({"q": Q, "u": U, "method": "plug-in"}, AssumptionError),
        ({"q": Q, "u": U[:3], "method": "naive"}, DataError),
        ({"q": Q, "u": [-1.0] * 5, "method": "naive"}, DataError),
        ({"q": Q, "u": U, "method": "bogus"}, AssumptionError),
        ({"q": Q, "u": U, "method": "naive", "level": 1.5}, AssumptionError),
    ],
)
def test_refusals(kwargs, error):
    with pytest.raises(error):
        combine(**kwargs)


# ----------------------------------------------------------------------------- coverage simulation

MU, SD = 1.0, 2.0


def _coverage(design: str, method: str, *, n: int, k: int, m: int, reps: int, seed: int) -> float:
    """Share of 95% intervals covering MU; real rows, q_i = row mean, u_i = s_i^2 / k."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        x = rng.normal(MU, SD, n)
        x_bar, s2 = x.mean(), x.var(ddof=1)
        if design == "plug-in":  # draws from the fitted N(x_bar, s^2)
            syn = rng.normal(x_bar, math.sqrt(s2), (m, k))
        else:  # posterior predictive: sigma^2* ~ (n-1) s^2 / chi2_{n-1}, mu* ~ N(x_bar, sigma^2*/n)
            sig2 = (n - 1) * s2 / rng.chisquare(n - 1, m)
            mus = rng.normal(x_bar, np.sqrt(sig2 / n))
            syn = rng.normal(mus[:, None], np.sqrt(sig2)[:, None], (m, k))
        q = syn.mean(axis=1)
        u = syn.var(axis=1, ddof=1) / k
        c = combine(q, u, method=method, n_syn=k, n_org=n)
        hits += c.lower <= MU <= c.upper
    return hits / reps


REPS = 3000


def test_coverage_plugin_ts_and_naive():
    cov = _coverage("plug-in", "plug-in", n=100, k=100, m=5, reps=REPS, seed=11)
    naive = _coverage("plug-in", "naive", n=100, k=100, m=5, reps=REPS, seed=11)
    print(f"plug-in T_s coverage {cov:.4f}, naive {naive:.4f}")
    assert 0.93 <= cov <= 0.97
    assert naive < 0.80


def test_coverage_ppd_tppd_and_naive():
    cov = _coverage("ppd", "posterior-predictive", n=100, k=100, m=5, reps=REPS, seed=12)
    naive = _coverage("ppd", "naive", n=100, k=100, m=5, reps=REPS, seed=12)
    print(f"PPD T_PPD coverage {cov:.4f}, naive {naive:.4f}")
    assert 0.93 <= cov <= 0.97
    assert naive < 0.80


def test_coverage_ppd_tf():
    # T_f with nu_f: in the band once b_m is well estimated (m = 20 copies of 5n rows) ...
    cov = _coverage("ppd", "fully-synthetic", n=100, k=500, m=20, reps=REPS, seed=13)
    # ... and conservative (never under-covering) with m = 5 copies of n rows, where nu_f is
    # small and T_f <= 0 in about a fifth of the replications.
    small = _coverage("ppd", "fully-synthetic", n=100, k=100, m=5, reps=REPS, seed=14)
    print(f"PPD T_f coverage m=20 k=5n {cov:.4f}; m=5 k=n {small:.4f}")
    assert 0.93 <= cov <= 0.97
    assert small >= 0.95

"""Per-table estimates q_i, u_i for means, proportions and OLS coefficients."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthcert.errors import DataError
from synthcert.inference import (
    combine,
    mean_estimates,
    proportion_estimates,
    regression_estimates,
)


@pytest.fixture()
def tables():
    rng = np.random.default_rng(5)
    out = []
    for _ in range(4):
        x = rng.normal(0, 1, 300)
        out.append(
            pd.DataFrame(
                {
                    "x": x,
                    "z": rng.normal(0, 1, 300),
                    "y": 2.0 + 0.5 * x + rng.normal(0, 0.3, 300),
                    "sex": rng.choice(["f", "m"], 300, p=[0.4, 0.6]),
                }
            )
        )
    return out


def test_mean_estimates(tables):
    est = mean_estimates(tables, "y")
    for t, q, u in zip(tables, est.q, est.u, strict=True):
        assert q == pytest.approx(t["y"].mean())
        assert u == pytest.approx(t["y"].var() / len(t))
    assert est.common_n_syn == 300
    c = est.combine(method="plug-in", n_org=600)
    assert c.variance == pytest.approx((300 / 600 + 1 / 4) * np.mean(est.u))


def test_proportion_estimates(tables):
    est = proportion_estimates(tables, "sex", "f")
    for t, q, u in zip(tables, est.q, est.u, strict=True):
        p = (t["sex"] == "f").mean()
        assert q == pytest.approx(p)
        assert u == pytest.approx(p * (1 - p) / len(t))


def test_regression_slope_matches_the_simple_regression_formulas(tables):
    est = regression_estimates(tables, "y", ["x"], "x")
    for t, q, u in zip(tables, est.q, est.u, strict=True):
        x, y = t["x"].to_numpy(), t["y"].to_numpy()
        sxx = ((x - x.mean()) ** 2).sum()
        slope = ((x - x.mean()) * (y - y.mean())).sum() / sxx
        resid = y - y.mean() - slope * (x - x.mean())
        s2 = (resid**2).sum() / (len(x) - 2)
        assert q == pytest.approx(slope, rel=1e-10)
        assert u == pytest.approx(s2 / sxx, rel=1e-10)
    inter = regression_estimates(tables, "y", ["x", "z"], "(intercept)")
    assert np.mean(inter.q) == pytest.approx(2.0, abs=0.05)


def test_refusals(tables):
    with pytest.raises(DataError, match="no column"):
        mean_estimates(tables, "nope")
    with pytest.raises(DataError, match="not numeric"):
        mean_estimates(tables, "sex")
    bad = tables[0].copy()
    bad.loc[3, "y"] = np.nan
    with pytest.raises(DataError, match="missing"):
        mean_estimates([bad], "y")
    with pytest.raises(DataError, match="collinear"):
        t = tables[0].assign(x2=lambda d: 2 * d["x"])
        regression_estimates([t], "y", ["x", "x2"], "x")
    uneven = mean_estimates([tables[0], tables[1].iloc[:100]], "y")
    with pytest.raises(DataError, match="different sizes"):
        uneven.combine(method="plug-in", n_org=300)


def test_end_to_end_plugin_interval_covers():
    # One original sample, m = 5 plug-in synthetic tables, the T_s interval and the naive one.
    rng = np.random.default_rng(42)
    real = rng.normal(10.0, 3.0, 2000)
    tables = [
        pd.DataFrame({"income": rng.normal(real.mean(), real.std(ddof=1), 2000)}) for _ in range(5)
    ]
    est = mean_estimates(tables, "income")
    valid = est.combine(method="plug-in", n_org=2000)
    naive = combine(est.q, est.u, method="naive")
    # sqrt(T_s) is the true sampling sd of q_bar: sd * sqrt(1/n_org + 1/(m n_syn)).
    assert valid.se == pytest.approx(3.0 * np.sqrt(1 / 2000 + 1 / (5 * 2000)), rel=0.05)
    assert (valid.upper - valid.lower) / (naive.upper - naive.lower) == pytest.approx(
        np.sqrt((1 + 1 / 5) / (1 / 5)), rel=0.05
    )

"""The copula's beta marginals (SDV's default, the thesis's gcopula): fit, inverse, refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthcert.data.schema import NumericColumn, Schema
from synthcert.errors import AssumptionError, ParameterError
from synthcert.synthesizers.copula import BetaMarginal, GaussianCopulaSynthesizer


def test_beta_fit_spans_the_data_and_matches_its_mean_and_variance():
    x = 10.0 + 40.0 * stats.beta(2.0, 5.0).rvs(50_000, random_state=1)
    m = BetaMarginal.fit(x)
    assert (m.loc, m.loc + m.scale) == (x.min(), x.max())
    fitted = stats.beta(m.a, m.b, loc=m.loc, scale=m.scale)  # scipy's moments, independent
    assert fitted.mean() == pytest.approx(x.mean(), rel=1e-12)
    assert fitted.var() == pytest.approx(x.var(), rel=1e-12)
    assert m.a == pytest.approx(2.0, rel=0.1)  # the data's range is a little narrower
    assert m.b == pytest.approx(5.0, rel=0.15)


@pytest.mark.parametrize("a, b", [(2.18, 7.2), (0.05, 26.0), (1.07, 2.2), (3.2, 97.0), (0.3, 0.3)])
def test_interpolated_inverse_is_within_1e_5_of_the_exact_one(a, b):
    m = BetaMarginal(a, b, loc=-3.0, scale=100.0)
    u = stats.norm.cdf(np.random.default_rng(0).uniform(-8, 8, 100_000))
    assert np.abs(m.fast_ppf(u) - m.ppf(u)).max() <= 1e-5 * m.scale
    assert m.fast_ppf(np.array([0.0, 1.0])) == pytest.approx([-3.0, 97.0], abs=1e-12)
    moderate = BetaMarginal(a, b, loc=0.0, scale=1.0)
    v = np.linspace(0.001, 0.999, 999)
    assert moderate.cdf(moderate.ppf(v)) == pytest.approx(v, abs=1e-9)


def test_a_constant_column_is_a_point_mass():
    m = BetaMarginal.fit(np.full(10, 4.0))
    assert m.scale == 0.0
    assert np.all(m.fast_ppf(np.array([0.1, 0.9])) == 4.0)
    assert np.all(m.cdf(np.array([4.0])) == 0.5)


def test_beta_copula_samples_stay_on_the_data_range_and_keep_the_correlation():
    rng = np.random.default_rng(3)
    z = rng.multivariate_normal([0, 0], [[1, 0.7], [0.7, 1]], size=20_000)
    u = stats.norm.cdf(z)
    df = pd.DataFrame(
        {"x": stats.beta(2, 3).ppf(u[:, 0]) * 50, "y": stats.beta(1, 8).ppf(u[:, 1]) * 100}
    )
    schema = Schema((NumericColumn("x", 0, 50), NumericColumn("y", 0, 100)))
    synth = GaussianCopulaSynthesizer(schema, marginals="beta").fit(df)
    out = synth.sample(20_000, seed=4)
    for c in "xy":
        assert out[c].min() >= df[c].min() - 1e-9
        assert out[c].max() <= df[c].max() + 1e-9
    rho = stats.spearmanr(out["x"], out["y"]).statistic
    assert rho == pytest.approx(stats.spearmanr(df["x"], df["y"]).statistic, abs=0.02)
    assert synth.get_params()["marginals"] == "beta"


def test_beta_marginals_are_refused_with_dp_and_unknown_kinds_anywhere():
    schema = Schema((NumericColumn("x", 0, 1),))
    df = pd.DataFrame({"x": [0.1, 0.5, 0.9]})
    with pytest.raises(AssumptionError, match="no DP guarantee"):
        GaussianCopulaSynthesizer(schema, marginals="beta", epsilon=1.0).fit(df)
    with pytest.raises(ParameterError, match="empirical' or 'beta"):
        GaussianCopulaSynthesizer(schema, marginals="kde").fit(df)  # type: ignore[arg-type]

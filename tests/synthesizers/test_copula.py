"""The Gaussian-copula synthesizer with and without DP (DPCopula-Kendall)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synth_checks import check_table, mean_marginal_l1

from synthcert.data.datasets import adult_schema
from synthcert.data.discretize import bin_values, numeric_bin_codes
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import ParameterError
from synthcert.synthesizers.copula import (
    GaussianCopulaSynthesizer,
    kendall_tau_a,
    kendall_tau_sensitivity,
    nearest_correlation,
)
from synthcert.synthesizers.registry import make_synthesizer


@pytest.fixture(scope="module")
def schema():
    return adult_schema()


@pytest.fixture(scope="module")
def exact_fit(adult, schema):
    return GaussianCopulaSynthesizer(schema).fit(adult)


def test_exact_copula_on_adult(adult, schema, exact_fit):
    syn = exact_fit.sample(len(adult), seed=3)
    check_table(schema, syn, len(adult))
    assert mean_marginal_l1(schema, adult, syn) < 0.015  # sampling error only
    assert exact_fit.privacy_claim(10).model == "none"
    assert exact_fit.accountant.spent().steps == 0

    # monotone dependence survives: education-num and a high income (real: 0.335)
    def corr(df):
        return np.corrcoef(df["education-num"], df["income"].astype(str) == ">50K")[0, 1]

    assert corr(adult) == pytest.approx(0.335, abs=0.01)
    # attenuated (normal scores of a binary column; docs/synthesizers.md) but clearly there
    assert 0.18 < corr(syn) < corr(adult)


def test_same_seed_same_output(adult, schema, exact_fit):
    pd.testing.assert_frame_equal(exact_fit.sample(500, seed=9), exact_fit.sample(500, seed=9))
    assert not exact_fit.sample(500, seed=9).equals(exact_fit.sample(500, seed=10))
    small = adult.iloc[:3000]
    a = GaussianCopulaSynthesizer(schema, epsilon=1.0, seed=4).fit(small).sample(300, seed=1)
    b = GaussianCopulaSynthesizer(schema, epsilon=1.0, seed=4).fit(small).sample(300, seed=1)
    pd.testing.assert_frame_equal(a, b)


def test_dp_copula_spends_its_budget_and_loses_utility(adult, schema, exact_fit):
    l1_exact = mean_marginal_l1(schema, adult, exact_fit.sample(len(adult), seed=3))
    synth = make_synthesizer("gaussian-copula", schema, epsilon=1.0, delta=1e-5, seed=5)
    synth.fit(adult)
    spent = synth.accountant.check_within_budget()
    assert spent.epsilon == pytest.approx(1.0) and spent.epsilon <= 1.0 + 1e-9
    assert spent.delta == 0.0 and spent.steps == len(schema.columns) + 1
    assert synth.privacy_claim(10).model == "pure-dp" and synth.privacy_claim(10).epsilon == 1.0
    syn = synth.sample(len(adult), seed=3)
    check_table(schema, syn, len(adult))
    assert l1_exact < mean_marginal_l1(schema, adult, syn) < 0.1


def test_copula_recovers_a_known_correlation():
    rng = np.random.default_rng(0)
    z = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], size=20_000)
    df = pd.DataFrame({"x": np.exp(z[:, 0]), "y": z[:, 1] ** 3})
    sch = Schema((NumericColumn("x", 0, 100), NumericColumn("y", -100, 100)))
    assert GaussianCopulaSynthesizer(sch).fit(df).corr_[0, 1] == pytest.approx(0.6, abs=0.02)
    dp = GaussianCopulaSynthesizer(sch, epsilon=8.0, seed=1).fit(df)
    assert dp.corr_[0, 1] == pytest.approx(0.6, abs=0.05)  # sin(pi tau / 2) is Gaussian-exact


def test_kendall_tau_a_matches_brute_force():
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 4, 60), rng.integers(0, 5, 60)
    s = sum(
        np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in itertools.combinations(range(60), 2)
    )
    assert kendall_tau_a(x, y) == pytest.approx(s / (60 * 59 / 2))


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=3, max_size=25),
    new=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    where=st.integers(0, 1000),
)
def test_kendall_tau_sensitivity_bounds_a_replacement(data, new, where):
    arr = np.array(data, dtype=float)
    other = arr.copy()
    other[where % len(arr)] = new
    change = abs(kendall_tau_a(arr[:, 0], arr[:, 1]) - kendall_tau_a(other[:, 0], other[:, 1]))
    assert change <= kendall_tau_sensitivity(len(arr)) + 1e-12


def test_nearest_correlation_repairs_an_invalid_matrix():
    bad = np.array([[1, 0.9, 0.9], [0.9, 1, -0.9], [0.9, -0.9, 1.0]])
    assert np.linalg.eigvalsh(bad)[0] < 0
    fixed = nearest_correlation(bad)
    assert np.allclose(np.diag(fixed), 1) and np.allclose(fixed, fixed.T)
    assert np.linalg.eigvalsh(fixed)[0] > 0
    good = np.array([[1, 0.3], [0.3, 1.0]])
    assert np.allclose(nearest_correlation(good), good, atol=1e-8)


@pytest.mark.parametrize("name", ["age", "education-num", "capital-loss"])
def test_integer_values_stay_in_their_public_bin(name):
    col = adult_schema().column(name)
    rng = np.random.default_rng(2)
    b = rng.integers(0, 20, 5000)
    x = bin_values(col, 20, b, rng.random(5000))
    assert np.all(x == np.rint(x))
    has_int = np.array([
        np.any(numeric_bin_codes(np.arange(col.lower, col.upper + 1), col) == k) for k in range(20)
    ])  # fmt: skip
    ok = has_int[b]
    assert np.all(numeric_bin_codes(x[ok], col) == b[ok])


def test_bad_parameters_are_refused():
    sch = Schema((NumericColumn("x", 0, 1), CategoricalColumn("c", ("a", "b"))))
    df = pd.DataFrame({"x": [0.1, 0.5, 0.9], "c": ["a", "b", "a"]})
    with pytest.raises(ParameterError, match="marginal_share"):
        GaussianCopulaSynthesizer(sch, marginal_share=1.5).fit(df)
    with pytest.raises(ParameterError):  # an epsilon or delta outside its interval
        GaussianCopulaSynthesizer(sch, epsilon=-1.0).fit(df)

"""Correlation and association differences: numpy/scipy agreement, shuffle, constant columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats.contingency import association, crosstab

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.utility.correlation import (
    association_difference,
    correlation_difference,
    correlation_matrix,
    correlation_ratio,
    cramers_v,
)


def test_correlation_matrix_matches_numpy():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4)) @ rng.standard_normal((4, 4))
    np.testing.assert_allclose(correlation_matrix(X), np.corrcoef(X.T), atol=1e-12)


def test_constant_column_gets_zero_correlation():
    X = np.column_stack([np.arange(10.0), np.ones(10), np.arange(10.0) ** 2])
    R = correlation_matrix(X)
    assert R[0, 1] == R[1, 2] == 0.0
    assert R[1, 1] == 1.0
    assert np.isfinite(R).all()


def test_cramers_v_matches_scipy():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, 500)
    b = (a + rng.integers(0, 2, 500)) % 4
    table = crosstab(a, b).count
    assert cramers_v(a, b, 3, 4) == pytest.approx(association(table, method="cramer"))
    assert cramers_v(a, a, 3, 3) == pytest.approx(1.0)
    assert cramers_v(a, np.zeros(500, dtype=int), 3, 2) == 0.0  # one observed level


def test_correlation_ratio_hand_value():
    codes = np.array([0, 0, 1, 1])
    y = np.array([1.0, 3.0, 5.0, 7.0])
    # group means 2 and 6, grand mean 4: between 2*4 + 2*4 = 16, total 9+1+1+9 = 20.
    assert correlation_ratio(codes, y, 2) == pytest.approx(np.sqrt(16 / 20))
    assert correlation_ratio(codes, np.array([1.0, 1.0, 1.0, 1.0]), 2) == 0.0


def test_shuffled_column_raises_differences(california):
    from synthcert.data.datasets import california_schema

    schema = california_schema()
    same = correlation_difference(california, california, schema)
    assert same.mean == 0.0 and same.max == 0.0
    shuffled = california.copy()
    shuffled["median_income"] = np.random.default_rng(0).permutation(
        shuffled["median_income"].to_numpy()
    )
    diff = correlation_difference(california, shuffled, schema)
    i = diff.columns.index("median_income")
    j = diff.columns.index("median_house_value")
    # real correlation of income and value is about 0.69; shuffled it is about 0.
    assert diff.real[i, j] == pytest.approx(0.688, abs=0.01)
    assert diff.abs_diff[i, j] == pytest.approx(0.688, abs=0.03)
    assert diff.max == diff.abs_diff[i, j]
    assert diff.mean > 0.01
    assoc = association_difference(california, shuffled, schema)
    assert assoc.max > 0.5
    assert association_difference(california, california, schema).max == 0.0


def test_association_of_categorical_pair_sees_shuffle():
    schema = Schema(
        (
            CategoricalColumn("a", ("x", "y")),
            CategoricalColumn("b", ("u", "v")),
            NumericColumn("n", 0, 1),
        )
    )
    real = pd.DataFrame({"a": ["x", "y"] * 50, "b": ["u", "v"] * 50, "n": [0.1, 0.9] * 50})
    fake = real.copy()
    fake["b"] = ["u", "v"] * 25 + ["v", "u"] * 25
    d = association_difference(real, fake, schema)
    assert d.real[0, 1] == pytest.approx(1.0)  # Cramér's V of identical columns
    assert d.real[0, 2] == pytest.approx(1.0)  # eta: n is a function of a
    assert d.abs_diff[0, 1] == pytest.approx(1.0)  # fake b independent of a
    assert correlation_difference(real, fake, schema).mean is None  # one numeric column

"""The copula's fit from counts on public bins: Kendall's tau of a contingency table."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError
from synthcert.statistics.sources import CodesCounts
from synthcert.synthesizers.copula import (
    GaussianCopulaSynthesizer,
    kendall_tau_table,
    tau_b_from_tau_a,
)


def table_of(x: np.ndarray, y: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    t = np.zeros(shape, dtype=np.int64)
    np.add.at(t, (x, y), 1)
    return t


def test_tau_b_of_a_table_matches_scipy_on_binned_data():
    rng = np.random.default_rng(4)
    z = rng.multivariate_normal([0, 0], [[1, 0.7], [0.7, 1]], size=5000)
    x = np.clip(np.floor((z[:, 0] + 3) / 6 * 20), 0, 19).astype(int)  # 20 equal-width bins
    y = (z[:, 1] > 0.4).astype(int)  # a binary column: many ties
    want = stats.kendalltau(x, y, variant="b").statistic
    assert kendall_tau_table(table_of(x, y, (20, 2)), variant="b") == pytest.approx(want, rel=1e-12)
    assert 0.3 < want < 0.6


@settings(max_examples=40, deadline=None)
@given(
    pts=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=2, max_size=40),
)
def test_tau_a_of_a_table_equals_brute_force(pts):
    arr = np.array(pts)
    n = len(arr)
    s = sum(
        np.sign(arr[i, 0] - arr[j, 0]) * np.sign(arr[i, 1] - arr[j, 1])
        for i, j in itertools.combinations(range(n), 2)
    )
    t = table_of(arr[:, 0], arr[:, 1], (4, 5))
    assert kendall_tau_table(t) == pytest.approx(s / (n * (n - 1) / 2), abs=1e-15)
    # tau_b from tau_a and the exact one-way counts (the DP path's tie correction)
    tau_b = kendall_tau_table(t, variant="b")
    p, q = t.sum(axis=1) / n, t.sum(axis=0) / n
    assert tau_b_from_tau_a(kendall_tau_table(t), p, q, n) == pytest.approx(tau_b, abs=1e-12)


def test_tau_of_degenerate_tables_and_huge_counts():
    assert kendall_tau_table(np.array([[5, 0], [0, 0]]), variant="b") == 0.0  # constant columns
    assert kendall_tau_table(np.array([[1]])) == 0.0
    big = np.array([[3 * 10**9, 0], [0, 3 * 10**9]])  # n^2 overflows int64: exact Python ints
    assert kendall_tau_table(big, variant="b") == 1.0
    assert kendall_tau_table(big) == pytest.approx(0.5, rel=1e-9)


def test_copula_fit_counts_uses_one_request_and_refuses_beta():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.random(500), "c": rng.choice(["a", "b"], 500)})
    sch = Schema((NumericColumn("x", 0, 1), CategoricalColumn("c", ("a", "b"))))
    synth = GaussianCopulaSynthesizer(sch)
    disc = synth.discretizer
    source = CodesCounts(disc.transform(df), disc.cardinalities)
    synth.fit_counts(source)
    assert source.counted == [[(0, 1)]] and synth.n_ == 500
    out = synth.sample(1000, seed=1)
    assert out["x"].between(0, 1).all() and set(out["c"]) <= {"a", "b"}
    with pytest.raises(AssumptionError, match="public bins"):
        GaussianCopulaSynthesizer(sch, marginals="beta").fit_counts(source)

"""The mean-and-covariance synthesizer M_G."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.encode import Encoder
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError
from synthcert.statistics.moments import MomentAccumulator
from synthcert.synthesizers.base import NotFittedError
from synthcert.synthesizers.gaussian import GaussianSynthesizer, gaussian_factor


@pytest.fixture(scope="module")
def demo():
    return make_demo_table(20_000, seed=1)


def test_fit_matches_numpy_mean_and_biased_covariance(demo):
    synth = GaussianSynthesizer(demo_schema()).fit(demo)
    X, _ = Encoder(demo_schema()).encode(demo)
    exact_mean = np.array([math.fsum(col) / len(col) for col in X.T])
    np.testing.assert_allclose(synth.mean_, exact_mean, rtol=0, atol=1e-15)
    np.testing.assert_allclose(synth.cov_, np.cov(X.T, bias=True), rtol=1e-12, atol=1e-15)
    assert synth.fit_.n == 20_000 and synth.fit_.d == 6
    assert synth.fit_.sigma_source == "data"
    assert synth.fit_.sigma == pytest.approx(np.linalg.eigvalsh(synth.cov_)[0])


def test_chunked_fit_equals_in_memory_fit(demo):
    whole = GaussianSynthesizer(demo_schema()).fit(demo)
    chunks = [demo.iloc[i : i + 777] for i in range(0, len(demo), 777)]
    streamed = GaussianSynthesizer(demo_schema()).fit_chunks(chunks)
    np.testing.assert_allclose(streamed.mean_, whole.mean_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(streamed.cov_, whole.cov_, rtol=1e-12, atol=1e-15)


def test_accumulator_merge_is_order_free_and_accurate_with_large_offsets():
    rng = np.random.default_rng(0)
    X = 1e6 + rng.standard_normal((5_000, 3))  # the naive formula loses ~12 digits here
    a = MomentAccumulator(3).update(X[:1234])
    b = MomentAccumulator(3).update(X[1234:])
    merged = MomentAccumulator(3).merge(b).merge(a)
    np.testing.assert_allclose(merged.covariance, np.cov(X.T, bias=True), rtol=1e-10)


def test_same_seed_same_rows_and_independent_of_threads(demo):
    synth = GaussianSynthesizer(demo_schema(), chunk_rows=4096).fit(demo)
    a = synth.sample(10_000, seed=7)
    synth.workers = 1
    b = synth.sample(10_000, seed=7)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(synth.sample(10_000, seed=8))


def test_samples_reproduce_the_moments_and_respect_bounds(demo):
    schema = demo_schema()
    synth = GaussianSynthesizer(schema).fit(demo)
    out = synth.sample(200_000, seed=3)
    assert list(out.columns) == schema.names
    for col in schema.columns:
        assert out[col.name].between(col.lower, col.upper).all()
        if col.integer:
            assert out[col.name].dtype == np.int64
    X, _ = Encoder(schema).encode(out)
    # clipping and integer rounding move the moments a little; the correlations survive
    corr_real = np.corrcoef(Encoder(schema).encode(demo)[0].T)
    np.testing.assert_allclose(np.corrcoef(X.T), corr_real, atol=0.06)


def test_declared_sigma_needs_the_neighbour_margin(demo):
    lam = GaussianSynthesizer(demo_schema()).fit(demo).smallest_eigenvalue_
    n, d = len(demo), 6
    # unbounded: lambda_min >= max((n+1) sigma/n, (n-1) sigma/n + 4d/(n-1))
    top = min(n * lam / (n + 1), (lam - 4 * d / (n - 1)) * n / (n - 1))
    with pytest.raises(AssumptionError, match="does not meet the public assumption") as info:
        GaussianSynthesizer(demo_schema(), sigma=top * 1.001).fit(demo)
    assert f"{lam:.6g}" not in str(info.value) and f"{lam:.6g}" in info.value.private_detail
    fit = GaussianSynthesizer(demo_schema(), sigma=top * 0.999).fit(demo).fit_
    assert fit.sigma_source == "declared" and fit.sigma == pytest.approx(top * 0.999)
    # bounded: lambda_min >= sigma + 4d(n+1)/n^2
    top_b = lam - 4 * d * (n + 1) / n**2
    with pytest.raises(AssumptionError, match="does not meet the public assumption"):
        GaussianSynthesizer(demo_schema(), sigma=top_b * 1.001, neighboring="bounded").fit(demo)
    GaussianSynthesizer(demo_schema(), sigma=top_b * 0.999, neighboring="bounded").fit(demo)


@pytest.mark.parametrize("neighboring", ["unbounded", "bounded"])
def test_every_neighbour_of_a_table_at_the_margin_is_in_d_sigma(neighboring):
    """The margin's promise, checked directly: at lambda_min = margin(sigma) every neighbour
    (a cube corner added, a row removed, a row replaced by a corner) has lambda_min >= sigma."""
    from synthcert.synthesizers.gaussian import neighbour_margin

    rng = np.random.default_rng(3)
    n, d = 60, 3
    X = np.clip(rng.normal(0, 0.5, (n, d)), -1, 1)
    lam = np.linalg.eigvalsh(np.cov(X.T, bias=True))[0]
    # the largest sigma the margin allows for this table, found by bisection
    lo, hi = 0.0, lam
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if neighbour_margin(n, d, mid, neighboring) <= lam else (lo, mid)
    sigma = lo
    corners = np.array(np.meshgrid(*[[-1.0, 1.0]] * d)).reshape(d, -1).T
    neighbours = []
    if neighboring == "unbounded":
        neighbours += [np.vstack([X, c]) for c in corners]
        neighbours += [np.delete(X, i, axis=0) for i in range(n)]
    else:
        neighbours += [np.vstack([np.delete(X, i, axis=0), c]) for i in range(n) for c in corners]
    worst = min(np.linalg.eigvalsh(np.cov(Y.T, bias=True))[0] for Y in neighbours)
    assert sigma > 0 and worst >= sigma


def test_constant_column_and_unused_category_are_named():
    schema = Schema((NumericColumn("a", 0, 10), NumericColumn("b", 0, 10)))
    df = pd.DataFrame({"a": np.arange(100) % 10, "b": 5})
    with pytest.raises(AssumptionError, match="singular") as info:
        GaussianSynthesizer(schema).fit(df)
    assert "involves b" in info.value.private_detail and "involves" not in str(info.value)
    schema = Schema((NumericColumn("a", 0, 10), CategoricalColumn("c", ("x", "y", "z"))))
    df = pd.DataFrame({"a": np.arange(100) % 10, "c": ["x", "y"] * 50})
    with pytest.raises(AssumptionError, match="singular") as info:
        GaussianSynthesizer(schema).fit(df)
    assert "c=z" in info.value.private_detail


def test_all_rows_missing_and_single_row_are_refused():
    schema = Schema((NumericColumn("a", 0, 10), NumericColumn("b", 0, 10)))
    with pytest.raises(AssumptionError, match="at least 2 complete rows") as info:
        GaussianSynthesizer(schema).fit(pd.DataFrame({"a": [None, 1.0], "b": [2.0, None]}))
    assert info.value.private_detail == "0 complete rows; 2 dropped for missing values"
    with pytest.raises(AssumptionError, match="at least 2 complete rows"):
        GaussianSynthesizer(schema).fit(pd.DataFrame({"a": [1.0], "b": [2.0]}))


def test_sample_before_fit_is_refused():
    with pytest.raises(NotFittedError):
        GaussianSynthesizer(demo_schema()).sample(3)


def test_eigen_factor_for_semidefinite_covariance():
    v = np.array([1.0, 1.0, 0.0])
    cov = np.outer(v, v) + np.diag([0, 0, 1.0])
    L = gaussian_factor(cov)
    np.testing.assert_allclose(L @ L.T, cov, atol=1e-12)

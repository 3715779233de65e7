"""Moments of the encoded table: the accumulator, the partial with its report, and their use."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from synthcert import engine, statistics
from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.encode import Encoder
from synthcert.data.schema import NumericColumn, Schema
from synthcert.statistics import chunks, counts, moments, sources
from synthcert.statistics.moments import MomentAccumulator, MomentPartial, encoded_moments
from synthcert.synthesizers.gaussian import GaussianSynthesizer


@pytest.mark.parametrize("module", [chunks, counts, moments, sources, statistics.protocols])
def test_the_examples_in_the_docstrings_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_encoded_moments_equal_numpy_on_the_whole_table():
    df = make_demo_table(9_000, seed=4)
    enc = Encoder(demo_schema())
    part = encoded_moments(enc, (df.iloc[i : i + 2_000] for i in range(0, len(df), 2_000)))
    X, _ = enc.encode(df)
    assert part.acc.count == 9_000 == part.report.rows_in == part.report.rows_kept
    np.testing.assert_allclose(part.acc.mean, X.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(part.acc.covariance, np.cov(X.T, bias=True), rtol=1e-12)


def test_partials_merge_their_moments_and_their_reports():
    schema = Schema((NumericColumn("x", 0.0, 10.0, nullable=False),))
    enc = Encoder(schema, missing="drop")
    a = encoded_moments(enc, [pd.DataFrame({"x": [1.0, 12.0, None]})])  # clipped, dropped
    b = encoded_moments(enc, [pd.DataFrame({"x": [3.0, -5.0]})], row_offset=3)  # clipped
    merged = MomentPartial(MomentAccumulator(1), a.report).merge(b)
    merged.acc.merge(a.acc)
    assert merged.acc.count == 4
    assert merged.report.rows_in == 5 and merged.report.rows_dropped_missing == 1
    assert merged.report.values_clipped == {"x": 2}
    # encoded values: 1 -> -0.8, 12 -> 1 (clipped), 3 -> -0.4, -5 -> -1 (clipped)
    np.testing.assert_allclose(merged.acc.mean, [(-0.8 + 1.0 - 0.4 - 1.0) / 4])


def test_an_empty_accumulator_has_no_covariance():
    with pytest.raises(ValueError, match="no rows"):
        _ = MomentAccumulator(2).covariance


def test_engine_moments_of_one_partition_equal_the_fit_in_memory_bit_for_bit(tmp_path):
    """Same chunks, same merges: the streamed fit is the in-memory fit to the last bit."""
    df = make_demo_table(12_345, seed=5)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    local = GaussianSynthesizer(demo_schema(), chunk_rows=2_000, neighboring="bounded").fit(df)
    m = engine.fit_moments(path, local.encoder, chunk_rows=2_000)
    streamed = GaussianSynthesizer(demo_schema(), chunk_rows=2_000, neighboring="bounded")
    streamed.fit_moments(m.acc, [m.report])
    assert np.array_equal(streamed.mean_, local.mean_)
    assert np.array_equal(streamed.cov_, local.cov_)
    assert streamed.fit_ == local.fit_

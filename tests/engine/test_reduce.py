"""Reductions per partition: the same numbers as the in-memory computation, in any partitioning."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from synthcert import engine
from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder
from synthcert.engine.reduce import TreeMerger, tree_pairs
from synthcert.errors import DataError
from synthcert.synthesizers.gaussian import GaussianSynthesizer


def _concat(a: str, b: str) -> str:
    return f"({a}{b})"


@given(st.integers(min_value=1, max_value=70))
def test_streaming_tree_is_the_level_by_level_tree(n):
    items = [chr(48 + i) for i in range(n)]
    merger = TreeMerger(_concat)
    for x in items:
        merger.push(x)
    assert merger.result() == tree_pairs(items, _concat)
    assert merger.result().replace("(", "").replace(")", "") == "".join(items)


def test_plan_groups_row_groups_and_tracks_offsets(demo_million):
    path, _ = demo_million
    parts = engine.plan_partitions(path, partition_rows=250_000)
    # 10 row groups of 100,000: groups of 3 reach 300,000 >= 250,000, then the last one alone
    assert [p.row_groups for p in parts] == [(0, 1, 2), (3, 4, 5), (6, 7, 8), (9,)]
    assert [p.rows for p in parts] == [300_000, 300_000, 300_000, 100_000]
    assert [p.file_offset for p in parts] == [0, 300_000, 600_000, 900_000]


def test_moments_match_exact_in_memory_figures(demo_million, demo_sch):
    path, df = demo_million
    got = engine.fit_moments(path, demo_sch, partition_rows=250_000, chunk_rows=70_000)
    X, _ = Encoder(demo_sch).encode(df)
    exact_mean = np.array([math.fsum(c) / len(c) for c in X.T])
    assert got.acc.count == 1_000_000
    np.testing.assert_allclose(got.acc.mean, exact_mean, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got.acc.covariance, np.cov(X.T, bias=True), rtol=1e-12, atol=1e-15)
    ref = GaussianSynthesizer(demo_sch).fit(df)
    rel = np.abs(got.acc.covariance - ref.cov_) / np.abs(ref.cov_)
    assert rel.max() < 1e-12


def test_moments_do_not_depend_on_threads(demo_million, demo_sch):
    path, _ = demo_million
    one = engine.fit_moments(path, demo_sch, partition_rows=250_000, engine=engine.LocalEngine(1))
    two = engine.fit_moments(path, demo_sch, partition_rows=250_000, engine=engine.LocalEngine(2))
    assert np.array_equal(one.acc.m2, two.acc.m2) and np.array_equal(one.acc.mean, two.acc.mean)


@pytest.mark.parametrize("pattern", ["adult-*.parquet", "adult-*.csv"])
def test_glob_inputs_with_missing_values_and_mixed_columns(
    adult_files, adult_mixed_schema, pattern
):
    folder, df = adult_files
    progress = []
    got = engine.fit_moments(
        str(folder / pattern),
        adult_mixed_schema,
        partition_rows=5_000,
        chunk_rows=3_000,
        progress=lambda done, total: progress.append((done, total)),
    )
    complete = df.dropna()
    X, report = Encoder(adult_mixed_schema).encode(complete)
    assert got.report.rows_dropped_missing == 7 and got.acc.count == len(df) - 7 == 30_155
    assert got.report.rows_in == len(df)
    assert got.report.values_clipped == report.values_clipped
    np.testing.assert_allclose(got.acc.covariance, np.cov(X.T, bias=True), rtol=1e-11, atol=1e-14)
    if pattern.endswith("parquet"):  # row counts known from the footers: progress in rows
        assert progress[-1] == (len(df), len(df))
        assert len(progress) == len(engine.plan_partitions(folder / pattern, partition_rows=5_000))
    else:  # CSV rows are unknown before reading: progress counts files
        assert progress[-1] == (3, None)


def test_histograms_equal_bincount_of_the_shared_discretizer(adult_files, adult_mixed_schema):
    folder, df = adult_files
    disc = Discretizer(adult_mixed_schema, bins=20)
    got = engine.histograms(str(folder), disc)
    codes = disc.transform(df)
    assert len(codes) == 30_155
    for j, k in enumerate(disc.cardinalities):  # the folder holds each row twice (Parquet, CSV)
        np.testing.assert_array_equal(got.counts[j], 2 * np.bincount(codes[:, j], minlength=k))


def test_two_way_marginals_equal_crosstab(adult_files, adult_mixed_schema):
    folder, df = adult_files
    disc = Discretizer(adult_mixed_schema, bins=10)
    got = engine.marginals(
        str(folder / "adult-*.parquet"), disc, [("sex", "race"), ("age", "hours-per-week")]
    )
    complete = df.dropna()
    expected = pd.crosstab(complete["sex"], complete["race"])
    sex = list(adult_mixed_schema.column("sex").categories)
    race = list(adult_mixed_schema.column("race").categories)
    expected = expected.reindex(index=sex, columns=race, fill_value=0).to_numpy()
    np.testing.assert_array_equal(got.table((4, 5)), expected)
    codes = disc.transform(df)
    age_hours = np.zeros((10, 10), dtype=np.int64)
    np.add.at(age_hours, (codes[:, 0], codes[:, 3]), 1)
    np.testing.assert_array_equal(got.table((0, 3)), age_hours)
    assert got.rows == 30_155


def test_missing_column_is_an_error_naming_the_file(adult_files, adult_mixed_schema):
    folder, df = adult_files
    bad = folder.parent / "bad.parquet"
    df.drop(columns=["race"]).to_parquet(bad, index=False)
    with pytest.raises(DataError, match=r"no column\(s\) \['race'\].*bad\.parquet"):
        engine.fit_moments(bad, adult_mixed_schema)


def test_numeric_correlation_equals_pandas(adult_files, adult_mixed_schema):
    folder, df = adult_files
    names, corr = engine.numeric_correlation(str(folder / "adult-*.parquet"), adult_mixed_schema)
    assert names == ["age", "fnlwgt", "education-num", "hours-per-week"]
    expected = df.dropna()[names].astype(float).corr().to_numpy()  # Adult lies within its bounds
    np.testing.assert_allclose(corr, expected, rtol=1e-10, atol=1e-12)

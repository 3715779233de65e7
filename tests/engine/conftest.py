"""Shared inputs of the engine tests: a 10^6-row demo table as Parquet, Adult as Parquet and CSV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from synthcert.data.datasets import adult_schema, demo_schema
from synthcert.data.schema import Schema

MIXED = ["age", "fnlwgt", "education-num", "hours-per-week", "sex", "race", "marital-status"]


def fast_demo_table(n: int, schema: Schema, seed: int) -> pd.DataFrame:
    """Correlated rows inside the demo schema's bounds (a quick stand-in for make_demo_table)."""
    rng = np.random.default_rng(seed)
    d = len(schema.columns)
    A = rng.standard_normal((d, d)) / np.sqrt(d)
    U = np.tanh(0.6 * rng.standard_normal((n, d)) @ (np.eye(d) + A).T)
    data = {}
    for j, col in enumerate(schema.columns):
        x = col.lower + (U[:, j] + 1.0) / 2.0 * (col.upper - col.lower)
        data[col.name] = np.rint(x).astype(np.int64) if col.integer else x
    return pd.DataFrame(data)


@pytest.fixture(scope="session")
def demo_million(tmp_path_factory):
    """(path, frame): 10^6 demo rows in one Parquet file of 10 row groups."""
    df = fast_demo_table(1_000_000, demo_schema(), seed=11)
    path = tmp_path_factory.mktemp("demo") / "demo.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=100_000)
    return path, df


@pytest.fixture(scope="session")
def demo_sch():
    return demo_schema()


@pytest.fixture(scope="session")
def adult_mixed_schema():
    """Adult's four numeric columns and three categorical ones (non-singular covariance)."""
    return adult_schema().select(MIXED)


@pytest.fixture(scope="session")
def adult_files(tmp_path_factory, adult):
    """Adult split into 3 Parquet files (row groups of 4,000) and 3 CSV files, with 7 holes."""
    df = adult.copy()
    rng = np.random.default_rng(3)
    holes = rng.choice(len(df), 7, replace=False)
    df.loc[df.index[holes], "hours-per-week"] = np.nan
    folder = tmp_path_factory.mktemp("adult")
    cuts = [0, 9_000, 21_000, len(df)]
    for i in range(3):
        part = df.iloc[cuts[i] : cuts[i + 1]]
        table = pa.Table.from_pandas(part, preserve_index=False)
        pq.write_table(table, folder / f"adult-{i}.parquet", row_group_size=4_000)
        part.to_csv(folder / f"adult-{i}.csv", index=False)
    return folder, df

"""The streamed release writes the rows of ``release_frame`` (and ``sample``) bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.io import ChunkedTableWriter, write_table
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.engine import sample_frames, sample_tables
from synthcert.errors import DataError
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.workflows import Budget
from synthcert.workflows.release import release, release_frame

SIGMA = 0.02  # the demo generator's public lower bound (about 0.021 measured)
N_OUT = (1 << 19) + 3_001  # two chunks of M_G's 2^19 rows, the second partial
SECRET = 2**99 + 4242


@pytest.fixture(scope="module")
def table():
    return make_demo_table(50_000, seed=5)


@pytest.fixture(scope="module")
def expected(table):
    budget = Budget(sigma=SIGMA, min_rows=40_000, n_out=N_OUT)
    return release_frame(table, demo_schema(), budget, seed=SECRET).rows


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_streamed_release_equals_release_frame(table, expected, tmp_path, suffix):
    src = tmp_path / "in.parquet"
    write_table(table, src)
    out = tmp_path / f"out.{suffix}"
    budget = Budget(sigma=SIGMA, min_rows=40_000, n_out=N_OUT)
    release(src, demo_schema(), out, budget, seed=SECRET)
    if suffix == "parquet":
        got = pd.read_parquet(out)
        assert len(got) == N_OUT
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    else:
        write_table(expected, tmp_path / "expected.csv")
        assert out.read_bytes() == (tmp_path / "expected.csv").read_bytes()


def test_sample_tables_are_the_frames_as_arrow(table):
    synth = GaussianSynthesizer(demo_schema(), chunk_rows=700).fit(table)
    frames = list(sample_frames(synth, 2_500, seed=11))
    tables = list(sample_tables(synth, 2_500, seed=11, engine="local"))
    assert [t.num_rows for t in tables] == [700, 700, 700, 400]
    for frame, tab in zip(frames, tables, strict=True):
        assert tab.equals(pa.Table.from_pandas(frame, preserve_index=False))
        pd.testing.assert_frame_equal(tab.to_pandas(), frame, check_exact=True)


def test_write_arrow_refuses_csv(tmp_path):
    tab = pa.table({"x": [1.0]})
    with pytest.raises(DataError, match="not Parquet"), ChunkedTableWriter(tmp_path / "o.csv") as w:
        w.write_arrow(tab)
    assert not (tmp_path / "o.csv").exists()


def test_parquet_writer_skips_dictionaries_of_floats_only(tmp_path):
    import pyarrow.parquet as pq

    from synthcert.data.io import parquet_writer

    tab = pa.table({"x": [0.5, 0.5, 0.25], "k": pa.array(["a", "a", "b"]).dictionary_encode()})
    with parquet_writer(tmp_path / "t.parquet", tab.schema) as w:
        w.write_table(tab)
    meta = pq.ParquetFile(tmp_path / "t.parquet").metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(2)}
    assert not any("DICT" in e for e in encodings["x"])
    assert any("DICT" in e for e in encodings["k"])
    assert pq.read_table(tmp_path / "t.parquet").equals(tab)


MIXED_SCHEMAS = {
    "numeric": Schema(
        (
            NumericColumn("a", -1.0, 1.0),
            NumericColumn("k", 0, 50, integer=True),
            NumericColumn("m", 0, 50, integer=True, nullable=True),
            NumericColumn("z", 0.0, 5.0, nullable=True),
            NumericColumn("pay", 1.0, 1e6, scale="log"),
        )
    ),
    "categorical": Schema((NumericColumn("a", -1.0, 1.0), CategoricalColumn("c", ("x", "y")))),
}


@pytest.mark.parametrize("name", sorted(MIXED_SCHEMAS))
def test_chunk_tables_are_the_frames_as_arrow_with_metadata(name):
    """M_G decodes numeric chunks straight into Arrow: the table of the frame, pandas metadata
    and nulls included; other schemas go through the frame."""
    schema = MIXED_SCHEMAS[name]
    rng = np.random.default_rng(1)
    n = 4_000
    data = {
        "a": rng.uniform(-1.0, 1.0, n),
        "k": rng.integers(0, 51, n),
        "m": pd.array(np.where(rng.uniform(size=n) < 0.3, None, rng.integers(0, 51, n)), "Int64"),
        "z": np.where(rng.uniform(size=n) < 0.4, np.nan, rng.uniform(0.0, 5.0, n)),
        "pay": rng.lognormal(5.0, 2.0, n).clip(1.0, 1e6),
        "c": rng.choice(["x", "y"], n),
    }
    df = pd.DataFrame({c: data[c] for c in schema.names})
    synth = GaussianSynthesizer(schema, chunk_rows=1_500).fit(df)
    for i, child in enumerate(np.random.SeedSequence(5).spawn(3)):
        table = synth.sample_chunk_table(1_500 - 400 * i, child)
        frame = synth.sample_chunk(1_500 - 400 * i, child)
        assert table.equals(pa.Table.from_pandas(frame, preserve_index=False), check_metadata=True)
        pd.testing.assert_frame_equal(table.to_pandas(), frame, check_exact=True)
    if name == "numeric":
        nulls = table.column("m").null_count, table.column("z").null_count
        assert all(k > 0 for k in nulls)


def test_partitioned_parts_skip_float_dictionaries(tmp_path, table):
    import pyarrow.parquet as pq

    from synthcert.engine import sample_partitioned

    synth = GaussianSynthesizer(demo_schema(), chunk_rows=1_000).fit(table)
    manifest = sample_partitioned(synth, 5_500, tmp_path / "ds", seed=3, partition_rows=2_000)
    files = sorted((tmp_path / "ds").glob("*.parquet"))
    assert len(files) == 3 and manifest.rows == 5_500
    got = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    pd.testing.assert_frame_equal(got, synth.sample(5_500, seed=3), check_exact=True)
    meta = pq.ParquetFile(files[0]).metadata.row_group(0)
    kinds = {
        meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)
    }
    floats = [c.name for c in demo_schema().columns if not c.integer]
    ints = [c.name for c in demo_schema().columns if c.integer]
    assert floats and ints
    assert not any("DICT" in e for c in floats for e in kinds[c])
    assert all(any("DICT" in e for e in kinds[c]) for c in ints)

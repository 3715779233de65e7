"""The streamed release writes the rows of ``release_frame`` (and ``sample``) bit for bit."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.io import ChunkedTableWriter, write_table
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

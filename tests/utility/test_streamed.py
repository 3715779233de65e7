"""The streamed (engine) evaluation agrees with the in-memory one on what both compute."""

from __future__ import annotations

import pytest

from synthcert.data.datasets import california_schema
from synthcert.data.io import write_table
from synthcert.utility.evaluate import evaluate
from synthcert.utility.streamed import evaluate_streamed


@pytest.fixture(scope="module")
def tables(california, tmp_path_factory):
    folder = tmp_path_factory.mktemp("streamed")
    real = california.iloc[:6000].reset_index(drop=True)
    synth = california.iloc[6000:12000].reset_index(drop=True)
    write_table(real, folder / "real.parquet")
    write_table(synth, folder / "synth.csv")
    return real, synth, folder


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_streamed_marginals_and_correlations_equal_in_memory(tables, engine):
    real, synth, folder = tables
    schema = california_schema()
    memory = evaluate(real, synth, schema)
    streamed = evaluate_streamed(
        folder / "real.parquet", folder / "synth.csv", schema, engine=engine
    )
    assert streamed.n_real == 6000 and streamed.n_synthetic == 6000
    for name, col in memory.columns.items():
        s = streamed.columns[name]
        assert s.l1 == pytest.approx(col.l1, abs=1e-12)
        assert s.hellinger == pytest.approx(col.hellinger, abs=1e-12)
        assert s.wasserstein_binned == pytest.approx(col.wasserstein_binned, abs=1e-9)
    # the streamed correlation clips values to the public bounds first; these are within them
    assert streamed.summary["correlation_abs_diff_mean"] == pytest.approx(
        memory.summary["correlation_abs_diff_mean"], rel=1e-9
    )
    assert streamed.summary["l1_numeric_mean"] == pytest.approx(
        memory.summary["l1_numeric_mean"], rel=1e-12
    )


def test_an_empty_table_is_refused_as_in_memory(tables, tmp_path):
    from synthcert.errors import DataError

    real, _, folder = tables
    write_table(real.iloc[:0], tmp_path / "empty.parquet")
    with pytest.raises(DataError, match="cannot compare an empty column"):
        evaluate_streamed(folder / "real.parquet", tmp_path / "empty.parquet", california_schema())
    with pytest.raises(DataError, match="cannot compare an empty column"):
        evaluate(real, real.iloc[:0], california_schema())

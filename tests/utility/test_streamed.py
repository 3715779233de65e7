"""The streamed (engine) evaluation agrees with the in-memory one on what both compute."""

from __future__ import annotations

import pytest

from synthcert.data.datasets import california_schema
from synthcert.data.io import write_table
from synthcert.utility.evaluate import evaluate


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
    memory = evaluate(real, synth, schema, binning="public")  # an engine has public bins
    streamed = evaluate(folder / "real.parquet", folder / "synth.csv", schema, engine=engine)
    assert type(streamed) is type(memory) and streamed.streamed and not memory.streamed
    assert streamed.association is None and memory.association is not None
    assert set(streamed.to_dict()) == {
        "columns", "summary", "correlation", "bins", "n_real", "n_synthetic", "engine", "notes",
        "binning",
    }  # fmt: skip
    assert set(memory.to_dict()) == {
        "columns", "summary", "correlation", "association", "bins", "n_real", "n_synthetic",
        "n_holdout", "binning",
    }  # fmt: skip
    assert streamed.binning == memory.binning == "public"
    assert streamed.to_dict()["engine"] == engine and "Wasserstein" in streamed.notes[0]
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


def test_an_engine_refuses_efficacy_and_frames(tables):
    from synthcert.errors import ParameterError

    real, synth, folder = tables
    schema = california_schema()
    with pytest.raises(ParameterError, match="efficacy"):
        evaluate(folder / "real.parquet", folder / "synth.csv", schema, engine="local",
                 target="median_house_value")  # fmt: skip
    with pytest.raises(ParameterError, match="give paths"):
        evaluate(real, synth, schema, engine="local")
    # paths in memory read the same figures as the frames
    frames = evaluate(real, synth, schema)
    paths = evaluate(folder / "real.parquet", folder / "synth.csv", schema)
    assert paths.summary == pytest.approx(frames.summary, rel=1e-12)


def test_an_empty_table_is_refused_as_in_memory(tables, tmp_path):
    from synthcert.errors import DataError

    real, _, folder = tables
    write_table(real.iloc[:0], tmp_path / "empty.parquet")
    with pytest.raises(DataError, match="cannot compare an empty column"):
        evaluate(
            folder / "real.parquet", tmp_path / "empty.parquet", california_schema(), engine="local"
        )
    with pytest.raises(DataError, match="cannot compare an empty column"):
        evaluate(real, real.iloc[:0], california_schema())

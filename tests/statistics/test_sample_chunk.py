"""sample_chunk: the one call engines make to draw rows, the same rows as sample for a seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthcert import engine
from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.engine.sample import chunk_specs
from synthcert.errors import ParameterError
from synthcert.statistics import SamplesChunks
from synthcert.synthesizers.base import NotFittedError
from synthcert.synthesizers.copula import GaussianCopulaSynthesizer
from synthcert.synthesizers.gaussian import GaussianSynthesizer


@pytest.fixture(scope="module")
def table():
    return make_demo_table(5_000, seed=3)


@pytest.fixture(scope="module")
def gaussian(table):
    return GaussianSynthesizer(demo_schema(), chunk_rows=1_500).fit(table)


def test_gaussian_chunks_concatenate_to_sample_bit_for_bit(gaussian):
    chunks = chunk_specs(4_000, 11, gaussian.chunk_rows)
    assert [c.rows for c in chunks] == [1_500, 1_500, 1_000]
    got = pd.concat([gaussian.sample_chunk(c.rows, c.seed) for c in chunks], ignore_index=True)
    pd.testing.assert_frame_equal(got, gaussian.sample(4_000, seed=11), check_exact=True)
    for c, frame in zip(chunks, gaussian.sample_chunks(4_000, seed=11), strict=True):
        pd.testing.assert_frame_equal(gaussian.sample_chunk(c.rows, c.seed), frame)


def test_every_synthesizer_samples_chunks_and_the_default_is_sample(table):
    copula = GaussianCopulaSynthesizer(demo_schema()).fit(table)
    assert isinstance(copula, SamplesChunks)
    first, second = np.random.SeedSequence(5).spawn(2)
    again = np.random.SeedSequence(5).spawn(2)[1]
    chunk = copula.sample_chunk(300, second)
    pd.testing.assert_frame_equal(chunk, copula.sample(300, seed=again))
    assert not chunk.equals(copula.sample_chunk(300, first))


def test_an_unfitted_model_is_refused_before_anything_is_written(tmp_path):
    synth = GaussianSynthesizer(demo_schema())
    with pytest.raises(NotFittedError):
        synth.sample_chunk(10, np.random.SeedSequence(0))
    with pytest.raises(NotFittedError):
        engine.sample_partitioned(synth, 100, tmp_path / "out", seed=1)
    assert list(tmp_path.iterdir()) == []


class Constant:
    """A model from outside synthcert: only ``sample_chunk``, no synthcert base class."""

    def sample_chunk(self, rows: int, seed: np.random.SeedSequence) -> pd.DataFrame:
        value = np.random.default_rng(seed).integers(0, 1_000_000)
        return pd.DataFrame({"v": np.full(rows, value, dtype=np.int64)})


def test_the_engine_samples_any_model_with_sample_chunk(tmp_path):
    frames = list(engine.sample_frames(Constant(), 25, seed=3, chunk_rows=10))
    assert [len(f) for f in frames] == [10, 10, 5]
    children = np.random.SeedSequence(3).spawn(3)
    assert [int(f.v.iloc[0]) for f in frames] == [
        int(np.random.default_rng(c).integers(0, 1_000_000)) for c in children
    ]
    manifest = engine.sample_partitioned(Constant(), 25, tmp_path / "d", seed=3, chunk_rows=10)
    assert manifest.columns == ("v",) and manifest.rows == 25 and manifest.chunk_rows == 10
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "d"), pd.concat(frames, ignore_index=True)
    )


def test_the_engine_refuses_an_object_that_cannot_sample_chunks(tmp_path):
    with pytest.raises(ParameterError, match="sample_chunk"):
        list(engine.sample_frames(object(), 10, seed=1))
    with pytest.raises(ParameterError, match="sample_chunk"):
        engine.sample_partitioned(object(), 10, tmp_path / "d", seed=1)

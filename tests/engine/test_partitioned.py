"""Partitioned sampling to a Parquet dataset folder: same rows as ``sample``, written atomically."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthcert import engine
from synthcert.engine.partitioned import MANIFEST, PartitionedDatasetWriter
from synthcert.errors import DataError
from synthcert.synthesizers.gaussian import GaussianSynthesizer


@pytest.fixture(scope="module")
def fitted(demo_million, demo_sch):
    _, df = demo_million
    return GaussianSynthesizer(demo_sch, chunk_rows=30_000).fit(df.iloc[:200_000])


@pytest.mark.parametrize("partition_rows", [30_000, 100_000, 10**7])
def test_dataset_rows_equal_sample_whatever_the_file_size(tmp_path, fitted, partition_rows):
    out = tmp_path / "synthetic"
    manifest = engine.sample_partitioned(
        fitted, 145_000, out, seed=42, partition_rows=partition_rows
    )
    expected = fitted.sample(145_000, seed=42)
    got = pd.read_parquet(out)  # Arrow reads the folder and ignores _manifest.json
    pd.testing.assert_frame_equal(got, expected, check_categorical=False)
    per_file = -(-145_000 // (round(partition_rows / 30_000) * 30_000))
    assert len(manifest.parts) == min(per_file, 5)
    assert sum(p.rows for p in manifest.parts) == manifest.rows == 145_000
    on_disk = json.loads((out / MANIFEST).read_text())
    assert on_disk["rows"] == 145_000 and on_disk["chunk_rows"] == 30_000
    assert "seed" not in on_disk  # the seed is secret: never in a published file
    for p in manifest.parts:
        assert len(pd.read_parquet(out / p.file)) == p.rows
    assert sorted(x.name for x in tmp_path.iterdir()) == ["synthetic"]  # no temporary left


def test_a_failed_write_leaves_no_folder_and_keeps_the_previous_dataset(tmp_path, fitted):
    out = tmp_path / "synthetic"
    engine.sample_partitioned(fitted, 1_000, out, seed=1)
    before = pd.read_parquet(out)

    def broken(done, total):
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        engine.sample_partitioned(
            fitted, 90_000, out, seed=2, partition_rows=30_000, progress=broken
        )
    pd.testing.assert_frame_equal(pd.read_parquet(out), before)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["synthetic"]
    engine.sample_partitioned(fitted, 2_000, out, seed=3)  # replacing a dataset is allowed
    assert engine.read_manifest(out).rows == 2_000 and len(pd.read_parquet(out)) == 2_000


def test_refuses_foreign_folders_files_and_inputs_inside(tmp_path, demo_million):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(DataError, match="not a synthcert dataset"):
        PartitionedDatasetWriter(foreign)
    with pytest.raises(DataError, match="is a file"):
        PartitionedDatasetWriter(foreign / "notes.txt")
    path, _ = demo_million
    with pytest.raises(DataError, match="contains the input"):
        PartitionedDatasetWriter(path.parent, protect=[path])
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_sample_frames_equal_sample_chunks(fitted):
    got = list(engine.sample_frames(fitted, 70_000, seed=9, engine=engine.LocalEngine(2)))
    ref = list(fitted.sample_chunks(70_000, seed=9))
    assert [len(f) for f in got] == [30_000, 30_000, 10_000]
    for a, b in zip(got, ref, strict=True):
        pd.testing.assert_frame_equal(a, b)
    assert not np.array_equal(got[0].to_numpy(), got[1].to_numpy())

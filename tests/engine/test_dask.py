"""The Dask engine on a 2-worker loopback LocalCluster: same statistics, certificate, rows."""

from __future__ import annotations

import json

import joblib
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from synthcert import engine
from synthcert.cli import app
from synthcert.data.discretize import Discretizer
from synthcert.engine.dask import joblib_backend, parallel_map
from synthcert.synthesizers.copula import GaussianCopulaSynthesizer
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
from synthcert.workflows import Budget, Execution
from synthcert.workflows.release import release

distributed = pytest.importorskip("distributed")

VOLATILE = {"date"}  # the certificate holds public fields only; a run may cross midnight
PUBLIC = {"sigma": 1e-3, "min_rows": 1_000_000}  # declared: the demo generator's table


@pytest.fixture(scope="module")
def client():
    """Two single-threaded worker processes on 127.0.0.1, no dashboard."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, silence_logs=50,
    )  # fmt: skip
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def client_one():
    """One worker in this process (in-process transport), to check rows do not depend on workers."""
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None, silence_logs=50
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_release_of_a_million_rows_on_dask_equals_local(tmp_path, client, demo_million, demo_sch):
    path, _ = demo_million
    budget, seed = Budget(**PUBLIC), 2**100 + 2024
    local_run = Execution(partition_rows=250_000)
    dask_run = Execution(engine="dask", scheduler=client, partition_rows=250_000)
    local = release(path, demo_sch, tmp_path / "local.parquet", budget, local_run, seed=seed)
    dask = release(path, demo_sch, f"{tmp_path}/dask/", budget, dask_run, seed=seed)
    a, b = local.certificate.to_dict(), dask.certificate.to_dict()
    assert {k: v for k, v in a.items() if k not in VOLATILE} == {
        k: v for k, v in b.items() if k not in VOLATILE
    }
    assert local.record.facts["rows_used"] == dask.record.facts["rows_used"] == 1_000_000
    assert a["claim"]["n_out"] == a["min_rows"] == 1_000_000 and a["d"] == 6
    assert a["sigma_source"] == "declared" and a["n"] is None
    assert np.isfinite(a["claim"]["epsilon"]) and a["claim"]["epsilon"] > 0
    rows_local = pd.read_parquet(local.output)
    rows_dask = pd.read_parquet(dask.output)
    pd.testing.assert_frame_equal(rows_local, rows_dask)
    assert engine.read_manifest(dask.output).rows == 1_000_000
    # the statistics of the released rows: the same numbers on both engines
    # same input and partitions: the same floating-point numbers on both engines
    m_local = engine.fit_moments(dask.output, demo_sch)
    m_dask = engine.fit_moments(dask.output, demo_sch, engine="dask", scheduler=client)
    assert np.array_equal(m_local.acc.m2, m_dask.acc.m2)
    # a single file (other partitions, another merge tree): equal to 1e-12 relative
    m_file = engine.fit_moments(local.output, demo_sch)
    np.testing.assert_allclose(m_file.acc.covariance, m_dask.acc.covariance, rtol=1e-12)


def test_input_moments_agree_with_in_memory_fit(client, demo_million, demo_sch):
    path, df = demo_million
    got = engine.fit_moments(
        path, demo_sch, partition_rows=250_000, engine="dask", scheduler=client
    )
    local = engine.fit_moments(path, demo_sch, partition_rows=250_000)
    assert np.array_equal(got.acc.m2, local.acc.m2) and np.array_equal(got.acc.mean, local.acc.mean)
    ref = GaussianSynthesizer(demo_sch).fit(df)
    assert (np.abs(got.acc.covariance - ref.cov_) / np.abs(ref.cov_)).max() < 1e-12
    np.testing.assert_allclose(got.acc.mean, ref.mean_, rtol=1e-12)


def test_same_seed_same_rows_with_one_and_two_workers(
    tmp_path, client, client_one, demo_million, demo_sch
):
    _, df = demo_million
    synth = GaussianSynthesizer(demo_sch, chunk_rows=50_000).fit(df.iloc[:100_000])
    outs = []
    for name, c in (("two", client), ("one", client_one)):
        out = tmp_path / name
        engine.sample_partitioned(
            synth, 420_000, out, seed=5, partition_rows=100_000, engine="dask", scheduler=c
        )
        outs.append(pd.read_parquet(out))
        assert [p.rows for p in engine.read_manifest(out).parts] == [100_000] * 4 + [20_000]
    pd.testing.assert_frame_equal(outs[0], outs[1])
    pd.testing.assert_frame_equal(outs[0], synth.sample(420_000, seed=5))


def test_any_synthesizer_samples_a_dataset_part_by_part_alike_on_one_and_two_workers(
    tmp_path, client, client_one, adult_files, adult_mixed_schema
):
    """Chunk i of a non-Gaussian synthesizer is synth.sample(rows_i, seed=child i)."""
    _, frame = adult_files
    synth = PrivBayesSynthesizer(adult_mixed_schema, epsilon=1.0, seed=4).fit(frame)
    outs = []
    for name, c in (("two", client), ("one", client_one), ("local", None)):
        out = tmp_path / name
        manifest = engine.sample_partitioned(
            synth, 4_500, out, seed=9, partition_rows=2_000, chunk_rows=1_000,
            engine="local" if c is None else "dask", scheduler=c,
        )  # fmt: skip
        assert [p.rows for p in manifest.parts] == [2_000, 2_000, 500]
        assert manifest.chunk_rows == 1_000 and "seed" not in manifest.to_dict()
        outs.append(pd.read_parquet(out))
    pd.testing.assert_frame_equal(outs[0], outs[1])
    pd.testing.assert_frame_equal(outs[0], outs[2])
    children = np.random.SeedSequence(9).spawn(5)
    chunks = [synth.sample(1_000, seed=c) for c in children[:4]]
    expected = pd.concat([*chunks, synth.sample(500, seed=children[4])], ignore_index=True)
    pd.testing.assert_frame_equal(outs[0], expected, check_categorical=False)


def test_histograms_and_marginals_on_dask_equal_local(client, adult_files, adult_mixed_schema):
    folder, _ = adult_files
    disc = Discretizer(adult_mixed_schema, bins=20)
    src = str(folder / "adult-*.csv")
    h_local = engine.histograms(src, disc)
    h_dask = engine.histograms(src, disc, engine="dask", scheduler=client)
    for a, b in zip(h_local.counts, h_dask.counts, strict=True):
        np.testing.assert_array_equal(a, b)
    cl = [("sex", "marital-status"), ("age", "fnlwgt", "race")]
    m_local = engine.marginals(src, disc, cl, partition_rows=1)
    m_dask = engine.marginals(src, disc, cl, partition_rows=1, engine="dask", scheduler=client)
    for key in m_local.counts:
        np.testing.assert_array_equal(m_local.counts[key], m_dask.counts[key])
    assert m_dask.rows == 30_155


def test_count_based_fits_on_dask_equal_local(client, adult_files, adult_mixed_schema):
    """PrivBayes, AIM and the copula fit from Dask passes exactly as from local passes."""
    pgm = pytest.importorskip("synthcert.synthesizers.pgm")
    folder, _ = adult_files
    src = str(folder / "adult-*.parquet")
    few = adult_mixed_schema.select(["age", "sex", "race", "marital-status"])
    cases = [
        (PrivBayesSynthesizer, adult_mixed_schema, dict(epsilon=1.0, seed=3)),
        (pgm.AIMSynthesizer, few, dict(epsilon=1.0, rounds=5, pgm_iters=30, seed=2)),
        (GaussianCopulaSynthesizer, adult_mixed_schema, dict(epsilon=1.0, seed=1)),
    ]
    with engine.open_engine("dask", client) as dask_engine:
        for cls, schema, params in cases:
            fits = []
            for eng in ("local", dask_engine):
                synth = cls(schema, **params)
                source = engine.EngineCounts(
                    src, synth.discretizer, engine=eng, partition_rows=5_000
                )
                fits.append(synth.fit_counts(source))
                # 7 rows with a hole: dropped under add/remove neighbours (AIM), publicly
                # filled under replace-one neighbours (PrivBayes, the copula: n is public)
                filled = synth.neighboring.startswith("bounded")
                assert source.rows == (30_162 if filled else 30_155), cls.__name__
            a, b = fits
            assert a.accountant.ledger == b.accountant.ledger
            pd.testing.assert_frame_equal(a.sample(300, seed=1), b.sample(300, seed=1))


def _square_plus(x: int, offset: int = 0) -> int:
    return x * x + offset


def test_parallel_map_and_joblib_backend_keep_order(client):
    assert parallel_map(_square_plus, range(20), scheduler=client) == [x * x for x in range(20)]
    with joblib_backend(client):
        got = joblib.Parallel(n_jobs=-1)(joblib.delayed(_square_plus)(x, 1) for x in range(12))
    assert got == [x * x + 1 for x in range(12)]


def test_cli_release_with_dask_scheduler_address(tmp_path, client, demo_million, demo_sch):
    _, df = demo_million
    small = tmp_path / "small.parquet"
    df.iloc[:100_000].to_parquet(small, index=False)
    schema = tmp_path / "schema.json"
    schema.write_text(demo_sch.to_json())
    runner = CliRunner()
    args = ["release", str(small), "--schema", str(schema), "--seed", str(2**90 + 3), "--json"]
    args += ["--sigma", "1e-3", "--min-rows", "1e5"]
    local = runner.invoke(app, [*args, "--out", str(tmp_path / "l.csv")])
    remote = runner.invoke(
        app,
        [*args, "--out", str(tmp_path / "d") + "/", "--engine", "dask",
         "--scheduler", client.scheduler.address, "--partition-rows", "3e4"],
    )  # fmt: skip
    assert local.exit_code == 0, local.output
    assert remote.exit_code == 0, remote.output
    a, b = json.loads(local.stdout), json.loads(remote.stdout)
    assert {k: v for k, v in a.items() if k not in VOLATILE} == {
        k: v for k, v in b.items() if k not in VOLATILE
    }
    got = pd.read_parquet(tmp_path / "d")
    assert len(got) == 100_000
    np.testing.assert_allclose(got.to_numpy(float), pd.read_csv(tmp_path / "l.csv").to_numpy(float))
    bad = runner.invoke(app, [*args, "--out", str(tmp_path / "x.csv"), "--engine", "spark"])
    assert bad.exit_code == 2 and "unknown engine" in bad.output


def test_cli_dask_without_address_starts_a_loopback_cluster(tmp_path, demo_million, demo_sch):
    _, df = demo_million
    small = tmp_path / "small.parquet"
    df.iloc[:20_000].to_parquet(small, index=False)
    schema = tmp_path / "schema.json"
    schema.write_text(demo_sch.to_json())
    res = CliRunner().invoke(
        app,
        ["release", str(small), "--schema", str(schema), "--out", str(tmp_path / "o.parquet"),
         "--engine", "dask", "--workers", "1", "--sigma", "0.01", "--min-rows", "2e4"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "started a local cluster of 1 workers, dashboard http://127.0.0.1:" in res.output
    assert len(pd.read_parquet(tmp_path / "o.parquet")) == 20_000

"""The certified release: fit, certify, sample, write only the rows."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from synthcert.data.datasets import adult_schema, demo_schema, make_demo_table
from synthcert.data.io import CsvOptions, read_table, write_table
from synthcert.errors import AssumptionError, BudgetError, DataError
from synthcert.privacy.budget import account
from synthcert.release import release

CERT_KEYS = {
    "synthesizer",
    "neighboring",
    "n",
    "d",
    "sigma",
    "sigma_source",
    "bounds_source",
    "alpha",
    "n_out",
    "epsilon_rdp",
    "delta",
    "epsilon",
    "conversion",
    "rows_clipped",
    "rows_dropped_missing",
    "seed",
    "synthcert_version",
    "created",
}


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.parquet"
    write_table(make_demo_table(50_000, seed=5), path)
    return path


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_release_writes_rows_and_certificate_only(demo_file, tmp_path):
    before = sha(demo_file)
    res = release(demo_file, demo_schema(), tmp_path / "syn.csv", seed=1)
    cert = json.loads((tmp_path / "syn.certificate.json").read_text())
    assert set(cert) >= CERT_KEYS
    assert cert["n"] == 50_000 and cert["n_out"] == 50_000 and cert["d"] == 6
    assert cert["sigma_source"] == "data" and cert["bounds_source"] == "public"
    assert any("sigma was taken from the data" in w for w in cert["warnings"])
    out = read_table(tmp_path / "syn.csv")
    assert list(out.columns) == demo_schema().names and len(out) == 50_000
    # only the rows and the certificate: no mean, no covariance anywhere
    assert sorted(p.name for p in tmp_path.iterdir()) == ["syn.certificate.json", "syn.csv"]
    assert not [k for k in cert if "mean" in k or "cov" in k]
    assert not [v for v in cert.values() if isinstance(v, list) and len(v) >= 6]
    assert sha(demo_file) == before
    # the figures are those of the accountant for the same (n, d, sigma)
    ref = account(50_000, 6, cert["sigma"], n_out=50_000, delta=cert["delta"])
    assert cert["epsilon"] == pytest.approx(ref.epsilon, rel=1e-12)
    assert cert["epsilon_rdp"] == pytest.approx(ref.epsilon_rdp, rel=1e-12)
    assert res.certificate.delta == pytest.approx(1 / 50_000**2)


def test_same_seed_same_rows(demo_file, tmp_path):
    release(demo_file, demo_schema(), tmp_path / "a.parquet", seed=9)
    release(demo_file, demo_schema(), tmp_path / "b.parquet", seed=9)
    pd.testing.assert_frame_equal(
        read_table(tmp_path / "a.parquet"), read_table(tmp_path / "b.parquet")
    )


def test_epsilon_budget_releases_the_floor(demo_file, tmp_path):
    sigma = (
        0.9
        * release(demo_file, demo_schema(), tmp_path / "x.csv", n_out=10, seed=0).certificate.sigma
    )
    res = release(
        demo_file, demo_schema(), tmp_path / "b.csv", epsilon=1.0, delta=1e-10, sigma=sigma, seed=0
    )
    k = res.certificate.n_out
    assert k >= 1 and res.certificate.epsilon <= 1.0
    assert res.certificate.sigma_source == "declared"
    one_more = account(50_000, 6, sigma, n_out=k + 1, delta=1e-10)
    assert one_more.epsilon > 1.0
    assert len(read_table(tmp_path / "b.csv")) == k


def test_budget_that_allows_nothing_is_refused(demo_file, tmp_path):
    with pytest.raises(BudgetError, match="allows no record"):
        release(demo_file, demo_schema(), tmp_path / "z.csv", epsilon=1e-9, delta=1e-10)
    assert not (tmp_path / "z.csv").exists()


def test_sigma_above_the_data_is_refused(demo_file, tmp_path):
    with pytest.raises(AssumptionError, match="below the declared sigma"):
        release(demo_file, demo_schema(), tmp_path / "s.csv", sigma=0.9)
    assert not (tmp_path / "s.csv").exists()


def test_alpha_beyond_the_theorem_is_refused(demo_file, tmp_path):
    with pytest.raises(AssumptionError, match="needs α < .* admissible: 1 < α < 44"):
        release(demo_file, demo_schema(), tmp_path / "a.csv", alpha=1e9, n_out=10)


def test_table_too_small_for_the_theorem_is_refused(tmp_path):
    small = tmp_path / "small.csv"
    write_table(make_demo_table(40, seed=1), small)
    with pytest.raises(AssumptionError) as info:
        release(small, demo_schema(), tmp_path / "o.csv", alpha=4)
    assert "n" in str(info.value)


def test_output_equal_to_input_is_refused(demo_file):
    before = sha(demo_file)
    with pytest.raises(DataError, match="is the input file"):
        release(demo_file, demo_schema(), demo_file)
    assert sha(demo_file) == before


def test_private_params_only_on_request(demo_file, tmp_path):
    res = release(
        demo_file,
        demo_schema(),
        tmp_path / "p.csv",
        n_out=5,
        seed=1,
        save_private_params=tmp_path / "private.npz",
    )
    with np.load(res.private_params_path) as params:
        assert params["cov"].shape == (6, 6)


def test_adult_numeric_release(data_home, tmp_path):
    """Issue 2's acceptance case: Adult's six numeric columns, public bounds from examples/."""
    adult = data_home / "adult.data"
    before = sha(adult)
    schema = adult_schema(numeric_only=True)
    res = release(
        adult,
        schema,
        tmp_path / "adult_syn.csv",
        seed=1,
        csv=CsvOptions(header=False, names=schema.csv_names),
    )
    cert = res.certificate
    assert cert.n == 30_162 and cert.n_out == 30_162 and cert.rows_dropped_missing == 2_399
    assert cert.d == 6 and cert.bounds_source == "public" and cert.rows_clipped == 0
    assert np.isfinite(cert.epsilon) and cert.epsilon > 0
    out = read_table(tmp_path / "adult_syn.csv")
    assert len(out) == 30_162
    assert out["age"].between(17, 90).all()
    assert sha(adult) == before

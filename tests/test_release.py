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
from synthcert.workflows import Budget, TableSource
from synthcert.workflows.release import release

CERT_KEYS = {
    "synthesizer",
    "d",
    "sigma",
    "sigma_source",
    "ridge",
    "bounds_source",
    "min_rows",
    "n",
    "epsilon_rdp_per_record",
    "budget",
    "claim",
    "synthcert_version",
    "date",
}
PRIVATE_KEYS = {
    "seed",
    "rows_clipped",
    "rows_dropped_missing",
    "input_sha256",
    "input_file",
    "command",
    "created",
    "lambda_min",
}
SIGMA = 0.02  # the demo generator's public lower bound (about 0.021 measured)


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.parquet"
    write_table(make_demo_table(50_000, seed=5), path)
    return path


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_release_writes_rows_and_certificate_only(demo_file, tmp_path):
    before = sha(demo_file)
    res = release(
        demo_file, demo_schema(), tmp_path / "syn.csv", Budget(sigma=SIGMA, min_rows=50_000)
    )
    cert = json.loads((tmp_path / "syn.certificate.json").read_text())
    assert set(cert) == CERT_KEYS and not set(cert) & PRIVATE_KEYS
    assert cert["min_rows"] == 50_000 and cert["n"] is None
    assert cert["claim"]["n_out"] == 50_000 and cert["d"] == 6
    assert cert["sigma_source"] == "declared" and cert["bounds_source"] == "public"
    claim = cert["claim"]
    assert claim["guarantee"] == "differential privacy" and claim["warnings"] == []
    assert res.record.facts["rows_used"] == 50_000 and res.record.seed_source == "os-entropy"
    out = read_table(tmp_path / "syn.csv")
    assert list(out.columns) == demo_schema().names and len(out) == 50_000
    # only the rows and the certificate: no mean, no covariance anywhere
    assert sorted(p.name for p in tmp_path.iterdir()) == ["syn.certificate.json", "syn.csv"]
    assert not [k for k in cert if "mean" in k or "cov" in k]
    numbers = [
        v for v in cert.values() if isinstance(v, list) and all(isinstance(x, float) for x in v)
    ]
    assert not [v for v in numbers if len(v) >= 6]
    assert sha(demo_file) == before
    # the figures are those of the accountant at the declared (N, d, sigma)
    ref = account(50_000, 6, SIGMA, n_out=50_000, delta=claim["delta"])
    assert claim["epsilon"] == pytest.approx(ref.epsilon, rel=1e-12)
    assert claim["epsilon_rdp"] == pytest.approx(ref.epsilon_rdp, rel=1e-12)
    assert res.certificate.claim.delta == pytest.approx(1 / 50_000**2)


def test_same_secret_seed_same_rows_and_no_seed_different_rows(demo_file, tmp_path):
    budget = Budget(sigma=SIGMA, min_rows=40_000, n_out=2_000)
    secret = 2**100 + 12345
    release(demo_file, demo_schema(), tmp_path / "a.parquet", budget, seed=secret)
    release(demo_file, demo_schema(), tmp_path / "b.parquet", budget, seed=secret)
    release(demo_file, demo_schema(), tmp_path / "c.parquet", budget)
    a, b, c = (read_table(tmp_path / f"{x}.parquet") for x in "abc")
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_epsilon_budget_releases_the_floor(demo_file, tmp_path):
    sigma = 0.9 * SIGMA
    res = release(
        demo_file,
        demo_schema(),
        tmp_path / "b.csv",
        Budget(epsilon=1.0, delta=1e-10, sigma=sigma, min_rows=50_000),
    )
    k = res.certificate.claim.n_out
    assert k >= 1 and res.certificate.claim.epsilon <= 1.0
    assert res.certificate.sigma_source == "declared"
    one_more = account(50_000, 6, sigma, n_out=k + 1, delta=1e-10)
    assert one_more.epsilon > 1.0
    assert len(read_table(tmp_path / "b.csv")) == k


def test_budget_that_allows_nothing_is_refused(demo_file, tmp_path):
    with pytest.raises(BudgetError, match="allows no record"):
        release(
            demo_file,
            demo_schema(),
            tmp_path / "z.csv",
            Budget(epsilon=1e-9, delta=1e-10, sigma=SIGMA, min_rows=50_000),
        )
    assert not (tmp_path / "z.csv").exists()


def test_sigma_above_the_data_is_refused_without_private_values(demo_file, tmp_path):
    with pytest.raises(AssumptionError, match="does not meet the public assumption") as err:
        release(demo_file, demo_schema(), tmp_path / "s.csv", Budget(sigma=0.9, min_rows=50_000))
    assert "smallest eigenvalue 0.0" in err.value.private_detail
    assert "0.02" not in str(err.value) and "x1" not in str(err.value)
    assert not (tmp_path / "s.csv").exists()


def test_sigma_and_min_rows_are_required(demo_file, tmp_path):
    with pytest.raises(AssumptionError, match="needs a PUBLIC sigma"):
        release(demo_file, demo_schema(), tmp_path / "s.csv", Budget(sigma=None, min_rows=10))
    with pytest.raises(AssumptionError, match="--min-rows N"):
        release(demo_file, demo_schema(), tmp_path / "s.csv", Budget(sigma=SIGMA))
    with pytest.raises(AssumptionError, match="fewer usable rows than the declared minimum") as err:
        release(demo_file, demo_schema(), tmp_path / "s.csv", Budget(sigma=SIGMA, min_rows=60_000))
    assert "50000" not in str(err.value) and err.value.private_detail == "50000 rows used"


def test_sigma_from_the_data_publishes_no_figure(demo_file, tmp_path):
    res = release(
        demo_file,
        demo_schema(),
        tmp_path / "d.csv",
        Budget(sigma="data", min_rows=50_000, n_out=100),
    )
    cert = res.certificate
    assert cert.claim.guarantee.startswith("none: an assumption was measured on the data")
    assert (
        cert.claim.epsilon is None and cert.claim.epsilon_rdp is None and cert.claim.alpha is None
    )
    assert cert.sigma is None and cert.sigma_source == "data"
    assert res.record.facts["sigma_measured"] == pytest.approx(0.021, abs=0.002)
    assert res.record.facts["figures_at_measured_sigma"]["epsilon"] > 0
    with pytest.raises(AssumptionError, match="needs a public sigma"):
        release(
            demo_file,
            demo_schema(),
            tmp_path / "e.csv",
            Budget(sigma="data", min_rows=50_000, epsilon=1.0),
        )


def test_alpha_beyond_the_theorem_is_refused(demo_file, tmp_path):
    with pytest.raises(AssumptionError, match="needs α < .* admissible: 1 < α < 4"):
        release(
            demo_file,
            demo_schema(),
            tmp_path / "a.csv",
            Budget(alpha=1e9, n_out=10, sigma=SIGMA, min_rows=50_000),
        )


def test_table_too_small_for_the_theorem_is_refused(tmp_path):
    small = tmp_path / "small.csv"
    write_table(make_demo_table(40, seed=1), small)
    with pytest.raises(AssumptionError) as info:
        release(small, demo_schema(), tmp_path / "o.csv", Budget(alpha=4, sigma=1e-4, min_rows=40))
    assert "n" in str(info.value)


def test_output_equal_to_input_is_refused(demo_file):
    before = sha(demo_file)
    with pytest.raises(DataError, match="is the input file"):
        release(demo_file, demo_schema(), demo_file, Budget(sigma=SIGMA, min_rows=10))
    assert sha(demo_file) == before


def test_private_record_is_0600_and_refused_inside_a_public_folder(demo_file, tmp_path):
    rec = tmp_path / "private" / "run.json"
    res = release(
        demo_file,
        demo_schema(),
        tmp_path / "r.csv",
        Budget(n_out=10, sigma=SIGMA, min_rows=50_000),
        private_record=rec,
    )
    assert (rec.stat().st_mode & 0o777) == 0o600
    doc = json.loads(rec.read_text())
    assert doc["facts"]["rows_used"] == 50_000 and doc["seed_entropy"] == res.record.seed_entropy
    assert int(doc["seed_entropy"]).bit_length() > 100  # 128 bits of OS entropy
    assert doc["input_sha256"] == sha(demo_file) and doc["notice"] == "private: do not publish"
    assert res.record.seed_entropy not in (tmp_path / "r.certificate.json").read_text()
    with pytest.raises(DataError, match="into or beside the public output"):
        release(
            demo_file,
            demo_schema(),
            tmp_path / "ds/",
            Budget(n_out=10, sigma=SIGMA, min_rows=50_000),
            private_record=tmp_path / "ds" / "run.json",
        )


def test_private_params_only_on_request(demo_file, tmp_path):
    res = release(
        demo_file,
        demo_schema(),
        tmp_path / "p.csv",
        Budget(n_out=5, sigma=SIGMA, min_rows=50_000),
        save_private_params=tmp_path / "private" / "params.npz",
    )
    with np.load(res.private_params_path) as params:
        assert params["cov"].shape == (6, 6)
    assert (tmp_path / "private" / "params.npz").stat().st_mode & 0o777 == 0o600


def test_adult_numeric_release(data_home, tmp_path):
    """Issue 2's acceptance case: Adult's six numeric columns, public bounds from examples/."""
    adult = data_home / "adult.data"
    before = sha(adult)
    schema = adult_schema(numeric_only=True)
    csv = CsvOptions(header=False, names=schema.csv_names)
    res = release(
        TableSource(adult, csv=csv),
        schema,
        tmp_path / "adult_syn.csv",
        Budget(sigma=0.01, min_rows=30_000),
    )
    cert, facts = res.certificate, res.record.facts
    assert facts["rows_used"] == 30_162 and facts["rows_dropped_missing"] == 2_399
    assert sum(facts["values_clipped"].values()) == 0
    assert cert.min_rows == 30_000 and cert.claim.n_out == 30_000 and cert.n is None
    assert cert.d == 6 and cert.bounds_source == "public"
    assert np.isfinite(cert.claim.epsilon) and cert.claim.epsilon > 0
    out = read_table(tmp_path / "adult_syn.csv")
    assert len(out) == 30_000
    assert out["age"].between(17, 90).all()
    assert sha(adult) == before


def test_ridged_release_is_unconditional_even_on_a_singular_table(tmp_path):
    """--ridge needs no sigma and no margin: a constant column (lambda_min = 0) is fine."""
    from synthcert.data.schema import NumericColumn, Schema
    from synthcert.privacy.ridge import certify_ridge

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.uniform(0, 10, 5_000), "b": 5.0, "c": rng.uniform(0, 1, 5_000)})
    src = tmp_path / "t.parquet"
    write_table(table, src)
    schema = Schema(
        (NumericColumn("a", 0, 10), NumericColumn("b", 0, 10), NumericColumn("c", 0, 1))
    )
    # with a declared sigma a singular covariance is refused by the neighbour margin's text
    # (issue 25: one refusal per public assumption)
    with pytest.raises(AssumptionError, match="too close to that limit") as info:
        release(src, schema, tmp_path / "x.csv", Budget(sigma=1e-3, min_rows=4_000))
    assert "smallest eigenvalue 0" in info.value.private_detail
    # it names the public width and the way out when no sigma can pass (a new user's survey)
    assert "(d = 3 here)" in str(info.value) and "--param ridge=RHO" in str(info.value)
    res = release(src, schema, tmp_path / "r.csv", Budget(ridge=0.05, min_rows=4_000, n_out=100))
    cert = res.certificate
    ref = certify_ridge(4_000, 3, 0.05, n_out=100, delta=1 / 4_000**2)
    assert cert.claim.epsilon == pytest.approx(ref.epsilon, rel=1e-12) and cert.ridge == 0.05
    assert cert.sigma is None and cert.sigma_source.startswith("none (ridge")
    assert cert.claim.guarantee == "differential privacy"
    assert {a.name for a in cert.claim.assumptions} >= {"ridge", "min_rows", "domain"}
    rows = read_table(tmp_path / "r.csv")
    assert len(rows) == 100 and rows["b"].std() > 0  # the ridge spreads the constant column
    with pytest.raises(AssumptionError, match="not both"):
        release(src, schema, tmp_path / "y.csv", Budget(sigma=1e-3, ridge=0.05, min_rows=4_000))
    budget = release(
        src, schema, tmp_path / "e.csv", Budget(ridge=0.05, min_rows=4_000, epsilon=4.0, delta=1e-8)
    )
    assert budget.certificate.claim.n_out >= 1 and budget.certificate.claim.epsilon <= 4.0

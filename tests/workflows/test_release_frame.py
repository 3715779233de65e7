"""release_frame: the certified release of a frame in memory, for notebooks."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from synthcert import Budget, release_frame
from synthcert.cli import app
from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.io import read_table, write_table
from synthcert.errors import AssumptionError, BudgetError
from synthcert.privacy.budget import account
from synthcert.workflows.release import FrameRelease

SECRET = 2**127 + 91  # a secret, unguessable seed (reproducible runs only)
SIGMA, MIN_ROWS = 0.015, 20_000


@pytest.fixture(scope="module")
def table():
    return make_demo_table(20_000, seed=2)


def test_rows_and_certificate_without_touching_disk(table, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = release_frame(table, demo_schema(), Budget(sigma=SIGMA, min_rows=MIN_ROWS, n_out=500))
    assert isinstance(res, FrameRelease)
    rows, cert = res
    assert list(tmp_path.iterdir()) == []  # nothing written
    assert list(rows.columns) == demo_schema().names and len(rows) == 500
    assert cert.claim.n_out == 500 and cert.min_rows == MIN_ROWS and cert.n is None
    ref = account(MIN_ROWS, 6, SIGMA, n_out=500, delta=1 / MIN_ROWS**2)
    assert cert.claim.epsilon == pytest.approx(ref.epsilon, rel=1e-12)
    assert cert.claim.delta == pytest.approx(1 / MIN_ROWS**2)
    # the private facts stay in the record, never in the certificate
    assert res.record.facts["rows_used"] == 20_000 and res.record.inputs == ()
    assert "rows_used" not in json.dumps(cert.to_dict())
    for name in demo_schema().names:
        col = demo_schema().column(name)
        assert rows[name].between(col.lower, col.upper).all()


def test_same_rows_as_the_cli_release_for_the_same_secret_seed(table, tmp_path):
    write_table(table, tmp_path / "in.parquet")
    (tmp_path / "schema.json").write_text(demo_schema().to_json())
    args = ["release", str(tmp_path / "in.parquet"), "--schema", str(tmp_path / "schema.json")]
    args += ["--out", str(tmp_path / "o.parquet"), "--sigma", str(SIGMA)]
    args += ["--min-rows", str(MIN_ROWS), "--param", "n_out=3000", "--param", f"seed={SECRET}"]
    args += ["--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    cli_cert = json.loads(res.stdout)
    rows, cert = release_frame(
        table, demo_schema(), Budget(sigma=SIGMA, min_rows=MIN_ROWS, n_out=3000), seed=SECRET
    )
    # --json adds the claim and, at the top level, the claim's attack-risk label: both checked
    keep = lambda d: {k: v for k, v in d.items() if k not in ("date", "claim", "risk")}  # noqa: E731
    assert keep(json.loads(json.dumps(cert.to_dict()))) == keep(cli_cert)
    assert cli_cert["claim"] == json.loads(json.dumps(cert.claim.to_dict()))
    assert cli_cert["risk"] == cli_cert["claim"]["risk"]
    assert cert.claim.n_out == len(rows) == 3000
    pd.testing.assert_frame_equal(rows, read_table(tmp_path / "o.parquet"))
    other, _ = release_frame(
        table, demo_schema(), Budget(sigma=SIGMA, min_rows=MIN_ROWS, n_out=100), seed=None
    )
    assert not other.equals(rows.iloc[:100])


def test_refusals_are_those_of_the_release(table):
    schema = demo_schema()
    with pytest.raises(AssumptionError, match="PUBLIC sigma"):
        release_frame(table, schema, Budget(min_rows=10))
    with pytest.raises(AssumptionError, match="--min-rows N"):
        release_frame(table, schema, Budget(sigma=SIGMA))
    with pytest.raises(AssumptionError, match="fewer usable rows"):
        release_frame(table, schema, Budget(sigma=SIGMA, min_rows=30_000))
    with pytest.raises(BudgetError, match="allows no record"):
        release_frame(table, schema, Budget(sigma=SIGMA, min_rows=MIN_ROWS, epsilon=1e-9))
    sized, cert = release_frame(table, schema, Budget(sigma=SIGMA, min_rows=MIN_ROWS, epsilon=2.0))
    ref = account(MIN_ROWS, 6, SIGMA, n_out=cert.claim.n_out + 1, delta=1 / MIN_ROWS**2)
    assert len(sized) == cert.claim.n_out >= 1 and cert.claim.epsilon <= 2.0 < ref.epsilon


def test_the_certificate_holds_its_claim(table):
    """``NAME.certificate.json`` publishes the claim under the key ``claim`` (one key set with
    every command's ``--json``) beside the release's public facts, none of them a claim field."""
    from synthcert.privacy.claims import PrivacyClaim
    from synthcert.results import Certificate

    rows, cert = release_frame(
        table, demo_schema(), Budget(sigma=SIGMA, min_rows=MIN_ROWS, epsilon=8.0, delta=1e-9),
        seed=SECRET,
    )  # fmt: skip
    facts = set(cert.__dataclass_fields__) - {"claim"}
    assert not facts & set(PrivacyClaim.__dataclass_fields__)
    doc = json.loads(json.dumps(cert.to_dict()))
    assert doc["claim"] == json.loads(json.dumps(cert.claim.to_dict()))
    assert Certificate.from_dict(doc) == cert
    assert cert.claim.epsilon <= 8.0 and cert.claim.is_guarantee
    assert cert.claim.neighboring == "unbounded" and cert.claim.n_out == len(rows)

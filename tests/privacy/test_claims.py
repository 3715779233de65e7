"""The privacy claim, the certificate and the run record read back what they wrote."""

from __future__ import annotations

import json
import math

import pytest

from synthcert.privacy.claims import (
    DATA_DOMAIN,
    GUARANTEE,
    Assumption,
    PrivacyClaim,
    domain_assumption,
    dp_claim,
    no_privacy_claim,
)
from synthcert.run_record import RunRecord
from synthcert.workflows.release import Certificate


def _claim(**kw) -> PrivacyClaim:
    base = dict(
        epsilon=1.0, delta=1e-6, rho=0.01, neighboring="unbounded", n_out=100,
        mechanisms=("b", "a", "a"), assumptions=(domain_assumption("public", []),),
    )  # fmt: skip
    return dp_claim(**{**base, **kw})


def test_claim_round_trips_through_json():
    claim = _claim()
    again = PrivacyClaim.from_dict(json.loads(json.dumps(claim.to_dict())))
    assert again == claim and again.mechanisms == ("a", "b")  # sorted, duplicates dropped
    assert isinstance(again.assumptions[0], Assumption) and again.is_guarantee


def test_claim_models_and_guarantees():
    assert _claim(delta=0.0, rho=None).model == "pure-dp"
    assert _claim().model == "zcdp" and _claim(rho=None).model == "approx-dp"
    data = _claim(assumptions=(domain_assumption("data", ["age"]),))
    assert data.guarantee == DATA_DOMAIN and not data.is_guarantee
    assert "age" in data.assumptions[0].value
    none = no_privacy_claim(5)
    assert none.model == "none" and none.epsilon is None and not none.is_guarantee
    assert _claim().guarantee == GUARANTEE


def test_unknown_keys_are_refused_and_infinities_read_back():
    with pytest.raises(ValueError, match="no field"):
        PrivacyClaim.from_dict({**_claim().to_dict(), "seed": 7})
    claim = _claim(epsilon=math.inf)
    assert PrivacyClaim.from_dict(claim.to_dict()).epsilon == math.inf


def test_certificate_and_run_record_round_trip(tmp_path):
    from synthcert.data.datasets import demo_schema, make_demo_table
    from synthcert.data.io import write_table
    from synthcert.workflows import Budget
    from synthcert.workflows.release import release

    src = tmp_path / "d.parquet"
    write_table(make_demo_table(20_000, seed=1), src)
    res = release(
        src, demo_schema(), tmp_path / "o.csv", Budget(sigma=0.01, min_rows=20_000, n_out=50)
    )
    cert = Certificate.from_dict(json.loads((tmp_path / "o.certificate.json").read_text()))
    assert cert == res.certificate and cert.claim == res.certificate.claim
    assert RunRecord.from_dict(json.loads(json.dumps(res.record.to_dict()))) == res.record

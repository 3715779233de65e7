"""The audit workflow: the audit package's game, its files, and refusals before any work."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthcert.audit import audit_summary, run_audit
from synthcert.data.schema import NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.workflows import Execution, TableSource
from synthcert.workflows.audit import audit

SCHEMA = Schema((NumericColumn("a", 0.0, 10.0), NumericColumn("b", 0.0, 10.0)))
GAME = {"attacks": "distance,statistics", "trials": 1, "generations": 8, "seed": 3}


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(0)
    X = np.clip(rng.normal(4.0, 1.0, size=(149, 2)), 0.5, 7.5)
    df = pd.DataFrame(np.vstack([X, [9.8, 9.8]]), columns=["a", "b"])
    df.to_csv(tmp_path / "in.csv", index=False)
    return df, tmp_path / "in.csv"


def test_same_figures_as_the_audit_package_and_files_written(table, tmp_path):
    _, path = table
    seen = []
    run = audit(
        TableSource(path), SCHEMA, "gaussian", tmp_path / "out",
        execution=Execution(progress=lambda stage, done, total: seen.append(stage)),
        report=tmp_path / "audit.html", **GAME,
    )  # fmt: skip
    ref = run_audit(pd.read_csv(path), SCHEMA, "gaussian", **GAME)
    assert run.result.target_row == ref.target_row == 149
    for name, score in ref.attacks.items():
        assert run.result.attacks[name].auc == pytest.approx(score.auc, abs=1e-12)
    assert set(run.files) == {"result", "at_risk", "ims", "histograms", "roc", "report"}
    written = json.loads((tmp_path / "out" / "result.json").read_text())
    assert written == json.loads(json.dumps(audit_summary(run.result)))
    doc = run.summary()
    assert "ims" not in doc and doc["files"]["report"] == str(tmp_path / "audit.html")
    assert set(seen) == {"audit"}
    assert "do not publish" in (tmp_path / "audit.html").read_text().lower()


def test_an_output_over_the_input_is_refused_before_the_game(table, tmp_path):
    df, _ = table
    (tmp_path / "out").mkdir()
    victim = tmp_path / "out" / "at_risk.csv"
    df.to_csv(victim, index=False)
    before = victim.read_bytes()
    with pytest.raises(DataError, match="is the input file"):
        audit(victim, SCHEMA, "gaussian", tmp_path / "out", **GAME)
    assert victim.read_bytes() == before and not (tmp_path / "out" / "result.json").exists()

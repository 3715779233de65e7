"""``synthcert release``, ``schema infer`` and ``demo`` from the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.io import read_table, write_table
from synthcert.privacy.claims import PrivacyClaim

runner = CliRunner()
PUBLIC = ["--sigma", "0.015", "--min-rows", "20000"]  # the demo generator's public facts
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    write_table(make_demo_table(20_000, seed=2), root / "in.csv")
    (root / "schema.json").write_text(demo_schema().to_json())
    return root


def test_release_json_certificate(files, tmp_path):
    out = tmp_path / "o.parquet"
    res = runner.invoke(
        app,
        [
            "release",
            str(files / "in.csv"),
            "--schema",
            str(files / "schema.json"),
            "--out",
            str(out),
            "--param",
            "n_out=1e3",
            *PUBLIC,
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    cert = json.loads(res.stdout)
    assert cert["min_rows"] == 20_000 and cert["n"] is None
    assert "seed" not in cert and "rows_dropped_missing" not in cert
    claim = cert["claim"]  # the claim the certificate states, under one key
    assert claim["n_out"] == 1000 and claim["epsilon"] > 0
    assert PrivacyClaim.from_dict(claim).to_dict() == claim
    risk = cert.pop("risk")  # --json adds the claim's attack-risk label (issue 29)
    assert risk == claim["risk"]
    assert set(risk["tpr_at_fpr"]) == {"0.01", "0.05"}
    assert json.loads((tmp_path / "o.certificate.json").read_text()) == cert
    assert len(read_table(out)) == 1000


def test_release_human_summary(files, tmp_path):
    res = runner.invoke(
        app,
        [
            "release",
            str(files / "in.csv"),
            "--schema",
            str(files / "schema.json"),
            "--out",
            str(tmp_path / "o.csv"),
            "--epsilon",
            "4",
            "--delta",
            "1e-5",
            "--neighboring",
            "bounded",
            "--sigma",
            "0.015",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "rows released" in res.output and "bounded" in res.output
    assert "table size (public, bounded)" in res.output and "20,000" in res.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--sigma", "0.5", "--min-rows", "100"], "does not meet the public assumption"),
        ([*PUBLIC, "--alpha", "1e6"], "needs α <"),
        ([*PUBLIC, "--epsilon", "1e-9", "--delta", "1e-10"], "allows no record"),
        ([*PUBLIC, "--n-out", "2.5"], "not a non-negative whole number"),
        (["--min-rows", "100"], "needs a PUBLIC sigma"),
        (["--sigma", "0.015"], "--min-rows N"),
    ],
)
def test_release_refusals_exit_cleanly(files, tmp_path, extra, message):
    res = runner.invoke(
        app,
        [
            "release",
            str(files / "in.csv"),
            "--schema",
            str(files / "schema.json"),
            "--out",
            str(tmp_path / "o.csv"),
            *extra,
        ],
    )
    assert res.exit_code == 2
    assert message in " ".join(res.output.split())
    assert "Traceback" not in res.output and "do not publish" not in res.output
    assert not (tmp_path / "o.csv").exists()


def test_refusal_details_only_behind_show_private(files, tmp_path):
    args = ["release", str(files / "in.csv"), "--schema", str(files / "schema.json")]
    args += ["--out", str(tmp_path / "o.csv"), "--sigma", "0.5", "--min-rows", "100"]
    quiet = runner.invoke(app, args)
    loud = runner.invoke(app, [*args, "--show-private"])
    assert quiet.exit_code == loud.exit_code == 2
    assert "smallest eigenvalue 0.0" not in " ".join(quiet.output.split())
    text = " ".join(loud.output.split())
    assert "private: do not publish" in text and "smallest eigenvalue 0.0" in text


def test_release_adult_with_example_schema(data_home, tmp_path):
    res = runner.invoke(
        app,
        [
            "release",
            str(data_home / "adult.data"),
            "--schema",
            str(EXAMPLES / "adult_numeric_schema.json"),
            "--no-header",
            "--out",
            str(tmp_path / "adult.csv"),
            "--sigma",
            "0.01",
            "--min-rows",
            "30000",
            "--private-record",
            str(tmp_path / "private" / "run.json"),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    cert = json.loads(res.stdout)
    assert (cert["min_rows"], cert["claim"]["n_out"], cert["n"]) == (30_000, 30_000, None)
    private = json.loads((tmp_path / "private" / "run.json").read_text())
    assert (private["facts"]["rows_used"], private["facts"]["rows_dropped_missing"]) == (
        30_162,
        2_399,
    )


def test_schema_infer_marks_data_bounds(files):
    res = runner.invoke(app, ["schema", "infer", str(files / "in.csv")])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert {c["source"] for c in doc["columns"]} == {"data"}


QUICK_DEMO = ["--rows", "100000", "--aim-rows", "2000", "--audit-runs", "6"]


def test_demo_runs(tmp_path):
    res = runner.invoke(app, ["demo", "--out", str(tmp_path), *QUICK_DEMO, "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    full, budgeted = doc["all_rows"]["claim"], doc["budget_eps1"]["claim"]
    assert full["n_out"] == 100_000  # each release carries the claim it states
    assert 0 < budgeted["n_out"] < 100_000 and budgeted["epsilon"] <= 1
    # the AIM step is gated: its result carries the audit of its exact configuration
    aim = doc["aim"]
    assert aim["synthesizer"] == "aim" and aim["rows_out"] == 2000
    assert aim["claim"]["epsilon"] == pytest.approx(1.0) and aim["claim"]["delta"] == 1e-6
    gate = aim["audit_gate"]
    assert gate["runs"] == 6 and gate["claimed_epsilon"] == pytest.approx(1.0)
    assert not gate["violation"]
    # the steward's three numbers, and the public report that draws the audit's point
    steward = doc["steward"]
    assert steward["rows_released"] == 2000
    assert (steward["epsilon"], steward["delta"]) == (aim["claim"]["epsilon"], 1e-6)
    tpr = aim["claim"]["risk"]["tpr_at_fpr"]["0.01"]
    assert steward["tpr_at_1pct"] == tpr and 0.01 < tpr <= math.e * 0.01 + 1e-6
    assert steward["risk_sentence"] == aim["claim"]["risk"]["sentence"]
    report = Path(steward["report"])
    assert report == tmp_path / "report.html"
    assert "worst-case audit (aim, 6 runs per side" in report.read_text()
    # the utility evaluation is internal: it stays under private/
    assert doc["evaluation"] and all(
        Path(f).is_relative_to(tmp_path / "private") for f in doc["evaluation"]
    )


def test_demo_prints_the_stewards_numbers(tmp_path, monkeypatch):
    from synthcert.cli import _common

    monkeypatch.setattr(_common.console, "width", 240)  # no wrapping inside the table's cells
    res = runner.invoke(app, ["demo", "--out", str(tmp_path), *QUICK_DEMO])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "gated by the worst-case audit" in out and "(6 runs per side" in out
    assert f"public report │ {tmp_path / 'report.html'}" in out
    assert "rows released │ 2,000" in out
    assert "guarantee     │ (1, 1e-06)-DP" in out
    assert "wrongly accuses at most 1 in 100 people, correctly detects at most" in out


def test_demo_refused_by_its_gate_reads_no_data(tmp_path, monkeypatch):
    from synthcert.errors import BudgetError
    from synthcert.workflows import audit_gate

    def refute(*args, **kwargs):
        raise BudgetError("the worst-case audit refutes the claim")

    monkeypatch.setattr(audit_gate, "audit_gate", refute)
    res = runner.invoke(app, ["demo", "--out", str(tmp_path), *QUICK_DEMO])
    assert res.exit_code != 0
    assert "refutes the claim" in res.output
    assert not (tmp_path / "aim_input.parquet").exists()
    assert not (tmp_path / "synthetic_aim_eps1.csv").exists()
    assert not (tmp_path / "report.html").exists()


@pytest.mark.slow
def test_make_demo_settings_run_gated(tmp_path):
    """The demo as `make demo` runs it (100 audit runs, 20,000 AIM rows)."""
    res = runner.invoke(app, ["demo", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["aim"]["audit_gate"]["runs"] == 100 and not doc["aim"]["audit_gate"]["violation"]
    assert doc["steward"]["rows_released"] == 20_000


def test_release_writes_its_report(files, tmp_path):
    report = tmp_path / "report.html"
    res = runner.invoke(
        app,
        [
            "release",
            str(files / "in.csv"),
            "--schema",
            str(files / "schema.json"),
            "--out",
            str(tmp_path / "o.csv"),
            "--n-out",
            "500",
            *PUBLIC,
            "--report",
            str(report),
        ],
    )
    assert res.exit_code == 0, res.output
    html = report.read_text()
    assert "<html" in html and "Privacy certificate" in html and "500" in html

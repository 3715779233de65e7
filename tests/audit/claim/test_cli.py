"""``synthcert audit-claim`` from the command line: no table read, public output, figure."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema

runner = CliRunner()
KEYS = {
    "claimed_epsilon", "claimed_mu", "delta", "epsilon_lower_bound", "mu_lower_bound",
    "ceiling", "violation", "runs", "statistic", "confidence", "synthesizer", "design",
    "gap_test", "gap_mechanism_runs",
}  # fmt: skip


@pytest.fixture()
def schema_file(tmp_path):
    schema = Schema((NumericColumn("age", 17, 90), CategoricalColumn("sex", ("F", "M"))))
    path = tmp_path / "schema.json"
    path.write_text(schema.to_json())
    return path


def _no_table_reads(monkeypatch):
    """Make every table reader fail: the audit must not need one."""
    import pandas as pd

    import synthcert.data.io as io

    def refuse(*args, **kwargs):
        raise AssertionError("audit-claim read a table")

    for name in ("read_table", "iter_table_chunks"):
        monkeypatch.setattr(io, name, refuse)
    for name in ("read_csv", "read_parquet"):
        monkeypatch.setattr(pd, name, refuse)


def test_json_has_the_documented_keys_and_reads_no_table(schema_file, monkeypatch, tmp_path):
    _no_table_reads(monkeypatch)
    out = tmp_path / "audit"
    res = runner.invoke(
        app,
        [
            "audit-claim", "--schema", str(schema_file), "--synthesizer", "privbayes",
            "--epsilon", "1", "--runs", "12", "--samples", "20", "--workers", "1",
            "--out", str(out), "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert set(payload) >= KEYS
    assert payload["claimed_epsilon"] == 1.0 and payload["delta"] == 0.0
    assert payload["runs"] == 12 and payload["statistic"] == "white-box"
    assert payload["design"] == "domain" and payload["public"].startswith("public")
    assert json.loads((out / "result.json").read_text()) == payload
    assert (out / "tradeoff.png").read_bytes()[:4] == b"\x89PNG"


def test_the_result_is_the_same_for_the_same_public_inputs(schema_file):
    args = [
        "audit-claim", "--schema", str(schema_file), "--synthesizer", "gaussian-copula",
        "--epsilon", "2", "--claimed-epsilon", "1", "--runs", "8", "--samples", "10",
        "--workers", "1", "--seed", "4", "--json",
    ]  # fmt: skip
    first, second = runner.invoke(app, args), runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    a.pop("seconds"), b.pop("seconds")
    assert a == b and a["claimed_epsilon"] == 1.0


def test_console_output_names_the_gaps(schema_file):
    res = runner.invoke(
        app,
        [
            "audit-claim", "--design", "anchor", "--synthesizer", "privbayes", "--epsilon",
            "1", "--runs", "8", "--samples", "0", "--workers", "1",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "ceiling" in res.output and "gap: the test" in res.output
    assert "public" in res.output


@pytest.mark.parametrize(
    "extra",
    [
        ["--synthesizer", "privbayes"],  # no --schema with the domain design
        ["--synthesizer", "privbayes", "--design", "anchor", "--statistic", "grey"],
        ["--synthesizer", "privbayes", "--design", "anchor", "--engine", "spark"],
    ],
)
def test_bad_options_exit_2(extra):
    res = runner.invoke(app, ["audit-claim", "--epsilon", "1", "--runs", "4", *extra])
    assert res.exit_code == 2


def test_help_says_the_result_is_public_and_gives_the_default_runs():
    res = runner.invoke(app, ["audit-claim", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "PUBLIC" in text and "Default 1000" in text and "NOT secret" in text


def test_the_audit_command_is_still_there():
    res = runner.invoke(app, ["audit", "--help"])
    assert res.exit_code == 0 and "--trials" in res.output


def test_the_certified_gaussian_release_is_audited_on_the_theorem_pair(tmp_path):
    res = runner.invoke(
        app,
        [
            "audit-claim", "--synthesizer", "gaussian", "--runs", "400", "--param", "n_out=50",
            "--out", str(tmp_path), "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["design"] == "theorem-pair" and payload["delta"] == 0.01
    # the certificate's epsilon is the claim; the pair's profile caps the ceiling below it
    assert payload["ceiling"] < payload["claimed_epsilon"] and not payload["violation"]
    assert (tmp_path / "tradeoff.png").exists()

"""`synthcert synthesize --private-domain SHARE`: a DP domain paid from the budget."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.cli.synthesize_commands import parse_domain_ranges
from synthcert.data.schema import infer_schema

runner = CliRunner()
N = 20_000


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """A table and the schema `schema infer` drafts from it (every part data-derived)."""
    folder = tmp_path_factory.mktemp("domain")
    rng = np.random.default_rng(17)
    z = rng.normal(size=(N, 2))
    table = pd.DataFrame(
        {
            "age": np.clip(np.round(45 + 12 * z[:, 0]), 17, 90).astype(int),
            "wage": np.exp(6.0 + 0.7 * (0.6 * z[:, 0] + 0.8 * z[:, 1])),
            "region": rng.choice(["north", "south", "east"], N, p=[0.5, 0.3, 0.2]),
        }
    )
    table.to_csv(folder / "t.csv", index=False)
    res = runner.invoke(app, ["schema", "infer", str(folder / "t.csv"), "--public-kinds",
                              "--out", str(folder / "s.json")])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert infer_schema(table).bounds_source == "data"
    return folder


def synth(files: Path, tmp_path: Path, *extra: str) -> tuple[int, str]:
    args = ["synthesize", str(files / "t.csv"), "--schema", str(files / "s.json"),
            "--out", str(tmp_path / "syn.csv"),
            "--private-record", str(tmp_path / "private" / "rec.json"), *extra]  # fmt: skip
    res = runner.invoke(app, args)
    return res.exit_code, " ".join(res.output.split())


@pytest.mark.parametrize("name", ["gaussian-copula", "privbayes"])
def test_private_domain_claims_the_total_and_records_the_split(files, tmp_path, name):
    code, out = synth(files, tmp_path, "--synthesizer", name, "--epsilon", "4", "--delta",
                      "1e-6", "--private-domain", "0.25", "--json")  # fmt: skip
    assert code == 0, out
    summary = json.loads(out)
    claim = summary["claim"]
    assert summary["private_domain"] == 0.25
    assert claim["guarantee"] == "differential privacy"
    assert (claim["epsilon"], claim["delta"], claim["model"]) == (4.0, 1e-6, "approx-dp")
    assert claim["warnings"] == []  # 20,000 rows: above reliable_rows at 0.2 per quantile
    assert summary["params"]["epsilon"] == pytest.approx(3.0)  # the synthesizer's part
    assert any("DP quantiles" in m for m in claim["mechanisms"])
    assert any("stability histogram" in m for m in claim["mechanisms"])
    record = json.loads((tmp_path / "private" / "rec.json").read_text())
    ledger = record["ledger"]
    domain = [e for e in ledger if e["step"] == "domain"]
    fit = [e for e in ledger if e["step"] == "synthesizer"]
    assert len(domain) == 2 * 2 + 1
    assert sum(e["epsilon"] for e in domain) == pytest.approx(1.0)
    assert sum(e["delta"] for e in domain) == pytest.approx(1e-6)
    assert sum(e["epsilon"] for e in fit) == pytest.approx(3.0)
    assert record["facts"]["budget_split"]["domain_epsilon"] == pytest.approx(1.0)
    rows = pd.read_csv(tmp_path / "syn.csv")
    assert len(rows) == N
    # values below the DP threshold are the column's missing level: nullable in the DP schema
    assert set(rows["region"].dropna()) <= {"north", "south", "east"}
    # the DP bounds hold the bulk of the data: the synthetic medians stay near the real ones
    assert abs(rows["age"].median() - 45) < 6
    assert 250 < rows["wage"].median() < 700


def test_console_shows_the_domain_row(files, tmp_path):
    code, out = synth(files, tmp_path, "--synthesizer", "gaussian-copula", "--epsilon", "2",
                      "--delta", "1e-6", "--private-domain", "0.25",
                      "--domain-range", "age=0:120")  # fmt: skip
    assert code == 0, out
    assert "DP estimate from 0.25 of epsilon" in out and "differential privacy" in out
    assert "reliable from about" in out  # 0.1 per quantile on 20,000 rows: warned


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--private-domain", "0.2"], "give --epsilon"),
        (["--epsilon", "1", "--private-domain", "1.5"], "in (0, 1)"),
        (["--epsilon", "1", "--private-domain", "0.2"], "needs delta > 0"),
        (
            ["--epsilon", "1", "--delta", "1e-6", "--private-domain", "0.2", "--allow-data-domain"],
            "exclude each other",
        ),
        (
            [
                "--epsilon",
                "1",
                "--delta",
                "1e-6",
                "--private-domain",
                "0.2",
                "--domain-range",
                "region=0:1",
            ],
            "not a numeric column",
        ),
        (["--epsilon", "1", "--delta", "1e-6", "--domain-range", "age=0:1"], "only"),
        (["--epsilon", "1", "--delta", "1e-6"], "--private-domain"),  # the refusal names it
    ],
)
def test_refusals_are_clear(files, tmp_path, extra, message):
    code, out = synth(files, tmp_path, "--synthesizer", "privbayes", *extra)
    assert code != 0
    assert message in out, out
    assert not (tmp_path / "syn.csv").exists()


def test_parse_domain_ranges():
    assert parse_domain_ranges(["age=0:120", "x=-1e3:-5"]) == {
        "age": (0.0, 120.0),
        "x": (-1000.0, -5.0),
    }
    assert parse_domain_ranges(None) == {}
    for bad in ["age", "age=0", "=0:1", "age=:1"]:
        with pytest.raises(Exception, match="COL=LO:HI"):
            parse_domain_ranges([bad])

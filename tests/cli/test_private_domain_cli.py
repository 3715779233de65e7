"""`synthcert synthesize --private-domain SHARE`: a DP domain paid from the budget."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.cli.synthesize_commands import parse_domain_ranges, parse_domain_shares
from synthcert.data.schema import Schema
from synthcert.privacy.domain import stability_threshold, threshold_scale

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
    assert Schema.load(folder / "s.json").bounds_source == "data"
    return folder


def synth(files: Path, tmp_path: Path, *extra: str) -> tuple[int, str]:
    args = ["synthesize", str(files / "t.csv"), "--schema", str(files / "s.json"),
            "--out", str(tmp_path / "syn.csv"),
            "--private-record", str(tmp_path / "private" / "rec.json"), *extra]  # fmt: skip
    res = runner.invoke(app, args)
    # stdout alone with --json (the pre-run lines of --private-domain go to stderr)
    text = res.stdout if "--json" in extra and res.exit_code == 0 else res.output
    return res.exit_code, " ".join(text.split())


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
        (["--epsilon", "1", "--delta", "1e-6"], "--param private_domain"),  # the refusal names it
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


def test_parse_domain_shares():
    assert parse_domain_shares(["age=0.5", "region=1e-1"]) == {"age": 0.5, "region": 0.1}
    assert parse_domain_shares(None) == {}
    for bad in [["age"], ["=0.1"], ["age="], ["age=0.1", "age=0.2"]]:
        with pytest.raises(Exception, match="COL=SHARE|twice"):
            parse_domain_shares(bad)


BASE = ["--synthesizer", "privbayes", "--epsilon", "1", "--delta", "1e-6", "--private-domain",
        "0.2"]  # fmt: skip


@pytest.mark.parametrize(
    ("shares", "message"),
    [
        (["nope=0.1"], "not a column"),
        (["region=0"], "must be > 0"),
        (["region=-1"], "must be > 0"),
        (["age=0.6", "region=0.6"], "sum to 1.2"),
        (["age=0.5", "wage=0.2", "region=0.3"], None),  # all three declared: accepted
    ],
)
def test_domain_shares_are_checked_before_any_work(files, tmp_path, shares, message):
    extra = [x for s in shares for x in ("--domain-share", s)]
    code, out = synth(files, tmp_path, *BASE, *extra)
    if message is None:
        assert code == 0, out
        return
    assert code == 2 and message in out, out
    assert not (tmp_path / "syn.csv").exists()


def test_public_column_and_share_without_private_domain_are_refused(files, tmp_path):
    schema = json.loads((files / "s.json").read_text())
    for col in schema["columns"]:
        if col["name"] == "age":
            col["source"] = "public"
    (tmp_path / "s.json").write_text(json.dumps(schema))
    args = ["synthesize", str(files / "t.csv"), "--schema", str(tmp_path / "s.json"),
            "--out", str(tmp_path / "syn.csv"), *BASE, "--domain-share", "age=0.1"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "public: it needs no budget" in " ".join(res.output.split())
    code, out = synth(files, tmp_path, "--synthesizer", "privbayes", "--epsilon", "1",
                      "--domain-share", "age=0.1")  # fmt: skip
    assert code == 2 and "used by private_domain only" in out, out


def test_the_rows_each_column_needs_are_printed_before_the_fit(files, tmp_path):
    code, out = synth(files, tmp_path, *BASE, "--domain-share", "region=0.5")
    assert code == 0, out
    assert "private_domain needs, per data-derived column:" in out
    assert "age: two DP quantiles at epsilon 0.025 each; bounds reliable from about" in out
    t = stability_threshold(threshold_scale(0.1, "bounded"), 1e-6)  # one list: all of delta
    assert f"region: DP category list at epsilon 0.1; a category needs about {t} records" in out
    assert out.index("needs, per data-derived column") < out.index("synthcert synthesize")


# -- a wide table: 50 columns as issue 27 describes them ----------------------------------------
def wide_table(n: int, seed: int = 5) -> pd.DataFrame:
    """Ten lognormal amounts, ten Poisson counts, eight numeric columns missing 2-86 %, a
    Zipf-distributed 50-level "state", ten small categoricals, six correlated scores and five
    integer codes."""
    rng = np.random.default_rng(seed)
    cols: dict[str, np.ndarray] = {}
    for i in range(10):
        cols[f"amount{i}"] = np.round(rng.lognormal(8 + 0.1 * i, 1.2, n), 2)
    for i in range(10):
        cols[f"count{i}"] = rng.poisson(1 + i, n)
    for i, p in enumerate([0.02, 0.1, 0.2, 0.35, 0.5, 0.77, 0.8, 0.86]):
        v = rng.normal(50, 10, n).round(1)
        v[rng.random(n) < p] = np.nan
        cols[f"opt{i}"] = v
    zipf = np.arange(1, 51) ** -1.1
    cols["state"] = np.array([f"S{k:02d}" for k in range(1, 51)])[
        rng.choice(50, n, p=zipf / zipf.sum())
    ]
    for i in range(10):
        k = 2 + i % 5
        cols[f"cat{i}"] = np.array([f"c{j}" for j in range(k)])[rng.integers(0, k, n)]
    base = rng.normal(size=n)
    for i in range(6):
        cols[f"score{i}"] = np.round(600 + 50 * (0.7 * base + 0.7 * rng.normal(size=n)))
    for i in range(5):
        cols[f"code{i}"] = rng.integers(100, 120 + 10 * i, n)
    return pd.DataFrame(cols)


def run_wide(tmp_path: Path, n: int, share: str) -> None:
    """schema infer, then privbayes at --private-domain 0.2, delta 1e-6, epsilon 1: the run
    completes; every state held by >= 500 records is kept; the columns whose lists kept fewer
    than two values are named in a warning and absent from the output."""
    table = wide_table(n)
    table.to_csv(tmp_path / "w.csv", index=False)
    res = runner.invoke(app, ["schema", "infer", str(tmp_path / "w.csv"), "--public-kinds", "--out",
                              str(tmp_path / "s.json")])  # fmt: skip
    assert res.exit_code == 0, res.output
    args = ["synthesize", str(tmp_path / "w.csv"), "--schema", str(tmp_path / "s.json"),
            "--out", str(tmp_path / "syn.csv"), *BASE, "--domain-share", f"state={share}",
            "--private-record", str(tmp_path / "private" / "rec.json")]  # fmt: skip
    res = runner.invoke(app, args)
    out = " ".join(res.output.split())
    assert res.exit_code == 0, out
    assert "numeric columns: bounds reliable from about" in out  # the summary (> 10 columns)
    assert "state: DP category list at epsilon" in out
    rows = pd.read_csv(tmp_path / "syn.csv")
    assert len(rows) == n
    frequent = {k for k, v in table["state"].value_counts().items() if v >= 500}
    assert len(frequent) >= 1 and frequent <= set(rows["state"].dropna())
    schema = json.loads((tmp_path / "s.json").read_text())
    categorical = [c["name"] for c in schema["columns"] if c["kind"] == "categorical"]
    gone = [c for c in categorical if c not in rows.columns]
    assert "state" not in gone and gone  # the other lists, at ~0.0013 each, keep nothing
    assert f"list of {', '.join(gone)} kept fewer than two values" in out
    record = json.loads((tmp_path / "private" / "rec.json").read_text())
    domain = [e for e in record["ledger"] if e["step"] == "domain"]
    assert sum(e["epsilon"] for e in domain) == pytest.approx(0.2)


def test_a_wide_table_runs_through_with_a_share_for_its_zipf_column(tmp_path):
    """3,000 rows: the threshold does not depend on n, so the states with >= 500 records are
    kept as on 10,000 rows (``state`` gets 0.9 of the domain budget: T about 175)."""
    run_wide(tmp_path, 3_000, "0.9")


@pytest.mark.slow
def test_a_wide_table_of_ten_thousand_rows(tmp_path):
    """Issue 27's shape: 10,000 rows x 50 columns; ``state`` gets half the domain budget."""
    run_wide(tmp_path, 10_000, "0.5")


# -- the fallback publishes the same bytes on neighbouring tables ------------------------------
def boundary_harness():
    """The neighbour harness of tests/test_publication_boundary.py."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    return importlib.import_module("test_publication_boundary")


def test_the_fallback_publishes_the_same_files_for_every_neighbour(tmp_path, monkeypatch):
    """``region`` gets 1 % of the domain budget: its list keeps nothing, so it is dropped by
    the fallback rule; every neighbour (schema drafted from each table) publishes the same
    files, stdout (the claim's warning included) and stderr, and the rows have the same
    columns."""
    from synthcert.data.infer import draft_schema

    h = boundary_harness()
    args = ["synthesize", "--synthesizer", "privbayes", "--epsilon", "2", "--delta", "1e-6",
            "--private-domain", "0.4", "--domain-share", "income=0.33", "--domain-share",
            "age=0.33", "--domain-share", "score=0.33"]  # fmt: skip
    table = h.base_table()

    def run_inferred(kind: str, t: pd.DataFrame) -> dict:
        monkeypatch.setattr(h, "SCHEMA", draft_schema(t).schema.with_public_kinds())
        return h.run(tmp_path / kind, t, args, "s.parquet")

    base = run_inferred("D", table)
    assert "refused" not in base, base.get("refused")
    warned = json.loads(base["stdout"])["claim"]["warnings"]
    assert any("list of region kept fewer than two values" in w for w in warned), warned
    assert "region: DP category list at epsilon 0.008" in base["stderr"]  # before the fit
    assert list(base["rows"].columns) == ["income", "age", "score"]
    kinds = h.drafted_kinds(h.SCHEMA)
    for kind in h.SAME_SIZE:  # each neighbour drafts D's kinds (declared public after review)
        other = run_inferred(kind, h.neighbour(table, kind))
        assert h.drafted_kinds(h.SCHEMA) == kinds, kind
        h.assert_same_publication(base, other, kind)
        assert list(other["rows"].columns) == ["income", "age", "score"], kind

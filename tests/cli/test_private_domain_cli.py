"""`synthcert synthesize --private-domain SHARE`: a DP domain paid from the budget."""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner
from wide_table import small_wide_table, wide_table

from synthcert.cli import app
from synthcert.cli.synthesize_commands import parse_domain_ranges, parse_domain_shares
from synthcert.data.schema import Schema
from synthcert.privacy.domain import plan_budget
from synthcert.privacy.tree_bins import DEFAULT_SHARE as TREE_SHARE
from synthcert.workflows.synthesize import TREE_SYNTHESIZERS

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
    assert claim["warnings"] == []
    assert summary["params"]["epsilon"] == pytest.approx(3.0)  # the synthesizer's part
    assert any("magnitude histogram" in m for m in claim["mechanisms"])
    assert any("stability histogram" in m for m in claim["mechanisms"])
    record = json.loads((tmp_path / "private" / "rec.json").read_text())
    ledger = record["ledger"]
    domain = [e for e in ledger if e["step"] == "domain"]
    fit = [e for e in ledger if e["step"] == "synthesizer"]
    # one bucket histogram and one integer test per numeric column
    assert [e["kind"] for e in domain].count("zcdp") == 4
    assert [e["kind"] for e in domain].count("approx_zcdp") == 1
    spent = boundary_harness().domain_epsilon(record)
    assert spent == pytest.approx(1.0) and spent <= 1.0
    assert sum(e["delta"] for e in domain) == pytest.approx(0.5e-6)  # the list's tail
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
        (["--epsilon", "1", "--private-domain", "0.2"], "pass --delta (e.g. 1e-6)"),  # what to do
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
    plan = plan_budget(Schema.load(files / "s.json"), 0.2, 1.0, 1e-6, shares={"region": 0.5})
    lines = plan.needs()  # one list: all of delta (privbayes is pure), half for its tail
    assert lines[0].startswith("age: DP magnitude buckets at rho ") and lines[0] in out
    assert f"needs about {plan.bucket_records('age'):,} records" in lines[0]
    region = next(line for line in lines if line.startswith("region: DP category list at rho "))
    assert region in out
    integer = next(line for line in lines if line.startswith("age: DP integer test at rho "))
    assert integer in out and f"about {plan.integer_records('age'):,} whole values" in integer
    assert f"needs about {plan.category_threshold('region'):,} records" in region
    assert out.index("needs, per data-derived column") < out.index("synthcert synthesize")


# -- a wide table: 50 columns as issue 27 describes them ----------------------------------------
# The fixture tests/fixtures/wide_table.py (long tails, block missingness up to 86 %, a Zipf
# 50-level "state", integer codes); its schema is drafted by `schema infer`, never edited.
WIDE = ["--epsilon", "1", "--delta", "1e-6", "--private-domain", "0.2"]


@dataclass(frozen=True)
class WideRun:
    """One `schema infer` -> `synthesize` run on a wide table: exit code, the output (stdout
    and stderr joined, or each alone), the rows written and the schema the synthesizer was
    given (after the DP domain and DP bins steps: the schema the rows must respect)."""

    code: int
    output: str
    stdout: str
    stderr: str
    rows: pd.DataFrame | None
    fitted: Schema | None


def run_wide(tmp_path: Path, table: pd.DataFrame, monkeypatch, *args: str) -> WideRun:
    """`schema infer --public-kinds` on ``table``, then `synthesize` with ``args`` (the
    synthesizer, the budget, --private-domain, ...) with every warning an error (but torch's
    and opacus's about their own configuration, as in test_wide_table.py); the schema handed
    to the synthesizer is caught on its way to the registry."""
    from synthcert.workflows import synthesize as workflow

    table.to_csv(tmp_path / "w.csv", index=False)
    res = runner.invoke(app, ["schema", "infer", str(tmp_path / "w.csv"), "--public-kinds", "--out",
                              str(tmp_path / "s.json")])  # fmt: skip
    assert res.exit_code == 0, res.output
    fitted: list[Schema] = []
    make = workflow.make_synthesizer

    def catch(name, schema, **params):
        fitted.append(schema)
        return make(name, schema, **params)

    monkeypatch.setattr(workflow, "make_synthesizer", catch)
    cmd = ["synthesize", str(tmp_path / "w.csv"), "--schema", str(tmp_path / "s.json"),
           "--out", str(tmp_path / "syn.csv"), *args,
           "--private-record", str(tmp_path / "private" / "rec.json")]  # fmt: skip
    with warnings.catch_warnings():  # issue 27: no warning (an overflow or NaN is an error)
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", module=r"(torch|opacus)(\.|$)")  # their own setup
        res = runner.invoke(app, cmd)
    schema = fitted[-1] if fitted else None
    rows = None
    if res.exit_code == 0:
        text = {c.name: str for c in schema.categorical} if schema is not None else None
        rows = pd.read_csv(tmp_path / "syn.csv", dtype=text)
    return WideRun(res.exit_code, " ".join(res.output.split()), res.stdout, res.stderr, rows,
                   schema)  # fmt: skip


def run_wide_with_a_state_share(tmp_path: Path, monkeypatch, n: int, share: str) -> None:
    """schema infer, then privbayes at --private-domain 0.2, delta 1e-6, epsilon 1: the run
    completes; every state held by >= 500 records is kept; the columns whose lists kept fewer
    than two values are named in a warning and absent from the output."""
    table, _ = wide_table(n)
    run = run_wide(tmp_path, table, monkeypatch, *BASE, "--domain-share", f"state={share}")
    out = run.output
    assert run.code == 0, out
    assert "numeric columns: a bound needs about" in out  # the summary (> 10 columns)
    assert "state: DP category list at rho" in out
    rows = run.rows
    assert rows is not None and len(rows) == n
    frequent = {k for k, v in table["state"].value_counts().items() if v >= 500}
    assert len(frequent) >= 1 and frequent <= set(rows["state"].dropna())
    schema = json.loads((tmp_path / "s.json").read_text())
    categorical = [c["name"] for c in schema["columns"] if c["kind"] == "categorical"]
    gone = [c for c in categorical if c not in rows.columns]
    assert "state" not in gone
    if n <= 3_000:  # the other lists share a tenth of rho: a category needs > 3,000 records
        assert gone
    if gone:
        assert f"list of {', '.join(gone)} kept fewer than two values" in out
    else:
        assert "kept fewer than two values" not in out
    record = json.loads((tmp_path / "private" / "rec.json").read_text())
    spent = boundary_harness().domain_epsilon(record)
    assert spent == pytest.approx(0.2) and spent <= 0.2


def test_a_wide_table_runs_through_with_a_share_for_its_zipf_column(tmp_path, monkeypatch):
    """3,000 rows: the threshold does not depend on n, so the states with >= 500 records are
    kept as on 10,000 rows (``state`` gets 0.9 of the domain budget: T about 175)."""
    run_wide_with_a_state_share(tmp_path, monkeypatch, 3_000, "0.9")


@pytest.mark.slow
def test_a_wide_table_of_ten_thousand_rows(tmp_path, monkeypatch):
    """Issue 27's shape: 10,000 rows x 50 columns; ``state`` gets half the domain budget."""
    run_wide_with_a_state_share(tmp_path, monkeypatch, 10_000, "0.5")


def wide_checks():
    """The output checks of tests/synthesizers/test_wide_table.py (one definition)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "synthesizers"))
    return importlib.import_module("test_wide_table")


def check_dp_domain_run(run: WideRun, table: pd.DataFrame, name: str, tmp_path: Path) -> None:
    """The run completed with the requested rows, values within the DP schema the synthesizer
    was given, and a claim of (1, 1e-6) that states the domain share (and the tree-bins share
    for the synthesizers that take DP tree bins by default); the domain step spent 0.2."""
    assert run.code == 0, run.output
    assert run.rows is not None and run.fitted is not None
    wide_checks().check_output(run.rows, table, run.fitted)
    assert "private_domain needs, per data-derived column:" in run.stderr
    claim = json.loads(run.stdout)["claim"]
    assert claim["guarantee"] == "differential privacy"
    assert (claim["epsilon"], claim["delta"]) == (1.0, 1e-6)
    stated = {a["name"]: a["value"] for a in claim["assumptions"]}
    assert stated["domain_share"] == 0.2
    if name in TREE_SYNTHESIZERS:
        assert stated["tree_bins"]["share"] == TREE_SHARE and stated["tree_bins"]["columns"]
        assert any("DP tree bins" in m for m in claim["mechanisms"])
    else:
        assert "tree_bins" not in stated
    record = json.loads((tmp_path / "private" / "rec.json").read_text())
    spent = boundary_harness().domain_epsilon(record)
    assert spent == pytest.approx(0.2) and spent <= 0.2


# every DP synthesizer; unbounded ones are given the table size as a public lower bound
DP_SYNTHESIZERS = ["aim", "mwem-pgm", "privbayes", "gaussian-copula", "ctgan"]


def private_domain_args(name: str, n: int, full: bool) -> list[str]:
    """`synthesize` options for ``name`` on ``n`` rows at issue 27's --private-domain 0.2;
    CTGAN with the one-epoch settings of tests/synthesizers/test_wide_table.py."""
    extra = ["--min-rows", str(n)]
    if name == "ctgan":
        w = wide_checks()
        settings = {**w.CTGAN, **(w.CTGAN_FULL if full else w.CTGAN_SMALL)}
        extra += [x for k, v in settings.items() for x in ("--param", f"{k}={json.dumps(v)}")]
    return ["--synthesizer", name, *WIDE, *extra, "--json"]


@pytest.mark.parametrize("name", DP_SYNTHESIZERS)
def test_the_small_wide_table_runs_with_a_dp_domain(tmp_path, monkeypatch, name):
    """The 20-column slice (2,000 rows): `schema infer` -> `synthesize --private-domain 0.2`
    completes for every DP synthesizer, within the DP schema, stating every share."""
    table, _ = small_wide_table()
    run = run_wide(tmp_path, table, monkeypatch, *private_domain_args(name, len(table), full=False))
    check_dp_domain_run(run, table, name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", DP_SYNTHESIZERS)
def test_the_wide_table_runs_with_a_dp_domain(tmp_path, monkeypatch, name):
    """Issue 27's target: 10,000 rows x 50 columns, `schema infer` -> `synthesize --epsilon 1
    --private-domain 0.2` completes for every DP synthesizer (CTGAN: one epoch)."""
    table, _ = wide_table()
    run = run_wide(tmp_path, table, monkeypatch, *private_domain_args(name, len(table), full=True))
    check_dp_domain_run(run, table, name, tmp_path)


def test_the_gaussian_release_refuses_a_dp_domain(tmp_path, monkeypatch):
    """The certified Gaussian release is not a DP synthesizer (its privacy is inherent to
    sampling, certified on a public domain): --private-domain is refused by design, before
    any fit, naming the reason."""
    table, _ = small_wide_table()
    run = run_wide(tmp_path, table, monkeypatch, "--synthesizer", "gaussian", *WIDE,
                   "--min-rows", "1000", "--param", "ridge=0.5")  # fmt: skip
    assert run.code != 0 and run.fitted is None
    assert "'gaussian' is not one" in run.output and "give it a public domain" in run.output
    assert not (tmp_path / "syn.csv").exists()


# -- the fallback publishes the same bytes on neighbouring tables ------------------------------
def boundary_harness():
    """The neighbour harness of tests/test_publication_boundary.py."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    return importlib.import_module("test_publication_boundary")


def test_the_fallback_publishes_the_same_files_for_every_neighbour(tmp_path, monkeypatch):
    """``region`` gets 0.1 % of the domain budget: its list keeps nothing, so it is dropped by
    the fallback rule; every neighbour (schema drafted from each table) publishes the same
    files, stdout (the claim's warning included) and stderr, and the rows have the same
    columns."""
    from synthcert.data.infer import draft_schema

    h = boundary_harness()
    args = ["synthesize", "--synthesizer", "privbayes", "--epsilon", "2", "--delta", "1e-6",
            "--private-domain", "0.4", "--domain-share", "income=0.333", "--domain-share",
            "age=0.333", "--domain-share", "score=0.333"]  # fmt: skip
    table = h.base_table()

    def run_inferred(kind: str, t: pd.DataFrame) -> dict:
        monkeypatch.setattr(h, "SCHEMA", draft_schema(t).schema.with_public_kinds())
        return h.run(tmp_path / kind, t, args, "s.parquet")

    base = run_inferred("D", table)
    assert "refused" not in base, base.get("refused")
    warned = json.loads(base["stdout"])["claim"]["warnings"]
    assert any("list of region kept fewer than two values" in w for w in warned), warned
    assert "region: DP category list at rho" in base["stderr"]  # before the fit
    assert list(base["rows"].columns) == ["income", "age", "score"]
    kinds = h.drafted_kinds(h.SCHEMA)
    for kind in h.SAME_SIZE:  # each neighbour drafts D's kinds (declared public after review)
        other = run_inferred(kind, h.neighbour(table, kind))
        assert h.drafted_kinds(h.SCHEMA) == kinds, kind
        h.assert_same_publication(base, other, kind)
        assert list(other["rows"].columns) == ["income", "age", "score"], kind


def test_drafted_kinds_are_refused_before_the_plan_is_printed(files, tmp_path):
    """Kinds read from the data stop a private_domain run before its pre-run lines: a new user
    read what each column would need, then learnt the run could not start at all."""
    res = runner.invoke(app, ["schema", "infer", str(files / "t.csv"), "--out",
                              str(tmp_path / "draft.json")])  # fmt: skip
    assert res.exit_code == 0, res.output
    args = ["synthesize", str(files / "t.csv"), "--schema", str(tmp_path / "draft.json"),
            "--synthesizer", "privbayes", "--epsilon", "1", "--delta", "1e-6",
            "--param", "private_domain=0.2", "--out", str(tmp_path / "syn.csv")]  # fmt: skip
    res = runner.invoke(app, args)
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and "--public-kinds" in text, text
    assert "private_domain needs" not in text and not (tmp_path / "syn.csv").exists()

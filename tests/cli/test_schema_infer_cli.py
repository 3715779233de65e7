"""``synthcert schema infer`` on a loan-book-like table: one run, a decision per column."""

from __future__ import annotations

import json

import pandas as pd
from real_tables import loan_book
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.infer import collect_stats, draft_schema
from synthcert.data.schema import Schema

runner = CliRunner()


def test_schema_infer_drafts_every_column_in_one_run(tmp_path):
    table = loan_book(3_000)
    path = tmp_path / "loans.csv"
    table.to_csv(path, index=False)
    res = runner.invoke(app, ["schema", "infer", str(path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    decisions = {d["name"]: d for d in doc["decisions"]}
    assert list(decisions) == list(table.columns)  # a decision for every column
    assert {n: d["decision"] for n, d in decisions.items() if not d["kept"]} == {
        "id": "identifier",
        "emp_title": "free text",
        "policy_code": "constant",
    }
    assert (
        decisions["term"]["decision"] == "categorical" and "integers" in decisions["term"]["reason"]
    )
    assert decisions["is_joint"]["decision"] == "boolean"
    assert decisions["issue_d"]["decision"] == "datetime"
    assert decisions["mths_since_last_delinq"]["missing_share"] == 0.57
    assert decisions["annual_inc_joint"]["missing_share"] == 0.85
    schema = Schema.from_dict(doc["schema"])
    assert set(schema.drop) == {"id", "emp_title", "policy_code"}
    assert schema.column("emp_length").nullable  # stray text counts as missing
    assert schema.column("term").dtype == "integer" and schema.column("issue_d").kind == "datetime"
    assert {c["source"] for c in doc["schema"]["columns"]} == {"data"}

    out = tmp_path / "schema.json"
    res = runner.invoke(app, ["schema", "infer", str(path), "--out", str(out)])
    assert res.exit_code == 0 and Schema.load(out) == schema
    assert "identifier" in res.stderr and res.stdout == ""


def test_streaming_reads_chunks_and_stops_at_max_rows():
    table = loan_book(3_000)
    chunks = [table.iloc[i : i + 700] for i in range(0, 3_000, 700)]
    whole, streamed = draft_schema(table), draft_schema(chunks)
    assert whole == streamed and whole.rows_read == 3_000
    stats, rows = collect_stats(iter(chunks), max_rows=1_000)
    assert rows == 1_000 and stats["grade"].rows == 1_000


def test_a_table_of_nothing_modellable_is_refused_after_deciding_every_column(tmp_path):
    path = tmp_path / "ids.csv"
    pd.DataFrame({"id": range(100), "k": [1] * 100}).to_csv(path, index=False)
    res = runner.invoke(app, ["schema", "infer", str(path)])
    assert res.exit_code == 2 and "every column was dropped" in res.output
    assert "identifier" in res.stderr and "constant" in res.stderr

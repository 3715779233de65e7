"""Bounded neighbours: a public fill instead of a refusal (issue 25, finding 8).

Under bounded (replace-one) neighbours n is public, so a record with a missing value, an
undeclared category or text in a numeric column of a non-nullable column can be neither
dropped nor refused without telling D from D'. The public rule: such a value takes the
column's PUBLIC fill (a declared ``fill``, else the first category or the midpoint of the
bounds), counted in the private record only. A malformed file is still refused before any fit.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from synthcert.data.discretize import Discretizer
from synthcert.data.encode import (
    Encoder,
    encode_arrow,
    missing_policy_for,
    prepare_table,
    public_fill,
)
from synthcert.data.schema import CategoricalColumn, DatetimeColumn, NumericColumn, Schema
from synthcert.errors import DataError, ParameterError
from test_publication_boundary import SCHEMA, base_table, invoke_in, neighbour, run

ODD = ("missing", "unknown_category", "text_in_numeric")
REPORT = ["--report", "pub/report.html"]
COMMANDS = {
    "privbayes": ["synthesize", "--synthesizer", "privbayes", "--epsilon", "1", "--delta", "1e-6"],
    "gaussian-copula": [
        *("synthesize", "--synthesizer", "gaussian-copula", "--epsilon", "1", "--delta", "1e-6"),
    ],
    "release-bounded": ["release", "--sigma", "0.03", "--neighboring", "bounded"],
}


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return base_table()


def assert_same(a: dict, b: dict, kind: str) -> None:
    """Both runs completed and published the same bytes and --json (rows aside)."""
    assert "refused" not in a, a.get("refused")
    assert "refused" not in b, f"{kind}: refused: {b['refused']}"
    assert a["stdout"] == b["stdout"], kind
    assert a["public"].keys() == b["public"].keys(), kind
    for name in a["public"]:
        assert a["public"][name] == b["public"][name], f"{kind}: {name} differs"
    assert len(a["rows"]) == len(b["rows"]) == len(base_table()), kind


@pytest.mark.parametrize("command", list(COMMANDS))
def test_bounded_neighbours_with_an_odd_value_complete_and_publish_the_same(
    tmp_path, table, command
):
    args = [*COMMANDS[command], *REPORT]
    base = run(tmp_path / "D", table, args, "s.parquet")
    assert "refused" not in base, base.get("refused")
    assert json.loads(base["stdout"]).get("neighboring", "bounded") == "bounded"
    assert base["record"]["facts"]["values_filled"] == 0
    for kind in ODD:
        other = run(tmp_path / kind, neighbour(table, kind), args, "s.parquet")
        assert_same(base, other, kind)
        assert other["record"]["facts"]["values_filled"] == 1, kind  # private record only
        published = b"".join(other["public"].values()) + other["stdout"].encode()
        assert b"values_filled" not in published and b"atlantis" not in published


@pytest.mark.parametrize("synthesizer", ["privbayes", "gaussian-copula"])
@pytest.mark.parametrize("kind", ODD)
def test_counted_route_of_a_folder_fills_too(tmp_path, table, kind, synthesizer):
    """A folder input fits from engine counts (the partitioned route): same rule."""
    args = ["synthesize", "in", "--schema", "schema.json", "--synthesizer", synthesizer]
    args += ["--epsilon", "1", "--delta", "1e-6", "--out", "pub/s.csv", "--json"]
    args += ["--private-record", "record.json"]
    outputs = {}
    for name, t in (("D", table), (kind, neighbour(table, kind))):
        folder = tmp_path / name
        (folder / "in").mkdir(parents=True)
        (folder / "schema.json").write_text(SCHEMA.to_json())
        if kind == "text_in_numeric":  # Parquet holds one type per column: text for both
            t = t.assign(score=t["score"].astype(str))
        t.iloc[:700].to_parquet(folder / "in" / "a.parquet")
        t.iloc[700:].to_parquet(folder / "in" / "b.parquet")
        res = invoke_in(folder, args)
        assert res.exit_code == 0, res.output
        record = json.loads((folder / "record.json").read_text())
        outputs[name] = (res.stdout, record["facts"]["values_filled"])
    assert outputs["D"][0] == outputs[kind][0]
    assert (outputs["D"][1], outputs[kind][1]) == (0, 1)


def test_a_malformed_file_is_still_refused_before_any_fit(tmp_path, table):
    """A missing column is a malformed file, not an odd record: refused (exit 2)."""
    args = [*COMMANDS["privbayes"]]
    res = run(tmp_path / "x", table.drop(columns=["score"]), args, "s.parquet")
    assert "refused" in res and "score" in res["refused"], res


# -- the rule itself --------------------------------------------------------------------------
FILL_SCHEMA = Schema(
    (
        NumericColumn("age", 18.0, 90.0, integer=True),
        NumericColumn("income", 0.0, 100.0, fill=10.0),
        CategoricalColumn("region", ("north", "south", "other"), fill="other"),
        CategoricalColumn("sex", ("F", "M")),
        CategoricalColumn("kids", ("0", "1", "2"), dtype="integer"),
        DatetimeColumn("born", 0.0, 20_000.0),
        NumericColumn("note", 0.0, 1.0, nullable=True),
    )
)


def odd_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [30, None, "n/a"],
            "income": [50.0, np.nan, 20.0],
            "region": ["north", "atlantis", None],
            "sex": ["M", None, "X"],
            "kids": [1, 7, None],
            "born": ["1990-01-01", "not a date", None],
            "note": [0.5, None, "text"],
            "extra": [None, 1, 2],  # outside the schema: ignored by the fill policy
        }
    )


def test_public_fill_values_come_from_the_schema_only():
    cols = {c.name: c for c in FILL_SCHEMA.columns}
    assert public_fill(cols["age"]) == 54.0  # midpoint of the public bounds
    assert public_fill(cols["income"]) == 10.0  # declared
    assert public_fill(cols["region"]) == "other"  # the declared other level
    assert public_fill(cols["sex"]) == "F"  # the first declared category
    assert public_fill(cols["born"]) == 10_000.0


def test_fill_keeps_every_row_and_counts_privately():
    frame, dropped, filled = prepare_table(odd_frame(), FILL_SCHEMA, missing="fill")
    assert dropped == 0 and len(frame) == 3
    # age x2, income, region x2, sex x2, kids x2, born x2; never the nullable note
    assert filled == 11
    codes = Discretizer(FILL_SCHEMA, missing="fill").codes(frame)
    cats = {c.name: j for j, c in enumerate(FILL_SCHEMA.columns)}
    assert codes[1:, cats["region"]].tolist() == [2, 2]  # "other"
    assert codes[1:, cats["sex"]].tolist() == [0, 0]  # "F"
    assert codes[1:, cats["kids"]].tolist() == [0, 0]  # "0"
    assert codes[2, cats["note"]] == Discretizer(FILL_SCHEMA).missing_code(cats["note"])
    X, report = Encoder(FILL_SCHEMA, missing="fill").encode(odd_frame())
    assert report.rows_kept == 3 and report.values_filled == 11 and not np.isnan(X).any()
    ages = frame["age"].tolist()
    assert ages[1:] == [54.0, 54.0]
    assert frame["born"].tolist()[1:] == ["1997-05-19", "1997-05-19"]  # day 10,000


def test_model_policy_fills_under_bounded_neighbours_only():
    assert missing_policy_for("model", "bounded") == "fill"
    assert missing_policy_for("model", "unbounded") == "model"
    assert missing_policy_for("drop", "bounded", private=False) == "drop"  # no claim: stays
    with pytest.raises(ParameterError, match="bounded neighbours"):  # a claim: refused
        missing_policy_for("drop", "bounded")


def test_arrow_route_gives_the_frame_route_its_fill():
    """The Arrow encoder leaves a batch that needs a fill to the frame (same numbers)."""
    schema = Schema((NumericColumn("x", 0.0, 10.0), NumericColumn("y", 0.0, 4.0)))
    enc = Encoder(schema, missing="fill")
    batch = pa.record_batch({"x": pa.array([1.0, None, 3.0]), "y": pa.array([1.0, 2.0, 3.0])})
    assert encode_arrow(enc, batch) is None
    X, report = enc.encode(batch.to_pandas())
    assert report.values_filled == 1 and report.rows_kept == 3
    assert X[1, 0] == 0.0  # the midpoint 5 encodes to the centre
    clean = pa.record_batch({"x": pa.array([1.0, 2.0]), "y": pa.array([1.0, 2.0])})
    X2, report2 = encode_arrow(enc, clean)
    assert report2.values_filled == 0 and X2.shape == (2, 2)


def test_a_declared_fill_must_be_a_category_or_within_the_bounds():
    with pytest.raises(DataError, match="fill"):
        CategoricalColumn("r", ("a", "b"), fill="c")
    with pytest.raises(DataError, match="fill"):
        NumericColumn("x", 0.0, 1.0, fill=2.0)
    doc = json.loads(FILL_SCHEMA.to_json())
    assert Schema.from_dict(doc) == FILL_SCHEMA
    assert doc["columns"][2]["fill"] == "other" and doc["columns"][1]["fill"] == 10.0

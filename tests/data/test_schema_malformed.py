"""A malformed schema file is a clean refusal: exit code 2, a message naming the field, no
traceback (issue 25, finding 5: ``"lower": "a"`` exited 1 with a Python traceback).

Hypothesis starts from a valid schema (numeric, datetime and categorical columns) and breaks
it in one place: a value of the wrong JSON type, NaN or infinite bounds, lower above upper, too
few or repeated categories, a repeated column name, an unknown kind, a missing key, a column or
the column list of the wrong type. ``release`` must refuse it before reading the table.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.schema import Schema
from synthcert.errors import DataError

runner = CliRunner()

VALID = {
    "columns": [
        {"name": "income", "kind": "numeric", "lower": 0, "upper": 100},
        {"name": "age", "kind": "numeric", "lower": 18, "upper": 90, "integer": True},
        {"name": "day", "kind": "datetime", "lower": "2020-01-01", "upper": "2020-12-31"},
        {"name": "region", "kind": "categorical", "categories": ["north", "south"]},
    ],
    "drop": [],
}
NUMERIC, INTEGER, DATE, CATEGORICAL = range(4)

# values of the wrong JSON type for each kind of key
NOT_A_NUMBER = st.one_of(
    st.text(max_size=5).filter(lambda t: not t.strip() or not _iso_date(t)),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf, 10**400, -(10**400)])
NOT_A_BOOL = st.one_of(
    st.sampled_from(["false", "true", "yes", 0, 1, 0.5, None]), st.lists(st.booleans(), max_size=1)
)
NOT_A_LIST = st.one_of(st.text(max_size=4), st.integers(), st.none(), st.booleans())
NOT_TEXT = st.one_of(st.integers(), st.floats(allow_nan=False), st.lists(st.text(), max_size=1))


def _iso_date(text: str) -> bool:
    import pandas as pd

    try:
        return not pd.isna(pd.Timestamp(text))
    except (ValueError, TypeError, OverflowError):
        return False


def set_key(j: int, key: str, value: object):
    def apply(doc: dict) -> None:
        doc["columns"][j][key] = value

    return apply


def del_key(j: int, key: str):
    def apply(doc: dict) -> None:
        del doc["columns"][j][key]

    return apply


@st.composite
def broken(draw) -> tuple[dict, str, list[str]]:
    """(schema document, what broke, words one of which the refusal must contain)."""
    doc = json.loads(json.dumps(VALID))
    choice = draw(st.integers(0, 17))
    if choice == 0:  # a bound of the wrong type
        j, key = (
            draw(st.sampled_from([NUMERIC, INTEGER])),
            draw(st.sampled_from(["lower", "upper"])),
        )
        set_key(j, key, draw(NOT_A_NUMBER))(doc)
        return doc, "bound type", [key]
    if choice == 1:  # NaN, infinite or overflowing bounds
        j, key = (
            draw(st.sampled_from([NUMERIC, INTEGER])),
            draw(st.sampled_from(["lower", "upper"])),
        )
        set_key(j, key, draw(NON_FINITE))(doc)
        return doc, "non-finite bound", [key]
    if choice == 2:  # lower above (or equal to) upper
        j = draw(st.sampled_from([NUMERIC, INTEGER, DATE]))
        col = doc["columns"][j]
        col["lower"], col["upper"] = (
            col["upper"],
            draw(st.sampled_from([col["lower"], col["upper"]])),
        )
        return doc, "lower >= upper", ["lower"]
    if choice == 3:  # a flag that is not true/false
        j, key = draw(
            st.sampled_from(
                [(NUMERIC, "nullable"), (INTEGER, "integer"), (CATEGORICAL, "nullable")]
            )
        )
        set_key(j, key, draw(NOT_A_BOOL))(doc)
        return doc, "flag type", [key]
    if choice == 4:  # categories not a list
        set_key(CATEGORICAL, "categories", draw(NOT_A_LIST))(doc)
        return doc, "categories type", ["categories"]
    if choice == 5:  # too few categories
        set_key(CATEGORICAL, "categories", draw(st.lists(st.just("a"), max_size=1)))(doc)
        return doc, "too few categories", ["categories"]
    if choice == 6:  # repeated categories
        c = draw(st.text(min_size=1, max_size=3))
        set_key(CATEGORICAL, "categories", [c, c, "x" + c])(doc)
        return doc, "repeated categories", ["categories", "unique"]
    if choice == 7:  # a category of the wrong type
        bad = draw(st.one_of(st.none(), st.lists(st.integers(), max_size=1), st.just(math.nan)))
        set_key(CATEGORICAL, "categories", ["a", bad, "b"])(doc)
        return doc, "category type", ["categories"]
    if choice == 8:  # a repeated column name
        j = draw(st.sampled_from([INTEGER, DATE, CATEGORICAL]))
        doc["columns"][j]["name"] = "income"
        return doc, "repeated name", ["income"]
    if choice == 9:  # an unknown or missing kind
        kind = draw(st.one_of(st.text(max_size=6), st.none(), st.integers()))
        if kind in ("numeric", "datetime", "categorical"):
            kind = "numerical"
        set_key(draw(st.integers(0, 3)), "kind", kind)(doc)
        return doc, "unknown kind", ["kind"]
    if choice == 10:  # a missing key
        j, key = draw(
            st.sampled_from(
                [
                    (NUMERIC, "lower"),
                    (INTEGER, "upper"),
                    (DATE, "lower"),
                    (CATEGORICAL, "categories"),
                    (NUMERIC, "name"),
                ]
            )
        )
        del_key(j, key)(doc)
        return doc, "missing key", [key, "name"]
    if choice == 11:  # a name of the wrong type
        set_key(draw(st.integers(0, 3)), "name", draw(st.one_of(NOT_TEXT, st.just(""))))(doc)
        return doc, "name type", ["name"]
    if choice == 12:  # a column that is not an object, or a column list that is not a list
        if draw(st.booleans()):
            doc["columns"][draw(st.integers(0, 3))] = draw(NOT_A_LIST)
        else:
            doc["columns"] = draw(
                st.one_of(
                    NOT_A_LIST, st.dictionaries(st.text(max_size=2), st.integers(), max_size=1)
                )
            )
        return doc, "column type", ["column"]
    if choice == 13:  # a date bound that is no date
        key = draw(st.sampled_from(["lower", "upper"]))
        set_key(
            DATE,
            key,
            draw(
                st.one_of(
                    st.sampled_from(["soon", "nan", "NaT", "inf", "2020-13-45"]),
                    st.none(),
                    st.booleans(),
                    st.just(math.nan),
                )
            ),
        )(doc)
        return doc, "date bound", [key, "date"]
    if choice == 14:  # bins of the wrong shape
        bins = draw(
            st.one_of(
                NOT_A_LIST.filter(lambda b: b is not None),
                st.just([0, 50]),
                st.just([0, "a", 100]),
                st.just([0, math.nan, 100]),
                st.just([0, 60, 50, 100]),
                st.just("quantile"),
            )
        )
        set_key(NUMERIC, "bins", bins)(doc)
        return doc, "bins", ["bins"]
    if choice == 15:  # text keys of the wrong type or value
        j, key = draw(
            st.sampled_from(
                [
                    (NUMERIC, "scale"),
                    (NUMERIC, "source"),
                    (DATE, "unit"),
                    (CATEGORICAL, "dtype"),
                    (NUMERIC, "bins_source"),
                ]
            )
        )
        set_key(j, key, draw(st.one_of(NOT_TEXT, st.sampled_from(["cubic", "private", "h"]))))(doc)
        return doc, "text key", [key]
    if choice == 16:  # missing_share outside [0, 1] or of the wrong type
        share = draw(
            st.one_of(
                NOT_A_NUMBER.filter(lambda v: v is not None),
                NON_FINITE,
                st.sampled_from([-0.1, 1.5]),
            )
        )
        set_key(draw(st.sampled_from([NUMERIC, CATEGORICAL])), "missing_share", share)(doc)
        return doc, "missing_share", ["missing_share"]
    # drop or file_columns of the wrong type
    key = draw(st.sampled_from(["drop", "file_columns"]))
    doc[key] = draw(
        st.one_of(
            st.text(min_size=1, max_size=3),
            st.integers(),
            st.lists(st.integers(), min_size=1, max_size=2),
        )
    )
    return doc, key, [key]


def test_the_valid_schema_loads():
    schema = Schema.from_dict(VALID)
    assert schema.names == ["income", "age", "day", "region"]


def test_a_text_bound_is_refused_naming_the_field(tmp_path):
    """The issue's case, on today's main an exit 1 with ``ValueError: could not convert``."""
    doc = json.loads(json.dumps(VALID))
    doc["columns"][0]["lower"] = "a"
    res = run_release(tmp_path, doc)
    assert res.exit_code == 2, res.output
    assert "'lower'" in res.output and "income" in res.output
    assert "Traceback" not in res.output


def run_release(folder, doc: dict):
    (folder / "schema.json").write_text(json.dumps(doc))
    (folder / "t.csv").write_text("income,age,day,region\n1,20,2020-02-02,north\n")
    args = ["release", str(folder / "t.csv"), "--schema", str(folder / "schema.json")]
    args += ["--sigma", "0.03", "--min-rows", "10", "--out", str(folder / "pub" / "s.csv")]
    return runner.invoke(app, args)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=broken())
def test_a_malformed_schema_is_a_clean_refusal_naming_the_field(tmp_path, case):
    doc, what, words = case
    with pytest.raises(DataError) as info:
        Schema.from_dict(doc)
    message = str(info.value)
    assert any(w in message for w in words), (what, message)
    res = run_release(tmp_path, doc)
    text = " ".join(res.output.split())
    assert res.exit_code == 2, (what, res.output, res.exception)
    assert isinstance(res.exception, SystemExit), (what, repr(res.exception))
    assert "Traceback" not in res.output and "error:" in text, (what, res.output)
    assert not (tmp_path / "pub").exists()

"""Schema files and the encoding to [-1,1]^d."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, nearest_category
from synthcert.data.infer import draft_schema, infer_schema
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import DataError

SCHEMA = Schema(
    (
        NumericColumn("age", 0, 100, integer=True),
        NumericColumn("income", -50.0, 150.0),
        CategoricalColumn("colour", ("red", "green", "blue")),
    )
)


def test_schema_json_round_trip(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(SCHEMA.to_json())
    assert Schema.load(path) == SCHEMA
    assert SCHEMA.encoded_dim == 4
    assert SCHEMA.bounds_source == "public"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"columns": [{"name": "a", "kind": "numeric", "lower": 0}]}, "upper"),
        ({"columns": [{"name": "a", "kind": "numeric", "lower": 1, "upper": 1}]}, "one value"),
        ({"columns": [{"name": "a", "kind": "categorical", "categories": ["x"]}]}, "two"),
        ({"columns": [{"name": "a", "kind": "text"}]}, "kind must be"),
        ({"columns": []}, "no columns"),
    ],
)
def test_bad_schemas_are_refused(spec, message):
    with pytest.raises(DataError, match=message):
        Schema.from_dict(spec)


def test_encode_maps_bounds_and_dummies():
    df = pd.DataFrame(
        {"age": [0, 50, 100], "income": [-50.0, 50.0, 150.0], "colour": ["red", "green", "blue"]}
    )
    X, report = Encoder(SCHEMA).encode(df)
    np.testing.assert_allclose(X[:, 0], [-1, 0, 1])
    np.testing.assert_allclose(X[:, 1], [-1, 0, 1])
    np.testing.assert_array_equal(X[:, 2:], [[-1, -1], [1, -1], [-1, 1]])
    assert report.rows_clipped == 0


def test_values_outside_bounds_are_clipped_and_counted():
    df = pd.DataFrame({"age": [-5, 50, 200], "income": [0.0, 0.0, 0.0], "colour": ["red"] * 3})
    X, report = Encoder(SCHEMA).encode(df)
    assert X[:, 0].min() == -1 and X[:, 0].max() == 1
    assert report.values_clipped == {"age": 2, "income": 0}


def test_decode_inverts_encode_and_keeps_integers():
    df = pd.DataFrame(
        {"age": [3, 47, 99], "income": [-12.5, 0.25, 149.0], "colour": ["blue", "red", "green"]}
    )
    enc = Encoder(SCHEMA)
    back = enc.decode(enc.encode(df)[0])
    assert back["age"].dtype == np.int64
    assert back["age"].tolist() == [3, 47, 99]
    np.testing.assert_allclose(back["income"], df["income"])
    assert back["colour"].astype(str).tolist() == ["blue", "red", "green"]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=6))
def test_nearest_category_is_the_nearest_codeword(v):
    v = np.array(v)
    k = len(v)
    codewords = np.vstack([-np.ones(k), 2 * np.eye(k) - 1])
    dist = ((codewords - v) ** 2).sum(axis=1)
    assert dist[nearest_category(v[None, :])[0]] == pytest.approx(dist.min())


def test_missing_values_dropped_or_refused():
    df = pd.DataFrame({"age": [1, None, 3], "income": [0.0, 1.0, None], "colour": ["red"] * 3})
    X, report = Encoder(SCHEMA).encode(df)
    assert X.shape == (1, 4) and report.rows_dropped_missing == 2
    with pytest.raises(DataError, match="the table has a missing value") as err:
        Encoder(SCHEMA, missing="fail").encode(df)
    assert "row 1" not in str(err.value) and "age" not in str(err.value)
    assert err.value.private_detail.startswith("row 1, column 'age';")


def test_non_numeric_text_and_unknown_categories_are_missing_by_public_rule():
    df = pd.DataFrame(
        {"age": ["1", "two", "3", "4"], "income": [0, 0, 0, 0], "colour": ["red"] * 3 + ["purple"]}
    )
    X, report = Encoder(SCHEMA).encode(df)  # --missing drop: the two odd rows are dropped
    assert X.shape[0] == 2 and report.rows_dropped_missing == 2
    with pytest.raises(DataError, match="the table has a missing value") as err:
        Encoder(SCHEMA, missing="fail").encode(df)
    assert "two" not in str(err.value) and "purple" not in str(err.value)
    assert err.value.private_detail == "row 1, column 'age'; 2 rows have missing values"


def test_missing_column_is_named():
    with pytest.raises(DataError, match=r"no column\(s\) \['colour'\]"):
        Encoder(SCHEMA).encode(pd.DataFrame({"age": [1], "income": [1.0]}))


def test_draft_schema_marks_data_source_and_refuses_constant_columns():
    """Every part of a draft is read from the data; a constant column is never modelled: it is
    dropped (a data-derived drop), and a table of nothing else is refused. (The numeric
    column takes 12 distinct whole numbers: ten or fewer would be integer codes.)"""
    df = pd.DataFrame({"n": range(1, 13), "c": ["a", "b"] * 6})
    schema = draft_schema(df).schema
    assert schema.bounds_source == "data"
    assert schema.column("n") == NumericColumn("n", 1, 12, True, "data", kind_source="data")
    assert schema.data_flags == ["n: nullable", "n: integer", "n: kind", "c: nullable", "c: kind"]
    assert schema.column("c").categories == ("a", "b")
    with_constant = draft_schema(df.assign(k=7.0)).schema
    assert [c.name for c in with_constant.columns] == ["n", "c"]
    assert with_constant.drop == ("k",) and with_constant.drop_source == "data"
    draft = draft_schema(pd.DataFrame({"k": [7.0] * 5}))
    assert draft.schema is None and [d.decision for d in draft.decisions] == ["constant"]
    with pytest.raises(DataError, match="every column was dropped") as err:
        draft.require_schema()
    assert err.value.private_detail == "k: a single distinct value"  # the reason stays private


def test_infer_schema_is_a_deprecated_alias_of_draft_schema():
    """One inferrer: ``infer_schema`` warns, passes ``max_categories`` and ``drop`` on, returns
    the draft's schema and refuses a table whose every column is dropped."""
    import synthcert
    import synthcert.data

    df = pd.DataFrame({"n": range(1, 13), "c": ["a", "b"] * 6, "t": ["x", "y", "z"] * 4})
    with pytest.warns(DeprecationWarning, match="draft_schema"):
        schema = infer_schema(df, max_categories=2, drop=("c",))
    assert schema == draft_schema(df, max_categories=2, drop=("c",)).schema
    assert [c.name for c in schema.columns] == ["n"] and schema.drop == ("c", "t")
    with pytest.warns(DeprecationWarning), pytest.raises(DataError, match="every column"):
        infer_schema(pd.DataFrame({"k": [7.0] * 5}))
    assert synthcert.infer_schema is synthcert.data.infer_schema is infer_schema


def test_discretizer_bins_on_public_bounds():
    df = pd.DataFrame({"age": [0, 4.99, 5, 100, 120], "income": [0.0] * 5, "colour": ["red"] * 5})
    disc = Discretizer(SCHEMA, bins=20)
    codes = disc.transform(df)
    assert codes[:, 0].tolist() == [20, 0, 1, 19, 19]  # age 0: the code of its atom, 0
    back = disc.inverse_transform(codes, np.random.default_rng(0))
    assert back["age"].between(0, 100).all()
    assert back["age"].iloc[0] == 0 and (back["age"].iloc[1:] > 0).all()  # bin 0 skips 0
    assert disc.cardinalities == [21, 20, 3]  # income: 0 is inside, not a bound: no atom


def test_integer_decoding_never_leaves_its_bin():
    schema = Schema((NumericColumn("age", 17, 90, integer=True), NumericColumn("x", 0.0, 1.0)))
    disc = Discretizer(schema, bins=20)  # age bins are 3.65 wide: rounding could cross them
    codes = np.repeat(np.arange(20), 500)[:, None].repeat(2, axis=1)
    back = disc.inverse_transform(codes, np.random.default_rng(0))
    assert back["age"].dtype == np.int64
    np.testing.assert_array_equal(disc.transform(back), codes)


def test_dates_are_written_at_their_declared_resolution_missing_kept():
    from synthcert.data.encode import dates_as_written
    from synthcert.data.schema import DatetimeColumn

    lo_d, hi_d = (DatetimeColumn.parse_bound(t, "D") for t in ("2021-01-01", "2024-01-01"))
    lo_s, hi_s = (DatetimeColumn.parse_bound(t, "s") for t in ("2021-01-01", "2024-01-01"))
    month = DatetimeColumn("m", lo_d, hi_d, resolution="month")
    minute = DatetimeColumn("t", lo_s, hi_s, unit="s", resolution="minute")
    plain = DatetimeColumn("d", lo_s, hi_s, unit="s")
    stamps = pd.to_datetime(["2023-06-01 13:05", None])
    frame = pd.DataFrame({"m": stamps, "t": stamps, "d": stamps})
    out = dates_as_written(frame, Schema((month, minute, plain)))
    assert out["m"].tolist()[0] == "2023-06" and out["t"].tolist()[0] == "2023-06-01 13:05"
    assert out["m"].isna().tolist() == [False, True] and out["t"].isna().tolist() == [False, True]
    assert out["d"].dtype == frame["d"].dtype  # no resolution: left to the writer
    assert frame["m"].dtype.kind == "M"  # the input frame is not modified

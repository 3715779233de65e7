"""Nullable columns, dates, log-scale and explicit bins, dtypes, and `schema infer` (issue 17)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from real_tables import dated_table, loan_book, wage_table

from synthcert.data.discretize import Discretizer, bin_edges, numeric_bin_codes
from synthcert.data.encode import MISSING_FILL, Encoder
from synthcert.data.infer import draft_schema
from synthcert.data.schema import CategoricalColumn, DatetimeColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError
from synthcert.synthesizers.gaussian import GaussianSynthesizer, encoded_column_names

NULLABLE = Schema(
    (
        NumericColumn("x", 0.0, 10.0, nullable=True),
        CategoricalColumn("c", ("a", "b", "c"), nullable=True),
        NumericColumn("y", 0.0, 1.0),
    )
)


def test_schema_json_round_trips_every_new_key_and_old_files_stay_valid():
    schema = Schema(
        (
            NumericColumn("w", 0.0, 20_000.0, scale="log", nullable=True, missing_share=0.25),
            NumericColumn("h", 0.0, 80.0, integer=True, bins=(0.0, 20.0, 35.0, 45.0, 80.0)),
            DatetimeColumn("d", 18_262.0, 18_992.0, True, nullable=True),
            CategoricalColumn("t", ("36", "60"), dtype="integer"),
            CategoricalColumn("b", ("False", "True"), dtype="boolean"),
        )
    )
    doc = json.loads(schema.to_json())
    assert doc["columns"][2]["lower"] == "2020-01-01" and doc["columns"][2]["upper"] == "2021-12-31"
    assert doc["columns"][0]["missing_share_source"] == "data"
    assert "nullable" not in doc["columns"][1] and "scale" not in doc["columns"][1]
    assert Schema.from_dict(doc) == schema
    old = Schema.from_dict({"columns": [{"name": "a", "kind": "numeric", "lower": 0, "upper": 1}]})
    assert old.columns[0].nullable is False and old.encoded_dim == 1


def test_bad_bins_and_dtypes_are_refused():
    with pytest.raises(DataError, match="strictly increasing"):
        NumericColumn("h", 0.0, 80.0, bins=(0.0, 50.0, 40.0, 80.0))
    with pytest.raises(DataError, match="from lower"):
        NumericColumn("h", 0.0, 80.0, bins=(1.0, 40.0, 80.0))
    with pytest.raises(DataError, match="integer categories"):
        CategoricalColumn("t", ("a", "b"), dtype="integer")


def test_encoder_adds_one_indicator_per_nullable_column_with_the_public_fill():
    df = pd.DataFrame({"x": [5.0, None, "text"], "c": ["b", None, "a"], "y": [0.5, 0.5, 1.0]})
    enc = Encoder(NULLABLE)
    assert enc.dim == NULLABLE.encoded_dim == 2 + 3 + 1
    assert encoded_column_names(NULLABLE) == ["x", "x=missing", "c=b", "c=c", "c=missing", "y"]
    X, report = enc.encode(df)
    assert report.rows_dropped_missing == 0 and X.shape == (3, 6)
    np.testing.assert_array_equal(X[:, 1], [-1, 1, 1])  # text in a number is missing
    np.testing.assert_array_equal(X[1, [0, 2, 3]], [MISSING_FILL] * 3)
    np.testing.assert_array_equal(X[:, 4], [-1, 1, -1])
    back = enc.decode(X)
    assert back["x"].isna().tolist() == [False, True, True] and back["x"][0] == 5.0
    assert back["c"].isna().tolist() == [False, True, False] and back["c"][0] == "b"
    # the indicator decides, whatever the value coordinates hold
    X[1, 0] = 0.7
    assert np.isnan(enc.decode(X)["x"][1])


def test_missing_drop_and_fail_policies():
    df = pd.DataFrame({"x": [None, 5.0], "c": ["b", "a"], "y": [0.5, None]})
    _, rep = Encoder(NULLABLE, missing="drop").encode(df)
    assert rep.rows_dropped_missing == 2
    _, rep = Encoder(NULLABLE).encode(df)
    assert rep.rows_dropped_missing == 1  # y is not nullable
    with pytest.raises(DataError, match="a column that is not nullable") as err:
        Encoder(NULLABLE, missing="fail").encode(df)
    assert "'y'" not in str(err.value) and err.value.private_detail.startswith("row 1, column 'y'")


def test_gaussian_release_models_missing_values():
    df = loan_book(3_000)
    cols = ["annual_inc", "dti", "annual_inc_joint", "mths_since_last_delinq"]
    schema = draft_schema(df[cols]).schema
    assert schema.encoded_dim == 2 + 2 * 2  # two nullable columns, one indicator each
    synth = GaussianSynthesizer(schema).fit(df[cols])
    assert synth.fit_.n == 3_000 and synth.fit_.d == 6 and synth.fit_.rows_dropped_missing == 0
    out = synth.sample(20_000, seed=np.random.SeedSequence(4))
    for c in ("annual_inc_joint", "mths_since_last_delinq"):
        assert out[c].isna().mean() == pytest.approx(df[c].isna().mean(), abs=0.05)
    assert out["mths_since_last_delinq"].dtype == "Int64"
    assert (
        out["annual_inc_joint"].dropna().between(*df["annual_inc_joint"].agg(["min", "max"])).all()
    )


def test_gaussian_release_refuses_a_block_missing_together():
    # identical indicators make the covariance singular: Theorem 3.1's assumption fails
    df = loan_book(3_000)
    cols = ["annual_inc", "annual_inc_joint", "dti_joint"]
    schema = draft_schema(df[cols]).schema
    with pytest.raises(AssumptionError, match="singular") as err:
        GaussianSynthesizer(schema).fit(df[cols])
    assert "=missing" in err.value.private_detail  # the columns: private detail only


def test_log_bins_widen_geometrically_and_decode_inside_their_bin():
    col = NumericColumn("w", 0.0, 20_000.0, scale="log")
    edges = bin_edges(col, 20)
    assert edges[0] == 0.0 and edges[-1] == pytest.approx(20_000.0)
    np.testing.assert_allclose(np.log1p(edges), np.linspace(0, np.log1p(20_000), 21))
    wages = wage_table(5_000)["wage"].to_numpy()
    eq = np.bincount(numeric_bin_codes(wages, NumericColumn("w", 0.0, 20_000.0), 20), minlength=20)
    lg = np.bincount(numeric_bin_codes(wages, col, 20), minlength=20)
    assert eq[:2].sum() / len(wages) > 0.95  # equal width: nearly everyone in two bins
    assert (lg > 0.01 * len(wages)).sum() >= 6 and lg.max() < 0.3 * len(wages)  # shape kept
    schema = Schema((col, NumericColumn("h", 0.0, 80.0, True, bins=(0.0, 20.0, 35.0, 45.0, 80.0))))
    disc = Discretizer(schema)
    assert disc.cardinalities == [21, 5]  # each: its bins, then its atom 0 (the lower bound)
    codes = np.column_stack([np.repeat(np.arange(20), 50), np.repeat(np.arange(4), 250)])
    back = disc.inverse_transform(codes, np.random.default_rng(0))
    np.testing.assert_array_equal(disc.transform(back), codes)
    assert back["h"].dtype == np.int64


def test_discretizer_gives_missing_its_own_code_and_decodes_dates():
    df = dated_table()
    schema = draft_schema(df).schema
    disc = Discretizer(schema, bins=10)
    assert disc.cardinalities == [11, 11, 10]
    codes = disc.transform(df)
    assert (codes[:, 0] == 10).mean() == pytest.approx(df["opened"].isna().mean())
    back = disc.inverse_transform(codes, np.random.default_rng(1))
    assert back["opened"].dtype == "datetime64[ns]"
    assert back["opened"].isna().tolist() == df["opened"].isna().tolist()
    assert back["opened"].dropna().between("2020-01-01", "2021-12-31").all()
    assert (back["seen_at"].dropna().dt.second != 0).any()  # unit: seconds


def test_nullable_integer_and_boolean_categories_keep_their_type():
    schema = Schema(
        (
            CategoricalColumn("t", ("36", "60"), dtype="integer", nullable=True),
            CategoricalColumn("b", ("False", "True"), dtype="boolean", nullable=True),
        )
    )
    df = pd.DataFrame({"t": [36.0, None, 60.0], "b": [True, False, None]})
    disc = Discretizer(schema)
    back = disc.inverse_transform(disc.transform(df), np.random.default_rng(0))
    assert back["t"].dtype == "Int64" and back["t"].tolist()[::2] == [36, 60]
    assert back["b"].dtype == "boolean" and back["b"].isna().tolist() == [False, False, True]


def test_log_scale_is_a_public_transform_before_encoding():
    schema = Schema((NumericColumn("w", 0.0, 20_000.0, scale="log"),))
    x = np.array([0.0, 499.0, 20_000.0])
    X, _ = Encoder(schema).encode(pd.DataFrame({"w": x}))
    expected = 2.0 * np.log1p(x) / np.log1p(20_000.0) - 1.0
    np.testing.assert_allclose(X[:, 0], expected, rtol=1e-12)
    assert X[1, 0] == pytest.approx(2.0 * np.log(500.0) / np.log(20_001.0) - 1.0)
    np.testing.assert_allclose(Encoder(schema).decode(X)["w"], x, rtol=1e-9)

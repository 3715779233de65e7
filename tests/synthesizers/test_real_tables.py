"""Every synthesizer on the loan-book fixture: all rows used, missing shares and the joint
missingness pattern reproduced, with and without DP (issue 17)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from real_tables import JOINT_BLOCK, loan_book

from synthcert.data.infer import draft_schema
from synthcert.data.schema import Schema
from synthcert.synthesizers.ctgan_missing import MISSING_LEVEL, PATTERN_COLUMN
from synthcert.synthesizers.registry import make_synthesizer

PGM_COLUMNS = [
    "grade", "term", "emp_length", "is_joint", *JOINT_BLOCK, "mths_since_last_delinq",
]  # fmt: skip


def public(schema: Schema) -> Schema:
    """The draft with its bounds declared public (as a user does after replacing them)."""
    cols = tuple(dataclasses.replace(c, source="public") for c in schema.columns)
    return Schema(cols, schema.drop)


@pytest.fixture(scope="module")
def loans() -> pd.DataFrame:
    return loan_book(2_000)


@pytest.fixture(scope="module")
def big_loans() -> pd.DataFrame:
    return loan_book(10_000)


def missing_shares(df: pd.DataFrame, schema: Schema) -> dict[str, float]:
    """Share of missing values of each nullable column (text in a number counts as missing)."""
    out = {}
    for c in schema.nullable:
        x = df[c.name]
        if c.kind == "numeric":
            x = pd.to_numeric(x, errors="coerce")
        out[c.name] = float(x.isna().mean())
    return out


def together(df: pd.DataFrame) -> float:
    """Share of rows whose joint block is all missing or all present."""
    block = df[list(JOINT_BLOCK)].isna()
    return float((block.all(axis=1) | ~block.any(axis=1)).mean())


def check(name: str, table: pd.DataFrame, schema: Schema, epsilon, tol: float, **params):
    synth = make_synthesizer(name, schema, epsilon=epsilon, **params).fit(table)
    assert synth.rows_dropped_missing_ == 0  # every row used
    if hasattr(synth, "n_"):
        assert synth.n_ == len(table)
    out = synth.sample(len(table), seed=np.random.SeedSequence(3))
    real, syn = missing_shares(table, schema), missing_shares(out, schema)
    assert real["annual_inc_joint"] == pytest.approx(0.85)
    assert real["mths_since_last_delinq"] == pytest.approx(0.57)
    for col, share in real.items():
        assert syn[col] == pytest.approx(share, abs=tol), col
    return out


def test_the_fixture_has_the_traits_of_a_real_loan_book(loans):
    draft = draft_schema(loans)
    kinds = {d.name: d.decision for d in draft.decisions}
    assert kinds["id"] == "identifier" and kinds["emp_title"] == "free text"
    assert kinds["policy_code"] == "constant" and kinds["issue_d"] == "datetime"
    assert together(loans) == 1.0


@pytest.mark.parametrize("name", ["gaussian-copula", "privbayes"])
def test_missing_values_modelled_without_dp(name, loans):
    schema = public(draft_schema(loans).schema)
    out = check(name, loans, schema, None, 0.05)
    assert together(out) >= 0.90
    # dtypes round-trip: nullable integers, booleans, integer codes, dates
    assert out["mths_since_last_delinq"].dtype == "Int64"
    assert out["is_joint"].dtype == bool and out["term"].dtype == np.int64
    assert set(out["term"]) <= {36, 60}
    assert out["issue_d"].dtype == "datetime64[ns]"
    assert out["issue_d"].between("2018-01-01", "2020-09-26").all()


@pytest.mark.parametrize("name", ["gaussian-copula", "privbayes"])
def test_missing_values_modelled_at_epsilon_one(name, big_loans):
    schema = public(draft_schema(big_loans).schema)
    check(name, big_loans, schema, 1.0, 0.10)


@pytest.mark.parametrize("name", [pytest.param("aim", marks=pytest.mark.slow), "mwem-pgm"])
def test_pgm_models_missing_values_without_dp(name, loans):
    schema = public(draft_schema(loans).schema.select(PGM_COLUMNS))
    out = check(name, loans, schema, None, 0.05, bins=8, pgm_iters=200)
    assert together(out) >= 0.90


@pytest.mark.slow
@pytest.mark.parametrize("name", ["aim", "mwem-pgm"])
def test_pgm_models_missing_values_at_epsilon_one(name, loans):
    schema = public(draft_schema(loans).schema.select(PGM_COLUMNS))
    check(name, loans, schema, 1.0, 0.10, bins=8, pgm_iters=200)


def test_ctgan_gets_a_pattern_column_and_a_missing_level(loans):
    # ctgan sees no NaN: the row's missingness pattern as one discrete column (public fill for
    # a missing number), the extra level MISSING_LEVEL for a nullable categorical one; _typed
    # maps back. Shares and the joint pattern: tests/synthesizers/test_ctgan_missing.py.
    schema = public(draft_schema(loans).schema.select(PGM_COLUMNS))
    synth = make_synthesizer("ctgan", schema, epochs=1)
    frame = synth._clean_frame(loans)
    assert synth.rows_dropped_missing_ == 0 and not frame.isna().any().any()
    assert frame[PATTERN_COLUMN].str[2].eq("1").mean() == pytest.approx(0.85)  # 2nd nullable
    assert frame["verification_status_joint"].eq(MISSING_LEVEL).mean() == pytest.approx(0.85)
    assert frame.loc[loans["annual_inc_joint"].isna(), "annual_inc_joint"].nunique() == 1
    assert {PATTERN_COLUMN, "verification_status_joint", "term"} <= set(synth._discrete_columns())
    back = synth._typed(frame)
    for col in ("annual_inc_joint", "verification_status_joint", "mths_since_last_delinq"):
        assert back[col].isna().tolist() == loans[col].isna().tolist(), col
    assert back["mths_since_last_delinq"].dtype == "Int64" and back["term"].dtype == np.int64


@pytest.mark.slow
def test_dp_ctgan_one_hot_carries_the_missing_code(loans):
    # DP-CTGAN's public representation: one-hot of the Discretizer's codes, missing included.
    # Its missing shares at epsilon = 1: tests/synthesizers/test_ctgan_missing.py.
    schema = public(draft_schema(loans).schema.select(PGM_COLUMNS))
    synth = make_synthesizer(
        "ctgan", schema, epsilon=1.0, epochs=1, bins=8, min_rows=len(loans)
    ).fit(loans)
    assert synth.rows_dropped_missing_ == 0
    cards = synth.discretizer.cardinalities
    assert cards[PGM_COLUMNS.index("annual_inc_joint")] == 8 + 1
    assert cards[PGM_COLUMNS.index("grade")] == 7
    codes = synth.discretizer.transform(loans)
    onehot = synth._one_hot(codes)
    assert onehot.shape == (len(loans), sum(cards)) and (onehot.sum(axis=1) == len(cards)).all()
    out = synth.sample(500, seed=np.random.SeedSequence(1))
    assert out["mths_since_last_delinq"].dtype == "Int64" and out["is_joint"].dtype == bool


def test_missing_drop_stays_available(loans):
    schema = public(draft_schema(loans).schema)
    synth = make_synthesizer("privbayes", schema, missing="drop").fit(loans)
    assert synth.rows_dropped_missing_ == len(loans) - synth.n_ > 0
    assert synth.sample(200, seed=1)["annual_inc_joint"].notna().all()

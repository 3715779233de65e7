"""Every synthesizer on the wide fixture (issue 27), with and without DP.

The fixture (tests/fixtures/wide_table.py) has the shape of the table that made AIM crash
after twenty minutes and MWEM-PGM fail after seven: long tails under a linear scale, block
missingness up to 86%, a Zipf 50-level categorical, integer codes. Each fit runs with every
warning turned into an error; the output must have the requested rows, finite numbers within
the public bounds, and missing values in the nullable columns only. The 20-column version
runs in the default suite, the 50-column one (10,000 rows) in the slow suite.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from wide_table import MISSING, NULLABLE, small_wide_table, wide_table

from synthcert.data.schema import NumericColumn, Schema
from synthcert.errors import AssumptionError
from synthcert.synthesizers.registry import make_synthesizer

CTGAN = {"epochs": 1, "batch_size": 500, "pac": 10, "embedding_dim": 16}
CTGAN_SMALL = {"generator_dim": (16,), "discriminator_dim": (16,)}
CTGAN_FULL = {"generator_dim": (64,), "discriminator_dim": (64,)}
# (registry name, settings without DP, settings with DP or the certified release)
SETTINGS = [
    # the Gaussian release is certified in both settings; unridged it refuses this table
    # (test_unridged_gaussian_release_refuses_collinear_missingness)
    ("gaussian", {"ridge": 0.5}, {"ridge": 0.5, "min_rows": 1_000}),
    ("gaussian-copula", {}, {"epsilon": 1.0}),
    ("privbayes", {}, {"epsilon": 1.0}),
    ("mwem-pgm", {}, {"epsilon": 1.0, "delta": 1e-6}),
    ("aim", {}, {"epsilon": 1.0, "delta": 1e-6}),
    ("ctgan", CTGAN, {**CTGAN, "epsilon": 1.0, "min_rows": 1_000}),
]
# the default suite keeps the fits short on the 20-column table, on the same code paths:
# fewer mirror-descent iterations, (AIM) fewer budgeted rounds, a 2 MB model without DP
# (where the 80 MB default lets exact greedy selection grow a large junction tree), small
# CTGAN networks; non-DP CTGAN (a Bayesian mixture per numeric column) runs in the slow suite
SMALL_PGM = {"pgm_iters": 200, "max_model_size": 2.0}
SMALL_AIM_DP = {"pgm_iters": 200, "rounds": 60}
SLOW_SMALL = {"ctgan-plain"}


def cases(full: bool):
    for name, plain, dp in SETTINGS:
        for mode, params in (("plain", plain), ("dp", dp)):
            params = dict(params)
            if name == "ctgan":
                params.update(CTGAN_FULL if full else CTGAN_SMALL)
            if not full and name in ("mwem-pgm", "aim"):
                params.update(SMALL_AIM_DP if name == "aim" and mode == "dp" else SMALL_PGM)
            if name != "gaussian":  # the Gaussian release draws no secret choice
                params.setdefault("seed", 7)
            case = f"{name}-{mode}"
            marks = [pytest.mark.slow] if not full and case in SLOW_SMALL else []
            yield pytest.param(name, params, id=case, marks=marks)


def fit_and_sample(name: str, params: dict, table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """Fit and sample with every warning an error (the regression of issue 27)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # torch and opacus warn about their own configuration; numerics stay errors
        warnings.filterwarnings("ignore", module=r"(torch|opacus)(\.|$)")
        synth = make_synthesizer(name, schema, **params).fit(table)
        out = synth.sample(len(table), seed=np.random.SeedSequence(11))
    return out


def check_output(out: pd.DataFrame, table: pd.DataFrame, schema: Schema) -> None:
    """The requested rows and columns; finite numbers within the schema's bounds (integers for
    integer columns); its categories only; missing values in its nullable columns only (the
    fixture's NULLABLE under its public schema; under a DP domain every data-derived column)."""
    assert list(out.columns) == schema.names and len(out) == len(table)
    for col in schema.columns:
        s = out[col.name]
        if not col.nullable:
            assert s.notna().all(), col.name
        present = s.dropna()
        if isinstance(col, NumericColumn):
            x = present.to_numpy(dtype=np.float64)
            assert np.all(np.isfinite(x)), col.name
            assert np.all((x >= col.lower) & (x <= col.upper)), col.name  # none: all missing
            if col.integer:  # a CSV column with a blank reads back as float64
                assert np.all(x == np.round(x)), col.name
                assert str(s.dtype) in ("int64", "Int64") or s.isna().any(), col.name
        else:
            assert set(present.astype(str)) <= set(col.categories), col.name
    nullable = [c for c in NULLABLE if c in schema.names]  # a DP domain may drop them all
    assert not nullable or out[nullable].isna().any(axis=None)  # missingness is modelled


def test_the_fixture_has_the_failure_shape():
    table, schema = wide_table()
    assert table.shape == (10_000, 50) and schema.names == list(table.columns)
    shares = table[list(NULLABLE)].isna().mean()
    for col, share in MISSING.items():
        assert shares[col] == pytest.approx(share)
    assert table[["joint_income", "joint_dti", "joint_status"]].isna().nunique(axis=1).eq(1).all()
    for i in range(10):  # long tails: the median in the lowest 1% of the public range
        col = schema.column(f"amount_{i}")
        assert table[col.name].median() < col.lower + 0.01 * (col.upper - col.lower)
        assert col.scale == "linear" and col.source == "public"
    counts = table["state"].value_counts()
    assert len(counts) == 50 and counts.iloc[0] > 50 * counts.iloc[-1]  # Zipf
    small, small_schema = small_wide_table()
    assert small.shape == (2_000, 20) and small_schema.names == list(small.columns)


def test_unridged_gaussian_release_refuses_collinear_missingness():
    """Columns missing together have identical missingness indicators: the covariance is
    singular and the certificate refuses at once, naming the cause (no warning, no NaN)."""
    table, schema = small_wide_table()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AssumptionError, match="singular"):
            make_synthesizer("gaussian", schema).fit(table)


@pytest.mark.parametrize(("name", "params"), list(cases(full=False)))
def test_small_wide_table(name, params):
    table, schema = small_wide_table()
    out = fit_and_sample(name, params, table, schema)
    check_output(out, table, schema)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), list(cases(full=True)))
def test_wide_table(name, params):
    table, schema = wide_table()
    out = fit_and_sample(name, params, table, schema)
    check_output(out, table, schema)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "limit"), [("mwem-pgm", 60.0), ("aim", 180.0)])
def test_pgm_on_the_wide_table_within_minutes(name, limit):
    """The failure of issue 27 at epsilon = 1, delta = 1e-6: completes with no warning (an
    overflow or NaN is an error here), within the target's seconds of CPU time (wall time
    follows the machine's load; benchmarks/wide_table.py prints both)."""
    table, schema = wide_table()
    t0 = time.process_time()
    params = {"epsilon": 1.0, "delta": 1e-6, "seed": 0}
    out = fit_and_sample(name, params, table, schema)
    assert time.process_time() - t0 < limit
    check_output(out, table, schema)

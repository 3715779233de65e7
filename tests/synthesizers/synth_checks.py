"""Checks shared by the synthesizer tests (imported by name: tests/ is on sys.path per folder)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.utility.marginals import compare_marginals


def check_table(schema: Schema, syn: pd.DataFrame, n: int) -> None:
    """The schema's columns in order, integers as int64 within bounds, declared categories only."""
    assert list(syn.columns) == schema.names
    assert len(syn) == n
    for col in schema.columns:
        s = syn[col.name]
        if isinstance(col, NumericColumn):
            assert s.dtype == (np.int64 if col.integer else np.float64), col.name
            assert s.min() >= col.lower and s.max() <= col.upper, col.name
        else:
            assert isinstance(col, CategoricalColumn)
            assert isinstance(s.dtype, pd.CategoricalDtype)
            assert list(s.cat.categories) == list(col.categories)
            assert s.notna().all()


def mean_marginal_l1(schema: Schema, real: pd.DataFrame, syn: pd.DataFrame) -> float:
    """Average over all columns of ||p_real - p_syn||_1 on the public bins (thesis Def. 4.3.1)."""
    columns = compare_marginals(real, syn, schema, binning="public").columns
    return float(np.mean([c.l1 for c in columns.values()]))

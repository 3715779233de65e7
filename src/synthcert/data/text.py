"""A value's text, independent of the other records: whole numbers written as integers.

pandas gives a column one dtype for all its values: an int64 column holding one null is read
as float64, and its 1 becomes "1.0". Wherever a value's name or parse must depend on the value
alone (category names, ISO dates written as 20210301), its text comes from here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthcert.data.numbers import to_numeric_safe

EXACT_INTEGERS = 2.0**53  # whole floats below this are integers exactly


def whole_as_integer_text(series: pd.Series) -> pd.Series:
    """``series`` as stripped text, with every value that is a whole number (below 2^53 in
    size) written as an integer ("1", never "1.0"): the name a value gets depends on the value
    alone, not on the dtype pandas gave its column (an int64 column holding one null is
    float64)."""
    parsed = to_numeric_safe(series).to_numpy(dtype=np.float64, na_value=np.nan)
    num = pd.Series(parsed, index=series.index)
    whole = num.notna() & (np.mod(num.fillna(0.5), 1) == 0) & (num.abs() < EXACT_INTEGERS)
    text = series.astype(str).str.strip()
    return text.where(~whole, num.where(whole, 0).astype(np.int64).astype(str))


__all__ = ["EXACT_INTEGERS", "whole_as_integer_text"]

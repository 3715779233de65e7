"""Numbers read from text without pandas 2.x's crash on huge exponents.

pandas 2.x's C parsers (``read_csv``'s type inference and ``to_numeric``) overflow a 32-bit
integer on an exponent of ten digits or more and kill the process (pandas-dev/pandas#63089,
fixed in pandas 3): a random hexadecimal identifier such as ``2e2812376119eef8`` is enough.
A segmentation fault has no message and no refusal, and in a DP run whether the job ends
would then depend on one record. So every number synthcert reads from text goes through
:func:`to_numeric_safe`, and every CSV file is read as text and its columns of numbers
converted here (:func:`numbers_read_back`, called by :mod:`synthcert.data.io`): a look at
the file's bytes cannot tell what pandas' tokenizer will make of quotes, line ends,
encodings or compression (an attacker got ``"2e"2812376119`` past one). The values are those
pandas gives where it does not crash; a value with a huge exponent is read by Python's
``float``: ``inf``, ``0.0``, or missing when it is not a number.
"""

from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np
import pandas as pd

LONG_EXPONENT = r"[eE][+-]?[0-9]{5,}"  # an exponent far beyond any double's (|e| < 400)


def to_numeric_safe(series: pd.Series) -> pd.Series:
    """``pd.to_numeric(series, errors="coerce")``, without the crash of a huge exponent.

    A text value with an exponent of five digits or more (:data:`LONG_EXPONENT`) is read by
    Python's ``float`` instead (underscores refused, as pandas does): ``"4e4924939"`` is
    ``inf``, ``"2e2812376119eef8"`` is not a number (missing). Every other value is read by
    pandas, so the numbers are the same as ``to_numeric``'s wherever it does not crash.

    Parameters
    ----------
    series : pandas.Series
        Any column; only text values are parsed.

    Returns
    -------
    pandas.Series
        Numbers (NaN where a value is missing or not a number), on the same index.

    Examples
    --------
    >>> to_numeric_safe(pd.Series(["1.5", "2e2812376119", "2e2812376119eef8", None])).tolist()
    [1.5, inf, nan, nan]
    """
    if isinstance(series.dtype, pd.CategoricalDtype):  # Parquet dictionaries: the values
        series = series.astype(object)
    risky = long_exponents(series)
    if not risky.any():
        return pd.to_numeric(series, errors="coerce")
    values = pd.to_numeric(series.mask(risky), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan, copy=True
    )
    values[risky] = [python_float(v) for v in series[risky]]
    return pd.Series(values, index=series.index, name=series.name)


def long_exponents(series: pd.Series) -> np.ndarray:
    """Where a text value carries an exponent of five digits or more (:data:`LONG_EXPONENT`);
    all False for a column of numbers, dates or non-text objects."""
    if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        try:
            return series.str.contains(LONG_EXPONENT, regex=True, na=False).to_numpy(dtype=bool)
        except AttributeError:  # no text value: nothing for the C parser to read
            pass
    return np.zeros(len(series), dtype=bool)


def python_float(text: str) -> float:
    """Python's reading of one number written as text (NaN when it is not one); underscores,
    which Python accepts and pandas does not, make it not a number."""
    text = str(text).strip()
    if "_" in text:
        return math.nan
    try:
        return float(text)
    except ValueError:
        return math.nan


def numbers_read_back(frame: pd.DataFrame, text_columns: Collection[str]) -> pd.DataFrame:
    """A chunk read all as text, with the columns ``read_csv`` would have read as numbers
    converted by :func:`to_numeric_safe` (int64 or float64 as pandas infers them): every column
    but ``text_columns`` whose present values are all numbers. The others stay text, as
    ``read_csv`` leaves them."""
    out = frame.copy()
    for name in frame.columns:
        if name in text_columns:
            continue
        text = frame[name]
        numbers = to_numeric_safe(text)
        if bool((numbers.notna() | text.isna()).all()):
            out[name] = numbers  # int64 where pandas' inference gives it, as read_csv would
    return out


__all__ = [
    "LONG_EXPONENT",
    "long_exponents",
    "numbers_read_back",
    "python_float",
    "to_numeric_safe",
]

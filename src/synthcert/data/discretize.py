"""Discretising a table on public bins (for PrivBayes, Private-PGM, marginal utility metrics).

Numeric columns are cut into equal-width bins over their public bounds (20 by default, as in
the thesis, section 4.3); categorical columns keep their categories. Decoding draws a value
uniformly within the bin (rounded for integer columns), which is post-processing.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthcert.data.encode import MissingPolicy, category_codes, numeric_values, prepare_frame
from synthcert.data.schema import NumericColumn, Schema
from synthcert.errors import DataError

DEFAULT_BINS = 20


def bin_edges(column: NumericColumn, bins: int = DEFAULT_BINS) -> np.ndarray:
    """The ``bins + 1`` equal-width edges over the column's public bounds."""
    return np.linspace(column.lower, column.upper, bins + 1)


def numeric_bin_codes(x: np.ndarray, column: NumericColumn, bins: int = DEFAULT_BINS) -> np.ndarray:
    """Bin index in 0..bins-1 of each value; values outside the bounds go to the end bins."""
    scaled = (x - column.lower) / (column.upper - column.lower) * bins
    return np.clip(np.floor(scaled), 0, bins - 1).astype(np.int64)


def bin_values(col: NumericColumn, bins: int, b: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """Values in public bin ``b`` at relative position ``frac`` in [0, 1] (post-processing).

    Continuous columns: uniform position within the bin. Integer columns: the integers whose
    bin is ``b``, indexed by ``frac``, so rounding never moves a value to another bin; a bin
    holding no integer gives the integer nearest its midpoint.
    """
    b = np.asarray(b, dtype=np.int64)
    frac = np.clip(np.asarray(frac, dtype=np.float64), 0.0, 1.0)
    width = (col.upper - col.lower) / bins
    if not col.integer:
        return col.lower + (b + frac) * width
    edges = col.lower + np.arange(bins + 1) * width
    first = np.ceil(edges[:-1])
    last = np.ceil(edges[1:]) - 1.0
    last[-1] = math.floor(col.upper)
    first = np.maximum(first, math.ceil(col.lower))
    # make the integer ranges agree exactly with the shared binning of the data layer
    for _ in range(2):
        first = np.where(numeric_bin_codes(first, col, bins) < np.arange(bins), first + 1, first)
        last = np.where(numeric_bin_codes(last, col, bins) > np.arange(bins), last - 1, last)
    count = last - first + 1.0
    lo, cnt = first[b], count[b]
    mid = np.rint(col.lower + (b + 0.5) * width)
    return np.where(cnt >= 1, lo + np.minimum(np.floor(frac * cnt), cnt - 1), mid)


class Discretizer:
    """Maps frames to integer codes per column and back."""

    def __init__(
        self, schema: Schema, *, bins: int = DEFAULT_BINS, missing: MissingPolicy = "drop"
    ) -> None:
        if bins < 2:
            raise DataError("bins must be at least 2")
        self.schema = schema
        self.bins = bins
        self.missing = missing

    @property
    def cardinalities(self) -> list[int]:
        """Number of codes of each column, in schema order."""
        return [
            self.bins if isinstance(c, NumericColumn) else len(c.categories)
            for c in self.schema.columns
        ]

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """An (n, k) int64 array of codes, one column per schema column."""
        frame, _ = prepare_frame(df, self.schema, missing=self.missing)
        out = np.empty((len(frame), len(self.schema.columns)), dtype=np.int64)
        for j, col in enumerate(self.schema.columns):
            if isinstance(col, NumericColumn):
                out[:, j] = numeric_bin_codes(numeric_values(frame[col.name], col), col, self.bins)
            else:
                out[:, j] = category_codes(frame[col.name], col)
        return out

    def inverse_transform(self, codes: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
        """Decode codes: categories by name, numeric values inside their bin (`bin_values`)."""
        codes = np.asarray(codes, dtype=np.int64)
        data: dict[str, object] = {}
        for j, col in enumerate(self.schema.columns):
            c = codes[:, j]
            if isinstance(col, NumericColumn):
                x = bin_values(col, self.bins, c, rng.random(len(c)))
                data[col.name] = x.astype(np.int64) if col.integer else x
            else:
                data[col.name] = pd.Categorical.from_codes(c, categories=list(col.categories))
        return pd.DataFrame(data, columns=self.schema.names)

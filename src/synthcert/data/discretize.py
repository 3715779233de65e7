"""Discretising a table on public bins (for PrivBayes, Private-PGM, marginal utility metrics).

Numeric columns are cut into equal-width bins over their public bounds (20 by default, as in
the thesis, section 4.3); categorical columns keep their categories. Decoding draws a value
uniformly within the bin (rounded for integer columns), which is post-processing.
"""

from __future__ import annotations

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
        """Decode codes: categories by name, numeric values uniformly within their bin."""
        codes = np.asarray(codes, dtype=np.int64)
        data: dict[str, object] = {}
        for j, col in enumerate(self.schema.columns):
            c = codes[:, j]
            if isinstance(col, NumericColumn):
                width = (col.upper - col.lower) / self.bins
                x = col.lower + (c + rng.random(len(c))) * width
                x = np.clip(x, col.lower, col.upper)
                data[col.name] = np.rint(x).astype(np.int64) if col.integer else x
            else:
                data[col.name] = pd.Categorical.from_codes(c, categories=list(col.categories))
        return pd.DataFrame(data)

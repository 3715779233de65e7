"""Encoding a table to points of [-1,1]^d with public bounds, and decoding back (post-processing).

Numeric columns map linearly from [lower, upper] to [-1, 1]; values outside the declared bounds
are clipped and counted. Categorical columns use dummy coding with the first level dropped,
mapped to {-1, 1}, so the covariance is not singular by construction; decoding picks the
nearest category. Decoding is post-processing and keeps any privacy guarantee.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.schema import CategoricalColumn, Column, NumericColumn, Schema
from synthcert.errors import DataError

MissingPolicy = Literal["drop", "fail"]


@dataclass(frozen=True)
class EncodeReport(Result):
    """What encoding did to the input: rows kept, rows dropped, values clipped per column."""

    rows_in: int
    rows_kept: int
    rows_dropped_missing: int
    values_clipped: dict[str, int]

    @property
    def rows_clipped(self) -> int:
        """Total number of clipped values (a row with two clipped values counts twice)."""
        return int(sum(self.values_clipped.values()))


def merge_reports(reports: Iterable[EncodeReport]) -> EncodeReport:
    """Sum encode reports of disjoint pieces of a table."""
    rows_in = kept = dropped = 0
    clipped: dict[str, int] = {}
    for r in reports:
        rows_in += r.rows_in
        kept += r.rows_kept
        dropped += r.rows_dropped_missing
        for k, v in r.values_clipped.items():
            clipped[k] = clipped.get(k, 0) + int(v)
    return EncodeReport(rows_in, kept, dropped, clipped)


def missing_mask(series: pd.Series, column: Column | None) -> np.ndarray:
    """Where a value counts as missing, by public rule: empty, text that is not a number in a
    numeric column, or a value outside a categorical column's declared categories."""
    isna = series.isna().to_numpy()
    if isinstance(column, NumericColumn):
        return isna | np.isnan(numeric_values(series, column))
    if isinstance(column, CategoricalColumn):
        return isna | (category_codes(series, column) < 0)
    return isna


def prepare_frame(
    df: pd.DataFrame, schema: Schema, *, missing: MissingPolicy = "drop", row_offset: int = 0
) -> tuple[pd.DataFrame, int]:
    """Apply the missing-value policy to whole rows; the schema's columns are read by name.

    A value is missing when it is empty, when a numeric column holds text that is not a
    number, or when a categorical column holds a value outside its declared categories (public
    rules: one odd record never aborts a fit with an error that names it). Columns the schema
    lists under ``drop`` are discarded first and do not count. ``drop`` removes incomplete rows
    and reports how many (a private count), ``fail`` refuses. Nothing is imputed. Returns
    (frame, rows dropped).
    """
    absent = [n for n in schema.names if n not in df.columns]
    if absent:
        raise DataError(f"the input has no column(s) {absent}; it has {list(map(str, df.columns))}")
    dropped = [c for c in schema.drop if c in df.columns]
    kept = df.drop(columns=dropped) if dropped else df
    declared = {c.name: c for c in schema.columns}
    names = [str(c) for c in kept.columns]
    incomplete = np.column_stack([missing_mask(kept[c], declared.get(c)) for c in kept.columns])
    is_missing = incomplete.any(axis=1)
    n_missing = int(is_missing.sum())
    if not n_missing:
        return kept, 0  # no copy: callers read the schema's columns by name
    if missing == "fail":
        first = int(np.flatnonzero(is_missing)[0])
        col = names[int(np.flatnonzero(incomplete[first])[0])]
        raise DataError(
            "the table has a missing value (empty, text in a numeric column, or a value outside "
            "the declared categories) and --missing fail refuses missing values; use --missing "
            "drop to drop incomplete rows",
            private_detail=f"row {first + row_offset}, column {col!r}; "
            f"{n_missing} rows have missing values",
        )
    return kept.loc[~is_missing], n_missing


def numeric_values(series: pd.Series, column: NumericColumn, row_offset: int = 0) -> np.ndarray:
    """The column as float64; text that is not a number is NaN (missing, by public rule)."""
    return pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)


def category_codes(series: pd.Series, column: CategoricalColumn, row_offset: int = 0) -> np.ndarray:
    """Integer codes 0..k-1 of the column's values; -1 for a missing or undeclared value."""
    text = series.astype(str).str.strip().where(series.notna(), None)
    cat = pd.Categorical(text, categories=list(column.categories))
    return np.asarray(cat.codes, dtype=np.int64)


class Encoder:
    """Maps frames to [-1,1]^d and back, following a :class:`Schema`."""

    def __init__(self, schema: Schema, *, missing: MissingPolicy = "drop") -> None:
        self.schema = schema
        self.missing = missing
        self.dim = schema.encoded_dim

    def encode(self, df: pd.DataFrame, *, row_offset: int = 0) -> tuple[np.ndarray, EncodeReport]:
        """Encode a frame to an (n, d) float64 array in [-1,1]^d; report drops and clips."""
        frame, n_missing = prepare_frame(
            df, self.schema, missing=self.missing, row_offset=row_offset
        )
        n = len(frame)
        out = np.empty((n, self.dim), dtype=np.float64)
        clipped: dict[str, int] = {}
        j = 0
        for col in self.schema.columns:
            series = frame[col.name]
            if isinstance(col, NumericColumn):
                x = numeric_values(series, col, row_offset)
                clipped[col.name] = int(np.count_nonzero((x < col.lower) | (x > col.upper)))
                scale = 2.0 / (col.upper - col.lower)
                np.multiply(x - col.lower, scale, out=out[:, j])
                out[:, j] -= 1.0
                np.clip(out[:, j], -1.0, 1.0, out=out[:, j])
                j += 1
            else:
                codes = category_codes(series, col, row_offset)
                block = out[:, j : j + col.width]
                block.fill(-1.0)
                rows = np.flatnonzero(codes > 0)
                block[rows, codes[rows] - 1] = 1.0
                j += col.width
        report = EncodeReport(len(df), n, n_missing, clipped)
        return out, report

    def decode(self, X: np.ndarray) -> pd.DataFrame:
        """Map points of R^d back to a frame in the original units (clipping to the bounds)."""
        return self.frame(self.decode_columns(X))

    def empty_columns(self, n: int) -> dict[str, np.ndarray]:
        """Uninitialised output arrays for ``n`` decoded rows (values, or category codes)."""
        return {
            c.name: np.empty(n, np.int64 if c.kind == "categorical" or c.integer else np.float64)
            for c in self.schema.columns
        }

    def decode_columns(
        self, X: np.ndarray, out: dict[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """Decode into per-column arrays (numeric values, category codes), optionally in place."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise DataError(f"expected an (n, {self.dim}) array, got shape {X.shape}")
        out = self.empty_columns(X.shape[0]) if out is None else out
        j = 0
        for col in self.schema.columns:
            target = out[col.name]
            if isinstance(col, NumericColumn):
                half = 0.5 * (col.upper - col.lower)
                x = np.clip(X[:, j], -1.0, 1.0)
                x += 1.0
                x *= half
                x += col.lower
                if col.integer:
                    np.rint(x, out=x)
                target[:] = x
                j += 1
            else:
                target[:] = nearest_category(X[:, j : j + col.width])
                j += col.width
        return out

    def frame(self, columns: dict[str, np.ndarray]) -> pd.DataFrame:
        """A frame from decoded per-column arrays (category codes become categoricals)."""
        data: dict[str, object] = {}
        for col in self.schema.columns:
            values = columns[col.name]
            if isinstance(col, CategoricalColumn):
                values = pd.Categorical.from_codes(values, categories=list(col.categories))
            data[col.name] = values
        return pd.DataFrame(data, copy=False)


def nearest_category(block: np.ndarray) -> np.ndarray:
    """Code of the nearest dummy codeword: level j>0 is e_j in {-1,1}, level 0 is all -1.

    ||v - c_0||^2 = S and ||v - c_j||^2 = S - 4 v_j, so the nearest is argmax_j v_j when that
    maximum is positive, else level 0.
    """
    if block.shape[1] == 0:
        return np.zeros(block.shape[0], dtype=np.int64)
    best = np.argmax(block, axis=1)
    top = block[np.arange(block.shape[0]), best]
    return np.where(top > 0, best + 1, 0).astype(np.int64)

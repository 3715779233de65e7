"""Encoding a table to points of [-1,1]^d with public bounds, and decoding back (post-processing).

Numeric columns map linearly from [lower, upper] to [-1, 1] (after the public log transform
of a ``scale: log`` column; dates as days or seconds since 1970); values outside the declared
bounds are clipped and counted. Categorical columns use dummy coding with the first level
dropped, mapped to {-1, 1}, so the covariance is not singular by construction; decoding picks
the nearest category. Decoding is post-processing and keeps any privacy guarantee.

A nullable column adds one missingness-indicator dimension in {-1, 1} (+1: missing) after its
value coordinates, so d counts it. When the value is missing its coordinates take the public
fill value 0 (the centre of [-1, 1], the same for every table); decoding returns a missing value
wherever the indicator is positive, whatever the value coordinates hold.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.numbers import to_numeric_safe
from synthcert.data.schema import CategoricalColumn, Column, DatetimeColumn, NumericColumn, Schema
from synthcert.data.text import whole_as_integer_text
from synthcert.errors import DataError, ParameterError

MissingPolicy = Literal["model", "drop", "fail", "fill"]
MISSING_POLICIES: tuple[str, ...] = ("model", "drop", "fail", "fill")
MISSING_FILL = 0.0  # public value of a missing value's encoded coordinates


@dataclass(frozen=True)
class EncodeReport(Result):
    """What encoding did to the input: rows kept, rows dropped, values clipped per column."""

    rows_in: int
    rows_kept: int
    rows_dropped_missing: int
    values_clipped: dict[str, int]
    values_filled: int = 0  # missing values given the public fill (policy "fill"); private

    @property
    def rows_clipped(self) -> int:
        """Total number of clipped values (a row with two clipped values counts twice)."""
        return int(sum(self.values_clipped.values()))


def merge_reports(reports: Iterable[EncodeReport]) -> EncodeReport:
    """Sum encode reports of disjoint pieces of a table."""
    rows_in = kept = dropped = filled = 0
    clipped: dict[str, int] = {}
    for r in reports:
        rows_in += r.rows_in
        kept += r.rows_kept
        dropped += r.rows_dropped_missing
        filled += r.values_filled
        for k, v in r.values_clipped.items():
            clipped[k] = clipped.get(k, 0) + int(v)
    return EncodeReport(rows_in, kept, dropped, clipped, filled)


def check_missing_policy(missing: str) -> MissingPolicy:
    """Validate a missing-value policy name."""
    if missing not in MISSING_POLICIES:
        raise DataError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}")
    return missing  # type: ignore[return-value]


def missing_policy_for(missing: str, neighboring: str, *, private: bool = True) -> MissingPolicy:
    """The policy a synthesizer applies: ``"model"`` becomes ``"fill"`` under bounded
    (replace-one) neighbours, where n is public and a row can be neither dropped nor refused
    without telling neighbours apart; under add/remove neighbours a policy is applied as given.

    Raises
    ------
    ParameterError
        ``"drop"`` or ``"fail"`` under replace-one neighbours of a run that claims privacy
        (``private``): dropping one row changes the public n, and refusing one odd record
        tells D from D' (the refusal is a published exit code). The check reads the options
        only, so D and D' are refused alike. A run without a claim may drop or refuse.
    """
    policy = check_missing_policy(missing)
    replace_one = neighboring.startswith("bounded")  # bounded, bounded-direct
    if private and replace_one and policy in ("drop", "fail"):
        raise ParameterError(
            f"--param missing={policy} cannot be used under bounded neighbours: the table size is "
            "public there, so one record's missing value can be neither dropped nor refused "
            "without telling neighbouring tables apart; use --param missing=model (a missing value "
            "of a column that is not nullable then takes the column's public fill)"
        )
    return "fill" if policy == "model" and replace_one else policy


def public_fill(column: Column) -> float | str:
    """The PUBLIC value of a missing value of a non-nullable column under the ``fill`` policy:
    the declared ``fill``, else the first declared category (categorical) or the midpoint of
    the public bounds (numeric; dates: in days or seconds since 1970). It depends on the schema
    only, so filling is a record-wise map and keeps both neighbouring relations. A numeric fill
    is clipped into the bounds (which only data-derived bounds can leave it outside)."""
    if column.fill is not None:
        if isinstance(column, NumericColumn):
            return min(max(float(column.fill), column.lower), column.upper)
        return column.fill
    if isinstance(column, CategoricalColumn):
        return column.categories[0]
    return 0.5 * (column.lower + column.upper)


def filled_series(series: pd.Series, column: Column, mask: np.ndarray) -> pd.Series:
    """``series`` with the values under ``mask`` replaced by :func:`public_fill`, written as the
    column's readers parse them (a number, a category name, a date)."""
    value: object = public_fill(column)
    if isinstance(column, DatetimeColumn):
        value = column.iso(float(value))  # type: ignore[arg-type]
        if pd.api.types.is_datetime64_any_dtype(series):
            tz = getattr(series.dt, "tz", None)
            stamp = pd.Timestamp(str(value))
            value = stamp if tz is None else stamp.tz_localize("UTC").tz_convert(tz)
            out = series.copy()
            out[mask] = value
            return out
    numbers = isinstance(column, NumericColumn) and series.dtype.kind == "f"
    out = series.copy() if numbers else series.astype(object)
    out[mask] = value
    return out


def missing_mask(series: pd.Series, column: Column | None = None) -> np.ndarray:
    """True where the value is missing, by public rule: empty; text that does not parse in a
    numeric or date column; a value outside a categorical column's declared categories."""
    isna = series.isna().to_numpy()
    if isinstance(column, NumericColumn):
        return isna | np.isnan(numeric_values(series, column))
    if isinstance(column, CategoricalColumn):
        return isna | (category_codes(series, column) < 0)
    return isna


def prepare_frame(
    df: pd.DataFrame, schema: Schema, *, missing: MissingPolicy = "drop", row_offset: int = 0
) -> tuple[pd.DataFrame, int]:
    """:func:`prepare_table` without the count of filled values: (frame, rows dropped)."""
    frame, dropped, _ = prepare_table(df, schema, missing=missing, row_offset=row_offset)
    return frame, dropped


def prepare_table(
    df: pd.DataFrame, schema: Schema, *, missing: MissingPolicy = "drop", row_offset: int = 0
) -> tuple[pd.DataFrame, int, int]:
    """Apply the missing-value policy to whole rows; the schema's columns are read by name.

    A value is missing when it is empty, or when a numeric or date column holds text that does
    not parse (a public rule: such text is missing, never an error). Columns the schema lists
    under ``drop`` are discarded first. Policies:

    * ``model``: missing values of nullable columns are kept (the synthesizers model them);
      a row missing a value of any other input column is dropped (counted), so list the
      input columns you do not model under ``drop`` (``schema infer`` does);
    * ``drop``: every row with a missing value in any input column is dropped, nullable
      columns included (the literature's "complete rows" of Adult);
    * ``fail``: as ``model``, but a missing value outside a nullable column is refused;
    * ``fill``: as ``model``, but a missing value of a non-nullable schema column (empty,
      unparsable text, an undeclared category) takes the column's PUBLIC fill
      (:func:`public_fill`), and columns outside the schema are ignored: no row is ever
      dropped or refused (the policy of bounded neighbours, where n is public).

    Nothing else is imputed. Returns (frame, rows dropped, values filled); the counts are
    private (run record only).
    """
    missing = check_missing_policy(missing)
    absent = [n for n in schema.names if n not in df.columns]
    if absent:
        raise DataError(f"the input has no column(s) {absent}; it has {list(map(str, df.columns))}")
    dropped = [c for c in schema.drop if c in df.columns]
    kept = df.drop(columns=dropped) if dropped else df
    if missing == "fill":
        return _fill_frame(kept, schema)
    declared = {c.name: c for c in schema.columns}
    masks: list[np.ndarray] = []
    names: list[str] = []
    for name in kept.columns:
        col = declared.get(name)
        if missing != "drop" and col is not None and col.nullable:
            continue
        masks.append(missing_mask(kept[name], col))
        names.append(str(name))
    if not masks:
        return kept, 0, 0
    incomplete = np.column_stack(masks)
    is_missing = incomplete.any(axis=1)
    n_missing = int(is_missing.sum())
    if not n_missing:
        return kept, 0, 0  # no copy: callers read the schema's columns by name
    if missing == "fail":
        first = int(np.flatnonzero(is_missing)[0])
        col_name = names[int(np.flatnonzero(incomplete[first])[0])]
        raise DataError(
            "the table has a missing value (empty, text in a numeric or date column, or a "
            "value outside the declared categories) in a column that is not nullable, and "
            '--param missing=fail refuses it: declare such columns "nullable": true, or use '
            "--param missing=drop to drop such rows",
            private_detail=f"row {first + row_offset}, column {col_name!r}; "
            f"{n_missing} rows have missing values",
        )
    return kept.loc[~is_missing], n_missing, 0


def _fill_frame(frame: pd.DataFrame, schema: Schema) -> tuple[pd.DataFrame, int, int]:
    """The ``fill`` policy: (frame with public fills, 0 rows dropped, values filled)."""
    out, filled = frame, 0
    for col in schema.columns:
        if col.nullable:
            continue
        mask = missing_mask(frame[col.name], col)
        k = int(np.count_nonzero(mask))
        if k:
            if out is frame:
                out = frame.copy()
            out[col.name] = filled_series(frame[col.name], col, mask)
            filled += k
    return out, 0, filled


BOOLEAN_TEXT = {"true": 1.0, "false": 0.0}  # what pandas reads as booleans, case-folded


# pandas's inferred kinds of an object column that cannot hold a complex value (a CSV's text
# is "string"); any other kind is looked at value by value
NO_COMPLEX = frozenset(
    {"empty", "string", "bytes", "boolean", "integer", "floating", "mixed-integer-float", "decimal"}
)


def numeric_values(series: pd.Series, column: NumericColumn, row_offset: int = 0) -> np.ndarray:
    """The column as float64 (dates: days or seconds since 1970); missing or non-numeric
    text gives NaN (the public rule of :func:`prepare_frame`: such a value is missing).

    A boolean is 1 or 0 whether pandas read the column as booleans or, because another record
    holds text, as text ("True", "false", ...): a value's number depends on the value alone,
    so one record can never change how the others are read."""
    if isinstance(column, DatetimeColumn):
        return column.to_number(series)
    if pd.api.types.is_bool_dtype(series):
        return series.to_numpy(dtype=np.float64)
    if series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) not in NO_COMPLEX:
        # a complex value made pandas read every boolean of the column as garbage (found by
        # an attacker: one record moved nine counts); it is not a number here: missing. Text
        # (a CSV's) is never complex: only other objects are looked at, value by value
        series = series.where(~series.map(lambda v: isinstance(v, complex)).astype(bool))
    out = np.array(to_numeric_safe(series), dtype=np.float64)
    unread = np.isnan(out) & series.notna().to_numpy()
    if unread.any() and (series.dtype == object or pd.api.types.is_string_dtype(series)):
        # only the values to_numeric could not read: text booleans, as a boolean column reads
        text = series[unread].astype(str).str.strip().str.lower()
        out[unread] = text.map(BOOLEAN_TEXT).to_numpy(dtype=np.float64, na_value=np.nan)
    return out


def category_text(series: pd.Series, column: CategoricalColumn) -> pd.Series:
    """The values as category names: integers without a decimal point, booleans as
    ``True``/``False``, text stripped; missing values stay missing.

    A value's name depends on the value alone, never on the other records: text read from a
    CSV is taken as written (:class:`~synthcert.data.io.CsvOptions` reads categorical columns
    as text), and numbers (a Parquet column) are written by :func:`whole_as_integer_text`."""
    present = series.notna()
    numbers = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )
    if column.dtype == "integer" or (numbers and column.dtype != "boolean"):
        text = whole_as_integer_text(series)
    elif column.dtype == "boolean":
        text = series.astype(str).str.strip()
        low = text.str.lower()
        text = text.where(~low.isin(["true", "1", "1.0"]), "True")
        text = text.where(~low.isin(["false", "0", "0.0"]), "False")
    else:
        text = series.astype(str).str.strip()
    return text.where(present, None)


def category_codes(series: pd.Series, column: CategoricalColumn, row_offset: int = 0) -> np.ndarray:
    """Integer codes 0..k-1 of the column's values; -1 for a missing value or a value outside
    the declared categories (a missing value by public rule: never an error naming it)."""
    text = category_text(series, column)
    cat = pd.Categorical(text, categories=list(column.categories))
    return np.asarray(cat.codes, dtype=np.int64)


def typed_column(col: Column, values: np.ndarray) -> object:
    """Decoded values in the schema's dtype (post-processing).

    Numeric ``values`` are numbers with NaN for missing: integers give ``int64`` (``Int64``
    when nullable), dates ``datetime64[ns]`` (NaT when missing), others float64 (rounded to
    the column's declared ``decimals``). Categorical
    ``values`` are codes with -1 for missing: a pandas categorical of the names (``string``),
    the integer categories (``int64``/``Int64``) or booleans (``bool``/``boolean``).
    """
    if isinstance(col, DatetimeColumn):
        return col.to_datetime(values)
    if isinstance(col, NumericColumn):
        x = np.asarray(values, dtype=np.float64)
        if not col.integer:
            if col.decimals is None:
                return x
            # the declared precision, within the public bounds (rounding may step past one)
            return np.clip(np.round(x, col.decimals), col.lower, col.upper)
        if col.nullable:
            return pd.array(np.where(np.isnan(x), np.nan, np.rint(x)), dtype="Int64")
        return np.rint(x).astype(np.int64) if x.dtype.kind == "f" else x.astype(np.int64)
    codes = np.asarray(values, dtype=np.int64)
    if col.dtype == "string":
        return pd.Categorical.from_codes(codes, categories=list(col.categories))
    if col.dtype == "integer":
        cats = np.array([int(c) for c in col.categories], dtype=np.int64)
        if not col.nullable:
            return cats[codes]
        return _nullable_ints(cats, codes)
    bools = np.array([c == "True" for c in col.categories])
    if not col.nullable:
        return bools[codes]
    out = pd.array(bools[np.maximum(codes, 0)], dtype="boolean")
    out[codes < 0] = pd.NA
    return out


def _nullable_ints(cats: np.ndarray, codes: np.ndarray) -> object:
    out = pd.array(cats[np.maximum(codes, 0)], dtype="Int64")
    out[codes < 0] = pd.NA
    return out


def typed_frame(schema: Schema, data: dict[str, np.ndarray]) -> pd.DataFrame:
    """A frame of the schema's columns in their dtypes (:func:`typed_column`)."""
    return pd.DataFrame(
        {c.name: typed_column(c, data[c.name]) for c in schema.columns}, columns=schema.names
    )


def dates_as_written(frame: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """The decoded frame as a CSV file holds it: each date column of a declared resolution
    as text at that resolution (:meth:`~synthcert.data.schema.DatetimeColumn.as_text`); the
    frame itself when there is none. Parquet keeps the dates typed."""
    dated = [
        c for c in schema.columns
        if isinstance(c, DatetimeColumn) and c.resolution is not None and c.name in frame
    ]  # fmt: skip
    if not dated:
        return frame
    return frame.assign(**{c.name: c.as_text(frame[c.name]) for c in dated})


def clipped_typed_frame(schema: Schema, data: dict[str, np.ndarray]) -> pd.DataFrame:
    """:func:`typed_frame` of a model's sampled values: numbers clipped to the public bounds
    first (NaN = missing), then integers rounded and category codes (-1 = missing) typed."""
    out: dict[str, np.ndarray] = {}
    for col in schema.columns:
        values = data[col.name]
        if isinstance(col, NumericColumn):
            values = np.clip(np.asarray(values, dtype=np.float64), col.lower, col.upper)
        out[col.name] = values
    return typed_frame(schema, out)


class Encoder:
    """Maps frames to [-1,1]^d and back, following a :class:`Schema`.

    A numeric column maps linearly from its public ``[lower, upper]`` (after the public log
    transform of a ``scale="log"`` column) to [-1, 1], clipping values outside the bounds; a
    categorical column of k levels takes k - 1 dummy coordinates in {-1, 1} (first level
    dropped); a nullable column adds one missingness indicator (module docstring). Decoding is
    post-processing: it keeps any privacy guarantee.

    Parameters
    ----------
    schema : Schema
        The public schema; ``d = schema.encoded_dim``.
    missing : {"model", "drop", "fail"}, default "model"
        Missing-value policy applied by :meth:`encode` (see :func:`prepare_frame`).

    Attributes
    ----------
    schema : Schema
        The schema given.
    missing : str
        The validated policy.
    dim : int
        d, the number of encoded coordinates.

    Raises
    ------
    DataError
        ``missing`` is not one of the three policies.

    Examples
    --------
    >>> import pandas as pd
    >>> from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
    >>> schema = Schema((NumericColumn("age", 0, 100), CategoricalColumn("sex", ("F", "M"))))
    >>> enc = Encoder(schema)
    >>> X, report = enc.encode(pd.DataFrame({"age": [25, 150], "sex": ["F", "M"]}))
    >>> X.tolist(), report.values_clipped
    ([[-0.5, -1.0], [1.0, 1.0]], {'age': 1})
    >>> enc.decode(X)["age"].tolist()
    [25.0, 100.0]
    """

    def __init__(self, schema: Schema, *, missing: MissingPolicy = "model") -> None:
        self.schema = schema
        self.missing = check_missing_policy(missing)
        self.dim = schema.encoded_dim

    def encode(self, df: pd.DataFrame, *, row_offset: int = 0) -> tuple[np.ndarray, EncodeReport]:
        """Encode a frame to an (n, d) float64 array in [-1,1]^d; report drops and clips."""
        frame, n_missing, filled = prepare_table(
            df, self.schema, missing=self.missing, row_offset=row_offset
        )
        n = len(frame)
        out = np.empty((n, self.dim), dtype=np.float64)
        clipped: dict[str, int] = {}
        tmp = np.empty(n, dtype=np.float64)
        j = 0
        for col in self.schema.columns:
            series = frame[col.name]
            if isinstance(col, NumericColumn):
                x = numeric_values(series, col, row_offset)
                clipped[col.name] = _numeric_block(col, x, out, j, tmp)
            else:
                _categorical_block(col, series, out, j, row_offset)
            j += col.width
        report = EncodeReport(len(df), n, n_missing, clipped, filled)
        return out, report

    def decode(self, X: np.ndarray) -> pd.DataFrame:
        """Map points of R^d back to a frame in the original units (clipping to the bounds)."""
        return self.frame(self.decode_columns(X))

    def empty_columns(self, n: int) -> dict[str, np.ndarray]:
        """Uninitialised output arrays for ``n`` decoded rows (values, or category codes)."""
        return {c.name: np.empty(n, _decoded_dtype(c)) for c in self.schema.columns}

    def decode_columns(
        self, X: np.ndarray, out: dict[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """Decode into per-column arrays (numeric values with NaN for missing, category codes
        with -1 for missing), optionally in place."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise DataError(f"expected an (n, {self.dim}) array, got shape {X.shape}")
        out = self.empty_columns(X.shape[0]) if out is None else out
        j = 0
        for col in self.schema.columns:
            target = out[col.name]
            values = col.width - int(col.nullable)
            absent = X[:, j + values] > 0 if col.nullable else None
            if isinstance(col, NumericColumn):
                lo, hi = col.model_bounds
                x = np.clip(X[:, j], -1.0, 1.0)
                x += 1.0
                x *= 0.5 * (hi - lo)
                x += lo
                x = np.clip(col.from_model(x), col.lower, col.upper)
                if col.integer:
                    np.rint(x, out=x)
                if absent is not None:
                    x[absent] = np.nan
                target[:] = x
            else:
                codes = nearest_category(X[:, j : j + values])
                if absent is not None:
                    codes[absent] = -1
                target[:] = codes
            j += col.width
        return out

    def frame(self, columns: dict[str, np.ndarray]) -> pd.DataFrame:
        """A frame from decoded per-column arrays, in the schema's dtypes (:func:`typed_frame`)."""
        return typed_frame(self.schema, columns)


def _decoded_dtype(col: Column) -> type:
    """int64 for category codes and non-nullable integers, else float64 (NaN = missing)."""
    if isinstance(col, CategoricalColumn):
        return np.int64
    return np.int64 if col.integer and not col.nullable else np.float64


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


# -- Arrow record batches ----------------------------------------------------------------------
# The Parquet fit reads record batches; a batch whose columns are all plain numbers is encoded
# here straight from its Arrow buffers (no pandas frame), with the same arithmetic as
# Encoder.encode. Anything else (dates, categories, text, a refusal to raise) takes the frame.


def _arrow_float64(array: object) -> np.ndarray | None:
    """The column as float64 with NaN for a null, when Arrow holds it as plain numbers.

    The same numbers as ``numeric_values`` of the column converted to pandas: integers and
    float32 are widened by the same IEEE conversion, a null or NaN gives NaN, booleans without
    nulls give 0/1. None for any other type (text, dates, dictionaries, decimals, float16,
    booleans with nulls): those go through pandas.
    """
    import pyarrow as pa

    t = array.type  # type: ignore[attr-defined]
    plain = pa.types.is_integer(t) or t in (pa.float32(), pa.float64())
    if not plain and not (pa.types.is_boolean(t) and array.null_count == 0):  # type: ignore[attr-defined]
        return None
    values = array.to_numpy(zero_copy_only=False)  # type: ignore[attr-defined]
    return np.asarray(values, dtype=np.float64)


def _arrow_absent(array: object) -> np.ndarray | None:
    """True where a column outside the schema is missing (``isna`` of its pandas values), for
    numbers, booleans and text; None for other types (they go through pandas)."""
    import pyarrow as pa

    t = array.type  # type: ignore[attr-defined]
    if pa.types.is_floating(t) and t != pa.float16():
        return array.is_null(nan_is_null=True).to_numpy(zero_copy_only=False)  # type: ignore[attr-defined]
    kinds = (pa.types.is_integer, pa.types.is_boolean, pa.types.is_string, pa.types.is_large_string)
    if any(kind(t) for kind in kinds):
        return array.is_null().to_numpy(zero_copy_only=False)  # type: ignore[attr-defined]
    return None


_PLAIN_NUMPY_TYPES = frozenset(
    [f"{p}{b}" for p in ("int", "uint", "Int", "UInt") for b in (8, 16, 32, 64)]
    + ["float32", "float64", "bool"]
)


def _plain_pandas_metadata(schema: object) -> bool:
    """True when pandas would turn the batch into the frame of its plain columns: no stored
    index, each column named by its field, in a numpy number dtype, a nullable integer dtype
    (``Int64``...: NA is NaN once converted, as a null is here) or text.

    A file written by pandas keeps its dtypes in the schema's metadata, and ``to_pandas``
    follows it (an index column leaves the columns, ``Float64`` or ``boolean`` change what is
    missing): such batches go through their frame.
    """
    meta = schema.pandas_metadata  # type: ignore[attr-defined]
    if not meta:
        return True
    if any(not isinstance(i, dict) for i in meta.get("index_columns", [])):
        return False
    if len(meta.get("column_indexes", [])) > 1:
        return False
    for entry in meta.get("columns", []):
        name, field, numpy_type = (
            entry.get("name"),
            entry.get("field_name"),
            entry.get("numpy_type"),
        )
        if not isinstance(name, str) or name != field:
            return False
        pandas_type = entry.get("pandas_type")
        if pandas_type == "unicode":
            continue
        if numpy_type not in _PLAIN_NUMPY_TYPES or pandas_type not in _PLAIN_NUMPY_TYPES:
            return False
    return True


def encode_arrow(
    encoder: Encoder, batch: object, *, row_offset: int = 0
) -> tuple[np.ndarray, EncodeReport] | None:
    """Encode an Arrow record batch as ``encoder.encode`` encodes its pandas frame, or None.

    A numeric schema column (not a date) held by Arrow as integers, float32/float64 or
    booleans without nulls is read from the Arrow buffers (without a copy for float64 without
    nulls), a null or NaN being a missing value as in :func:`prepare_frame`; any other schema
    column (categories, dates, numbers held as text) is converted to pandas on its own and
    read by the frame's rules (:func:`missing_mask`, :func:`category_codes`,
    :func:`numeric_values`, on the kept rows as there). Columns outside the schema must be
    numbers, booleans or text. Each column is encoded by the same operations as
    :meth:`Encoder.encode` (Miura et al.'s encoding to [-1, 1]^d), so X and the report are the
    same numbers, bit for bit.

    Returns None, and does nothing, when the batch needs the frame: a column outside the schema
    of another type, a schema column absent or duplicated, pandas metadata that changes the
    frame, or a missing value that ``missing="fail"`` refuses or ``missing="fill"`` fills (the
    caller then encodes the frame, which raises the same refusal or applies the same fill).

    Parameters
    ----------
    encoder : Encoder
        The public encoding and missing-value policy.
    batch : pyarrow.RecordBatch
        Consecutive rows of the table.
    row_offset : int
        Index of the batch's first row within its table (unused unless refused).

    Returns
    -------
    tuple of (numpy.ndarray, EncodeReport) or None
        X of shape (kept rows, d) and the report, as ``encoder.encode`` gives them.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> enc = Encoder(Schema((NumericColumn("age", 0, 100),)), missing="drop")
    >>> X, report = encode_arrow(enc, pa.record_batch({"age": pa.array([25, None, 150])}))
    >>> X.tolist(), report.rows_dropped_missing, report.values_clipped
    ([[-0.5], [1.0]], 1, {'age': 1})
    """
    schema = encoder.schema
    names = [str(n) for n in batch.schema.names]  # type: ignore[attr-defined]
    if len(set(names)) != len(names) or any(n not in names for n in schema.names):
        return None
    if not _plain_pandas_metadata(batch.schema):  # type: ignore[attr-defined]
        return None
    declared = {c.name: c for c in schema.columns}
    skip = set(schema.drop)
    values: dict[str, np.ndarray] = {}
    frames: dict[str, pd.Series] = {}
    masks: list[np.ndarray] = []
    for i, name in enumerate(names):
        if name in skip:
            continue
        array = batch.column(i)  # type: ignore[attr-defined]
        col = declared.get(name)
        if col is None and encoder.missing == "fill":
            continue  # the fill policy ignores columns outside the schema
        if col is None:
            absent = _arrow_absent(array)
            if absent is None:
                return None
            masks.append(absent)
            continue
        plain = isinstance(col, NumericColumn) and not isinstance(col, DatetimeColumn)
        x = _arrow_float64(array) if plain else None
        counted = encoder.missing == "drop" or not col.nullable
        if x is not None:
            values[name] = x
            if counted:
                masks.append(np.isnan(x))
            continue
        series = array.to_pandas()  # this column only, as the frame converts it
        frames[name] = series
        if counted:
            masks.append(missing_mask(series, col))
    rows_in = int(batch.num_rows)  # type: ignore[attr-defined]
    n_missing = 0
    if masks:
        is_missing = np.logical_or.reduce(masks) if len(masks) > 1 else masks[0]
        n_missing = int(np.count_nonzero(is_missing))
        if n_missing and encoder.missing in ("fail", "fill"):
            return None  # the frame raises the refusal, or fills (same numbers, same counts)
        if n_missing:
            keep = ~is_missing
            values = {k: v[keep] for k, v in values.items()}
            frames = {k: v.loc[keep] for k, v in frames.items()}
    n = rows_in - n_missing
    out = np.empty((n, encoder.dim), dtype=np.float64)
    clipped: dict[str, int] = {}
    tmp = np.empty(n, dtype=np.float64)  # each column in contiguous memory, then one copy
    j = 0
    for col in schema.columns:
        if col.name in frames and isinstance(col, CategoricalColumn):
            _categorical_block(col, frames[col.name], out, j, row_offset)
            j += col.width
            continue
        if col.name in frames:
            x = numeric_values(frames[col.name], col, row_offset)
        else:
            x = values[col.name]
        clipped[col.name] = _numeric_block(col, x, out, j, tmp)
        j += col.width
    return out, EncodeReport(rows_in, n, n_missing, clipped)


def arrow_table(schema: Schema, columns: dict[str, np.ndarray]) -> object | None:
    """Decoded columns as the Arrow table of their frame, built without the frame, or None.

    For a schema of numeric columns (not dates) the table equals
    ``pa.Table.from_pandas(typed_frame(schema, columns), preserve_index=False)``, pandas
    metadata included: float64 values (a NaN is a null, as pandas converts it), int64, or int64
    with nulls for a nullable integer column. The arrays share the decoded buffers where there
    is no null. Decoding is post-processing (the module docstring). None for any other column
    (categories, dates): convert their frame.

    Parameters
    ----------
    schema : Schema
        The public schema.
    columns : dict of str to numpy.ndarray
        Decoded values per column (:meth:`Encoder.decode_columns`).

    Returns
    -------
    pyarrow.Table or None
        The rows, in the schema's column order.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> schema = Schema((NumericColumn("x", 0, 1), NumericColumn("k", 0, 9, integer=True)))
    >>> cols = {"x": np.array([0.5, 0.25]), "k": np.array([3, 7])}
    >>> table = arrow_table(schema, cols)
    >>> table.equals(pa.Table.from_pandas(typed_frame(schema, cols), preserve_index=False))
    True
    """
    import pyarrow as pa

    numeric = [
        isinstance(c, NumericColumn) and not isinstance(c, DatetimeColumn) for c in schema.columns
    ]
    if not all(numeric):
        return None
    empty = {c.name: np.empty(0, _decoded_dtype(c)) for c in schema.columns}
    target = pa.Table.from_pandas(typed_frame(schema, empty), preserve_index=False).schema
    arrays = []
    for col in schema.columns:
        x = np.asarray(columns[col.name])
        if x.dtype.kind != "f":  # int64 of a non-nullable integer column: no missing value
            arrays.append(pa.array(x, type=pa.int64()))
            continue
        absent = np.isnan(x)
        mask = absent if absent.any() else None
        if col.integer:  # nullable integers: whole numbers (decoded with rint) or missing
            x = np.where(absent, 0.0, x).astype(np.int64)
        arrays.append(pa.array(x, mask=mask))
    return pa.Table.from_arrays(arrays, schema=target)


def _numeric_block(
    col: NumericColumn, x: np.ndarray, out: np.ndarray, j: int, tmp: np.ndarray
) -> int:
    """Write a numeric column's coordinate (and missing indicator) at ``out[:, j:]``.

    2 (g(x) - lo) / (hi - lo) - 1 clipped to [-1, 1] (Miura et al.'s encoding, g the column's
    model scale), computed in the contiguous buffer ``tmp`` then copied into the column;
    returns the number of values outside the public bounds (clipped).
    """
    absent = np.isnan(x)
    lo, hi = col.model_bounds
    with np.errstate(invalid="ignore", over="ignore"):  # 1e308 in [0, 1]: no data-set warning
        np.subtract(col.to_model(x), lo, out=tmp)
        np.multiply(tmp, 2.0 / (hi - lo), out=tmp)
    tmp -= 1.0
    np.clip(tmp, -1.0, 1.0, out=tmp)
    out[:, j] = tmp
    if col.nullable:
        out[absent, j] = MISSING_FILL
        out[:, j + 1] = np.where(absent, 1.0, -1.0)
    return int(np.count_nonzero((x < col.lower) | (x > col.upper)))


def _categorical_block(
    col: CategoricalColumn, series: pd.Series, out: np.ndarray, j: int, row_offset: int
) -> None:
    """Write a categorical column's dummy coordinates (and indicator) at ``out[:, j:]``."""
    values = col.width - int(col.nullable)
    codes = category_codes(series, col, row_offset)
    absent = codes < 0
    block = out[:, j : j + values]
    block.fill(-1.0)
    rows = np.flatnonzero(codes > 0)
    block[rows, codes[rows] - 1] = 1.0
    if col.nullable:
        out[absent, j : j + values] = MISSING_FILL
        out[:, j + values] = np.where(absent, 1.0, -1.0)

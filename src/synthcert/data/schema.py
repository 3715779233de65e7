"""Schema: each column's kind and its PUBLIC bounds or categories (JSON file format)."""

from __future__ import annotations

import json
import math
import os
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.io import DEFAULT_NA_VALUES, CsvOptions
from synthcert.data.text import whole_as_integer_text
from synthcert.errors import DataError

Source = Literal["public", "data"]


Scale = Literal["linear", "log", "signed-log"]
SCALES: tuple[str, ...] = get_args(Scale)
BinsSource = Literal["public", "dp"]
DP_QUANTILE = "dp-quantile"  # the schema file's "bins" value asking for DP quantile bins
DP_TREE = "dp-tree"  # ... asking for DP bins from a noisy dyadic histogram (privacy.tree_bins)
CategoryType = Literal["string", "integer", "boolean"]
DatetimeUnit = Literal["D", "s"]
Resolution = Literal["year", "month", "day", "hour", "minute"]
RESOLUTIONS = {"year": "Y", "month": "M", "day": "D", "hour": "h", "minute": "m"}  # numpy units
# how a date of a declared resolution is written to text (CSV): nothing finer than it
RESOLUTION_TEXT = {
    "year": "%Y",
    "month": "%Y-%m",
    "day": "%Y-%m-%d",
    "hour": "%Y-%m-%d %H:00",
    "minute": "%Y-%m-%d %H:%M",
}
DEFAULT_QUANTILE_BINS = 20  # bins of a dp-quantile column without a bin_count
FINE_CELLS = 1024  # the finest public grid on a column's scale (privacy.tree_bins.DEPTH = 10)
MAX_DECIMALS = 15  # a double holds about 15 significant decimal digits
EPOCH = pd.Timestamp("1970-01-01")
UNIT_NS = {"D": 86_400 * 10**9, "s": 10**9}


def _check_share(name: str, share: float | None) -> None:
    if share is not None and not 0.0 <= share <= 1.0:
        raise DataError(f"column {name!r}: missing_share must lie in [0, 1]")


def _resolve_kind_source(col: Any) -> None:
    """A column's kind is public unless an inferrer marks it read from the data: a schema
    written by hand declares what each column is."""
    if col.kind_source is None:
        object.__setattr__(col, "kind_source", "public")
    elif col.kind_source not in ("public", "data"):
        raise DataError(f"column {col.name!r}: kind_source must be 'public' or 'data'")


def _resolve_flag_sources(col: Any, keys: tuple[str, ...]) -> None:
    """Give each flag source its default (the column's ``source``) and check its value."""
    for key in keys:
        value = getattr(col, key)
        if value is None:
            object.__setattr__(col, key, col.source)
        elif value not in ("public", "data"):
            raise DataError(f"column {col.name!r}: {key} must be 'public' or 'data'")


@dataclass(frozen=True)
class NumericColumn(Result):
    """A numeric column with public bounds lower < upper; ``integer`` keeps integers on decode.

    ``nullable``: the column may hold missing values, which every synthesizer models (one more
    category when discretised, an indicator dimension when encoded). ``scale="log"`` is a
    public transform t(x) = log(1 + x - lower) applied before binning and encoding, for long
    right tails; ``scale="signed-log"`` is t(x) = asinh(x), for long tails on both sides of 0
    (amounts with refunds, balances): log-like beyond 1 in size, linear near 0; ``bins`` are
    explicit public bin edges (strictly increasing, from lower to upper) that replace the
    equal-width bins of the discretiser. ``quantile_bins`` = k asks
    for k bins whose edges are DP quantiles of the column, paid from a declared share of the
    budget (schema file: ``"bins": "dp-quantile", "bin_count": k``;
    :mod:`synthcert.privacy.quantile_bins`); until they are estimated the column has the
    public bins of its scale. Estimated edges are ``bins`` with ``bins_source="dp"``.
    ``tree_bins`` = k asks for k DP bins of about equal noisy mass read off a noisy dyadic
    histogram on the column's public fine grid (schema file: ``"bins": "dp-tree"``;
    :mod:`synthcert.privacy.tree_bins`); their ``cell_mass`` is the histogram's post-processed
    mass of every fine cell (a DP output), by which a value is decoded inside its bin
    (:func:`synthcert.data.discretize.bin_values`).
    ``missing_share`` is the share of missing values that ``schema infer`` observed:
    data-derived, informative only, never read by a fit.

    ``atoms`` are PUBLIC values that a discretising synthesizer keeps as point masses: each
    has a code of its own (after the value bins), which decodes to exactly that value, so a
    column that is mostly 0 (an amount, a count, a capital gain) keeps its zeros instead of
    spreading them over the first bin. ``None`` (the default) applies the public rule of
    :attr:`atom_values`: 0 when it is a bound of a numeric column of more than
    :data:`DEFAULT_QUANTILE_BINS` values; ``[]`` declares none.

    ``nullable_source`` and ``integer_source`` say where the two flags come from, like
    ``source`` for the bounds: ``"data"`` when ``schema infer`` read them off the table (a
    column with a missing value, a column of whole numbers), ``"public"`` when declared. They
    default to ``source`` (a column read from the data has data-derived flags). ``fill`` is the
    PUBLIC value that replaces a missing or unparsable value of a non-nullable column under
    the ``fill`` policy (bounded neighbours); default the midpoint of the public bounds
    (:func:`synthcert.data.encode.public_fill`).

    ``decimals`` (PUBLIC, declared: a grade point 3.25, a price 19.99) writes the values of a
    real-valued column rounded to that many decimals (post-processing of the decoded values,
    kept within the bounds); None writes them at full precision.
    """

    name: str
    lower: float
    upper: float
    integer: bool = False
    source: Source = "public"
    kind: str = "numeric"
    nullable: bool = False
    scale: Scale = "linear"
    bins: tuple[float, ...] | None = None
    missing_share: float | None = None
    quantile_bins: int | None = None
    bins_source: BinsSource = "public"
    tree_bins: int | None = None
    cell_mass: tuple[float, ...] | None = None
    nullable_source: Source | None = None  # None: the column's ``source``
    integer_source: Source | None = None
    kind_source: Source | None = None  # the kind itself (and a date's unit); None: public
    fill: float | None = None
    atoms: tuple[float, ...] | None = None  # None: the public rule of ``atom_values``
    decimals: int | None = None  # PUBLIC: values written rounded to this many decimals

    def __post_init__(self) -> None:
        _resolve_flag_sources(self, ("nullable_source", "integer_source"))
        _resolve_kind_source(self)
        if not (np.isfinite(self.lower) and np.isfinite(self.upper)):
            raise DataError(f"column {self.name!r}: bounds must be finite numbers")
        with np.errstate(over="ignore"):
            span = np.float64(self.upper) - np.float64(self.lower)
        if not span < 1e300:
            # every encoder and discretiser divides by the span or multiplies by a bin count:
            # a span near the largest double overflows for one extreme value only
            raise DataError(
                f"column {self.name!r}: the span upper - lower must be below 1e300 (declare "
                "narrower public bounds, or a log scale)"
            )
        if not self.lower < self.upper:
            raise DataError(
                f"column {self.name!r}: lower bound {self.lower} must be below upper bound "
                f"{self.upper} (a column of one value carries no information; drop it)"
            )
        if self.scale not in SCALES:
            raise DataError(f"column {self.name!r}: scale must be one of {', '.join(SCALES)}")
        if self.scale == "signed-log":  # asinh of narrow bounds far from 0 rounds to one value
            t0, t1 = self.model_bounds
            if not np.all(np.diff(self.from_model(np.linspace(t0, t1, FINE_CELLS + 1))) > 0):
                raise DataError(
                    f"column {self.name!r}: the bounds are too narrow for a signed-log scale "
                    "(its bins would not increase); keep it linear"
                )
        if self.decimals is not None and (
            isinstance(self.decimals, bool)
            or not isinstance(self.decimals, int)
            or not 0 <= self.decimals <= MAX_DECIMALS
        ):
            raise DataError(
                f"column {self.name!r}: decimals must be a whole number from 0 to {MAX_DECIMALS}"
            )
        if self.bins is not None:
            edges = self._store_floats("bins")
            if (
                edges.size < 3
                or not np.all(np.isfinite(edges))
                or not np.all(np.diff(edges) > 0)
                or edges[0] != self.lower
                or edges[-1] != self.upper
            ):
                raise DataError(
                    f"column {self.name!r}: bins must be at least 3 strictly increasing edges "
                    f"from lower ({self.lower}) to upper ({self.upper})"
                )
        if self.quantile_bins is not None and (
            self.bins is not None or int(self.quantile_bins) < 2
        ):
            raise DataError(
                f"column {self.name!r}: dp-quantile bins need a bin_count of at least 2 and no "
                "explicit edges"
            )
        if self.tree_bins is not None and (
            self.bins is not None or self.quantile_bins is not None or int(self.tree_bins) < 2
        ):
            raise DataError(
                f"column {self.name!r}: dp-tree bins need a bin_count of at least 2 and no "
                "explicit edges"
            )
        if self.bins_source not in ("public", "dp"):
            raise DataError(f"column {self.name!r}: bins_source must be 'public' or 'dp'")
        if self.cell_mass is not None:
            mass = self._store_floats("cell_mass")
            cells = mass.size
            if (
                self.bins is None
                or cells < 2
                or cells & (cells - 1)
                or not np.all(np.isfinite(mass))
                or np.any(mass < 0)
            ):
                raise DataError(
                    f"column {self.name!r}: cell_mass needs DP bins and a power-of-two number "
                    "of finite non-negative masses"
                )
        _check_share(self.name, self.missing_share)
        if self.fill is not None:
            fill = float(self.fill)
            # within the bounds when they are public; data-derived bounds would make the
            # refusal depend on the records (public_fill clips the fill into them instead)
            inside = self.source != "public" or self.lower <= fill <= self.upper
            if not (np.isfinite(fill) and inside):
                raise DataError(
                    f"column {self.name!r}: fill must be a number within the public bounds "
                    f"[{self.lower}, {self.upper}]"
                )
            object.__setattr__(self, "fill", fill)
        if self.atoms is not None:
            atoms = self._store_floats("atoms")
            # the integer check only on a public flag: one read from the data would make the
            # refusal depend on the records (atom_values leaves a fractional atom out instead)
            whole = self.integer and self.integer_source == "public"
            if (
                not np.all(np.isfinite(atoms))
                or np.any(np.diff(atoms) <= 0)
                or (whole and np.any(atoms != np.round(atoms)))
            ):
                raise DataError(
                    f"column {self.name!r}: atoms must be increasing finite values (whole "
                    "numbers for an integer column)"
                )

    @property
    def atom_values(self) -> tuple[float, ...]:
        """The column's point masses: its declared ``atoms`` within the public bounds (bounds
        that a DP domain step narrowed may leave some out), or by the public default rule the
        value 0 when it is the lower or the upper bound of a numeric (not a date) column that
        is not an integer column of at most :data:`DEFAULT_QUANTILE_BINS` values (whose
        default bins already hold one value each). A rule of the declaration only."""
        if self.atoms is not None:
            return tuple(
                a
                for a in self.atoms
                if self.lower <= a <= self.upper and not (self.integer and a != round(a))
            )
        if self.kind != "numeric" or 0.0 not in (self.lower, self.upper):
            return ()
        few = math.floor(self.upper) - math.ceil(self.lower) + 1 <= DEFAULT_QUANTILE_BINS
        return () if self.integer and few else (0.0,)

    def _store_floats(self, field: str) -> np.ndarray:
        """Store the sequence ``field`` as a tuple of floats (hashable, JSON-exact) and return
        it as an array, for its checks."""
        values = tuple(float(v) for v in getattr(self, field))
        object.__setattr__(self, field, values)
        return np.asarray(values)

    @property
    def width(self) -> int:
        """Number of encoded dimensions (one more for the missingness indicator if nullable)."""
        return 1 + int(self.nullable)

    def to_model(self, x: np.ndarray) -> np.ndarray:
        """The public transform before binning and encoding: x, log(1 + x - lower), or
        asinh(x) (``signed-log``: about sign(x) log(2 |x|) beyond 1, linear near 0)."""
        x = np.asarray(x, dtype=np.float64)
        if self.scale == "log":
            return np.log1p(np.maximum(x - self.lower, 0.0))
        if self.scale == "signed-log":
            return np.arcsinh(x)
        return x

    def from_model(self, t: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`to_model`."""
        t = np.asarray(t, dtype=np.float64)
        if self.scale == "log":
            return self.lower + np.expm1(t)
        if self.scale == "signed-log":
            return np.sinh(t)
        return t

    @property
    def model_bounds(self) -> tuple[float, float]:
        """The public bounds after :meth:`to_model`."""
        lo, hi = self.to_model(np.array([self.lower, self.upper]))
        return float(lo), float(hi)


# an explicit UTC offset after a time of day at the end of an ISO text: Z, +05, +0530, -05:30
_OFFSET = r"[T ]\d\d(?::?\d\d(?::?\d\d(?:[.,]\d+)?)?)?\s*(?:Z|[+-]\d\d(?::?\d\d)?)$"


def _parse_iso(values: pd.Series) -> pd.Series:
    """ISO texts to naive UTC ``datetime64[ns]``, each value on its own (unparsable -> NaT).

    Texts with an explicit offset (``Z``, ``+05``, ``+05:00``) are converted to UTC; the others
    are read as they are. The two kinds are parsed apart: pandas parses a mixed series with a
    FutureWarning into objects, and with ``utc=True`` it shifts a naive text by the offset of
    an earlier one, so one record would change another's value. Should pandas still find an
    offset among the texts taken as naive, they are parsed one by one. Warnings are silenced:
    pandas's print a preview of the values (private) on stderr.
    """
    text = _as_text(values)
    aware = text.str.contains(_OFFSET, regex=True, na=False).to_numpy()
    out = pd.Series(pd.NaT, index=values.index, dtype="datetime64[ns]")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        naive = pd.to_datetime(text[~aware], errors="coerce", format="ISO8601")
        if getattr(getattr(naive, "dt", None), "tz", None) is not None or naive.dtype == object:
            naive = text[~aware].map(_one_iso).astype("datetime64[ns]")
        out[~aware] = naive
        if aware.any():
            parsed = pd.to_datetime(text[aware], errors="coerce", format="ISO8601", utc=True)
            out[aware] = parsed.dt.tz_convert(None)
    return out


def _one_iso(text: Any) -> pd.Timestamp:
    """One ISO text alone as a naive UTC timestamp (NaT if unparsable or out of range)."""
    if pd.isna(text):
        return pd.NaT
    stamp = pd.to_datetime(text, errors="coerce", format="ISO8601", utc=True)
    return pd.NaT if pd.isna(stamp) else stamp.tz_convert(None)


def _as_text(values: pd.Series) -> pd.Series:
    """The values as stripped text, each on its own: a whole number as its digits (a CSV column
    of dates 20210301 is read as int64, or as float64 once one record is blank, which would
    otherwise make every value "20210301.0"; :func:`~synthcert.data.text.whole_as_integer_text`)."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        values = whole_as_integer_text(values).where(values.notna())
    return values.astype("string").str.strip()


def parse_dates(values: pd.Series) -> np.ndarray:
    """Dates as naive UTC ``datetime64[ns]``, each value on its own: ISO texts (any offset),
    whole numbers read as their digits (20210301), or ``datetime64`` of any unit and zone; NaT
    where missing, unparsable or outside what ``datetime64[ns]`` holds. The one reader of
    dates, for ``schema infer`` and for every fit."""
    if pd.api.types.is_datetime64_any_dtype(values):
        stamps = pd.to_datetime(values)
        if getattr(stamps.dt, "tz", None) is not None:
            stamps = stamps.dt.tz_convert(None)
    else:
        stamps = _parse_iso(values)
    return _ns_range(np.asarray(stamps.to_numpy())).astype("datetime64[ns]")


NS_DAYS = ("1677-09-22", "2262-04-11")  # whole days within what datetime64[ns] holds


def _ns_range(raw: np.ndarray) -> np.ndarray:
    """datetime64 values of any unit, those outside what datetime64[ns] holds made NaT (numpy
    would wrap them around when casting to ns: 1600 would land in 2184)."""
    if raw.dtype == np.dtype("datetime64[ns]"):
        return raw
    lo, hi = (np.datetime64(day, "D").astype(raw.dtype) for day in NS_DAYS)
    return np.where((raw >= lo) & (raw < hi), raw, np.datetime64("NaT"))


@dataclass(frozen=True)
class DatetimeColumn(NumericColumn):
    """A date or timestamp column: a number of ``unit`` (days or seconds) since 1970-01-01.

    ``lower`` and ``upper`` are public bounds in that unit (the schema file writes them as
    ISO dates); the values are integers in the unit, and decode back to ``datetime64``.
    ``resolution`` (PUBLIC, declared: months written 2023-06, readings on whole minutes)
    floors the decoded values to the start of their year, month, day, hour or minute, kept
    within the bounds (post-processing), and a CSV writes them at it (:meth:`as_text`); None
    keeps the unit's.
    """

    kind: str = "datetime"
    unit: DatetimeUnit = "D"
    resolution: Resolution | None = None  # PUBLIC: decoded values floored to this

    def __post_init__(self) -> None:
        object.__setattr__(self, "integer", True)
        object.__setattr__(self, "integer_source", "public")  # whole units by kind
        if self.unit not in UNIT_NS:
            raise DataError(f"column {self.name!r}: unit must be 'D' (days) or 's' (seconds)")
        if self.resolution is not None and self.resolution not in RESOLUTIONS:
            raise DataError(
                f"column {self.name!r}: resolution must be one of {', '.join(RESOLUTIONS)}"
            )
        if self.decimals is not None:
            raise DataError(f"column {self.name!r}: decimals is for numeric columns, not dates")
        super().__post_init__()
        first, last = (t.value / UNIT_NS[self.unit] for t in (pd.Timestamp.min, pd.Timestamp.max))
        if not first <= self.lower < self.upper <= last:
            raise DataError(
                f"column {self.name!r}: date bounds must lie between {pd.Timestamp.min.date()} "
                f"and {pd.Timestamp.max.date()} (the range of datetime64[ns]), or no date can "
                "be decoded"
            )

    def to_number(self, values: pd.Series) -> np.ndarray:
        """Parse dates (text or datetime64) to the unit since 1970-01-01; unparsable -> NaN."""
        raw = parse_dates(values)
        missing = np.isnat(raw)
        ns = raw.astype(np.int64).astype(np.float64)
        ns[missing] = np.nan
        return ns / UNIT_NS[self.unit]

    def to_datetime(self, numbers: np.ndarray) -> np.ndarray:
        """Numbers in the unit back to ``datetime64[ns]`` (rounded to the unit, then floored
        to the declared ``resolution`` within the bounds)."""
        x = np.rint(np.asarray(numbers, dtype=np.float64))
        ns = x * UNIT_NS[self.unit]
        out = np.full(x.shape, np.datetime64("NaT"), dtype="datetime64[ns]")
        ok = np.isfinite(ns)
        out[ok] = ns[ok].astype(np.int64).astype("datetime64[ns]")
        if self.resolution is None:
            return out
        floored = out.astype(f"datetime64[{RESOLUTIONS[self.resolution]}]").astype(out.dtype)
        lo, hi = (
            np.datetime64(int(b * UNIT_NS[self.unit]), "ns") for b in (self.lower, self.upper)
        )
        return np.where(np.isnat(out), out, np.clip(floored, lo, hi))

    def as_text(self, values: pd.Series) -> pd.Series:
        """Decoded dates as a CSV writes them: at the declared ``resolution`` and nothing
        finer (2023-06 for a month, 2024-03-01 13:05 for a minute; :data:`RESOLUTION_TEXT`),
        missing kept missing; unchanged without a resolution (pandas writes seconds)."""
        if self.resolution is None:
            return values
        return pd.to_datetime(values).dt.strftime(RESOLUTION_TEXT[self.resolution])

    def iso(self, number: float) -> str:
        """A bound as ISO text (a date for unit 'D')."""
        stamp = EPOCH + pd.Timedelta(round(number) * UNIT_NS[self.unit], unit="ns")
        return stamp.date().isoformat() if self.unit == "D" else stamp.isoformat()

    @classmethod
    def parse_bound(cls, text: Any, unit: DatetimeUnit) -> float:
        """An ISO date/timestamp (or a number already in the unit) as a number in the unit."""
        if isinstance(text, (int, float)):
            return float(text)
        try:
            stamp = pd.Timestamp(str(text))
        except ValueError as exc:
            raise DataError(f"{text!r} is not an ISO date or timestamp") from exc
        if pd.isna(stamp):
            raise DataError(f"{text!r} is not an ISO date or timestamp")
        if stamp.tzinfo is not None:
            stamp = stamp.tz_convert(None)
        return float((stamp - EPOCH).value // UNIT_NS[unit])


@dataclass(frozen=True)
class CategoricalColumn(Result):
    """A categorical column with its public list of categories (order fixes the encoding).

    ``dtype`` is the type the categories decode to: ``"string"`` (a pandas categorical),
    ``"integer"`` (numeric codes such as 0/1 or 1..5 stay integers) or ``"boolean"``
    (categories ``False``, ``True``). ``nullable``, ``nullable_source`` and ``missing_share`` as
    for numeric columns. ``fill`` names the declared level (an ``other`` category) that takes a
    missing or undeclared value of a non-nullable column under the ``fill`` policy; default the
    first category (:func:`synthcert.data.encode.public_fill`).
    """

    name: str
    categories: tuple[str, ...]
    source: Source = "public"
    kind: str = "categorical"
    nullable: bool = False
    dtype: CategoryType = "string"
    missing_share: float | None = None
    nullable_source: Source | None = None  # None: the column's ``source``
    fill: str | None = None
    kind_source: Source | None = None  # the kind itself and its dtype; None: public

    def __post_init__(self) -> None:
        _resolve_flag_sources(self, ("nullable_source",))
        _resolve_kind_source(self)
        object.__setattr__(self, "categories", tuple(str(c) for c in self.categories))
        if self.fill is not None:
            object.__setattr__(self, "fill", str(self.fill))
            if self.fill not in self.categories:
                raise DataError(
                    f"column {self.name!r}: fill {self.fill!r} is not one of its categories"
                )
        if len(self.categories) < 2:
            raise DataError(
                f"column {self.name!r}: a categorical column needs at least two categories "
                '(a column of one value carries nothing to model: list it under "drop", or '
                "declare the categories it can take)"
            )
        if len(set(self.categories)) != len(self.categories):
            raise DataError(f"column {self.name!r}: categories are not unique")
        if self.dtype not in ("string", "integer", "boolean"):
            raise DataError(f"column {self.name!r}: dtype must be string, integer or boolean")
        if self.dtype == "integer":
            try:
                [int(c) for c in self.categories]
            except ValueError as exc:
                raise DataError(
                    f"column {self.name!r}: dtype integer needs integer categories"
                ) from exc
        if self.dtype == "boolean" and set(self.categories) != {"False", "True"}:
            raise DataError(f"column {self.name!r}: dtype boolean needs categories False, True")
        _check_share(self.name, self.missing_share)

    @property
    def width(self) -> int:
        """Encoded dimensions: dummy coding with the first level dropped (+1 if nullable)."""
        return len(self.categories) - 1 + int(self.nullable)


Column = NumericColumn | DatetimeColumn | CategoricalColumn


@dataclass(frozen=True)
class Schema(Result):
    """The columns a synthesizer models, in order, plus the input columns to drop.

    Every bound and category list is meant to be PUBLIC (a codebook, not the data): the
    privacy theorems take them as given. A column with ``source="data"`` (from
    :func:`synthcert.data.infer.draft_schema`, which ``synthcert schema infer`` runs) makes
    ``bounds_source == "data"``, which the certificate reports.

    Parameters
    ----------
    columns : tuple of NumericColumn, DatetimeColumn or CategoricalColumn
        The modelled columns, in encoding order; names must be unique.
    drop : tuple of str, default ()
        Input columns discarded before modelling.
    file_columns : tuple of str or None, default None
        All column names in file order, for a CSV file without a header line.
    csv : CsvOptions or None, default None
        How a CSV input is read (the schema file's ``"csv"`` section: ``header``, ``sep``,
        ``na_values``, ``encoding``, ``skip_rows``); None reads the defaults. Every command
        that reads a table of this schema honours it (:meth:`read_options`).

    Raises
    ------
    DataError
        No column, or a column name declared twice.

    Examples
    --------
    >>> schema = Schema(
    ...     (NumericColumn("age", 17, 90, integer=True), CategoricalColumn("sex", ("F", "M"))),
    ...     drop=("id",),
    ... )
    >>> schema.names, schema.encoded_dim, schema.bounds_source
    (['age', 'sex'], 2, 'public')
    >>> Schema.from_dict(json.loads(schema.to_json())) == schema
    True
    """

    columns: tuple[Column, ...]
    drop: tuple[str, ...] = field(default_factory=tuple)
    file_columns: tuple[str, ...] | None = None  # all names, in file order, for headerless CSV
    drop_source: Source = "public"  # "data": the dropped columns were chosen from the data
    csv: CsvOptions | None = None  # how a CSV input is read (the file's "csv" section)

    def __post_init__(self) -> None:
        if self.drop_source not in ("public", "data"):
            raise DataError("the schema's drop_source must be 'public' or 'data'")
        names = [c.name for c in self.columns]
        if not names:
            raise DataError("the schema declares no columns")
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise DataError(f"the schema declares column(s) {sorted(dup)} twice")
        both = sorted(set(names) & set(self.drop))
        if both:
            raise DataError(f"the schema both models and drops column(s) {both}")

    @property
    def csv_names(self) -> list[str]:
        """Column names of a headerless CSV: ``file_columns`` if declared, else the columns."""
        return list(self.file_columns) if self.file_columns is not None else self.names

    def read_options(self) -> CsvOptions:
        """How to read a CSV input of this schema: its ``"csv"`` section (defaults where absent),
        with the column names of a headerless file (:attr:`csv_names`).

        Examples
        --------
        >>> schema = Schema.from_dict({"columns": [{"name": "x", "kind": "numeric",
        ...     "lower": 0, "upper": 1}], "csv": {"sep": ";", "header": False}})
        >>> opts = schema.read_options()
        >>> opts.sep, opts.header, list(opts.names)
        (';', False, ['x'])
        """
        opts = self.csv if self.csv is not None else CsvOptions()
        return self.reading_text(
            replace(opts, names=None if opts.header else tuple(self.csv_names))
        )

    def reading_text(self, opts: CsvOptions) -> CsvOptions:
        """``opts`` reading every categorical column as text, value by value (a category's name
        never depends on the other records of a chunk; :class:`~synthcert.data.io.CsvOptions`)."""
        return replace(opts, text_columns=tuple(c.name for c in self.categorical))

    @property
    def names(self) -> list[str]:
        """Column names in order."""
        return [c.name for c in self.columns]

    @property
    def numeric(self) -> list[NumericColumn]:
        """The numeric columns."""
        return [c for c in self.columns if isinstance(c, NumericColumn)]

    @property
    def nullable(self) -> list[Column]:
        """The columns that may hold missing values."""
        return [c for c in self.columns if c.nullable]

    @property
    def categorical(self) -> list[CategoricalColumn]:
        """The categorical columns."""
        return [c for c in self.columns if isinstance(c, CategoricalColumn)]

    @property
    def encoded_dim(self) -> int:
        """d, the dimension of the encoded points in [-1,1]^d."""
        return sum(c.width for c in self.columns)

    @property
    def data_flags(self) -> list[str]:
        """The properties read from the data that no bound or category estimate covers, as
        ``"column: flag"``: ``nullable``, ``integer``, ``kind`` (numeric, datetime or
        categorical, with a date's unit and a category's dtype), and ``"(dropped columns)"``
        when the choice of dropped columns was read from the data."""
        out = [f"{name}: {flag}" for name, flag in self.data_flag_pairs]
        return out + (["(dropped columns)"] if self.drop_source == "data" else [])

    @property
    def data_flag_pairs(self) -> list[tuple[str, str]]:
        """(column, flag) for every flag read from the data, in :attr:`data_flags`' order."""
        out = []
        for c in self.columns:
            out += [(c.name, "nullable")] if c.nullable_source == "data" else []
            if isinstance(c, NumericColumn) and c.integer_source == "data":
                out.append((c.name, "integer"))
            out += [(c.name, "kind")] if c.kind_source == "data" else []
        return out

    def with_public_kinds(self) -> Schema:
        """The schema with every column's kind and the dropped columns declared public: the
        user's statement, after review, that what each column is (and which are left out) is
        known without the table (a codebook), not read from it."""
        cols = tuple(replace(c, kind_source="public") for c in self.columns)
        return replace(self, columns=cols, drop_source="public")

    @property
    def bounds_source(self) -> Source:
        """``"data"`` if any bound or category list was taken from the data, else ``"public"``."""
        return "data" if any(c.source == "data" for c in self.columns) else "public"

    def column(self, name: str) -> Column:
        """The column called ``name``."""
        for c in self.columns:
            if c.name == name:
                return c
        raise DataError(f"the schema has no column {name!r}")

    def select(self, names: list[str]) -> Schema:
        """A schema of the named columns only."""
        return replace(self, columns=tuple(self.column(n) for n in names))

    def to_json(self) -> str:
        """The schema file's JSON text (optional keys at their defaults are left out)."""
        cols = [column_to_dict(c) for c in self.columns]
        doc: dict[str, Any] = {"columns": cols, "drop": list(self.drop)}
        if self.file_columns is not None:
            doc["file_columns"] = list(self.file_columns)
        if self.drop_source != "public":
            doc["drop_source"] = self.drop_source
        if self.csv is not None:
            doc["csv"] = csv_to_dict(self.csv)
        return json.dumps(doc, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Schema:
        """Build from the parsed JSON of a schema file."""
        if not isinstance(data, dict) or not isinstance(data.get("columns"), list):
            raise DataError('a schema is a JSON object with a "columns" list')
        cols = [column_from_dict(spec, i) for i, spec in enumerate(data["columns"])]
        file_columns = data.get("file_columns")
        return cls(
            tuple(cols),
            _names(data.get("drop", []), "drop"),
            _names(file_columns, "file_columns") if file_columns is not None else None,
            drop_source=data.get("drop_source", "public"),
            csv=csv_from_dict(data["csv"]) if data.get("csv") is not None else None,
        )

    @classmethod
    def load(cls, path: str | os.PathLike) -> Schema:
        """Read a schema JSON file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise DataError(f"schema file {str(path)!r} does not exist") from exc
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise DataError(f"schema file {str(path)!r} is not valid JSON: {exc}") from exc
        except OSError as exc:
            raise DataError(f"schema file {str(path)!r} cannot be read: {exc.strerror}") from exc
        return cls.from_dict(data)


OPTIONAL_DEFAULTS: dict[str, Any] = {
    "integer": False,
    "nullable": False,
    "scale": "linear",
    "bins": None,
    "missing_share": None,
    "dtype": "string",
    "quantile_bins": None,
    "bins_source": "public",
    "tree_bins": None,
    "cell_mass": None,
    "fill": None,
    "atoms": None,
    "decimals": None,
    "resolution": None,
}
FLAG_SOURCES = ("nullable_source", "integer_source", "kind_source")


def column_to_dict(col: Column) -> dict[str, Any]:
    """One column of the schema file: name, kind, then the keys that differ from defaults.

    A datetime column writes its bounds as ISO dates; a ``missing_share`` (observed by
    ``schema infer``) is marked ``"missing_share_source": "data"`` like data-derived bounds, and
    the flag sources ``nullable_source``/``integer_source`` are written unless both they and the
    column are public.
    """
    d = col.to_dict()
    out: dict[str, Any] = {"name": d.pop("name"), "kind": d.pop("kind")}
    if isinstance(col, DatetimeColumn):
        d.pop("integer")
        d.pop("integer_source")
        if col.fill is not None:
            d["fill"] = col.iso(col.fill)
        if col.atoms is not None:
            d["atoms"] = [col.iso(a) for a in col.atoms]
        d["lower"], d["upper"] = col.iso(col.lower), col.iso(col.upper)
    for key in FLAG_SOURCES:  # written unless public in a public column (their default)
        if key in d and d[key] == "public" and (col.source == "public" or key == "kind_source"):
            d.pop(key)
    for key, default in OPTIONAL_DEFAULTS.items():
        if key in d and d[key] == default:
            d.pop(key)
    k = d.pop("quantile_bins", None)
    tree = d.pop("tree_bins", None)
    for key in ("cell_mass", "atoms"):
        if d.get(key) is not None:
            d[key] = list(d[key])
    out.update(d)
    if k is not None:
        out["bins"], out["bin_count"] = DP_QUANTILE, int(k)
    if tree is not None:
        out["bins"], out["bin_count"] = DP_TREE, int(tree)
    if col.missing_share is not None:
        out["missing_share_source"] = "data"
    return out


CSV_DEFAULTS = CsvOptions()
CSV_KEYS = ("header", "sep", "na_values", "encoding", "skip_rows")


def csv_to_dict(opts: CsvOptions) -> dict[str, Any]:
    """The schema file's ``"csv"`` section: the reading options that differ from the defaults."""
    out: dict[str, Any] = {}
    for key in CSV_KEYS:
        value = getattr(opts, key)
        if key == "na_values":
            value = list(value)
            if tuple(value) == tuple(DEFAULT_NA_VALUES):
                continue
        elif value == getattr(CSV_DEFAULTS, key):
            continue
        out[key] = value
    return out


def csv_from_dict(spec: Any) -> CsvOptions:
    """Parse the schema file's ``"csv"`` section, every key checked like a column's.

    Keys: ``header`` (true/false), ``sep`` (text, at least one character), ``na_values`` (a
    list of text: the tokens read as missing; default :data:`~synthcert.data.io.DEFAULT_NA_VALUES`),
    ``encoding`` (a codec Python knows), ``skip_rows`` (lines skipped at the top, >= 0).

    Raises
    ------
    DataError
        Not an object, an unknown key, or a value of the wrong type.
    """
    import codecs

    if not isinstance(spec, dict):
        raise DataError(f"the schema's 'csv' section must be a JSON object, got {_shown(spec)}")
    unknown = sorted(set(spec) - set(CSV_KEYS))
    if unknown:
        raise DataError(
            f"the schema's 'csv' section has unknown key(s) {unknown}; it knows "
            f"{', '.join(CSV_KEYS)}"
        )
    where = "csv"
    header = _bool(spec, "header", None, CSV_DEFAULTS.header)
    sep = _text(spec.get("sep", CSV_DEFAULTS.sep), f"{where}.sep", None)
    if not sep:
        raise DataError("the schema's 'csv.sep' must be at least one character")
    na = spec.get("na_values")
    na_values = (
        DEFAULT_NA_VALUES
        if na is None
        else tuple(
            _text(v, f"{where}.na_values", None) for v in _list(na, f"{where}.na_values", None)
        )
    )
    encoding = _text(spec.get("encoding", CSV_DEFAULTS.encoding), f"{where}.encoding", None)
    try:
        codecs.lookup(encoding)
    except LookupError as exc:
        raise DataError(
            f"the schema's 'csv.encoding' {encoding!r} is not a known encoding"
        ) from exc
    skip = spec.get("skip_rows", 0)
    if isinstance(skip, bool) or not isinstance(skip, int) or skip < 0:
        raise DataError(
            f"the schema's 'csv.skip_rows' must be a whole number >= 0, got {_shown(skip)}"
        )
    return CsvOptions(
        header=header, sep=sep, na_values=na_values, encoding=encoding, skip_rows=skip
    )


# -- validating the values of a schema file (each refusal names the column and the key) ------
def _where(name: object, key: str) -> str:
    return f"column {name!r}: {key!r}" if name is not None else repr(key)


def _shown(value: Any) -> str:
    """A malformed value as the refusal quotes it (at most 40 characters)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bool(spec: dict[str, Any], key: str, name: object, default: bool = False) -> bool:
    """A true/false key (JSON true or false; the text "false" is refused, not taken as true)."""
    value = spec.get(key, default)
    if not isinstance(value, bool):
        raise DataError(f"{_where(name, key)} must be true or false, got {_shown(value)}")
    return value


def _number(value: Any, key: str, name: object) -> float:
    """A finite JSON number (not a boolean, not text, not NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"{_where(name, key)} must be a number, got {_shown(value)}")
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    if not math.isfinite(x):
        raise DataError(f"{_where(name, key)} must be a finite number, got {_shown(value)}")
    return x


def _text(value: Any, key: str, name: object) -> str:
    if not isinstance(value, str):
        raise DataError(f"{_where(name, key)} must be text, got {_shown(value)}")
    return value


def _list(value: Any, key: str, name: object) -> list[Any]:
    if not isinstance(value, list):
        raise DataError(f"{_where(name, key)} must be a JSON list, got {_shown(value)}")
    return value


def _names(value: Any, key: str) -> tuple[str, ...]:
    """A list of column names (``drop``, ``file_columns``)."""
    return tuple(_text(v, key, None) for v in _list(value, key, None))


def _category(value: Any, name: object) -> str:
    """A category as text: JSON text, an integer, a boolean or a finite number."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        _number(value, "categories", name)
        return str(value)
    return _text(value, "categories", name)


def _bound(spec: dict[str, Any], key: str, name: object, kind: str, unit: str) -> float:
    """A public bound: a number, or for a date column an ISO date (or a number in the unit)."""
    if key not in spec:
        raise DataError(f"{kind} column {name!r} needs a public {key!r} bound")
    value = spec[key]
    if kind == "datetime" and isinstance(value, str):
        try:
            x = DatetimeColumn.parse_bound(value, unit)  # type: ignore[arg-type]
        except (DataError, ValueError, OverflowError) as exc:
            raise DataError(
                f"{_where(name, key)} must be an ISO date, got {_shown(value)}"
            ) from exc
        return _number(x, key, name)
    return _number(value, key, name)


def column_from_dict(spec: dict[str, Any], i: int = 0) -> Column:
    """Parse one column of a schema file (absent optional keys take their defaults).

    Every value is checked for its JSON type before use: a malformed value is a
    :class:`~synthcert.errors.DataError` naming the column and the key, never a traceback.
    """
    if not isinstance(spec, dict):
        raise DataError(f"schema column #{i} must be a JSON object, got {_shown(spec)}")
    name = spec.get("name")
    if not name:
        raise DataError(f"schema column #{i} has no name")
    if not isinstance(name, str):
        raise DataError(f"schema column #{i}: 'name' must be text, got {_shown(name)}")
    kind = spec.get("kind")
    source = spec.get("source", "public")
    if not isinstance(source, str) or source not in ("public", "data"):
        raise DataError(f"column {name!r}: source must be 'public' or 'data'")
    nullable = _bool(spec, "nullable", name)
    flags: dict[str, str] = {}
    for key in FLAG_SOURCES:
        if key in spec:
            if not isinstance(spec[key], str) or spec[key] not in ("public", "data"):
                raise DataError(f"column {name!r}: {key!r} must be 'public' or 'data'")
            flags[key] = spec[key]
    if kind == "categorical":
        flags.pop("integer_source", None)
    fill = spec.get("fill")
    share = spec.get("missing_share")
    share = None if share is None else _number(share, "missing_share", name)
    if kind in ("numeric", "datetime"):
        unit = spec.get("unit", "D")
        if kind == "datetime" and (not isinstance(unit, str) or unit not in UNIT_NS):
            raise DataError(f"column {name!r}: unit must be 'D' (days) or 's' (seconds)")
        lo = _bound(spec, "lower", name, kind, unit)
        hi = _bound(spec, "upper", name, kind, unit)
        bins = spec.get("bins")
        quantile_bins = tree_bins = None
        if isinstance(bins, str):
            if bins not in (DP_QUANTILE, DP_TREE):
                raise DataError(
                    f"column {name!r}: bins is a list of public edges, {DP_QUANTILE!r} or "
                    f"{DP_TREE!r}"
                )
            count = spec.get("bin_count", DEFAULT_QUANTILE_BINS)
            if isinstance(count, bool) or not isinstance(count, int):
                raise DataError(
                    f"column {name!r}: 'bin_count' must be an integer, got {_shown(count)}"
                )
            if bins == DP_TREE:
                tree_bins, bins = count, None
            else:
                quantile_bins, bins = count, None
        elif bins is not None:
            bins = [
                _bound({"bins": b}, "bins", name, kind, unit) for b in _list(bins, "bins", name)
            ]
        masses = spec.get("cell_mass")
        if masses is not None:
            masses = [_number(m, "cell_mass", name) for m in _list(masses, "cell_mass", name)]
        atoms = spec.get("atoms")
        if atoms is not None:
            atoms = tuple(
                _bound({"atoms": a}, "atoms", name, kind, unit) for a in _list(atoms, "atoms", name)
            )
            # checked against public bounds only: data-derived ones would make the refusal
            # (and its exit code) depend on the records; atom_values leaves such atoms out
            if source == "public" and any(not lo <= a <= hi for a in atoms):
                raise DataError(f"column {name!r}: every atom must lie within the public bounds")
        for key in ("scale", "bins_source"):
            if key in spec and not isinstance(spec[key], str):
                raise DataError(f"column {name!r}: {key!r} must be text, got {_shown(spec[key])}")
        common: dict[str, Any] = {
            "source": source,
            "nullable": nullable,
            "scale": spec.get("scale", "linear"),
            "bins": None if bins is None else tuple(bins),
            "missing_share": share,
            "quantile_bins": quantile_bins,
            "tree_bins": tree_bins,
            "cell_mass": None if masses is None else tuple(masses),
            "atoms": atoms,
            "decimals": spec.get("decimals"),
            "bins_source": spec.get("bins_source", "public"),
            **flags,
        }
        if fill is not None:
            common["fill"] = _bound({"fill": fill}, "fill", name, kind, unit)
        if kind == "datetime":
            common.pop("integer_source", None)
            resolution = spec.get("resolution")
            return DatetimeColumn(
                str(name), lo, hi, True, unit=unit, resolution=resolution, **common
            )
        if spec.get("resolution") is not None:
            raise DataError(f"column {name!r}: resolution is for datetime columns")
        return NumericColumn(str(name), lo, hi, _bool(spec, "integer", name), **common)
    if kind == "categorical":
        if "categories" not in spec:
            raise DataError(f"categorical column {name!r} needs its list of categories")
        categories = tuple(
            _category(c, name) for c in _list(spec["categories"], "categories", name)
        )
        dtype = spec.get("dtype", "string")
        if not isinstance(dtype, str):
            raise DataError(f"column {name!r}: dtype must be string, integer or boolean")
        return CategoricalColumn(
            str(name),
            categories,
            source,
            nullable=nullable,
            dtype=dtype,  # type: ignore[arg-type]
            missing_share=share,
            fill=None if fill is None else _category(fill, name),
            **flags,
        )
    raise DataError(f"column {name!r}: kind must be 'numeric', 'datetime' or 'categorical'")

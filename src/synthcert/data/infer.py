"""Drafting a whole schema in one pass: a decision and a reason for every column.

``draft_schema`` reads a table chunk by chunk (at most ``max_rows`` rows), keeps mergeable
per-column statistics (:class:`ColumnStats`), and decides each column in order:

1. ``empty`` (no value) and ``constant`` (one distinct value): dropped;
2. ``boolean`` (True/False text or a bool dtype): categorical with dtype boolean;
3. numbers (at least 95% of the present values parse): ``identifier`` when the values are
   distinct integers on a near-contiguous range or the name says id/key (dropped);
   ``categorical`` with dtype integer when they are at most ``max_integer_categories``
   distinct integers (numeric codes such as 0/1 or 1..5); else ``numeric`` (integer or not),
   ``datetime`` when every value is a whole number whose eight digits are a valid date
   YYYYMMDD from :data:`DIGIT_DATES` (20220315; a name saying id/key keeps the number);
   with the hint ``scale_hint="log"`` (``"signed-log"`` below 0: :func:`tail_scale`) when half
   of its values lie in the lowest ``TAIL_SPAN`` of its range (a long right tail, where
   equal-width bins would put half the rows in one bin). The draft itself stays linear: a
   scale is a public declaration, and one chosen from the data would leak through the grids
   of ``--private-domain`` and the bins;
4. dates (at least 95% of the present values parse as ISO dates): ``datetime`` with its range;
5. text, and numbers written with a leading zero in :data:`LEADING_ZERO_SHARE` of the values
   or more (zip codes 01247: codes; the command line reads a CSV as written, a frame must hold
   them as text): ``categorical`` up to ``max_categories`` distinct values, else
   ``formatted numbers`` (thousands separators, a decimal comma, a currency sign) or
   ``formatted dates`` (not ISO 8601) when 95% of the values look so, else ``categorical``
   as a code list when at most :data:`CODE_LIST_MAX` values each repeat in
   :data:`CODE_LIST_REPEATS` rows on average (60 countries in 6,000 rows), else
   ``identifier`` when (nearly) every value is distinct, else ``free text`` (all dropped; the
   first two say how to rewrite the column).

A column with missing values (or unparsable text, which counts as missing) is ``nullable``
with its observed missing share. Every bound, category list, missing share and flag is read
from the data (``"source": "data"``, ``"missing_share_source": "data"``, and
``"nullable_source"``/``"integer_source": "data"`` for the ``nullable`` and ``integer`` flags,
whether set or not): replace them with public ones before a DP synthesis or a release, or let
``--private-domain`` estimate the bounds and categories and apply its public rule to the flags
(:func:`synthcert.privacy.domain.flag_rule`).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.numbers import to_numeric_safe
from synthcert.data.schema import (
    CategoricalColumn,
    Column,
    DatetimeColumn,
    NumericColumn,
    Schema,
    parse_dates,
)
from synthcert.errors import DataError
from synthcert.privacy.calendar_buckets import FIRST_YEAR, LAST_YEAR

PARSE_SHARE = 0.95  # share of present values that must parse as numbers or dates
UNIQUE_SHARE = 0.95  # distinct / present at or above which a column looks like an identifier
DISTINCT_CAP = 1_000_000  # distinct values tracked per column
CODE_LIST_MAX = 250  # ... a text column of more than max_categories values is a code list up to
CODE_LIST_REPEATS = 10  # ... this many values, each held by at least this many rows on average
ID_NAME = re.compile(r"(^|[_\W])(id|key|uuid|guid|rownames?|index)$", re.IGNORECASE)
DEFAULT_MAX_ROWS = 200_000
YEARS = (FIRST_YEAR, LAST_YEAR)  # whole numbers within: perhaps years (a hint in the reason)
# whole numbers read as dates YYYYMMDD: the public calendar's, 19000101 to 20991231
DIGIT_DATES = (FIRST_YEAR * 10_000 + 101, LAST_YEAR * 10_000 + 1231)
TAIL_SPAN = 0.05  # hint scale: log when the median lies in this lowest share of [lower, upper]


def has_long_tail(median: float, lower: float, upper: float) -> bool:
    """The long-right-tail rule (the log-scale hint): lower < upper and a median within their
    lowest :data:`TAIL_SPAN` (``scale: log`` from a lower bound at 0 or above, ``signed-log``
    below it: :func:`tail_scale`)."""
    return lower < upper and median <= lower + TAIL_SPAN * (upper - lower)


def tail_scale(lower: float) -> str:
    """The scale of a long right tail: ``log`` (log(1 + x - lower)) from a lower bound at 0 or
    above; ``signed-log`` (asinh x) below 0, where the shifted log would spend most of its range
    on the few negative values (a cost with refunds down to -14,459 and a median of 6,397)."""
    return "log" if lower >= 0 else "signed-log"


PER_OCTAVE = 8  # magnitude buckets per doubling of 1 + x (the median is bounded within 9%)
MAGNITUDES = 1024 * PER_OCTAVE + 1  # the last bucket holds every x >= 2^1024 - 1
# a value that is marks only: a missing value written by hand ("-", "--", "?", ".")
MARKS_ONLY = re.compile(r"^[-\u2013\u2014.?*/]+$")
# numbers with thousands separators, a decimal comma or a currency sign ("1,342", "12,5",
# "€1,234.50", "-$5"), and dates not in ISO 8601 ("31/12/1999"): text a reader cannot model,
# which the user can rewrite
FORMATTED_NUMBER = re.compile(
    r"^\(?[-+]?\s*[$€£¥]?\s*[-+]?(\d{1,3}(,\d{3})+(\.\d+)?|\d+(\.\d+)?|\d+,\d+)\s*[$€£¥]?\)?$"
)
LEADING_ZERO = re.compile(r"^\s*0\d")  # a code's fixed width (zip 01247, FIPS 06); not 0 or 0.5
DECIMAL_PLACES = re.compile(r"\.(\d+)$")  # the decimals of a number as written
MAX_HINTED_DECIMALS = 4  # numbers written with 1 to this many decimals get a "decimals" hint
LEADING_ZERO_SHARE = 0.01  # ... in this share of the present values: a column of codes
OTHER_DATE = re.compile(r"^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}( .*)?$")
SEPARATORS = (";", "\t", "|")  # in a lone column's name: the file was read with the wrong sep


@dataclass
class ColumnStats:
    """Mergeable statistics of one column: counts, numeric range, date range, distinct values."""

    rows: int = 0
    missing: int = 0
    numeric: int = 0  # present values that parse as numbers
    integer: bool = True
    lower: float = np.inf
    upper: float = -np.inf
    dates: int = 0  # present values that parse as dates
    date_lower: float = np.inf  # seconds since 1970
    date_upper: float = -np.inf
    midnight: bool = True
    month_starts: bool = True  # every date the 1st of a month at midnight (2023-06 reads so)
    whole_minutes: bool = True  # every timestamp on a whole minute
    leading_zeros: int = 0  # numbers written with a leading zero (01247): codes, not amounts
    decimals: int | None = None  # most decimals as written (None: not text; -1: an exponent)
    digit_dates: bool = True  # every number so far is a valid date written YYYYMMDD
    digit_lower: float = np.inf  # their range, in days since 1970
    digit_upper: float = -np.inf
    boolean: bool = True
    negative: int = 0  # numbers below 0
    formatted: int = 0  # present values, not numbers, matching FORMATTED_NUMBER
    marks_only: int = 0  # present values that are marks only ("-", "--", "?", "."): no value
    other_dates: int = 0  # present values, not numbers or ISO dates, matching OTHER_DATE
    magnitudes: np.ndarray | None = None  # counts of the non-negative numbers' buckets
    distinct: set[str] = field(default_factory=set)
    overflow: bool = False

    def update(self, series: pd.Series) -> ColumnStats:
        """Add a chunk of the column."""
        self.rows += len(series)
        present = series.dropna()
        self.missing += len(series) - len(present)
        if present.empty:
            return self
        if pd.api.types.is_bool_dtype(present):
            nums = present.astype(np.float64)
        else:
            self.boolean &= bool(
                present.astype(str).str.strip().str.lower().isin(["true", "false"]).all()
            )
            nums = to_numeric_safe(present) if not self.boolean else None
        if nums is not None and not pd.api.types.is_datetime64_any_dtype(present):
            ok = nums.dropna().to_numpy(dtype=np.float64)
            ok = ok[np.isfinite(ok)]
            self.numeric += len(ok)
            if not pd.api.types.is_numeric_dtype(present):  # text as written: 01247, not 1247
                self._update_written(present.astype(str).str.strip())
            if len(ok):
                self.integer &= bool(np.all(np.mod(ok, 1) == 0))
                self.lower = min(self.lower, float(ok.min()))
                self.upper = max(self.upper, float(ok.max()))
                self._update_magnitudes(ok)
                self._update_digit_dates(ok)
        if self.numeric < len(present) and not self.boolean:
            self._update_dates(present)
            text = present[nums.isna()].astype(str).str.strip() if nums is not None else None
            if text is not None and len(text):
                self.formatted += int(text.str.fullmatch(FORMATTED_NUMBER).sum())
                self.marks_only += int(text.str.fullmatch(MARKS_ONLY).sum())
                self.other_dates += int(text.str.fullmatch(OTHER_DATE).sum())
        if not self.overflow:
            self.distinct.update(present.astype(str).str.strip().unique().tolist())
            if len(self.distinct) > DISTINCT_CAP:
                self.overflow = True
        return self

    def _update_magnitudes(self, numbers: np.ndarray) -> None:
        """Count the numbers below 0, and the others in buckets floor(8 log2(1 + x))."""
        below = numbers < 0
        self.negative += int(below.sum())
        with np.errstate(over="ignore"):
            buckets = np.floor(PER_OCTAVE * np.log2(1.0 + numbers[~below]))
        buckets = np.minimum(buckets, MAGNITUDES - 1).astype(np.int64)
        counts = np.bincount(buckets, minlength=MAGNITUDES)
        self.magnitudes = counts if self.magnitudes is None else self.magnitudes + counts

    def _update_written(self, text: pd.Series) -> None:
        """Leading zeros and the most decimals of the numbers as written (an exponent, 1e-5,
        makes the decimals unknown for good: -1)."""
        self.leading_zeros += int(text.str.match(LEADING_ZERO).sum())
        if self.decimals == -1:
            return
        if text.str.contains("[eE]", regex=True).any():
            self.decimals = -1
            return
        places = text.str.extract(DECIMAL_PLACES, expand=False).str.len()
        most = int(places.max()) if places.notna().any() else 0
        self.decimals = max(self.decimals or 0, most)

    def _update_digit_dates(self, numbers: np.ndarray) -> None:
        """Whether the numbers are all valid dates written YYYYMMDD (20220315), and their
        range: the month and day must exist (20220230 and 20221301 are not dates)."""
        if not self.digit_dates:
            return
        lo, hi = DIGIT_DATES
        whole = np.all(np.mod(numbers, 1) == 0) and numbers.min() >= lo and numbers.max() <= hi
        if not whole:
            self.digit_dates = False
            return
        days = parse_dates(pd.Series(numbers))  # the fit's reader: the draft agrees with it
        if np.isnat(days).any():
            self.digit_dates = False
            return
        day_numbers = days.astype("datetime64[D]").astype(np.int64)
        self.digit_lower = min(self.digit_lower, float(day_numbers.min()))
        self.digit_upper = max(self.digit_upper, float(day_numbers.max()))

    def median_at_most(self) -> float:
        """An upper bound on the median of the numbers: the top of the median's bucket.

        Bucket b holds 2^(b/8) - 1 <= x < 2^((b+1)/8) - 1; 0 when half the numbers are
        negative (the median is then below 0).
        """
        if self.magnitudes is None:
            return np.inf
        rank = (self.numeric + 1) // 2 - self.negative  # the median's rank among x >= 0
        if rank <= 0:
            return 0.0
        b = int(np.searchsorted(np.cumsum(self.magnitudes), rank))
        return float(2.0 ** ((b + 1) / PER_OCTAVE) - 1)

    def long_tailed(self) -> bool:
        """Numbers whose median lies in the lowest TAIL_SPAN of their range."""
        if self.numeric == 0:
            return False
        return has_long_tail(self.median_at_most(), self.lower, self.upper)

    def _update_dates(self, present: pd.Series) -> None:
        # the fit's own reader: mixed offsets, numbers and far dates read as a fit reads them
        # (pandas failed on naive and offset texts together, after printing some on stderr)
        stamps = parse_dates(present)
        stamps = stamps[~np.isnat(stamps)]
        self.dates += len(stamps)
        if len(stamps):
            ns = stamps.astype(np.int64)
            self.date_lower = min(self.date_lower, float(ns.min()) / 1e9)
            self.date_upper = max(self.date_upper, float(ns.max()) / 1e9)
            self.midnight &= bool(np.all(ns % (86_400 * 10**9) == 0))
            self.month_starts &= bool(np.all(stamps.astype("datetime64[M]") == stamps))
            self.whole_minutes &= bool(np.all(ns % (60 * 10**9) == 0))

    @property
    def present(self) -> int:
        """Number of non-missing values."""
        return self.rows - self.missing


@dataclass(frozen=True)
class ColumnDecision(Result):
    """What ``schema infer`` proposes for a column, and why."""

    name: str
    decision: str  # numeric, categorical, boolean, datetime, identifier, free text, ...
    kept: bool
    reason: str
    nullable: bool = False
    missing_share: float = 0.0
    scale_hint: str | None = None  # "log"/"signed-log": a long right tail; never applied


@dataclass(frozen=True)
class SchemaDraft(Result):
    """The drafted schema (None if no column is kept), each column's decision, rows read."""

    schema: Schema | None
    decisions: tuple[ColumnDecision, ...]
    rows_read: int

    def to_dict(self) -> dict:
        """JSON-ready: the decisions, the rows read and the schema document."""
        import json

        return {
            "rows_read": self.rows_read,
            "decisions": [d.to_dict() for d in self.decisions],
            "schema": None if self.schema is None else json.loads(self.schema.to_json()),
        }

    def require_schema(self) -> Schema:
        """The drafted schema; a :class:`DataError` when every column was dropped (each
        column's reason, read from the data, is the error's private detail)."""
        if self.schema is None:
            hint = separator_hint([d.name for d in self.decisions])
            raise DataError(
                "no column can be modelled: every column was dropped (see the reasons)"
                + (f"; {hint}" if hint else ""),
                private_detail="; ".join(f"{d.name}: {d.reason}" for d in self.decisions),
            )
        return self.schema


def collect_stats(
    chunks: Iterable[pd.DataFrame], *, max_rows: int | None = DEFAULT_MAX_ROWS
) -> tuple[dict[str, ColumnStats], int]:
    """Statistics of every column over the chunks, stopping after ``max_rows`` rows."""
    stats: dict[str, ColumnStats] = {}
    rows = 0
    for chunk in chunks:
        if max_rows is not None and rows + len(chunk) > max_rows:
            chunk = chunk.iloc[: max_rows - rows]
        for name in chunk.columns:
            stats.setdefault(str(name), ColumnStats()).update(chunk[name])
        rows += len(chunk)
        if max_rows is not None and rows >= max_rows:
            break
    if not stats:
        raise DataError("the table has no columns")
    return stats, rows


def decide(
    name: str,
    st: ColumnStats,
    *,
    max_categories: int = 50,
    max_integer_categories: int = 10,
) -> tuple[ColumnDecision, Column | None]:
    """The decision for one column and the schema column it proposes (None if dropped)."""
    present = st.present
    if present == 0:
        return ColumnDecision(name, "empty", False, "no non-missing value"), None
    distinct = len(st.distinct)
    if distinct == 1 and not st.overflow:
        return ColumnDecision(name, "constant", False, "a single distinct value"), None
    numeric_ok = st.numeric >= PARSE_SHARE * present
    codes = numeric_ok and st.leading_zeros >= max(1, LEADING_ZERO_SHARE * present)
    numeric_ok = numeric_ok and not codes  # the text rules below decide, on the codes as written
    date_ok = not numeric_ok and st.dates >= PARSE_SHARE * present
    unparsed = present - (st.numeric if numeric_ok else st.dates if date_ok else present)
    share = (st.missing + unparsed) / st.rows
    nullable = share > 0
    null_kw = {
        "nullable": nullable,
        "missing_share": round(share, 4) if nullable else None,
        "kind_source": "data",  # the decision below reads the values: one record can flip it
    }
    note = f"; {share:.1%} missing" if nullable else ""
    if unparsed:
        note += f" (including {_percent(unparsed / st.rows)} unparsable text, treated as missing)"
    unique = st.overflow or distinct >= UNIQUE_SHARE * present

    def out(decision: str, kept: bool, reason: str, column: Column | None, hint: str | None = None):
        return ColumnDecision(name, decision, kept, reason + note, nullable, share, hint), column

    if st.boolean:
        col = CategoricalColumn(name, ("False", "True"), "data", dtype="boolean", **null_kw)
        return out("boolean", True, "True/False values", col)
    if numeric_ok and st.digit_dates and ID_NAME.search(name) is None:
        if st.digit_upper <= st.digit_lower:
            return out("constant", False, "a single date", None)
        col = DatetimeColumn(name, st.digit_lower, st.digit_upper, True, "data", **null_kw)
        reason = (
            f"dates written YYYYMMDD, from {col.iso(st.digit_lower)} to {col.iso(st.digit_upper)}"
            " (the output writes them as YYYY-MM-DD)"
        )
        return out("datetime", True, reason, col)
    if numeric_ok:
        span = st.upper - st.lower
        looks_like_id = ID_NAME.search(name) is not None or span + 1 <= 2 * present
        if st.integer and unique and present >= 20 and looks_like_id:
            return out("identifier", False, "distinct integers on a near-contiguous range", None)
        if st.integer and distinct <= max_integer_categories:
            cats = sorted({int(float(v)) for v in st.distinct if _is_finite_number(v)})
            if len(cats) >= 2:
                col = CategoricalColumn(
                    name, tuple(str(c) for c in cats), "data", dtype="integer", **null_kw
                )
                return out(
                    "categorical",
                    True,
                    f"{len(cats)} distinct integers: numeric codes, kept as integers",
                    col,
                )
        if span <= 0:
            return out("constant", False, "a single numeric value", None)
        col = NumericColumn(name, st.lower, st.upper, st.integer, "data", **null_kw)
        kind = "integers" if st.integer else "numbers"
        reason = f"{kind} in [{st.lower:g}, {st.upper:g}]"
        if st.integer and YEARS[0] <= st.lower and st.upper <= YEARS[1]:
            reason += (
                f"; perhaps calendar years: under --param private_domain give a public range"
                f" (--param domain_range={name}={YEARS[0]}:{YEARS[1]}), for the public"
                " magnitude buckets around years are [1000, 2000) and [2000, 5000)"
            )
        if not st.integer and st.decimals is not None and 0 < st.decimals <= MAX_HINTED_DECIMALS:
            reason += (
                f'; written with at most {st.decimals} decimals: declare "decimals": '
                f"{st.decimals} if that precision is public knowledge"
            )
        if not st.long_tailed():
            return out("numeric", True, reason, col)
        scale = tail_scale(st.lower)
        reason += (
            f"; long right tail (median in the lowest {TAIL_SPAN:.0%} of the range): declare"
            f' "scale": "{scale}" if that is known without this table'
        )
        return out("numeric", True, reason, col, scale)
    if date_ok:
        unit = "D" if st.midnight else "s"
        per = 86_400.0 if unit == "D" else 1.0
        lo, hi = np.floor(st.date_lower / per), np.ceil(st.date_upper / per)
        if hi <= lo:
            return out("constant", False, "a single date", None)
        col = DatetimeColumn(name, float(lo), float(hi), True, "data", unit=unit, **null_kw)
        reason = f"dates from {col.iso(lo)} to {col.iso(hi)}"
        step = (
            "month" if st.month_starts else "minute" if st.whole_minutes and unit == "s" else None
        )
        if step is not None:
            reason += (
                f'; every value on a whole {step}: declare "resolution": "{step}" if that is '
                "public knowledge (the output is then floored to it)"
            )
        return out("datetime", True, reason, col)
    if codes:
        note = (
            f"; numbers written with leading zeros ({_percent(st.leading_zeros / present)} of "
            "them, as in 01247): codes, kept as text" + note
        )
    if distinct <= max_categories and not st.overflow:
        cats = tuple(sorted(st.distinct))
        col = CategoricalColumn(name, cats, "data", **null_kw)
        return out("categorical", True, f"{distinct} distinct values", col)
    if st.formatted and st.numeric + st.formatted >= PARSE_SHARE * (present - st.marks_only):
        reason = (
            "numbers written with thousands separators, a decimal comma or a currency sign:"
            " rewrite them as plain numbers (1234.5) to model this column"
        )
        if st.marks_only:  # "-" for a missing income pushed the share under 95 %
            reason += (
                f"; {_percent(st.marks_only / present)} of them are marks only (such as"
                ' "-"): list those in the schema\'s "csv" "na_values" to read them as missing'
            )
        return out("formatted numbers", False, reason, None)
    if st.other_dates >= PARSE_SHARE * present:
        reason = "dates not in ISO 8601: rewrite them as YYYY-MM-DD to model this column"
        return out("formatted dates", False, reason, None)
    if distinct <= CODE_LIST_MAX and present >= CODE_LIST_REPEATS * distinct:
        col = CategoricalColumn(name, tuple(sorted(st.distinct)), "data", **null_kw)
        reason = (
            f"{distinct} distinct values (more than --max-categories {max_categories}), each in "
            f"{present / distinct:,.0f} rows on average: a code list"
        )
        return out("categorical", True, reason, col)
    if unique:
        return out("identifier", False, f"{distinct:,} distinct values for {present:,}", None)
    return out(
        "free text",
        False,
        f"{distinct:,} distinct strings (more than --max-categories {max_categories})",
        None,
    )


def separator_hint(names: list[str]) -> str:
    """What to do when the only column's name holds a separator, else "".

    A ``;``-separated file read with ``,`` has one column named ``a;b;c``.
    """
    sep = next((c for c in SEPARATORS if len(names) == 1 and c in names[0]), None)
    if sep is None:
        return ""
    return f"the only column's name holds {sep!r}: if the file is {sep!r}-separated, " + (
        f"pass --sep {sep!r}"
    )


def _percent(share: float) -> str:
    """A share as a percentage with one decimal, "<0.1%" for a positive share below it."""
    return "<0.1%" if 0 < share < 0.0005 else f"{share:.1%}"


def _is_finite_number(text: str) -> bool:
    """Whether ``text`` reads as a finite number ("inf" and "1e309" are read as missing)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def draft_schema(
    chunks: Iterable[pd.DataFrame] | pd.DataFrame,
    *,
    max_rows: int | None = DEFAULT_MAX_ROWS,
    max_categories: int = 50,
    max_integer_categories: int = 10,
    drop: tuple[str, ...] = (),
    log_scale: tuple[str, ...] = (),
) -> SchemaDraft:
    """Decide every column of a table (a frame or its chunks) in one pass; never stops early.

    ``drop`` names columns to leave out whatever they hold. Dropped columns go to the
    schema's ``drop`` list, so their missing values never make a row incomplete.
    ``log_scale`` names numeric columns declared ``scale: log`` by the user (public
    knowledge, unlike the decisions' ``scale_hint``, which is read from the data).

    Raises
    ------
    DataError
        A ``log_scale`` column is not a kept numeric column of the draft.
    """
    if isinstance(chunks, pd.DataFrame):
        chunks = [chunks]
    stats, rows = collect_stats(chunks, max_rows=max_rows)
    decisions: list[ColumnDecision] = []
    columns: list[Column] = []
    for name, st in stats.items():
        if name in drop:
            decisions.append(ColumnDecision(name, "dropped", False, "--drop"))
            continue
        dec, col = decide(
            name, st, max_categories=max_categories, max_integer_categories=max_integer_categories
        )
        hint = separator_hint(list(stats))
        if hint:
            dec = replace(dec, reason=f"{hint}; {dec.reason}")
        decisions.append(dec)
        if col is not None and name in log_scale:
            if not isinstance(col, NumericColumn):
                raise DataError(
                    f"--log {name!r}: the draft's column is {dec.decision}, not numeric"
                )
            col = replace(col, scale="log")
        if col is not None:
            columns.append(col)
    missing = sorted(set(log_scale) - {c.name for c in columns} - set(drop))
    if missing:
        raise DataError(f"--log names columns the draft does not keep: {', '.join(missing)}")
    dropped = tuple(d.name for d in decisions if not d.kept)
    chosen = any(not d.kept and d.name not in drop for d in decisions)  # read from the data
    source = "data" if chosen else "public"
    schema = Schema(tuple(columns), dropped, drop_source=source) if columns else None
    return SchemaDraft(schema, tuple(decisions), rows)


def infer_schema(
    df: pd.DataFrame, *, max_categories: int = 50, drop: tuple[str, ...] = ()
) -> Schema:
    """Deprecated: the schema :func:`draft_schema` drafts from the whole frame.

    ``infer_schema(df)`` is ``draft_schema(df, max_rows=None).require_schema()``, with a
    ``DeprecationWarning``; it will be removed in the next release. Call
    :func:`draft_schema` (``synthcert.data.draft_schema``) or ``synthcert schema infer``,
    which also say why each column was kept or dropped. The rules are :func:`draft_schema`'s
    (this module's docstring): a column with no value, a single value, identifiers and free
    text are dropped (listed in the schema's ``drop``, ``drop_source="data"``) rather than
    refused, whole numbers with at most 10 distinct values are integer codes (categorical),
    a column with missing values is ``nullable``. Every bound, category list and flag is read
    from the data (``source="data"``): replace them by public ones before a release.

    Parameters
    ----------
    df : pandas.DataFrame
        The table (every row is read).
    max_categories : int, default 50
        Most distinct values a text column may have to be categorical; one with more is
        categorical only as a code list (:data:`CODE_LIST_MAX` values at most, each in
        :data:`CODE_LIST_REPEATS` rows on average).
    drop : tuple of str, default ()
        Columns to leave out whatever they hold; they are recorded as the schema's ``drop``.

    Returns
    -------
    Schema
        ``draft_schema(df, max_rows=None, max_categories=max_categories, drop=drop).schema``.

    Raises
    ------
    DataError
        Every column was dropped (:meth:`SchemaDraft.require_schema`).

    Examples
    --------
    >>> df = pd.DataFrame({"age": [23, 41, 67, 35, 52, 29, 71, 44, 38, 60, 19],
    ...                    "sex": ["F", "M", "M", "F", "F", "M", "F", "M", "F", "M", "F"]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     schema = infer_schema(df)
    >>> caught[0].category.__name__
    'DeprecationWarning'
    >>> schema == draft_schema(df).schema
    True
    >>> age = schema.column("age")
    >>> age.lower, age.upper, age.integer, age.source
    (19.0, 71.0, True, 'data')
    >>> schema.column("sex").categories, schema.bounds_source
    (('F', 'M'), 'data')
    """
    warnings.warn(
        "infer_schema is deprecated and will be removed in the next release: use "
        "synthcert.data.draft_schema(df).schema (or `synthcert schema infer`), the one schema "
        "inferrer, which also gives each column's decision and reason",
        DeprecationWarning,
        stacklevel=2,
    )
    draft = draft_schema(df, max_rows=None, max_categories=max_categories, drop=tuple(drop))
    return draft.require_schema()

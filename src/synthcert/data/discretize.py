"""Discretising a table on public bins (for PrivBayes, Private-PGM, marginal utility metrics).

Numeric columns are cut into equal-width bins over their public bounds (20 by default, as in
the thesis, section 4.3), or equal-width bins of the public transform log(1 + x - lower) for a
``scale: log`` column, or the column's explicit ``bins`` edges (public, or DP quantiles of the
column estimated by :mod:`synthcert.privacy.quantile_bins` or :mod:`synthcert.privacy.tree_bins`
and marked ``bins_source: dp``; a column still waiting for its DP edges has the public bins of
its scale). After its bins, a numeric column has one code per public atom
(:attr:`~synthcert.data.schema.NumericColumn.atom_values`: by default 0 when it is a bound),
which holds the values equal to it and decodes to exactly it. Categorical columns keep their
categories. A nullable column has one more code, the last, for a missing value, so every
discretised synthesizer models missingness as one more category (jointly with the other
columns). Decoding draws a value uniformly within the bin (in the transformed scale for a log
column; rounded for integer columns; dates back to datetimes), or, for a column with DP
``cell_mass`` (tree bins), a public fine cell of the bin by its DP mass and then a value
uniformly within that cell (:func:`cell_values`); both are post-processing.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthcert.data.encode import (
    MissingPolicy,
    category_codes,
    check_missing_policy,
    numeric_values,
    prepare_frame,
    prepare_table,
    typed_column,
)
from synthcert.data.schema import Column, NumericColumn, Schema
from synthcert.errors import DataError

DEFAULT_BINS = 20


def equal_width(column: NumericColumn) -> bool:
    """True for the plain case: equal-width bins of the raw values."""
    return column.scale == "linear" and column.bins is None


def n_bins(column: NumericColumn, bins: int = DEFAULT_BINS) -> int:
    """Number of value bins of a numeric column: its explicit edges, else ``bins``."""
    return len(column.bins) - 1 if column.bins is not None else bins


def bin_edges(column: NumericColumn, bins: int = DEFAULT_BINS) -> np.ndarray:
    """The edges of the column's public bins, in its units (``n_bins + 1`` of them).

    Equal width over [lower, upper]; for ``scale: log`` equal width in t = log(1 + x - lower)
    (``signed-log``: in asinh(x)), mapped back (so the bins widen geometrically); or the
    explicit ``bins``.
    """
    if column.bins is not None:
        return np.asarray(column.bins, dtype=np.float64)
    if column.scale != "linear":
        lo, hi = column.model_bounds
        edges = column.from_model(np.linspace(lo, hi, bins + 1))
        edges[0], edges[-1] = column.lower, column.upper
        return edges
    return np.linspace(column.lower, column.upper, bins + 1)


def numeric_bin_codes(x: np.ndarray, column: NumericColumn, bins: int = DEFAULT_BINS) -> np.ndarray:
    """Bin index in 0..n_bins-1 of each value; values outside the bounds go to the end bins.

    A bin is [e_b, e_{b+1}) (the last one closed). NaN values get code 0 here; the
    :class:`Discretizer` gives a missing value its own code. Values are clipped to the public
    bounds before any arithmetic, so no value (1e308, infinity) can overflow and raise a
    warning that one record's value alone would cause (the codes are the same: a value
    outside the bounds goes to an end bin either way).
    """
    x = np.clip(np.asarray(x, dtype=np.float64), column.lower, column.upper)
    x[np.isnan(x)] = column.lower
    if equal_width(column):
        scaled = (x - column.lower) / (column.upper - column.lower) * bins
        return np.clip(np.floor(scaled), 0, bins - 1).astype(np.int64)
    edges = bin_edges(column, bins)
    k = len(edges) - 1
    return np.clip(np.searchsorted(edges, x, side="right") - 1, 0, k - 1).astype(np.int64)


def atom_index(x: np.ndarray, column: NumericColumn) -> np.ndarray:
    """For each value, i when it equals (once clipped to the public bounds, as every encoder
    clips) the column's i-th atom, else -1 (NaN included): the one rule by which a value
    belongs to an atom."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, -1, dtype=np.int64)
    atoms = column.atom_values
    if atoms:
        clipped = np.clip(x, column.lower, column.upper)
        for i, atom in enumerate(atoms):
            out[clipped == atom] = i
    return out


def numeric_codes(x: np.ndarray, column: NumericColumn, bins: int = DEFAULT_BINS) -> np.ndarray:
    """Value code of each value: n_bins + i for a value at the column's i-th atom
    (:func:`atom_index`), else its bin (:func:`numeric_bin_codes`). NaN values get a bin code
    here, as there."""
    codes = numeric_bin_codes(x, column, bins)
    at = atom_index(x, column)
    return np.where(at >= 0, n_bins(column, bins) + at, codes)


def without_atoms(x: np.ndarray, column: NumericColumn) -> np.ndarray:
    """The values with those that an atom's code holds set to NaN (a DP bins step counts the
    rest: the atoms have codes of their own)."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(atom_index(x, column) >= 0, np.nan, x)


def numeric_decode(col: NumericColumn, bins: int, c: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """Values of value codes ``c`` (post-processing): an atom's code gives exactly the atom,
    a bin's code a value inside the bin at relative position ``frac`` (:func:`bin_values`)."""
    c = np.asarray(c, dtype=np.int64)
    k = n_bins(col, bins)
    x = bin_values(col, bins, np.minimum(c, k - 1), frac)
    atoms = np.asarray(col.atom_values, dtype=np.float64)
    if atoms.size:
        x = np.where(c >= k, atoms[np.clip(c - k, 0, atoms.size - 1)], x)
    return x


def support(col: NumericColumn, bins: int = DEFAULT_BINS) -> np.ndarray:
    """A point per value code: the centre of each bin, then each atom (for distances on the
    codes, such as a binned Wasserstein distance)."""
    edges = bin_edges(col, bins)
    return np.concatenate([0.5 * (edges[:-1] + edges[1:]), np.asarray(col.atom_values)])


def value_order(
    col: NumericColumn, bins: int = DEFAULT_BINS, codes: int | None = None
) -> np.ndarray:
    """The column's value codes sorted by value (an atom at the lower bound first, one at the
    upper bound last), followed by any further codes up to ``codes`` (the missing code): for a
    consumer that reads codes as ordered (a CDF over the codes, Kendall's tau of a table)."""
    order = np.argsort(support(col, bins), kind="stable")
    return np.concatenate([order, np.arange(len(order), max(codes or 0, len(order)))])


def bin_values(col: NumericColumn, bins: int, b: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """Values in public bin ``b`` at relative position ``frac`` in [0, 1] (post-processing).

    A column with DP ``cell_mass`` (tree bins): :func:`cell_values`. Otherwise, continuous
    columns: uniform position within the bin (within the transformed bin of a log
    column). Integer columns: the integers whose bin is ``b``, indexed by ``frac``, so rounding
    never moves a value to another bin; a bin holding no integer gives the integer nearest its
    midpoint.
    """
    if col.cell_mass is not None and col.bins is not None:
        return cell_values(col, b, frac)
    b = np.asarray(b, dtype=np.int64)
    frac = np.clip(np.asarray(frac, dtype=np.float64), 0.0, 1.0)
    edges = bin_edges(col, bins)
    k = len(edges) - 1
    if not col.integer:
        if equal_width(col):
            return col.lower + (b + frac) * ((col.upper - col.lower) / bins)
        t = col.to_model(edges)
        return np.clip(col.from_model(t[b] + frac * (t[b + 1] - t[b])), col.lower, col.upper)
    if equal_width(col):
        edges = col.lower + np.arange(bins + 1) * ((col.upper - col.lower) / bins)
    first = np.ceil(edges[:-1])
    last = np.ceil(edges[1:]) - 1.0
    last[-1] = math.floor(col.upper)
    first = np.maximum(first, math.ceil(col.lower))
    # make the integer ranges agree exactly with the shared binning of the data layer
    for _ in range(2):
        first = np.where(numeric_bin_codes(first, col, bins) < np.arange(k), first + 1, first)
        last = np.where(numeric_bin_codes(last, col, bins) > np.arange(k), last - 1, last)
    first, count = skip_end_atoms(col, first, last - first + 1.0)
    lo, cnt = first[b], count[b]
    mid = np.rint((edges[b] + edges[b + 1]) / 2.0)
    return np.where(cnt >= 1, lo + np.minimum(np.floor(frac * cnt), cnt - 1), mid)


def fine_edges(column: NumericColumn, cells: int) -> np.ndarray:
    """The ``cells + 1`` edges of the column's public fine grid: equal width on its scale.

    Equal width in x, or in t = log(1 + x - lower) for ``scale: log`` mapped back; the ends
    are exactly the public bounds. Depends on the column's declaration and ``cells`` only.
    """
    t0, t1 = column.model_bounds
    edges = column.from_model(np.linspace(t0, t1, int(cells) + 1))
    edges[0], edges[-1] = column.lower, column.upper
    return edges


def fine_codes(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Fine cell of each value, [e_i, e_{i+1}) with the last cell closed; values outside the
    bounds go to the end cells (clipped first, as :func:`numeric_bin_codes`); NaN gives -1."""
    x = np.asarray(x, dtype=np.float64)
    absent = np.isnan(x)
    k = len(edges) - 1
    x = np.clip(np.where(absent, edges[0], x), edges[0], edges[-1])
    codes = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, k - 1)
    return np.where(absent, -1, codes).astype(np.int64)


def integer_range(column: NumericColumn, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, count) of the integers in each cell [e_i, e_{i+1}) (the last cell closed at
    ``upper``) of an integer column; a cell may hold none (count 0)."""
    first = np.maximum(np.ceil(edges[:-1]), math.ceil(column.lower))
    stop = np.ceil(edges[1:])
    stop[-1] = math.floor(column.upper) + 1.0
    return skip_end_atoms(column, first, np.maximum(stop - first, 0.0))


def skip_end_atoms(
    column: NumericColumn, first: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(first, count) of integer cells without an atom at a cell's first or last integer: an
    atom's values have a code of their own, so its neighbours in the cell are what the cell's
    mass describes, and a cell that holds the atom alone holds nothing (capacity 0: a tree
    bin merges it away; a bin of the equal-width grid decodes to its midpoint, the atom). An
    atom inside a cell stays in its range."""
    for atom in column.atom_values:
        count = np.where((first == atom) & (count == 1), 0.0, count)
        at_first = (first == atom) & (count > 1)
        first, count = first + at_first, count - at_first
        count = count - ((first + count - 1.0 == atom) & (count > 1))
    return first, count


def cell_capacity(column: NumericColumn, edges: np.ndarray) -> np.ndarray:
    """The public size of each fine cell: 1 (equal width on the column's scale), or the number
    of integers it holds for an integer column."""
    if column.integer:
        return integer_range(column, edges)[1]
    return np.ones(len(edges) - 1)


def cell_values(column: NumericColumn, b: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """Values in DP bin ``b`` of a column with ``cell_mass`` (post-processing).

    The inverse CDF of the bin's piecewise-uniform law at ``frac``: with ``frac`` uniform on
    [0, 1) this draws a fine cell of the bin with probability proportional to its mass, then a
    value uniformly within the cell (on the column's scale; a uniform integer of the cell for
    an integer column). A bin whose cells all have zero mass is decoded uniformly over its
    cells' capacity (:func:`cell_capacity`). Every value lies within its bin and the bounds.
    """
    mass = np.asarray(column.cell_mass, dtype=np.float64)
    edges = fine_edges(column, len(mass))
    bins = np.asarray(column.bins, dtype=np.float64)
    start = np.searchsorted(edges, bins)  # bins are fine edges (tree_bins)
    cap = cell_capacity(column, edges)
    mass = np.where(cap > 0, mass, 0.0)
    per_bin = np.add.reduceat(mass, start[:-1])
    owner = np.repeat(np.arange(len(bins) - 1), np.diff(start))
    weight = np.where(per_bin[owner] > 0, mass, cap)
    cum = np.concatenate([[0.0], np.cumsum(weight)])
    b = np.asarray(b, dtype=np.int64)
    u = np.clip(np.asarray(frac, dtype=np.float64), 0.0, np.nextafter(1.0, 0.0))
    lo, hi = cum[start[b]], cum[start[b + 1]]
    target = lo + u * (hi - lo)
    i = np.searchsorted(cum, target, side="right") - 1
    i = np.clip(i, start[b], start[b + 1] - 1)
    w = weight[i]
    v = np.clip(np.where(w > 0, (target - cum[i]) / np.where(w > 0, w, 1.0), u), 0.0, 1.0)
    if column.integer:
        first, count = integer_range(column, edges)
        x = first[i] + np.minimum(np.floor(v * count[i]), np.maximum(count[i] - 1.0, 0.0))
    else:
        t = column.to_model(edges)
        x = column.from_model(t[i] + v * (t[i + 1] - t[i]))
    top = np.where(b + 1 == len(bins) - 1, bins[-1], np.nextafter(bins[b + 1], -np.inf))
    return np.clip(x, bins[b], top)


def value_cardinality(column: Column, bins: int = DEFAULT_BINS) -> int:
    """Codes of a column's values (bins and atoms, or categories), without the missing code."""
    if isinstance(column, NumericColumn):
        return n_bins(column, bins) + len(column.atom_values)
    return len(column.categories)


class Discretizer:
    """Maps frames to integer codes per column and back.

    Codes 0..k-1 are the column's bins then its atoms, or its categories; a nullable column
    has code k for a missing value (``missing_code``), unless the policy is ``drop`` (no row
    then holds one).
    """

    def __init__(
        self, schema: Schema, *, bins: int = DEFAULT_BINS, missing: MissingPolicy = "model"
    ) -> None:
        if bins < 2:
            raise DataError("bins must be at least 2")
        self.schema = schema
        self.bins = bins
        self.missing = check_missing_policy(missing)

    def models_missing(self, column: Column) -> bool:
        """True if the column has a missing code: nullable, and the policy is not ``drop``."""
        return column.nullable and self.missing != "drop"

    @property
    def cardinalities(self) -> list[int]:
        """Number of codes of each column, in schema order (the missing code included)."""
        return [
            value_cardinality(c, self.bins) + int(self.models_missing(c))
            for c in self.schema.columns
        ]

    def missing_code(self, j: int) -> int | None:
        """The code of a missing value in column ``j``, or None if it has none."""
        col = self.schema.columns[j]
        return value_cardinality(col, self.bins) if self.models_missing(col) else None

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """An (n, k) int64 array of codes, one column per schema column."""
        frame, _ = prepare_frame(df, self.schema, missing=self.missing)
        return self.codes(frame)

    def transform_counted(self, df: pd.DataFrame) -> tuple[np.ndarray, int]:
        """Codes, and the number of rows the missing-value policy dropped (private)."""
        codes, dropped, _ = self.transform_report(df)
        return codes, dropped

    def transform_report(self, df: pd.DataFrame) -> tuple[np.ndarray, int, int]:
        """Codes, the rows dropped and the values filled by the missing-value policy (both
        counts private)."""
        frame, dropped, filled = prepare_table(df, self.schema, missing=self.missing)
        return self.codes(frame), dropped, filled

    def codes(self, frame: pd.DataFrame) -> np.ndarray:
        """Codes of a frame the missing-value policy has already been applied to."""
        out = np.empty((len(frame), len(self.schema.columns)), dtype=np.int64)
        for j, col in enumerate(self.schema.columns):
            if isinstance(col, NumericColumn):
                x = numeric_values(frame[col.name], col)
                out[:, j] = numeric_codes(x, col, self.bins)
                absent = np.isnan(x)
            else:
                out[:, j] = category_codes(frame[col.name], col)
                absent = out[:, j] < 0
            if self.models_missing(col):
                out[absent, j] = value_cardinality(col, self.bins)
        return out

    def inverse_transform(self, codes: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
        """Decode codes: categories by name, numeric values inside their bin or at their atom
        (:func:`numeric_decode`), the missing code as a missing value; columns in the schema's
        dtypes."""
        codes = np.asarray(codes, dtype=np.int64)
        data: dict[str, object] = {}
        for j, col in enumerate(self.schema.columns):
            c = codes[:, j]
            k = value_cardinality(col, self.bins)
            absent = c >= k
            if isinstance(col, NumericColumn):
                x = numeric_decode(col, self.bins, np.minimum(c, k - 1), rng.random(len(c)))
                if col.nullable:
                    x = np.where(absent, np.nan, x)
                data[col.name] = typed_column(col, x)
            else:
                data[col.name] = typed_column(col, np.where(absent, -1, c))
        return pd.DataFrame(data, columns=self.schema.names)

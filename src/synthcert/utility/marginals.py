"""One-way marginal distances, real vs synthetic table (thesis ch. 4, Defs. 4.3.1-4.3.3).

Categorical columns are compared on their declared categories. Numeric columns are compared on
bins of one of two kinds (``binning``):

- ``"quantile"`` (the default in memory): edges at the real column's quantiles j/bins, so each
  bin holds about the same share of real rows and a long right tail is split as finely as the
  bulk. The edges are read from the real table, which is fine here: an evaluation is internal
  (it is refused in a public report), like every figure it prints.
- ``"public"``: the shared public binning of :mod:`synthcert.data.discretize` (equal width over
  the public bounds, 20 bins as in thesis section 4.3; or the column's declared scale or bins).
  The thesis' figures are reproduced on these, and streamed evaluations use them.

Wasserstein-1 is also taken on the raw values in the column's units.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from synthcert._result import Result
from synthcert.data.discretize import (
    DEFAULT_BINS,
    Discretizer,
    bin_edges,
    support,
    value_cardinality,
    without_atoms,
)
from synthcert.data.encode import numeric_values, prepare_frame
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import DataError, check_choice

METRICS = ("l1", "l2", "hellinger", "wasserstein")
Binning = Literal["quantile", "public"]
BINNINGS: tuple[str, ...] = ("quantile", "public")


def l1_distance(p: np.ndarray, q: np.ndarray) -> float:
    """||p - q||_1 of two probability vectors (thesis Definition 4.3.1, p = 1)."""
    return float(np.abs(np.asarray(p, float) - np.asarray(q, float)).sum())


def l2_distance(p: np.ndarray, q: np.ndarray) -> float:
    """||p - q||_2 of two probability vectors (thesis Definition 4.3.1, p = 2)."""
    return float(np.sqrt(np.square(np.asarray(p, float) - np.asarray(q, float)).sum()))


def hellinger_distance(p: np.ndarray, q: np.ndarray) -> float:
    """(1/sqrt 2) ||sqrt p - sqrt q||_2, in [0, 1] (thesis Definition 4.3.2, corrected).

    The thesis writes (sum_i sqrt x_i - sqrt y_i)^2, which squares the sum of differences (and
    is 0 for any two distributions with equal sums of square roots); the standard Hellinger
    distance squares each difference, sums, takes the root and divides by sqrt 2.
    """
    diff = np.sqrt(np.asarray(p, float)) - np.sqrt(np.asarray(q, float))
    return float(np.sqrt(np.square(diff).sum()) / math.sqrt(2.0))


def wasserstein_on_support(support: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """W1 of two distributions on the same points of the line (thesis Definition 4.3.3)."""
    return float(stats.wasserstein_distance(support, support, p, q))


def wasserstein_categorical(p: np.ndarray, q: np.ndarray) -> float:
    """W1 under the 0/1 ground metric on categories: the total variation, ||p - q||_1 / 2.

    Categories have no order, so a metric on their index would depend on how they are listed;
    with distance 1 between any two distinct categories the optimal transport moves exactly the
    excess mass, i.e. the total variation distance.
    """
    return 0.5 * l1_distance(p, q)


def relative(counts: np.ndarray) -> np.ndarray:
    """Counts divided by their total; refuses an empty column."""
    total = counts.sum()
    if total == 0:
        raise DataError("cannot compare an empty column: the table has no complete row")
    return counts / float(total)


def frequencies(codes: np.ndarray, k: int) -> np.ndarray:
    """The relative frequencies of codes 0..k-1 (a probability vector of length k)."""
    return relative(np.bincount(codes, minlength=k)[:k])


@dataclass(frozen=True)
class ColumnDistance(Result):
    """Distances between the real and synthetic one-way distributions of one column.

    ``wasserstein`` is in the column's units (raw values for numeric columns, scipy's W1; the
    total variation for categorical ones), ``wasserstein_binned`` uses the bin centres,
    ``wasserstein_normalized`` divides by the public range so columns can be averaged.
    """

    name: str
    kind: str
    l1: float
    l2: float
    hellinger: float
    wasserstein: float
    wasserstein_binned: float
    wasserstein_normalized: float
    real: tuple[float, ...]  # the real one-way distribution (bins or categories)
    synthetic: tuple[float, ...]
    edges: tuple[float, ...] | None = None  # a numeric column's bin edges, in its units
    atoms: tuple[float, ...] = ()  # the values of the codes after the bins (point masses)

    def on_bins(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """(real, synthetic) on the bins alone, each atom's share added to the bin holding its
        value: for a histogram drawn over the edges."""
        if self.edges is None or not self.atoms:
            return self.real, self.synthetic
        k = len(self.edges) - 1
        edges = np.asarray(self.edges)
        where = np.clip(np.searchsorted(edges, self.atoms, side="right") - 1, 0, k - 1)
        out = []
        for freq in (self.real, self.synthetic):
            f = np.asarray(freq[:k], dtype=np.float64).copy()
            np.add.at(f, where, np.asarray(freq[k : k + len(self.atoms)], dtype=np.float64))
            out.append(tuple(float(v) for v in f))
        return out[0], out[1]


@dataclass(frozen=True)
class MarginalComparison(Result):
    """Per-column distances and their means over categorical and over numeric columns."""

    columns: dict[str, ColumnDistance]
    summary: dict[str, float | None]
    bins: int
    n_real: int
    n_synthetic: int
    binning: str = "public"


def column_distance(
    column: NumericColumn | CategoricalColumn,
    real_codes: np.ndarray,
    synth_codes: np.ndarray,
    real_values: np.ndarray | None = None,
    synth_values: np.ndarray | None = None,
    *,
    bins: int = DEFAULT_BINS,
) -> ColumnDistance:
    """All distances of one column from its codes (and raw values for a numeric column)."""
    k = value_cardinality(column, bins)
    p, q = frequencies(real_codes, k), frequencies(synth_codes, k)
    w_raw = None
    if real_values is not None and synth_values is not None:
        w_raw = float(stats.wasserstein_distance(real_values, synth_values))
    return distance_from_frequencies(column, p, q, w_raw, bins=bins)


def distance_from_frequencies(
    column: NumericColumn | CategoricalColumn,
    p: np.ndarray,
    q: np.ndarray,
    w_raw: float | None = None,
    *,
    bins: int = DEFAULT_BINS,
) -> ColumnDistance:
    """All distances of one column from its real and synthetic frequencies on public bins.

    ``w_raw`` is the Wasserstein distance of the raw values when they were available; without
    it a numeric column's Wasserstein distance is taken on the bin centres (and the atoms).
    """
    edges = None
    if isinstance(column, NumericColumn):
        edges = bin_edges(column, bins)
        w_binned = wasserstein_on_support(support(column, bins), p, q)
        w_raw = w_binned if w_raw is None else w_raw
        w_norm = w_raw / (column.upper - column.lower)
    else:
        w_raw = w_binned = w_norm = wasserstein_categorical(p, q)
    return ColumnDistance(
        name=column.name,
        kind=column.kind,
        l1=l1_distance(p, q),
        l2=l2_distance(p, q),
        hellinger=hellinger_distance(p, q),
        wasserstein=w_raw,
        wasserstein_binned=w_binned,
        wasserstein_normalized=w_norm,
        real=tuple(float(v) for v in p),
        synthetic=tuple(float(v) for v in q),
        edges=None if edges is None else tuple(float(e) for e in edges),
        atoms=tuple(column.atom_values) if isinstance(column, NumericColumn) else (),
    )


def summarize(columns: Mapping[str, ColumnDistance]) -> dict[str, float | None]:
    """Means of every distance over categorical and over numeric columns (thesis Figs. 4.3, 4.4).

    Numeric Wasserstein is averaged in units of each column's public range (raw units differ by
    orders of magnitude between columns); ``None`` where the table has no column of that kind.
    """
    out: dict[str, float | None] = {}
    for kind in ("categorical", "numeric"):
        cols = [c for c in columns.values() if c.kind == kind]
        for metric in METRICS:
            attr = "wasserstein_normalized" if metric == "wasserstein" else metric
            values = [getattr(c, attr) for c in cols]
            out[f"{metric}_{kind}_mean"] = float(np.mean(values)) if values else None
    return out


def quantile_edges(values: np.ndarray, column: NumericColumn, bins: int) -> np.ndarray | None:
    """Edges at the quantiles j/bins (j = 1..bins-1) of a column's present real values other
    than its atoms (which have codes of their own), with the public bounds as the end edges;
    repeated quantiles (a point mass) merge into one edge.

    None when fewer than two bins remain (a nearly constant column): the caller keeps the
    public bins then.
    """
    x = without_atoms(values, column)
    x = np.clip(x[np.isfinite(x)], column.lower, column.upper)
    if x.size == 0:
        return None
    inner = np.quantile(x, np.arange(1, bins) / bins, method="inverted_cdf")
    edges = np.unique(np.concatenate([[column.lower], inner, [column.upper]]))
    return edges if edges.size >= 3 else None


def quantile_schema(real: pd.DataFrame, schema: Schema, bins: int = DEFAULT_BINS) -> Schema:
    """``schema`` with each numeric column's bins at the real column's quantiles
    (:func:`quantile_edges`); categorical columns and nearly constant columns as they were."""
    frame, _ = prepare_frame(real, schema)
    columns = []
    for col in schema.columns:
        if isinstance(col, NumericColumn):
            edges = quantile_edges(numeric_values(frame[col.name], col), col, bins)
            if edges is not None:
                col = replace(
                    col, bins=tuple(edges), quantile_bins=None, tree_bins=None, cell_mass=None,
                    bins_source="public",
                )  # fmt: skip
        columns.append(col)
    return replace(schema, columns=tuple(columns))


def compare_marginals(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    *,
    bins: int = DEFAULT_BINS,
    binning: Binning = "quantile",
) -> MarginalComparison:
    """Distances of every column's one-way distribution (rows with a missing value are dropped).

    ``binning="quantile"`` bins numeric columns at the real column's quantiles (about
    ``bins`` bins, fewer where quantiles repeat), ``"public"`` on the schema's public bins.
    """
    check_choice("binning", binning, BINNINGS)
    if binning == "quantile":
        schema = quantile_schema(real, schema, bins)
    disc = Discretizer(schema, bins=bins, missing="drop")  # as prepare_frame below
    real_codes = disc.transform(real)
    synth_codes = disc.transform(synthetic)
    real_frame, _ = prepare_frame(real, schema)
    synth_frame, _ = prepare_frame(synthetic, schema)
    columns: dict[str, ColumnDistance] = {}
    for j, col in enumerate(schema.columns):
        rv = sv = None
        if isinstance(col, NumericColumn):
            rv = numeric_values(real_frame[col.name], col)
            sv = numeric_values(synth_frame[col.name], col)
        columns[col.name] = column_distance(
            col, real_codes[:, j], synth_codes[:, j], rv, sv, bins=bins
        )
    return MarginalComparison(
        columns=columns,
        summary=summarize(columns),
        bins=bins,
        n_real=len(real_codes),
        n_synthetic=len(synth_codes),
        binning=binning,
    )

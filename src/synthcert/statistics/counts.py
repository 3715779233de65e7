"""Counts of the discretised table on public bins: k-way marginals, computed chunk by chunk.

The count-based synthesizers (PrivBayes, MWEM-PGM, AIM, the copula) and the streamed utility
read the data only through counts of cells of cliques of columns on the shared
:class:`~synthcert.data.discretize.Discretizer`'s codes. :func:`clique_counts` counts one
clique of one codes array; the accumulators add those counts over chunks and merge partials
in any order (integer sums, so every engine and every order gives the same integers).
:class:`HistogramAccumulator` is the one-way case, kept as a list of per-column histograms.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Self

import numpy as np

Clique = tuple[int, ...]


def clique_counts(codes: np.ndarray, clique: Clique, shape: Sequence[int]) -> np.ndarray:
    """Counts of every combination of codes of the columns ``clique`` of a codes array.

    Parameters
    ----------
    codes : numpy.ndarray
        (n, d) integer codes, column j in ``0 .. cardinality_j - 1``.
    clique : tuple of int
        Column positions, in the order of the output's axes.
    shape : sequence of int
        The cardinalities of those columns, in clique order.

    Returns
    -------
    numpy.ndarray
        int64 counts of shape ``shape``; they sum to n.

    Examples
    --------
    >>> import numpy as np
    >>> clique_counts(np.array([[0, 1], [1, 1], [0, 1]]), (1, 0), (2, 2)).tolist()
    [[0, 0], [2, 1]]
    """
    shape = tuple(int(k) for k in shape)
    flat = np.ravel_multi_index(tuple(codes[:, c] for c in clique), shape)
    counts = np.bincount(flat, minlength=math.prod(shape))
    return counts.astype(np.int64, copy=False).reshape(shape)


class _CountAccumulator(ABC):
    """What every count accumulator shares: ``update`` with a chunk of codes, ``merge`` with
    another accumulator, and the row bookkeeping kept beside the counts: ``rows`` counted (kept
    by the missing-value policy), ``rows_read`` (kept or not) and ``values_filled`` (missing
    values given public fills). A subclass says how its counts add a chunk
    (:meth:`_add_codes`) and another accumulator's counts (:meth:`_add_counts`); all are
    integer sums, so merges commute."""

    rows: int
    rows_read: int
    values_filled: int

    @abstractmethod
    def _add_codes(self, codes: np.ndarray) -> None:
        """Add the counts of the rows of an (m, k) codes array."""

    @abstractmethod
    def _add_counts(self, other: Self) -> None:
        """Add the counts of another accumulator of the same cells."""

    def update(self, codes: np.ndarray, *, read: int | None = None, filled: int = 0) -> Self:
        """Add the rows of an (m, k) codes array (in place).

        Parameters
        ----------
        codes : numpy.ndarray
            The kept rows' codes, one column per column of the table.
        read : int, optional
            Rows read for this chunk, kept or not (default: the rows of ``codes``).
        filled : int, default 0
            Values of this chunk given public fills.

        Returns
        -------
        MarginalCounts or HistogramAccumulator
            ``self``.
        """
        self._add_codes(codes)
        kept = int(codes.shape[0])
        self.rows += kept
        self.rows_read += int(kept if read is None else read)
        self.values_filled += int(filled)
        return self

    def merge(self, other: Self) -> Self:
        """Add the counts of other rows, on the same cells (in place).

        Parameters
        ----------
        other : MarginalCounts or HistogramAccumulator
            Counts of disjoint rows, of the same type and cells (left untouched).

        Returns
        -------
        MarginalCounts or HistogramAccumulator
            ``self``.
        """
        self._add_counts(other)
        self.rows += other.rows
        self.rows_read += other.rows_read
        self.values_filled += other.values_filled
        return self


@dataclass
class MarginalCounts(_CountAccumulator):
    """Counts of k-way cells on public bins, one flattened array per clique, mergeable.

    Parameters
    ----------
    shapes : dict
        Clique (tuple of column positions) -> its cardinalities in clique order.
    counts : dict, optional
        Clique -> flattened int64 counts (zeros by default).
    rows : int
        Rows counted (those the discretizer's missing-value policy kept).
    rows_read : int
        Rows read, kept or not. Private: ``rows_read - rows`` is a count of the table.
    values_filled : int
        Missing values the ``fill`` policy replaced by public fills (private).

    Examples
    --------
    >>> import numpy as np
    >>> mc = MarginalCounts({(0, 1): (2, 3)}).update(np.array([[0, 2], [1, 0], [0, 2]]))
    >>> mc.table((0, 1)).tolist(), mc.rows
    ([[0, 0, 2], [1, 0, 0]], 3)
    """

    shapes: dict[Clique, tuple[int, ...]]
    counts: dict[Clique, np.ndarray] = field(default=None)  # type: ignore[assignment]
    rows: int = 0
    rows_read: int = 0
    values_filled: int = 0

    def __post_init__(self) -> None:
        if self.counts is None:
            self.counts = {
                c: np.zeros(math.prod(s), dtype=np.int64) for c, s in self.shapes.items()
            }

    def _add_codes(self, codes: np.ndarray) -> None:
        """Add each clique's cell counts of the codes (flattened, as kept)."""
        for clique, shape in self.shapes.items():
            self.counts[clique] += clique_counts(codes, clique, shape).ravel()

    def _add_counts(self, other: MarginalCounts) -> None:
        """Add the counts of each clique of ``other``."""
        for clique in self.counts:
            self.counts[clique] += other.counts[clique]

    def table(self, clique: Sequence[int]) -> np.ndarray:
        """The counts of one clique as a k-dimensional array (axes in clique order).

        Parameters
        ----------
        clique : sequence of int
            One of the cliques counted.

        Returns
        -------
        numpy.ndarray
            A view of shape ``shapes[clique]``.

        Raises
        ------
        KeyError
            The clique was not counted.
        """
        key = tuple(clique)
        return self.counts[key].reshape(self.shapes[key])


@dataclass
class HistogramAccumulator(_CountAccumulator):
    """One-way counts of every column on public bins (the marginals of the cliques (j,)).

    The same counting and merging as :class:`MarginalCounts` restricted to single columns,
    kept as a list of per-column histograms.

    Parameters
    ----------
    cardinalities : list of int
        Number of codes of each column, in schema order.
    counts : list of numpy.ndarray, optional
        Histogram of each column (zeros by default).
    rows : int
        Rows counted (kept by the discretizer's missing-value policy).
    rows_read : int
        Rows read, kept or not (private, as in :class:`MarginalCounts`).
    values_filled : int
        Missing values given public fills (private, as in :class:`MarginalCounts`).

    Examples
    --------
    >>> import numpy as np
    >>> h = HistogramAccumulator([2, 3]).update(np.array([[0, 2], [1, 2]]))
    >>> [c.tolist() for c in h.counts], h.rows
    ([[1, 1], [0, 0, 2]], 2)
    """

    cardinalities: list[int]
    counts: list[np.ndarray] = field(default=None)  # type: ignore[assignment]
    rows: int = 0
    rows_read: int = 0
    values_filled: int = 0

    def __post_init__(self) -> None:
        if self.counts is None:
            self.counts = [np.zeros(int(k), dtype=np.int64) for k in self.cardinalities]

    def _add_codes(self, codes: np.ndarray) -> None:
        """Add the histogram of each column of the codes."""
        for j, k in enumerate(self.cardinalities):
            self.counts[j] += clique_counts(codes, (j,), (k,))

    def _add_counts(self, other: HistogramAccumulator) -> None:
        """Add the histograms of ``other``, column by column."""
        for j in range(len(self.counts)):
            self.counts[j] += other.counts[j]


__all__ = ["Clique", "HistogramAccumulator", "MarginalCounts", "clique_counts"]

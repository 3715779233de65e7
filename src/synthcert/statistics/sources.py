"""Sources of marginal counts: what a model fitted from counts asks its questions of.

A model that implements :class:`~synthcert.statistics.protocols.FitsFromCounts` reads the data
only through a :class:`CountSource`: the number of rows and k-way count tables of cliques of
columns on the shared :class:`~synthcert.data.discretize.Discretizer`'s codes.
:class:`CodesCounts` answers from a codes array in memory (``fit(table)``);
``synthcert.engine.EngineCounts`` answers by passes of an engine over a (large) input. Both
derive from :class:`CachedCounts`: each requested set of columns is counted once, in batches,
and any clique contained in a counted set is derived by summing out the other axes, which is
exact for integer counts, so the answers are the same integers whichever source gives them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from itertools import combinations
from typing import Protocol, runtime_checkable

import numpy as np

from synthcert.errors import DataError
from synthcert.statistics.counts import Clique, clique_counts


@runtime_checkable
class CountSource(Protocol):
    """Rows and k-way counts on public bins of a discretised table (columns by position).

    Structural (``typing.runtime_checkable``): any object with ``rows``, ``cardinalities`` and
    ``marginal`` is a source, with no synthcert base class needed.
    """

    @property
    def rows(self) -> int:
        """Number of rows counted (after the discretizer's missing-value policy)."""
        ...

    @property
    def cardinalities(self) -> list[int]:
        """Number of codes of each column, in schema order."""
        ...

    def marginal(self, cliques: Sequence[Clique]) -> dict[Clique, np.ndarray]:
        """Count tables of the cliques, in as few passes over the data as can be.

        Parameters
        ----------
        cliques : sequence of tuple of int
            Distinct column positions each.

        Returns
        -------
        dict
            Clique -> int64 counts, axes in clique order.
        """
        ...


def maximal_sets(sets: Sequence[Clique]) -> list[Clique]:
    """The sets not strictly contained in another one of ``sets``.

    Parameters
    ----------
    sets : sequence of tuple of int
        Sorted column sets (tuples in increasing order), repeats allowed.

    Returns
    -------
    list of tuple of int
        The maximal sets, in input order, without repeats.

    Examples
    --------
    >>> maximal_sets([(0, 1), (1,), (0, 1), (2,), (1, 2)])
    [(0, 1), (1, 2)]
    """
    unique = list(dict.fromkeys(sets))
    inside = {sub for s in unique for r in range(1, len(s)) for sub in combinations(s, r)}
    return [s for s in unique if s not in inside]


def check_cardinalities(source: CountSource, cards: Sequence[int]) -> None:
    """Refuse a source counted on other bins than the model's discretizer.

    Parameters
    ----------
    source : CountSource
        The counts offered to a fit.
    cards : sequence of int
        The cardinalities of the model's own discretizer, in schema order.

    Raises
    ------
    DataError
        The cardinalities differ (the counts were made with another schema or other bins).
    """
    if list(source.cardinalities) != list(cards):
        raise DataError(
            f"the counts have column cardinalities {list(source.cardinalities)} but the "
            f"synthesizer's discretizer has {list(cards)}: count with the synthesizer's "
            "own discretizer (same schema and bins)"
        )


class CachedCounts(ABC):
    """A :class:`CountSource` that counts each set of columns once and derives its subsets.

    A request is answered from a counted superset of each clique when there is one (summing
    out the other axes, then transposing to the clique's order); the rest is counted by one
    call of ``_count`` with only the maximal sets of the request. Subclasses implement
    ``_count`` (one pass over the data for a list of sorted column sets) and ``rows``.

    Parameters
    ----------
    cardinalities : sequence of int
        Number of codes of each column, in schema order.

    Attributes
    ----------
    counted : list of list of tuple of int
        The sets counted by each call of ``_count`` (one entry per pass over the data).
    """

    def __init__(self, cardinalities: Sequence[int]) -> None:
        self._cards = [int(k) for k in cardinalities]
        self._tables: dict[Clique, np.ndarray] = {}  # sorted column sets -> counts
        self._by_column: dict[int, set[Clique]] = {}  # column -> counted sets holding it
        self.counted: list[list[Clique]] = []  # the sets counted by each call of _count

    @property
    def cardinalities(self) -> list[int]:
        """Number of codes of each column, in schema order."""
        return list(self._cards)

    @abstractmethod
    def _count(self, sets: list[Clique]) -> dict[Clique, np.ndarray]:
        """Count the (sorted) column sets, all in one pass over the data."""

    def _check(self, clique: Clique) -> Clique:
        key = tuple(int(c) for c in clique)
        if not key or len(set(key)) != len(key) or not all(0 <= c < len(self._cards) for c in key):
            raise DataError(
                f"clique {clique} must list distinct column positions in 0..{len(self._cards) - 1}"
            )
        return key

    def _superset(self, key: Clique) -> Clique | None:
        """The counted set with the fewest cells that contains ``key``, if any."""
        found = set.intersection(*(self._by_column.get(c, set()) for c in key))
        if not found:
            return None
        return min(found, key=lambda s: (self._tables[s].size, s))

    def marginal(self, cliques: Sequence[Clique]) -> dict[Clique, np.ndarray]:
        """Count tables of the cliques, with at most one pass over the data.

        Parameters
        ----------
        cliques : sequence of tuple of int
            Distinct column positions each, axes of the answer in that order.

        Returns
        -------
        dict
            Clique -> int64 counts of shape (cardinalities of its columns, in clique order).

        Raises
        ------
        DataError
            A clique is empty, repeats a column or names a column out of range.
        """
        keys = [self._check(c) for c in cliques]
        todo = [tuple(sorted(k)) for k in keys if self._superset(k) is None]
        if todo:
            sets = maximal_sets(todo)
            got = self._count(sets)
            self.counted.append(sets)
            for s in sets:
                self._tables[s] = np.asarray(got[s], dtype=np.int64)
                for c in s:
                    self._by_column.setdefault(c, set()).add(s)
        out: dict[Clique, np.ndarray] = {}
        for key in keys:
            home = self._superset(key)
            assert home is not None
            table = self._tables[home]
            drop = tuple(i for i, c in enumerate(home) if c not in key)
            kept = [c for c in home if c in key]
            summed = table.sum(axis=drop) if drop else table
            out[key] = np.transpose(summed, [kept.index(c) for c in key]).copy()
        return out

    @property
    def passes(self) -> int:
        """How many times the data were counted."""
        return len(self.counted)


class CodesCounts(CachedCounts):
    """Counts from an (n, d) array of codes in memory (what ``fit(table)`` uses).

    Parameters
    ----------
    codes : numpy.ndarray
        (n, d) integer codes on public bins.
    cardinalities : sequence of int
        Number of codes of each of the d columns.

    Raises
    ------
    DataError
        ``codes`` is not a two-dimensional array with d columns.

    Examples
    --------
    >>> import numpy as np
    >>> src = CodesCounts(np.array([[0, 1], [1, 1], [0, 0]]), [2, 2])
    >>> src.rows, src.marginal([(1,)])[(1,)].tolist()
    (3, [1, 2])
    """

    def __init__(self, codes: np.ndarray, cardinalities: Sequence[int]) -> None:
        super().__init__(cardinalities)
        codes = np.asarray(codes, dtype=np.int64)
        if codes.ndim != 2 or codes.shape[1] != len(self._cards):
            raise DataError(
                f"codes must be an (n, {len(self._cards)}) array, got shape {codes.shape}"
            )
        self.codes = codes

    @property
    def rows(self) -> int:
        """Number of rows of the codes array."""
        return int(self.codes.shape[0])

    def _count(self, sets: list[Clique]) -> dict[Clique, np.ndarray]:
        return {s: clique_counts(self.codes, s, [self._cards[c] for c in s]) for s in sets}


__all__ = [
    "CachedCounts",
    "CodesCounts",
    "CountSource",
    "check_cardinalities",
    "maximal_sets",
]

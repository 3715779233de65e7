"""Marginal counts on public bins, the only statistics the count-based synthesizers fit from.

PrivBayes, MWEM-PGM, AIM and the copula's engine path read the data only through a
:class:`CountSource`: the number of rows and k-way count tables of cliques of columns on the
shared :class:`~synthcert.data.discretize.Discretizer`'s codes. :class:`CodesCounts` answers
from a codes array in memory (``fit(table)``); ``synthcert.engine.EngineCounts`` answers by
passes of an engine over a (large) input. Both count each requested set of columns once, in
batches, and derive any clique contained in a counted set by summing out the other axes, which
is exact for integer counts: the answers are the same integers whichever source gives them.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from itertools import combinations
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from synthcert.errors import DataError

Clique = tuple[int, ...]


@runtime_checkable
class CountSource(Protocol):
    """Rows and k-way counts on public bins of a discretised table (columns by position)."""

    @property
    def rows(self) -> int:
        """Number of rows counted (after the discretizer's missing-value policy)."""
        ...

    @property
    def cardinalities(self) -> list[int]:
        """Number of codes of each column, in schema order."""
        ...

    def marginal(self, cliques: Sequence[Clique]) -> dict[Clique, np.ndarray]:
        """int64 count tables of the cliques, axes in clique order, in as few passes as can be."""
        ...


def clique_counts(codes: np.ndarray, clique: Clique, shape: Sequence[int]) -> np.ndarray:
    """int64 counts of every combination of the columns ``clique`` of an (n, d) codes array,
    as an array of ``shape`` (the columns' cardinalities, in clique order)."""
    shape = tuple(int(k) for k in shape)
    flat = np.ravel_multi_index(tuple(codes[:, c] for c in clique), shape)
    counts = np.bincount(flat, minlength=math.prod(shape))
    return counts.astype(np.int64, copy=False).reshape(shape)


def maximal_sets(sets: Sequence[Clique]) -> list[Clique]:
    """The sorted sets not strictly contained in another one of ``sets`` (input order, no
    repeats)."""
    unique = list(dict.fromkeys(sets))
    inside = {sub for s in unique for r in range(1, len(s)) for sub in combinations(s, r)}
    return [s for s in unique if s not in inside]


def check_cardinalities(source: CountSource, cards: Sequence[int]) -> None:
    """Refuse a source counted on other bins than the synthesizer's discretizer."""
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
    call of ``_count`` with only the maximal sets of the request.
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
        """int64 count tables of the cliques, axes in clique order (one ``_count`` at most)."""
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
    """Counts from an (n, d) array of codes in memory (what ``fit(table)`` uses)."""

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


def fit_from_table(synth: Any, table: pd.DataFrame) -> Any:
    """``fit(table)`` of a synthesizer that fits from marginal counts: discretise on its public
    bins, count in memory, ``fit_counts``; ``rows_dropped_missing_`` (private) counts the rows
    the missing-value policy dropped."""
    codes, dropped = synth.discretizer.transform_counted(table)
    synth.fit_counts(CodesCounts(codes, synth.discretizer.cardinalities))
    synth.rows_dropped_missing_ = dropped
    return synth

"""Per-partition reductions (moments, histograms, k-way marginal counts) and their fixed-tree merge.

Every engine runs these same functions on the same partitions and merges the partial results
in the same balanced binary tree over partition order, so local, streaming and Dask results
are the same floating-point numbers whatever the number of workers (the mergeable
accumulators of ``synthcert.data.accumulate``; Chan, Golub & LeVeque 1979 for the moments).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from synthcert.data.accumulate import HistogramAccumulator, MomentAccumulator
from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, EncodeReport, merge_reports
from synthcert.data.io import CsvOptions
from synthcert.engine.plan import DEFAULT_CHUNK_ROWS, Partition, iter_partition
from synthcert.errors import DataError
from synthcert.synthesizers.counts import clique_counts

T = TypeVar("T")


@dataclass
class MomentPartial:
    """Moments of the encoded rows of some partitions, with what encoding dropped and clipped."""

    acc: MomentAccumulator
    report: EncodeReport

    def merge(self, other: MomentPartial) -> MomentPartial:
        """Combine in place (and return self)."""
        self.acc.merge(other.acc)
        self.report = merge_reports([self.report, other.report])
        return self


@dataclass
class MarginalCounts:
    """Counts of k-way cells on public bins, one flattened array per clique, mergeable."""

    shapes: dict[tuple[int, ...], tuple[int, ...]]
    counts: dict[tuple[int, ...], np.ndarray] = field(default=None)  # type: ignore[assignment]
    rows: int = 0  # rows counted (kept by the missing-value policy)
    rows_read: int = 0  # rows read, kept or not (private: their difference is a count)

    def __post_init__(self) -> None:
        if self.counts is None:
            self.counts = {
                c: np.zeros(int(np.prod(s)), dtype=np.int64) for c, s in self.shapes.items()
            }

    def update(self, codes: np.ndarray) -> MarginalCounts:
        """Add the rows of an (m, k) array of codes."""
        for clique, shape in self.shapes.items():
            self.counts[clique] += clique_counts(codes, clique, shape).ravel()
        self.rows += codes.shape[0]
        return self

    def merge(self, other: MarginalCounts) -> MarginalCounts:
        """Combine in place."""
        for clique in self.counts:
            self.counts[clique] += other.counts[clique]
        self.rows += other.rows
        self.rows_read += other.rows_read
        return self

    def table(self, clique: Sequence[int]) -> np.ndarray:
        """The counts of one clique as a k-dimensional array."""
        key = tuple(clique)
        return self.counts[key].reshape(self.shapes[key])


def _located(part: Partition, exc: DataError) -> DataError:
    """The same error, naming the file when it is not already named."""
    text = str(exc)
    if part.file in text:
        return exc
    return DataError(f"{text} (in {part.file})", private_detail=exc.private_detail)


def partition_moments(
    part: Partition,
    encoder: Encoder,
    csv: CsvOptions | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> MomentPartial:
    """Moments of the encoded rows of one partition, streamed chunk by chunk."""
    acc = MomentAccumulator(encoder.dim)
    reports: list[EncodeReport] = []
    offset = part.file_offset
    try:
        for chunk in iter_partition(part, drop=encoder.schema.drop, csv=csv, chunk_rows=chunk_rows):
            X, report = encoder.encode(chunk, row_offset=offset)
            offset += len(chunk)
            acc.update(X)
            reports.append(report)
    except DataError as exc:
        raise _located(part, exc) from None
    return MomentPartial(acc, merge_reports(reports))


def _count_codes(
    part: Partition,
    discretizer: Discretizer,
    acc: T,
    csv: CsvOptions | None,
    chunk_rows: int,
) -> T:
    """Add the partition's codes on the discretizer's public bins to ``acc``, chunk by chunk."""
    try:
        for chunk in iter_partition(
            part, drop=discretizer.schema.drop, csv=csv, chunk_rows=chunk_rows
        ):
            acc.update(discretizer.transform(chunk))  # type: ignore[attr-defined]
            if isinstance(acc, MarginalCounts):
                acc.rows_read += len(chunk)
    except DataError as exc:
        raise _located(part, exc) from None
    return acc


def partition_histograms(
    part: Partition,
    discretizer: Discretizer,
    csv: CsvOptions | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> HistogramAccumulator:
    """One-way counts on the discretizer's public bins for one partition."""
    acc = HistogramAccumulator(discretizer.cardinalities)
    return _count_codes(part, discretizer, acc, csv, chunk_rows)


def partition_marginals(
    part: Partition,
    discretizer: Discretizer,
    cliques: Sequence[tuple[int, ...]],
    csv: CsvOptions | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> MarginalCounts:
    """k-way counts of each clique (tuples of column positions) for one partition."""
    card = discretizer.cardinalities
    acc = MarginalCounts({tuple(c): tuple(card[j] for j in c) for c in cliques})
    return _count_codes(part, discretizer, acc, csv, chunk_rows)


def merge_copy(a: T, b: T) -> T:
    """``a`` merged with ``b``, leaving both untouched (for task graphs that may share inputs)."""
    return copy.deepcopy(a).merge(b)  # type: ignore[attr-defined]


class TreeMerger(Generic[T]):
    """Merge a stream of partials in the balanced binary tree over their order.

    Keeps at most log2(k) partials (a binary counter); ``result()`` folds the leftovers from
    the right, which is the same tree as pairing neighbours level by level (``tree_pairs``),
    so a streaming and a distributed reduction add the same numbers in the same order.
    """

    def __init__(self, merge: Callable[[T, T], T]) -> None:
        self._merge = merge
        self._stack: list[tuple[int, T]] = []  # (height, partial)

    def push(self, item: T) -> None:
        """Add the next partial (in partition order)."""
        height = 0
        while self._stack and self._stack[-1][0] == height:
            _, left = self._stack.pop()
            item = self._merge(left, item)
            height += 1
        self._stack.append((height, item))

    def result(self) -> T:
        """The merge of everything pushed."""
        if not self._stack:
            raise ValueError("nothing to merge")
        _, acc = self._stack[-1]
        for _, left in reversed(self._stack[:-1]):
            acc = self._merge(left, acc)
        return acc


def tree_pairs(items: list[T], merge: Callable[[T, T], T]) -> T:
    """Merge neighbours level by level (an odd last item moves up unmerged)."""
    if not items:
        raise ValueError("nothing to merge")
    level = list(items)
    while len(level) > 1:
        nxt = [merge(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]

"""Per-partition reductions (moments, histograms, k-way marginal counts) and their fixed-tree merge.

Every engine runs these same functions on the same partitions and merges the partial results
in the same balanced binary tree over partition order, so local, streaming and Dask results
are the same floating-point numbers whatever the number of workers. The statistics and their
merges are those of ``synthcert.statistics`` (Chan, Golub & LeVeque 1979 for the moments;
integer sums for the counts); this module only reads partitions and orders the merges.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

import numpy as np

from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, EncodeReport, encode_arrow
from synthcert.data.io import CsvOptions
from synthcert.engine.plan import Partition, batch_frame, iter_partition, iter_partition_batches
from synthcert.errors import DataError
from synthcert.statistics.chunks import CHUNK_ROWS
from synthcert.statistics.counts import HistogramAccumulator, MarginalCounts
from synthcert.statistics.moments import MomentPartial, encoded_moments, reduce_encoded

T = TypeVar("T")
C = TypeVar("C", HistogramAccumulator, MarginalCounts)


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
    chunk_rows: int = CHUNK_ROWS,
) -> MomentPartial:
    """Moments of the encoded rows of one partition, streamed chunk by chunk.

    Parameters
    ----------
    part : Partition
        The piece of the input to read.
    encoder : Encoder
        The public encoding and its missing-value policy.
    csv : CsvOptions, optional
        How to parse a CSV partition.
    chunk_rows : int
        Rows read at a time.

    Returns
    -------
    MomentPartial
        Moments of the kept encoded rows and the encode report of the partition.

    Raises
    ------
    DataError
        The partition cannot be read or does not match the schema (the message names the file).
    """
    try:
        if part.kind == "parquet":
            return reduce_encoded(encoder.dim, _encoded_batches(part, encoder, chunk_rows))
        frames = iter_partition(part, drop=encoder.schema.drop, csv=csv, chunk_rows=chunk_rows)
        return encoded_moments(encoder, frames, row_offset=part.file_offset)
    except DataError as exc:
        raise _located(part, exc) from None


def _encoded_batches(
    part: Partition, encoder: Encoder, chunk_rows: int
) -> Iterator[tuple[np.ndarray, EncodeReport]]:
    """Each record batch of a Parquet partition encoded straight from Arrow when its columns
    allow (:func:`~synthcert.data.encode.encode_arrow`), else through its frame: the same
    X and report either way."""
    offset = part.file_offset
    for batch in iter_partition_batches(part, drop=encoder.schema.drop, chunk_rows=chunk_rows):
        encoded = encode_arrow(encoder, batch, row_offset=offset)
        if encoded is None:
            encoded = encoder.encode(batch_frame(part, batch), row_offset=offset)
        yield encoded
        offset += batch.num_rows


def _count_codes(
    part: Partition,
    discretizer: Discretizer,
    acc: C,
    csv: CsvOptions | None,
    chunk_rows: int,
) -> C:
    """Add the partition's codes on the discretizer's public bins to ``acc``, chunk by chunk."""
    try:
        for chunk in iter_partition(
            part, drop=discretizer.schema.drop, csv=csv, chunk_rows=chunk_rows
        ):
            codes, _, filled = discretizer.transform_report(chunk)
            acc.update(codes, read=len(chunk), filled=filled)
    except DataError as exc:
        raise _located(part, exc) from None
    return acc


def partition_histograms(
    part: Partition,
    discretizer: Discretizer,
    csv: CsvOptions | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> HistogramAccumulator:
    """One-way counts on the discretizer's public bins for one partition.

    Parameters
    ----------
    part : Partition
        The piece of the input to read.
    discretizer : Discretizer
        The public bins and missing-value policy.
    csv : CsvOptions, optional
        How to parse a CSV partition.
    chunk_rows : int
        Rows read at a time.

    Returns
    -------
    HistogramAccumulator
        The histogram of each column of the partition's kept rows.

    Raises
    ------
    DataError
        The partition cannot be read or does not match the schema (the message names the file).
    """
    acc = HistogramAccumulator(discretizer.cardinalities)
    return _count_codes(part, discretizer, acc, csv, chunk_rows)


def partition_marginals(
    part: Partition,
    discretizer: Discretizer,
    cliques: Sequence[tuple[int, ...]],
    csv: CsvOptions | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> MarginalCounts:
    """k-way counts of each clique (tuples of column positions) for one partition.

    Parameters
    ----------
    part : Partition
        The piece of the input to read.
    discretizer : Discretizer
        The public bins and missing-value policy.
    cliques : sequence of tuple of int
        Column positions of each clique.
    csv : CsvOptions, optional
        How to parse a CSV partition.
    chunk_rows : int
        Rows read at a time.

    Returns
    -------
    MarginalCounts
        The counts of each clique over the partition's kept rows, with rows read and kept.

    Raises
    ------
    DataError
        The partition cannot be read or does not match the schema (the message names the file).
    """
    card = discretizer.cardinalities
    acc = MarginalCounts({tuple(c): tuple(card[j] for j in c) for c in cliques})
    return _count_codes(part, discretizer, acc, csv, chunk_rows)


def merge_copy(a: T, b: T) -> T:
    """``a`` merged with ``b``, leaving both untouched (for task graphs that may share inputs).

    Parameters
    ----------
    a, b : accumulator
        Partials with a ``merge`` method (moments or counts).

    Returns
    -------
    accumulator
        A deep copy of ``a`` with ``b`` merged into it.
    """
    return copy.deepcopy(a).merge(b)  # type: ignore[attr-defined]


class TreeMerger(Generic[T]):
    """Merge a stream of partials in the balanced binary tree over their order.

    Keeps at most log2(k) partials (a binary counter); ``result()`` folds the leftovers from
    the right, which is the same tree as pairing neighbours level by level (``tree_pairs``),
    so a streaming and a distributed reduction add the same numbers in the same order.

    Parameters
    ----------
    merge : callable
        ``merge(left, right)`` of two partials (in order).

    Examples
    --------
    >>> m = TreeMerger(lambda a, b: f"({a}{b})")
    >>> for x in "abcde":
    ...     m.push(x)
    >>> m.result() == tree_pairs(list("abcde"), lambda a, b: f"({a}{b})") == "(((ab)(cd))e)"
    True
    """

    def __init__(self, merge: Callable[[T, T], T]) -> None:
        self._merge = merge
        self._stack: list[tuple[int, T]] = []  # (height, partial)

    def push(self, item: T) -> None:
        """Add the next partial (in partition order), merging completed subtrees.

        Parameters
        ----------
        item : object
            The partial of the next partition.
        """
        height = 0
        while self._stack and self._stack[-1][0] == height:
            _, left = self._stack.pop()
            item = self._merge(left, item)
            height += 1
        self._stack.append((height, item))

    def result(self) -> T:
        """The merge of everything pushed.

        Returns
        -------
        object
            The root of the tree.

        Raises
        ------
        ValueError
            Nothing was pushed.
        """
        if not self._stack:
            raise ValueError("nothing to merge")
        _, acc = self._stack[-1]
        for _, left in reversed(self._stack[:-1]):
            acc = self._merge(left, acc)
        return acc


def tree_pairs(items: list[T], merge: Callable[[T, T], T]) -> T:
    """Merge neighbours level by level (an odd last item moves up unmerged).

    Parameters
    ----------
    items : list
        Partials in partition order (Dask futures on the cluster).
    merge : callable
        ``merge(left, right)``.

    Returns
    -------
    object
        The root of the balanced tree, the same as :class:`TreeMerger` gives.

    Raises
    ------
    ValueError
        ``items`` is empty.

    Examples
    --------
    >>> tree_pairs([1, 2, 3], lambda a, b: a + b)
    6
    """
    if not items:
        raise ValueError("nothing to merge")
    level = list(items)
    while len(level) > 1:
        nxt = [merge(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]

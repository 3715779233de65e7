"""Partitions of an input table: groups of Parquet row groups, or whole CSV files.

A partition is the unit of work a worker reads on its own; inside it the rows are streamed in
chunks, so a worker holds one chunk at a time. The plan depends only on the files and
``partition_rows``, never on the number of workers, so every engine reduces the same pieces.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from synthcert._result import Result
from synthcert.data.io import (
    PARQUET_SUFFIXES,
    CsvOptions,
    arrow_frame,
    expand_inputs,
    iter_table_chunks,
)
from synthcert.errors import DataError, ParameterError
from synthcert.statistics.chunks import CHUNK_ROWS

DEFAULT_PARTITION_ROWS = 1 << 22  # about 4.2 million rows, ~200 MB of float64 at d = 6


@dataclass(frozen=True)
class Partition(Result):
    """One piece of the input: a Parquet file's row groups ``row_groups``, or a CSV file.

    Parameters
    ----------
    index : int
        Position in the plan (the merge tree's leaf order).
    file : str
        The file read.
    kind : {"parquet", "csv"}
        Its format.
    row_groups : tuple of int, optional
        The Parquet row groups of the partition.
    rows : int, optional
        Rows, known for Parquet from the footer, None for CSV.
    file_offset : int
        Index of the partition's first row within its file (for error messages).
    """

    index: int
    file: str
    kind: str  # "parquet" or "csv"
    row_groups: tuple[int, ...] | None = None
    rows: int | None = None  # known for Parquet (from the footer), None for CSV
    file_offset: int = 0  # index of the partition's first row within its file


def plan_partitions(
    input_path: str | os.PathLike, *, partition_rows: int = DEFAULT_PARTITION_ROWS
) -> list[Partition]:
    """Split a file, directory or glob into partitions of about ``partition_rows`` rows.

    Parquet files are cut between row groups (a row group is never split); CSV files are one
    partition each (their rows are only known by reading them). The plan depends on the files
    and ``partition_rows`` only, never on the engine or its workers.

    Parameters
    ----------
    input_path : str or path-like
        A CSV or Parquet file, a folder of them, or a glob.
    partition_rows : int
        Rows from which a Parquet partition is closed.

    Returns
    -------
    list of Partition
        In file order, then row-group order.

    Raises
    ------
    ParameterError
        ``partition_rows`` is below 1.
    DataError
        No input matches, or a Parquet footer cannot be read.
    """
    if partition_rows < 1:
        raise ParameterError(f"partition_rows must be at least 1, got {partition_rows}")
    parts: list[Partition] = []
    for file in expand_inputs(input_path):
        if file.suffix.lower() not in PARQUET_SUFFIXES:
            parts.append(Partition(len(parts), str(file), "csv"))
            continue
        try:
            meta = pq.ParquetFile(file).metadata
        except (pa.ArrowInvalid, OSError) as exc:
            raise DataError(f"cannot read Parquet file {str(file)!r}: {exc}") from exc
        group: list[int] = []
        rows = offset = 0
        for rg in range(meta.num_row_groups):
            group.append(rg)
            rows += meta.row_group(rg).num_rows
            if rows >= partition_rows:
                parts.append(
                    Partition(len(parts), str(file), "parquet", tuple(group), rows, offset)
                )
                offset += rows
                group, rows = [], 0
        if group or meta.num_row_groups == 0:
            parts.append(Partition(len(parts), str(file), "parquet", tuple(group), rows, offset))
    return parts


def total_rows(parts: Sequence[Partition]) -> int | None:
    """Rows of all partitions, or None when a CSV partition makes it unknown before reading.

    Parameters
    ----------
    parts : sequence of Partition
        A plan.

    Returns
    -------
    int or None
        The sum of their rows, when every one is known.
    """
    if any(p.rows is None for p in parts):
        return None
    return int(sum(p.rows or 0 for p in parts))


def iter_partition(
    part: Partition,
    *,
    drop: Sequence[str] = (),
    csv: CsvOptions | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> Iterator[pd.DataFrame]:
    """Yield the partition's rows in frames of at most ``chunk_rows`` rows.

    Parquet columns listed in ``drop`` are not read (the schema discards them anyway); every
    other column is, since a missing value in any input column makes a row incomplete.

    Parameters
    ----------
    part : Partition
        The piece to read.
    drop : sequence of str
        Parquet columns not to read.
    csv : CsvOptions, optional
        How to parse a CSV partition.
    chunk_rows : int
        Rows per frame at most (:data:`~synthcert.statistics.CHUNK_ROWS`).

    Yields
    ------
    pandas.DataFrame
        Consecutive rows of the partition.

    Raises
    ------
    DataError
        The file cannot be read.
    """
    if part.kind == "csv":
        yield from iter_table_chunks(part.file, csv=csv, chunk_rows=chunk_rows)
        return
    for batch in iter_partition_batches(part, drop=drop, chunk_rows=chunk_rows):
        yield batch_frame(part, batch)


def batch_frame(part: Partition, batch: pa.RecordBatch) -> pd.DataFrame:
    """The frame of one of the partition's batches (:func:`~synthcert.data.io.arrow_frame`).

    Parameters
    ----------
    part : Partition
        The partition the batch was read from (named in an error).
    batch : pyarrow.RecordBatch
        The rows.

    Returns
    -------
    pandas.DataFrame
        The same rows and columns.

    Raises
    ------
    DataError
        Arrow cannot convert a column.
    """
    try:
        return arrow_frame(batch)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"cannot read Parquet file {part.file!r}: {exc}") from exc


def iter_partition_batches(
    part: Partition, *, drop: Sequence[str] = (), chunk_rows: int = CHUNK_ROWS
) -> Iterator[pa.RecordBatch]:
    """Yield a Parquet partition's rows as Arrow record batches of at most ``chunk_rows`` rows.

    The batches :func:`iter_partition` turns into frames (the same rows and columns): the
    Parquet fit encodes them without building a frame
    (:func:`~synthcert.data.encode.encode_arrow`).

    Parameters
    ----------
    part : Partition
        A Parquet partition.
    drop : sequence of str
        Columns not to read.
    chunk_rows : int
        Rows per batch at most.

    Yields
    ------
    pyarrow.RecordBatch
        Consecutive rows of the partition.

    Raises
    ------
    ValueError
        ``part`` is a CSV partition.
    DataError
        The file cannot be read.
    """
    if part.kind != "parquet":
        raise ValueError(f"{part.file!r} is not a Parquet partition")
    if not part.row_groups:
        return
    try:
        pf = pq.ParquetFile(part.file)
        skip = set(drop)
        columns = [c for c in pf.schema_arrow.names if c not in skip] if skip else None
        yield from pf.iter_batches(
            batch_size=chunk_rows, row_groups=list(part.row_groups), columns=columns
        )
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"cannot read Parquet file {part.file!r}: {exc}") from exc

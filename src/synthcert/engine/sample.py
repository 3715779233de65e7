"""Partitioned sampling: chunk i of the output is drawn from child i of SeedSequence(seed).

Chunk i is ``model.sample_chunk(rows_i, child_i)``, the public call of every fitted model
(:class:`~synthcert.statistics.protocols.SamplesChunks`): M_G draws it with its own chunk
arithmetic, so the rows equal its ``sample``; any other model draws ``sample(rows_i,
seed=child_i)``. Tasks hold one chunk at a time, so the rows depend on the seed and the chunk
size only, not on the engine, the partitioning into files or the number of workers. The engine
knows no model class: it only calls ``sample_chunk``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from synthcert.data.io import parquet_writer
from synthcert.errors import ParameterError
from synthcert.seeding import Seed, seed_sequence
from synthcert.statistics.chunks import chunk_sizes
from synthcert.statistics.protocols import SamplesChunks, SamplesChunkTables


@dataclass(frozen=True)
class ChunkSpec:
    """Chunk ``index`` of the output: ``rows`` rows from child ``index`` of the seed.

    Parameters
    ----------
    index : int
        Position of the chunk in the output.
    rows : int
        Rows of the chunk.
    seed : numpy.random.SeedSequence
        Child ``index`` of the run's secret seed.
    """

    index: int
    rows: int
    seed: np.random.SeedSequence


@dataclass(frozen=True)
class PartSpec:
    """Output file ``index``: consecutive chunks written to ``path``.

    Parameters
    ----------
    index : int
        Position of the file in the dataset.
    path : str
        Where the file is written.
    chunks : tuple of ChunkSpec
        Its chunks, in output order.
    """

    index: int
    path: str
    chunks: tuple[ChunkSpec, ...]

    @property
    def rows(self) -> int:
        """Rows in the file."""
        return sum(c.rows for c in self.chunks)


def checked_model(model: object) -> SamplesChunks:
    """The model, if it can draw chunks (``sample_chunk(rows, seed)``), else a clear refusal.

    Parameters
    ----------
    model : object
        A fitted model.

    Returns
    -------
    SamplesChunks
        ``model`` itself.

    Raises
    ------
    ParameterError
        The object has no ``sample_chunk`` method.
    """
    if not isinstance(model, SamplesChunks):
        raise ParameterError(
            f"{type(model).__name__} cannot be sampled by an engine: it has no "
            "sample_chunk(rows, seed) method (synthcert.statistics.SamplesChunks)"
        )
    return model


def chunk_specs(n: int, seed: Seed, chunk_rows: int) -> list[ChunkSpec]:
    """The chunks of ``n`` rows: sizes (:func:`~synthcert.statistics.chunks.chunk_sizes`) and
    child seeds (child i of ``SeedSequence(seed)`` for chunk i).

    Parameters
    ----------
    n : int
        Rows of the output.
    seed : int, SeedSequence or None
        The run's secret seed (None: fresh OS entropy).
    chunk_rows : int
        Rows of a full chunk.

    Returns
    -------
    list of ChunkSpec
        One per chunk, in output order.

    Raises
    ------
    ParameterError
        ``n`` is negative or ``chunk_rows`` below 1.

    Examples
    --------
    >>> [(c.index, c.rows) for c in chunk_specs(5, 0, 2)]
    [(0, 2), (1, 2), (2, 1)]
    """
    sizes = chunk_sizes(n, chunk_rows)
    children = seed_sequence(seed).spawn(len(sizes))
    pairs = enumerate(zip(sizes, children, strict=True))
    return [ChunkSpec(i, size, child) for i, (size, child) in pairs]


def chunk_frame(chunk: ChunkSpec, model: SamplesChunks) -> pd.DataFrame:
    """One decoded chunk, ``model.sample_chunk(chunk.rows, chunk.seed)``.

    Module-level so that workers can unpickle it.

    Parameters
    ----------
    chunk : ChunkSpec
        Which chunk.
    model : SamplesChunks
        The fitted model (pickled to the workers).

    Returns
    -------
    pandas.DataFrame
        The chunk's rows.
    """
    return model.sample_chunk(chunk.rows, chunk.seed)


def chunk_table(chunk: ChunkSpec, model: SamplesChunks) -> pa.Table:
    """One decoded chunk as an Arrow table, ``pa.Table.from_pandas(chunk_frame(...))``.

    A :class:`~synthcert.statistics.protocols.SamplesChunkTables` model (M_G) returns that table
    itself, decoded without a frame where its columns allow.

    Built on the worker that draws the chunk, so the conversion overlaps with the writer
    (the same table :class:`~synthcert.data.io.ChunkedTableWriter` builds from the frame).

    Parameters
    ----------
    chunk : ChunkSpec
        Which chunk.
    model : SamplesChunks
        The fitted model.

    Returns
    -------
    pyarrow.Table
        The chunk's rows, with pandas metadata and without the index.
    """
    if isinstance(model, SamplesChunkTables):  # decoded straight into Arrow (the same table)
        return model.sample_chunk_table(chunk.rows, chunk.seed)
    return pa.Table.from_pandas(chunk_frame(chunk, model), preserve_index=False)


def write_part(part: PartSpec, model: SamplesChunks) -> int:
    """Draw the part's chunks one at a time and write them to its Parquet file.

    Floating-point columns are written without dictionaries, as the single-file release
    writes them (:func:`~synthcert.data.io.parquet_writer`): the same values, a smaller file.

    Parameters
    ----------
    part : PartSpec
        The file and its chunks; a part without chunks gets an empty file with the columns.
    model : SamplesChunks
        The fitted model.

    Returns
    -------
    int
        Rows written.
    """
    writer: pq.ParquetWriter | None = None
    try:
        for chunk in part.chunks:
            table = chunk_table(chunk, model)
            if writer is None:
                writer = parquet_writer(part.path, table.schema)
            writer.write_table(table)
        if writer is None:  # an empty release still gets a readable (empty) part
            empty = chunk_table(ChunkSpec(0, 0, np.random.SeedSequence(0)), model)
            writer = parquet_writer(part.path, empty.schema)
            writer.write_table(empty)
    finally:
        if writer is not None:
            writer.close()
    return part.rows


def part_specs(
    chunks: list[ChunkSpec], chunks_per_part: int, path_of: Callable[[int], str]
) -> list[PartSpec]:
    """Group consecutive chunks into files of ``chunks_per_part`` chunks.

    Parameters
    ----------
    chunks : list of ChunkSpec
        All chunks of the output, in order.
    chunks_per_part : int
        Chunks per file (the last file may hold fewer).
    path_of : callable
        File index -> path of that file.

    Returns
    -------
    list of PartSpec
        The files, in order; one empty file when there is no chunk.
    """
    if not chunks:
        return [PartSpec(0, path_of(0), ())]
    k = chunks_per_part
    return [
        PartSpec(i // k, path_of(i // k), tuple(chunks[i : i + k]))
        for i in range(0, len(chunks), k)
    ]

"""The engine-level operations: reductions over an input table and partitioned sampling.

Each takes ``engine="local"`` (threads of this process, streaming) or ``engine="dask"`` with
``scheduler`` (an address, a ``distributed.Client``, or None for a loopback ``LocalCluster``),
or an engine already opened with :func:`open_engine` (to reuse one cluster for several steps).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, MissingPolicy
from synthcert.data.io import CsvOptions
from synthcert.data.schema import Schema
from synthcert.engine.local import LocalEngine
from synthcert.engine.partitioned import Manifest, PartitionedDatasetWriter
from synthcert.engine.plan import (
    DEFAULT_PARTITION_ROWS,
    Partition,
    plan_partitions,
    total_rows,
)
from synthcert.engine.reduce import (
    merge_copy,
    partition_histograms,
    partition_marginals,
    partition_moments,
)
from synthcert.engine.sample import (
    ChunkSpec,
    checked_model,
    chunk_frame,
    chunk_specs,
    chunk_table,
    part_specs,
    write_part,
)
from synthcert.errors import ParameterError
from synthcert.seeding import Seed
from synthcert.statistics.chunks import CHUNK_ROWS
from synthcert.statistics.counts import HistogramAccumulator, MarginalCounts
from synthcert.statistics.moments import MomentPartial
from synthcert.statistics.protocols import SamplesChunks

EngineName = Literal["local", "dask"]
ENGINES = ("local", "dask")
RowProgress = Callable[[int, int | None], None]  # (rows done, total rows or None)
Notify = Callable[[str], None]
T = TypeVar("T")


@contextlib.contextmanager
def open_engine(
    engine: Any = "local",
    scheduler: Any = None,
    *,
    workers: int | None = None,
    notify: Notify | None = None,
) -> Iterator[Any]:
    """An engine for the block: ``LocalEngine`` or ``DaskEngine`` (cluster closed at the end).

    Parameters
    ----------
    engine : str or engine
        ``"local"``, ``"dask"``, or an engine object (returned as is, left open).
    scheduler : str or distributed.Client, optional
        For ``"dask"``: a scheduler address or client (None: a new loopback cluster).
    workers : int, optional
        Threads of the local engine, or workers of a new local Dask cluster.
    notify : callable, optional
        Receives one-line messages (the Dask dashboard link).

    Yields
    ------
    LocalEngine or DaskEngine
        The engine; what this function opened it closes on exit.

    Raises
    ------
    ParameterError
        An unknown engine name, or a scheduler without ``engine="dask"``.

    Examples
    --------
    >>> with open_engine("local", workers=2) as eng:
    ...     eng.name, eng.n_workers
    ('local', 2)
    """
    if not isinstance(engine, str):
        yield engine
        return
    if engine == "local":
        if scheduler is not None:
            raise ParameterError("--scheduler needs --engine dask")
        yield LocalEngine(workers)
        return
    if engine == "dask":
        from synthcert.engine.dask import DaskEngine, dask_client

        with dask_client(scheduler, n_workers=workers, notify=notify) as client:
            yield DaskEngine(client)
        return
    raise ParameterError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")


def _row_counter(parts: Sequence[Partition], progress: RowProgress | None):
    """An ``on_done(i)`` callback turning finished partitions into rows for ``progress``."""
    if progress is None:
        return None
    total = total_rows(parts)
    done = [0, 0]

    def on_done(i: int) -> None:
        done[0] += parts[i].rows or 0
        done[1] += 1
        progress(done[0] if total is not None else done[1], total)

    return on_done


def _reduce_input(
    func: Callable[..., T],
    input_path: str | os.PathLike,
    args: tuple[Any, ...],
    *,
    partition_rows: int,
    engine: Any,
    scheduler: Any,
    progress: RowProgress | None,
) -> T:
    """One engine pass over the input: ``func(partition, *args)`` merged in the fixed tree.

    The input is cut into partitions of about ``partition_rows`` rows (:func:`plan_partitions`);
    each partition's partial is merged with ``merge_copy`` in the engine's fixed tree, so the
    result does not depend on the engine or its workers.
    """
    parts = plan_partitions(input_path, partition_rows=partition_rows)
    with open_engine(engine, scheduler) as eng:
        return eng.reduce(
            func, parts, *args, merge=merge_copy, on_done=_row_counter(parts, progress)
        )


def fit_moments(
    input_path: str | os.PathLike,
    schema: Schema | Encoder,
    *,
    missing: MissingPolicy = "drop",
    csv: CsvOptions | None = None,
    chunk_rows: int = CHUNK_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> MomentPartial:
    """Count, mean and scatter of the encoded input, with rows dropped and values clipped.

    One pass of the engine: each partition's moments (Chan et al.'s mergeable accumulator),
    merged in the fixed tree. A model fitted from moments takes the result:
    ``model.fit_moments(result.acc, [result.report])``
    (:class:`~synthcert.statistics.protocols.FitsFromMoments`).

    Parameters
    ----------
    input_path : str or path-like
        A CSV or Parquet file, a folder of them, or a glob.
    schema : Schema or Encoder
        The public schema (encoded with ``missing``), or the model's own encoder.
    missing : {"drop", "model", "fail"}
        Missing-value policy when ``schema`` is a Schema.
    csv : CsvOptions, optional
        How to parse CSV inputs.
    chunk_rows : int
        Rows read at a time by a worker (:data:`~synthcert.statistics.CHUNK_ROWS`).
    partition_rows : int
        About how many rows one task reads (Parquet is cut between row groups).
    engine : str or engine
        ``"local"``, ``"dask"``, or an engine opened with :func:`open_engine`.
    scheduler : str or distributed.Client, optional
        For ``"dask"``: a scheduler address or client (None: a new loopback cluster).
    progress : callable, optional
        Called with (rows done, total rows or None) as partitions finish.

    Returns
    -------
    MomentPartial
        ``acc`` (count, mean, scatter of the kept encoded rows) and ``report``.

    Raises
    ------
    DataError
        An input cannot be read or does not match the schema (the message names the file).
    ParameterError
        An unknown engine, or ``partition_rows`` below 1.
    """
    encoder = schema if isinstance(schema, Encoder) else Encoder(schema, missing=missing)
    return _reduce_input(
        partition_moments, input_path, (encoder, csv, chunk_rows),
        partition_rows=partition_rows, engine=engine, scheduler=scheduler, progress=progress,
    )  # fmt: skip


def histograms(
    input_path: str | os.PathLike,
    discretizer: Discretizer,
    *,
    csv: CsvOptions | None = None,
    chunk_rows: int = CHUNK_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> HistogramAccumulator:
    """One-way counts of every column on the discretizer's public bins (schema order).

    Parameters
    ----------
    input_path : str or path-like
        A CSV or Parquet file, a folder of them, or a glob.
    discretizer : Discretizer
        The public bins and missing-value policy.
    csv : CsvOptions, optional
        How to parse CSV inputs.
    chunk_rows : int
        Rows read at a time by a worker (:data:`~synthcert.statistics.CHUNK_ROWS`).
    partition_rows : int
        About how many rows one task reads (Parquet is cut between row groups).
    engine : str or engine
        ``"local"``, ``"dask"``, or an engine opened with :func:`open_engine`.
    scheduler : str or distributed.Client, optional
        For ``"dask"``: a scheduler address or client (None: a new loopback cluster).
    progress : callable, optional
        Called with (rows done, total rows or None) as partitions finish.

    Returns
    -------
    HistogramAccumulator
        ``counts[j]``: the histogram of column j over the kept rows.

    Raises
    ------
    DataError
        An input cannot be read or does not match the schema.
    ParameterError
        An unknown engine, or ``partition_rows`` below 1.
    """
    return _reduce_input(
        partition_histograms, input_path, (discretizer, csv, chunk_rows),
        partition_rows=partition_rows, engine=engine, scheduler=scheduler, progress=progress,
    )  # fmt: skip


def marginals(
    input_path: str | os.PathLike,
    discretizer: Discretizer,
    cliques: Sequence[Sequence[int | str]],
    *,
    csv: CsvOptions | None = None,
    chunk_rows: int = CHUNK_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> MarginalCounts:
    """k-way counts on public bins of each clique (column names or positions), in one pass.

    Parameters
    ----------
    input_path : str or path-like
        A CSV or Parquet file, a folder of them, or a glob.
    discretizer : Discretizer
        The public bins and missing-value policy.
    cliques : sequence of sequence of int or str
        The columns of each clique, by position or name.
    csv : CsvOptions, optional
        How to parse CSV inputs.
    chunk_rows : int
        Rows read at a time by a worker (:data:`~synthcert.statistics.CHUNK_ROWS`).
    partition_rows : int
        About how many rows one task reads (Parquet is cut between row groups).
    engine : str or engine
        ``"local"``, ``"dask"``, or an engine opened with :func:`open_engine`.
    scheduler : str or distributed.Client, optional
        For ``"dask"``: a scheduler address or client (None: a new loopback cluster).
    progress : callable, optional
        Called with (rows done, total rows or None) as partitions finish.

    Returns
    -------
    MarginalCounts
        ``table(clique)`` for each clique (positions), ``rows`` kept and ``rows_read``.

    Raises
    ------
    DataError
        An input cannot be read or does not match the schema.
    ParameterError
        An unknown engine, or ``partition_rows`` below 1.
    ValueError
        A column name is not in the schema.
    """
    names = discretizer.schema.names
    keys = [tuple(names.index(c) if isinstance(c, str) else int(c) for c in q) for q in cliques]
    return _reduce_input(
        partition_marginals, input_path, (discretizer, keys, csv, chunk_rows),
        partition_rows=partition_rows, engine=engine, scheduler=scheduler, progress=progress,
    )  # fmt: skip


def sample_frames(
    model: SamplesChunks,
    n: int,
    *,
    seed: Seed = None,
    chunk_rows: int | None = None,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> Iterator[pd.DataFrame]:
    """Decoded chunks in order, drawn by the engine: chunk i is ``model.sample_chunk(rows_i,
    child_i)``.

    For M_G these are the rows of ``model.sample_chunks(n, seed=seed)`` (the same chunks), and
    their concatenation is ``model.sample(n, seed=seed)``, bit for bit.

    Parameters
    ----------
    model : SamplesChunks
        A fitted model.
    n : int
        Rows to draw.
    seed : int, SeedSequence or None
        The run's secret seed (None: fresh OS entropy).
    chunk_rows : int, optional
        Rows per chunk: default the model's ``chunk_rows`` attribute when it has one (M_G's
        rows are its ``sample`` only with its own), else :data:`~synthcert.statistics.CHUNK_ROWS`.
    engine, scheduler
        Where to draw (see :func:`open_engine`).
    progress : callable, optional
        Called with (rows done, n) after each chunk.

    Yields
    ------
    pandas.DataFrame
        One chunk of rows at a time, in order.

    Raises
    ------
    ParameterError
        The model has no ``sample_chunk``, ``n`` is negative, or the engine is unknown.
    """
    model, _, chunks = _sampling_chunks(model, n, seed, chunk_rows)
    done = 0
    with open_engine(engine, scheduler) as eng:
        for frame in eng.map_ordered(chunk_frame, chunks, model):
            done += len(frame)
            if progress:
                progress(done, int(n))
            yield frame


def sample_tables(
    model: SamplesChunks,
    n: int,
    *,
    seed: Seed = None,
    chunk_rows: int | None = None,
    engine: Any = "local",
    scheduler: Any = None,
) -> Iterator[pa.Table]:
    """The chunks of :func:`sample_frames` as Arrow tables, drawn and converted by the engine.

    Chunk i is ``pa.Table.from_pandas(model.sample_chunk(rows_i, child_i))``: the same rows
    as :func:`sample_frames`. The engine keeps twice its workers' chunks in flight while the
    caller consumes (writes) earlier ones, so drawing, decoding, converting and writing overlap.

    Parameters
    ----------
    model : SamplesChunks
        A fitted model.
    n : int
        Rows to draw.
    seed : int, SeedSequence or None
        The run's secret seed (None: fresh OS entropy).
    chunk_rows : int, optional
        Rows per chunk (default as in :func:`sample_frames`).
    engine, scheduler
        Where to draw (see :func:`open_engine`).

    Yields
    ------
    pyarrow.Table
        One chunk of rows at a time, in order.

    Raises
    ------
    ParameterError
        The model has no ``sample_chunk``, ``n`` is negative, or the engine is unknown.
    """
    model, _, chunks = _sampling_chunks(model, n, seed, chunk_rows)
    with open_engine(engine, scheduler) as eng:
        yield from eng.map_ordered(chunk_table, chunks, model)


def _sampling_chunks(
    model: SamplesChunks, n: int, seed: Seed, chunk_rows: int | None
) -> tuple[SamplesChunks, int, list[ChunkSpec]]:
    """The checked model, the chunk size and the chunks of ``n`` rows (what every sampling
    operation starts from).

    The chunk size is the one asked for, else the model's own ``chunk_rows``, else the one
    default :data:`~synthcert.statistics.CHUNK_ROWS`; chunk i is drawn from child i of the seed
    (:func:`~synthcert.engine.sample.chunk_specs`).
    """
    model = checked_model(model)
    size = int(chunk_rows or getattr(model, "chunk_rows", None) or CHUNK_ROWS)
    return model, size, chunk_specs(int(n), seed, size)


def sample_partitioned(
    model: SamplesChunks,
    n: int,
    out: str | os.PathLike,
    *,
    seed: Seed = None,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    protect: Sequence[str | os.PathLike] = (),
    progress: RowProgress | None = None,
    chunk_rows: int | None = None,
) -> Manifest:
    """Write ``n`` rows as a partitioned Parquet dataset folder ``out``, atomically.

    Chunk i is ``model.sample_chunk(rows_i, child_i of seed)``, so the rows are the same
    whatever the engine and number of workers; for M_G (with its own ``chunk_rows``) they
    equal ``model.sample(n, seed=seed)``. Files hold ``partition_rows`` rows, rounded to whole
    chunks; each worker draws and writes its files one chunk at a time. The manifest holds
    public facts only (parts, rows, columns, chunk size): never the seed, which is secret.

    Parameters
    ----------
    model : SamplesChunks
        A fitted model (pickled to the workers on Dask).
    n : int
        Rows to write.
    out : path
        The dataset folder (replaced atomically; refused if it holds an input).
    seed : int, SeedSequence or None
        The run's secret seed (None: fresh OS entropy).
    partition_rows : int
        About how many rows per file.
    engine, scheduler
        Where to draw (see :func:`open_engine`).
    protect : sequence of path
        Inputs the output must not overwrite.
    progress : callable, optional
        Called with (rows written, n) after each file.
    chunk_rows : int, optional
        Rows per chunk: default the model's ``chunk_rows`` attribute when it has one, else
        :data:`~synthcert.statistics.CHUNK_ROWS`.

    Returns
    -------
    Manifest
        The committed dataset's public description.

    Raises
    ------
    ParameterError
        The model has no ``sample_chunk``, ``n`` is negative, or the engine is unknown.
    NotFittedError
        The model is not fitted (raised before anything is written).
    DataError
        ``out`` is a file, or a folder that is not a synthcert dataset.
    """
    model, chunk_rows, chunks = _sampling_chunks(model, n, seed, chunk_rows)
    # zero rows from a fixed seed: refuses an unfitted model before writing, and names columns
    columns = list(chunk_frame(ChunkSpec(0, 0, np.random.SeedSequence(0)), model).columns)
    writer = PartitionedDatasetWriter(out, protect=protect)
    try:
        per_part = max(1, round(partition_rows / chunk_rows))
        parts = part_specs(chunks, per_part, writer.part_path)
        rows: list[int] = []
        done = 0
        with open_engine(engine, scheduler) as eng:
            for r in eng.map_ordered(write_part, parts, model):
                rows.append(r)
                done += r
                if progress:
                    progress(done, int(n))
        return writer.commit(rows, columns, chunk_rows=chunk_rows)
    finally:
        writer.abort()


def numeric_correlation(
    input_path: str | os.PathLike,
    schema: Schema,
    **kwargs: Any,
) -> tuple[list[str], np.ndarray]:
    """(names, Pearson correlation matrix) of the schema's numeric columns, in one pass.

    Computed from the moments of the encoded columns, a positive affine map of the raw values
    (so the same correlation) except that values outside the public bounds are clipped first.

    Parameters
    ----------
    input_path : str or path-like
        A CSV or Parquet file, a folder of them, or a glob.
    schema : Schema
        The public schema (its numeric columns are used).
    **kwargs
        Passed to :func:`fit_moments` (csv, chunk_rows, partition_rows, engine, ...).

    Returns
    -------
    tuple of (list of str, numpy.ndarray)
        The numeric columns' names and their correlation matrix (NaN for a constant column).

    Raises
    ------
    DataError
        An input cannot be read or does not match the schema.
    """
    numeric = schema.select([c.name for c in schema.numeric])
    partial = fit_moments(input_path, numeric, **kwargs)
    cov = partial.acc.covariance
    scale = np.sqrt(np.diag(cov))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(scale, scale)
    return numeric.names, corr

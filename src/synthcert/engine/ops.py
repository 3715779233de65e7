"""The engine-level operations: reductions over an input table and partitioned sampling.

Each takes ``engine="local"`` (threads of this process, streaming) or ``engine="dask"`` with
``scheduler`` (an address, a ``distributed.Client``, or None for a loopback ``LocalCluster``),
or an engine already opened with :func:`open_engine` (to reuse one cluster for several steps).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthcert.data.accumulate import HistogramAccumulator
from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, MissingPolicy
from synthcert.data.io import CsvOptions
from synthcert.data.schema import Schema
from synthcert.engine.local import LocalEngine
from synthcert.engine.partitioned import Manifest, PartitionedDatasetWriter
from synthcert.engine.plan import (
    DEFAULT_CHUNK_ROWS,
    DEFAULT_PARTITION_ROWS,
    Partition,
    plan_partitions,
    total_rows,
)
from synthcert.engine.reduce import (
    MarginalCounts,
    MomentPartial,
    merge_copy,
    partition_histograms,
    partition_marginals,
    partition_moments,
)
from synthcert.engine.sample import (
    chunk_frame,
    chunk_specs,
    part_specs,
    sampler_for,
    write_part,
)
from synthcert.errors import DataError
from synthcert.synthesizers.gaussian import GaussianSynthesizer

EngineName = Literal["local", "dask"]
ENGINES = ("local", "dask")
RowProgress = Callable[[int, int | None], None]  # (rows done, total rows or None)
Notify = Callable[[str], None]


@contextlib.contextmanager
def open_engine(
    engine: Any = "local",
    scheduler: Any = None,
    *,
    workers: int | None = None,
    notify: Notify | None = None,
) -> Iterator[Any]:
    """An engine for the block: ``LocalEngine`` or ``DaskEngine`` (cluster closed at the end).

    ``workers``: threads of the local engine, or workers of a new local Dask cluster.
    An engine object passed in is returned as is.
    """
    if not isinstance(engine, str):
        yield engine
        return
    if engine == "local":
        if scheduler is not None:
            raise DataError("--scheduler needs --engine dask")
        yield LocalEngine(workers)
        return
    if engine == "dask":
        from synthcert.engine.dask import DaskEngine, dask_client

        with dask_client(scheduler, n_workers=workers, notify=notify) as client:
            yield DaskEngine(client)
        return
    raise DataError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")


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


def fit_moments(
    input_path: str | os.PathLike,
    schema: Schema | Encoder,
    *,
    missing: MissingPolicy = "drop",
    csv: CsvOptions | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> MomentPartial:
    """Count, mean and scatter of the encoded input, with rows dropped and values clipped.

    Feed the result to ``GaussianSynthesizer.fit_moments(result.acc, [result.report])``.
    """
    encoder = schema if isinstance(schema, Encoder) else Encoder(schema, missing=missing)
    parts = plan_partitions(input_path, partition_rows=partition_rows)
    with open_engine(engine, scheduler) as eng:
        return eng.reduce(
            partition_moments, parts, encoder, csv, chunk_rows,
            merge=merge_copy, on_done=_row_counter(parts, progress),
        )  # fmt: skip


def fit_gaussian(
    input_path: str | os.PathLike,
    synth: GaussianSynthesizer,
    **kwargs: Any,
) -> GaussianSynthesizer:
    """Fit M_G on a (large) input with an engine: ``fit_moments`` then ``synth.fit_moments``."""
    partial = fit_moments(input_path, synth.encoder, **kwargs)
    return synth.fit_moments(partial.acc, [partial.report])


def histograms(
    input_path: str | os.PathLike,
    discretizer: Discretizer,
    *,
    csv: CsvOptions | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> HistogramAccumulator:
    """One-way counts of every column on the discretizer's public bins (schema order)."""
    parts = plan_partitions(input_path, partition_rows=partition_rows)
    with open_engine(engine, scheduler) as eng:
        return eng.reduce(
            partition_histograms, parts, discretizer, csv, chunk_rows,
            merge=merge_copy, on_done=_row_counter(parts, progress),
        )  # fmt: skip


def marginals(
    input_path: str | os.PathLike,
    discretizer: Discretizer,
    cliques: Sequence[Sequence[int | str]],
    *,
    csv: CsvOptions | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> MarginalCounts:
    """k-way counts on public bins of each clique (column names or positions), in one pass."""
    names = discretizer.schema.names
    keys = [tuple(names.index(c) if isinstance(c, str) else int(c) for c in q) for q in cliques]
    parts = plan_partitions(input_path, partition_rows=partition_rows)
    with open_engine(engine, scheduler) as eng:
        return eng.reduce(
            partition_marginals, parts, discretizer, keys, csv, chunk_rows,
            merge=merge_copy, on_done=_row_counter(parts, progress),
        )  # fmt: skip


def sample_frames(
    synth: GaussianSynthesizer,
    n: int,
    *,
    seed: Any = None,
    engine: Any = "local",
    scheduler: Any = None,
    progress: RowProgress | None = None,
) -> Iterator[pd.DataFrame]:
    """Decoded chunks in order, drawn by the engine: the rows of ``synth.sample_chunks``."""
    sampler = sampler_for(synth)
    chunks = chunk_specs(int(n), seed, synth.chunk_rows)
    done = 0
    with open_engine(engine, scheduler) as eng:
        for frame in eng.map_ordered(chunk_frame, chunks, sampler):
            done += len(frame)
            if progress:
                progress(done, int(n))
            yield frame


def sample_partitioned(
    synth: Any,
    n: int,
    out: str | os.PathLike,
    *,
    seed: Any = None,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    engine: Any = "local",
    scheduler: Any = None,
    protect: Sequence[str | os.PathLike] = (),
    progress: RowProgress | None = None,
    chunk_rows: int | None = None,
) -> Manifest:
    """Write ``n`` rows as a partitioned Parquet dataset folder ``out``, atomically.

    Files hold ``partition_rows`` rows, rounded to whole chunks of ``chunk_rows`` (default
    ``synth.chunk_rows``, or 2^20 rows for synthesizers without one; M_G's rows equal its
    ``sample`` only with its own); each worker draws and writes its files one chunk
    at a time. For M_G the rows equal ``synth.sample(n, seed=seed)``; for any fitted synthesizer
    chunk i is ``synth.sample(rows_i, seed=child_i of seed)``: the same rows whatever the
    engine and number of workers. The manifest holds public facts only (parts, rows,
    columns, chunk size): never the seed, which is secret.
    """
    chunk_rows = int(chunk_rows or getattr(synth, "chunk_rows", DEFAULT_CHUNK_ROWS))
    sampler = sampler_for(synth)
    writer = PartitionedDatasetWriter(out, protect=protect)
    try:
        chunks = chunk_specs(int(n), seed, chunk_rows)
        per_part = max(1, round(partition_rows / chunk_rows))
        parts = part_specs(chunks, per_part, writer.part_path)
        rows: list[int] = []
        done = 0
        with open_engine(engine, scheduler) as eng:
            for r in eng.map_ordered(write_part, parts, sampler):
                rows.append(r)
                done += r
                if progress:
                    progress(done, int(n))
        return writer.commit(rows, synth.schema.names, chunk_rows=chunk_rows)
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
    """
    numeric = schema.select([c.name for c in schema.numeric])
    partial = fit_moments(input_path, numeric, **kwargs)
    cov = partial.acc.covariance
    scale = np.sqrt(np.diag(cov))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(scale, scale)
    return numeric.names, corr

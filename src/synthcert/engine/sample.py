"""Partitioned sampling: chunk i of the output is drawn from child i of SeedSequence(seed).

For M_G chunk i is drawn by the synthesizer's own ``_draw`` on child i, as in
``GaussianSynthesizer.sample_encoded_chunks`` (same chunking, same child streams); for any
other synthesizer chunk i is ``synth.sample(rows_i, seed=child_i)``. Tasks hold one chunk at a
time, so the rows depend on the seed and the chunk size only, not on the engine, the
partitioning into files or the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from synthcert.seeding import seed_sequence
from synthcert.synthesizers.gaussian import GaussianSynthesizer


@dataclass(frozen=True)
class GaussianSampler:
    """M_G's own chunk arithmetic (``GaussianSynthesizer._draw``), decoded (sent to workers)."""

    synth: GaussianSynthesizer

    def frame(self, chunk: ChunkSpec) -> pd.DataFrame:
        """One decoded chunk: the rows of ``synth.sample_chunks`` for this chunk."""
        return self.synth.encoder.decode(self.synth._draw(chunk.rows, chunk.seed))


@dataclass(frozen=True)
class SynthesizerSampler:
    """Any fitted synthesizer with ``sample(n, seed=...)``: chunk i is one call on child i."""

    synth: Any

    def frame(self, chunk: ChunkSpec) -> pd.DataFrame:
        """``synth.sample(chunk.rows, seed=chunk.seed)``."""
        return self.synth.sample(chunk.rows, seed=chunk.seed)


class Sampler(Protocol):
    """Draws the decoded rows of one chunk (sent to the workers: it must pickle)."""

    def frame(self, chunk: ChunkSpec) -> pd.DataFrame:
        """The rows of ``chunk``."""
        ...


def sampler_for(synth: Any) -> Sampler:
    """M_G's own chunked arithmetic, else the synthesizer's ``sample``."""
    synth._check_fitted()
    if isinstance(synth, GaussianSynthesizer):
        return GaussianSampler(synth)
    return SynthesizerSampler(synth)


@dataclass(frozen=True)
class ChunkSpec:
    """Chunk ``index`` of the output: ``rows`` rows from child ``index`` of the seed."""

    index: int
    rows: int
    seed: np.random.SeedSequence


@dataclass(frozen=True)
class PartSpec:
    """Output file ``index``: consecutive chunks written to ``path``."""

    index: int
    path: str
    chunks: tuple[ChunkSpec, ...]

    @property
    def rows(self) -> int:
        """Rows in the file."""
        return sum(c.rows for c in self.chunks)


def chunk_specs(n: int, seed, chunk_rows: int) -> list[ChunkSpec]:
    """The chunks of ``GaussianSynthesizer.sample_encoded_chunks``: sizes and child seeds."""
    sizes = [min(chunk_rows, n - s) for s in range(0, n, chunk_rows)]
    children = seed_sequence(seed).spawn(len(sizes))
    pairs = enumerate(zip(sizes, children, strict=True))
    return [ChunkSpec(i, size, child) for i, (size, child) in pairs]


def chunk_frame(chunk: ChunkSpec, sampler: Sampler) -> pd.DataFrame:
    """One decoded chunk (module-level so that workers can unpickle it)."""
    return sampler.frame(chunk)


def write_part(part: PartSpec, sampler: Sampler) -> int:
    """Draw the part's chunks one at a time and write them to its Parquet file; return rows."""
    writer: pq.ParquetWriter | None = None
    try:
        for chunk in part.chunks:
            table = pa.Table.from_pandas(sampler.frame(chunk), preserve_index=False)
            if writer is None:
                writer = pq.ParquetWriter(part.path, table.schema)
            writer.write_table(table)
        if writer is None:  # an empty release still gets a readable (empty) part
            empty = sampler.frame(ChunkSpec(0, 0, np.random.SeedSequence(0)))
            pq.write_table(pa.Table.from_pandas(empty, preserve_index=False), part.path)
    finally:
        if writer is not None:
            writer.close()
    return part.rows


def part_specs(chunks: list[ChunkSpec], chunks_per_part: int, path_of) -> list[PartSpec]:
    """Group consecutive chunks into files of ``chunks_per_part`` chunks."""
    if not chunks:
        return [PartSpec(0, path_of(0), ())]
    k = chunks_per_part
    return [
        PartSpec(i // k, path_of(i // k), tuple(chunks[i : i + k]))
        for i in range(0, len(chunks), k)
    ]

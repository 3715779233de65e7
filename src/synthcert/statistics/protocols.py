"""How engines and workflows talk to models without importing them (typed fit routes).

A model fitted from a table's moments (M_G) implements :class:`FitsFromMoments`; one fitted
from marginal counts (PrivBayes, MWEM-PGM, AIM, the copula) implements :class:`FitsFromCounts`;
every fitted model implements :class:`SamplesChunks`, the only call an engine makes to draw
rows. Checks are structural (``isinstance(model, FitsFromCounts)`` with
``typing.runtime_checkable``), so a third-party synthesizer needs no synthcert base class to
take a route.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


@runtime_checkable
class SamplesChunks(Protocol):
    """A fitted model that draws one chunk of decoded rows from one child seed.

    Chunk ``i`` of a release is ``model.sample_chunk(rows_i, child_i)`` where ``child_i`` is
    child ``i`` of the run's secret ``SeedSequence``; the rows depend on the seed and the chunk
    sizes only, never on the engine or the number of workers.
    """

    def sample_chunk(self, rows: int, seed: np.random.SeedSequence) -> pd.DataFrame:
        """``rows`` synthetic rows (the schema's columns and dtypes) drawn from ``seed``.

        Parameters
        ----------
        rows : int
            Rows of the chunk (0: an empty frame with the columns).
        seed : numpy.random.SeedSequence
            The chunk's child of the run's secret seed.

        Returns
        -------
        pandas.DataFrame
            The chunk's rows, decoded.
        """
        ...


@runtime_checkable
class SamplesChunkTables(Protocol):
    """A :class:`SamplesChunks` model that also gives a chunk as Arrow, built without a frame.

    ``sample_chunk_table(rows, seed)`` must equal
    ``pa.Table.from_pandas(sample_chunk(rows, seed), preserve_index=False)``: the engine writes
    it in place of the frame's table.
    """

    def sample_chunk_table(self, rows: int, seed: np.random.SeedSequence) -> Any:
        """The chunk :meth:`SamplesChunks.sample_chunk` draws, as a ``pyarrow.Table``.

        Parameters
        ----------
        rows : int
            Rows of the chunk.
        seed : numpy.random.SeedSequence
            The chunk's child of the run's secret seed.

        Returns
        -------
        pyarrow.Table
            The chunk's rows, with pandas metadata and without an index.
        """
        ...


@runtime_checkable
class FitsFromMoments(Protocol):
    """A model fitted from merged moments of the encoded table (count, sum, cross-products)."""

    def fit_moments(self, acc: Any, reports: list[Any]) -> Self:
        """Fit from a merged moment accumulator and the per-chunk encode reports.

        Parameters
        ----------
        acc : MomentAccumulator
            Count, mean and scatter of the encoded rows kept.
        reports : list of EncodeReport
            What encoding dropped and clipped, per chunk or merged.

        Returns
        -------
        Self
            The fitted model.
        """
        ...


@runtime_checkable
class FitsFromCounts(Protocol):
    """A model fitted from marginal counts of the discretised table (a ``CountSource``)."""

    def fit_counts(self, source: Any) -> Self:
        """Fit from a source that answers marginal count queries over cliques of columns.

        Parameters
        ----------
        source : CountSource
            Rows and k-way counts on the model's own public bins.

        Returns
        -------
        Self
            The fitted model.
        """
        ...


__all__ = ["FitsFromCounts", "FitsFromMoments", "SamplesChunkTables", "SamplesChunks"]

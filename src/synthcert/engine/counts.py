"""Marginal counts of a (large) input by engine passes: the CountSource of ``fit_counts``.

Each request of cliques is one pass of :func:`synthcert.engine.marginals` over the input (every
maximal clique counted per partition with the shared ``MarginalCounts`` accumulator, merged in
the fixed tree), so the counts, and every fit made from them, are the same on every engine and
equal to those of the rows in memory. Answers are cached: a set of columns is counted once, and
any clique inside a counted set is summed out of it without reading the data again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthcert.data.discretize import Discretizer
from synthcert.data.io import CsvOptions
from synthcert.engine.ops import RowProgress, marginals
from synthcert.engine.plan import DEFAULT_PARTITION_ROWS
from synthcert.errors import DataError
from synthcert.statistics.chunks import CHUNK_ROWS
from synthcert.statistics.counts import Clique
from synthcert.statistics.sources import CachedCounts


@dataclass(frozen=True)
class _PassRows:
    """The row bookkeeping of one engine pass (private): rows counted (kept by the
    missing-value policy), rows read, and missing values given public fills."""

    rows: int
    rows_read: int
    values_filled: int


class EngineCounts(CachedCounts):
    """Counts on ``discretizer``'s public bins of the rows of ``input_path`` (file, folder, glob).

    A :class:`~synthcert.statistics.sources.CountSource` for ``fit_counts``: each request is
    one pass of :func:`~synthcert.engine.marginals`, cached as in
    :class:`~synthcert.statistics.sources.CachedCounts`. ``rows`` is the number of rows kept
    by the discretizer's missing-value policy; read before any request, it costs a pass of the
    one-way marginals (which later requests reuse).

    Parameters
    ----------
    input_path : str or path-like
        A CSV or Parquet file, a folder of them, or a glob.
    discretizer : Discretizer
        The model's own public bins.
    engine : str or engine
        An engine opened with :func:`synthcert.engine.open_engine` (reuse one cluster for all
        passes), or ``"local"``/``"dask"`` with ``scheduler`` (opened for each pass).
    scheduler : str or distributed.Client, optional
        For ``"dask"``.
    csv : CsvOptions, optional
        How to parse CSV inputs.
    chunk_rows, partition_rows : int
        As for :func:`~synthcert.engine.marginals`.
    progress : callable, optional
        Called with (rows done, total or None) during each pass.

    Raises
    ------
    DataError
        (on a request) An input cannot be read, or it changed between passes.
    """

    def __init__(
        self,
        input_path: str | os.PathLike,
        discretizer: Discretizer,
        *,
        engine: Any = "local",
        scheduler: Any = None,
        csv: CsvOptions | None = None,
        chunk_rows: int = CHUNK_ROWS,
        partition_rows: int = DEFAULT_PARTITION_ROWS,
        progress: RowProgress | None = None,
    ) -> None:
        super().__init__(discretizer.cardinalities)
        self.input_path = input_path
        self.discretizer = discretizer
        self.engine = engine
        self.scheduler = scheduler
        self.csv = csv
        self.chunk_rows = chunk_rows
        self.partition_rows = partition_rows
        self.progress = progress
        self._rows_of_pass: _PassRows | None = None

    @property
    def rows_read(self) -> int:
        """Rows read, including those the missing-value policy dropped (private)."""
        return self._pass_rows().rows_read

    @property
    def values_filled(self) -> int:
        """Missing values the ``fill`` policy replaced by public fills (private)."""
        return self._pass_rows().values_filled

    @property
    def rows(self) -> int:
        """Rows counted (the same in every pass, or the input changed and this raises)."""
        return self._pass_rows().rows

    def _pass_rows(self) -> _PassRows:
        """The row bookkeeping of the passes, after a pass of the one-way marginals if none
        has run yet."""
        if self._rows_of_pass is None:
            self.marginal([(j,) for j in range(len(self.cardinalities))])
        assert self._rows_of_pass is not None
        return self._rows_of_pass

    def _count(self, sets: list[Clique]) -> dict[Clique, np.ndarray]:
        """One pass of the engine over the input for all ``sets``."""
        mc = marginals(
            self.input_path, self.discretizer, sets, csv=self.csv, chunk_rows=self.chunk_rows,
            partition_rows=self.partition_rows, engine=self.engine, scheduler=self.scheduler,
            progress=self.progress,
        )  # fmt: skip
        before = self._rows_of_pass
        if before is not None and mc.rows != before.rows:
            raise DataError(
                f"{str(self.input_path)!r} gave {mc.rows} rows in this pass and {before.rows} "
                "before: the input changed while it was being read; fit again"
            )
        self._rows_of_pass = _PassRows(mc.rows, mc.rows_read, mc.values_filled)
        return {s: mc.table(s) for s in sets}

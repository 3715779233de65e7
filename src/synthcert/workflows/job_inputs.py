"""The inputs of a job: where the table is, the budget, how to run (was ``workflows/values.py``).

``TableSource`` says where a table comes from (a file, folder or glob read with CSV options, or
a frame already in memory); ``Budget`` gathers the privacy parameters of a run (the declared
public quantities of Miura et al.'s Theorem 3.1 / Corollary 3.2, or a DP budget); ``Execution``
says how to run it (engine, workers, chunk sizes, progress callbacks). All three are frozen:
a workflow never changes them, so one value can be reused across runs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synthcert.errors import ParameterError
from synthcert.privacy.parameters import RELEASE_RELATIONS as NEIGHBORINGS
from synthcert.privacy.parameters import check_delta, check_epsilon
from synthcert.statistics.chunks import CHUNK_ROWS

if TYPE_CHECKING:
    import pandas as pd

    from synthcert.data.io import CsvOptions
    from synthcert.data.schema import Schema

CONVERSIONS = ("ckm", "mironov")
Progress = Callable[[str, int, "int | None"], None]  # (stage, done, total or None)
Notify = Callable[[str], None]


@dataclass(frozen=True)
class TableSource:
    """Where a table comes from: a path (file, folder of part files, glob) or a frame.

    Parameters
    ----------
    path
        A CSV or Parquet file, a folder of part files or a glob pattern (the format follows
        the file suffix). Give exactly one of ``path`` and ``frame``.
    frame
        A table already in memory (``pandas.DataFrame``); never written anywhere.
    csv
        How to read a CSV input (header, separator, missing-value tokens, encoding). None:
        the schema's ``"csv"`` section (:meth:`reading`), else the defaults.

    Raises
    ------
    ParameterError
        Neither or both of ``path`` and ``frame`` given.

    Examples
    --------
    >>> TableSource("people.csv").inputs()
    [PosixPath('people.csv')]
    """

    path: str | os.PathLike | None = None
    frame: pd.DataFrame | None = field(default=None, compare=False, repr=False)
    csv: CsvOptions | None = None

    def __post_init__(self) -> None:
        if (self.path is None) == (self.frame is None):
            raise ParameterError("a TableSource takes exactly one of path= and frame=")

    @classmethod
    def of(cls, table: TableSource | str | os.PathLike | pd.DataFrame) -> TableSource:
        """Coerce a path or a frame to a source (a source is returned as is)."""
        if isinstance(table, TableSource):
            return table
        if isinstance(table, str | os.PathLike):
            return cls(path=table)
        return cls(frame=table)

    def reading(self, schema: Schema) -> TableSource:
        """This source, reading a CSV as the schema's ``"csv"`` section says when it names no
        CSV options of its own, and its categorical columns as text in any case (every workflow
        reads its input through this)."""
        if self.frame is not None:
            return self
        if self.csv is not None:
            return replace(self, csv=schema.reading_text(self.csv))
        return replace(self, csv=schema.read_options())

    @property
    def in_memory(self) -> bool:
        """True when the table is a frame already in memory."""
        return self.frame is not None

    def inputs(self) -> list[Path]:
        """The files read (a folder or glob expanded); none for a frame."""
        if self.path is None:
            return []
        text = os.fspath(self.path)
        if any(ch in text for ch in "*?[") or Path(text).is_dir():
            from synthcert.data.io import expand_inputs

            return expand_inputs(text)
        return [Path(text)]

    def read(self) -> pd.DataFrame:
        """The whole table in memory (the frame itself, or the path read with ``csv``)."""
        if self.frame is not None:
            return self.frame
        from synthcert.data.io import read_table

        return read_table(self.path, self.csv)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Budget:
    """The privacy parameters of a run: declared public quantities and the budget.

    Parameters
    ----------
    epsilon, delta
        The (epsilon, delta)-DP budget. For a certified release (:func:`release`), epsilon
        sizes the release to the largest number of rows it allows; with ``alpha`` and no
        ``delta`` it is an RDP budget epsilon_RDP at order alpha. For a DP synthesizer
        (:func:`synthesize`) it is the synthesizer's budget (None: no DP noise).
    alpha
        The Renyi order alpha > 1 (default: the one that minimises epsilon).
    sigma
        The PUBLIC lower bound on the smallest eigenvalue of the encoded covariance of every
        neighbouring table (the class D_sigma of Theorem 3.1), or ``"data"`` to measure it on
        the table (then no guarantee is stated).
    ridge
        A PUBLIC rho > 0: sample from N(mu, Sigma + rho I), certified without any assumption
        on the data (docs/unconditional.md, Theorems R1 and R2). Instead of ``sigma``.
    neighboring
        ``"unbounded"`` (add/remove one record, Theorem 3.1), ``"bounded"`` (replace one
        record, Corollary 3.2) or ``"bounded-direct"``.
    min_rows
        A PUBLIC lower bound N on the table size (required under unbounded neighbours for a
        certified release, where n is private).
    n_out
        Rows to release (default: ``min_rows``, or n where n is public).
    conversion
        RDP to (epsilon, delta): ``"ckm"`` (Canonne-Kamath-Steinke) or ``"mironov"``.

    Raises
    ------
    ParameterError
        A value no run accepts: a non-positive epsilon, sigma, ridge or alpha <= 1, delta
        outside [0, 1), an unknown neighbouring relation or conversion, a negative count.

    Examples
    --------
    >>> Budget(sigma=0.01, min_rows=30_000, epsilon=1.0).neighboring
    'unbounded'
    """

    epsilon: float | None = None
    delta: float | None = None
    alpha: float | None = None
    sigma: float | str | None = None
    ridge: float | None = None
    neighboring: str = "unbounded"
    min_rows: int | None = None
    n_out: int | None = None
    conversion: str = "ckm"

    def __post_init__(self) -> None:
        if self.neighboring not in NEIGHBORINGS:
            raise ParameterError(
                f"neighboring must be one of {', '.join(NEIGHBORINGS)}; got {self.neighboring!r}"
            )
        if self.conversion not in CONVERSIONS:
            raise ParameterError(
                f"conversion must be one of {', '.join(CONVERSIONS)}; got {self.conversion!r}"
            )
        if self.epsilon is not None:
            check_epsilon(self.epsilon, infinite=True)  # infinity: no DP
        if self.delta is not None:
            check_delta(self.delta)
        if self.alpha is not None and not self.alpha > 1:
            raise ParameterError(f"the Renyi order alpha must be > 1; got {self.alpha}")
        if isinstance(self.sigma, str):
            if self.sigma != "data":
                raise ParameterError(f"sigma is a number > 0 or 'data'; got {self.sigma!r}")
        elif self.sigma is not None and not (self.sigma > 0 and math.isfinite(self.sigma)):
            raise ParameterError(f"sigma must be a finite number > 0; got {self.sigma}")
        if self.ridge is not None and not (self.ridge > 0 and math.isfinite(self.ridge)):
            raise ParameterError(f"ridge rho must be a finite number > 0; got {self.ridge}")
        for name in ("min_rows", "n_out"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ParameterError(f"{name} must be a non-negative whole number; got {value}")

    def refuse_unused(self, job: str, *used: str) -> None:
        """Refuse fields a job does not read (rather than ignore them silently).

        Raises
        ------
        ParameterError
            A field outside ``used`` differs from its default.
        """
        defaults = Budget()
        unused = [
            f.name
            for f in fields(self)
            if f.name not in used and getattr(self, f.name) != getattr(defaults, f.name)
        ]
        if unused:
            raise ParameterError(
                f"{job} does not use {', '.join(unused)} of the budget (it reads {', '.join(used)})"
            )


@dataclass(frozen=True)
class Execution:
    """How a workflow runs: engine, workers, chunk sizes and progress reporting.

    Parameters
    ----------
    engine
        ``"local"`` (threads of this process, streaming partitions), ``"dask"`` (a Dask
        cluster at ``scheduler``, or a new loopback LocalCluster), or an engine already opened
        with :func:`synthcert.engine.open_engine`. The rows and figures do not depend on it.
    scheduler
        A Dask scheduler address or ``distributed.Client`` (``engine="dask"`` only).
    workers
        Threads of the local engine, or workers of a new LocalCluster (default: cores).
    chunk_rows
        Rows per chunk when streaming a single input file and the output (default: the one
        chunk size of :mod:`synthcert.statistics.chunks`, ``CHUNK_ROWS`` = 2^19).
    partition_rows
        Rows per input partition and per output file of a partitioned output (default:
        the engine's plan); the rows drawn do not depend on it.
    partitioned
        Write a partitioned Parquet dataset (None: when the output names a folder).
    progress
        ``progress(stage, done, total)`` as a stage advances (stages: ``fit``, ``count``,
        ``sample``); called with public totals only.
    notify
        ``notify(text)`` for engine status lines (cluster address, dashboard).
    warn
        ``warn(text)`` for a warning the operator should see before the run goes on (a
        guessable user seed, a private file about to be written).

    Raises
    ------
    ParameterError
        A non-positive chunk or partition size, or a non-positive number of workers.

    Examples
    --------
    >>> Execution(engine="dask", workers=2).engine
    'dask'
    """

    engine: Any = "local"
    scheduler: Any = None
    workers: int | None = None
    chunk_rows: int = CHUNK_ROWS
    partition_rows: int | None = None
    partitioned: bool | None = None
    progress: Progress | None = field(default=None, compare=False, repr=False)
    notify: Notify | None = field(default=None, compare=False, repr=False)
    warn: Notify | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("workers", "chunk_rows", "partition_rows"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ParameterError(f"{name} must be at least 1; got {value}")

    def stage(self, name: str) -> Callable[[int, int | None], None] | None:
        """The progress callback of one stage (None when nobody listens)."""
        progress = self.progress
        if progress is None:
            return None
        return lambda done, total: progress(name, done, total)


__all__ = ["Budget", "Execution", "TableSource"]

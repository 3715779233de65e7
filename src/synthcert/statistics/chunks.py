"""The one chunk size: how many rows a chunk of reading, fitting or sampling holds.

A chunk is the unit a worker holds in memory at once. For sampling it is also part of the
reproducibility contract: chunk ``i`` of a release is drawn from child ``i`` of the run's
``SeedSequence``, so the rows of a seed depend on the chunk size (and on nothing else: not the
engine, the workers or the output files). For reading it bounds memory; and an engine's
moments of an input of one partition, read in chunks of the model's ``chunk_rows``, are the
same floating-point numbers as ``GaussianSynthesizer.fit`` on the rows in memory (same chunks,
same merges in the same order; tests/statistics/test_statistics_moments.py).
"""

from __future__ import annotations

from synthcert.errors import ParameterError

CHUNK_ROWS = 1 << 19
"""Rows per chunk (524,288: 4 MB per float64 column) when reading, fitting and sampling.

M_G's rows for a seed were defined with this size from the start, so it cannot change without
changing every release's rows; the engines read their input in chunks of the same size.
"""


def chunk_sizes(n: int, chunk_rows: int = CHUNK_ROWS) -> list[int]:
    """Sizes of the consecutive chunks of ``n`` rows: full chunks, then the remainder.

    Parameters
    ----------
    n : int
        Total number of rows (0 gives no chunk).
    chunk_rows : int
        Rows of a full chunk.

    Returns
    -------
    list of int
        ``[chunk_rows] * (n // chunk_rows)`` followed by ``n % chunk_rows`` when it is not 0.

    Raises
    ------
    ParameterError
        ``n`` is negative or ``chunk_rows`` is below 1.

    Examples
    --------
    >>> chunk_sizes(10, 4)
    [4, 4, 2]
    >>> chunk_sizes(0, 4)
    []
    """
    n, chunk_rows = int(n), int(chunk_rows)
    if n < 0:
        raise ParameterError(f"the number of rows must be non-negative, got {n}")
    if chunk_rows < 1:
        raise ParameterError(f"chunk_rows must be at least 1, got {chunk_rows}")
    return [min(chunk_rows, n - start) for start in range(0, n, chunk_rows)]


__all__ = ["CHUNK_ROWS", "chunk_sizes"]

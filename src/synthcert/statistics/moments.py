"""Moments of the encoded table (count, mean, scatter matrix), computed chunk by chunk.

These are the only statistics M_G is fitted from (Miura et al., section 3: mu and the biased
Sigma = (1/n) sum x x^T - mu mu^T of the encoded rows). :class:`MomentAccumulator` merges
partial moments exactly as Chan, Golub & LeVeque (1979), so the in-memory fit, the streaming
engine and a Dask cluster all reduce the same chunks with the same arithmetic;
:class:`MomentPartial` carries alongside them what encoding dropped and clipped, which the fit
needs for its public-assumption checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from synthcert.data.encode import Encoder, EncodeReport, merge_reports


@dataclass
class MomentAccumulator:
    """Count, mean and scatter matrix M2 = sum (x - mean)(x - mean)^T, mergeable.

    The pairwise update of Chan, Golub & LeVeque (1979) keeps float64 accuracy for 10^8+ rows,
    where the naive (1/n) sum x x^T - mu mu^T loses digits to cancellation.

    Parameters
    ----------
    dim : int
        Dimension d of the rows.
    count : int
        Rows accumulated so far.
    mean : numpy.ndarray, optional
        Their mean, shape (d,) (zeros by default).
    m2 : numpy.ndarray, optional
        Their scatter matrix about the mean, shape (d, d) (zeros by default).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, -1.0], [0.5, 0.0]])
    >>> acc = MomentAccumulator(2).update(X[:1]).merge(MomentAccumulator(2).update(X[1:]))
    >>> acc.count, bool(np.allclose(acc.covariance, np.cov(X.T, bias=True)))
    (3, True)
    """

    dim: int
    count: int = 0
    mean: np.ndarray = field(default=None)  # type: ignore[assignment]
    m2: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.mean is None:
            self.mean = np.zeros(self.dim)
        if self.m2 is None:
            self.m2 = np.zeros((self.dim, self.dim))

    def update(self, X: np.ndarray) -> MomentAccumulator:
        """Add the rows of an (m, d) array (in place).

        Parameters
        ----------
        X : numpy.ndarray
            Rows to add, shape (m, d); m = 0 changes nothing.

        Returns
        -------
        MomentAccumulator
            ``self``.
        """
        X = np.asarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            return self
        ones = np.ones(X.shape[0])
        mean_b = (ones @ X) / X.shape[0]
        centred = X - mean_b
        # one step of refinement: the first mean carries rounding error ~ n * ulp
        shift = (ones @ centred) / X.shape[0]
        mean_b = mean_b + shift
        m2_b = centred.T @ centred - X.shape[0] * np.outer(shift, shift)
        return self.merge(MomentAccumulator(self.dim, X.shape[0], mean_b, m2_b))

    def merge(self, other: MomentAccumulator) -> MomentAccumulator:
        """Combine with the moments of other rows (in place), by Chan et al.'s pairwise update.

        Parameters
        ----------
        other : MomentAccumulator
            Moments of rows disjoint from this accumulator's (left untouched).

        Returns
        -------
        MomentAccumulator
            ``self``, now the moments of both sets of rows.
        """
        if other.count == 0:
            return self
        if self.count == 0:
            self.count, self.mean, self.m2 = other.count, other.mean.copy(), other.m2.copy()
            return self
        n = self.count + other.count
        delta = other.mean - self.mean
        self.m2 = self.m2 + other.m2 + np.outer(delta, delta) * (self.count * other.count / n)
        self.mean = self.mean + delta * (other.count / n)
        self.count = n
        return self

    @property
    def covariance(self) -> np.ndarray:
        """The biased (1/n) covariance matrix, symmetrised (the papers' Sigma).

        Returns
        -------
        numpy.ndarray
            ``(M2 + M2^T) / (2 n)``, shape (d, d).

        Raises
        ------
        ValueError
            No row was accumulated.
        """
        if self.count == 0:
            raise ValueError("no rows accumulated")
        cov = self.m2 / self.count
        return (cov + cov.T) / 2.0


@dataclass
class MomentPartial:
    """Moments of the encoded rows of some chunks, with what encoding dropped and clipped.

    What a fit from moments consumes: ``model.fit_moments(partial.acc, [partial.report])``
    (:class:`~synthcert.statistics.protocols.FitsFromMoments`).

    Parameters
    ----------
    acc : MomentAccumulator
        Moments of the encoded rows that were kept.
    report : EncodeReport
        Rows read, kept and dropped for missing values, and values clipped per column.
    """

    acc: MomentAccumulator
    report: EncodeReport

    def merge(self, other: MomentPartial) -> MomentPartial:
        """Combine with the partial of disjoint rows (in place).

        Parameters
        ----------
        other : MomentPartial
            Moments and report of other rows (left untouched).

        Returns
        -------
        MomentPartial
            ``self``.
        """
        self.acc.merge(other.acc)
        self.report = merge_reports([self.report, other.report])
        return self


def encoded_moments(
    encoder: Encoder, frames: Iterable[pd.DataFrame], *, row_offset: int = 0
) -> MomentPartial:
    """Encode frames one at a time and accumulate their moments, in frame order.

    Parameters
    ----------
    encoder : Encoder
        The public encoding to [-1, 1]^d and its missing-value policy.
    frames : iterable of pandas.DataFrame
        Consecutive chunks of a table (only one is held at a time).
    row_offset : int
        Index of the first frame's first row within its table (for error messages).

    Returns
    -------
    MomentPartial
        The moments of the kept rows and the merged encode report.

    Raises
    ------
    DataError
        A chunk does not match the schema (raised by the encoder).

    Examples
    --------
    >>> import pandas as pd
    >>> from synthcert.data.encode import Encoder
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> enc = Encoder(Schema([NumericColumn("x", 0.0, 10.0)]))
    >>> part = encoded_moments(enc, [pd.DataFrame({"x": [0.0, 10.0]}), pd.DataFrame({"x": [5.0]})])
    >>> part.acc.count, part.acc.mean.round(6).tolist()
    (3, [0.0])
    """
    offset = int(row_offset)

    def encoded() -> Iterator[tuple[np.ndarray, EncodeReport]]:
        nonlocal offset
        for frame in frames:
            yield encoder.encode(frame, row_offset=offset)
            offset += len(frame)

    return reduce_encoded(encoder.dim, encoded())


def reduce_encoded(dim: int, encoded: Iterable[tuple[np.ndarray, EncodeReport]]) -> MomentPartial:
    """Accumulate the moments of encoded chunks, in chunk order, and merge their reports.

    The one reduction of :func:`encoded_moments` (frames) and of the Parquet fit (record
    batches encoded by :func:`~synthcert.data.encode.encode_arrow`): each chunk is added by
    :meth:`MomentAccumulator.update`, so the same chunks give the same numbers whatever
    read them.

    Parameters
    ----------
    dim : int
        d, the encoded dimension.
    encoded : iterable of (numpy.ndarray, EncodeReport)
        Each chunk's kept encoded rows, shape (m, d), and its report (one held at a time).

    Returns
    -------
    MomentPartial
        The moments of the rows and the merged report.

    Examples
    --------
    >>> import numpy as np
    >>> from synthcert.data.encode import EncodeReport
    >>> X = np.array([[0.5], [-0.5]])
    >>> part = reduce_encoded(1, [(X, EncodeReport(3, 2, 1, {"x": 0}))])
    >>> part.acc.count, part.report.rows_dropped_missing
    (2, 1)
    """
    acc = MomentAccumulator(dim)
    reports: list[EncodeReport] = []
    for X, report in encoded:
        acc.update(X)
        reports.append(report)
    return MomentPartial(acc, merge_reports(reports))


__all__ = ["MomentAccumulator", "MomentPartial", "encoded_moments", "reduce_encoded"]

"""Mergeable accumulators: statistics computed chunk by chunk, merged in any order.

The same accumulator serves the in-memory path (one chunk), the streaming path (many chunks)
and a distributed engine (partial results merged), so all three agree to rounding error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class MomentAccumulator:
    """Count, mean and scatter matrix M2 = sum (x - mean)(x - mean)^T, merged by Chan et al.

    The pairwise update (Chan, Golub & LeVeque 1979) keeps float64 accuracy for 10^8+ rows,
    where the naive (1/n) sum x x^T - mu mu^T loses digits to cancellation.
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
        """Add the rows of an (m, d) array."""
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
        """Combine with another accumulator in place (and return self)."""
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
        """The biased (1/n) covariance matrix (the papers' Sigma = (1/n) sum x x^T - mu mu^T)."""
        if self.count == 0:
            raise ValueError("no rows accumulated")
        cov = self.m2 / self.count
        return (cov + cov.T) / 2.0


@dataclass
class HistogramAccumulator:
    """Counts of integer codes per column (one-way marginals on public bins), mergeable."""

    cardinalities: list[int]
    counts: list[np.ndarray] = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.counts is None:
            self.counts = [np.zeros(k, dtype=np.int64) for k in self.cardinalities]

    def update(self, codes: np.ndarray) -> HistogramAccumulator:
        """Add the rows of an (m, k) array of codes."""
        for j, k in enumerate(self.cardinalities):
            self.counts[j] += np.bincount(codes[:, j], minlength=k)
        return self

    def merge(self, other: HistogramAccumulator) -> HistogramAccumulator:
        """Combine with another accumulator in place."""
        for j in range(len(self.counts)):
            self.counts[j] += other.counts[j]
        return self

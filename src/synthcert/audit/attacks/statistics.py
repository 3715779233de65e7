"""Statistics-based inference, eq. (3.3) of seed 003, and a calibrated variant.

The table feature is (mean vector, covariance matrix) of the encoded table. The thesis fits
N(μ_pos, Σ_pos) and N(μ_neg, Σ_neg) with μ the average of the c2 shadow means and Σ the average
of the c2 shadow *record* covariances, and scores IM = log f_pos(m(T)) − log f_neg(m(T)).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

import numpy as np

from synthcert.audit.attacks import Attack, AttackContext, SyntheticTable
from synthcert.audit.targets import biased_moments

RIDGE = 1e-9  # added to variances so a column that is constant in synthetic data stays finite


class GaussianLogDensity:
    """log N(x; μ, Σ) by eigen-decomposition, with a tiny ridge for a singular Σ."""

    def __init__(self, mu: np.ndarray, cov: np.ndarray) -> None:
        cov = 0.5 * (cov + cov.T)
        w, V = np.linalg.eigh(cov)
        w = np.clip(w, 0.0, None) + RIDGE * max(1.0, float(np.max(np.abs(w))))
        self.mu, self.w, self.V = mu, w, V
        self.logdet = float(np.sum(np.log(w)))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Log-density at each row of ``x`` (shape (m, d))."""
        z = (np.atleast_2d(x) - self.mu) @ self.V
        quad = np.sum(z * z / self.w, axis=1)
        d = self.mu.size
        return -0.5 * (quad + self.logdet + d * np.log(2 * np.pi))


def table_moments(X: np.ndarray) -> np.ndarray:
    """Feature of a table: its mean (row 0) stacked on its biased covariance (rows 1..d)."""
    mu, cov = biased_moments(X)
    return np.vstack([mu[None, :], cov])


class StatisticsAttack(Attack):
    """Eq. (3.3): Gaussian likelihood ratio of the table mean, Σ = mean shadow record covariance."""

    name: ClassVar[str] = "statistics"
    feature_key: ClassVar[str] = "moments"

    def features(
        self, table: SyntheticTable, ctx: AttackContext, rng: np.random.Generator
    ) -> np.ndarray:
        """The mean vector m(T) of the encoded table, shape (1, d)."""
        return table.X.mean(axis=0)[None, :]

    def shadow_features(
        self, table: SyntheticTable, ctx: AttackContext, rng: np.random.Generator
    ) -> np.ndarray:
        """Mean and covariance of a shadow table (rows 0 and 1..d)."""
        return table_moments(table.X)

    def _side(self, feats: Sequence[np.ndarray]) -> GaussianLogDensity:
        F = np.stack(feats)
        return GaussianLogDensity(F[:, 0, :].mean(axis=0), F[:, 1:, :].mean(axis=0))

    def fit(
        self, ctx: AttackContext, shadow_pos: Sequence[np.ndarray], shadow_neg: Sequence[np.ndarray]
    ) -> Self:
        """μ, Σ of each side from its c2 shadow tables (section 3.3.3)."""
        self.ctx = ctx
        c2 = ctx.params.c2
        self.pos = self._side(list(shadow_pos)[:c2])
        self.neg = self._side(list(shadow_neg)[:c2])
        return self

    def score(self, features: Sequence[np.ndarray]) -> np.ndarray:
        """IM_stat = log f_pos(m(T)) − log f_neg(m(T))."""
        means = np.stack([f[0] for f in features])
        return self.pos(means) - self.neg(means)


class CalibratedStatisticsAttack(StatisticsAttack):
    """Eq. (3.3) with each side's Σ taken from the spread of its c2 shadow *means*.

    The statistic tested is a table mean, whose covariance is about Σ/n plus the fit-to-fit
    spread of the synthesizer, not the record covariance Σ the thesis uses. With Σ the
    quadratic and log-determinant terms are n times too flat, and eq. (3.3) reduces to a
    projection of m(T) on Σ⁻¹(μ_pos − μ_neg). Here each side's covariance is the Ledoit-Wolf
    shrunk covariance of its shadow means (c2 points, so shrinkage is needed when d ≥ c2), so a
    change in the spread of the mean (e.g. a noisier release with the target) counts too.
    """

    name: ClassVar[str] = "statistics-calibrated"

    def _side(self, feats: Sequence[np.ndarray]) -> GaussianLogDensity:
        from sklearn.covariance import ledoit_wolf

        means = np.stack([f[0] for f in feats])
        mu = means.mean(axis=0)
        if means.shape[0] < 2:
            cov = np.stack([f[1:] for f in feats]).mean(axis=0)
        else:
            cov, _ = ledoit_wolf(means - mu, assume_centered=True)
        return GaussianLogDensity(mu, cov)

"""Sample-distance-based inference, eq. (3.4) of seed 003: IM = −Σ of the c3 nearest distances."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from synthcert.audit.attacks import Attack, AttackContext, SyntheticTable


def nearest_distance_sum(X: np.ndarray, t: np.ndarray, k: int) -> float:
    """dist(D, t, c3) of section 3.3.3: sum of the k smallest Euclidean distances from t to D."""
    d2 = np.einsum("ij,ij->i", X - t, X - t)
    k = min(k, d2.size)
    nearest = np.partition(d2, k - 1)[:k] if k < d2.size else d2
    return float(np.sum(np.sqrt(np.clip(nearest, 0.0, None))))


class DistanceAttack(Attack):
    """Eq. (3.4): IM_dist = −dist(T, t, c3) in the encoded space [-1,1]^d (no training)."""

    name: ClassVar[str] = "distance"
    feature_key: ClassVar[str] = "distance"

    def features(
        self, table: SyntheticTable, ctx: AttackContext, rng: np.random.Generator
    ) -> np.ndarray:
        """The IM itself (one number per table)."""
        return np.array([-nearest_distance_sum(table.X, ctx.target, ctx.params.c3)])

    def score(self, features: Sequence[np.ndarray]) -> np.ndarray:
        """IMs of a batch of tables."""
        return np.array([float(f[0]) for f in features])

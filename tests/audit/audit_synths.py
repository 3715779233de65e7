"""Synthesizers for the audit's sanity tests: one that ignores its input, one that returns it,
and a Laplace noisy histogram (pure epsilon-DP) on the shared Discretizer's bins."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthcert.data.discretize import Discretizer
from synthcert.data.schema import Schema
from synthcert.privacy.claims import PrivacyClaim, dp_claim, no_privacy_claim


class UniformSynth:
    """Samples the public domain uniformly: its output does not depend on the input at all."""

    deterministic_fit = True  # fit does nothing: every table is an independent run

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    def fit(self, table: pd.DataFrame) -> UniformSynth:
        return self

    def sample(self, n: int, *, seed=None) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        return pd.DataFrame({c.name: rng.uniform(c.lower, c.upper, n) for c in self.schema.numeric})


class IdentitySynth:
    """Returns its input (rows repeated cyclically up to n): the worst synthesizer there is."""

    deterministic_fit = True

    def __init__(self, schema: Schema, epsilon: float | None = None) -> None:
        self.schema = schema
        self.epsilon = epsilon

    def fit(self, table: pd.DataFrame) -> IdentitySynth:
        self.table = table.reset_index(drop=True)
        return self

    def sample(self, n: int) -> pd.DataFrame:
        return self.table.iloc[np.arange(n) % len(self.table)].reset_index(drop=True)

    def privacy_claim(self, n_out: int) -> PrivacyClaim:
        if self.epsilon is None:
            return no_privacy_claim(n_out)
        return _pure_claim(self.epsilon, n_out)  # a lie


class LaplaceHistogramSynth:
    """epsilon-DP for add/remove neighbours: the joint histogram on the Discretizer's bins plus
    Lap(1/epsilon_noise) noise per cell, clipped at 0, sampled (post-processing).

    ``claimed`` is the epsilon it reports; a cheat reports less than ``epsilon_noise`` spends.
    """

    def __init__(self, schema: Schema, epsilon: float = 1.0, bins: int = 10, claimed=None):
        self.schema = schema
        self.epsilon = epsilon
        self.claimed = epsilon if claimed is None else claimed
        self.disc = Discretizer(schema, bins=bins)

    def fit(self, table: pd.DataFrame, *, seed=None) -> LaplaceHistogramSynth:
        try:
            from synthcert.privacy.mechanisms import laplace_mechanism
        except ImportError:  # the issue-5 module; same mechanism written out

            def laplace_mechanism(value, sensitivity, epsilon, *, rng=None):
                return value + rng.laplace(0.0, sensitivity / epsilon, np.shape(value))

        rng = np.random.default_rng(seed)
        cards = self.disc.cardinalities
        codes = self.disc.transform(table)
        flat = np.ravel_multi_index(codes.T, cards)
        counts = np.bincount(flat, minlength=int(np.prod(cards))).astype(float)
        noisy = laplace_mechanism(counts, 1.0, self.epsilon, rng=rng)
        p = np.clip(noisy, 0.0, None)
        self.p = p / p.sum() if p.sum() > 0 else np.full(p.size, 1.0 / p.size)
        self.cards = cards
        return self

    def sample(self, n: int, *, seed=None) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        cells = rng.choice(self.p.size, size=n, p=self.p)
        codes = np.stack(np.unravel_index(cells, self.cards), axis=1)
        return self.disc.inverse_transform(codes, rng)

    def privacy_claim(self, n_out: int) -> PrivacyClaim:
        return _pure_claim(self.claimed, n_out)


def _pure_claim(epsilon: float, n_out: int) -> PrivacyClaim:
    return dp_claim(
        epsilon=epsilon, delta=0.0, rho=None, neighboring="unbounded", n_out=n_out,
        mechanisms=("Laplace histogram",), assumptions=(),
    )  # fmt: skip

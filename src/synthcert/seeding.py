"""Secret randomness: every release and DP fit draws from a private ``SeedSequence``.

Without a user seed the sequence takes 128 bits of OS entropy (``SeedSequence()``); a user seed
is a secret like a password: anyone who knows it regenerates the draws, and then the released
rows of M_G are a linear function of the private mean and covariance. The seed is written to
the private run record only, never to a published file.
"""

from __future__ import annotations

import numpy as np

GUESSABLE_BITS = 64
SEED_WARNING = (
    "--seed makes the run reproducible for whoever knows the seed: keep it secret like a "
    "password (it is written only to the private run record). A seed others can guess (a small "
    "integer such as 7, a date) voids the privacy guarantee: whoever regenerates the draws "
    "recovers the fitted statistics from the rows."
)


def secret_seed(seed: int | np.random.SeedSequence | None = None) -> np.random.SeedSequence:
    """A private SeedSequence: 128 bits of OS entropy by default, else the user's secret seed."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence() if seed is None else np.random.SeedSequence(int(seed))


def seed_warning(seed: int | None) -> str | None:
    """The warning a user-given seed deserves (stronger when it is shorter than 64 bits)."""
    if seed is None:
        return None
    if abs(int(seed)).bit_length() < GUESSABLE_BITS:
        return SEED_WARNING + f" This seed has fewer than {GUESSABLE_BITS} bits: it is guessable."
    return SEED_WARNING


def entropy_text(seq: np.random.SeedSequence) -> str:
    """The sequence's entropy as a decimal string (for the private run record only)."""
    return str(seq.entropy)


__all__ = ["SEED_WARNING", "entropy_text", "secret_seed", "seed_warning"]

"""Secret randomness: every release and DP fit draws from a private ``SeedSequence``.

Without a user seed the sequence takes 128 bits of OS entropy (``SeedSequence()``); a user seed
is a secret like a password: anyone who knows it regenerates the draws, and then the released
rows of M_G are a linear function of the private mean and covariance. The seed is written to
the private run record only, never to a published file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

Seed = int | np.random.Generator | np.random.SeedSequence | None

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


# -- seed conversions (one place for every module that draws) -----------------------------
def seed_sequence(seed: Seed) -> np.random.SeedSequence:
    """A SeedSequence from an int, a SeedSequence, a Generator (one draw from it) or None."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):  # 128 bits drawn from it, never fewer
        return np.random.SeedSequence(seed.integers(0, 2**32, size=4, dtype=np.uint64).tolist())
    return np.random.SeedSequence(seed)


def int_seed(seed: Seed) -> int:
    """A 31-bit integer seed derived from any :data:`Seed`, for ``ctgan.CTGAN`` (no DP) only."""
    return int(seed_sequence(seed).generate_state(1)[0] & 0x7FFFFFFF)


def torch_seeds(seed: Seed, count: int) -> list[int]:
    """``count`` independent 64-bit torch seeds spawned from the SeedSequence of ``seed``.

    None gives 128 bits of OS entropy (``numpy.random.SeedSequence``); torch generators take
    seeds up to 2^64 - 1, so no bits are dropped.
    """
    children = seed_sequence(seed).spawn(count)
    return [int(c.generate_state(1, dtype=np.uint64)[0]) for c in children]


@contextlib.contextmanager
def torch_seeded(seed: int) -> Iterator[None]:
    """Seed torch's global generator for the block and restore it after (no global leak)."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def derive_seed(seed: int, *key: int) -> int:
    """A 63-bit int seed for the node ``key`` of the seed tree rooted at ``seed``."""
    ss = np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key))
    return int(ss.generate_state(2, dtype=np.uint32).astype(np.uint64) @ [1 << 31, 1])


def run_seeds(seed: int, n_runs: int) -> list[int]:
    """Independent per-run integer seeds spawned from one seed."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(n_runs)]


__all__ = [
    "SEED_WARNING",
    "Seed",
    "derive_seed",
    "entropy_text",
    "int_seed",
    "run_seeds",
    "secret_seed",
    "seed_sequence",
    "seed_warning",
    "torch_seeded",
    "torch_seeds",
]

"""Secret randomness: every release and DP fit draws from a private ``SeedSequence``.

Without a user seed the sequence takes 128 bits of OS entropy (``SeedSequence()``); a user seed
is a secret like a password: anyone who knows it regenerates the draws, and then the released
rows of M_G are a linear function of the private mean and covariance. The seed is written to
the private run record only, never to a published file.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator
from typing import Any

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


TORCH_STATE_BYTES = 5056  # sizeof(at::CPUGeneratorImplState), torch >= 1.5
MT_WORDS = 624


def torch_state(seed: Seed) -> Any:
    """torch's CPU generator state with an MT19937 key drawn in full from the SeedSequence.

    ``torch.Generator.manual_seed`` keeps the low 32 bits of its argument (the Mersenne
    Twister's ``init_genrand``), so a seed of 64 or 128 bits would buy 32. Instead the whole
    624-word key is numpy's MT19937 key for the sequence (``MT19937(seq)``: 623 words of
    ``seq.generate_state``, the first word 0x80000000 so the key is never all zero), so every
    stream has as much entropy as the SeedSequence (128 bits of OS entropy by default).

    The tensor is torch's ``CPUGeneratorImplState`` (5,056 bytes, little-endian, as
    ``torch.Generator().get_state()`` returns it): ``the_initial_seed`` (uint64) = 0, which
    ``initial_seed()`` reports (no seed regenerates this state, so none is stored);
    ``left`` (int32) = 1 and ``next`` (uint64) = 0, so the first draw twists the key (as
    after ``manual_seed``); ``seeded`` (int32) = 1; the 624 key words (each in a uint64);
    and no cached normal sample.
    """
    import torch

    seq = seed_sequence(seed)
    key = np.random.MT19937(seq).state["state"]["key"].astype("<u8")
    buf = bytearray(TORCH_STATE_BYTES)
    struct.pack_into("<QiiQ", buf, 0, 0, 1, 1, 0)
    buf[24 : 24 + 8 * MT_WORDS] = key.tobytes()
    return torch.frombuffer(buf, dtype=torch.uint8).clone()


def torch_generator(seed: Seed) -> Any:
    """A ``torch.Generator`` (CPU) whose whole state comes from the SeedSequence
    (:func:`torch_state`), never from a 32-bit ``manual_seed``."""
    import torch

    gen = torch.Generator()
    gen.set_state(torch_state(seed))
    return gen


def numpy_random_state(seed: Seed) -> np.random.RandomState:
    """A legacy ``RandomState`` on numpy's MT19937 keyed by the whole SeedSequence (ctgan's
    ``set_random_state`` wants one; ``RandomState(int)`` would keep 32 bits)."""
    return np.random.RandomState(np.random.MT19937(seed_sequence(seed)))


def torch_seeds(seed: Seed, count: int) -> list[np.random.SeedSequence]:
    """``count`` independent child SeedSequences of ``seed``, one per torch stream.

    Each goes to :func:`torch_generator` or :func:`torch_seeded`, which key the whole MT19937
    state from it; None gives 128 bits of OS entropy (``numpy.random.SeedSequence``).
    """
    return list(seed_sequence(seed).spawn(count))


@contextlib.contextmanager
def torch_seeded(seed: Seed) -> Iterator[None]:
    """Key torch's global CPU generator from the whole SeedSequence (:func:`torch_state`) for
    the block, and restore it after (no global leak)."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.set_rng_state(torch_state(seed))
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
    "numpy_random_state",
    "run_seeds",
    "secret_seed",
    "seed_sequence",
    "seed_warning",
    "torch_generator",
    "torch_seeded",
    "torch_seeds",
    "torch_state",
]

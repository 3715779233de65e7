"""The auditing hook: a synthesizer's noisy measurements, seen only by the auditor, in memory.

``synthcert audit-claim`` tests a DP claim white-box: it fits the synthesizer on a pair of
neighbouring tables built from the public schema and reads the noisy statistics the fit drew,
not only the rows it samples. A synthesizer exposes them by calling :func:`record_measurement`
right after each noise draw. The call does nothing unless the auditor opened
:func:`recording_measurements` in the same context (a :class:`contextvars.ContextVar`, so a
fit in another thread or process is never recorded), and what is recorded lives in the list the
auditor holds: it is never stored on the synthesizer, never written to a file and never part of
a release. Recording does not change the fit: no random number is drawn and no value altered.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

import numpy as np

NoiseKind = Literal["laplace", "gaussian"]


@dataclass(frozen=True)
class NoisyMeasurement:
    """One noisy statistic of a fit, as the auditor sees it.

    Attributes
    ----------
    name : str
        The ledger name of the step (e.g. ``laplace:table:age``).
    noise : {"laplace", "gaussian"}
        The noise added (its discrete version included: the same likelihood-ratio direction).
    scale : float
        The Laplace scale b, or the Gaussian standard deviation sigma.
    noisy : numpy.ndarray
        The released (noisy) values, before any clipping or normalisation.
    true : numpy.ndarray
        The exact values on the table fitted (the auditor built that table: it is no secret).
    axes : tuple of int or None
        For a count table, the schema columns (indices) whose joint counts it holds, axes in
        that order; None for another statistic (a vector of Kendall taus).
    integer : bool
        The noise is discrete on the integers (counts): a count that moves by one is then
        told apart as well as by randomized response, not by a continuous Laplace.
    """

    name: str
    noise: NoiseKind
    scale: float
    noisy: np.ndarray
    true: np.ndarray
    axes: tuple[int, ...] | None = None
    integer: bool = False


@dataclass(frozen=True)
class Selection:
    """One exponential-mechanism choice of a fit, as the auditor sees it.

    Pr[c] ∝ exp(ε s_c / (2Δ)) over the candidates' ``scores`` on the table fitted; ``chosen``
    is the index drawn. The auditor pairs the choices of two fits (one per table of a pair,
    same seed) step by step while their histories agree, which gives the step's exact pair of
    distributions (for the ceiling of the audit).

    When the score is an L1 error of a model's estimate of count tables (AIM, MWEM+PGM:
    ``s_c = weights_c · ||x_c − model_c||_1 − offsets_c``, with ``x_c`` the table's counts of
    the marginal on the columns ``queries[c]``, axes in that order, and ``model_c`` the model's
    estimate, a function of earlier noisy measurements only), the fit also hands those terms:
    the auditor then recomputes the scores on *both* tables of a pair and knows the step's
    exact pair of distributions from one fit, at its own history.

    Attributes
    ----------
    queries : tuple of tuple of str
        Per candidate, the columns of its marginal (empty: the scores are all there is).
    model : tuple of numpy.ndarray
        Per candidate, the model's estimate of that marginal (flattened in clique order).
    weights, offsets : numpy.ndarray or None
        Per candidate, the weight and the offset of the score.
    """

    name: str
    epsilon: float
    sensitivity: float
    scores: np.ndarray
    chosen: int
    queries: tuple[tuple[str, ...], ...] = ()
    model: tuple[np.ndarray, ...] = ()
    weights: np.ndarray | None = None
    offsets: np.ndarray | None = None


@dataclass(frozen=True)
class NoisyGradientSum:
    """One DP-SGD step as the auditor sees it (the white-box threat model of Nasr et al. 2021,
    2023, where the auditor sees every step): the noisy sum of the clipped per-example
    gradients, before any post-processing, and each example's clipped gradient and input row.

    Attributes
    ----------
    name : str
        The step's ledger name (e.g. ``dp-sgd:discriminator``).
    scale : float
        Standard deviation of the Gaussian noise of each coordinate, sigma C.
    noisy : numpy.ndarray
        The noisy sum (every parameter flattened, in the optimizer's order): shape (P,).
    clipped : numpy.ndarray
        The batch's clipped per-example gradients (their sum is the exact value): shape (m, P).
    rows : numpy.ndarray
        The batch's encoded input rows, in the same order: shape (m, d).
    """

    name: str
    scale: float
    noisy: np.ndarray
    clipped: np.ndarray
    rows: np.ndarray


_TAP: ContextVar[list[NoisyMeasurement | Selection | NoisyGradientSum] | None] = ContextVar(
    "synthcert_audit_tap", default=None
)


def recording() -> bool:
    """True inside :func:`recording_measurements`: a synthesizer may skip computing what it
    would hand to the auditor (per-example gradients) when nobody records."""
    return _TAP.get() is not None


@contextlib.contextmanager
def recording_measurements() -> Iterator[list[NoisyMeasurement | Selection | NoisyGradientSum]]:
    """Record the noisy measurements of the fits run inside the block (auditor only).

    Yields
    ------
    list of NoisyMeasurement
        Filled, in order, by every :func:`record_measurement` call of this context.

    Examples
    --------
    >>> with recording_measurements() as seen:
    ...     record_measurement("laplace:x", "laplace", 2.0, np.array([1.5]), np.array([1.0]))
    >>> [m.name for m in seen]
    ['laplace:x']
    >>> record_measurement("laplace:x", "laplace", 2.0, np.array([1.5]), np.array([1.0]))
    """
    seen: list[NoisyMeasurement | Selection | NoisyGradientSum] = []
    token = _TAP.set(seen)
    try:
        yield seen
    finally:
        _TAP.reset(token)


def record_measurement(
    name: str,
    noise: NoiseKind,
    scale: float,
    noisy: np.ndarray,
    true: np.ndarray,
    axes: tuple[int, ...] | None = None,
    *,
    integer: bool = False,
) -> None:
    """Hand one noisy measurement to the auditor, if one is recording (else do nothing).

    Parameters
    ----------
    name, noise, scale, noisy, true, axes, integer
        As in :class:`NoisyMeasurement`; the arrays are copied.
    """
    seen = _TAP.get()
    if seen is None:
        return
    seen.append(
        NoisyMeasurement(
            name,
            noise,
            float(scale),
            np.array(noisy, dtype=np.float64, copy=True),
            np.array(true, dtype=np.float64, copy=True),
            None if axes is None else tuple(int(a) for a in axes),
            bool(integer),
        )
    )


def record_selection(
    name: str,
    epsilon: float,
    sensitivity: float,
    scores: np.ndarray,
    chosen: int,
    *,
    queries: Sequence[Sequence[str]] = (),
    model: Sequence[np.ndarray] = (),
    weights: np.ndarray | None = None,
    offsets: np.ndarray | None = None,
) -> None:
    """Hand one exponential-mechanism choice to the auditor, if one is recording.

    Parameters
    ----------
    name, epsilon, sensitivity, scores, chosen, queries, model, weights, offsets
        As in :class:`Selection`; the arrays are copied.
    """
    seen = _TAP.get()
    if seen is None:
        return

    def copy(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else np.array(a, dtype=np.float64, copy=True).ravel()

    seen.append(
        Selection(
            name,
            float(epsilon),
            float(sensitivity),
            np.array(scores, dtype=np.float64, copy=True),
            int(chosen),
            tuple(tuple(str(c) for c in q) for q in queries),
            tuple(np.array(m, dtype=np.float64, copy=True).ravel() for m in model),
            copy(weights),
            copy(offsets),
        )
    )


def record_gradient_sum(
    name: str, scale: float, noisy: np.ndarray, clipped: np.ndarray, rows: np.ndarray
) -> None:
    """Hand one DP-SGD step to the auditor, if one is recording (else do nothing).

    Parameters
    ----------
    name, scale, noisy, clipped, rows
        As in :class:`NoisyGradientSum`; the arrays are copied (float64; rows float32).
    """
    seen = _TAP.get()
    if seen is None:
        return
    seen.append(
        NoisyGradientSum(
            name,
            float(scale),
            np.array(noisy, dtype=np.float64, copy=True),
            np.array(clipped, dtype=np.float64, copy=True),
            np.array(rows, dtype=np.float32, copy=True),
        )
    )


__all__ = [
    "NoisyGradientSum",
    "NoisyMeasurement",
    "Selection",
    "record_gradient_sum",
    "record_measurement",
    "record_selection",
    "recording",
    "recording_measurements",
]

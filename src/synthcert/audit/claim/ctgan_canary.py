"""DP-CTGAN's white-box statistic: the gradient canary of DP-SGD (issue 26, broken twins).

DP-CTGAN releases nothing but its generator, whose rows say little about one record after a
few noisy steps; the black-box statistic cannot tell ε = 4 from ε = 1 in a thousand fits. Its
discriminator is trained by DP-SGD, and the auditing hook
(:class:`~synthcert.privacy.audit_hook.NoisyGradientSum`) hands the auditor each step as in
the white-box threat model of Nasr, Song, Thakurta, Papernot & Carlini (2021) and Nasr, Hayes,
Steinke, Balle et al. (2023): the noisy sum Y of the clipped per-example gradients, and each
example's clipped gradient and input row.

Per step, the batch splits into the canary's row (if sampled) and the others. With S the
exact sum of the others' clipped gradients and g the canary's clipped gradient (norm at most
C), Y = S + g + N(0, σ²C² I) with the canary and Y = S + N(0, σ²C² I) without it. The score
of the step is the projection

    z = <Y − S, u> / (σC),    u = g / ||g||,

so z ~ N(||g|| / (σC), 1) with the canary and N(0, 1) without it: the one-dimensional
Gaussian mechanism the accountant assumes, at shift ||g||/(σC) ≤ 1/σ (equality when the
canary's gradient is clipped, which a small public ``max_grad_norm`` makes sure of). Without
the canary in the batch (the table D, or a Poisson batch that missed it) there is no g and u
is a fixed unit vector.

**Validity.** The audit's bound is valid when the score is one function, on both tables, of a
view of the fit that the claim covers. The view here is Y with the others' rows, clipped
gradients and dropout masks (none depends on whether the canary is in the table) and the
canary's own dropout mask (drawn from the same law on both tables): given them, each step is
the Gaussian mechanism on a sum of sensitivity C, which the accountant composes (at sampling
rate q = 1 nothing is hidden by the sampling; for q < 1 the canary's inclusion is not part of
the view, and the score's law does not need it, as follows). On that view, the function
"project Y − S on the direction of the canary's clipped gradient at the step's parameters and
mask" is the same on both tables. Where the canary is not in the batch, Y − S is the step's
fresh noise, independent of any direction, so its projection on *any* unit vector is N(0, 1):
the fixed vector used here gives the score exactly the law of that function. The statistic
never reads a released row, and the exact values (S, g) come from the tables the auditor built.

The fit's steps become one Gaussian :class:`~synthcert.privacy.audit_hook.NoisyMeasurement`
(noise sd 1, one value per step: ``noisy`` the z's, ``true`` the shifts ||g|| / (σC), 0 where
the canary is absent), which the summed log-likelihood ratio of
:mod:`~synthcert.audit.claim.statistics` scores and simulates like any other.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from synthcert.audit.claim.design import NeighbourPair
from synthcert.privacy.audit_hook import NoisyGradientSum, NoisyMeasurement

CANARY_MEASUREMENT = "dp-sgd:canary-gradient"


def canary_projection(step: NoisyGradientSum, canary: np.ndarray) -> tuple[float, float]:
    """(z, shift) of one DP-SGD step for the canary's encoded row ``canary`` (module docstring).

    Examples
    --------
    >>> step = NoisyGradientSum("s", 0.5, np.array([1.0, 0.3]), np.array([[0.0, 1.0],
    ...     [1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> canary_projection(step, np.array([0.0, 1.0]))  # g = (1, 0), S = (0, 1)
    (2.0, 2.0)
    """
    rows = np.asarray(step.rows)
    hit = np.flatnonzero(np.all(rows == canary[None, :], axis=1)) if len(rows) else []
    exact = np.asarray(step.clipped, dtype=np.float64)
    if len(hit) == 0:
        others, g = exact.sum(axis=0), None
    else:  # the canary's row; any other copy of it counts among the others
        keep = np.ones(len(rows), dtype=bool)
        keep[hit[0]] = False
        others, g = exact[keep].sum(axis=0), exact[hit[0]]
    norm = 0.0 if g is None else float(np.linalg.norm(g))
    # no canary in the batch: any unit vector gives the same N(0, 1) law
    u = g / norm if norm > 0.0 else np.full(step.noisy.shape, 1.0 / np.sqrt(step.noisy.size))
    residual = np.asarray(step.noisy, dtype=np.float64) - others
    return float(residual @ u) / step.scale, norm / step.scale


def canary_row(synth: Any, pair: NeighbourPair) -> np.ndarray:
    """The canary's row as DP-CTGAN encodes it: each column one-hot over its public codes
    (``synth.discretizer``), the columns side by side."""
    cards = np.asarray(synth.discretizer.cardinalities)
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
    row = np.zeros(int(cards.sum()), dtype=np.float32)
    row[offsets + synth.discretizer.transform(pair.canary)[0]] = 1.0
    return row


def gradient_canary_measurements(
    seen: Sequence[Any], synth: Any, pair: NeighbourPair
) -> list[NoisyMeasurement]:
    """The fit's DP-SGD steps (the hook's :class:`NoisyGradientSum` records in ``seen``) as one
    Gaussian measurement of sd 1: the canary projections z, the shifts as exact values.

    Empty when the fit recorded no DP-SGD step (every synthesizer but DP-CTGAN).
    """
    steps = [s for s in seen if isinstance(s, NoisyGradientSum)]
    if not steps:
        return []
    canary = canary_row(synth, pair)
    z, shift = zip(*(canary_projection(s, canary) for s in steps), strict=True)
    return [NoisyMeasurement(CANARY_MEASUREMENT, "gaussian", 1.0, np.array(z), np.array(shift))]


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch on one thread inside the block (if torch is loaded), restored after.

    The audit runs many fits of a few rows in parallel processes: torch's thread pool only
    contends for the cores there (a DP-CTGAN fit of the twins' size takes 0.6 s with the
    default threads on a loaded 2-core machine, 0.1 s with one). The fits are the same
    computation; the scores then do not depend on the machine's thread count either.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


__all__ = [
    "CANARY_MEASUREMENT",
    "canary_projection",
    "canary_row",
    "gradient_canary_measurements",
    "one_torch_thread",
]

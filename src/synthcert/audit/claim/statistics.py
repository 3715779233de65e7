"""Test statistics of the worst-case audit: one score per fit (issue 26, part 2).

A score is larger when the fit looks like it saw the canary (D', IN).

* **black-box**: the share of ``samples`` synthetic rows that fall in the canary's cell, every
  column binned as the synthesizer bins it (its ``bins`` public equal-width bins, or the
  declared edges, and the categories). Only the released rows are used.
* **white-box**: the log-likelihood ratio of the fit's noisy measurements between D' and D,
  read through the auditing hook (:mod:`synthcert.privacy.audit_hook`; never published). A
  measurement of count table or vector ``y`` with exact values ``mu0`` on D and ``mu1`` on D'
  contributes

  - Laplace noise of scale b: ``sum_c (|y_c - mu0_c| - |y_c - mu1_c|) / b`` (the
    likelihood-ratio direction of the noisy count at the canary's cell and at the repeated
    record's cell, each normalised by its noise scale, clipped where the ratio saturates);
  - Gaussian noise of standard deviation sigma:
    ``sum_c ((y_c - mu0_c)^2 - (y_c - mu1_c)^2) / (2 sigma^2)``, linear in y.

  - a selection by the exponential mechanism whose scores the auditor can recompute on both
    tables (AIM's and MWEM+PGM's: an L1 error of the model's estimate of a marginal, the model
    a function of earlier noisy measurements, :class:`~synthcert.privacy.audit_hook.Selection`)
    contributes ``log Pr[chosen | D'] - log Pr[chosen | D]``, Pr[c] ∝ exp(ε s_c / (2Δ)).
    Selections known by their scores on the fitted table only (PrivBayes's) are not scored.

  The likelihood of a fit's whole transcript factorises over its steps, each step's law given
  the earlier ones; the sum over every step is therefore the log-likelihood ratio of the
  transcript, the Neyman–Pearson statistic of the pair (Neyman & Pearson 1933), adaptive steps
  included. For AIM and MWEM+PGM the Gaussian part is exactly N(±ρ_m, 2ρ_m) on each side,
  ρ_m = Σ 1/(2σ_i²) the measurements' budget: the sigmas adapt, but their total does not.
  Its law is known from the declared noise, so :func:`simulate_white_box` can draw it to fix
  the test a priori. (The recorded noisy values are the mechanism's output: post-processing
  settings such as ``pgm_iters`` change which later steps are taken, never a step's score.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthcert.audit.claim.design import NeighbourPair
from synthcert.data.discretize import DEFAULT_BINS, Discretizer, numeric_codes
from synthcert.data.encode import numeric_values
from synthcert.data.schema import CategoricalColumn, NumericColumn
from synthcert.privacy.audit_hook import NoisyMeasurement, Selection

STATISTICS = ("white-box", "black-box")
DEFAULT_SAMPLES = 1000  # synthetic rows drawn per fit for the black-box statistic
SIMULATION_CELLS = 2_000_000  # noisy values drawn at once by simulate_white_box


def pair_discretizer(synth: Any, pair: NeighbourPair) -> Discretizer:
    """The synthesizer's bins over the pair's schema (its ``bins`` or 20, missing modelled)."""
    return Discretizer(pair.schema, bins=int(getattr(synth, "bins", DEFAULT_BINS) or DEFAULT_BINS))


@dataclass(frozen=True)
class PairCodes:
    """Codes of D, D' and the canary on a synthesizer's bins, and the code cardinalities."""

    without: np.ndarray
    with_canary: np.ndarray
    canary: np.ndarray
    cards: tuple[int, ...]
    names: tuple[str, ...] = ()  # the columns, in the order of the codes' axes

    @classmethod
    def of(cls, discretizer: Discretizer, pair: NeighbourPair) -> PairCodes:
        """Codes of the pair's tables on ``discretizer``."""
        return cls(
            discretizer.transform(pair.without),
            discretizer.transform(pair.with_canary),
            discretizer.transform(pair.canary)[0],
            tuple(discretizer.cardinalities),
            tuple(pair.schema.names),
        )

    def counts(self, side: int, axes: Sequence[int]) -> np.ndarray:
        """Joint counts of D' (``side=1``) or D over ``axes``, axes in that order."""
        codes = self.with_canary if side else self.without
        shape = tuple(self.cards[a] for a in axes)
        out = np.zeros(shape, dtype=np.float64)
        np.add.at(out, tuple(codes[:, a] for a in axes), 1.0)
        return out


def in_canary_cell(
    rows: pd.DataFrame, pair: NeighbourPair, discretizer: Discretizer, canary: np.ndarray
) -> np.ndarray:
    """Which synthetic rows fall in the canary's cell: every column in the canary's category or
    in the canary's bin (the synthesizer's bins). A missing value is never in the cell.

    ``canary`` holds the canary's codes on ``discretizer``. Categorical columns in the
    schema's dtype are read from their codes (no re-encoding).
    """
    hit = np.ones(len(rows), dtype=bool)
    full: np.ndarray | None = None  # every column re-encoded, only if a column needs it
    for j, col in enumerate(pair.schema.columns):
        series = rows[col.name]
        if (
            isinstance(col, CategoricalColumn)
            and isinstance(series.dtype, pd.CategoricalDtype)
            and list(series.cat.categories) == [str(c) for c in col.categories]
        ):
            hit &= series.cat.codes.to_numpy() == canary[j]
        elif isinstance(col, NumericColumn):
            x = numeric_values(series, col)
            hit &= ~np.isnan(x) & (numeric_codes(x, col, discretizer.bins) == canary[j])
        else:
            if full is None:
                full = discretizer.transform(rows)
            hit &= full[:, j] == canary[j]
    return hit


def black_box_score(
    rows: pd.DataFrame, pair: NeighbourPair, discretizer: Discretizer, codes: PairCodes
) -> float:
    """Share of the synthetic ``rows`` in the canary's cell (:func:`in_canary_cell`)."""
    if len(rows) == 0:
        return 0.0
    return float(np.mean(in_canary_cell(rows, pair, discretizer, codes.canary)))


def measurement_means(
    m: NoisyMeasurement,
    codes: PairCodes,
    reference: Mapping[str, tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray] | None:
    """(mu0, mu1): the exact values of measurement ``m`` on D and on D' (None if unknown).

    A count table (``axes`` set) is counted on the pair's codes; another statistic is looked up
    by name in ``reference`` (the values two reference fits, one per side, recorded).
    """
    if m.axes is not None:
        mu0, mu1 = codes.counts(0, m.axes), codes.counts(1, m.axes)
        if mu0.size != m.noisy.size:
            return None
        return mu0.reshape(m.noisy.shape), mu1.reshape(m.noisy.shape)
    found = reference.get(m.name)
    if found is None or found[0].shape != m.noisy.shape:
        return None
    return found


def exponential_log_pmf(epsilon: float, sensitivity: float, scores: np.ndarray) -> np.ndarray:
    """log Pr[c] = ε s_c / (2Δ) − log Σ_j exp(ε s_j / (2Δ)): the exponential mechanism's law
    (McSherry & Talwar 2007; thesis Def. 2.3.15), in floating point (the sampler's rational
    exponents differ from it by rounding only)."""
    z = float(epsilon) * np.asarray(scores, dtype=np.float64) / (2.0 * float(sensitivity))
    z = z - z.max()
    return z - math.log(float(np.exp(z).sum()))


def selection_log_pmfs(sel: Selection, codes: PairCodes) -> tuple[np.ndarray, np.ndarray] | None:
    """(log Pr[· | D], log Pr[· | D']) of one selection at its fit's history, or None when its
    scores cannot be recomputed on both tables (no L1-error terms, an unknown column, or a
    model marginal not of the codes' shape).

    The score of candidate c on a table is ``weights_c · ||x_c − model_c||_1 − offsets_c``
    (:class:`~synthcert.privacy.audit_hook.Selection`), ``x_c`` its counts on the pair's codes.
    """
    if not sel.queries or sel.weights is None or sel.offsets is None:
        return None
    if any(a not in codes.names for q in sel.queries for a in q):
        return None
    sides = []
    for side in (0, 1):
        errors = np.empty(len(sel.queries))
        for j, (q, est) in enumerate(zip(sel.queries, sel.model, strict=True)):
            x = codes.counts(side, [codes.names.index(a) for a in q]).ravel()
            if x.size != est.size:
                return None
            errors[j] = np.abs(x - est).sum()
        scores = sel.weights * errors - sel.offsets
        sides.append(exponential_log_pmf(sel.epsilon, sel.sensitivity, scores))
    return sides[0], sides[1]


def _llr(noise: str, scale: float, y: np.ndarray, mu0: np.ndarray, mu1: np.ndarray) -> np.ndarray:
    """log p(y | D') - log p(y | D) summed over the last axis of ``y`` (module docstring)."""
    if noise == "laplace":
        return np.sum(np.abs(y - mu0) - np.abs(y - mu1), axis=-1) / scale
    return np.sum((y - mu0) ** 2 - (y - mu1) ** 2, axis=-1) / (2.0 * scale**2)


def log_likelihood_ratio(m: NoisyMeasurement, mu0: np.ndarray, mu1: np.ndarray) -> float:
    """log p(y | D') - log p(y | D) of one measurement (module docstring)."""
    return float(_llr(m.noise, m.scale, m.noisy.ravel(), mu0.ravel(), mu1.ravel()))


def _noise(m: NoisyMeasurement, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Noise of ``m``'s law: (discrete) Laplace of scale b, or Gaussian of sd sigma (the
    discrete Gaussian on the integers approximated by rounding a normal: the simulation only
    chooses a test, see :func:`simulate_white_box`)."""
    if m.noise == "laplace" and m.integer:  # discrete Laplace: difference of two geometrics
        p = -math.expm1(-1.0 / m.scale)
        return (rng.geometric(p, shape) - rng.geometric(p, shape)).astype(np.float64)
    if m.noise == "laplace":
        return rng.laplace(0.0, m.scale, shape)
    z = rng.normal(0.0, m.scale, shape)
    return np.rint(z) if m.integer else z


def simulate_white_box(
    measurements: Sequence[NoisyMeasurement],
    codes: PairCodes,
    reference: Mapping[str, tuple[np.ndarray, np.ndarray]],
    size: int,
    rng: np.random.Generator,
    selections: Sequence[Selection] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """``size`` draws per side of :func:`white_box_score` for fits that take ``measurements``
    and make ``selections`` (one reference fit's transcript).

    Each measurement's moving values (``mu0 != mu1``; the others add exactly 0) are redrawn as
    ``mu_side + noise`` from the declared noise law, each scored selection's choice is redrawn
    from its law on the side (:func:`selection_log_pmfs`, at the reference fit's history), and
    the summed log-likelihood ratio is computed as for a real fit. This is the statistic's law
    on the pair when the fits take these steps (an adaptive synthesizer's other fits take
    others: for AIM and MWEM+PGM the Gaussian part's law is the same, the selections' nearly
    so). It is used to fix the test *before* the runs that evaluate it, so it must come from a
    seed of its own; whether it is exact only affects the power of the audit, never its
    validity.

    Returns
    -------
    (in_scores, out_scores) : tuple of numpy.ndarray
        Simulated scores of fits on D' and on D.
    """
    ins, outs = np.zeros(size), np.zeros(size)
    for m in measurements:
        means = measurement_means(m, codes, reference)
        if means is None:
            continue
        mu0, mu1 = (a.ravel() for a in means)
        moving = mu0 != mu1
        if not moving.any():
            continue
        mu0, mu1 = mu0[moving], mu1[moving]
        step = max(1, SIMULATION_CELLS // mu0.size)  # bounded memory on a wide schema
        for acc, mu in ((ins, mu1), (outs, mu0)):
            for lo in range(0, size, step):
                hi = min(size, lo + step)
                y = mu + _noise(m, (hi - lo, mu.size), rng)
                acc[lo:hi] += _llr(m.noise, m.scale, y, mu0, mu1)
    for sel in selections:
        pmfs = selection_log_pmfs(sel, codes)
        if pmfs is None:
            continue
        llr = pmfs[1] - pmfs[0]
        for acc, logp in ((ins, pmfs[1]), (outs, pmfs[0])):
            p = np.exp(logp)
            acc += llr[rng.choice(p.size, size=size, p=p / p.sum())]
    return ins, outs


def white_box_score(
    measurements: Sequence[NoisyMeasurement],
    codes: PairCodes,
    reference: Mapping[str, tuple[np.ndarray, np.ndarray]],
    selections: Sequence[Selection] = (),
) -> float:
    """The summed log-likelihood ratio of the measurements that move between D and D' and of
    the selections whose law is known on both tables (module docstring)."""
    total = 0.0
    for m in measurements:
        means = measurement_means(m, codes, reference)
        if means is not None:
            total += log_likelihood_ratio(m, *means)
    for sel in selections:
        pmfs = selection_log_pmfs(sel, codes)
        if pmfs is not None:
            total += float(pmfs[1][sel.chosen] - pmfs[0][sel.chosen])
    return total


def pgm_measurements(synth: Any) -> list[NoisyMeasurement]:
    """The Gaussian measurements a Private-PGM fit (AIM, MWEM+PGM) keeps in memory.

    ``state_.measurements`` holds each noisy marginal ``y`` (flattened in clique order) and its
    sigma; the exact values are not kept (the statistic counts them on the pair's codes).
    """
    state = getattr(synth, "state_", None)
    if state is None:
        return []
    names = list(synth.schema.names)
    out = []
    for m in getattr(state, "measurements", ()):
        axes = tuple(names.index(a) for a in m.clique)
        y = np.asarray(m.y, dtype=np.float64)
        out.append(
            NoisyMeasurement(
                f"gaussian:{'x'.join(m.clique)}",
                "gaussian",
                float(m.sigma),
                y,
                np.full_like(y, np.nan),
                axes,
            )
        )
    return out


__all__ = [
    "DEFAULT_SAMPLES",
    "STATISTICS",
    "PairCodes",
    "black_box_score",
    "exponential_log_pmf",
    "in_canary_cell",
    "log_likelihood_ratio",
    "measurement_means",
    "pair_discretizer",
    "pgm_measurements",
    "selection_log_pmfs",
    "simulate_white_box",
    "white_box_score",
]

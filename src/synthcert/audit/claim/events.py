"""A synthesizer's noise steps on the audited pair, as a dp-accounting ``DpEvent`` (issue 26).

The ceiling of an audit is computed from the mechanism's own privacy-loss distribution on the
pair it was run on. Each noisy measurement a fit recorded (the auditing hook,
:mod:`synthcert.privacy.audit_hook`) moves between D and D' by ``s = mu1 - mu0``:

* Laplace noise of scale b: one ``LaplaceDpEvent`` of noise multiplier ``b / |s_c|`` per cell
  c that moves (the cells are noised independently);
* Gaussian noise of standard deviation sigma: one ``GaussianDpEvent`` of noise multiplier
  ``sigma / ||s||_2``;
* a selection by the exponential mechanism (ledger entries of kind ``exponential``, ε each):
  a ``LaplaceDpEvent`` of noise multiplier 1/ε, an ε-DP step. (The least favourable ε-DP step
  is randomized response; a Laplace step is the accountants' usual stand-in.)

DP-SGD (DP-CTGAN) is ``SelfComposed(PoissonSampled(q, Gaussian(z)), steps)`` from its fitted
sampling rate, noise multiplier and steps, with the Gaussian of its missingness-pattern
histogram. The steps of one reference fit on D' make the event (AIM's and PrivBayes's choices
vary between fits; their total budget does not).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from synthcert.audit.claim.statistics import PairCodes, measurement_means
from synthcert.privacy.audit_hook import NoisyMeasurement


def measurement_events(
    measurements: Sequence[NoisyMeasurement],
    codes: PairCodes,
    reference: Mapping[str, tuple[np.ndarray, np.ndarray]],
) -> list[Any]:
    """The DpEvents of the measurements that move between D and D' (module docstring)."""
    import dp_accounting

    events: list[Any] = []
    for m in measurements:
        means = measurement_means(m, codes, reference)
        if means is None:
            continue
        shift = np.abs(means[1] - means[0]).ravel()
        shift = shift[shift > 0]
        if shift.size == 0:
            continue
        if m.noise == "laplace":
            events += [dp_accounting.LaplaceDpEvent(m.scale / float(s)) for s in shift]
        else:
            norm = float(np.sqrt(np.sum(shift**2)))
            events.append(dp_accounting.GaussianDpEvent(m.scale / norm))
    return events


def selection_events(ledger: Sequence[Any]) -> list[Any]:
    """An ε-DP Laplace step per exponential-mechanism entry of a fit's ledger."""
    import dp_accounting

    return [
        dp_accounting.LaplaceDpEvent(1.0 / float(e.epsilon))
        for e in ledger
        if e.kind == "exponential" and e.epsilon
    ]


def dpsgd_events(synth: Any) -> list[Any]:
    """DP-CTGAN's discriminator steps and its pattern histogram (from the fitted attributes)."""
    import dp_accounting

    steps = int(getattr(synth, "steps_", 0) or 0)
    if steps <= 0:
        return []
    step = dp_accounting.PoissonSampledDpEvent(
        float(synth.sample_rate_), dp_accounting.GaussianDpEvent(float(synth.noise_multiplier_))
    )
    events: list[Any] = [dp_accounting.SelfComposedDpEvent(step, steps)]
    rho = getattr(synth, "pattern_rho_", None)
    if rho:
        events.append(dp_accounting.GaussianDpEvent(1.0 / math.sqrt(2.0 * float(rho))))
    return events


def pair_event(
    synth: Any,
    measurements: Sequence[NoisyMeasurement],
    codes: PairCodes,
    reference: Mapping[str, tuple[np.ndarray, np.ndarray]],
) -> Any | None:
    """The composed event of one fit's noise steps on the pair, or None if none is known."""
    import dp_accounting

    events = dpsgd_events(synth)
    if not events:
        events = measurement_events(measurements, codes, reference)
        ledger = getattr(getattr(synth, "accountant", None), "ledger", ())
        events += selection_events(ledger)
    if not events:
        return None
    return dp_accounting.ComposedDpEvent(events)


__all__ = ["dpsgd_events", "measurement_events", "pair_event", "selection_events"]

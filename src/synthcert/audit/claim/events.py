"""A synthesizer's noise steps on the audited pair, as a dp-accounting ``DpEvent`` (issue 26).

The ceiling of an audit is computed from the mechanism's own privacy-loss distribution on the
pair it was run on. Each noisy measurement a fit recorded (the auditing hook,
:mod:`synthcert.privacy.audit_hook`) moves between D and D' by ``s = mu1 - mu0``:

* Laplace noise of scale b: one ``LaplaceDpEvent`` of noise multiplier ``b / |s_c|`` per cell
  c that moves (the cells are noised independently). Counts noised with *discrete* Laplace
  noise (synthcert's, on the integers) that move by one take only the privacy losses ±1/b: the
  pair of distributions is then binary randomized response at ε = 1/b, a
  ``RandomizedResponseDpEvent`` with two buckets (and noise parameter 2/(1 + e^ε)), more
  distinguishable than a continuous Laplace of the same ε;
* Gaussian noise of standard deviation sigma: one ``GaussianDpEvent`` of noise multiplier
  ``sigma / ||s||_2``;
* a selection by the exponential mechanism (ledger entries of kind ``exponential``, ε each):
  its exact pair of distributions over the candidates (:class:`ChoicePairEvent`) when the
  synthesizer hands its choices to the auditing hook and two same-seed reference fits, one per
  table, agree on the history up to that step (:func:`paired_choice_events`; a step whose two
  distributions are equal, as PrivBayes's on the anchor, where every candidate scores alike
  on both tables, reveals nothing and is left out); otherwise a ``LaplaceDpEvent`` of noise
  multiplier 1/ε, an ε-DP step. (The least favourable ε-DP step is randomized response; a
  Laplace step is the accountants' usual stand-in.) A choice whose scores the auditor can
  recompute on both tables (AIM's, MWEM+PGM's: :func:`scored_choice_events`) is taken
  exactly, at the reference fit's history, with no pairing.

DP-SGD (DP-CTGAN) is ``SelfComposed(PoissonSampled(q, Gaussian(z)), steps)`` from its fitted
sampling rate, noise multiplier and steps, with the Gaussian of its missingness-pattern
histogram. The steps of one reference fit on D' make the event (AIM's and PrivBayes's choices
vary between fits; their total budget does not).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synthcert.audit.claim.statistics import (
    PairCodes,
    exponential_log_pmf,
    measurement_means,
    selection_log_pmfs,
)
from synthcert.privacy.audit_hook import NoisyMeasurement, Selection


@dataclass(frozen=True)
class ChoicePairEvent:
    """One choice whose law is known on both tables: natural-log masses by candidate index,
    ``log_in`` with the canary, ``log_out`` without (:func:`event_pld` turns it into a PLD,
    both orders)."""

    log_in: dict[int, float] = field(default_factory=dict)
    log_out: dict[int, float] = field(default_factory=dict)


def _exponential_log_pmf(sel: Selection) -> dict[int, float]:
    """log Pr[c] of the exponential mechanism on the recorded scores, by candidate index."""
    logp = exponential_log_pmf(sel.epsilon, sel.sensitivity, sel.scores)
    return {i: float(v) for i, v in enumerate(logp)}


def scored_choice_events(
    selections: Sequence[Selection], codes: PairCodes
) -> tuple[list[Any], int] | None:
    """Exact events of one fit's choices when every one can be scored on both tables
    (:func:`~synthcert.audit.claim.statistics.selection_log_pmfs`: AIM's and MWEM+PGM's), each
    at that fit's history; None otherwise. Same form as :func:`paired_choice_events`."""
    events: list[Any] = []
    for sel in selections:
        pmfs = selection_log_pmfs(sel, codes)
        if pmfs is None:
            return None
        log_out, log_in = pmfs
        if not np.allclose(log_in, log_out, rtol=0, atol=1e-12):
            events.append(
                ChoicePairEvent(
                    {i: float(v) for i, v in enumerate(log_in)},
                    {i: float(v) for i, v in enumerate(log_out)},
                )
            )
    return events, len(selections)


def paired_choice_events(
    chosen_in: Sequence[Selection], chosen_out: Sequence[Selection]
) -> tuple[list[Any], int]:
    """Exact events of the choices two same-seed fits (D', D) made while their histories
    agreed: (events of the steps that differ between the tables, steps paired).

    Step i is paired when both fits made it with as many candidates and every earlier choice
    was the same index (for PrivBayes the candidates are then the same, in the same order).
    """
    events: list[Any] = []
    paired = 0
    for a, b in zip(chosen_in, chosen_out, strict=False):
        if a.name != b.name or a.scores.shape != b.scores.shape or a.epsilon != b.epsilon:
            break
        paired += 1
        p_in, p_out = _exponential_log_pmf(a), _exponential_log_pmf(b)
        if not np.allclose(list(p_in.values()), list(p_out.values()), rtol=0, atol=1e-12):
            events.append(ChoicePairEvent(p_in, p_out))
        if a.chosen != b.chosen:  # the histories part here
            break
    return events, paired


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
        if m.noise == "laplace" and m.integer:
            events += [randomized_response(float(s) / m.scale) for s in shift]
        elif m.noise == "laplace":
            events += [dp_accounting.LaplaceDpEvent(m.scale / float(s)) for s in shift]
        else:
            norm = float(np.sqrt(np.sum(shift**2)))
            events.append(dp_accounting.GaussianDpEvent(m.scale / norm))
    return events


def randomized_response(epsilon: float) -> Any:
    """Binary randomized response at ``epsilon``: the least favourable ε-DP pair."""
    import dp_accounting

    return dp_accounting.RandomizedResponseDpEvent(2.0 / (1.0 + math.exp(epsilon)), 2)


def event_pld(event: Any, *, value_discretization_interval: float = 1e-3) -> Any:
    """The privacy-loss distribution of a composition of the events this module builds.

    dp-accounting's accountant takes randomized response only under replace-one neighbours and
    Laplace only under add/remove, so the pieces are built here, each on the pair it describes
    (``from_randomized_response``, ``from_laplace_mechanism``, ``from_gaussian_mechanism``,
    Poisson-subsampled Gaussian steps self-composed), and composed.
    """
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    vdi = value_discretization_interval
    if isinstance(event, dp_accounting.ComposedDpEvent):
        parts = [event_pld(e, value_discretization_interval=vdi) for e in event.events]
        out = parts[0]
        for part in parts[1:]:
            out = out.compose(part)
        return out
    if isinstance(event, dp_accounting.SelfComposedDpEvent):
        return event_pld(event.event, value_discretization_interval=vdi).self_compose(event.count)
    if isinstance(event, ChoicePairEvent):
        return pld_lib.from_two_probability_mass_functions(
            event.log_out, event.log_in, value_discretization_interval=vdi, symmetric=False
        )
    if isinstance(event, dp_accounting.RandomizedResponseDpEvent):
        return pld_lib.from_randomized_response(
            event.noise_parameter, event.num_buckets, value_discretization_interval=vdi
        )
    if isinstance(event, dp_accounting.LaplaceDpEvent):
        return pld_lib.from_laplace_mechanism(
            event.noise_multiplier, value_discretization_interval=vdi
        )
    if isinstance(event, dp_accounting.GaussianDpEvent):
        return pld_lib.from_gaussian_mechanism(
            event.noise_multiplier, value_discretization_interval=vdi
        )
    if isinstance(event, dp_accounting.PoissonSampledDpEvent) and isinstance(
        event.event, dp_accounting.GaussianDpEvent
    ):
        return pld_lib.from_gaussian_mechanism(
            event.event.noise_multiplier,
            sampling_prob=event.sampling_probability,
            value_discretization_interval=vdi,
        )
    raise ValueError(f"no privacy-loss distribution for {event!r}")


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
    choices: tuple[list[Any], int] = ([], 0),
) -> Any | None:
    """The composed event of one fit's noise steps on the pair, or None if none is known.

    ``choices``: :func:`paired_choice_events` of the fit's first selections (their exact
    events, and how many they cover); the other selections are worst-case ε-DP steps.
    """
    import dp_accounting

    events = dpsgd_events(synth)
    if not events:
        events = measurement_events(measurements, codes, reference)
        ledger = getattr(getattr(synth, "accountant", None), "ledger", ())
        exact, paired = choices
        events += [*exact, *selection_events(ledger)[paired:]]
    if not events:
        return None
    return dp_accounting.ComposedDpEvent(events)


__all__ = [
    "ChoicePairEvent",
    "dpsgd_events",
    "event_pld",
    "measurement_events",
    "pair_event",
    "paired_choice_events",
    "randomized_response",
    "scored_choice_events",
    "selection_events",
]

"""AIM's and MWEM+PGM's exponential-mechanism selections in the white-box audit (issue 26).

Each selection hands the auditor its L1-error terms; the auditor recomputes the scores on both
tables of the pair, so the choice's log-likelihood ratio enters the white-box score, its law
the a-priori simulation, and its exact pair of distributions the ceiling.
"""

from __future__ import annotations

import dp_accounting
import numpy as np
import pytest

from synthcert.audit.claim.design import anchor_pair
from synthcert.audit.claim.events import ChoicePairEvent, pair_event, scored_choice_events
from synthcert.audit.claim.run import AuditSetup, fit_recorded, reference_fits, run_scores
from synthcert.audit.claim.statistics import (
    PairCodes,
    exponential_log_pmf,
    pair_discretizer,
    selection_log_pmfs,
    simulate_white_box,
    white_box_score,
)
from synthcert.privacy.audit_hook import Selection, recording_measurements
from synthcert.synthesizers.registry import make_synthesizer

PGMS = ("aim", "mwem-pgm")


def setup_of(name: str, **params: int) -> AuditSetup:
    return AuditSetup(name, 1.0, 1e-2, {"pgm_iters": 10, **params}, anchor_pair("unbounded"), 0)


def codes_of(synth, setup: AuditSetup) -> PairCodes:
    return PairCodes.of(pair_discretizer(synth, setup.pair), setup.pair)


@pytest.mark.parametrize("name", PGMS)
def test_selections_are_recorded_without_changing_the_fit(name):
    pair = anchor_pair("unbounded")
    kw = {"epsilon": 1.0, "delta": 1e-2, "pgm_iters": 10, "seed": 4}
    plain = make_synthesizer(name, pair.schema, **kw).fit(pair.with_canary)
    with recording_measurements() as seen:
        audited = make_synthesizer(name, pair.schema, **kw).fit(pair.with_canary)
    choices = [s for s in seen if isinstance(s, Selection)]
    ledger = [e for e in audited.accountant.ledger if e.kind == "exponential"]
    assert len(choices) == len(ledger) > 0
    assert plain.selected == audited.selected
    assert plain.sample(30, seed=1).equals(audited.sample(30, seed=1))


@pytest.mark.parametrize("name", PGMS)
@pytest.mark.parametrize("side", [0, 1])
def test_recomputed_scores_are_the_fits_own_on_its_table(name, side):
    setup = setup_of(name)
    synth, _, choices = fit_recorded(setup, side, np.random.SeedSequence(3))
    codes = codes_of(synth, setup)
    for sel in choices:
        pmfs = selection_log_pmfs(sel, codes)
        assert pmfs is not None
        own = exponential_log_pmf(sel.epsilon, sel.sensitivity, sel.scores)
        np.testing.assert_allclose(pmfs[side], own, atol=1e-9)
        # one record moves each candidate's score by at most its weight <= the sensitivity
        assert np.all(np.abs(pmfs[1] - pmfs[0]) <= sel.epsilon + 1e-12)


def test_a_selection_without_l1_terms_is_not_scored():
    setup = setup_of("aim")
    synth, _, _ = fit_recorded(setup, 1, np.random.SeedSequence(3))
    bare = Selection("exponential:x", 1.0, 1.0, np.array([0.0, 1.0]), 1)
    assert selection_log_pmfs(bare, codes_of(synth, setup)) is None
    assert scored_choice_events([bare], codes_of(synth, setup)) is None


def test_pgm_iters_does_not_change_the_white_box_score():
    """The final estimate is post-processing: with the selection loop's iterations fixed, the
    transcript, hence the score, is the same for every pgm_iters."""
    scores = []
    for iters in (10, 40):
        setup = setup_of("aim", pgm_iters=iters, round_iters=10)
        synth, measured, choices = fit_recorded(setup, 1, np.random.SeedSequence(6))
        scores.append(white_box_score(measured, codes_of(synth, setup), {}, choices))
    assert scores[0] == scores[1]


@pytest.mark.parametrize("name", PGMS)
def test_measurement_precision_is_the_same_in_every_fit(name):
    """Σ 1/σ² over the measurements does not depend on the (adaptive) path: the Gaussian part of
    the statistic has the same law in every fit, the one the a-priori simulation draws."""
    setup = setup_of(name)
    totals = []
    for s in range(3):
        _, measured, _ = fit_recorded(setup, s % 2, np.random.SeedSequence(20 + s))
        totals.append(sum(1.0 / m.scale**2 for m in measured))
    assert totals == pytest.approx([totals[0]] * 3, rel=1e-9)


@pytest.mark.parametrize("name", PGMS)
def test_the_ceiling_takes_every_selection_exactly(name):
    setup = setup_of(name)
    reference, synth, seen, choices = reference_fits(setup, np.random.SeedSequence(2))
    codes = codes_of(synth, setup)
    exact = scored_choice_events(choices, codes)
    assert exact is not None and exact[1] == len(choices)
    event = pair_event(synth, seen, codes, reference, exact)
    kinds = {type(e) for e in event.events}
    assert dp_accounting.LaplaceDpEvent not in kinds  # no worst-case stand-in left
    assert kinds <= {dp_accounting.GaussianDpEvent, ChoicePairEvent}


@pytest.mark.slow
def test_simulated_aim_scores_follow_the_real_ones():
    setup = setup_of("aim")
    reference, synth, seen, choices = reference_fits(setup, np.random.SeedSequence(1))
    codes = codes_of(synth, setup)
    sim_in, sim_out = simulate_white_box(
        seen, codes, reference, 20_000, np.random.default_rng(0), choices
    )
    real_in, real_out = run_scores(setup, runs=150, seed=5, workers=1)
    for sim, real in ((sim_in, real_in[:, 0]), (sim_out, real_out[:, 0])):
        assert abs(sim.mean() - real.mean()) < 4 * real.std() / np.sqrt(real.size)
        assert 0.8 < real.std() / sim.std() < 1.25

"""The runs of audit-claim: seeded, engine-independent, white-box through the auditing hook."""

from __future__ import annotations

import dp_accounting
import numpy as np
import pytest

from synthcert.audit.claim.design import anchor_pair
from synthcert.audit.claim.events import event_pld, pair_event, randomized_response
from synthcert.audit.claim.result import ClaimAuditResult
from synthcert.audit.claim.run import (
    AuditSetup,
    claimed,
    corner_above_claim,
    fit_once,
    reference_values,
    run_claim_audit,
    run_scores,
)
from synthcert.audit.claim.statistics import (
    PairCodes,
    log_likelihood_ratio,
    pair_discretizer,
)
from synthcert.privacy.audit_hook import NoisyMeasurement, Selection, recording_measurements
from synthcert.privacy.claims import GUARANTEE, PrivacyClaim
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer


def privbayes_setup(epsilon: float = 1.0, samples: int = 50) -> AuditSetup:
    return AuditSetup("privbayes", epsilon, None, {}, anchor_pair("bounded"), samples)


def test_scores_depend_on_the_seed_only_not_on_workers_or_chunks():
    setup = privbayes_setup()
    one = run_scores(setup, runs=6, seed=11, workers=1)
    two = run_scores(setup, runs=6, seed=11, workers=2)
    other = run_scores(setup, runs=6, seed=12, workers=1)
    for a, b in zip(one, two, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(one[0], other[0])
    assert one[0].shape == (6, 2) and np.isfinite(one[0]).all()


def test_recording_does_not_change_the_fit_and_nothing_is_kept_outside_it():
    pair = anchor_pair("bounded")
    plain = PrivBayesSynthesizer(pair.schema, epsilon=1.0, seed=3).fit(pair.with_canary)
    with recording_measurements() as recorded:
        audited = PrivBayesSynthesizer(pair.schema, epsilon=1.0, seed=3).fit(pair.with_canary)
    seen = [m for m in recorded if isinstance(m, NoisyMeasurement)]
    choices = [m for m in recorded if isinstance(m, Selection)]
    assert len(seen) == len(audited.tables_) and all(m.noise == "laplace" for m in seen)
    assert len(choices) == len(audited.tables_) - 1  # one structure choice per node but one
    for a, b in zip(plain.tables_, audited.tables_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert plain.sample(20, seed=1).equals(audited.sample(20, seed=1))
    # nothing on the model: the measurements live only in the auditor's list
    assert not any("measure" in k for k in vars(audited))
    again = PrivBayesSynthesizer(pair.schema, epsilon=1.0, seed=3)
    again.fit(pair.with_canary)
    assert len(recorded) == len(seen) + len(choices)  # the closed recording saw nothing more


def test_log_likelihood_ratio_of_laplace_and_gaussian_measurements():
    mu0, mu1 = np.array([11.0, 0.0]), np.array([10.0, 1.0])
    lap = NoisyMeasurement("t", "laplace", 2.0, mu1.copy(), mu1.copy(), (0,))
    assert log_likelihood_ratio(lap, mu0, mu1) == pytest.approx(2.0 / 2.0)
    far = NoisyMeasurement("t", "laplace", 2.0, np.array([30.0, -30.0]), mu1, (0,))
    # beyond both means each cell saturates at |mu1 - mu0| / b, on D's side here
    assert log_likelihood_ratio(far, mu0, mu1) == pytest.approx(-1.0)
    gau = NoisyMeasurement("g", "gaussian", 2.0, mu0.copy(), mu0.copy(), (0,))
    assert log_likelihood_ratio(gau, mu0, mu1) == pytest.approx(-2.0 / 8.0)


def test_white_box_scores_are_higher_with_the_canary_for_a_loose_mechanism():
    setup = privbayes_setup(epsilon=8.0, samples=0)
    in_scores, out_scores = run_scores(setup, runs=40, seed=5, workers=1)
    assert np.isnan(in_scores[:, 1]).all()  # samples=0: no black-box score
    assert in_scores[:, 0].mean() > out_scores[:, 0].mean()


def test_the_event_of_privbayes_on_the_anchor_pair():
    setup = privbayes_setup()
    ref, synth, seen = reference_values(setup, np.random.SeedSequence(1))
    codes = PairCodes.of(pair_discretizer(synth, setup.pair), setup.pair)
    event = pair_event(synth, seen, codes, ref)
    # each of the 3 noisy tables moves two cells by one (discrete Laplace of scale
    # 2 d / (0.7 eps) = 60/7: randomized response at 7/60), and the 2 structure selections
    # are epsilon-DP steps of 0.15 each
    rr = [e for e in event.events if isinstance(e, dp_accounting.RandomizedResponseDpEvent)]
    p = 2 / (1 + np.exp(7 / 60))
    assert len(rr) == 6 and all(e.noise_parameter == pytest.approx(p) for e in rr)
    laplace = [e for e in event.events if isinstance(e, dp_accounting.LaplaceDpEvent)]
    assert len(laplace) == 2
    assert all(e.noise_multiplier == pytest.approx(1 / 0.15) for e in laplace)
    assert len(event.events) == 8
    # randomized response at epsilon is told apart better than a Laplace of the same epsilon
    rr_pld = event_pld(randomized_response(1.0))
    lap_pld = event_pld(dp_accounting.LaplaceDpEvent(1.0))
    assert rr_pld.get_delta_for_epsilon(0.5) > lap_pld.get_delta_for_epsilon(0.5)


def test_fit_once_reads_the_pgm_measurements():
    setup = AuditSetup("mwem-pgm", 1.0, 1e-2, {"pgm_iters": 5}, anchor_pair("unbounded"))
    synth, seen = fit_once(setup, 1, np.random.SeedSequence(0))
    assert seen and all(m.noise == "gaussian" and m.axes for m in seen)
    assert len(seen) == len(synth.state_.measurements)


def test_a_claim_tested_at_another_epsilon():
    claim = PrivacyClaim("zcdp", GUARANTEE, "unbounded", epsilon=4.0, delta=1e-2, rho=0.5)
    lower = claimed(claim, 1.0)
    assert lower.epsilon == 1.0 and lower.rho < claim.rho
    assert claimed(claim, None) is claim


def test_corner_above_the_claim_curve():
    pure = PrivacyClaim("pure-dp", GUARANTEE, "bounded", epsilon=1.0, delta=0.0)
    assert corner_above_claim(pure, 0.05, 0.5)  # TPR/FPR = 10 > e
    assert not corner_above_claim(pure, 0.5, 0.6)


def test_the_result_round_trips_and_says_it_is_public():
    audit = run_claim_audit(
        "privbayes", None, epsilon=1.0, runs=10, design="anchor", workers=1, samples=20
    )
    result = audit.result
    assert ClaimAuditResult.from_dict(result.to_dict()) == result
    assert result.public.startswith("public")
    assert result.statistic == "white-box" and result.claimed_mu is None
    assert result.delta == 0.0 and result.claimed_epsilon == 1.0


def test_black_box_is_the_default_without_measurements_and_white_box_can_be_refused():
    from synthcert.errors import ParameterError

    with pytest.raises(ParameterError):
        run_claim_audit("privbayes", None, epsilon=None, runs=10, design="anchor")
    with pytest.raises(ParameterError):
        run_claim_audit(
            "privbayes", None, epsilon=1.0, runs=10, design="anchor", statistic="grey-box"
        )
    with pytest.raises(ParameterError):  # staircase noise: no measurement is exposed
        run_claim_audit(
            "privbayes", None, epsilon=1.0, runs=10, design="anchor",
            params={"noise": "staircase"}, statistic="white-box",
        )  # fmt: skip
    audit = run_claim_audit(
        "privbayes", None, epsilon=1.0, runs=10, design="anchor", workers=1, samples=20,
        params={"noise": "staircase"},
    )  # fmt: skip
    assert audit.result.statistic == "black-box"


@pytest.mark.slow  # a LocalCluster starts in about a minute on this busy 2-core machine
def test_the_dask_engine_gives_the_local_scores():
    pytest.importorskip("distributed")
    setup = privbayes_setup(samples=10)
    local = run_scores(setup, runs=3, seed=2, workers=1)
    dask = run_scores(setup, runs=3, seed=2, workers=1, engine="dask")
    for a, b in zip(local, dask, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_copula_prepared_once_fits_as_fit_does():
    """The audit prepares each side's table once (prepare / fit_prepared): the same fit."""
    from synthcert.synthesizers.copula import GaussianCopulaSynthesizer

    pair = anchor_pair("bounded")
    setup = AuditSetup("gaussian-copula", 1.0, None, {}, pair, 0)
    cache: dict = {}
    for seed in (3, 4):  # the second fit reuses the prepared table
        synth, seen = fit_once(setup, 1, np.random.SeedSequence(seed), cache)
        plain = GaussianCopulaSynthesizer(
            pair.schema, epsilon=1.0, seed=np.random.SeedSequence(seed)
        )
        plain.fit(pair.with_canary)
        np.testing.assert_array_equal(synth.corr_, plain.corr_)
        assert synth.sample(30, seed=1).equals(plain.sample(30, seed=1))
    assert ("prepared", 1) in cache and seen


def test_simulated_white_box_scores_follow_the_real_ones():
    """The a priori test is fixed on simulated scores: their law matches the real fits'."""
    from synthcert.audit.claim.statistics import simulate_white_box

    setup = privbayes_setup(samples=0)
    reference, synth, seen = reference_values(setup, np.random.SeedSequence(1))
    codes = PairCodes.of(pair_discretizer(synth, setup.pair), setup.pair)
    sim_in, sim_out = simulate_white_box(seen, codes, reference, 20_000, np.random.default_rng(0))
    real_in, real_out = run_scores(setup, runs=150, seed=5, workers=1)
    for sim, real in ((sim_in, real_in[:, 0]), (sim_out, real_out[:, 0])):
        assert abs(sim.mean() - real.mean()) < 4 * real.std() / np.sqrt(real.size) + 1e-9
    assert sim_in.mean() > sim_out.mean()


def test_privbayes_choices_on_the_anchor_reveal_nothing_so_the_ceiling_drops_them():
    """Every structure candidate scores alike on both anchor tables: the paired choices are
    equal in law, no selection step enters the pair's event."""
    from synthcert.audit.claim.events import paired_choice_events
    from synthcert.audit.claim.run import fit_recorded

    setup = privbayes_setup(samples=0)
    same = np.random.SeedSequence(8)
    exact, paired = paired_choice_events(
        fit_recorded(setup, 1, same)[2], fit_recorded(setup, 0, same)[2]
    )
    assert paired == 2 and exact == []
    result = run_claim_audit(
        "privbayes", None, epsilon=1.0, runs=20, design="anchor", workers=1, samples=0
    ).result
    assert result.threshold_rule == "a-priori"
    assert result.ceiling == pytest.approx(result.measurement_ceiling)


def test_a_choice_that_differs_between_the_tables_is_composed_exactly():
    from synthcert.audit.claim.events import ChoicePairEvent, event_pld, paired_choice_events

    a = Selection("exponential:x", 1.0, 1.0, np.array([1.0, 0.0]), 0)
    b = Selection("exponential:x", 1.0, 1.0, np.array([0.0, 1.0]), 0)
    exact, paired = paired_choice_events([a, a], [b, b])
    assert paired == 2 and len(exact) == 2 and isinstance(exact[0], ChoicePairEvent)
    # two candidates swapping scores by the sensitivity: randomized response at ε/2 each
    pld = event_pld(exact[0])
    rr = event_pld(randomized_response(0.5))
    for e in (0.0, 0.2, 0.4):
        assert pld.get_delta_for_epsilon(e) == pytest.approx(rr.get_delta_for_epsilon(e), abs=2e-3)
    _, stop = paired_choice_events([a, a], [Selection("exponential:x", 1.0, 1.0, b.scores, 1), b])
    assert stop == 1  # the histories part after the first choice

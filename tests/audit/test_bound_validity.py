"""The audit's ε lower bound is valid: simulated mechanisms whose ε is known.

The worst pair of a counting query is x = 1 (D_pos) against x = 0 (D_neg). The Laplace
mechanism x + Lap(1/ε) is ε-DP on it, and its output is an optimal score (monotone likelihood
ratio), so no threshold test does better. The Gaussian mechanism x + N(0, σ²) is (ε, δ)-DP with
σ from its exact privacy profile (Balle & Wang 2018, via ``gaussian_sigma_analytic``). The
estimator is the one ``synthcert audit`` rates every attack with: :func:`independent_scores`
of the (trials, generations) IMs, then :func:`epsilon_lower_bound`, at the audit's default
sizes (3 trials × 100 generations) and confidence (95 %), for one attack (``family = 1``: the
audit's family of several attacks only makes each bound more conservative).

A bound that is valid at 95 % exceeds the true ε in at most 5 % of the repetitions. With 200
repetitions the count of exceedances of a valid estimator is at most Bin(200, 0.05); the test
allows up to its 99.9 % quantile (21), so a valid estimator fails this (seeded) test with
probability below 0.1 %, while an estimator exceeding the truth 15 % of the time (mean 30)
passes it with probability about 5 %. The invalid pooled estimator (every table of a fit taken
as a run) is shown to fail the same check, so the check can fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from synthcert.audit.scoring import (
    epsilon_lower_bound,
    independent_scores,
    runs_needed,
    score_attack,
)
from synthcert.privacy.mechanisms import gaussian_delta, gaussian_sigma_analytic

TRIALS, GENERATIONS = 3, 100  # the defaults of run_audit and `synthcert audit`
CONFIDENCE = 0.95
REPS = 200
ALLOWED = int(stats.binom.ppf(0.999, REPS, 1 - CONFIDENCE))  # 21 exceedances of 200
EPSILONS = (0.5, 1.0, 2.0)
GAUSS_DELTA = 1e-3
SAMPLING_SD = 0.1  # spread of the tables of one fit around its noisy value


def _noise(mechanism: str, epsilon: float, rng: np.random.Generator, shape) -> np.ndarray:
    if mechanism == "laplace":
        return rng.laplace(0.0, 1.0 / epsilon, shape)
    return rng.normal(0.0, gaussian_sigma_analytic(1.0, epsilon, GAUSS_DELTA), shape)


def _delta(mechanism: str) -> float:
    return 0.0 if mechanism == "laplace" else GAUSS_DELTA


def _bounds(pos: np.ndarray, neg: np.ndarray, unit: str, delta: float) -> list[float | None]:
    """The audit's estimator on each repetition of (reps, trials, generations) IMs."""
    out = []
    for p, q in zip(pos, neg, strict=True):
        bound = epsilon_lower_bound(
            independent_scores(p, unit), independent_scores(q, unit),
            delta=delta, confidence=CONFIDENCE, unit=unit,
        )  # fmt: skip
        out.append(bound.epsilon)
    return out


def _table_randomness(mechanism, epsilon, seed, trials=TRIALS, generations=GENERATIONS):
    """IMs of a mechanism whose randomness is all in sampling: each table is one run."""
    rng = np.random.default_rng(seed)
    shape = (REPS, trials, generations)
    pos = 1.0 + _noise(mechanism, epsilon, rng, shape)
    neg = _noise(mechanism, epsilon, rng, shape)
    return pos, neg


def _fit_randomness(mechanism, epsilon, seed, trials=TRIALS, generations=GENERATIONS):
    """IMs of a mechanism that draws its noise at fit time: one noisy value per fit, each of
    its tables a draw around it (post-processing of the fit), so a fit is one run."""
    rng = np.random.default_rng(seed)
    fits = (REPS, trials, 1)
    pos = 1.0 + _noise(mechanism, epsilon, rng, fits)
    neg = _noise(mechanism, epsilon, rng, fits)
    tables = (REPS, trials, generations)
    return (pos + rng.normal(0, SAMPLING_SD, tables), neg + rng.normal(0, SAMPLING_SD, tables))


def _exceed(bounds: list[float | None], epsilon: float) -> int:
    return sum(b is not None and b > epsilon for b in bounds)


def test_the_simulated_mechanisms_have_the_stated_epsilon():
    """The Gaussian σ spends exactly ε at δ on the pair (its exact profile), not less."""
    for eps in EPSILONS:
        sigma = gaussian_sigma_analytic(1.0, eps, GAUSS_DELTA)
        assert gaussian_delta(sigma, 1.0, eps) == pytest.approx(GAUSS_DELTA, rel=1e-6)
        assert gaussian_delta(sigma, 1.0, 0.95 * eps) > 1.01 * GAUSS_DELTA


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_bound_from_tables_exceeds_the_true_epsilon_at_most_5_percent(mechanism, epsilon):
    """All randomness in sampling (the certified Gaussian release): 300 runs a side."""
    pos, neg = _table_randomness(mechanism, epsilon, seed=int(10 * epsilon))
    bounds = _bounds(pos, neg, "table", _delta(mechanism))
    assert all(b is not None for b in bounds)
    assert _exceed(bounds, epsilon) <= ALLOWED


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_bound_from_fits_exceeds_the_true_epsilon_at_most_5_percent(mechanism, epsilon):
    """Noise drawn at fit time, enough fits for a bound (60 trials × 20 tables)."""
    pos, neg = _fit_randomness(mechanism, epsilon, seed=7 + int(10 * epsilon), trials=60,
                               generations=20)  # fmt: skip
    bounds = _bounds(pos, neg, "fit", _delta(mechanism))
    assert all(b is not None for b in bounds)
    assert _exceed(bounds, epsilon) <= ALLOWED


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_default_sizes_with_fit_time_noise_give_no_bound(mechanism):
    """3 fits a side cannot show any ε > 0: the bound is None, with the reason."""
    pos, neg = _fit_randomness(mechanism, 1.0, seed=3)
    for p, q in zip(pos[:20], neg[:20], strict=True):
        b = epsilon_lower_bound(
            independent_scores(p, "fit"), independent_scores(q, "fit"),
            delta=_delta(mechanism), unit="fit", tables_per_run=GENERATIONS,
        )  # fmt: skip
        assert b.epsilon is None and b.runs_pos == TRIALS
        assert "cannot show any ε > 0" in b.reason
    assert runs_needed(delta=_delta(mechanism)) > TRIALS


def test_the_check_catches_the_pooled_estimator():
    """Taking the 100 tables of each of 3 fits as 300 runs (what the audit used to do) exceeds
    the true ε = 1 far more often than 5 %: the validity check above can fail."""
    pos, neg = _fit_randomness("laplace", 1.0, seed=11)
    bounds = _bounds(pos, neg, "table", 0.0)
    assert _exceed(bounds, 1.0) > 3 * ALLOWED


def test_the_bound_has_power_with_many_runs():
    """ε = 2 Laplace with 2,000 runs a side: the bound is well above 0 (so the tests above are
    not passed by an estimator that always says 0), and still below 2."""
    pos, neg = _table_randomness("laplace", 2.0, seed=5, trials=1, generations=2000)
    bounds = _bounds(pos[:40], neg[:40], "table", 0.0)
    assert all(b is not None and 0.8 < b <= 2.0 for b in bounds), bounds


@pytest.mark.parametrize("unit", ["fit", "table"])
def test_the_estimator_here_is_the_one_the_game_rates_attacks_with(unit):
    """score_attack (the game's RATE job) on (trials, generations) IMs gives the same bound."""
    pos, neg = _fit_randomness("laplace", 2.0, seed=1, trials=30, generations=4)
    rated = score_attack("x", pos[0], neg[0], unit=unit, n_boot=10)
    assert rated.epsilon_lower_bound == _bounds(pos[:1], neg[:1], unit, 0.0)[0]
    assert rated.epsilon_bound.tables_per_run == (4 if unit == "fit" else 1)
    assert rated.n_pos == 120  # AUC and TPR over every table

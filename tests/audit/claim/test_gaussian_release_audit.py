"""The certified release M_G on a worst-case pair: exact profiles, certificate and audit."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from synthcert.audit.claim.gaussian_release import (
    GaussianReleaseAudit,
    PairProfile,
    RecordLaw,
    _outcome_log_pmfs,
    audit_gaussian_release,
    theorem_pairs,
    worst_table,
)
from synthcert.errors import ParameterError
from synthcert.privacy.bounded_exact import unbounded_divergence
from synthcert.privacy.budget import account
from synthcert.privacy.tradeoff import pld_tradeoff
from synthcert.synthesizers.gaussian import neighbour_margin

N, SIGMA, N_OUT, DELTA = 50, 0.3, 50, 1e-2


def _pair(n: int = N, sigma: float = SIGMA) -> tuple[RecordLaw, RecordLaw]:
    d = worst_table(n, sigma)
    d2 = np.append(d, 1.0)
    return RecordLaw(d.mean(), d.var()), RecordLaw(d2.mean(), d2.var())


def test_worst_table_sits_on_the_margin():
    values = worst_table(N, SIGMA)
    assert values.size == N and np.all(np.abs(values) <= 1)
    assert values.var() == pytest.approx(neighbour_margin(N, 1, SIGMA, "unbounded"), rel=1e-8)


def test_theorem_pairs_attain_the_certificates_renyi_divergence():
    """Theorem 3.1 is attained by the whitened pairs, so certificate − theorem pair = conversion."""
    cert = account(N, 1, SIGMA, n_out=1, delta=DELTA)
    a = cert.alpha
    worst = 0.0
    for (p, q), move in zip(theorem_pairs(N, 1, SIGMA), ("add", "remove"), strict=True):
        lp, lq = _outcome_log_pmfs(p, q, 5_000)
        forward = math.log(np.sum(np.exp(a * lp + (1 - a) * lq))) / (a - 1)
        assert forward == pytest.approx(unbounded_divergence(a, N - 1, 1, 4 / SIGMA, move), 1e-4)
        worst = max(worst, forward)
    assert worst == pytest.approx(cert.epsilon_rdp, rel=1e-4)


@pytest.mark.parametrize("n_out", [1, 20])
def test_pair_profile_matches_monte_carlo(n_out):
    """δ(ε) = E_q[(1 − e^{ε − L})₊] and the optimal test's TPR, both by simulation."""
    p, q = _pair()
    prof = PairProfile(p, q, n_out)
    rng = np.random.default_rng(n_out)
    reps = 400_000 // n_out
    yq = np.clip(rng.normal(q.mean, q.sd, (reps, n_out)), -1, 1)
    yp = np.clip(rng.normal(p.mean, p.sd, (reps, n_out)), -1, 1)
    lq = np.sum(q.log_density(yq) - p.log_density(yq), axis=1)  # loss of q against p, under q
    lp = np.sum(q.log_density(yp) - p.log_density(yp), axis=1)
    forward = prof.plds[0]  # lower = p, upper = q: the loss log q/p under q
    for eps in (0.1, 0.5, 1.0):
        mc = np.mean(np.clip(1 - np.exp(eps - lq), 0, None))
        sd = np.std(np.clip(1 - np.exp(eps - lq), 0, None)) / math.sqrt(reps)
        exact = float(forward.get_delta_for_epsilon(eps))
        assert abs(exact - mc) < 4 * sd + 2e-3 * max(exact, 1e-3), (eps, exact, mc)
    curve = pld_tradeoff(prof)
    for fpr in (0.01, 0.05, 0.2):
        thr = np.quantile(lp, 1 - fpr)
        tpr = np.mean(lq >= thr)
        assert abs((1 - float(curve(np.array(fpr)))) - tpr) < 0.01, (fpr, tpr)


def test_one_audit_is_ordered():
    """One audit at K = 5,000 (the default suite): ε_lb ≤ pair ≤ theorem pair ≤ certificate."""
    a = audit_gaussian_release(N, 1, SIGMA, N_OUT, DELTA, 5_000, 0)
    assert a.epsilon_lower_bound <= a.pair_epsilon < a.theorem_pair_epsilon
    assert a.theorem_pair_epsilon < a.certificate_epsilon
    assert a.epsilon_lower_bound >= 0.6 * a.ceiling > 0
    assert a.gap_conversion + a.gap_pair + a.gap_runs + a.gap_test == pytest.approx(
        a.certificate_epsilon - a.epsilon_lower_bound
    )


@pytest.mark.slow
def test_the_audit_stays_below_the_exact_profile_and_the_certificate():
    """At K = 5,000: ε_lb ≤ pair ε(δ) ≤ theorem pair ε(δ) ≤ certificate ε, and the audit's
    test reaches 0.8 of the ceiling (median of five audits).

    The issue's target, ε_lb ≥ 0.8 × the pair's exact ε(δ), is out of reach of *any* test
    with 5,000 runs here: the ceiling itself is 0.64 of the pair's ε(δ) (printed).
    """
    start = time.perf_counter()
    audits = [audit_gaussian_release(N, 1, SIGMA, N_OUT, DELTA, 5_000, seed) for seed in range(5)]
    a = audits[0]
    lbs = [x.epsilon_lower_bound for x in audits]
    print(
        f"\nM_G n={N} d=1 sigma={SIGMA} n_out={N_OUT} delta={DELTA}, K=5000: certificate "
        f"{a.certificate_epsilon:.3f} (alpha {a.certificate_alpha:.3f}), theorem pair "
        f"{a.theorem_pair_epsilon:.3f}, audited pair {a.pair_epsilon:.3f} "
        f"(u^2 {a.u_squared:.2f} of tau {a.tau:.2f}), ceiling {a.ceiling:.3f}, eps_lb "
        f"{np.round(lbs, 3).tolist()} (median/pair {np.median(lbs) / a.pair_epsilon:.2f}, "
        f"median/ceiling {np.median(lbs) / a.ceiling:.2f}); gaps: conversion "
        f"{a.gap_conversion:.3f}, pair {a.gap_pair:.3f}, runs {a.gap_runs:.3f}, test "
        f"{a.gap_test:.3f}; {time.perf_counter() - start:.1f} s for five audits"
    )
    for x in audits:
        assert x.epsilon_lower_bound <= x.pair_epsilon
    assert a.ceiling < a.pair_epsilon < a.theorem_pair_epsilon < a.certificate_epsilon
    assert np.median(lbs) >= 0.8 * a.ceiling
    assert GaussianReleaseAudit.from_dict(a.to_dict()) == a


def test_per_run_seeds_and_refusals():
    a = audit_gaussian_release(N, 1, SIGMA, 5, DELTA, 60, 3, per_run_seeds=True)
    assert a.epsilon_lower_bound is not None and a.epsilon_lower_bound <= a.pair_epsilon
    with pytest.raises(ParameterError):
        audit_gaussian_release(N, 2, SIGMA, 5, DELTA, 200, 0)

"""The certified release M_G on a worst-case pair: exact profiles, certificate and audit."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from synthcert.audit.claim.gaussian_release import (
    PROFILE_LIMIT,
    GaussianReleaseAudit,
    PairProfile,
    ProductLaw,
    RecordLaw,
    _fitted_law,
    _outcome_log_pmfs,
    audit_gaussian_release,
    release_scores,
    theorem_pairs,
    worst_design,
    worst_table,
)
from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.bounded_exact import unbounded_divergence
from synthcert.privacy.budget import account
from synthcert.privacy.tradeoff import pld_tradeoff
from synthcert.synthesizers.gaussian import neighbour_margin

N, SIGMA, N_OUT, DELTA = 50, 0.3, 50, 1e-2


def test_worst_table_sits_on_the_margin():
    values = worst_table(N, SIGMA)
    assert values.size == N and np.all(np.abs(values) <= 1)
    assert values.var() == pytest.approx(neighbour_margin(N, 1, SIGMA, "unbounded"), rel=1e-8)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_theorem_pairs_attain_the_certificates_renyi_divergence(d):
    """Theorem 3.1 is attained by the whitened pairs, so certificate − theorem pair = conversion
    (in d ≥ 2 the pair's Rényi divergence is the sum over its d independent axes)."""
    cert = account(N, d, SIGMA, n_out=1, delta=DELTA)
    a = cert.alpha
    worst = 0.0
    for (p, q), move in zip(theorem_pairs(N, d, SIGMA), ("add", "remove"), strict=True):
        forward = 0.0
        for pj, qj in zip(p.factors, q.factors, strict=True):
            lp, lq = _outcome_log_pmfs(pj, qj, 5_000)
            forward += math.log(np.sum(np.exp(a * lp + (1 - a) * lq))) / (a - 1)
        exact = unbounded_divergence(a, N - 1, d, 4 * d / SIGMA, move)
        # binning is post-processing: it can only lower the divergence, by < 3e-4 here
        assert exact * (1 - 3e-4) < forward <= exact * (1 + 1e-9)
        worst = max(worst, forward)
    assert worst == pytest.approx(cert.epsilon_rdp, rel=3e-4)


@pytest.mark.parametrize("d", [2, 3, 6])
def test_the_design_meets_the_margin_with_a_diagonal_covariance(d):
    """D in d ≥ 2: the first coordinate at the margin, the others orthogonal and above it."""
    table = worst_design(N, d, SIGMA)
    cov = np.cov(table.T, bias=True)
    need = neighbour_margin(N, d, SIGMA, "unbounded")
    assert table.shape == (N, d) and np.all(np.abs(table) <= 1)
    assert np.abs(cov - np.diag(np.diag(cov))).max() < 1e-15
    assert cov[0, 0] == pytest.approx(need, rel=1e-8) and np.all(np.diag(cov)[1:] > need)
    assert np.linalg.eigvalsh(cov).min() >= need and np.allclose(table[:, 1:].mean(0), 0)
    # the canary (+1, 0, ..., 0) leaves the others' means and cross-covariances unchanged
    wide = np.vstack([table, np.eye(d)[0]])
    cov2 = np.cov(wide.T, bias=True)
    assert np.abs(cov2 - np.diag(np.diag(cov2))).max() < 1e-15
    assert np.allclose(np.diag(cov2)[1:], N / (N + 1) * np.diag(cov)[1:])
    with pytest.raises(AssumptionError):
        worst_design(12, 3, SIGMA)  # the margin exceeds what 12 rows can carry


def _pair_d(d: int, n: int = N, sigma: float = SIGMA) -> tuple[ProductLaw, ProductLaw]:
    d1 = worst_design(n, d, sigma)
    d2 = np.vstack([d1, np.eye(d)[0]])
    return tuple(  # type: ignore[return-value]
        ProductLaw(tuple(RecordLaw(m, v) for m, v in zip(x.mean(0), x.var(0), strict=True)))
        for x in (d1, d2)
    )


def _draw(law: ProductLaw, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    cols = [rng.normal(f.mean, f.sd, shape) for f in law.factors]
    return np.clip(np.stack(cols, axis=-1), -1, 1)


@pytest.mark.parametrize(("n_out", "d"), [(1, 1), (20, 1), (5, 2)])
def test_pair_profile_matches_monte_carlo(n_out, d):
    """δ(ε) = E_q[(1 − e^{ε − L})₊] and the optimal test's TPR, both by simulation; in d = 2
    the profile composes the coordinates' PLDs, the simulation draws whole rows."""
    p, q = _pair_d(d)
    prof = PairProfile(p, q, n_out)
    rng = np.random.default_rng(n_out)
    reps = 400_000 // n_out
    yq = _draw(q, rng, (reps, n_out))
    yp = _draw(p, rng, (reps, n_out))
    lq = np.sum(q.log_density(yq) - p.log_density(yq), axis=1)  # loss of q against p, under q
    lp = np.sum(q.log_density(yp) - p.log_density(yp), axis=1)
    forward = prof.plds[0]  # lower = p, upper = q: the loss log q/p under q
    for eps in (0.1, 0.5, 1.0) if d == 1 else (0.05, 0.2, 0.5):
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
    with 5,000 runs here: the ceiling itself is 0.64 of the pair's ε(δ) (printed); 10⁵ runs
    reach it (:func:`test_many_batched_runs_reach_the_target`).
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


@pytest.mark.slow
def test_many_batched_runs_reach_the_target():
    """Issue 26's target: ε_lb ≥ 0.8 × the pair's exact ε(δ), here with K = 10⁵ releases per
    side (one batched draw per side, ~5 s an audit), for three seeds; never above it."""
    start = time.perf_counter()
    audits = [audit_gaussian_release(N, 1, SIGMA, N_OUT, DELTA, 100_000, seed) for seed in range(3)]
    lbs = [a.epsilon_lower_bound for a in audits]
    exact = audits[0].pair_epsilon
    print(
        f"\nM_G K=100000: pair {exact:.3f}, ceiling {audits[0].ceiling:.3f}, eps_lb "
        f"{np.round(lbs, 3).tolist()} (/pair {np.round(np.array(lbs) / exact, 3).tolist()}); "
        f"certificate {audits[0].certificate_epsilon:.3f}; {time.perf_counter() - start:.1f} s"
    )
    for lb in lbs:
        assert 0.8 * exact <= lb <= exact


def test_per_run_seeds_and_refusals():
    a = audit_gaussian_release(N, 1, SIGMA, 5, DELTA, 60, 3, per_run_seeds=True)
    assert a.epsilon_lower_bound is not None and a.epsilon_lower_bound <= a.pair_epsilon
    with pytest.raises(ParameterError):
        audit_gaussian_release(N, 0, SIGMA, 5, DELTA, 200, 0)


def _fitted(d: int, n_out_rows: int = 0):
    """The two fitted synthesizers of the audit's pair (as audit_gaussian_release fits them)."""
    import pandas as pd

    from synthcert.data.schema import NumericColumn, Schema
    from synthcert.synthesizers.gaussian import GaussianSynthesizer

    names = [f"x{j}" for j in range(d)]
    schema = Schema(tuple(NumericColumn(c, -1.0, 1.0) for c in names))
    table = worst_design(N, d, SIGMA)
    out = []
    for rows in (table, np.vstack([table, np.eye(d)[0]])):
        s = GaussianSynthesizer(schema, sigma=SIGMA, min_rows=N, workers=1, chunk_rows=97)
        out.append(s.fit(pd.DataFrame(rows, columns=names)))
    return out


def test_batched_releases_are_the_synthesizers_own_rows_and_law():
    """One draw of runs·n_out rows cut into blocks: the rows are exactly those ``sample``
    returns (decoded: the identity on [-1, 1]), chunk boundaries (97 rows) falling inside
    releases; and the block scores have the law of per-run releases (two-sample KS)."""
    from scipy import stats

    small, big = _fitted(2)
    p, q = _fitted_law(small), _fitted_law(big)
    runs, n_out = 300, 7
    seed = np.random.SeedSequence(5)
    scores = release_scores(big, n_out, runs, seed, p, q)
    rows = big.sample(runs * n_out, seed=np.random.SeedSequence(5)).to_numpy(np.float64)
    by_hand = np.sum((q.log_density(rows) - p.log_density(rows)).reshape(runs, n_out), axis=1)
    assert np.allclose(scores, by_hand, rtol=0, atol=1e-9)
    batched = release_scores(big, n_out, 800, np.random.SeedSequence(6), p, q)
    single = release_scores(big, n_out, 800, np.random.SeedSequence(7), p, q, per_run_seeds=True)
    assert stats.ks_2samp(batched, single).pvalue > 1e-3


def test_one_audit_in_two_dimensions_is_ordered():
    """d = 2 (the release gate's pair): ε_lb ≤ ceiling-ish ≤ pair ≤ theorem pair ≤ certificate."""
    a = audit_gaussian_release(N, 2, SIGMA, N_OUT, DELTA, 2_000, 0)
    assert a.other_variance > neighbour_margin(N, 2, SIGMA, "unbounded")
    assert 0 < a.epsilon_lower_bound <= a.pair_epsilon < a.theorem_pair_epsilon
    assert a.theorem_pair_epsilon < a.certificate_epsilon
    assert a.ceiling < a.pair_epsilon and a.profile_reason is None
    assert GaussianReleaseAudit.from_dict(a.to_dict()) == a


def test_profiles_are_left_out_with_a_reason_beyond_the_limit():
    a = audit_gaussian_release(N, 2, SIGMA, PROFILE_LIMIT // 2 + 1, DELTA, 4, 0)
    assert a.pair_epsilon is None and a.ceiling is None and a.theorem_pair_epsilon is None
    assert a.gap_runs is None and "not reported" in a.profile_reason
    assert a.epsilon_lower_bound is not None


def test_audit_claim_takes_the_dimension_and_can_skip_the_profiles():
    """``run_claim_audit("gaussian", params={"d": 2, ...})``: the claim is the certificate at
    d = 2; ``profiles=False`` (the release gate) leaves the ceiling None with the reason."""
    from synthcert.audit.claim.run import run_claim_audit

    params = {"n": N, "d": 2, "sigma": SIGMA, "n_out": 10}
    full = run_claim_audit("gaussian", None, epsilon=None, delta=DELTA, params=params, runs=50)
    cert = account(N, 2, SIGMA, n_out=10, delta=DELTA)
    assert full.result.claimed_epsilon == pytest.approx(float(cert.epsilon), rel=1e-9)
    assert full.result.ceiling is not None and full.result.ceiling < full.result.claimed_epsilon
    bare = run_claim_audit(
        "gaussian", None, epsilon=None, delta=DELTA, params={**params, "profiles": False}, runs=50
    )
    assert bare.result.ceiling is None and "profiles=False" in bare.result.reason
    assert bare.result.epsilon_lower_bound == full.result.epsilon_lower_bound  # same runs
    with pytest.raises(ParameterError, match="takes --param n, d, sigma"):
        run_claim_audit("gaussian", None, epsilon=None, params={"rows": 3}, runs=50)

"""estimate_bounds on simulated mechanisms whose ε and μ are known (issue 26, "Done when").

Validity: over REPS repetitions of K runs per side, the reported lower bound may exceed the
true ε (or μ) in at most 5 % of repetitions (the stated confidence). A count of exceedances
of a valid 95 % estimator is stochastically at most Bin(REPS, 0.05), so the tests allow
ALLOW = the 0.999 quantile of Bin(REPS, 0.05) (21 of 200): a valid estimator fails a case
with probability < 10⁻³ (the seeds are fixed, so a run is reproducible).

Most repetitions of Laplace and Gaussian audits at K = 1,000 stay well below the truth (the
ceiling is 0.73 ε for Laplace at ε = 1), so an exceedance count there cannot detect a slightly
over-confident interval. Two checks that can: randomized response, whose optimal test reaches
the pure-ε curve at one point (its bound sits just below ε, so an interval that covers less
than it claims shows up as exceedances), and the coverage of the confidence box itself:
the chosen test's true (FPR, TPR), computed from the noise distribution, must lie in
[0, fpr_upper] × [tpr_lower, 1] in ≥ 95 % of repetitions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import dp_accounting
import numpy as np
import pytest
from scipy import stats

from synthcert.audit.claim.estimate import (
    BoundEstimate,
    a_priori_test,
    ceiling,
    ceiling_from_event,
    estimate_bounds,
    evaluate_test,
)
from synthcert.errors import ParameterError
from synthcert.privacy.mechanisms import (
    exponential_mechanism,
    gaussian_mechanism,
    gaussian_sigma_analytic,
    laplace_mechanism,
)
from synthcert.privacy.tradeoff import gdp_tradeoff

CONFIDENCE = 0.95
REPS = 200
K = 1_000
ALLOW = int(stats.binom.isf(1e-3, REPS, 1 - CONFIDENCE))
GAUSS_DELTA = 1e-2  # the anchor's δ; the Gaussian is calibrated to ε exactly at this δ


class Mechanism:
    """A mechanism on the pair (0 without the canary, 1 with it): scores are its outputs."""

    def __init__(self, kind: str, eps: float) -> None:
        self.kind, self.eps = kind, eps
        self.delta = GAUSS_DELTA if kind == "gaussian" else 0.0
        self.mu = (
            1.0 / gaussian_sigma_analytic(1.0, eps, GAUSS_DELTA) if kind == "gaussian" else None
        )
        self.p = math.exp(eps) / (1 + math.exp(eps))  # randomized response: P[report truth]

    def draw(
        self, rng: np.random.Generator, shape: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.kind == "laplace":
            return 1.0 + rng.laplace(0, 1 / self.eps, shape), rng.laplace(0, 1 / self.eps, shape)
        if self.kind == "gaussian":
            return self.mu + rng.standard_normal(shape), rng.standard_normal(shape)
        return (rng.random(shape) < self.p) * 1.0, (rng.random(shape) >= self.p) * 1.0

    def cdf(self, x: float, shift: float) -> float:
        """P[score ≤ x] on the side whose mean is ``shift``."""
        if self.kind == "laplace":
            return float(stats.laplace.cdf(x - shift, scale=1 / self.eps))
        if self.kind == "gaussian":
            return float(stats.norm.cdf(x - shift * self.mu))
        one = self.p if shift else 1 - self.p  # P[score = 1]
        return 0.0 if x < 0 else (1 - one if x < 1 else 1.0)

    def true_rates(self, est: BoundEstimate) -> tuple[float, float]:
        """(FPR, TPR) of the chosen test under the true distributions."""
        t = est.threshold
        if est.direction > 0:  # P[score ≥ t]
            below = t - 1e-12 if self.kind == "rr" else t
            return 1 - self.cdf(below, 0), 1 - self.cdf(below, 1)
        return self.cdf(t, 0), self.cdf(t, 1)


CASES = [Mechanism(kind, eps) for kind in ("laplace", "gaussian", "rr") for eps in (0.5, 1.0, 2.0)]


def simulate(mech: Mechanism, runs: int, reps: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    ins, outs = mech.draw(rng, (reps, runs))  # all runs of all repetitions at once
    eps_over = mu_over = box_miss = 0
    lbs = []
    for r in range(reps):
        est = estimate_bounds(
            ins[r], outs[r], delta=mech.delta, gaussian=mech.mu is not None, seed=r
        )
        lbs.append(est.epsilon_lower_bound)
        eps_over += est.epsilon_lower_bound > mech.eps
        mu_over += mech.mu is not None and est.mu_lower_bound > mech.mu
        fpr, tpr = mech.true_rates(est)
        box_miss += fpr > est.fpr_upper or tpr < est.tpr_lower
    return {
        "eps_over": eps_over,
        "mu_over": mu_over,
        "box_miss": box_miss,
        "median_lb": float(np.median(lbs)),
    }


@pytest.mark.parametrize("mech", CASES, ids=lambda m: f"{m.kind}-{m.eps}")
def test_lower_bound_exceeds_truth_at_most_at_the_stated_rate(mech):
    start = time.perf_counter()
    got = simulate(mech, K, REPS, seed=int(mech.eps * 10) + len(mech.kind))
    print(
        f"\n{mech.kind} eps={mech.eps} mu={mech.mu}: over {REPS} repetitions of K={K}: "
        f"eps_lb > eps {got['eps_over']}, mu_lb > mu {got['mu_over']}, box misses "
        f"{got['box_miss']} (allowed {ALLOW}); median eps_lb {got['median_lb']:.3f} "
        f"({time.perf_counter() - start:.1f} s)"
    )
    assert got["eps_over"] <= ALLOW
    assert got["mu_over"] <= ALLOW
    assert got["box_miss"] <= ALLOW


def simulate_a_priori(mech: Mechanism, runs: int, reps: int, seed: int) -> dict[str, float]:
    """The a priori rule: the test is fixed on a simulation from its own seed, then every one
    of the ``runs`` per side of each repetition evaluates it."""
    sim_in, sim_out = mech.draw(np.random.default_rng(seed + 10_000), (50_000,))
    gaussian = mech.mu is not None
    t, direction = a_priori_test(sim_in, sim_out, runs=runs, delta=mech.delta, gaussian=gaussian)
    ins, outs = mech.draw(np.random.default_rng(seed), (reps, runs))
    eps_over = mu_over = box_miss = 0
    lbs = []
    for r in range(reps):
        est = evaluate_test(
            ins[r], outs[r], threshold=t, direction=direction, delta=mech.delta,
            gaussian=gaussian,
        )  # fmt: skip
        lbs.append(est.epsilon_lower_bound)
        eps_over += est.epsilon_lower_bound > mech.eps
        mu_over += gaussian and est.mu_lower_bound > mech.mu
        fpr, tpr = mech.true_rates(est)
        box_miss += fpr > est.fpr_upper or tpr < est.tpr_lower
    return {
        "eps_over": eps_over,
        "mu_over": mu_over,
        "box_miss": box_miss,
        "median_lb": float(np.median(lbs)),
    }


@pytest.mark.parametrize("mech", CASES, ids=lambda m: f"{m.kind}-{m.eps}")
def test_a_priori_rule_exceeds_truth_at_most_at_the_stated_rate(mech):
    """The white-box rule of audit-claim: threshold fixed before the runs, all runs evaluate."""
    got = simulate_a_priori(mech, K, REPS, seed=int(mech.eps * 10) + len(mech.kind) + 500)
    print(
        f"\na priori {mech.kind} eps={mech.eps}: eps_lb > eps {got['eps_over']}, mu_lb > mu "
        f"{got['mu_over']}, box misses {got['box_miss']} (allowed {ALLOW}); median eps_lb "
        f"{got['median_lb']:.3f}"
    )
    assert got["eps_over"] <= ALLOW
    assert got["mu_over"] <= ALLOW
    assert got["box_miss"] <= ALLOW


def test_a_priori_rule_is_stronger_than_the_split():
    """All K runs evaluate the fixed test: RR at ε = 1 gets closer to ε than with the split."""
    mech = Mechanism("rr", 1.0)
    fixed = simulate_a_priori(mech, K, 50, seed=7)["median_lb"]
    split = simulate(mech, K, 50, seed=7)["median_lb"]
    assert split < fixed < 1.0


def test_randomized_response_bound_sits_just_below_epsilon():
    """The check above is sharp for RR: its typical bound is close to ε, not far below it."""
    got = simulate(Mechanism("rr", 1.0), K, 50, seed=7)
    assert 0.8 < got["median_lb"] < 1.0


def _power(
    draw: Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]],
    *,
    reps: int,
    delta: float = 0.0,
    gaussian: bool = False,
) -> tuple[list[float], list[float | None]]:
    eps, mus = [], []
    for r in range(reps):
        ins, outs = draw(np.random.default_rng(1000 + r))
        est = estimate_bounds(ins, outs, delta=delta, gaussian=gaussian, seed=r)
        eps.append(est.epsilon_lower_bound)
        mus.append(est.mu_lower_bound)
    return eps, mus


def test_laplace_reaches_three_quarters_of_epsilon_at_5000_runs():
    """Issue 26 target for single mechanisms at ε = 1: ε_lb ≥ 0.75 ε with K = 5,000."""
    eps, runs = 1.0, 5_000
    cont, _ = _power(
        lambda g: (1 + g.laplace(0, 1 / eps, runs), g.laplace(0, 1 / eps, runs)), reps=10
    )

    def project_laplace(g: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        ones, zeros = np.ones(runs), np.zeros(runs)  # one coordinate per run: i.i.d. noise
        return (
            laplace_mechanism(ones, 1.0, eps, integer=True, rng=g),
            laplace_mechanism(zeros, 1.0, eps, integer=True, rng=g),
        )

    disc, _ = _power(project_laplace, reps=10)
    cap = ceiling_from_event(
        dp_accounting.LaplaceDpEvent(noise_multiplier=1 / eps), runs=runs, delta=0.0
    )
    print(
        f"\nLaplace eps=1, K=5000: continuous eps_lb/eps median {np.median(cont):.3f} "
        f"(min {min(cont):.3f}, ceiling {cap:.3f}); synthcert laplace_mechanism (discrete) "
        f"median {np.median(disc):.3f} (min {min(disc):.3f})"
    )
    assert np.median(cont) >= 0.75 * eps
    assert np.median(disc) >= 0.75 * eps
    assert max(cont + disc) <= eps


@pytest.mark.slow
def test_project_gaussian_and_exponential_at_5000_runs():
    """synthcert's gaussian_mechanism (ρ = 0.5, so μ = 1) and exponential_mechanism at ε = 1."""
    runs = 5_000
    rho, mu, delta = 0.5, 1.0, 1e-5

    def gauss(g: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return (
            gaussian_mechanism(np.ones(runs), 1.0, rho=rho, integer=True, rng=g),
            gaussian_mechanism(np.zeros(runs), 1.0, rho=rho, integer=True, rng=g),
        )

    g_eps, g_mu = _power(gauss, reps=5, delta=delta, gaussian=True)
    true_eps = dp_accounting.pld.PLDAccountant().compose(dp_accounting.GaussianDpEvent(1.0))
    true_eps = true_eps.get_epsilon(delta)  # the continuous profile bounds the discrete one
    cap_mu = ceiling(gdp_tradeoff(mu), runs=runs, delta=delta, gaussian=True)
    print(
        f"\nsynthcert gaussian_mechanism mu=1, K=5000: mu_lb median {np.median(g_mu):.3f} "
        f"(ceiling {cap_mu:.3f}); eps_lb at delta=1e-5 median {np.median(g_eps):.3f} "
        f"of eps(1e-5) <= {true_eps:.3f}"
    )
    assert max(g_mu) <= mu and max(g_eps) <= true_eps
    assert np.median(g_mu) >= 0.75 * mu

    # The exponential mechanism (logits ε s/(2Δ)) on its worst-case pair of two candidates:
    # the canary moves candidate 0's score from 0 to −Δ and candidate 1's from 3Δ to 4Δ. Its
    # output is binary, P_out[0] = σ(−3ε/2), P_in[0] = σ(−5ε/2): the privacy loss of this
    # pair is 0.87 at ε = 1 (ε is reached only as scores diverge and probabilities vanish).
    eps = 1.0
    out_scores, in_scores = np.array([0.0, 3.0]), np.array([-1.0, 4.0])

    def expo(g: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        draw = [exponential_mechanism(in_scores, 1.0, eps, rng=g) for _ in range(runs)]
        other = [exponential_mechanism(out_scores, 1.0, eps, rng=g) for _ in range(runs)]
        return np.array(draw, float), np.array(other, float)

    e_eps, _ = _power(expo, reps=3)
    sig = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    p_in, p_out = sig(-5 * eps / 2), sig(-3 * eps / 2)  # P[output 0]
    pair = math.log(max(p_out / p_in, (1 - p_in) / (1 - p_out)))

    def binary_curve(a: np.ndarray) -> np.ndarray:  # guess IN on output 1: FPR 1 − p_out
        return np.interp(a, [0.0, 1 - p_out, 1.0], [1.0, p_in, 0.0])

    cap = ceiling(binary_curve, runs=runs, delta=0.0)
    print(
        f"synthcert exponential_mechanism eps=1, K=5000: eps_lb {np.round(e_eps, 3).tolist()} "
        f"(claim 1; this pair's own eps {pair:.3f}; ceiling {cap:.3f})"
    )
    assert max(e_eps) <= pair
    assert np.median(e_eps) >= 0.8 * cap


def test_direction_and_degenerate_inputs():
    rng = np.random.default_rng(3)
    ins, outs = -1.0 - rng.standard_normal(400), rng.standard_normal(400)
    est = estimate_bounds(ins, outs, delta=0.0, gaussian=True)
    assert est.direction == -1 and est.epsilon_lower_bound > 0 and est.mu_lower_bound > 0
    assert est == estimate_bounds(ins, outs, delta=0.0, gaussian=True)  # seeded: repeatable
    assert estimate_bounds(ins, outs, delta=0.0).mu_lower_bound is None
    void = estimate_bounds(ins[:1], outs, delta=0.0)
    assert void.epsilon_lower_bound is None and void.reason
    assert BoundEstimate.from_dict(void.to_dict()).reason == void.reason
    same = estimate_bounds(outs, outs, delta=0.0)  # no difference: nothing proved
    assert same.epsilon_lower_bound < 0.3
    with pytest.raises(ParameterError):
        estimate_bounds(np.array([np.nan, 1.0]), outs, delta=0.0)
    with pytest.raises(ParameterError):
        estimate_bounds(ins, outs, delta=1.0)


@pytest.mark.slow
@pytest.mark.parametrize("mech", CASES, ids=lambda m: f"{m.kind}-{m.eps}")
def test_validity_at_5000_runs(mech):
    got = simulate(mech, 5_000, REPS, seed=99)
    print(f"\n{mech.kind} eps={mech.eps} K=5000: {got}")
    assert got["eps_over"] <= ALLOW and got["mu_over"] <= ALLOW and got["box_miss"] <= ALLOW


def test_jeffreys_variant_is_narrower_and_near_nominal():
    """interval="jeffreys": Beta(k+½, n−k+½) quantiles, never wider than Clopper–Pearson here,
    with coverage near 95 % (not guaranteed; measured 93.5-97 % over 400 repetitions)."""
    rng = np.random.default_rng(5)
    ins, outs = Mechanism("rr", 1.0).draw(rng, (K,))
    cp = estimate_bounds(ins, outs, delta=0.0)
    jf = estimate_bounds(ins, outs, delta=0.0, interval="jeffreys")
    assert jf.interval == "jeffreys" and cp.interval == "clopper-pearson"
    assert jf.fpr_upper <= cp.fpr_upper and jf.tpr_lower >= cp.tpr_lower
    assert cp.epsilon_lower_bound <= jf.epsilon_lower_bound < 1.0
    with pytest.raises(ParameterError):
        estimate_bounds(ins, outs, delta=0.0, interval="wald")


@pytest.mark.parametrize("kind", ["gdp", "rr"])
def test_fisher_region_rejects_a_tight_truth_at_most_at_the_stated_rate(kind):
    """Fisher's combination (estimate.fisher_bounds): on a pair whose test sits exactly on the
    true trade-off curve (a 0.5-GDP threshold test; randomized response at ε = 1), the truth
    is rejected (the bound exceeds it) in at most 1 − confidence of the audits."""
    from synthcert.audit.claim.estimate import _fisher_rejects, fisher_level

    runs, reps, c = 300, 800, fisher_level(0.95)
    if kind == "gdp":
        mu, thr = 0.5, 1.0
        a_true, t_true = stats.norm.sf(thr), stats.norm.sf(thr - mu)

        def curve(a):
            return stats.norm.cdf(stats.norm.ppf(a) + mu)
    else:
        e = 1.0
        a_true, t_true = 1.0 / (1.0 + np.exp(e)), np.exp(e) / (1.0 + np.exp(e))

        def curve(a):
            return np.minimum(np.minimum(np.exp(e) * a, 1.0 - np.exp(-e) * (1.0 - a)), 1.0)

    rng = np.random.default_rng(31)
    fps, tps = rng.binomial(runs, a_true, reps), rng.binomial(runs, t_true, reps)
    over = sum(
        _fisher_rejects(int(f), runs, int(t), runs, curve, c) for f, t in zip(fps, tps, strict=True)
    )
    allowed = reps * 0.05 + 3.0 * np.sqrt(reps * 0.05 * 0.95)
    print(f"\nfisher {kind}: truth rejected in {over} of {reps} (allowed {allowed:.0f})")
    assert over <= allowed


def test_fisher_bounds_are_tighter_than_the_box_on_the_same_counts():
    from synthcert.audit.claim.estimate import fisher_bounds

    runs, mu = 2000, 0.6
    fp = int(0.1 * runs)
    tp = int(stats.norm.cdf(stats.norm.ppf(0.1) + mu) * runs)
    box = evaluate_test(
        np.r_[np.ones(tp), np.zeros(runs - tp)], np.r_[np.ones(fp), np.zeros(runs - fp)],
        threshold=0.5, direction=1, delta=0.0, gaussian=True,
    )  # fmt: skip
    eps, mu_lb = fisher_bounds(fp, runs, tp, runs, delta=0.0)
    assert box.mu_lower_bound < mu_lb < mu
    assert box.epsilon_lower_bound < eps

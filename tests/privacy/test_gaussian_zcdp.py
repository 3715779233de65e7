"""zCDP of univariate Gaussian synthesis (seed 004 §4) and the multivariate bridge to seed 000."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from synthcert.errors import AssumptionError
from synthcert.privacy import gaussian_release as _inherent
from synthcert.privacy import gaussian_zcdp as gz

# ----------------------------------------------------------------------------- §4.1 plug-in


def test_figure1_setting_gives_15625_records():
    # n = 1,000, clamp to [-4, 4], sigma = 1, rho = 0.5 (seed 004, Figure 1).
    assert gz.plugin_known_variance_records(0.5, 4.0, 1000, 1, 1.0) == 15625
    assert gz.plugin_known_variance_rho(4.0, 1000, 15625, 1, 1.0) == pytest.approx(0.5, rel=1e-15)
    assert gz.plugin_known_variance_rho(4.0, 1000, 15626, 1, 1.0) > 0.5


def test_plugin_rho_is_the_gaussian_mechanism_on_the_mean():
    # n_syn draws from N(mean, sigma^2) release the mean with variance sigma^2/n_syn; the
    # Gaussian mechanism with sensitivity Delta = 2b/n and variance Delta^2/(2 rho) matches.
    b, n, k, sigma = 2.5, 700, 300, 0.8
    delta_mean = 2 * b / n
    rho_gm = delta_mean**2 / (2 * sigma**2 / k)
    assert gz.plugin_known_variance_rho(b, n, k, 1, sigma) == pytest.approx(rho_gm, rel=1e-12)
    # m copies of k records cost the same as one copy of m*k records (footnote 3).
    assert gz.plugin_known_variance_rho(b, n, k, 7, sigma) == pytest.approx(
        gz.plugin_known_variance_rho(b, n, 7 * k, 1, sigma), rel=1e-12
    )


@settings(max_examples=200, deadline=None)
@given(
    rho=st.floats(1e-3, 50),
    b=st.floats(0.1, 10),
    n=st.integers(2, 10**6),
    m=st.integers(1, 20),
    sigma=st.floats(0.05, 10),
)
def test_plugin_records_is_the_floor(rho, b, n, m, sigma):
    assume(2 * n**2 * rho * sigma**2 / (4 * b**2 * m) < 1e10)  # within float resolution
    k = gz.plugin_known_variance_records(rho, b, n, m, sigma)
    assert k >= 0
    if k > 0:
        assert gz.plugin_known_variance_rho(b, n, k, m, sigma) <= rho * (1 + 1e-12)
    assert gz.plugin_known_variance_rho(b, n, k + 1, m, sigma) > rho


# ----------------------------------------------------------------------------- §4.2 Bayesian


def test_bayesian_two_step_has_the_1_plus_1_over_n_factor():
    b, n, k, m, s = 4.0, 1000, 15625, 1, 1.0
    assert gz.bayesian_two_step_rho(b, n, k, m, s) == pytest.approx(0.5 / 1.001, rel=1e-12)


def test_post_processing_loss_is_the_corrected_one():
    # Posterior draw mu* ~ N(mean, sigma^2/n) as a Gaussian mechanism with sensitivity 2b/n:
    # rho = (2b/n)^2 / (2 sigma^2 / n) = 4 b^2 / (2 n sigma^2), NOT the printed 4 b^2 n/(2 sigma^2).
    b, n, s = 4.0, 1000, 1.0
    rho = gz.bayesian_post_processing_rho(b, n, 1, s)
    assert rho == pytest.approx((2 * b / n) ** 2 / (2 * s**2 / n), rel=1e-12)
    assert rho == pytest.approx(0.032)
    printed = 4 * b**2 * n / (2 * s**2)
    assert printed / rho == pytest.approx(n**2)
    assert gz.bayesian_post_processing_rho(b, n, 5, s) == pytest.approx(5 * rho)


def test_joint_rho_matches_the_explicit_covariance():
    # One Bayesian copy is jointly N(mean 1, sigma^2 I + sigma^2/n 1 1^T); a mean shift of
    # Delta = 2b/n gives rho = Delta^2 1^T Sigma^-1 1 / 2 (computed here by a linear solve).
    b, n, k, s = 1.5, 40, 25, 0.7
    cov = s**2 * np.eye(k) + (s**2 / n) * np.ones((k, k))
    ones = np.ones(k)
    rho_direct = (2 * b / n) ** 2 * ones @ np.linalg.solve(cov, ones) / 2
    assert gz.bayesian_joint_rho(b, n, k, 1, s) == pytest.approx(rho_direct, rel=1e-10)
    assert gz.bayesian_joint_rho(b, n, k, 3, s) == pytest.approx(3 * rho_direct, rel=1e-10)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 10**5), k=st.integers(1, 10**6), m=st.integers(1, 10))
def test_joint_is_below_both_paper_accountings(n, k, m):
    joint = gz.bayesian_joint_rho(1.0, n, k, m, 1.0)
    assert joint <= gz.bayesian_two_step_rho(1.0, n, k, m, 1.0) * (1 + 1e-12)
    assert joint < gz.bayesian_post_processing_rho(1.0, n, m, 1.0)


def test_smaller_of_the_two_paper_accountings_is_reported():
    # With each copy drawing its own mean, post-processing wins iff n_syn > n + 1.
    b, n, s = 4.0, 100, 1.0
    rho, name, rhos = gz.bayesian_known_variance_rho(b, n, 100, 2, s, include_joint=False)
    assert name == "two-step" and rho == rhos["two-step"] < rhos["post-processing"]
    rho, name, rhos = gz.bayesian_known_variance_rho(b, n, 102, 2, s, include_joint=False)
    assert name == "post-processing" and rho == rhos["post-processing"] < rhos["two-step"]
    rho, name, rhos = gz.bayesian_known_variance_rho(b, n, 102, 2, s)
    assert name == "joint" and rho == min(rhos.values())


def test_bayesian_records_inverse():
    b, n, m, s = 4.0, 1000, 1, 1.0
    k = gz.bayesian_known_variance_records(0.03, b, n, m, s)
    assert gz.bayesian_joint_rho(b, n, k, m, s) <= 0.03
    assert gz.bayesian_joint_rho(b, n, k + 1, m, s) > 0.03
    # Budget at or above the post-processing figure: any number of records.
    assert math.isinf(gz.bayesian_known_variance_records(0.032, b, n, m, s))


# ------------------------------------------------------------------------- §4.3 unknown variance


@settings(max_examples=200, deadline=None)
@given(
    x=st.floats(1e-3, 20),
    v=st.floats(0.05, 5),
    shift=st.floats(-0.9, 3),
    dof=st.integers(1, 50_000),
)
def test_gamma_loss_equals_difference_of_scipy_logpdfs(x, v, shift, dof):
    v2 = v * (1 + shift)
    a = (dof) / 2
    expected = stats.gamma.logpdf(x, a, scale=v / a) - stats.gamma.logpdf(x, a, scale=v2 / a)
    got = float(gz.gamma_variance_loss(x, v, v2, dof))
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-7 * max(1.0, abs(expected)))


def test_gamma_loss_uses_the_issue_parametrisation_for_n_syn_minus_1():
    # Shape (n_syn - 1)/2, rate (n_syn - 1)/(2 variance), as in seed 004 §4.3.
    n_syn, v, v2 = 101, 1.0, 1.064
    x = np.array([0.7, 1.0, 1.3])
    a = (n_syn - 1) / 2
    ref = stats.gamma.logpdf(x, a, scale=1 / ((n_syn - 1) / (2 * v))) - stats.gamma.logpdf(
        x, a, scale=1 / ((n_syn - 1) / (2 * v2))
    )
    np.testing.assert_allclose(gz.gamma_variance_loss(x, v, v2, n_syn - 1), ref, rtol=1e-10)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.floats(-3, 3), min_size=3, max_size=40),
    new=st.floats(-3, 3),
    idx=st.integers(0, 1000),
)
def test_sample_variance_sensitivity_is_4b2_over_n(data, new, idx):
    x = np.array(data)
    y = x.copy()
    y[idx % x.size] = new
    assert abs(np.var(x, ddof=1) - np.var(y, ddof=1)) <= gz.variance_sensitivity(3.0, x.size) * (
        1 + 1e-9
    )


def test_variance_epsilon_is_worst_at_the_lower_bound():
    # The loss depends on v only through Delta/v; a larger variance gives a smaller epsilon.
    b, n, delta, dof = 4.0, 1000, 1e-6, 5000
    eps0, _ = gz.variance_part_epsilon(b, n, 1.0, delta, dof)
    gap = gz.variance_sensitivity(b, n)
    a = dof / 2
    for v in (1.0, 1.3, 2.0, 5.0):
        for v_from, v_to in ((v, v + gap), (v + gap, v)):
            q = stats.gamma.ppf([delta / 2, 1 - delta / 2], a, scale=v_from / a)
            eps_v = np.max(np.abs(gz.gamma_variance_loss(q, v_from, v_to, dof)))
            assert eps_v <= eps0 * (1 + 1e-12)


def _loglik_ratio(x, mu1, v1, mu2, v2):
    return (stats.norm.logpdf(x, mu1, np.sqrt(v1)) - stats.norm.logpdf(x, mu2, np.sqrt(v2))).sum(
        axis=-1
    )


@pytest.mark.parametrize("swap", [False, True])
def test_unknown_variance_tail_holds_on_real_neighbours(swap):
    # Two bounded neighbours in [-1, 1] (one record moved from -1 to +1); the exact privacy
    # loss of K synthetic rows from N(mean, s^2) must exceed epsilon with probability <= delta.
    rng = np.random.default_rng(3)
    n, b, K, delta = 40, 1.0, 60, 0.05
    d1 = np.clip(rng.normal(0.3, 0.45, n), -b, b)
    d1[0] = -b
    d2 = d1.copy()
    d2[0] = b
    if swap:
        d1, d2 = d2, d1
    (m1, v1), (m2, v2) = ((d.mean(), d.var(ddof=1)) for d in (d1, d2))
    g = gz.plugin_unknown_variance(b, n, K, 1, math.sqrt(min(v1, v2)), delta)
    x = rng.normal(m1, np.sqrt(v1), (40_000, K))
    loss = _loglik_ratio(x, m1, v1, m2, v2)
    assert np.mean(loss > g.epsilon) <= delta


def test_unknown_variance_composes_mean_and_variance():
    g = gz.plugin_unknown_variance(4.0, 1000, 100, 1, 1.0, 1e-6)
    c = g.components
    assert g.epsilon == pytest.approx(c["epsilon_mean"] + c["epsilon_variance"])
    assert c["delta_mean"] + c["delta_variance"] == pytest.approx(1e-6)
    assert g.rho == pytest.approx(gz.plugin_known_variance_rho(4.0, 1000, 100, 1, 1.0))
    t = gz.variance_sensitivity(4.0, 1000) / 1.0
    z = stats.norm.isf(5e-7)
    assert c["epsilon_mean"] == pytest.approx(g.rho + math.sqrt(2 * g.rho * (1 + t)) * z)


# ------------------------------------------------------------------------- conversion / refusals


def test_univariate_guarantee_converts_through_the_accountant():
    from synthcert.privacy.conversion import zcdp_to_dp

    g = gz.univariate_guarantee(4.0, 1000, 15625, sigma=1.0, delta=1e-6, conversion="bun-steinke")
    assert g.rho == pytest.approx(0.5)
    assert g.epsilon == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))
    g2 = gz.univariate_guarantee(4.0, 1000, 15625, sigma=1.0, delta=1e-6, conversion="tight")
    assert g2.epsilon == pytest.approx(zcdp_to_dp(0.5, 1e-6, method="cks"))
    assert g2.epsilon < g.epsilon


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sigma": 0.0},
        {"sigma": -1.0},
        {"sigma": None, "sigma_lower": None},
        {"sigma": 1.0, "sigma_lower": 1.0},
        {"sigma": None, "sigma_lower": 5.0},  # impossible on [-4, 4]
        {"sigma": None, "sigma_lower": 1.0, "bayesian": True},
    ],
)
def test_refuses_rather_than_misleads(kwargs):
    with pytest.raises(AssumptionError):
        gz.univariate_guarantee(4.0, 1000, 100, **kwargs)


# ----------------------------------------------------------------------------- multivariate bridge


def test_bridge_reduces_to_the_univariate_formula():
    # d = 1 on [-1, 1] with variance sigma^2 = min_eigenvalue is §4.1 with b = 1.
    assert gz.multivariate_bridge_rho(1000, 1, 15625, 0.25) == pytest.approx(
        gz.plugin_known_variance_rho(1.0, 1000, 15625, 1, 0.5)
    )


def test_bridge_bounds_the_mahalanobis_shift():
    # sup over bounded neighbours of (mu - mu')^T Sigma^-1 (mu - mu') <= 4d/(n^2 lambda_min),
    # with equality for Sigma = lambda I (the diagonal corner-to-corner move).
    rng = np.random.default_rng(0)
    n, d = 50, 4
    a = rng.normal(size=(d, d))
    sigma = a @ a.T / d + 0.1 * np.eye(d)
    lam = np.linalg.eigvalsh(sigma)[0]
    rho = gz.multivariate_bridge_rho(n, d, 1, lam)
    prec = np.linalg.inv(sigma)
    corners = np.array(np.meshgrid(*[[-1.0, 1.0]] * d)).reshape(d, -1).T
    shifts = (corners[:, None, :] - corners[None, :, :]).reshape(-1, d) / n
    worst = np.max(np.einsum("ij,jk,ik->i", shifts, prec, shifts))
    assert worst / 2 <= rho * (1 + 1e-12)
    iso = gz.multivariate_bridge_rho(n, d, 1, 0.3)
    assert np.max(np.sum(shifts**2, axis=1) / 0.3) / 2 == pytest.approx(iso)


def test_bridge_unbounded_covers_removing_a_member():
    # A table of n rows must be protected against removing a member: the pair (n - 1, n). Put
    # n - 1 rows at the corner -1 and the n-th at +1; removing it moves the mean by 2 sqrt(d)/n,
    # the worst case. The old code evaluated the addition pair (n, n + 1) and gave
    # 4d/((n + 1)^2 2 lambda), (1 + 1/n)^2 too small.
    n, d, lam = 10, 3, 0.2
    rows = -np.ones((n, d))
    rows[-1] = 1.0
    shift = rows.mean(axis=0) - rows[:-1].mean(axis=0)
    worst = float(shift @ shift) / (2 * lam)
    assert worst == pytest.approx(4 * d / (n**2 * 2 * lam), rel=1e-12)
    unbounded = gz.multivariate_bridge_rho(n, d, 1, lam, neighbouring="unbounded")
    assert unbounded >= worst * (1 - 1e-12)
    assert unbounded == pytest.approx(worst, rel=1e-12)
    # the addition pair is dominated: its worst shift is 2 sqrt(d)/(n + 1)
    added = np.vstack([rows, np.ones((1, d))])
    add_shift = added.mean(axis=0) - rows.mean(axis=0)
    assert float(add_shift @ add_shift) / (2 * lam) < unbounded
    assert unbounded == gz.multivariate_bridge_rho(n, d, 1, lam, neighbouring="bounded")


def test_bridge_is_miuras_mean_term_in_the_limit():
    # Theorem 3.1 of Miura et al. (seed 000) separates into a mean-vector term and a covariance
    # term; the mean term per record, evaluated at n - 1 (the removal pair, inherent.theorem_n),
    # tends to alpha * rho of the bridge at n.
    d, sigma, alpha = 6, 0.01, 4.0
    ratios = []
    for n in (10**4, 10**5, 10**6, 10**7):
        comps = _inherent.theorem31_components(alpha, _inherent.theorem_n(n, "unbounded"), d, sigma)
        key = next(k for k in comps if "mean" in k)
        mean_term = float(np.max(np.asarray(comps[key], dtype=float)))
        bridge = alpha * gz.multivariate_bridge_rho(n, d, 1, sigma, neighbouring="unbounded")
        ratios.append(mean_term / bridge)
    assert abs(ratios[-1] - 1) < 1e-5
    assert all(abs(r2 - 1) <= abs(r1 - 1) for r1, r2 in itertools.pairwise(ratios))


def test_bridge_against_the_printed_mean_terms_of_theorem31():
    # Seed 000, Theorem 3.1 (tau = 4d/sigma) at m = n - 1 records: the mean-vector terms of
    # eps_a1 and eps_a2 are alpha/2 * tau/((m+1)(m+1-alpha)) and
    # alpha/2 * tau/(m(m+alpha) - alpha(m+1)tau); with m + 1 = n the first is n/(n - alpha)
    # times the bridge's alpha * rho = alpha tau / (2 n^2).
    d, sigma, alpha = 6, 0.01, 4.0
    tau = 4 * d / sigma
    previous = math.inf
    for n in (10**5, 10**6, 10**7, 10**8):
        m = n - 1
        bridge = alpha * gz.multivariate_bridge_rho(n, d, 1, sigma, neighbouring="unbounded")
        assert bridge == pytest.approx(alpha * tau / (2 * n**2), rel=1e-12)
        t1 = alpha / 2 * tau / ((m + 1) * (m + 1 - alpha))
        t2 = alpha / 2 * tau / (m * (m + alpha) - alpha * (m + 1) * tau)
        assert t1 / bridge == pytest.approx(n / (n - alpha), rel=1e-12)
        gap = max(abs(t1 / bridge - 1), abs(t2 / bridge - 1))
        assert gap < previous
        previous = gap
    assert previous < 1e-4

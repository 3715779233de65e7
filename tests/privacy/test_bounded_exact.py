"""The exact bounded certificate (privacy/bounded_exact.py) against independent computations."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from synthcert.errors import ParameterError
from synthcert.privacy import bounded_exact as bx
from synthcert.privacy.budget import account, max_records
from synthcert.privacy.gaussian_release import (
    alpha_limit,
    certify,
    epsilon_bounded,
    epsilon_per_record,
    epsilon_unbounded,
)
from synthcert.privacy.renyi import renyi_gaussian
from synthcert.privacy.soundness import moments, smallest_eigenvalue, verify_bound

D, SIGMA = 6, 0.01


def _pair(n: float, a: float, b: float, cos: float, d: int = 2):
    """The whitened pair P = N(0, I), Q = N(δ, I + E) of the module docstring, built by hand."""
    u = np.zeros(d)
    v = np.zeros(d)
    u[0] = math.sqrt(a)
    v[0] = math.sqrt(b) * cos
    if d > 1:
        v[1] = math.sqrt(max(b - b * cos * cos, 0.0))
    w = v - u
    cov = np.eye(d) + (np.outer(v, v) - np.outer(u, u)) / n - np.outer(w, w) / n**2
    return np.zeros(d), np.eye(d), w / n, cov


# --------------------------------------------------------------------------------------------
# the figures of issue 18
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("n", "d", "sigma", "alpha", "exact", "corollary"),
    [
        (10**5, 6, 0.01, 4.0, 116.0, 266.7),
        (10**6, 6, 0.01, 10.0, 28.83, 59.56),
        (10**7, 6, 0.01, 4.0, 1.153, 2.307),
        (3 * 10**4, 6, 0.02, 2.0, 48.35, 108.95),
    ],
)
def test_issue_table_to_three_digits(n, d, sigma, alpha, exact, corollary):
    res = bx.exact_bound(alpha, n, d, sigma)
    upper, attained = res.upper[0] * n, res.attained[0] * n
    assert res.converged[0]
    assert float(f"{upper:.4g}") == pytest.approx(exact, rel=1e-3)
    assert attained <= upper <= attained * (1 + 2e-6)
    assert float(epsilon_bounded(alpha, n, d, sigma)) * n == pytest.approx(corollary, rel=1e-3)
    assert upper < corollary / 1.99


def test_worst_pair_is_at_the_norm_bound_slightly_past_orthogonal():
    """The worst pair has |u|² = |v|² = τ and u·v ≈ −1 (the large-n optimum of
    α/(2n²)[W + (a² + b² − 2c²)/2] in c), so the issue's u ⊥ v is 10⁻⁷ (relative) below it."""
    n, t = 10**5, 2400.0
    res = bx.exact_bound(4.0, n, D, SIGMA)
    a, b, cos = res.argmax[0]
    assert a == pytest.approx(t) and b == pytest.approx(t)
    assert cos * t == pytest.approx(-1.0, abs=0.05)
    ortho = float(bx.divergence(4.0, n, t, t, 0.0))
    assert ortho < res.attained[0] < ortho * (1 + 1e-6)


# --------------------------------------------------------------------------------------------
# the closed form against independent computations
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize(
    ("n", "alpha", "a", "b", "cos"),
    [(50, 3.0, 8.0, 5.0, 0.3), (200, 1.5, 30.0, 30.0, -0.9), (20, 2.0, 3.0, 0.5, 1.0)],
)
def test_closed_form_equals_prop_4_1_on_the_full_matrices(d, n, alpha, a, b, cos):
    m1, c1, m2, c2 = _pair(n, a, b, cos, d)
    want = float(renyi_gaussian(alpha, m1, c1, m2, c2)[0])
    back = float(renyi_gaussian(alpha, m2, c2, m1, c1)[0])
    assert float(bx.divergence(alpha, n, a, b, cos)) == pytest.approx(want, rel=1e-9)
    assert float(bx.divergence_reverse(alpha, n, a, b, cos)) == pytest.approx(back, rel=1e-9)


def test_closed_form_against_numerical_integration_in_2d():
    """D_α = log ∫ p^α q^{1−α} / (α − 1), integrated by scipy on a wide square."""
    n, alpha, a, b, cos = 6, 2.0, 1.5, 2.0, 0.3
    m1, c1, m2, c2 = _pair(n, a, b, cos, 2)
    i1, i2 = np.linalg.inv(c1), np.linalg.inv(c2)
    k1 = 1 / (2 * math.pi * math.sqrt(np.linalg.det(c1)))
    k2 = 1 / (2 * math.pi * math.sqrt(np.linalg.det(c2)))

    def f(y, x):
        z = np.array([x, y])
        p = k1 * math.exp(-0.5 * (z - m1) @ i1 @ (z - m1))
        q = k2 * math.exp(-0.5 * (z - m2) @ i2 @ (z - m2))
        return p**alpha * q ** (1 - alpha)

    val, _ = integrate.dblquad(f, -9, 9, -9, 9, epsabs=1e-11, epsrel=1e-10)
    assert float(bx.divergence(alpha, n, a, b, cos)) == pytest.approx(
        math.log(val) / (alpha - 1), rel=1e-6
    )


def test_closed_form_against_mpmath_at_large_n():
    """At n = 10⁷ the divergence is O(1/n²): 50-digit Prop. 4.1 agrees to 1e-9 (no cancellation)."""
    mp.mp.dps = 50
    n, alpha, a, b, cos = 10**7, 4.0, 2400.0, 1800.0, -0.2
    c = cos * math.sqrt(a * b)
    u = mp.matrix([[mp.sqrt(a)], [0]])
    v = mp.matrix([[mp.mpf(c) / mp.sqrt(a)], [mp.sqrt(mp.mpf(b) - mp.mpf(c) ** 2 / a)]])
    w = v - u
    e = (v * v.T - u * u.T) / n - w * w.T / mp.mpf(n) ** 2
    s_alpha = mp.eye(2) + alpha * e
    mean = alpha / 2 * (w.T * mp.inverse(s_alpha) * w)[0] / mp.mpf(n) ** 2
    cov = -(mp.log(mp.det(s_alpha)) - alpha * mp.log(mp.det(mp.eye(2) + e))) / (2 * (alpha - 1))
    assert float(bx.divergence(alpha, n, a, b, cos)) == pytest.approx(float(mean + cov), rel=1e-9)


@pytest.mark.parametrize(("a", "b", "cos"), [(8.0, 5.0, 0.3), (30.0, 1.0, -0.95), (2.0, 9.0, 0.0)])
def test_reverse_order_is_the_forward_divergence_of_the_reversed_pair(a, b, cos):
    """Whitening by D' turns D_α(M(D')‖M(D)) into ``divergence`` at reverse_parameters."""
    n, alpha = 40, 2.5
    a2, b2, c2 = bx.reverse_parameters(n, a, b, cos)
    assert float(bx.divergence(alpha, n, a2, b2, c2)) == pytest.approx(
        float(bx.divergence_reverse(alpha, n, a, b, cos)), rel=1e-9
    )


# --------------------------------------------------------------------------------------------
# admissible orders
# --------------------------------------------------------------------------------------------
def test_alpha_limit_is_attained_by_the_near_singular_pair():
    n = 10**5
    t = 4 * D / SIGMA
    lim = float(bx.exact_alpha_limit(n, D, SIGMA))
    assert lim == pytest.approx((n - 1) / t)
    assert lim > 1.9 * alpha_limit(n, D, SIGMA, "bounded", "corollary")
    # v = −u/(n−1), |u|² = τ makes I + αE singular at α = (n−1)/τ, so D_α = ∞ there.
    a, b, cos = t, t / (n - 1) ** 2, -1.0
    assert math.isinf(float(bx.divergence(lim * (1 + 1e-9), n, a, b, cos)))
    assert math.isfinite(float(bx.divergence(lim * (1 - 1e-3), n, a, b, cos)))
    _m1, c1, _m2, c2 = _pair(n, a, b, cos)
    assert np.linalg.eigvalsh((1 - lim) * c1 + lim * c2)[0] == pytest.approx(0.0, abs=1e-9)


def test_refuses_outside_the_admissible_range():
    lim = alpha_limit(10**4, D, SIGMA, "bounded")
    cert = certify(10**4, D, SIGMA, lim * 1.001, neighboring="bounded")
    assert not cert.feasible and "(n−1)/τ" in cert.reason and cert.method == "exact"
    assert math.isinf(float(epsilon_per_record(lim * 1.001, 10**4, D, SIGMA, "bounded")))
    assert alpha_limit(2000, D, SIGMA, "bounded") == 0.0  # τ = 2400 ≥ n − 1
    assert not certify(2000, D, SIGMA, 1.5, neighboring="bounded").feasible
    with pytest.raises(ParameterError, match="unknown method"):
        certify(10**6, D, SIGMA, 2.0, neighboring="bounded", method="magic")


# --------------------------------------------------------------------------------------------
# the certified supremum
# --------------------------------------------------------------------------------------------
def test_interval_enclosure_of_l_contains_mpmath():
    mp.mp.dps = 40
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-0.999, 3, 300), 10.0 ** rng.uniform(-12, -1, 200)])
    x = np.concatenate([x, -x[x < 0.99]])
    lo, hi = bx._l_enclosure(x)
    for xi, a, b in zip(x, lo, hi, strict=True):
        exact = mp.log1p(mp.mpf(float(xi))) - mp.mpf(float(xi))
        assert mp.mpf(float(a)) <= exact <= mp.mpf(float(b))


def test_box_upper_bounds_every_point_of_its_box():
    rng = np.random.default_rng(5)
    n, t = 10**4, 2400.0
    for _ in range(30):
        a0, b0 = rng.uniform(0, t, 2)
        r0 = rng.uniform(-1, 1)
        wa, wb, wr = [*rng.uniform(0, 50, 2).tolist(), rng.uniform(0, 0.2)]
        box = np.array([[a0, min(t, a0 + wa), b0, min(t, b0 + wb), r0, min(1.0, r0 + wr)]])
        alpha = rng.uniform(1.05, 3.5)
        up = float(bx._box_upper(np.array([alpha]), n, box)[0])
        pts = rng.uniform(box[0, 0::2], box[0, 1::2], size=(200, 3))
        vals = bx.divergence(alpha, n, pts[:, 0], pts[:, 1], pts[:, 2])
        assert np.all(vals <= up)


def test_certified_bound_is_above_a_dense_search_and_attained():
    n, alpha = 2000, 5.0
    sigma = 4 * D / 150.0  # τ = 150
    res = bx.exact_bound(alpha, n, D, sigma)
    up, at = res.upper[0], res.attained[0]
    a = np.linspace(0, 150, 61)[:, None, None]
    b = np.linspace(0, 150, 61)[None, :, None]
    c = np.linspace(-1, 1, 401)[None, None, :]
    grid = bx.divergence(alpha, n, a, b, c)
    assert float(np.max(grid)) <= up
    assert float(bx.divergence(alpha, n, *res.argmax[0])) == pytest.approx(at, rel=1e-12)
    assert at <= up <= at * (1 + 2e-6)


def test_one_dimensional_data_keeps_only_parallel_records():
    """d = 1: u and v are collinear (cos = ±1); the certificate searches only those."""
    n, alpha, sigma = 10**4, 3.0, 0.05
    t = 4 / sigma
    res = bx.exact_bound(alpha, n, 1, sigma)
    a = np.linspace(0, t, 401)[:, None]
    b = np.linspace(0, t, 401)[None, :]
    brute = max(float(np.max(bx.divergence(alpha, n, a, b, s))) for s in (-1.0, 1.0))
    assert brute <= res.upper[0] <= brute * (1 + 1e-3)
    assert abs(res.argmax[0][2]) == 1.0


# --------------------------------------------------------------------------------------------
# comparison with Corollary 3.2 and soundness
# --------------------------------------------------------------------------------------------
def test_exact_below_corollary_on_a_grid():
    for n in (3 * 10**4, 10**5, 10**6, 10**8):
        for sigma in (0.005, 0.01, 0.05):
            lim = alpha_limit(n, D, sigma, "bounded", "corollary")
            if lim <= 1.01:
                continue
            alphas = 1 + (lim - 1) * np.array([0.01, 0.2, 0.5, 0.8, 0.99])
            cor = epsilon_bounded(alphas, n, D, sigma)
            ex = epsilon_per_record(alphas, n, D, sigma, "bounded", method="exact")
            ok = np.isfinite(cor)
            assert np.all(ex[ok] < cor[ok])
            # about 2× tighter at moderate α; the corollary diverges at its own α limit
            if ok[1]:
                assert cor[1] / ex[1] > 1.8 and cor[1] / ex[1] < 3.0


def test_adversarial_pairs_of_verify_bound_never_exceed_the_exact_bound():
    report = verify_bound((150, 400), (2, 3), seed=2, alpha_fractions=(0.3, 0.9))
    assert "replace/bounded-exact" in report.max_ratio
    assert 0 < report.max_ratio["replace/bounded-exact"] < 1
    assert report.sound
    # tighter than the corollary on the same pairs
    assert report.max_ratio["replace/bounded-exact"] > report.max_ratio["replace/bounded"]


def test_random_replacements_respect_the_bound_in_both_orders():
    """Exact D_α of real replaced-record pairs, both orders, at σ = the pair's smaller λ_min."""
    rng = np.random.default_rng(11)
    n, d = 60, 2
    for _ in range(6):
        x = np.clip(-1 + 0.5 * np.abs(rng.normal(size=(n, d))), -1, 1)
        i = int(np.argmax(np.sum((x - x.mean(0)) ** 2, axis=1)))
        x2 = x.copy()
        x2[i] = rng.choice([-1.0, 1.0], size=d) * (rng.random() < 0.5 or 1.0)
        x2[i] = np.where(x2[i] == 0, 1.0, x2[i])
        sig = min(smallest_eigenvalue(x), smallest_eigenvalue(x2))
        lim = float(bx.exact_alpha_limit(n, d, sig))
        if lim <= 1.2:
            continue
        alpha = 1 + 0.5 * (lim - 1)
        m1, c1 = moments(x)
        m2, c2 = moments(x2)
        pair = max(
            float(renyi_gaussian(alpha, m1, c1, m2, c2)[0]),
            float(renyi_gaussian(alpha, m2, c2, m1, c1)[0]),
        )
        assert pair <= float(bx.epsilon_bounded_exact(alpha, n, d, sig))


# --------------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(
    st.floats(4.5, 8.0),
    st.integers(2, 9),
    st.floats(-3.0, 0.0),
    st.floats(0.02, 0.9),
    st.floats(0.05, 1.0),
)
def test_monotone_in_n_and_sigma(log_n, d, log_sigma, frac, step):
    n, sigma = int(10**log_n), 10**log_sigma
    lim = float(bx.exact_alpha_limit(n, d, sigma))
    if lim <= 1.05:
        return
    alpha = 1 + frac * (lim - 1)
    e = float(bx.epsilon_bounded_exact(alpha, n, d, sigma))
    tol = 1 + 3e-6  # both values are certified within 10⁻⁶ of the supremum
    assert float(bx.epsilon_bounded_exact(alpha, n + max(1, int(n * step)), d, sigma)) <= e * tol
    assert float(bx.epsilon_bounded_exact(alpha, n, d, min(1.0, sigma * (1 + step)))) <= e * tol


@settings(max_examples=15, deadline=None)
@given(
    st.floats(3.5, 7.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(-1.0, 1.0),
    st.floats(0.02, 0.95),
)
def test_every_point_of_the_constraint_set_is_below_the_certificate(log_n, fa, fb, cos, frac):
    n = int(10**log_n)
    t = 4 * D / SIGMA
    lim = float(bx.exact_alpha_limit(n, D, SIGMA))
    if lim <= 1.05:
        return
    alpha = 1 + frac * (lim - 1)
    point = float(bx.divergence(alpha, n, fa * t, fb * t, cos))
    assert point <= float(bx.epsilon_bounded_exact(alpha, n, D, SIGMA))


# --------------------------------------------------------------------------------------------
# Theorem 3.1 is tight for its class
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [10**4, 10**5, 10**6, 10**7, 10**8])
def test_theorem_3_1_is_the_maximum_of_the_exact_one_parameter_divergence(n):
    t = 4 * D / SIGMA
    ts = t * np.linspace(0.0, 1.0, 4001)[1:]
    add = bx.unbounded_divergence(4.0, n, D, ts, "add")
    rem = bx.unbounded_divergence(4.0, n, D, ts, "remove")
    assert int(np.argmax(add)) == ts.size - 1 and int(np.argmax(rem)) == ts.size - 1
    best = max(float(np.max(add)), float(np.max(rem)))
    assert best == pytest.approx(float(epsilon_unbounded(4.0, n, D, SIGMA)), rel=1e-6)


def test_unbounded_one_parameter_form_equals_prop_4_1():
    n, d, t, alpha = 30, 3, 12.0, 2.5
    u = np.array([math.sqrt(t), 0.0, 0.0])
    k = n / (n + 1)
    add = renyi_gaussian(
        alpha, np.zeros(d), np.eye(d), u / (n + 1), k * (np.eye(d) + np.outer(u, u) / (n + 1))
    )[0]
    rem = renyi_gaussian(
        alpha, np.zeros(d), np.eye(d), -u / n, (n + 1) / n * (np.eye(d) - np.outer(u, u) / n)
    )[0]
    assert float(bx.unbounded_divergence(alpha, n, d, t, "add")) == pytest.approx(add, rel=1e-10)
    assert float(bx.unbounded_divergence(alpha, n, d, t, "remove")) == pytest.approx(rem, rel=1e-10)


# --------------------------------------------------------------------------------------------
# plumbing: exact is the default for bounded neighbours
# --------------------------------------------------------------------------------------------
def test_exact_is_the_default_for_bounded_neighbours():
    a = account(10**7, D, SIGMA, alpha=4.0, neighboring="bounded")
    assert a.method == "exact" and a.epsilon_rdp == pytest.approx(1.153, rel=5e-3)
    c = account(10**7, D, SIGMA, alpha=4.0, neighboring="bounded", method="corollary")
    assert c.method == "corollary" and round(c.epsilon_rdp, 4) == 2.3071
    assert account(10**7, D, SIGMA, alpha=4.0).method == ""
    b = max_records(10**7, D, SIGMA, neighboring="bounded", alpha=4.0, epsilon_rdp=1.0)
    bc = max_records(
        10**7, D, SIGMA, neighboring="bounded", alpha=4.0, epsilon_rdp=1.0, method="corollary"
    )
    assert b.max_records == math.floor(1.0 / b.epsilon_rdp_per_record)
    assert b.max_records / bc.max_records == pytest.approx(2.0, abs=0.01)


def test_dp_account_with_exact_is_below_the_corollary():
    ex = account(10**7, D, SIGMA, delta=1e-14, neighboring="bounded")
    co = account(10**7, D, SIGMA, delta=1e-14, neighboring="bounded", method="corollary")
    assert ex.feasible and co.feasible
    assert ex.epsilon < co.epsilon
    assert ex.alpha_max > 1.9 * co.alpha_max


def test_an_order_stopped_by_the_box_limit_keeps_a_valid_bound_and_spares_the_others():
    n = 10**5
    lim = float(bx.exact_alpha_limit(n, D, SIGMA))
    hard = lim * (1 - 1e-2)
    up, at, arg, conv, _ = bx.certified_sup([4.0, hard], n, D, SIGMA, max_boxes=30_000)
    assert conv[0] and at[0] <= up[0] <= at[0] * (1 + 2e-6)
    assert not conv[1] and up[1] >= at[1]
    assert up[1] > at[1] * (1 + 1e-6)  # stopped early: looser, never below the supremum
    grid = bx.divergence(hard, n, 2400.0, 2400.0, np.linspace(-1, 1, 2001))
    assert float(np.max(grid)) <= up[1]
    assert float(bx.divergence(hard, n, *arg[1])) == pytest.approx(at[1], rel=1e-12)


def test_a_looser_tolerance_is_larger_never_smaller():
    alphas = np.array([1.5, 4.0, 40.0, 200.0, 410.0])  # α_max = 416.67
    tight = epsilon_per_record(alphas, 10**6, D, SIGMA, "bounded")
    loose = epsilon_per_record(alphas, 10**6, D, SIGMA, "bounded", rtol=bx.SEARCH_RTOL)
    assert np.all(loose >= tight) and np.all(loose[:4] <= tight[:4] * (1 + 2e-4))
    assert loose[4] <= tight[4] * 1.05  # next to α_max the search stops early: looser


def test_alpha_searched_on_loose_bounds_is_certified_at_full_precision():
    """account() searches α on 10⁻⁴ bounds; its ε is the 10⁻⁶ certificate at that α and is
    no worse than the best of a fine grid of fully certified orders (up to the search)."""
    from synthcert.privacy.conversion import rdp_to_dp

    n, delta = 10**7, 1e-14
    acc = account(n, D, SIGMA, delta=delta, neighboring="bounded")
    per = float(epsilon_per_record(acc.alpha, n, D, SIGMA, "bounded"))
    assert acc.epsilon_rdp_per_record == per
    assert acc.epsilon == pytest.approx(float(rdp_to_dp(acc.alpha, n * per, delta, "ckm")))
    grid = np.linspace(6.0, 20.0, 57)
    best = float(np.min(rdp_to_dp(grid, n * epsilon_per_record(grid, n, D, SIGMA, "bounded"),
                                  delta, "ckm")))  # fmt: skip
    assert acc.epsilon <= best * (1 + 1e-6)

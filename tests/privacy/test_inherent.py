"""Theorem 3.1, Corollary 3.2 and the direct bounded theorem against the papers and mpmath."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.gaussian_release import (
    alpha_limit,
    bounded_alpha_limit,
    bounded_objective,
    bounded_optimum,
    bounded_p_interval,
    certify,
    epsilon_bounded,
    epsilon_bounded_direct,
    epsilon_per_record,
    epsilon_unbounded,
    require,
    theorem31_components,
    theorem31_terms,
    unbounded_alpha_limit,
)

D, SIGMA = 6, 0.01


def _mp_theorem_3_1(a, n, d, s):
    """Theorem 3.1 of seed 000 exactly as printed, in 60-digit arithmetic."""
    mp.mp.dps = 60
    a, n, d, s = (mp.mpf(x) for x in (a, n, d, s))
    t = 4 * d / s
    r1 = (1 + a * n * t / ((n + 1) * (n + 1 - a))) / (1 + t / (n + 1)) ** a
    r2 = (1 - a * (n + 1) * t / ((n + a) * n)) / (1 - t / n) ** a
    e1 = (
        a / 2 * t / ((n + 1) * (n + 1 - a))
        + a * d / (2 * (a - 1)) * mp.log(n / (n + 1))
        - d / (2 * (a - 1)) * mp.log(1 - a / (n + 1))
        - 1 / (2 * (a - 1)) * mp.log(min(1, r1))
    )
    e2 = (
        a / 2 * t / (n * (n + a) - a * (n + 1) * t)
        + a * d / (2 * (a - 1)) * mp.log((n + 1) / n)
        - d / (2 * (a - 1)) * mp.log(1 + a / n)
        - 1 / (2 * (a - 1)) * mp.log(min(1, r2))
    )
    return max(e1, e2)


# ---------------------------------------------------------------------------------------------
# the papers' printed values
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("n", "printed", "decimals"),
    [(10**4, 3535.17, 2), (10**5, 62.5859, 4), (10**6, 5.8064, 4), (10**8, 0.058, 3)],
)
def test_table1_unbounded(n, printed, decimals):
    """Table 1 of seed 000 / thesis Table 5.1 (n_out = n, α = 4)."""
    assert round(float(epsilon_unbounded(4.0, n, D, SIGMA)) * n, decimals) == printed


def test_table1_unbounded_1e7_as_printed_by_both_versions():
    # seed 001 prints 0.576462; seed 000 cuts it to 0.5764 (rounding would give 0.5765).
    value = float(epsilon_unbounded(4.0, 10**7, D, SIGMA)) * 10**7
    assert round(value, 6) == 0.576462
    assert math.floor(value * 1e4) / 1e4 == 0.5764


@pytest.mark.parametrize(
    ("n", "printed", "decimals"),
    [(10**5, 266.7349, 4), (10**6, 23.3577, 4), (10**7, 2.3071, 4), (10**8, 0.23, 2)],
)
def test_table1_bounded_as_printed(n, printed, decimals):
    """Corollary 3.2 with the paper's eq. (3) reproduces every printed bounded value."""
    got = float(epsilon_bounded(4.0, n, D, SIGMA, variant="paper")) * n
    assert round(got, decimals) == printed


def test_table1_bounded_corrected_is_close_and_larger():
    """The corrected second leg (ε(·, n), σn/(n+1)) changes ε by O(1/n), never downwards here."""
    for n in (10**5, 10**6, 10**7):
        paper = float(epsilon_bounded(4.0, n, D, SIGMA, variant="paper"))
        fixed = float(epsilon_bounded(4.0, n, D, SIGMA))
        assert fixed >= paper
        assert (fixed - paper) / paper < 50.0 / n
    assert round(float(epsilon_bounded(4.0, 10**5, D, SIGMA)) * 10**5, 4) == 266.7407


def test_table1_bounded_refuses_at_1e4():
    """Table 1 prints '–' for n = 10^4: α = 4 violates eq. (2)."""
    assert float(epsilon_bounded(4.0, 10**4, D, SIGMA)) == math.inf
    cert = certify(10**4, D, SIGMA, 4.0, neighboring="bounded", method="corollary")
    assert not cert.feasible
    assert "eq. (2)" in cert.reason and "2.36807" in cert.reason
    with pytest.raises(AssumptionError, match="eq. \\(2\\)"):
        require(cert)


def test_alpha_limits_of_section_5_2():
    """§5.2 of seed 000: c ≒ 4.1679 and c²/(2c−1) ≒ 2.3680 for n = 10^4 (printed truncated)."""
    c = float(unbounded_alpha_limit(10**4, D, SIGMA))
    b = float(bounded_alpha_limit(10**4, D, SIGMA))
    assert math.floor(c * 1e4) == 41679 and math.floor(b * 1e4) == 23680


@pytest.mark.parametrize(
    ("n", "printed"), [(10**4, 6806.72), (10**5, 3263.22), (10**6, 3205.81), (10**7, 3200.58)]
)
def test_direct_bounded_table1_of_seed_001(n, printed):
    """Table 1 of the CSS 2022 version: the direct bounded theorem, much looser."""
    assert round(float(epsilon_bounded_direct(4.0, n, D, SIGMA)) * n, 2) == printed


# ---------------------------------------------------------------------------------------------
# numerics
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [10**4, 10**6, 10**8, 10**9, 10**10])
@pytest.mark.parametrize("alpha", [1.01, 2.0, 4.0, 30.0])
def test_matches_60_digit_arithmetic(n, alpha):
    if alpha >= float(unbounded_alpha_limit(n, D, SIGMA)):
        assert float(epsilon_unbounded(alpha, n, D, SIGMA)) == math.inf
        return
    want = float(_mp_theorem_3_1(alpha, n, D, SIGMA))
    assert float(epsilon_unbounded(alpha, n, D, SIGMA)) == pytest.approx(want, rel=1e-10)


def test_naive_formula_loses_precision_where_ours_does_not():
    """At n = 10^10 the printed formula in float64 is wrong in the leading digits; ours is not."""
    n, a, d, t = 1e10, 4.0, D, 4 * D / SIGMA
    naive = (
        a / 2 * t / ((n + 1) * (n + 1 - a))
        + a * d / (2 * (a - 1)) * math.log(n / (n + 1))
        - d / (2 * (a - 1)) * math.log(1 - a / (n + 1))
    )
    exact = float(_mp_theorem_3_1(a, n, D, SIGMA))
    ours = float(epsilon_unbounded(a, n, D, SIGMA))
    assert abs(ours - exact) / exact < 1e-12
    assert abs(naive - exact) / exact > 1e-3


def test_vectorised_over_alpha_and_infinite_outside():
    alphas = np.array([0.5, 1.0, 1.5, 4.0, 4.1679, 5.0])
    eps = epsilon_unbounded(alphas, 10**4, D, SIGMA)
    assert eps.shape == alphas.shape
    assert np.all(np.isinf(eps[[0, 1, 5]]))
    assert np.all(np.isfinite(eps[[2, 3]]))
    e1, e2 = theorem31_terms(alphas, 10**4, D, SIGMA)
    assert np.isnan(e1[0]) and np.isfinite(e2[3])
    np.testing.assert_allclose(
        epsilon_unbounded(alphas[2:4], 10**4, D, SIGMA),
        [float(epsilon_unbounded(a, 10**4, D, SIGMA)) for a in alphas[2:4]],
    )


# ---------------------------------------------------------------------------------------------
# Corollary 3.2: the search over p
# ---------------------------------------------------------------------------------------------
def test_bounded_optimum_sits_near_p_1_75_and_a_linear_grid_misses_it():
    n = 10**8
    lo, hi = bounded_p_interval(4.0, n, D, SIGMA, "corrected")
    assert lo == pytest.approx(1.00007, abs=1e-5) and hi == pytest.approx(1.042e4, rel=1e-3)
    eps, p = bounded_optimum(4.0, n, D, SIGMA)
    assert p == pytest.approx(1.75, abs=0.01)
    linear = np.linspace(lo, hi, 102)[1:-1]
    worst_linear = np.min(bounded_objective(linear, np.array(4.0), n, D, SIGMA, "corrected"))
    assert worst_linear > 1.05 * eps


def test_bounded_optimum_beats_a_dense_brute_force_search():
    for n, alpha in [(10**5, 4.0), (10**6, 2.0), (10**7, 30.0), (10**5, 1.5)]:
        lo, hi = bounded_p_interval(alpha, n, D, SIGMA, "corrected")
        p = 1 + np.exp(np.linspace(math.log(lo - 1), math.log(hi - 1), 200_002)[1:-1])
        brute = float(np.min(bounded_objective(p, np.array(alpha), n, D, SIGMA, "corrected")))
        eps, _ = bounded_optimum(alpha, n, D, SIGMA)
        assert eps <= brute * (1 + 1e-12)
        assert eps >= brute * (1 - 1e-6)


def test_bounded_is_vectorised_and_returns_p():
    alphas = np.array([[1.5, 4.0], [10.0, 1e5]])
    eps, ps = epsilon_bounded(alphas, 10**7, D, SIGMA, return_p=True)
    assert eps.shape == (2, 2) and ps.shape == (2, 2)
    assert math.isinf(eps[1, 1]) and math.isnan(ps[1, 1])
    assert eps[0, 1] == pytest.approx(bounded_optimum(4.0, 10**7, D, SIGMA)[0], rel=1e-12)


# ---------------------------------------------------------------------------------------------
# certificates and refusals
# ---------------------------------------------------------------------------------------------
def test_certificate_composes_over_records():
    """Proposition 2.5: n_out records cost n_out·ε."""
    cert = certify(10**7, D, SIGMA, 4.0, n_out=12345)
    assert cert.feasible and cert.reason is None
    assert cert.epsilon_rdp == pytest.approx(12345 * cert.epsilon_rdp_per_record, rel=1e-15)
    assert certify(10**7, D, SIGMA, 4.0).n_out == 10**7
    d = cert.to_dict()
    assert d["equation"].startswith("Theorem 3.1") and d["p"] is None


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"alpha": 5.0, "n": 10**4}, "eq. (1)"),
        ({"alpha": 1.0, "n": 10**6}, "α > 1"),
        ({"alpha": 4.0, "n": 10**6, "sigma": 1.5}, "σ = 1.5 > 1"),
        ({"alpha": 5000.0, "n": 10**6, "neighboring": "bounded-direct"}, "n²/(τ(n−1))"),
    ],
)
def test_refuses_with_the_violated_assumption(kwargs, needle):
    args = {"n": 10**6, "d": D, "sigma": SIGMA, "neighboring": "unbounded"} | kwargs
    cert = certify(
        args["n"], args["d"], args["sigma"], args["alpha"], neighboring=args["neighboring"]
    )
    assert not cert.feasible
    assert needle in cert.reason
    assert cert.epsilon_rdp == math.inf


def test_malformed_inputs_raise():
    with pytest.raises(AssumptionError):
        certify(10**6, D, 0.0, 4.0)
    with pytest.raises(AssumptionError):
        certify(10**6, 2.5, SIGMA, 4.0)
    with pytest.raises(AssumptionError):
        certify(0, D, SIGMA, 4.0)
    with pytest.raises(ParameterError):
        certify(10**6, D, SIGMA, 4.0, neighboring="replace")  # type: ignore[arg-type]


def test_alpha_limit_matches_the_refusals():
    for rel in ("unbounded", "bounded", "bounded-direct"):
        lim = alpha_limit(10**6, D, SIGMA, rel)
        inside = float(epsilon_per_record(1 + 0.99 * (lim - 1), 10**6, D, SIGMA, rel))
        outside = float(epsilon_per_record(lim * 1.0001, 10**6, D, SIGMA, rel))
        assert math.isfinite(inside) and outside == math.inf


def test_components_add_up_to_theorem_3_1():
    comps = theorem31_components(np.array([2.0, 4.0]), 10**6, D, SIGMA)
    e1, e2 = theorem31_terms(np.array([2.0, 4.0]), 10**6, D, SIGMA)
    np.testing.assert_allclose(comps["epsilon_add"], e1, rtol=1e-15)
    np.testing.assert_allclose(comps["mean_term_remove"] + comps["covariance_term_remove"], e2)
    tau = 4 * D / SIGMA
    # mean terms as printed: α/2·τ/((n+1)(n+1−α)) and α/2·τ/(n(n+α) − α(n+1)τ)
    n, a = 10**6, 4.0
    assert comps["mean_term_add"][1] == pytest.approx(a / 2 * tau / ((n + 1) * (n + 1 - a)))
    assert comps["mean_term_remove"][1] == pytest.approx(
        a / 2 * tau / (n * (n + a) - a * (n + 1) * tau)
    )


# ------------------------------------------------------------ the package, and its old name
GAUSSIAN_RELEASE_MODULES = (
    "synthcert.privacy.gaussian_release.assumptions",
    "synthcert.privacy.gaussian_release.theorem31",
    "synthcert.privacy.gaussian_release.corollary32",
    "synthcert.privacy.gaussian_release.direct",
    "synthcert.privacy.gaussian_release.certificate",
    "synthcert.privacy.calibrate",
    "synthcert.privacy.parameters",
)


@pytest.mark.parametrize("name", GAUSSIAN_RELEASE_MODULES)
def test_the_examples_of_the_privacy_core_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_old_module_name_still_reads_every_name_with_a_deprecation_warning():
    import importlib

    from synthcert.privacy import gaussian_release

    old = importlib.import_module("synthcert.privacy.inherent")
    for name in gaussian_release.__all__:
        with pytest.warns(DeprecationWarning, match="synthcert.privacy.gaussian_release"):
            assert getattr(old, name) is getattr(gaussian_release, name)
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018
    assert set(dir(old)) == set(gaussian_release.__all__)

"""Property tests: ε decreases in n and σ, increases in d; on the paper's settings in α too."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.privacy.gaussian_release import (
    alpha_limit,
    epsilon_bounded,
    epsilon_bounded_direct,
    epsilon_per_record,
    epsilon_unbounded,
)

log_n = st.floats(min_value=2.0, max_value=10.0)
dims = st.integers(min_value=1, max_value=30)
log_sigma = st.floats(min_value=-3.0, max_value=0.0)
frac = st.floats(min_value=0.001, max_value=0.98)
step = st.floats(min_value=0.01, max_value=1.0)


def _setting(ln: float, d: int, ls: float, f: float, rel: str):
    n, sigma = int(10**ln), 10**ls
    lim = alpha_limit(n, d, sigma, rel, "corollary")  # bounded: Corollary 3.2's range
    if not lim > 1.0001:
        return None
    return n, sigma, 1.0 + f * (lim - 1.0)


def _eps(alpha, n, d, sigma, rel):
    return float(epsilon_per_record(alpha, n, d, sigma, rel, method="corollary"))


@settings(max_examples=150, deadline=None)
@given(log_n, dims, log_sigma, frac, step, st.sampled_from(("unbounded", "bounded-direct")))
def test_decreases_in_n(ln, d, ls, f, s, rel):
    setting = _setting(ln, d, ls, f, rel)
    if setting is None:
        return
    n, sigma, alpha = setting
    e = _eps(alpha, n, d, sigma, rel)
    bigger = _eps(alpha, n + max(1, int(n * s)), d, sigma, rel)
    assert math.isfinite(e) and bigger <= e * (1 + 1e-12)


@settings(max_examples=150, deadline=None)
@given(log_n, dims, log_sigma, frac, step, st.sampled_from(("unbounded", "bounded-direct")))
def test_decreases_in_sigma_increases_in_d(ln, d, ls, f, s, rel):
    setting = _setting(ln, d, ls, f, rel)
    if setting is None:
        return
    n, sigma, alpha = setting
    e = _eps(alpha, n, d, sigma, rel)
    assert _eps(alpha, n, d, min(1.0, sigma * (1 + s)), rel) <= e * (1 + 1e-12)
    # more dimensions: larger ε, or no certificate at all (+inf)
    assert _eps(alpha, n, d + 1, sigma, rel) >= e * (1 - 1e-12)


@settings(max_examples=12, deadline=None)
@given(st.floats(min_value=3.0, max_value=9.0), st.integers(1, 15), log_sigma, frac, step)
def test_bounded_monotone_in_n_sigma_d(ln, d, ls, f, s):
    setting = _setting(ln, d, ls, f, "bounded")
    if setting is None:
        return
    n, sigma, alpha = setting
    e = float(epsilon_bounded(alpha, n, d, sigma))
    assert math.isfinite(e)
    assert float(epsilon_bounded(alpha, n + max(1, int(n * s)), d, sigma)) <= e * (1 + 1e-9)
    assert float(epsilon_bounded(alpha, n, d, min(1.0, sigma * (1 + s)))) <= e * (1 + 1e-9)
    assert float(epsilon_bounded(alpha, n, d + 1, sigma)) >= e * (1 - 1e-9)


# --- the paper's settings: d = 6, σ = 0.01 (and d = 9 of the thesis) ------------------------
paper_n = st.sampled_from([10**4, 10**5, 10**6, 10**7, 10**8, 10**9])
paper_d = st.sampled_from([6, 9])


@settings(max_examples=40, deadline=None)
@given(paper_n, paper_d, frac, step, st.sampled_from(("unbounded", "bounded")))
def test_paper_settings_increase_in_alpha(n, d, f, s, rel):
    setting = _setting(math.log10(n), d, -2.0, f, rel)
    if setting is None:
        return
    _, sigma, alpha = setting
    lim = alpha_limit(n, d, sigma, rel)
    alpha2 = alpha + s * (lim - alpha) * 0.99
    assert _eps(alpha2, n, d, sigma, rel) >= _eps(alpha, n, d, sigma, rel) * (1 - 1e-9)


def test_direct_bound_is_not_monotone_in_alpha():
    """Seed 001 §3.2 remarks that its α-ε curve has a decreasing part: a property of that bound.

    True Rényi divergences are non-decreasing in α, so a bound that decreases is loose at the
    smaller α (the larger α's value is also valid there). Not a code error: the closed form of
    Theorem 3.2 (seed 001) itself decreases, e.g. α/(2(α−1))·log(1+k) falls as α grows.
    """
    n, sigma = 10**4, 0.01
    e_small = float(epsilon_bounded_direct(1.2, n, 6, sigma))
    e_large = float(epsilon_bounded_direct(4.0, n, 6, sigma))
    assert e_large < e_small


@settings(max_examples=15, deadline=None)
@given(paper_n, paper_d, frac)
def test_paper_settings_bounded_at_least_unbounded(n, d, f):
    setting = _setting(math.log10(n), d, -2.0, f, "bounded")
    if setting is None:
        return
    _, sigma, alpha = setting
    unb = float(epsilon_unbounded(alpha, n, d, sigma))
    assert float(epsilon_bounded(alpha, n, d, sigma)) >= unb
    assert float(epsilon_bounded(alpha, n, d, sigma, variant="paper")) >= unb
    assert float(epsilon_bounded_direct(alpha, n, d, sigma)) >= unb

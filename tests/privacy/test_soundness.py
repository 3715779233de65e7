"""The bounds hold for adversarial neighbouring datasets of D_σ (exact D_α via Prop. 4.1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthcert.privacy.gaussian_release import epsilon_unbounded
from synthcert.privacy.renyi import renyi_gaussian
from synthcert.privacy.soundness import (
    check_dataset_bounds,
    draw_dataset,
    moments,
    smallest_eigenvalue,
    verify_bound,
)


def test_moments_use_the_outer_product():
    x = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    mu, cov = moments(x)
    np.testing.assert_allclose(mu, 0.0)
    np.testing.assert_allclose(cov, 0.5 * np.eye(2))
    np.testing.assert_allclose(cov, np.cov(x.T, bias=True))


def test_datasets_lie_in_the_cube_and_in_d_sigma():
    rng = np.random.default_rng(3)
    for kind in ("uniform", "correlated", "corner-cluster"):
        x = draw_dataset(300, 4, kind, rng)
        assert x.shape == (300, 4) and np.all(np.abs(x) <= 1.0)
        assert smallest_eigenvalue(x) > 0.02


def test_worst_added_record_attains_a_sizeable_share_of_the_bound():
    """A corner-clustered dataset with the far corner added: the adversary finds a tight case."""
    rng = np.random.default_rng(11)
    x = draw_dataset(400, 2, "corner-cluster", rng)
    cases = check_dataset_bounds(x, [0.5], rng, kind="corner-cluster")
    add = [c for c in cases if c.move == "add"]
    best = max(add, key=lambda c: c.ratio)
    assert 0.05 < best.ratio < 1.0
    # the reported exact divergence is the Gaussian D_α of the two datasets, recomputed here
    sig = smallest_eigenvalue(x)
    assert best.sigma <= sig
    assert best.bound == pytest.approx(float(epsilon_unbounded(best.alpha, 400, 2, best.sigma)))


def test_exact_values_are_recomputable():
    rng = np.random.default_rng(5)
    x = draw_dataset(200, 3, "uniform", rng)
    for case in check_dataset_bounds(x, [0.3], rng, optimise=False):
        if case.move == "remove":
            assert case.exact <= case.bound
            assert case.bound_name == "unbounded"
    # direct recomputation for the record at a corner
    rec = np.ones(3)
    x2 = np.vstack([x, rec])
    m1, c1 = moments(x)
    m2, c2 = moments(x2)
    d12 = float(renyi_gaussian(2.0, m1, c1, m2, c2)[0])
    d21 = float(renyi_gaussian(2.0, m2, c2, m1, c1)[0])
    bound = float(
        epsilon_unbounded(2.0, 200, 3, min(smallest_eigenvalue(x), smallest_eigenvalue(x2)))
    )
    assert max(d12, d21) <= bound


def test_small_audit_is_sound():
    report = verify_bound((150, 400), (2, 3), seed=1, alpha_fractions=(0.7,))
    assert report.cases > 30
    assert report.sound and not report.violations
    assert set(report.max_ratio) >= {
        "add/unbounded",
        "remove/unbounded",
        "replace/bounded",
        "replace/bounded-direct",
    }
    assert all(0 < r < 1 for r in report.max_ratio.values())
    assert report.to_dict()["sound"] is True


@pytest.mark.slow
def test_full_audit_is_sound():
    """n ∈ {50, 200, 500}, d ∈ {2, 4, 6}, three kinds, optimised records (about a minute)."""
    report = verify_bound((50, 200, 500), (2, 4, 6), datasets=2, seed=7)
    assert report.sound, report.violations[:3]
    assert math.isfinite(max(report.max_ratio.values()))

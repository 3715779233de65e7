"""Target choice (thesis section 3.3.2): Mahalanobis, divergence, outlier detectors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import mahalanobis

from synthcert.audit.targets import (
    choose_target,
    divergence_scores,
    mahalanobis_distances,
    outlier_scores,
    top_at_risk,
)
from synthcert.errors import AssumptionError, SynthcertError
from synthcert.privacy.renyi import renyi_gaussian


def blob(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ A.T * 0.1
    X[-1] = 1.5  # a planted outlier
    return X


def test_mahalanobis_matches_scipy_with_the_biased_covariance():
    X = blob()
    VI = np.linalg.inv(np.cov(X.T, bias=True))
    ref = np.array([mahalanobis(x, X.mean(0), VI) for x in X])
    np.testing.assert_allclose(mahalanobis_distances(X), ref, rtol=1e-10)


def test_mahalanobis_is_affine_invariant_and_uses_the_pseudo_inverse():
    X = blob(d=3)
    A = np.array([[2.0, 0.3, 0.0], [0.0, 1.0, -1.0], [0.5, 0.0, 3.0]])
    np.testing.assert_allclose(mahalanobis_distances(X @ A.T + 7), mahalanobis_distances(X))
    # a duplicated (collinear) column makes Σ singular; the pseudo-inverse ignores it
    Xs = np.hstack([X, X[:, :1]])
    np.testing.assert_allclose(mahalanobis_distances(Xs), mahalanobis_distances(X), rtol=1e-8)


def test_no_record_exceeds_sqrt_n_minus_one_and_a_lone_category_reaches_it():
    """M² = n·h − 1 ≤ n − 1: the thesis's 173.67 for Adult is sqrt(30,161)."""
    rng = np.random.default_rng(1)
    n = 500
    X = np.column_stack([rng.normal(size=n), -np.ones(n)])
    X[17, 1] = 1.0  # the only member of a category (dummy coded in {-1, 1})
    m = mahalanobis_distances(X)
    assert m.max() == pytest.approx(np.sqrt(n - 1), rel=1e-10)
    assert int(np.argmax(m)) == 17
    assert np.all(m <= np.sqrt(n - 1) + 1e-9)


def test_adult_largest_mahalanobis_is_sqrt_n_minus_one(adult):
    from synthcert.data.datasets import adult_schema
    from synthcert.data.encode import Encoder

    X, _ = Encoder(adult_schema()).encode(adult)
    m = mahalanobis_distances(X)
    i = int(np.argmax(m))
    assert m[i] == pytest.approx(173.67, abs=0.005)
    assert m[i] == pytest.approx(np.sqrt(len(adult) - 1), rel=1e-9)
    assert adult.iloc[i]["native-country"] == "Holand-Netherlands"


def test_divergence_scores_match_the_closed_form_of_seed_000():
    X = blob(n=120, d=3)
    scores = divergence_scores(X, alpha=2.0)
    mu, S = X.mean(0), np.cov(X.T, bias=True)
    for r in (0, 7, 119):
        Z = np.delete(X, r, axis=0)
        mu2, S2 = Z.mean(0), np.cov(Z.T, bias=True)
        ref = max(renyi_gaussian(2.0, mu, S, mu2, S2)[0], renyi_gaussian(2.0, mu2, S2, mu, S)[0])
        assert scores[r] == pytest.approx(ref, rel=1e-8)


def test_divergence_target_is_the_mahalanobis_target_and_infinite_for_a_lone_record():
    X = blob(n=200)
    assert int(np.argmax(divergence_scores(X, 3.0))) == int(np.argmax(mahalanobis_distances(X)))
    rng = np.random.default_rng(2)
    Y = np.column_stack([rng.normal(size=50), -np.ones(50)])
    Y[3, 1] = 1.0
    assert np.isinf(divergence_scores(Y)[3])
    with pytest.raises(AssumptionError):
        divergence_scores(X, alpha=1.0)


@pytest.mark.parametrize("method", ["iforest", "ocsvm"])
def test_outlier_detectors_find_the_planted_outlier(method):
    X = blob(n=400)
    assert int(np.argmax(outlier_scores(X, method, seed=0))) == 399


def test_choose_target_methods():
    X = blob()
    assert choose_target(X, "mah-max")[0].row == 299
    a, b = choose_target(X, "random", seed=5)[0], choose_target(X, "random", seed=5)[0]
    assert a.row == b.row and a.score is None
    c, scores = choose_target(X, 12)
    assert c.row == 12 and c.mahalanobis == pytest.approx(scores[12])
    with pytest.raises(SynthcertError, match="outside"):
        choose_target(X, 300)
    with pytest.raises(SynthcertError, match="unknown target"):
        choose_target(X, "lof")
    rows, vals = top_at_risk(scores, 5)
    assert rows[0] == 299 and np.all(np.diff(vals) <= 0)


def test_california_largest_mahalanobis_is_the_thesis_outlier(california):
    """Seed 003 reports 119.52 on scikit-learn's 20,640 rows; our copy lacks 207 bedroom counts
    (Géron removed them), and on the 20,433 complete rows the same block scores 118.92."""
    from synthcert.data.datasets import california_sklearn_features, california_sklearn_schema
    from synthcert.data.encode import Encoder

    features = california_sklearn_features(california)
    m = mahalanobis_distances(Encoder(california_sklearn_schema()).encode(features)[0])
    i = int(np.argmax(m))
    assert m[i] == pytest.approx(118.92, abs=0.005)
    assert m[i] == pytest.approx(119.52, rel=0.006)
    assert features.iloc[i]["AveOccup"] == pytest.approx(1243.33, abs=0.005)

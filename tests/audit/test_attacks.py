"""The inference methods of section 3.3.3 on hand-made tables."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from synthcert.audit.attacks import (
    ATTACK_NAMES,
    THESIS_ATTACKS,
    AttackContext,
    AttackParams,
    SyntheticTable,
    make_attack,
    parse_attacks,
)
from synthcert.audit.attacks.distance import nearest_distance_sum
from synthcert.audit.attacks.learned import chunk_features, hist_features
from synthcert.errors import SynthcertError

RNG = np.random.default_rng(0)


def test_parse_attacks():
    assert len(THESIS_ATTACKS) == 10 and len(parse_attacks("all")) == 11
    assert parse_attacks("distance, statistics,distance") == ["distance", "statistics"]
    assert parse_attacks("thesis") == list(THESIS_ATTACKS)
    with pytest.raises(SynthcertError):
        parse_attacks("svm-hist")


def test_nearest_distance_sum_eq_3_4():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 0.0], [10.0, 0.0]])
    assert nearest_distance_sum(X, np.zeros(2), 2) == pytest.approx(1.0)
    assert nearest_distance_sum(X, np.zeros(2), 3) == pytest.approx(6.0)
    ctx = AttackContext(np.zeros(2), [], AttackParams(c3=3))
    a = make_attack("distance")
    assert a.score([a.features(SyntheticTable(X), ctx, RNG)])[0] == pytest.approx(-6.0)


def test_statistics_attack_is_the_gaussian_log_likelihood_ratio_of_eq_3_3():
    ctx = AttackContext(np.zeros(3), [], AttackParams(c2=4))
    pos = [SyntheticTable(RNG.normal(0.2, 1.0, (50, 3))) for _ in range(4)]
    neg = [SyntheticTable(RNG.normal(0.0, 1.0, (50, 3))) for _ in range(4)]
    a = make_attack("statistics")
    a.fit(
        ctx,
        [a.shadow_features(t, ctx, RNG) for t in pos],
        [a.shadow_features(t, ctx, RNG) for t in neg],
    )
    target = SyntheticTable(RNG.normal(0.1, 1.0, (50, 3)))
    im = a.score([a.features(target, ctx, RNG)])[0]
    m = target.X.mean(0)

    def side(ts):
        mu = np.mean([t.X.mean(0) for t in ts], axis=0)
        cov = np.mean([np.cov(t.X.T, bias=True) for t in ts], axis=0)
        return multivariate_normal(mu, cov).logpdf(m)

    assert im == pytest.approx(side(pos) - side(neg), rel=1e-6)


def test_calibrated_statistics_separates_a_mean_shift_of_one_record():
    """n = 2000 rows, one record moved far: the calibrated attack sees it clearly."""
    ctx = AttackContext(np.zeros(2), [], AttackParams(c2=10))
    base = RNG.normal(size=(2000, 2))

    def tables(shift, k):
        out = []
        for _ in range(k):
            X = base + RNG.normal(scale=0.01, size=base.shape)
            X[0] += shift
            out.append(SyntheticTable(X))
        return out

    a = make_attack("statistics-calibrated")
    sf = lambda ts: [a.shadow_features(t, ctx, RNG) for t in ts]  # noqa: E731
    a.fit(ctx, sf(tables(30.0, 10)), sf(tables(0.0, 10)))
    ims_pos = a.score([a.features(t, ctx, RNG) for t in tables(30.0, 20)])
    ims_neg = a.score([a.features(t, ctx, RNG) for t in tables(0.0, 20)])
    assert ims_pos.min() > ims_neg.max()


def test_feature_sets():
    X = RNG.uniform(-1, 1, (100, 3))
    F = chunk_features(X, 10, 7, np.random.default_rng(1))
    assert F.shape == (7, 30)
    codes = np.column_stack([RNG.integers(0, 4, 100), RNG.integers(0, 2, 100)])
    H = hist_features(codes, [4, 2])
    assert H.shape == (1, 6)
    assert H[0, :4].sum() == pytest.approx(1.0) and H[0, 4:].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("name", [n for n in ATTACK_NAMES if "-" in n and "calibrated" not in n])
def test_learned_attacks_learn_an_obvious_signal(name):
    """A table with the target's bin filled vs empty: every learned attack separates them."""
    cards = [5, 5]
    ctx = AttackContext(np.zeros(2), cards, AttackParams(c1=10, chunks=20), seed=0)

    def table(pos):
        X = RNG.uniform(-1, -0.2, (200, 2))
        codes = RNG.integers(0, 3, (200, 2))
        if pos:
            X[:100] = RNG.uniform(0.5, 1.0, (100, 2))
            codes[:100] = 4
        return SyntheticTable(X, codes)

    a = make_attack(name)
    f = lambda ts: [a.shadow_features(t, ctx, np.random.default_rng(i)) for i, t in enumerate(ts)]  # noqa: E731
    a.fit(ctx, f([table(True) for _ in range(6)]), f([table(False) for _ in range(6)]))
    ims_pos = a.score(f([table(True) for _ in range(5)]))
    ims_neg = a.score(f([table(False) for _ in range(5)]))
    assert ims_pos.min() > ims_neg.max(), (ims_pos, ims_neg)

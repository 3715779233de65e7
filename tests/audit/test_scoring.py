"""Scores: AUC, bootstrap interval, TPR at low FPR, the empirical ε lower bound."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

from synthcert.audit.scoring import (
    AttackScore,
    auc,
    auc_bootstrap_ci,
    bound_ceiling,
    clopper_pearson,
    epsilon_lower_bound,
    independent_scores,
    runs_needed,
    score_attack,
    tpr_at_fpr,
)
from synthcert.errors import SynthcertError

floats = st.lists(st.integers(-5, 5).map(float), min_size=1, max_size=30)


@given(floats, floats)
@settings(max_examples=60, deadline=None)
def test_auc_matches_sklearn_and_is_antisymmetric(pos, neg):
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    if len(set(y)) == 2:
        assert auc(pos, neg) == pytest.approx(roc_auc_score(y, np.r_[pos, neg]))
    assert auc(pos, neg) + auc(neg, pos) == pytest.approx(1.0)


def test_bootstrap_interval_covers_the_auc():
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(0.5, 1, 300), rng.normal(0, 1, 300)
    lo, hi = auc_bootstrap_ci(pos, neg, seed=1)
    assert lo < auc(pos, neg) < hi and 0.05 < hi - lo < 0.15


def _rank_bootstrap(pos, neg, n_boot, seed, level=0.95):
    """Independent reference: the same resamples, each AUC from scipy's average ranks."""
    rng = np.random.default_rng(seed)
    batch = max(1, 2_000_000 // (pos.size + neg.size))
    aucs = []
    for start in range(0, n_boot, batch):
        b = min(batch, n_boot - start)
        ip = rng.integers(pos.size, size=(b, pos.size))
        ineg = rng.integers(neg.size, size=(b, neg.size))
        ranks = stats.rankdata(np.concatenate([pos[ip], neg[ineg]], axis=1), axis=1)
        u = ranks[:, : pos.size].sum(axis=1) - pos.size * (pos.size + 1) / 2.0
        aucs.append(u / (pos.size * neg.size))
    a = (1.0 - level) / 2.0
    return float(np.quantile(np.concatenate(aucs), a)), float(
        np.quantile(np.concatenate(aucs), 1 - a)
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-4, 4), min_size=1, max_size=80),
    st.lists(st.integers(-4, 4), min_size=1, max_size=80),
    st.integers(1, 300),
    st.integers(0, 2**31 - 1),
)
def test_bootstrap_counts_give_exactly_the_rank_sum_aucs(pos, neg, n_boot, seed):
    """The counting U statistic equals the rank-sum one bit for bit, ties included."""
    pos, neg = np.array(pos, float) / 2, np.array(neg, float) / 2  # many ties
    got = auc_bootstrap_ci(pos, neg, n_boot=n_boot, seed=seed)
    assert got == _rank_bootstrap(pos, neg, n_boot, seed)


def test_bootstrap_counts_match_ranks_across_memory_batches():
    rng = np.random.default_rng(5)
    pos = np.round(rng.normal(0.2, 1, 1500), 2)
    neg = np.round(rng.normal(0.0, 1, 1700), 2)
    neg[:5] = np.inf
    # 2e6 // 3200 = 625 resamples a batch: two batches
    assert auc_bootstrap_ci(pos, neg, n_boot=900, seed=3) == _rank_bootstrap(pos, neg, 900, 3)


def test_tpr_at_fpr():
    neg = np.arange(100.0)  # FPR ≤ 1 % allows one negative above the threshold
    pos = np.array([98.5] * 5 + [200.0] * 5)
    assert tpr_at_fpr(pos, neg, 0.01) == 1.0
    assert tpr_at_fpr(pos, neg, 0.001) == 0.5


def test_clopper_pearson_matches_scipy_binomtest():
    lo, hi = clopper_pearson(np.array([7]), 40, 0.025)
    ci = stats.binomtest(7, 40).proportion_ci(0.95, method="exact")
    assert lo[0] == pytest.approx(ci.low) and hi[0] == pytest.approx(ci.high)


def test_epsilon_bound_of_a_perfect_attack():
    """300 vs 300 perfectly separated: a = 0.05/(300 + 300), one interval per count level."""
    b = epsilon_lower_bound(np.arange(300.0) + 1000, np.arange(300.0))
    a = 0.05 / 600
    # the best threshold keeps TP = 300, FP = 0: ε ≥ log(a^(1/300) / (1 − a^(1/300)))
    q = a ** (1 / 300)
    assert b.thresholds_tested == 600 and b.runs_pos == b.runs_neg == 300
    assert b.epsilon == pytest.approx(np.log(q / (1 - q)), rel=1e-9)
    assert b.ceiling == pytest.approx(b.epsilon) and b.valid and b.reason is None
    # a family of 4 attacks shares the 5 %: a = 0.05/(4·600)
    q4 = (0.05 / 2400) ** (1 / 300)
    four = epsilon_lower_bound(np.arange(300.0) + 1000, np.arange(300.0), family=4)
    assert four.epsilon == pytest.approx(np.log(q4 / (1 - q4)), rel=1e-9)


def test_too_few_runs_give_no_bound_with_the_reason():
    """3 fits a side (the default trials, one run per fit) can show nothing: None, not 0."""
    b = epsilon_lower_bound(np.ones(3), np.zeros(3), unit="fit", tables_per_run=100)
    assert b.epsilon is None and not b.valid and b.ceiling == 0.0
    assert "3 and 3 independent runs" in b.reason and "one per fit" in b.reason
    assert f"at least {runs_needed()} a side" in b.reason
    # runs_needed is the first size whose perfect separation proves ε > 0
    n = runs_needed()
    assert bound_ceiling(n, n) > 0 >= bound_ceiling(n - 1, n - 1)
    assert runs_needed(family=11) > n and runs_needed(delta=0.3) > n
    s = score_attack("x", np.ones((3, 100)), np.zeros((3, 100)), unit="fit")
    assert s.epsilon_lower_bound is None and s.valid_bound is None
    assert s.auc == 1.0 and s.n_pos == 300  # AUC and TPR still use every table
    assert s.epsilon_bound.tables_per_run == 100


def test_one_score_per_fit_is_the_mean_of_its_tables():
    ims = np.array([[1.0, 3.0, 5.0], [0.0, np.inf, 1.0], [np.inf, -np.inf, 2.0]])
    assert independent_scores(ims, "fit").tolist() == [3.0, np.inf, 2.0]  # median when undefined
    assert independent_scores(ims, "table").size == 9
    assert independent_scores(np.arange(4.0), "fit").tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(SynthcertError, match="unit"):
        independent_scores(ims, "generation")


def test_old_documents_without_a_run_unit_hold_no_valid_bound():
    """A bound written before the runs were checked for independence is read, never used."""
    s = score_attack("x", np.ones(50), np.zeros(50))
    doc = s.to_dict()
    for key in ("unit", "runs_pos", "runs_neg", "tables_per_run", "family", "ceiling", "reason"):
        del doc["epsilon_bound"][key]
    old = AttackScore.from_dict(doc)
    assert old.epsilon_lower_bound == s.epsilon_lower_bound > 0
    assert old.valid_bound is None and s.valid_bound == s.epsilon_lower_bound


def test_epsilon_bound_is_zero_without_signal_and_respects_delta():
    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    assert epsilon_lower_bound(x[:200], x[200:]).epsilon == 0.0
    strong = epsilon_lower_bound(np.full(100, 1.0), np.zeros(100)).epsilon
    weaker = epsilon_lower_bound(np.full(100, 1.0), np.zeros(100), delta=0.5).epsilon
    assert 0 < weaker < strong


def test_score_attack_fields():
    s = score_attack("x", [1.0, 2.0, 3.0], [0.0, 0.5, 2.5])
    assert s.auc == pytest.approx(7 / 9)
    assert s.to_dict()["auc_ci"][0] <= s.auc

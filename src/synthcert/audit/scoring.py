"""Scores of an attack from its IMs: AUC (section 3.4.1 of seed 003), TPR at low FPR, and the
empirical lower bound on ε implied by the attack (Jagielski et al. 2020; Nasr et al. 2021).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from synthcert._result import Result
from synthcert.errors import SynthcertError


@dataclass(frozen=True)
class EpsilonBound(Result):
    """ε lower bound at the best threshold (IM ≥ threshold guesses D_pos), with its rates.

    Attributes
    ----------
    epsilon : float
        The lower bound on ε (0 when no threshold beats chance at ``confidence``).
    threshold : float or None
        The IM threshold that attains it.
    tpr_lower, fpr_upper : float
        Clopper-Pearson bounds on the TPR and FPR there.
    """

    epsilon: float
    threshold: float | None
    tpr: float
    fpr: float
    tpr_lower: float
    fpr_upper: float
    delta: float
    confidence: float
    thresholds_tested: int


@dataclass(frozen=True)
class AttackScore(Result):
    """How well one attack separates IMs of D_pos tables from IMs of D_neg tables.

    Attributes
    ----------
    name : str
        The attack.
    auc : float
        Area under the ROC curve.
    auc_ci : tuple of float
        Its bootstrap interval.
    tpr_at_1pct_fpr, tpr_at_01pct_fpr : float
        TPR at 1 % and 0.1 % FPR.
    epsilon_lower_bound : float
        ε of :attr:`epsilon_bound`.
    epsilon_bound : EpsilonBound
        The ε lower bound and where it is attained.
    """

    name: str
    auc: float
    auc_ci: tuple[float, float]
    tpr_at_1pct_fpr: float
    tpr_at_01pct_fpr: float
    epsilon_lower_bound: float
    epsilon_bound: EpsilonBound
    n_pos: int
    n_neg: int


def _check(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pos = np.asarray(pos, dtype=np.float64).ravel()
    neg = np.asarray(neg, dtype=np.float64).ravel()
    if pos.size == 0 or neg.size == 0:
        raise SynthcertError("scoring needs at least one IM from each side")
    if np.isnan(pos).any() or np.isnan(neg).any():
        raise SynthcertError("an attack produced NaN inference measures")
    return pos, neg


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P[IM_pos > IM_neg] + ½ P[IM_pos = IM_neg] (Mann-Whitney), the AUC of section 3.4.1.

    Parameters
    ----------
    pos, neg : numpy.ndarray
        IMs of the tables drawn from fits on D_pos and on D_neg.

    Returns
    -------
    float
        The AUC (0.5: no better than chance).

    Examples
    --------
    >>> import numpy as np
    >>> auc(np.array([0.9, 0.8, 0.7, 0.4]), np.array([0.1, 0.3, 0.5, 0.6]))
    0.875
    """
    pos, neg = _check(pos, neg)
    ranks = stats.rankdata(np.concatenate([pos, neg]))
    u = ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2.0
    return float(u / (pos.size * neg.size))


def auc_bootstrap_ci(
    pos: np.ndarray, neg: np.ndarray, *, level: float = 0.95, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the AUC, resampling each side separately.

    Parameters
    ----------
    pos, neg : numpy.ndarray
        IMs of the two sides.
    level : float
        Coverage of the interval.
    n_boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resampling.

    Returns
    -------
    tuple of float
        (lower, upper).

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = auc_bootstrap_ci(np.array([0.9, 0.8, 0.7, 0.4]), np.array([0.1, 0.3, 0.5, 0.6]))
    >>> bool(lo <= 0.875 <= hi)
    True
    """
    pos, neg = _check(pos, neg)
    rng = np.random.default_rng(seed)
    batch = max(1, 2_000_000 // (pos.size + neg.size))  # bounded memory for long audits
    # Mann-Whitney U of a resample by counting, not ranking: U = Σ_i #{Q < P_i} + ½ #{Q = P_i}
    # (the rank sum of P minus n_pos(n_pos+1)/2). With neg sorted, the neg values below pos[i]
    # are the sorted positions < lo[i] and those equal to it the positions in [lo[i], hi[i]),
    # so with c the cumulative multiplicities of the resampled neg over sorted positions,
    # 2U = Σ_i c[lo[ip_i]] + c[hi[ip_i]]: an exact integer, hence the same U as the ranks give.
    order = np.argsort(neg, kind="stable")
    rank = np.empty(neg.size, dtype=np.int64)
    rank[order] = np.arange(neg.size)
    lo = np.searchsorted(neg[order], pos, side="left")
    hi = np.searchsorted(neg[order], pos, side="right")
    parts = []
    for start in range(0, n_boot, batch):
        b = min(batch, n_boot - start)
        ip = rng.integers(pos.size, size=(b, pos.size))
        ineg = rng.integers(neg.size, size=(b, neg.size))
        flat = (rank[ineg] + neg.size * np.arange(b)[:, None]).ravel()
        counts = np.bincount(flat, minlength=b * neg.size).reshape(b, neg.size)
        c = np.zeros((b, neg.size + 1), dtype=np.int64)
        np.cumsum(counts, axis=1, out=c[:, 1:])
        twice_u = (np.take_along_axis(c, lo[ip], 1) + np.take_along_axis(c, hi[ip], 1)).sum(1)
        parts.append((twice_u / 2.0) / (pos.size * neg.size))
    aucs = np.concatenate(parts)
    a = (1.0 - level) / 2.0
    return float(np.quantile(aucs, a)), float(np.quantile(aucs, 1.0 - a))


def roc_curve(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fpr, tpr, thresholds) of the rule IM ≥ threshold, from (0,0) to (1,1).

    Parameters
    ----------
    pos, neg : numpy.ndarray
        IMs of the two sides.

    Returns
    -------
    tuple of numpy.ndarray
        (fpr, tpr, thresholds), the first threshold +inf.

    Examples
    --------
    >>> import numpy as np
    >>> fpr, tpr, _ = roc_curve(np.array([2.0, 1.0]), np.array([0.0, 1.5]))
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    pos, neg = _check(pos, neg)
    thr = np.unique(np.concatenate([pos, neg]))[::-1]
    ps, ns = np.sort(pos), np.sort(neg)
    tpr = (pos.size - np.searchsorted(ps, thr, side="left")) / pos.size
    fpr = (neg.size - np.searchsorted(ns, thr, side="left")) / neg.size
    return (
        np.concatenate([[0.0], fpr]),
        np.concatenate([[0.0], tpr]),
        np.concatenate([[np.inf], thr]),
    )


def tpr_at_fpr(pos: np.ndarray, neg: np.ndarray, fpr: float) -> float:
    """Largest TPR of a threshold rule whose empirical FPR is at most ``fpr``.

    Parameters
    ----------
    pos, neg : numpy.ndarray
        IMs of the two sides.
    fpr : float
        The largest false-positive rate allowed.

    Returns
    -------
    float
        The TPR.

    Examples
    --------
    >>> import numpy as np
    >>> tpr_at_fpr(np.array([0.9, 0.8, 0.7, 0.4]), np.array([0.1, 0.3, 0.5, 0.6]), 0.0)
    0.75
    """
    f, t, _ = roc_curve(pos, neg)
    ok = f <= fpr + 1e-12
    return float(np.max(t[ok]))


def clopper_pearson(k: np.ndarray, n: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper-Pearson bounds at level 1 − a each: (lower, upper) on k/n."""
    k = np.asarray(k, dtype=np.float64)
    lower = np.where(k > 0, stats.beta.ppf(a, k, n - k + 1), 0.0)
    upper = np.where(k < n, stats.beta.ppf(1.0 - a, k + 1, n - k), 1.0)
    return lower, upper


def epsilon_lower_bound(
    pos: np.ndarray, neg: np.ndarray, *, delta: float = 0.0, confidence: float = 0.95
) -> EpsilonBound:
    """Empirical ε of an (ε, δ)-DP test: max over thresholds of the DP hypothesis-test bounds.

    (ε, δ)-DP forces TPR ≤ e^ε·FPR + δ and 1 − FPR ≤ e^ε·(1 − TPR) + δ for any rule, so
    ε ≥ max(log((TPR − δ)/FPR), log((1 − FPR − δ)/(1 − TPR))). TPR is replaced by its lower and
    FPR by its upper Clopper-Pearson bound; a union (Bonferroni) bound over the 2·T intervals of
    the T thresholds tried keeps the whole statement at ``confidence``, so the best threshold
    can be chosen on the same IMs. IMs are taken as independent draws: this holds when each IM
    comes from its own run of the mechanism, or given a deterministic fit (the certified
    Gaussian release, whose randomness is all in sampling).

    Parameters
    ----------
    pos, neg : numpy.ndarray
        IMs of the two sides; each IM must come from an independent run of the mechanism.
    delta : float
        δ of the (ε, δ)-DP hypothesis, 0 ≤ δ < 1.
    confidence : float
        Confidence of the Clopper-Pearson bounds.

    Returns
    -------
    EpsilonBound
        The bound and where it is attained.

    Raises
    ------
    SynthcertError
        When δ is out of range, a side is empty or an IM is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> round(epsilon_lower_bound(np.ones(100), np.zeros(100)).epsilon, 3)
    3.106
    """
    pos, neg = _check(pos, neg)
    if not 0 <= delta < 1:
        raise SynthcertError(f"delta must lie in [0, 1), got {delta}")
    fpr, tpr, thr = roc_curve(pos, neg)
    tpr, fpr, thr = tpr[1:], fpr[1:], thr[1:]
    T = thr.size
    a = (1.0 - confidence) / (2.0 * T)
    tp = np.rint(tpr * pos.size)
    fp = np.rint(fpr * neg.size)
    tpr_lo, _ = clopper_pearson(tp, pos.size, a)
    _, fpr_hi = clopper_pearson(fp, neg.size, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        e1 = np.log(np.clip(tpr_lo - delta, 0, None) / fpr_hi)
        e2 = np.log(np.clip(1.0 - fpr_hi - delta, 0, None) / (1.0 - tpr_lo))
    eps = np.nan_to_num(np.maximum(e1, e2), nan=0.0, neginf=0.0, posinf=np.inf)
    i = int(np.argmax(eps))
    best = float(max(eps[i], 0.0))
    return EpsilonBound(
        epsilon=best,
        threshold=float(thr[i]) if best > 0 else None,
        tpr=float(tpr[i]),
        fpr=float(fpr[i]),
        tpr_lower=float(tpr_lo[i]),
        fpr_upper=float(fpr_hi[i]),
        delta=float(delta),
        confidence=float(confidence),
        thresholds_tested=int(T),
    )


def score_attack(
    name: str,
    pos: np.ndarray,
    neg: np.ndarray,
    *,
    delta: float = 0.0,
    confidence: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
) -> AttackScore:
    """All scores of one attack.

    Parameters
    ----------
    name : str
        The attack.
    pos, neg : numpy.ndarray
        IMs of the two sides.
    delta : float
        δ of the ε lower bound.
    confidence : float
        Confidence of its intervals.
    n_boot : int
        Bootstrap resamples of the AUC interval.
    seed : int
        Seed of the bootstrap.

    Returns
    -------
    AttackScore
        AUC and interval, TPR at low FPR, the ε lower bound.

    Raises
    ------
    SynthcertError
        As :func:`epsilon_lower_bound`.

    Examples
    --------
    >>> import numpy as np
    >>> score_attack("distance", np.array([0.9, 0.8, 0.7, 0.4]), np.array([0.1, 0.3, 0.5, 0.6])).auc
    0.875
    """
    pos, neg = _check(pos, neg)
    bound = epsilon_lower_bound(pos, neg, delta=delta, confidence=confidence)
    return AttackScore(
        name=name,
        auc=auc(pos, neg),
        auc_ci=auc_bootstrap_ci(pos, neg, level=confidence, n_boot=n_boot, seed=seed),
        tpr_at_1pct_fpr=tpr_at_fpr(pos, neg, 0.01),
        tpr_at_01pct_fpr=tpr_at_fpr(pos, neg, 0.001),
        epsilon_lower_bound=bound.epsilon,
        epsilon_bound=bound,
        n_pos=int(pos.size),
        n_neg=int(neg.size),
    )

"""Scores of an attack from its IMs: AUC (section 3.4.1 of seed 003), TPR at low FPR, and the
empirical lower bound on ε implied by the attack (Jagielski et al. 2020; Nasr et al. 2021).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from synthcert._result import Result
from synthcert.errors import SynthcertError
from synthcert.privacy.parameters import check_delta

# How the IMs of a game are grouped into independent runs of the mechanism (fit + sampling)
RUN_UNITS = ("fit", "table")
UNIT_TEXT = {
    "fit": "one per fit: the synthesizer draws randomness when it is fitted, so the tables of "
    "one fit are one run",
    "table": "one per table: the fit is deterministic, all randomness is in sampling",
}
MAX_RUNS = 10**7  # the search of :func:`runs_needed` stops here


@dataclass(frozen=True)
class EpsilonBound(Result):
    """ε lower bound at the best threshold (IM ≥ threshold guesses D_pos), with its rates.

    Attributes
    ----------
    epsilon : float or None
        The lower bound on ε (0 when no threshold beats chance at ``confidence``); None when
        the runs cannot give a valid bound (see ``reason``).
    threshold : float or None
        The score threshold that attains it.
    tpr, fpr : float
        Empirical rates of the independent runs there (NaN without a bound).
    tpr_lower, fpr_upper : float
        Clopper-Pearson bounds on the TPR and FPR there (NaN without a bound).
    delta : float
        δ of the (ε, δ) hypothesis.
    confidence : float
        Confidence of the statement, shared by the ``family`` bounds of one audit.
    thresholds_tested : int
        Distinct thresholds of the independent runs.
    unit : str or None
        ``fit`` (one score per fit: the mean IM of its tables) or ``table`` (one score per
        table); None in documents written before the runs were checked for independence,
        whose bound is not valid.
    runs_pos, runs_neg : int
        Independent runs on each side.
    tables_per_run : int
        Tables whose IMs make up one run's score.
    family : int
        Bounds (attacks) sharing ``confidence``.
    ceiling : float or None
        The largest bound any scores could give with these runs (perfect separation).
    reason : str or None
        Why ``epsilon`` is None.
    """

    epsilon: float | None
    threshold: float | None
    tpr: float
    fpr: float
    tpr_lower: float
    fpr_upper: float
    delta: float
    confidence: float
    thresholds_tested: int
    unit: str | None = None
    runs_pos: int = 0
    runs_neg: int = 0
    tables_per_run: int = 1
    family: int = 1
    ceiling: float | None = None
    reason: str | None = None

    @property
    def valid(self) -> bool:
        """Whether ``epsilon`` is a bound from independent runs (not None, unit known)."""
        return self.epsilon is not None and self.unit in RUN_UNITS


@dataclass(frozen=True)
class AttackScore(Result):
    """How well one attack separates IMs of D_pos tables from IMs of D_neg tables.

    Attributes
    ----------
    name : str
        The attack.
    auc : float
        Area under the ROC curve (over all tables).
    auc_ci : tuple of float
        Its bootstrap interval.
    tpr_at_1pct_fpr, tpr_at_01pct_fpr : float
        TPR at 1 % and 0.1 % FPR (over all tables).
    epsilon_lower_bound : float or None
        ε of :attr:`epsilon_bound` (None: no valid bound, see its ``reason``).
    epsilon_bound : EpsilonBound
        The ε lower bound from the independent runs and where it is attained.
    n_pos, n_neg : int
        IMs (tables) of each side.
    """

    name: str
    auc: float
    auc_ci: tuple[float, float]
    tpr_at_1pct_fpr: float
    tpr_at_01pct_fpr: float
    epsilon_lower_bound: float | None
    epsilon_bound: EpsilonBound
    n_pos: int
    n_neg: int

    @property
    def valid_bound(self) -> float | None:
        """The ε lower bound when it is valid (independent runs), else None.

        A document written before the runs were checked for independence (no ``unit``) has
        none, whatever number it holds.
        """
        if not self.epsilon_bound.valid or self.epsilon_lower_bound is None:
            return None
        value = float(self.epsilon_lower_bound)
        return value if math.isfinite(value) or value == math.inf else None


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


@functools.lru_cache(maxsize=64)
def _bounds_by_count(n: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`clopper_pearson` for every count 0..n (the same for every attack of an audit)."""
    lower, upper = clopper_pearson(np.arange(n + 1), n, a)
    lower.flags.writeable = upper.flags.writeable = False
    return lower, upper


def _test_epsilon(tpr_lo: np.ndarray, fpr_hi: np.ndarray, delta: float) -> np.ndarray:
    """max(log((TPR − δ)/FPR), log((1 − FPR − δ)/(1 − TPR))) at the rates' bounds, ≥ 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        e1 = np.log(np.clip(tpr_lo - delta, 0, None) / fpr_hi)
        e2 = np.log(np.clip(1.0 - fpr_hi - delta, 0, None) / (1.0 - tpr_lo))
    return np.nan_to_num(np.maximum(e1, e2), nan=0.0, neginf=0.0, posinf=np.inf)


def interval_level(n_pos: int, n_neg: int, confidence: float, family: int = 1) -> float:
    """One-sided level a of each Clopper-Pearson bound: (1 − confidence)/(family·(n_pos + n_neg)).

    The TPR lower bound at a threshold depends on the data only through the number j of D_pos
    scores at or above it, and fails only in an event E_j of probability ≤ a (for each
    j = 1..n_pos, the up-set whose rate is below the bound for j holds j scores or more: a
    binomial tail at the bound's own rate, which is a by construction); likewise the FPR upper
    bound for j = 0..n_neg − 1. So the union bound over these n_pos + n_neg events holds for
    every threshold at once, however the thresholds are chosen from the data; ``family``
    splits ``confidence`` further between the attacks of one audit.
    """
    return (1.0 - confidence) / (family * (n_pos + n_neg))


def bound_ceiling(
    n_pos: int, n_neg: int, *, delta: float = 0.0, confidence: float = 0.95, family: int = 1
) -> float:
    """The largest ε lower bound ``n_pos`` and ``n_neg`` runs can give: every D_pos score above
    every D_neg score (TP = n_pos, FP = 0), where TPR ≥ a^(1/n_pos) and FPR ≤ 1 − a^(1/n_neg).

    Parameters
    ----------
    n_pos, n_neg : int
        Independent runs on each side.
    delta, confidence, family : float, float, int
        As :func:`epsilon_lower_bound`.

    Returns
    -------
    float
        The ceiling (0 when no outcome could show ε > 0).

    Examples
    --------
    >>> bound_ceiling(3, 3), round(bound_ceiling(300, 300), 3)
    (0.0, 3.448)
    """
    a = interval_level(n_pos, n_neg, confidence, family)
    # the Clopper-Pearson bounds of n of n and of 0 of n, in closed form
    tpr_lo, fpr_hi = np.array([a ** (1.0 / n_pos)]), np.array([1.0 - a ** (1.0 / n_neg)])
    return float(max(_test_epsilon(tpr_lo, fpr_hi, delta)[0], 0.0))


def runs_needed(*, delta: float = 0.0, confidence: float = 0.95, family: int = 1) -> int | None:
    """Fewest runs per side whose :func:`bound_ceiling` is above 0 (None beyond ``MAX_RUNS``).

    Examples
    --------
    >>> runs_needed()
    9
    """

    def ok(n: int) -> bool:
        return bound_ceiling(n, n, delta=delta, confidence=confidence, family=family) > 0

    hi = 1
    while not ok(hi):
        if hi >= MAX_RUNS:
            return None
        hi = min(2 * hi, MAX_RUNS)
    lo = hi // 2  # ok(hi), not ok(lo) (lo = 0 when hi = 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def independent_scores(ims: np.ndarray, unit: str) -> np.ndarray:
    """The scores of the independent runs of a (trials, generations) IM array.

    ``table``: every IM (one per table; valid when the fit is deterministic). ``fit``: one
    score per fit, the mean of its tables' IMs (the median where the mean is undefined,
    +inf and −inf together); a function of one run's output, so post-processing of it.

    Parameters
    ----------
    ims : numpy.ndarray
        IMs of one side, one row per fit (a 1-D array: one table per fit).
    unit : {"fit", "table"}
        What one independent run is.

    Returns
    -------
    numpy.ndarray
        One score per independent run.

    Examples
    --------
    >>> import numpy as np
    >>> independent_scores(np.array([[1.0, 3.0], [0.0, 0.0]]), "fit").tolist()
    [2.0, 0.0]
    """
    if unit not in RUN_UNITS:
        raise SynthcertError(f"unit must be one of {', '.join(RUN_UNITS)}, not {unit!r}")
    ims = np.asarray(ims, dtype=np.float64)
    if ims.ndim < 2 or unit == "table":
        return ims.ravel()
    with np.errstate(invalid="ignore"):
        mean = ims.mean(axis=1)
    return np.where(np.isnan(mean), np.median(ims, axis=1), mean)


def epsilon_lower_bound(
    pos: np.ndarray,
    neg: np.ndarray,
    *,
    delta: float = 0.0,
    confidence: float = 0.95,
    unit: str = "table",
    tables_per_run: int = 1,
    family: int = 1,
) -> EpsilonBound:
    """Empirical ε of an (ε, δ)-DP test from independent runs: max over thresholds of the DP
    hypothesis-test bounds (Jagielski et al. 2020; Nasr et al. 2021).

    (ε, δ)-DP forces TPR ≤ e^ε·FPR + δ and 1 − FPR ≤ e^ε·(1 − TPR) + δ for any rule, so
    ε ≥ max(log((TPR − δ)/FPR), log((1 − FPR − δ)/(1 − TPR))). TPR is replaced by its lower and
    FPR by its upper one-sided Clopper-Pearson bound at level a of :func:`interval_level`,
    which holds for every threshold at once, so the best threshold can be chosen on the same
    scores. Each score must come from its own run of the mechanism (fit and sampling):
    :func:`independent_scores` makes them. Where even perfectly separated scores could not show
    ε > 0 (:func:`bound_ceiling` is 0: too few runs) the bound is None with the reason.

    Parameters
    ----------
    pos, neg : numpy.ndarray
        Scores of the two sides, one per independent run.
    delta : float
        δ of the (ε, δ)-DP hypothesis, 0 ≤ δ < 1.
    confidence : float
        Confidence of the statement (shared by ``family`` bounds).
    unit : {"fit", "table"}
        What one run is (recorded, and named in the reason).
    tables_per_run : int
        Tables per run (recorded).
    family : int
        Bounds of one audit sharing ``confidence`` (Bonferroni over the attacks).

    Returns
    -------
    EpsilonBound
        The bound and where it is attained.

    Raises
    ------
    SynthcertError
        When δ is out of range, a side is empty or a score is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> round(epsilon_lower_bound(np.ones(100), np.zeros(100)).epsilon, 3)
    2.448
    >>> epsilon_lower_bound(np.ones(3), np.zeros(3), unit="fit").epsilon is None
    True
    """
    pos, neg = _check(pos, neg)
    check_delta(delta)
    if unit not in RUN_UNITS:
        raise SynthcertError(f"unit must be one of {', '.join(RUN_UNITS)}, not {unit!r}")
    fpr, tpr, thr = roc_curve(pos, neg)
    tpr, fpr, thr = tpr[1:], fpr[1:], thr[1:]
    T = thr.size
    common = dict(
        delta=float(delta), confidence=float(confidence), thresholds_tested=int(T), unit=unit,
        runs_pos=int(pos.size), runs_neg=int(neg.size), tables_per_run=int(tables_per_run),
        family=int(family),
    )  # fmt: skip
    ceiling = bound_ceiling(pos.size, neg.size, delta=delta, confidence=confidence, family=family)
    if ceiling <= 0:
        need = runs_needed(delta=delta, confidence=confidence, family=family)
        want = f"at least {need} a side are needed" if need else "no number of runs suffices"
        reason = (
            f"{pos.size} and {neg.size} independent runs ({UNIT_TEXT[unit]}) cannot show any "
            f"ε > 0 at {confidence:.0%} confidence, even perfectly separated; {want}"
        )
        nan = math.nan
        return EpsilonBound(None, None, nan, nan, nan, nan, **common, ceiling=0.0, reason=reason)
    a = interval_level(pos.size, neg.size, confidence, family)
    tp = np.rint(tpr * pos.size).astype(np.int64)
    fp = np.rint(fpr * neg.size).astype(np.int64)
    tpr_lo = _bounds_by_count(pos.size, a)[0][tp]
    fpr_hi = _bounds_by_count(neg.size, a)[1][fp]
    eps = _test_epsilon(tpr_lo, fpr_hi, delta)
    i = int(np.argmax(eps))
    best = float(max(eps[i], 0.0))
    return EpsilonBound(
        epsilon=best,
        threshold=float(thr[i]) if best > 0 else None,
        tpr=float(tpr[i]),
        fpr=float(fpr[i]),
        tpr_lower=float(tpr_lo[i]),
        fpr_upper=float(fpr_hi[i]),
        **common,
        ceiling=ceiling,
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
    unit: str = "table",
    family: int = 1,
) -> AttackScore:
    """All scores of one attack.

    AUC, its interval and the TPRs are taken over all tables; the ε lower bound over the
    independent runs only (:func:`independent_scores`).

    Parameters
    ----------
    name : str
        The attack.
    pos, neg : numpy.ndarray
        IMs of the two sides, (fits, tables a fit) or 1-D (one table a fit).
    delta : float
        δ of the ε lower bound.
    confidence : float
        Confidence of its intervals.
    n_boot : int
        Bootstrap resamples of the AUC interval.
    seed : int
        Seed of the bootstrap.
    unit : {"fit", "table"}
        What one independent run of the mechanism is.
    family : int
        Attacks sharing the bound's confidence.

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
    pos2, neg2 = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    pos, neg = _check(pos2, neg2)
    per_run = pos2.shape[1] if pos2.ndim == 2 and unit == "fit" else 1
    bound = epsilon_lower_bound(
        independent_scores(pos2, unit),
        independent_scores(neg2, unit),
        delta=delta,
        confidence=confidence,
        unit=unit,
        tables_per_run=per_run,
        family=family,
    )
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

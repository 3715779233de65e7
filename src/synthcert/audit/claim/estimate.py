"""Lower bounds on ε (at δ) and on μ (μ-GDP) from the scores of independent runs.

The estimator of ``synthcert audit-claim`` (issue 26, part 2 "Estimation"):

1. Each side's scores (one per independent run of the mechanism on the table with the canary,
   ``in``, and without it, ``out``) are split into two halves by a seeded permutation.
2. On the first half the rule "guess IN when score ≥ t" (direction +1) or "score ≤ t"
   (direction −1) is chosen, over the half's IN scores t and both directions, maximising the
   bound that the confidence intervals *would* give on the second half if its rates equalled
   the first half's (expected counts rate × m on the evaluation half of size m). The choice
   thus weighs the width of the intervals as well as the rates, which the raw likelihood ratio
   does not. For speed the intervals of this *choice* are Wilson score intervals at the same
   z = Φ⁻¹(1 − α/2), a closed form within a few per cent of Clopper–Pearson's width (at zero
   counts z²/(m + z²) against 1 − (α/2)^{1/m}, 3.84/m against 3.69/m at 95 %): on simulated
   Laplace, Gaussian and randomized-response pairs at K = 1,000 and 5,000 the median bounds
   are within 0.002 of those of a Clopper–Pearson choice, at a quarter of the time. The
   choice does not affect validity, which rests on the second half alone.
3. On the second half, independent of the choice, the rule's false positives FP (out-runs guessed
   IN) and true positives TP are counted, and one-sided Clopper–Pearson bounds are taken,
   ``fpr_upper`` at level 1 − α/2 and ``tpr_lower`` at level 1 − α/2 with α = 1 − confidence.
   By the union (Bonferroni) bound both hold together with probability ≥ ``confidence``: the box
   [0, fpr_upper] × [tpr_lower, 1] contains the rule's true (FPR, TPR).
4. (ε, δ)-DP forces every test to satisfy TPR ≤ e^ε·FPR + δ and 1 − FPR ≤ e^ε·(1 − TPR) + δ
   (Kairouz, Oh & Viswanath 2015, Thm 2.1; Nasr et al. 2023, eq. 1), so

       ε ≥ max( log((TPR − δ)/FPR), log((1 − δ − FPR)/(1 − TPR)) ).

   Both terms fall as FPR rises and as TPR falls, so evaluated at the box's conservative corner
   (fpr_upper, tpr_lower) the right-hand side is a lower bound on ε that holds with probability
   ≥ ``confidence``; it is clamped at 0.
5. μ-GDP forces 1 − TPR ≥ Φ(Φ⁻¹(1 − FPR) − μ) (Dong, Roth & Su 2022), i.e.
   μ ≥ Φ⁻¹(TPR) − Φ⁻¹(FPR) = Φ⁻¹(1 − FPR) − Φ⁻¹(1 − TPR); the same corner gives μ_lb (clamped
   at 0). The μ-GDP curve is symmetric, so the swapped inequality gives the same bound.

Intervals: exact Clopper–Pearson by default: it has guaranteed frequentist coverage at every
count, which the validity test (``tests/audit/claim/test_estimate.py``) checks by simulation.
``interval="jeffreys"`` takes the quantiles of the Jeffreys posterior Beta(k + ½, n − k + ½)
instead (the posterior of Ganev, Annamalai & Kulynych 2026): narrower, with coverage close to
the nominal level on average but not guaranteed at every rate; it is offered for comparison.

**A priori rule.** Steps 3-5 only need the rule to be independent of the runs that evaluate
it. When the statistic's law is known in advance (``audit-claim``'s white-box log-likelihood
ratio, whose noise is declared), the rule is chosen by :func:`choose_test` on a *simulation*
of the statistic drawn from its own seed, and :func:`evaluate_test` evaluates it on all K
runs per side instead of K/2: the intervals narrow by about √2.

The same bound at expected counts on a mechanism's own optimal trade-off curve gives the
*ceiling* (:func:`ceiling`): the most this estimator could prove with the same runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from synthcert._result import Result
from synthcert.audit.scoring import clopper_pearson
from synthcert.errors import ParameterError, check_choice
from synthcert.privacy.parameters import check_delta

if TYPE_CHECKING:
    import dp_accounting


@dataclass(frozen=True)
class BoundEstimate(Result):
    """Lower bounds proved by one set of runs, and the test that proves them.

    Attributes
    ----------
    epsilon_lower_bound : float or None
        ε such that the mechanism is not (ε', δ)-DP for any ε' < ε, with probability
        ≥ ``confidence``; None (see ``reason``) when no valid bound exists.
    mu_lower_bound : float or None
        μ such that the mechanism is not μ'-GDP for μ' < μ; None unless asked (``gaussian``).
    threshold : float
        The score threshold of the test (nan when there is no test).
    direction : int
        +1: "score ≥ threshold" guesses IN (the canary's table); −1: "score ≤ threshold";
        0 when there is no test.
    fpr, tpr : float
        The test's empirical rates on the evaluation half.
    fpr_upper, tpr_lower : float
        Their one-sided Clopper–Pearson bounds, each at 1 − (1 − confidence)/2.
    confidence : float
        Joint confidence of the two bounds (hence of the lower bounds).
    delta : float
        δ of the ε lower bound.
    runs : int
        Runs per side, both halves (the smaller side when they differ).
    reason : str or None
        Why a bound is None.
    interval : str
        ``clopper-pearson`` (the default: exact coverage) or ``jeffreys``.
    """

    epsilon_lower_bound: float | None
    mu_lower_bound: float | None
    threshold: float
    direction: int
    fpr: float
    tpr: float
    fpr_upper: float
    tpr_lower: float
    confidence: float
    delta: float
    runs: int
    reason: str | None = None
    interval: str = "clopper-pearson"


def _check_level(delta: float, confidence: float) -> None:
    check_delta(delta)
    if not 0.0 < confidence < 1.0:
        raise ParameterError(f"confidence must lie in (0, 1), got {confidence}")


def _scores(in_scores: np.ndarray, out_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scores of the IN and OUT runs as flat float64 arrays; a NaN score is refused."""
    pos = np.asarray(in_scores, dtype=np.float64).ravel()
    neg = np.asarray(out_scores, dtype=np.float64).ravel()
    if np.isnan(pos).any() or np.isnan(neg).any():
        raise ParameterError("a score is NaN; every run must give a number")
    return pos, neg


INTERVALS: tuple[str, ...] = ("clopper-pearson", "jeffreys")


def box_corner(
    fp: np.ndarray,
    n_out: int,
    tp: np.ndarray,
    n_in: int,
    confidence: float,
    interval: str = "clopper-pearson",
) -> tuple[np.ndarray, np.ndarray]:
    """(fpr_upper, tpr_lower): one-sided bounds, α/2 each (Bonferroni).

    ``clopper-pearson`` (exact coverage) or ``jeffreys``: the α/2 and 1 − α/2 quantiles of the
    Jeffreys posterior Beta(k + ½, n − k + ½) (Brown, Cai & DasGupta 2001; the posterior of
    Ganev, Annamalai & Kulynych 2026). Counts may be fractional (expected counts): the Beta
    quantiles extend smoothly.
    """
    check_choice("interval", interval, INTERVALS)
    a = (1.0 - confidence) / 2.0
    if interval == "jeffreys":
        fp = np.asarray(fp, dtype=np.float64)
        tp = np.asarray(tp, dtype=np.float64)
        fpr_hi = np.where(fp < n_out, stats.beta.ppf(1.0 - a, fp + 0.5, n_out - fp + 0.5), 1.0)
        tpr_lo = np.where(tp > 0, stats.beta.ppf(a, tp + 0.5, n_in - tp + 0.5), 0.0)
        return fpr_hi, tpr_lo
    _, fpr_hi = clopper_pearson(fp, n_out, a)
    tpr_lo, _ = clopper_pearson(tp, n_in, a)
    return fpr_hi, tpr_lo


def epsilon_at_corner(fpr_upper: np.ndarray, tpr_lower: np.ndarray, delta: float) -> np.ndarray:
    """max(log((TPR − δ)/FPR), log((1 − δ − FPR)/(1 − TPR))), unclamped (−inf when void).

    >>> round(float(epsilon_at_corner(np.array(0.1), np.array(0.5), 0.0)), 4)  # log 5
    1.6094
    """
    f = np.asarray(fpr_upper, dtype=np.float64)
    t = np.asarray(tpr_lower, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        e1 = np.log(np.clip(t - delta, 0.0, None) / f)
        e2 = np.log(np.clip(1.0 - delta - f, 0.0, None) / (1.0 - t))
    return np.nan_to_num(np.maximum(e1, e2), nan=-np.inf)


def mu_at_corner(fpr_upper: np.ndarray, tpr_lower: np.ndarray) -> np.ndarray:
    """Φ⁻¹(TPR) − Φ⁻¹(FPR): the smallest μ whose GDP curve admits the point (unclamped).

    >>> round(float(mu_at_corner(np.array(0.5), np.array(0.8413447460685429))), 6)
    1.0
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = stats.norm.ppf(tpr_lower) - stats.norm.ppf(fpr_upper)
    return np.nan_to_num(mu, nan=-np.inf)


def wilson_corner(
    fp: np.ndarray, n_out: int, tp: np.ndarray, n_in: int, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """(fpr_upper, tpr_lower) from one-sided Wilson score bounds at α/2 each.

    The cheap stand-in for :func:`box_corner` that ranks candidate tests; never reported.
    """
    z = float(stats.norm.isf((1.0 - confidence) / 2.0))

    def bound(k: np.ndarray, n: int, sign: float) -> np.ndarray:
        p, c = np.asarray(k, dtype=np.float64) / n, z * z / n
        half = z * np.sqrt(np.clip(p * (1 - p), 0.0, None) / n + c / (4 * n))
        return np.clip((p + c / 2 + sign * half) / (1 + c), 0.0, 1.0)

    return bound(fp, n_out, 1.0), bound(tp, n_in, -1.0)


def _void(
    runs: int, delta: float, confidence: float, gaussian: bool, why: str, interval: str
) -> BoundEstimate:
    nan = float("nan")
    return BoundEstimate(
        epsilon_lower_bound=None,
        mu_lower_bound=None,
        threshold=nan,
        direction=0,
        fpr=nan,
        tpr=nan,
        fpr_upper=nan,
        tpr_lower=nan,
        confidence=float(confidence),
        delta=float(delta),
        runs=int(runs),
        reason=why,
        interval=interval,
    )


def _rates(sorted_scores: np.ndarray, thr: np.ndarray, direction: int) -> np.ndarray:
    """Share of ``sorted_scores`` guessed IN by each threshold of ``thr``."""
    n = sorted_scores.size
    if direction > 0:
        return (n - np.searchsorted(sorted_scores, thr, side="left")) / n
    return np.searchsorted(sorted_scores, thr, side="right") / n


def estimate_bounds(
    in_scores: np.ndarray,
    out_scores: np.ndarray,
    *,
    delta: float,
    confidence: float = 0.95,
    gaussian: bool = False,
    seed: int = 0,
    interval: str = "clopper-pearson",
) -> BoundEstimate:
    """Lower bounds on ε at δ (and on μ) proved by independent runs on a neighbouring pair.

    Parameters
    ----------
    in_scores : numpy.ndarray
        One score per independent run on the table WITH the canary.
    out_scores : numpy.ndarray
        One score per independent run on the table without it.
    delta : float
        δ of the (ε, δ) hypothesis, in [0, 1).
    confidence : float
        Joint confidence of the two Clopper–Pearson bounds (α/2 each).
    gaussian : bool
        Also give the μ-GDP lower bound, and choose the test that maximises it (the ε bound is
        then the one of that test); otherwise the test maximises the ε bound.
    seed : int
        Seed of the split into halves (public: the scores come from public tables).
    interval : {"clopper-pearson", "jeffreys"}
        The one-sided bounds on the evaluation half. Clopper–Pearson has guaranteed coverage;
        the Jeffreys posterior quantiles are narrower, with coverage close to (not always at
        least) the nominal level.

    Returns
    -------
    BoundEstimate
        The bounds, the chosen test and its rates; bounds None with a reason when either side
        has fewer than two runs (no half is left to evaluate on).

    Raises
    ------
    ParameterError
        When δ or the confidence is out of range, or a score is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> est = estimate_bounds(np.ones(200), np.zeros(200), delta=0.0)
    >>> round(est.epsilon_lower_bound, 3), est.direction
    (3.281, 1)
    """
    _check_level(delta, confidence)
    check_choice("interval", interval, INTERVALS)
    pos, neg = _scores(in_scores, out_scores)
    runs = int(min(pos.size, neg.size))
    if runs < 2:
        return _void(runs, delta, confidence, gaussian, "fewer than two runs on a side", interval)
    rng = np.random.default_rng(seed)
    pos = pos[rng.permutation(pos.size)]
    neg = neg[rng.permutation(neg.size)]
    pos_sel, pos_ev = pos[: pos.size // 2], pos[pos.size // 2 :]
    neg_sel, neg_ev = neg[: neg.size // 2], neg[neg.size // 2 :]
    t, direction = choose_test(
        pos_sel, neg_sel, eval_in=pos_ev.size, eval_out=neg_ev.size, delta=delta,
        confidence=confidence, gaussian=gaussian,
    )  # fmt: skip
    return evaluate_test(
        pos_ev, neg_ev, threshold=t, direction=direction, delta=delta, confidence=confidence,
        gaussian=gaussian, interval=interval, runs=runs,
    )  # fmt: skip


def choose_test(
    in_scores: np.ndarray,
    out_scores: np.ndarray,
    *,
    eval_in: int,
    eval_out: int,
    delta: float,
    confidence: float = 0.95,
    gaussian: bool = False,
) -> tuple[float, int]:
    """(threshold, direction) of the rule that would prove the largest bound on ``eval_in`` and
    ``eval_out`` fresh runs if their rates equalled those of the given scores (step 2 of the
    module docstring; Wilson score bounds at the expected counts).

    The scores must be independent of the runs the rule is then evaluated on: the first half of
    the runs (:func:`estimate_bounds`), or a simulation of the mechanism's statistic drawn from
    its own seed (the a priori rule of ``audit-claim``'s white-box statistic).
    """
    pos_sel = np.sort(np.asarray(in_scores, dtype=np.float64).ravel())
    neg_sel = np.sort(np.asarray(out_scores, dtype=np.float64).ravel())
    m_in, m_out = int(eval_in), int(eval_out)
    # Both directions. Only IN scores need be tried (moving a threshold to the nearest IN score
    # beyond it keeps every true positive and can only drop false positives; both bounds rise
    # as FP falls), and of those only the ones that some OUT score separates from the next IN
    # score inward (otherwise that neighbour has the same FP and more TP).
    u = np.unique(pos_sel)
    best: tuple[float, float, int] = (-np.inf, float(u[0]), 1)
    for direction in (1, -1):
        if direction > 0:
            below = np.searchsorted(neg_sel, u, side="left")  # OUT scores < u_i
            keep = np.concatenate([[True], below[1:] > below[:-1]])
        else:
            upto = np.searchsorted(neg_sel, u, side="right")  # OUT scores ≤ u_i
            keep = np.concatenate([upto[:-1] < upto[1:], [True]])
        thr = u[keep]
        tpr1 = _rates(pos_sel, thr, direction)
        fpr1 = _rates(neg_sel, thr, direction)
        f_hi, t_lo = wilson_corner(fpr1 * m_out, m_out, tpr1 * m_in, m_in, confidence)
        objective = mu_at_corner(f_hi, t_lo) if gaussian else epsilon_at_corner(f_hi, t_lo, delta)
        i = int(np.argmax(objective))
        if objective[i] > best[0]:
            best = (float(objective[i]), float(thr[i]), direction)
    return best[1], best[2]


def a_priori_test(
    sim_in: np.ndarray,
    sim_out: np.ndarray,
    *,
    runs: int,
    delta: float,
    confidence: float = 0.95,
    gaussian: bool = False,
) -> tuple[float, int]:
    """The rule :func:`choose_test` picks on *simulated* scores, for ``runs`` real runs a side.

    The threshold is moved to the midpoint between the chosen score and the next simulated
    score outward (the same rule on the simulation), so that a real score equal to an atom of
    the statistic (discrete noise) is not lost to a last-bit difference in summation order.
    """
    t, direction = choose_test(
        sim_in, sim_out, eval_in=runs, eval_out=runs, delta=delta, confidence=confidence,
        gaussian=gaussian,
    )  # fmt: skip
    pooled = np.concatenate([np.ravel(sim_in), np.ravel(sim_out)])
    beyond = pooled[pooled < t] if direction > 0 else pooled[pooled > t]
    if beyond.size:
        t = 0.5 * (t + (beyond.max() if direction > 0 else beyond.min()))
    return float(t), direction


def evaluate_test(
    in_scores: np.ndarray,
    out_scores: np.ndarray,
    *,
    threshold: float,
    direction: int,
    delta: float,
    confidence: float = 0.95,
    gaussian: bool = False,
    interval: str = "clopper-pearson",
    runs: int | None = None,
) -> BoundEstimate:
    """Bounds proved by the rule (``threshold``, ``direction``) on runs it was NOT chosen on.

    Steps 3-5 of the module docstring: FP and TP counted over every score given, one-sided
    bounds at 1 − α/2 each, the ε and μ bounds at the box's corner. Valid at ``confidence``
    only if the rule does not depend on these scores: chosen on other runs (the split of
    :func:`estimate_bounds`) or fixed a priori.

    Examples
    --------
    >>> est = evaluate_test(np.ones(100), np.zeros(100), threshold=0.5, direction=1, delta=0.0)
    >>> round(est.epsilon_lower_bound, 3)  # as estimate_bounds with 200 runs a side
    3.281
    """
    _check_level(delta, confidence)
    check_choice("interval", interval, INTERVALS)
    if direction not in (1, -1):
        raise ParameterError(f"direction must be +1 or -1, got {direction}")
    pos, neg = _scores(in_scores, out_scores)
    n = int(min(pos.size, neg.size)) if runs is None else int(runs)
    if pos.size < 1 or neg.size < 1:
        return _void(n, delta, confidence, gaussian, "no run on a side", interval)
    t = float(threshold)
    guess_pos = pos >= t if direction > 0 else pos <= t
    guess_neg = neg >= t if direction > 0 else neg <= t
    tp, fp = int(guess_pos.sum()), int(guess_neg.sum())
    f_hi, t_lo = box_corner(np.array(fp), neg.size, np.array(tp), pos.size, confidence, interval)
    eps = max(float(epsilon_at_corner(f_hi, t_lo, delta)), 0.0)
    mu = max(float(mu_at_corner(f_hi, t_lo)), 0.0) if gaussian else None
    return BoundEstimate(
        epsilon_lower_bound=eps,
        mu_lower_bound=mu,
        threshold=t,
        direction=int(direction),
        fpr=fp / neg.size,
        tpr=tp / pos.size,
        fpr_upper=float(f_hi),
        tpr_lower=float(t_lo),
        confidence=float(confidence),
        delta=float(delta),
        runs=n,
        reason=None,
        interval=interval,
    )


def fisher_level(confidence: float) -> float:
    """c with c (1 − log c) = 1 − confidence: P[U·V ≤ c] for two independent uniforms (the
    product's law; Fisher 1932), so a region {U·V > c} keeps the confidence.

    >>> round(fisher_level(0.95), 5)
    0.0087
    """
    from scipy.optimize import brentq

    a = 1.0 - float(confidence)
    return float(brentq(lambda c: c * (1.0 - np.log(c)) - a, 1e-300, a))


def _fisher_rejects(
    fp: int, n_out: int, tp: int, n_in: int, tpr_max: Callable[[np.ndarray], np.ndarray], c: float
) -> bool:
    """True when no (FPR, TPR) on the curve ``tpr_max`` explains the counts at level c.

    p(a) = P[Bin(n_out, a) ≤ fp] · P[Bin(n_in, tpr_max(a)) ≥ tp]; the first factor falls and
    the second rises with a, so on a grid a_0 < a_1 < ... the products U(a_i) V(a_{i+1})
    bound p from above between grid points: the supremum is never underestimated.
    """
    a = _FISHER_GRID
    u = stats.beta.sf(a, fp + 1, n_out - fp) if fp < n_out else np.ones_like(a)
    t = np.clip(np.asarray(tpr_max(a), dtype=np.float64), 0.0, 1.0)
    v = stats.beta.cdf(t, tp, n_in - tp + 1) if tp > 0 else np.ones_like(a)
    return bool(np.max(u[:-1] * v[1:]) <= c)


_FISHER_GRID = np.unique(
    np.concatenate([[0.0], np.geomspace(1e-12, 1.0, 1500), np.linspace(0.0, 1.0, 1001)])
)


def fisher_bounds(
    fp: int, n_out: int, tp: int, n_in: int, *, delta: float, confidence: float = 0.95
) -> tuple[float, float]:
    """(ε lower bound at δ, μ lower bound) of one test's counts by Fisher's combination of the
    two sides, instead of the Bonferroni box of :func:`box_corner`.

    A mechanism with trade-off curve f keeps every test's rates (a, t) on or under
    t = 1 − f(a). The hypothesis "the mechanism is (ε, δ)-DP" (or μ-GDP) is rejected when
    sup over a of P[FP ≤ fp | a] · P[TP ≥ tp | 1 − f(a)] ≤ c = :func:`fisher_level`: under the
    true rates (a*, t*), t* ≤ 1 − f(a*), the product at a* is at least U·V, the product of the
    two sides' one-sided p-values, independent and super-uniform, and P[U·V ≤ c] ≤ c (1 − log c)
    = 1 − confidence. The bound is the largest ε (μ) rejected (bisection; the rejection is
    monotone). At the same confidence the region is narrower than the box's α/2 per side
    (e.g. at K = 5,000 runs per side on a 0.433-GDP pair, expected μ_lb 0.385 against the
    box's 0.362). Valid only for a test fixed independently of the counted runs.
    """
    _check_level(delta, confidence)
    c = fisher_level(confidence)

    def largest(tpr_max: Callable[[float], Callable[[np.ndarray], np.ndarray]], hi: float):
        if not _fisher_rejects(fp, n_out, tp, n_in, tpr_max(0.0), c):
            return 0.0
        lo = 0.0
        while _fisher_rejects(fp, n_out, tp, n_in, tpr_max(hi), c) and hi < 1e3:
            lo, hi = hi, 2.0 * hi
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            lo, hi = (
                (mid, hi) if _fisher_rejects(fp, n_out, tp, n_in, tpr_max(mid), c) else (lo, mid)
            )
        return lo

    def dp_curve(e: float) -> Callable[[np.ndarray], np.ndarray]:
        return lambda a: np.minimum(
            np.minimum(np.exp(e) * a + delta, 1.0 - np.exp(-e) * (1.0 - delta - a)), 1.0
        )

    def gdp_curve(m: float) -> Callable[[np.ndarray], np.ndarray]:
        return lambda a: stats.norm.cdf(stats.norm.ppf(a) + m)

    return largest(dp_curve, 1.0), largest(gdp_curve, 1.0)


def _alpha_grid() -> np.ndarray:
    """FPRs at which a trade-off curve is probed: log-spaced tails and a linear middle."""
    return np.unique(np.concatenate([np.geomspace(1e-9, 1.0, 1500), np.linspace(0.0, 1.0, 1001)]))


def ceiling(
    tradeoff: Callable[[np.ndarray], np.ndarray],
    *,
    runs: int,
    delta: float,
    confidence: float = 0.95,
    gaussian: bool = False,
    interval: str = "clopper-pearson",
    split: bool = True,
) -> float:
    """Largest bound :func:`estimate_bounds` could prove with ``runs`` per side, optimal test.

    For each FPR α on a fine grid, the optimal test of the pair has type-II error β(α); on an
    evaluation half of m = runs − ⌊runs/2⌋ runs per side its expected counts are FP = α·m and
    TP = (1 − β(α))·m. The bound at those counts (Clopper–Pearson continued to fractional
    counts through the Beta quantiles, same α/2 split) is maximised over α. It is the bound of
    a typical (median-like) run of the audit with a perfectly chosen threshold, not a
    probability-1 maximum: a lucky audit may exceed it by its sampling noise.

    Parameters
    ----------
    tradeoff : callable
        α ↦ β(α), the trade-off curve of the pair (type-II error of the optimal test).
    runs : int
        Runs per side (both halves).
    delta : float
        δ of the ε bound.
    confidence : float
        As in :func:`estimate_bounds`.
    gaussian : bool
        Give the μ-GDP ceiling instead of the ε one.
    interval : str
        As in :func:`estimate_bounds`.
    split : bool, default True
        The rule is chosen on half of the runs (m = runs − ⌊runs/2⌋ evaluate it); False: the
        rule is fixed a priori and all ``runs`` evaluate it (:func:`evaluate_test`).

    Returns
    -------
    float
        The ceiling (≥ 0).

    Examples
    --------
    >>> from synthcert.privacy.tradeoff import pure_dp_tradeoff
    >>> c = ceiling(pure_dp_tradeoff(1.0), runs=5000, delta=0.0)
    >>> bool(0.7 < c < 1.0)
    True
    """
    _check_level(delta, confidence)
    if runs < 2:
        raise ParameterError(f"runs must be at least 2 per side, got {runs}")
    m = runs - runs // 2 if split else runs
    alpha = _alpha_grid()
    beta = np.clip(np.asarray(tradeoff(alpha), dtype=np.float64), 0.0, 1.0)
    f_hi, t_lo = box_corner(alpha * m, m, (1.0 - beta) * m, m, confidence, interval)
    value = mu_at_corner(f_hi, t_lo) if gaussian else epsilon_at_corner(f_hi, t_lo, delta)
    return max(float(np.max(value)), 0.0)


def ceiling_from_event(
    event: dp_accounting.DpEvent,
    *,
    runs: int,
    delta: float,
    confidence: float = 0.95,
    gaussian: bool = False,
    value_discretization_interval: float = 1e-3,
    split: bool = True,
) -> float:
    """:func:`ceiling` of a mechanism given as a dp-accounting event.

    The event's privacy-loss distribution (dp-accounting's PLD accountant, which composes the
    event's noise steps) gives the privacy profile δ(ε), hence the trade-off curve
    (:func:`synthcert.privacy.tradeoff.pld_tradeoff`).

    Parameters
    ----------
    event : dp_accounting.DpEvent
        The mechanism (e.g. ``LaplaceDpEvent``, ``GaussianDpEvent``, or their composition).
    runs, delta, confidence, gaussian, split
        As in :func:`ceiling`.
    value_discretization_interval : float
        Discretisation of the privacy loss in the PLD.

    Returns
    -------
    float
        The ceiling.
    """
    from synthcert.privacy.tradeoff import event_tradeoff

    curve = event_tradeoff(event, value_discretization_interval=value_discretization_interval)
    return ceiling(
        curve, runs=runs, delta=delta, confidence=confidence, gaussian=gaussian, split=split
    )

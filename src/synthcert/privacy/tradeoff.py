"""Trade-off curves β(α): the least type-II error of any test at type-I error α.

A test distinguishing M(D′) (without the canary, "out") from M(D) ("in") that guesses IN with
false-positive rate α misses the canary with probability at least β(α) = f(α), the trade-off
function of the pair (Dong, Roth & Su 2022, Def. 2.1). The curves here are those of:

* pure ε-DP and (ε, δ)-DP: f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Kairouz, Oh &
  Viswanath 2015; Dong, Roth & Su 2022, eq. 5);
* μ-GDP: G_μ(α) = Φ(Φ⁻¹(1 − α) − μ);
* a privacy profile δ(ε) (Dong, Roth & Su 2022, Prop. 2.12): a mechanism that is (ε, δ(ε))-DP
  for every ε ≥ 0, in both directions, has f(α) ≥ sup_ε max(0, 1 − δ(ε) − e^ε α,
  e^{−ε}(1 − δ(ε) − α)). The supremum is taken over a finite ε grid, which can only lower it:
  the curve returned is a valid *lower envelope* of the pair's true curve (every test the
  mechanism allows lies above it), equal to it up to the grid's resolution. A lower curve
  means more powerful tests, so a ceiling computed from it is never understated;
* a dp-accounting privacy-loss distribution (its profile via ``get_delta_for_epsilon``, which
  takes the worse of the add and remove directions), or a dp-accounting event composed by
  ``PLDAccountant``;
* Rényi DP at a set of orders (:func:`rdp_tradeoff`): a test is a post-processing, so by the
  data-processing inequality its rates (FPR x, TPR y) satisfy D_a(Bern(y) ‖ Bern(x)) ≤ ε_a and
  D_a(Bern(x) ‖ Bern(y)) ≤ ε_a at every order a (Balle et al. 2020, "Hypothesis testing
  interpretations and Rényi differential privacy", §4). Two Bernoulli laws are themselves a
  mechanism, so this region is *exactly* what the RDP figures allow: no conversion through
  (ε, δ) can be tighter;
* a :class:`~synthcert.privacy.claims.PrivacyClaim` (:func:`claim_tradeoff`): pure-dp and
  approx-dp directly; zcdp as RDP at every order (ε_a = ρa, on a grid of orders: fewer
  constraints, so a valid curve) together with its stated (ε, δ); inherent-rdp from its single
  (α, ε)-RDP order together with its stated (ε, δ). ρ-zCDP does *not* imply √(2ρ)-GDP
  (Gaussian noise of ρ-zCDP is √(2ρ)-GDP, but other ρ-zCDP mechanisms are not), so the GDP
  curve is never used for a zCDP claim.

Every curve here is a *lower* envelope of the true one (at most the true least type-II error,
so at least the true greatest TPR): where a grid or a bisection approximates, it errs towards
more powerful tests. An audit that finds a test above it has refuted the claim; an attack-risk
label read from it (:mod:`synthcert.privacy.risk`) never understates the risk.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from synthcert.errors import ParameterError

if TYPE_CHECKING:
    import dp_accounting

    from synthcert.privacy.parameters import ClaimFigures

Tradeoff = Callable[[np.ndarray], np.ndarray]

_DELTA_FLOOR = 1e-12  # the envelope ignores ε beyond the profile's ε at this δ (above the
# PLD's truncated tail mass, ~1e-15, so that ε is finite)


def _alpha(alpha: Any) -> np.ndarray:
    return np.clip(np.asarray(alpha, dtype=np.float64), 0.0, 1.0)


def pure_dp_tradeoff(epsilon: float, delta: float = 0.0) -> Tradeoff:
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)).

    >>> f = pure_dp_tradeoff(math.log(2))
    >>> f(np.array([0.0, 0.25, 0.5, 1.0])).tolist()
    [1.0, 0.5, 0.25, 0.0]
    """
    if not (epsilon >= 0 and math.isfinite(epsilon)) or not 0.0 <= delta <= 1.0:
        raise ParameterError(f"need ε ≥ 0 finite and δ in [0, 1], got ({epsilon}, {delta})")

    def f(alpha: np.ndarray) -> np.ndarray:
        a = _alpha(alpha)
        if epsilon > 700.0:  # e^ε overflows: 1 − δ − e^ε α < 0 for every α > 0
            tail = (1 - delta - a) * math.exp(-epsilon)
            return np.maximum(np.where(a == 0, 1 - delta, tail), 0.0)
        e = math.exp(epsilon)
        return np.maximum.reduce([np.zeros_like(a), 1 - delta - e * a, (1 - delta - a) / e])

    return f


def gdp_tradeoff(mu: float) -> Tradeoff:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the curve of N(0, 1) against N(μ, 1).

    >>> round(float(gdp_tradeoff(1.0)(np.array(0.5))), 6)  # Φ(−1)
    0.158655
    """
    if not (mu >= 0 and math.isfinite(mu)):
        raise ParameterError(f"need μ ≥ 0 finite, got {mu}")

    def f(alpha: np.ndarray) -> np.ndarray:
        a = _alpha(alpha)
        return stats.norm.cdf(stats.norm.isf(a) - mu)

    return f


def envelope_tradeoff(epsilons: np.ndarray, deltas: np.ndarray) -> Tradeoff:
    """sup_i max(0, 1 − δ_i − e^{ε_i} α, e^{−ε_i}(1 − δ_i − α)) over the pairs (ε_i, δ_i).

    Each (ε_i, δ_i) must be a guarantee of the mechanism (in both directions); the sup of their
    curves is then a lower envelope of the mechanism's trade-off curve.

    >>> f = envelope_tradeoff(np.array([0.0, math.log(2)]), np.array([0.5, 0.0]))
    >>> f(np.array([0.0, 0.1])).tolist()
    [1.0, 0.8]
    """
    eps = np.asarray(epsilons, dtype=np.float64).ravel()
    dl = np.clip(np.asarray(deltas, dtype=np.float64).ravel(), 0.0, 1.0)
    keep = np.isfinite(eps) & (eps >= 0)
    eps, dl = eps[keep], dl[keep]
    if eps.size == 0:
        raise ParameterError("the privacy profile has no finite point")
    e = np.exp(eps)

    def f(alpha: np.ndarray) -> np.ndarray:
        a = _alpha(alpha)
        flat = a.ravel()
        out = np.zeros_like(flat)
        for start in range(0, flat.size, 512):  # bounded memory: 512 × grid at a time
            x = flat[start : start + 512, None]
            tight = np.maximum(1 - dl - e * x, (1 - dl - x) / e)
            out[start : start + 512] = np.max(tight, axis=1)
        return np.clip(out, 0.0, 1.0).reshape(a.shape)

    return f


def profile_tradeoff(
    delta_of_eps: Callable[[np.ndarray], np.ndarray], eps_grid: np.ndarray
) -> Tradeoff:
    """The lower envelope of the curve of a mechanism with privacy profile δ(ε), on a grid.

    >>> f = profile_tradeoff(lambda e: np.where(e >= 1.0, 0.0, 1.0), np.linspace(0, 2, 201))
    >>> bool(np.allclose(f(np.array([0.1, 0.2])), pure_dp_tradeoff(1.0)(np.array([0.1, 0.2]))))
    True
    """
    grid = np.asarray(eps_grid, dtype=np.float64).ravel()
    return envelope_tradeoff(grid, np.asarray(delta_of_eps(grid), dtype=np.float64))


def profile_grid(epsilon_for_delta: Callable[[float], float], points: int = 4001) -> np.ndarray:
    """ε grid [0, 1.02·ε(10⁻¹²)] for a profile: beyond it δ(ε) < 10⁻¹² changes no curve."""
    top = float(epsilon_for_delta(_DELTA_FLOOR))
    if not math.isfinite(top):
        raise ParameterError("the privacy profile has infinite ε at δ = 1e-12")
    return np.linspace(0.0, max(1.02 * top, 1e-6), points)


def pld_tradeoff(pld: Any, points: int = 4001) -> Tradeoff:
    """Curve of a dp-accounting ``PrivacyLossDistribution`` (or ``PLDAccountant``).

    Its profile δ(ε) (``get_delta_for_epsilon``/``get_delta``: the worse of add and remove,
    pessimistically rounded, so an upper bound on the true δ(ε)) on ``points`` values of ε.
    """
    if hasattr(pld, "get_delta_for_epsilon"):
        grid = profile_grid(pld.get_epsilon_for_delta, points)
        deltas = pld.get_delta_for_epsilon(grid)
    else:
        grid = profile_grid(pld.get_epsilon, points)
        deltas = pld.get_delta(grid)
    return envelope_tradeoff(grid, np.asarray(deltas, dtype=np.float64))


def event_accountant(
    event: dp_accounting.DpEvent, *, value_discretization_interval: float = 1e-3
) -> Any:
    """A dp-accounting ``PLDAccountant`` that has composed ``event`` (add/remove relation)."""
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(
        value_discretization_interval=value_discretization_interval
    )
    if not acc.supports(event):
        raise ParameterError(f"dp-accounting's PLD accountant cannot compose {event!r}")
    acc.compose(event)
    return acc


def event_tradeoff(
    event: dp_accounting.DpEvent, *, value_discretization_interval: float = 1e-3
) -> Tradeoff:
    """Curve of a dp-accounting event through its PLD (:func:`pld_tradeoff`).

    >>> import dp_accounting
    >>> f = event_tradeoff(dp_accounting.LaplaceDpEvent(noise_multiplier=1.0))
    >>> round(float(f(np.array(0.1))), 3)  # 1 − e·0.1: the Laplace curve meets f_ε in its tails
    0.728
    """
    acc = event_accountant(event, value_discretization_interval=value_discretization_interval)
    return pld_tradeoff(acc)


ZCDP_ORDERS = np.concatenate([1.0 + np.geomspace(1e-3, 1.0, 16)[:-1], np.geomspace(2.0, 1e4, 40)])
"""Orders at which a zCDP claim is read as RDP: any finite set gives a valid (looser) curve."""

_BISECTIONS = 44  # 2^-44 < 10^-13: the bracket's width, its upper end returned


def _binary_renyi(a: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """D_a(Bern(p) ‖ Bern(q)) = log(p^a q^{1−a} + (1−p)^a (1−q)^{1−a}) / (a − 1), a > 1."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t1 = np.where(p > 0, a * np.log(p) + (1 - a) * np.log(q), -np.inf)
        t2 = np.where(p < 1, a * np.log1p(-p) + (1 - a) * np.log1p(-q), -np.inf)
        return np.logaddexp(t1, t2) / (a - 1)


def rdp_tpr(orders: Any, epsilons: Any, fpr: Any) -> np.ndarray:
    """Greatest TPR at each FPR of a test against a mechanism that is (a, ε_a)-RDP both ways.

    The largest y ≥ x with D_a(Bern(y) ‖ Bern(x)) ≤ ε_a and D_a(Bern(x) ‖ Bern(y)) ≤ ε_a for
    every order a given (both are 0 at y = x and increase with y), found by bisection; the
    upper end of the final bracket is returned, so the value is never below the exact one.

    Parameters
    ----------
    orders, epsilons : array_like
        Orders a > 1 and ε_RDP at each.
    fpr : array_like
        False-positive rates in [0, 1].

    Returns
    -------
    numpy.ndarray
        The TPR bound, same shape as ``fpr``.

    Examples
    --------
    >>> # one order a = 2, ε = log 2: y²/x + (1 − y)²/(1 − x) ≤ 2 at x = 0.01
    >>> round(float(rdp_tpr([2.0], [math.log(2.0)], 0.01)), 4)
    0.1095
    """
    a = np.asarray(orders, dtype=np.float64).ravel()
    e = np.asarray(epsilons, dtype=np.float64).ravel()
    if a.size == 0 or a.shape != e.shape or np.any(~(a > 1)) or np.any(~(e >= 0)):
        raise ParameterError("RDP needs orders > 1 and ε_RDP ≥ 0, as many of each")
    x = _alpha(fpr)
    shape = x.shape
    x = x.ravel()
    out = np.ones_like(x)
    tol = e * (1.0 + 1e-12) + 1e-15  # a rounding error may only loosen the bound
    for start in range(0, x.size, 256):  # bounded memory: 256 × orders at a time
        xs = x[start : start + 256, None]
        lo = np.broadcast_to(xs, (xs.shape[0], a.size)).copy()
        hi = np.ones_like(lo)
        ok_top = np.maximum(_binary_renyi(a, hi, lo), _binary_renyi(a, lo, hi)) <= tol
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lo + hi)
            inside = np.maximum(_binary_renyi(a, mid, xs), _binary_renyi(a, xs, mid)) <= tol
            lo = np.where(inside, mid, lo)
            hi = np.where(inside, hi, mid)
        hi = np.where(ok_top, 1.0, hi)
        out[start : start + 256] = np.min(hi, axis=1)
    return out.reshape(shape)


def rdp_tradeoff(orders: Any, epsilons: Any) -> Tradeoff:
    """f(α) = 1 − :func:`rdp_tpr` at α: the exact curve the RDP figures allow (up to bisection).

    >>> f = rdp_tradeoff([2.0], [0.0])  # ε_RDP = 0: no test beats guessing
    >>> f(np.array([0.3])).round(6).tolist()
    [0.7]
    """
    a = np.asarray(orders, dtype=np.float64).ravel()
    e = np.asarray(epsilons, dtype=np.float64).ravel()
    rdp_tpr(a, e, 0.5)  # validates

    def f(alpha: np.ndarray) -> np.ndarray:
        return 1.0 - rdp_tpr(a, e, alpha)

    return f


def max_tradeoff(*curves: Tradeoff) -> Tradeoff:
    """max_i f_i(α): a mechanism satisfying every description lies above all of their curves."""

    def f(alpha: np.ndarray) -> np.ndarray:
        return np.maximum.reduce([np.asarray(c(alpha), dtype=np.float64) for c in curves])

    return f


def claim_descriptions(claim: ClaimFigures) -> tuple[str, ...]:
    """Which descriptions of ``claim`` its curve is computed from (for a label's ``source``)."""
    model = claim.model
    stated = []
    if claim.epsilon is not None and claim.delta is not None:
        stated.append(f"(ε, δ) = ({claim.epsilon:.6g}, {claim.delta:.3g})")
    if model == "pure-dp" and claim.epsilon is not None:
        return (f"ε = {claim.epsilon:.6g} (pure DP)",)
    if model == "approx-dp" and claim.epsilon is not None:
        return tuple(stated)
    if model == "zcdp" and claim.rho is not None:
        return (f"ρ = {claim.rho:.6g} (zCDP: Rényi DP at every order, on a grid)", *stated)
    if model == "inherent-rdp" and claim.alpha is not None and claim.epsilon_rdp is not None:
        rdp = f"(α, ε_RDP) = ({claim.alpha:.6g}, {claim.epsilon_rdp:.6g}) (Rényi DP, one order)"
        return (rdp, *stated)
    return ()


def claim_tradeoff(claim: ClaimFigures) -> Tradeoff:
    """Lower envelope of the trade-off curve every mechanism satisfying ``claim`` lies above.

    pure-dp: f_{ε,0}; approx-dp: f_{ε,δ}; zcdp: :func:`rdp_tradeoff` at the orders
    :data:`ZCDP_ORDERS` with ε_a = ρa, and f_{ε,δ} of its stated (ε, δ); inherent-rdp:
    :func:`rdp_tradeoff` at its one order, and f_{ε,δ} of its stated (ε, δ). A claim with no
    DP figures (model ``none``) has no curve.

    Raises
    ------
    ParameterError
        For a claim without DP figures.

    Examples
    --------
    >>> from synthcert.privacy.claims import GUARANTEE, PrivacyClaim
    >>> f = claim_tradeoff(PrivacyClaim("pure-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=0))
    >>> round(1 - float(f(np.array(0.01))), 6)  # e · 0.01
    0.027183
    """
    model = claim.model
    if model == "pure-dp" and claim.epsilon is not None:
        return pure_dp_tradeoff(float(claim.epsilon))
    if model == "approx-dp" and claim.epsilon is not None:
        return pure_dp_tradeoff(float(claim.epsilon), float(claim.delta or 0.0))
    stated = []
    if claim.epsilon is not None and claim.delta is not None and math.isfinite(claim.epsilon):
        stated.append(pure_dp_tradeoff(float(claim.epsilon), float(claim.delta)))
    if model == "zcdp" and claim.rho is not None:
        return max_tradeoff(rdp_tradeoff(ZCDP_ORDERS, ZCDP_ORDERS * float(claim.rho)), *stated)
    if model == "inherent-rdp" and claim.alpha is not None and claim.epsilon_rdp is not None:
        curve = rdp_tradeoff([float(claim.alpha)], [float(claim.epsilon_rdp)])
        return max_tradeoff(curve, *stated)
    raise ParameterError(f"a claim of model {model!r} has no trade-off curve")

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
* a :class:`~synthcert.privacy.claims.PrivacyClaim`: pure-dp and approx-dp directly; zcdp
  through its privacy profile ε(δ) from the thesis conversion (Canonne, Kamath & Steinke 2020,
  :func:`synthcert.privacy.conversion.zcdp_to_dp`) on a grid of δ. ρ-zCDP does *not* imply
  √(2ρ)-GDP (Gaussian noise of ρ-zCDP is √(2ρ)-GDP, but other ρ-zCDP mechanisms are not), so
  the GDP curve is not used for zCDP claims. inherent-rdp from its single (α, ε)-RDP order
  through :func:`synthcert.privacy.conversion.rdp_to_dp` on a grid of δ.
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

    from synthcert.privacy.claims import PrivacyClaim

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


def _delta_grid() -> np.ndarray:
    return np.concatenate([np.geomspace(_DELTA_FLOOR, 0.5, 240), np.linspace(0.5, 0.999, 40)[1:]])


def claim_tradeoff(claim: PrivacyClaim) -> Tradeoff:
    """Lower envelope of the trade-off curve every mechanism satisfying ``claim`` lies above.

    pure-dp: f_{ε,0}; approx-dp: f_{ε,δ}; zcdp: the envelope of (zcdp_to_dp(ρ, δ), δ) over a
    grid of δ; inherent-rdp: the envelope of (rdp_to_dp(α, ε_RDP, δ), δ). A claim that is not a
    guarantee (model ``none``) has no curve.

    Raises
    ------
    ParameterError
        For a claim without DP figures.
    """
    from synthcert.privacy.conversion import rdp_to_dp, zcdp_to_dp

    model = claim.model
    if model == "pure-dp" and claim.epsilon is not None:
        return pure_dp_tradeoff(float(claim.epsilon))
    if model == "approx-dp" and claim.epsilon is not None:
        return pure_dp_tradeoff(float(claim.epsilon), float(claim.delta or 0.0))
    deltas = _delta_grid()
    if model == "zcdp" and claim.rho is not None:
        eps = np.array([zcdp_to_dp(float(claim.rho), float(d)) for d in deltas])
        return envelope_tradeoff(eps, deltas)
    if model == "inherent-rdp" and claim.alpha is not None and claim.epsilon_rdp is not None:
        order = np.array([float(claim.alpha)])
        value = np.array([float(claim.epsilon_rdp)])
        eps = np.array([float(rdp_to_dp(order, value, float(d))[0]) for d in deltas])
        return envelope_tradeoff(eps, deltas)
    raise ParameterError(f"a claim of model {model!r} has no trade-off curve to audit against")

"""RDP and zCDP to (ε, δ)-DP: Mironov's Prop. 2.6 (seed 000), the CKS/Asoodeh bound, optimised α."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from synthcert._result import Result
from synthcert.errors import AssumptionError, ParameterError, check_choice
from synthcert.privacy.parameters import check_delta

Conversion = Literal["mironov", "ckm"]
CONVERSIONS: tuple[str, ...] = ("mironov", "ckm")
CITATIONS = {
    "mironov": "Mironov (2017) Prop. 3; seed 000 Prop. 2.6 / thesis Prop. 2.3.7",
    "ckm": "Canonne, Kamath & Steinke (2020) Prop. 12; Asoodeh et al. (2021)",
}

_ALPHA_GRID = 96  # grid points in log(α−1) before the bounded refinement


def check_conversion(conversion: str) -> None:
    """Refuse an unknown RDP-to-DP conversion.

    Raises
    ------
    ParameterError
        When ``conversion`` is not one of :data:`CONVERSIONS`.
    """
    check_choice("conversion", conversion, CONVERSIONS)


def conversion_offset(alpha: ArrayLike, delta: float, conversion: Conversion = "ckm") -> np.ndarray:
    """The term the conversion adds to ε_RDP: ε_DP = ε_RDP + offset(α, δ) (before clipping at 0).

    mironov: log(1/δ)/(α−1).  ckm: log((α−1)/α) − (log δ + log α)/(α−1).
    """
    check_delta(delta, pure=False)
    check_conversion(conversion)
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if conversion == "mironov":
            out = -math.log(delta) / (a - 1.0)
        else:
            out = np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1.0)
    return np.where(a > 1, out, np.inf)


def rdp_to_dp(
    alpha: ArrayLike, epsilon_rdp: ArrayLike, delta: float, conversion: Conversion = "ckm"
) -> np.ndarray:
    """(α, ε_RDP)-RDP ⇒ (ε, δ)-DP at each α; mironov = seed 000 Prop. 2.6, ckm = CKS 2020 Prop. 12.

    The ckm branch also applies the total-variation bound δ ≤ √(1 − e^{−KL}) ≤ √(1 − e^{−ε_RDP})
    (as Google's dp-accounting does): when it already gives δ, ε = 0.

    Parameters
    ----------
    alpha : array_like
        Rényi orders (> 1; +inf is returned at α ≤ 1).
    epsilon_rdp : array_like
        ε of (α, ε)-RDP at each order.
    delta : float
        Target δ, 0 < δ < 1.
    conversion : {"ckm", "mironov"}
        The conversion.

    Returns
    -------
    numpy.ndarray
        ε of (ε, δ)-DP at each order (≥ 0).

    Raises
    ------
    AssumptionError
        When δ is not in (0, 1).
    ParameterError
        For an unknown conversion.

    Examples
    --------
    >>> round(float(rdp_to_dp(4.0, 5.8064, 1e-10, "mironov")), 3)  # 5.8064 + log(10¹⁰)/3
    13.482
    """
    r = np.asarray(epsilon_rdp, dtype=float)
    eps = np.asarray(r + conversion_offset(alpha, delta, conversion), dtype=float)
    if conversion == "ckm":
        with np.errstate(invalid="ignore"):
            tv_ok = np.isfinite(r) & (delta * delta + np.expm1(-np.where(np.isfinite(r), r, 0)) > 0)
        eps = np.where(tv_ok, 0.0, eps)
    eps = np.where(np.isnan(eps), np.inf, eps)
    return np.maximum(eps, 0.0)


@dataclass(frozen=True)
class DPGuarantee(Result):
    """(ε, δ)-DP obtained from an RDP curve at the order α that minimises ε."""

    epsilon: float
    delta: float
    alpha: float
    epsilon_rdp: float
    conversion: str
    citation: str


def log_alpha_search(
    objective: Callable[[np.ndarray], np.ndarray],
    alpha_min: float,
    alpha_max: float,
    scalar: Callable[[float], float] | None = None,
) -> tuple[float, float]:
    """Minimise objective(α) over (alpha_min, alpha_max): grid in log(α−1), then bounded refine.

    The admissible orders of the RDP theorems run from 1 to limits orders of magnitude apart,
    so a grid in log(α−1) (96 points) brackets the minimum, which Brent's bounded method then
    refines; the returned value is the objective at an actual order, so it is a valid bound
    even where the search is not exactly at the infimum.

    Parameters
    ----------
    objective : callable
        Maps an array of orders to values (NaN or +inf where refused).
    alpha_min, alpha_max : float
        The open interval of orders searched (alpha_min > 1).
    scalar : callable, optional
        The objective at one order (faster for the refinement), if available.

    Returns
    -------
    tuple of float
        (smallest value found, its order); (inf, nan) when every grid point is refused.
    """
    u_lo, u_hi = math.log(alpha_min - 1.0), math.log(alpha_max - 1.0)
    u = np.linspace(u_lo, u_hi, _ALPHA_GRID + 2)[1:-1]
    vals = np.asarray(objective(1.0 + np.exp(u)), dtype=float)
    vals = np.where(np.isnan(vals), np.inf, vals)
    if not np.any(np.isfinite(vals)):
        return math.inf, math.nan
    i = int(np.argmin(vals))
    left = u[i - 1] if i > 0 else u_lo + 1e-9 * (u_hi - u_lo)
    right = u[i + 1] if i < u.size - 1 else u_hi - 1e-9 * (u_hi - u_lo)

    def f(x: float) -> float:
        if scalar is not None:
            v = scalar(1.0 + math.exp(x))
        else:
            v = float(np.asarray(objective(np.array([1.0 + math.exp(x)])), dtype=float)[0])
        return math.inf if math.isnan(v) else v

    from scipy.optimize import minimize_scalar  # imported on use: keeps the CLI's start-up light

    res = minimize_scalar(f, bounds=(left, right), method="bounded", options={"xatol": 1e-9})
    if res.fun <= vals[i]:
        return float(res.fun), 1.0 + math.exp(float(res.x))
    return float(vals[i]), 1.0 + math.exp(float(u[i]))


def optimal_dp(
    rdp_curve: Callable[[np.ndarray], np.ndarray],
    delta: float,
    alpha_max: float,
    *,
    conversion: Conversion = "ckm",
    alpha_min: float = 1.0 + 1e-6,
) -> DPGuarantee:
    """Smallest ε over α ∈ (alpha_min, alpha_max) of rdp_to_dp(α, rdp_curve(α), δ) (continuous).

    ``rdp_curve`` maps an array of orders to the total RDP ε at each (+inf where refused).
    Thesis §5.5.4 optimises α this way (with Prop. 2.3.7, see the seeds README).

    Parameters
    ----------
    rdp_curve : callable
        Maps an array of orders to the total ε_RDP at each (+inf where refused).
    delta : float
        Target δ, 0 < δ < 1.
    alpha_max : float
        Supremum of the admissible orders.
    conversion : {"ckm", "mironov"}
        The conversion.
    alpha_min : float
        Infimum of the orders searched.

    Returns
    -------
    DPGuarantee
        ε, δ, the optimal α and ε_RDP there.

    Raises
    ------
    AssumptionError
        When δ is not in (0, 1) or no order is admissible.
    ParameterError
        For an unknown conversion.

    Examples
    --------
    >>> from synthcert.privacy.gaussian_release import alpha_limit, epsilon_unbounded
    >>> def curve(a):
    ...     return epsilon_unbounded(a, 10**6, 6, 0.01) * 10**6
    >>> g = optimal_dp(curve, 1e-10, alpha_limit(10**6, 6, 0.01), conversion="mironov")
    >>> round(g.epsilon, 2)  # thesis §5.5.4 prints 13.03
    13.03
    """
    check_delta(delta, pure=False)
    check_conversion(conversion)
    if not alpha_max > alpha_min:
        raise AssumptionError(
            f"no admissible order: α must lie in ({alpha_min:g}, {alpha_max:g})",
            assumption="α > 1 within the theorem's range",
            admissible=f"α_max > {alpha_min:g}",
        )

    def objective(a: np.ndarray) -> np.ndarray:
        return rdp_to_dp(a, rdp_curve(a), delta, conversion)

    eps, alpha = log_alpha_search(objective, alpha_min, alpha_max)
    r = math.inf
    if math.isfinite(eps):
        r = float(np.asarray(rdp_curve(np.array([alpha])), dtype=float)[0])
    return DPGuarantee(
        epsilon=eps,
        delta=float(delta),
        alpha=alpha,
        epsilon_rdp=r,
        conversion=conversion,
        citation=CITATIONS[conversion],
    )


def zcdp_to_dp(rho: float, delta: float, method: Literal["bun-steinke", "cks"] = "cks") -> float:
    """ρ-zCDP ⇒ (ε, δ)-DP. bun-steinke: ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3).

    cks: the tighter thesis Prop. 2.3.9 (Canonne, Kamath & Steinke 2020), δ = inf_α
    e^{(α−1)(αρ−ε)}/(α−1)·(1−1/α)^α, solved for ε:
    ε = inf_α αρ + log(1−1/α) − (log δ + log α)/(α−1),
    i.e. the ckm RDP conversion applied to the curve ε_RDP(α) = αρ, optimised over all α > 1.

    Parameters
    ----------
    rho : float
        ρ of ρ-zCDP, finite and ≥ 0.
    delta : float
        Target δ, 0 < δ < 1.
    method : {"cks", "bun-steinke"}
        The conversion.

    Returns
    -------
    float
        ε of (ε, δ)-DP.

    Raises
    ------
    AssumptionError
        When ρ or δ is out of range.
    ParameterError
        For an unknown method.

    Examples
    --------
    >>> round(zcdp_to_dp(0.5, 1e-6, "bun-steinke"), 4), round(zcdp_to_dp(0.5, 1e-6), 4)
    (5.7565, 5.2215)
    """
    check_delta(delta, pure=False)
    if not (rho >= 0 and math.isfinite(rho)):
        raise AssumptionError(f"ρ must be finite and ≥ 0 (got {rho!r})", assumption="ρ ≥ 0")
    if rho == 0:
        return 0.0
    bun_steinke = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    if method == "bun-steinke":
        return bun_steinke
    if method != "cks":
        raise ParameterError(f"unknown method {method!r}; choose one of bun-steinke, cks")
    guess = 1.0 + math.sqrt(math.log(1.0 / delta) / rho)
    alpha_max = 1.0 + 1e3 * (guess + 1.0)

    def scalar(a: float) -> float:
        return float(rdp_to_dp(np.array([a]), np.array([a * rho]), delta, "ckm")[0])

    eps, _ = log_alpha_search(
        lambda a: rdp_to_dp(a, a * rho, delta, "ckm"), 1.0 + 1e-9, alpha_max, scalar
    )
    # The BS bound is implied by CKS (it is CKS's Mironov-type relaxation); never report more.
    return min(eps, bun_steinke)

"""RDP of the ridged release: draws from N(μ, Σ + ρI), with a certificate that assumes nothing
about the data (docs/unconditional.md, Theorems R1 and R2).

M_G (seed 000 §2.3) draws from N(μ, Σ) of a table in [-1,1]^d, where Σ is the biased (1/n)
covariance. Theorem 3.1 needs a public σ ≤ λ_min(Σ) for every table involved, which nobody can
check for tables they do not hold. The ridged mechanism draws from N(μ, Σ + ρI) with a public
ρ > 0 instead. Then λ_min(Σ + ρI) ≥ ρ for every table by construction. Theorem 3.1 at σ = ρ
still does not apply as it stands. Its proof uses Σ₂ = n/(n+1)·Σ₁ + (rank one), and the ridge
breaks that relation by an extra ρ/(n+1)·I. A real table's ridged pair exceeds Theorem 3.1 at
σ = ρ: by 0.035% at N = 10^7, d = 6, ρ = 0.01, α = 4, and by 1.9× at N = 2000, d = 1, ρ = 0.5,
α = 226 (docs/unconditional.md). So the bound is derived again here.

Notation: τ = 4d/ρ; l(x) = log(1+x) − x (``log1p_minus_x``, accurate for |x| ≪ 1).

* **Theorem R1** (unbounded: add or remove one record). For tables of at least N ≥ 2 rows, let
  m = N − 1 (the smallest of the two sizes in any add/remove pair), t = 1/(m+1) and
  y = mτ/(m+1)². For 1 < α < min{m+1, 1 + 1/y}, each output record is (α, ε)-RDP with
  ε = max{ε_add, ε_remove}, where

      ε_add    = d·[α l(−t) − l(−αt)]/(2(α−1)) + ατ/(2((m+1)² + αmτ))
                 + [α l(y) − l(αy)]/(2(α−1)),
      ε_remove = −d·[l((α−1)t) + (α−1) l(−t)]/(2(α−1)) + ατ/(2((m+1)² − (α−1)mτ))
                 − [l(−(α−1)y) + (α−1) l(y)]/(2(α−1)).

  ε_add bounds D_α(M(S) ‖ M(S ∪ {x})) and ε_remove bounds D_α(M(S ∪ {x}) ‖ M(S)).
* **Theorem R2** (bounded: replace one record). For tables of n ≥ N ≥ 2 rows, let
  y = (N−1)τ/N². For 1 < α < 1 + 1/y,

      ε = κατ/(2(N² − (α−1)(N−1)τ)) + [l(y) − l(αy) − l(−(α−1)y)]/(2(α−1)),

  where κ = 4/(1+αy) if αy ≤ 1, κ = 1 + 1/(αy) if αy > 1 ≥ y, and κ = 4 if y > 1.

Both bounds decrease in the table size (proved in docs/unconditional.md), so a certificate at
the public minimum N holds for every table with at least N rows. The unbounded bound is within
d·α/(4(m+1)²)·(1 + O(α/m)) of a pair that a real table attains. That pair is m copies of the
corner (−1, …, −1) and the record (1, …, 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from synthcert.errors import AssumptionError
from synthcert.privacy.budget import BudgetRequest
from synthcert.privacy.conversion import Conversion
from synthcert.privacy.numerics import log1p_minus_x
from synthcert.privacy.parameters import (
    DP_RELATIONS,
    NeighbouringLike,
    check_neighbouring,
)
from synthcert.privacy.record_accountant import (
    BudgetFields,
    RecordCertificate,
    RecordEvent,
    account_records,
    require_feasible,
)

RidgeNeighboring = NeighbouringLike  # the ridged theorems know add/remove and replacement
RIDGE_NEIGHBORINGS: tuple[str, ...] = DP_RELATIONS

EQUATIONS = {
    "unbounded": "Theorem R1 of docs/unconditional.md (ridged release, add/remove one record)",
    "bounded": "Theorem R2 of docs/unconditional.md (ridged release, replace one record)",
}


def public_assumptions(n: int, d: int, rho: float, neighboring: str) -> tuple[str, ...]:
    """The only assumptions a ridged certificate rests on. All are public, none is about data."""
    return (
        f"records are scaled into [-1, 1]^{d} with public bounds (out-of-range values clipped)",
        f"the release draws from N(μ, Σ + ρI) with the public ridge ρ = {rho:g}, where μ and Σ "
        "are the mean and biased (1/n) covariance of the scaled table",
        f"neighbouring relation: {neighboring} "
        + ("(one record added or removed)" if neighboring == "unbounded" else "(one replaced)"),
        f"every table the release could be run on has at least N = {n} rows (min-rows)",
        "only the synthetic rows are published (μ and Σ are not)",
    )


# --------------------------------------------------------------------------------------------
# input checks and admissible orders
# --------------------------------------------------------------------------------------------
def _check(n: float, d: float, rho: float, neighboring: str) -> None:
    """Refuse malformed inputs (these are input errors, not failed theorem assumptions)."""
    check_neighbouring(
        neighboring, RIDGE_NEIGHBORINGS, "neighbouring relation for the ridged release"
    )
    if not (math.isfinite(n) and n >= 2 and n == math.floor(n)):
        raise AssumptionError(
            f"the minimum table size must be a whole number ≥ 2 (got {n!r})",
            assumption="min-rows N ≥ 2",
            admissible="N ≥ 2",
        )
    if not (math.isfinite(d) and d >= 1 and d == math.floor(d)):
        raise AssumptionError(
            f"d must be a whole number ≥ 1 (got {d!r})", assumption="d ≥ 1", admissible="d ≥ 1"
        )
    if not (math.isfinite(rho) and rho > 0):
        raise AssumptionError(
            f"the ridge ρ must be a positive number (got {rho!r})",
            assumption="ρ > 0",
            admissible="ρ > 0 (for example 0.01)",
        )


def _pair_size(n: float, neighboring: str) -> float:
    """m = N−1 for unbounded pairs (a table of N rows minus one record), N for bounded ones."""
    return float(n) - 1.0 if neighboring == "unbounded" else float(n)


def ridge_alpha_limit(n: float, d: float, rho: float, neighboring: str = "unbounded") -> float:
    """Supremum of the admissible orders (exclusive) for tables of at least ``n`` rows.

    Unbounded (Theorem R1): min{m+1, 1 + (m+1)²/(mτ)}, m = n−1. The first keeps
    (1−α)I + α·Cov₂ positive-definite when the added record shrinks the covariance. The second is
    exact: past it, removing the record (1,…,1) from m copies of (−1,…,−1) has D_α = ∞.
    Bounded (Theorem R2): 1 + n²/((n−1)τ).
    """
    _check(n, d, rho, neighboring)
    t = 4.0 * d / rho
    m = _pair_size(n, neighboring)
    if neighboring == "unbounded":
        return float(min(m + 1.0, 1.0 + (m + 1.0) ** 2 / (m * t)))
    return float(1.0 + m * m / ((m - 1.0) * t))


# --------------------------------------------------------------------------------------------
# the bounds
# --------------------------------------------------------------------------------------------
def _unbounded_parts(a: np.ndarray, m: float, d: float, t: float) -> dict[str, np.ndarray]:
    """The six terms of Theorem R1 at orders a (all admissible; see ``ridge_terms``)."""
    half = 1.0 / (2.0 * (a - 1.0))
    s = 1.0 / (m + 1.0)
    y = m * t / (m + 1.0) ** 2
    l_y = log1p_minus_x(np.full_like(a, y))
    return {
        # shrink of the ridged covariance by m/(m+1) in d directions (λ_i → ∞ limit)
        "shrink_add": d * half * (a * log1p_minus_x(np.full_like(a, -s)) - log1p_minus_x(-a * s)),
        "mean_add": a * t / (2.0 * ((m + 1.0) ** 2 + a * m * t)),
        "rank_one_add": half * (a * l_y - log1p_minus_x(a * y)),
        "shrink_remove": -d
        * half
        * (log1p_minus_x((a - 1.0) * s) + (a - 1.0) * log1p_minus_x(np.full_like(a, -s))),
        "mean_remove": a * t / (2.0 * ((m + 1.0) ** 2 - (a - 1.0) * m * t)),
        "rank_one_remove": -half * (log1p_minus_x(-(a - 1.0) * y) + (a - 1.0) * l_y),
    }


def _bounded_parts(a: np.ndarray, n: float, t: float) -> dict[str, np.ndarray]:
    """The two terms of Theorem R2 at orders a (all admissible)."""
    half = 1.0 / (2.0 * (a - 1.0))
    y = (n - 1.0) * t / (n * n)
    l_y = log1p_minus_x(np.full_like(a, y))
    # κ·τ bounds sup_b (‖ũ‖ + ‖ṽ‖)²/(1 + αc‖ṽ‖²) over ‖ṽ‖² ≤ τ (docs: mean term of R2); the plain
    # bound κ = 4 is used where y > 1 (then α < 2), where the sharper form was not derived.
    ay = a * y
    with np.errstate(divide="ignore"):
        kappa = np.where(ay <= 1.0, 4.0 / (1.0 + ay), 1.0 + 1.0 / ay)
    kappa = np.where(y <= 1.0, kappa, 4.0)
    return {
        "mean": kappa * a * t / (2.0 * (n * n - (a - 1.0) * (n - 1.0) * t)),
        "covariance": half * (l_y - log1p_minus_x(a * y) - log1p_minus_x(-(a - 1.0) * y)),
    }


def ridge_terms(
    alpha: ArrayLike, n: float, d: float, rho: float, neighboring: str = "unbounded"
) -> dict[str, np.ndarray]:
    """Each term of Theorem R1 (unbounded) or R2 (bounded), NaN outside the admissible orders.

    Unbounded keys: shrink_add, mean_add, rank_one_add, epsilon_add, and the same with _remove.
    Bounded keys: mean, covariance. Both also have ``epsilon``, the per-record bound.
    """
    _check(n, d, rho, neighboring)
    a_in = np.asarray(alpha, dtype=float)
    ok = (a_in > 1.0) & (a_in < ridge_alpha_limit(n, d, rho, neighboring))
    t = 4.0 * float(d) / float(rho)
    m = _pair_size(n, neighboring)
    # harmless stand-in orders outside the range, masked to NaN below
    a = np.where(ok, a_in, 1.0 + 1e-9 * (ridge_alpha_limit(n, d, rho, neighboring) - 1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        if neighboring == "unbounded":
            parts = _unbounded_parts(a, m, float(d), t)
            parts["epsilon_add"] = parts["shrink_add"] + parts["mean_add"] + parts["rank_one_add"]
            parts["epsilon_remove"] = (
                parts["shrink_remove"] + parts["mean_remove"] + parts["rank_one_remove"]
            )
            parts["epsilon"] = np.maximum(parts["epsilon_add"], parts["epsilon_remove"])
        else:
            parts = _bounded_parts(a, m, t)
            parts["epsilon"] = parts["mean"] + parts["covariance"]
    return {k: np.where(ok, v, np.nan) for k, v in parts.items()}


def ridge_epsilon_per_record(
    alpha: ArrayLike, n: float, d: float, rho: float, neighboring: str = "unbounded"
) -> np.ndarray:
    """ε of one released record at each order α: Theorem R1 (unbounded) or R2 (bounded).

    ``n`` is the public minimum table size N, and the bound holds for every table with at least
    N rows. +inf outside 1 < α < ``ridge_alpha_limit`` and where rounding makes it non-finite.

    Parameters
    ----------
    alpha : array_like
        Rényi orders.
    n : float
        Public minimum table size N (≥ 2).
    d : float
        Encoded dimension.
    rho : float
        The public ridge ρ > 0.
    neighboring : {"unbounded", "bounded"}
        The neighbouring relation.

    Returns
    -------
    numpy.ndarray
        ε of (α, ε)-RDP per released record.

    Raises
    ------
    ParameterError
        For an unknown relation.
    AssumptionError
        When N, d or ρ is malformed.

    Examples
    --------
    >>> round(float(ridge_epsilon_per_record(2.0, 1000, 2, 0.1)), 6)
    0.003292
    """
    eps = ridge_terms(alpha, n, d, rho, neighboring)["epsilon"]
    return np.where(np.isfinite(eps) & (eps >= 0), eps, np.inf)


def ridge_event(n: float, d: float, rho: float, neighboring: str = "unbounded") -> RecordEvent:
    """The RDP of one ridged record for tables of at least ``n`` rows, as a custom event.

    Theorem R1 (unbounded) or R2 (bounded) on 1 < α < :func:`ridge_alpha_limit`; the α search,
    composition, conversion and floors are :mod:`synthcert.privacy.record_accountant`.
    """
    _check(n, d, rho, neighboring)
    lim = ridge_alpha_limit(n, d, rho, neighboring)
    return RecordEvent(
        per_record=lambda a: ridge_epsilon_per_record(a, n, d, rho, neighboring),
        alpha_max=lim,
        refusal=lambda alpha: _refusal(alpha, lim),
    )


# --------------------------------------------------------------------------------------------
# certificates
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RidgeCertificate(RecordCertificate):
    """(α, ε_RDP) and, given δ, (ε, δ)-DP of releasing n_out ridged records; or why not.

    A :class:`~synthcert.privacy.record_accountant.RecordCertificate` whose n is the public
    minimum table size N, with the ridge ρ and the public assumptions it rests on (all of them:
    ``unconditional``).
    """

    rho: float
    unconditional: bool
    assumptions: tuple[str, ...]

    PLACED = (("rho", "d"),)


def _refusal(alpha: float, lim: float) -> str | None:
    if not alpha > 1.0:
        return f"the order must satisfy α > 1 (got α = {alpha:g})"
    if not alpha < lim:
        return (
            f"the ridged bound needs α < {lim:.6g} for these (N, d, ρ); admissible: "
            f"1 < α < {lim:.6g} (a larger ρ or a larger minimum table size widens the range)"
        )
    return None


def certify_ridge(
    n: int,
    d: int,
    rho: float,
    *,
    alpha: float | None = None,
    n_out: int | None = None,
    neighboring: str = "unbounded",
    delta: float | None = None,
    conversion: Conversion = "ckm",
) -> RidgeCertificate:
    """Certify n_out ridged records (default n) for every table of at least n rows.

    Theorem R1/R2 per record, composed over the records (seed 000 Prop. 2.5). With δ, it is
    converted to (ε, δ)-DP by ``conversion.rdp_to_dp``. When α is omitted it is chosen to minimise ε
    (``conversion.optimal_dp``), which needs δ.

    Parameters
    ----------
    n : int
        Public minimum table size N.
    d : int
        Encoded dimension.
    rho : float
        The public ridge ρ.
    alpha : float, optional
        Rényi order; None optimises it (needs δ).
    n_out : int, optional
        Records released (default n).
    neighboring : {"unbounded", "bounded"}
        The neighbouring relation.
    delta : float, optional
        δ of the (ε, δ)-DP conversion.
    conversion : {"ckm", "mironov"}
        The RDP-to-DP conversion.

    Returns
    -------
    RidgeCertificate
        The certificate, with the assumptions it rests on.

    Raises
    ------
    ParameterError
        For an unknown relation or conversion.
    AssumptionError
        When an input is malformed, or neither α nor δ is given.

    Examples
    --------
    >>> cert = certify_ridge(10**4, 2, 0.1, alpha=4.0, n_out=100)
    >>> cert.unconditional, round(cert.epsilon_rdp, 6)
    (True, 0.006634)
    """
    event = ridge_event(n, d, rho, neighboring)
    n_out = int(n) if n_out is None else int(n_out)
    acc = account_records(event, n_out, alpha=alpha, delta=delta, conversion=conversion)
    return RidgeCertificate.of(
        acc,
        neighboring=neighboring,
        n=int(n),
        d=int(d),
        rho=float(rho),
        alpha=acc.alpha if acc.alpha is not None and math.isfinite(acc.alpha) else None,
        alpha_max=event.alpha_max,
        equation=EQUATIONS[neighboring],
        unconditional=True,
        assumptions=public_assumptions(int(n), int(d), float(rho), neighboring),
    )


def require_ridge(cert: RidgeCertificate) -> RidgeCertificate:
    """Return ``cert`` if feasible, else raise AssumptionError naming the violated condition."""
    return require_feasible(cert, "ridged")


# --------------------------------------------------------------------------------------------
# sizing a release
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class RidgeBudget(BudgetFields):
    """Largest number of ridged records within a budget (a floor, never rounded up), with the
    ridge ρ; a refusal states no order and no cost per record (None)."""

    alpha: float | None
    epsilon_rdp_per_record: float | None
    rho: float

    PLACED = (("rho", "d"),)


def max_records_ridge(
    n: int,
    d: int,
    rho: float,
    *,
    neighboring: str = "unbounded",
    alpha: float | None = None,
    epsilon_rdp: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    conversion: Conversion = "ckm",
) -> RidgeBudget:
    """Largest n_out within an RDP budget (α, ε_RDP) or an (ε, δ) budget (α optimised if None).

    RDP: floor(ε_RDP/ε_α). (ε, δ): for a fixed α, n_out·ε_α + offset(α, δ) ≤ ε, so the number
    of rows allowed, (ε − offset)/ε_α, is maximised over α by the search in
    ``conversion.log_alpha_search``. Both floors are checked against the budget by
    ``calibrate.floor_within``.

    Parameters
    ----------
    n : int
        Public minimum table size N.
    d : int
        Encoded dimension.
    rho : float
        The public ridge ρ.
    neighboring : {"unbounded", "bounded"}
        The neighbouring relation.
    alpha, epsilon_rdp : float, optional
        An RDP budget.
    epsilon, delta : float, optional
        An (ε, δ)-DP budget (exactly one of the two budgets).
    conversion : {"ckm", "mironov"}
        The RDP-to-DP conversion.

    Returns
    -------
    RidgeBudget
        The largest count and what it costs.

    Raises
    ------
    AssumptionError
        When not exactly one budget is given, or an input is malformed.
    ParameterError
        For an unknown relation or conversion.

    Examples
    --------
    >>> max_records_ridge(10**4, 2, 0.1, alpha=4.0, epsilon_rdp=1.0).max_records
    15073
    """
    event = ridge_event(n, d, rho, neighboring)
    budget = BudgetRequest.of(alpha, epsilon_rdp, epsilon, delta, conversion)
    count = budget.count(event)
    refused = {}  # a refused ridged budget states no cost per record, and no order unless given
    if not count.feasible:
        alpha_out = count.alpha if math.isfinite(count.alpha) else None
        refused = {"epsilon_rdp_per_record": None, "alpha": alpha_out}
    return RidgeBudget.from_count(
        count, budget.epsilon, budget.delta, conversion, neighboring, n, d,
        rho=float(rho), **refused,
    )  # fmt: skip


__all__ = [
    "RIDGE_NEIGHBORINGS",
    "RidgeBudget",
    "RidgeCertificate",
    "certify_ridge",
    "max_records_ridge",
    "public_assumptions",
    "require_ridge",
    "ridge_alpha_limit",
    "ridge_epsilon_per_record",
    "ridge_event",
    "ridge_terms",
]

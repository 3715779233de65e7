"""RDP of the randomness of M_G alone (Miura et al.: seed 000 §3, thesis 003 §5.3, seed 001 §3).

M_G draws records from N(μ_D, Σ_D) of a dataset D ⊂ [-1,1]^d whose covariance has every
eigenvalue ≥ σ (the class D_σ). All three theorems are closed forms in (α, n, d, σ); the terms
that cancel to O(1/n²) are evaluated with ``numerics.log1p_minus_x`` so that n up to 10^10 keeps
full relative precision. Every public function refuses (returns +inf, or a certificate that
says ``feasible=False`` with the violated assumption) rather than return a meaningless number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from synthcert._result import Result
from synthcert.errors import AssumptionError, check_choice
from synthcert.privacy.numerics import log1p_minus_x, tau
from synthcert.privacy.parameters import RELEASE_RELATIONS, NeighbouringLike, check_neighbouring

# add/remove, replacement, or replacement certified by the direct bound (seed 001)
Neighboring: TypeAlias = NeighbouringLike | Literal["bounded-direct"]
Variant = Literal["corrected", "paper"]
Method = Literal["exact", "corollary"]
NEIGHBORINGS: tuple[str, ...] = RELEASE_RELATIONS
# How the bounded relation is certified: the certified exact worst case (default, see
# privacy/bounded_exact.py) or Corollary 3.2 of seed 000 (corrected, or as printed via variant).
BOUNDED_METHODS: tuple[str, ...] = ("exact", "corollary")
DEFAULT_BOUNDED_METHOD = "exact"

EQUATIONS = {
    "unbounded": "Theorem 3.1 of Miura et al. (seed 000), assumption eq. (1)",
    "bounded": "Corollary 3.2 of Miura et al. (seed 000), eq. (3), assumption eq. (2)",
    "bounded-direct": "Theorem 3.2 of the CSS 2022 version (seed 001), Lemmas 4.6-4.9",
    "bounded-exact": (
        "exact bounded worst case: sup of the closed-form D_α (Prop. 4.1 of seed 000) over "
        "|u|², |v|² ≤ τ, certified by interval branch-and-bound (docs/accountant.md)"
    ),
}

_P_GRID = 256  # points of the log(p−1) grid before the bounded refinement


def _check_inputs(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> None:
    """Refuse malformed (n, d, σ): these are not assumptions of a theorem but input errors."""
    n_a, d_a, s_a = (np.asarray(v, dtype=float) for v in (n, d, sigma))
    if np.any(~np.isfinite(n_a)) or np.any(n_a < 1) or np.any(n_a != np.floor(n_a)):
        raise AssumptionError(
            "n must be a whole number ≥ 1", assumption="n ∈ ℕ, n ≥ 1", admissible="n ≥ 1"
        )
    if np.any(~np.isfinite(d_a)) or np.any(d_a < 1) or np.any(d_a != np.floor(d_a)):
        raise AssumptionError(
            "d must be a whole number ≥ 1", assumption="d ∈ ℕ, d ≥ 1", admissible="d ≥ 1"
        )
    if np.any(~np.isfinite(s_a)) or np.any(s_a <= 0):
        raise AssumptionError(
            "σ must be a positive number (a lower bound on the covariance eigenvalues)",
            assumption="σ > 0",
            admissible="σ ∈ (0, 1]",
        )


# --------------------------------------------------------------------------------------------
# admissible orders
# --------------------------------------------------------------------------------------------
def unbounded_alpha_limit(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """c = min{n+1, n²/(τ(n+1)−n)} of eq. (1) (seed 000): Theorem 3.1 needs 1 < α < c."""
    n_a = np.asarray(n, dtype=float)
    t = tau(d, sigma)
    den = t * (n_a + 1.0) - n_a
    with np.errstate(divide="ignore"):
        second = np.where(den > 0, n_a * n_a / np.where(den > 0, den, 1.0), np.inf)
    # den ≤ 0 means n/(n+1) ≥ τ, the first assumption of eq. (1) fails; report c = 0 then.
    return np.where(den > 0, np.minimum(n_a + 1.0, second), 0.0)


def bounded_alpha_limit(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """c²/(2c−1) of eq. (2) (seed 000): Corollary 3.2 needs 1 < α < c²/(2c−1)."""
    c = unbounded_alpha_limit(n, d, sigma)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c > 1, c * c / (2.0 * c - 1.0), 0.0)


def direct_alpha_limit(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """n²/(τ(n−1)) of Theorem 3.2 of seed 001 (bounded, direct): needs 1 < α below it."""
    n_a = np.asarray(n, dtype=float)
    t = tau(d, sigma)
    with np.errstate(divide="ignore"):
        return np.where(n_a > 1, n_a * n_a / (t * np.maximum(n_a - 1.0, 1e-300)), 0.0)


def alpha_limit(
    n: float,
    d: float,
    sigma: float,
    neighboring: Neighboring = "unbounded",
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> float:
    """Supremum of the admissible orders α for the chosen neighbouring relation (and method).

    Parameters
    ----------
    n : float
        Records of the table.
    d : float
        Encoded dimension.
    sigma : float
        Lower bound on the covariance eigenvalues (the class D_σ).
    neighboring : {"unbounded", "bounded", "bounded-direct"}
        The neighbouring relation.
    method : {"exact", "corollary"}
        Certificate of the bounded relation.

    Returns
    -------
    float
        The admissible orders are 1 < α below it (0 when none is).

    Raises
    ------
    ParameterError
        For an unknown relation or method.

    Examples
    --------
    >>> round(alpha_limit(10**4, 6, 0.01), 4)  # c of eq. (1): n²/(τ(n+1)−n)
    4.168
    """
    check_neighboring(neighboring)
    check_method(method)
    if neighboring == "bounded" and method == "exact":
        from synthcert.privacy.bounded_exact import exact_alpha_limit

        return float(exact_alpha_limit(n, d, sigma))
    fn = {
        "unbounded": unbounded_alpha_limit,
        "bounded": bounded_alpha_limit,
        "bounded-direct": direct_alpha_limit,
    }[neighboring]
    return float(fn(n, d, sigma))


def check_method(method: str) -> None:
    """Refuse an unknown bounded-certificate method.

    Raises
    ------
    ParameterError
        When ``method`` is not one of :data:`BOUNDED_METHODS`.
    """
    check_choice("method for the bounded relation", method, BOUNDED_METHODS)


def check_neighboring(neighboring: str) -> None:
    """Refuse an unknown neighbouring relation.

    Raises
    ------
    ParameterError
        When ``neighboring`` is not one of :data:`NEIGHBORINGS`.
    """
    check_neighbouring(neighboring, NEIGHBORINGS)


# --------------------------------------------------------------------------------------------
# Theorem 3.1 (unbounded)
# --------------------------------------------------------------------------------------------
def _theorem31_parts(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean and covariance terms of ε_α1 and ε_α2 of Theorem 3.1 (seed 000); NaN where refused.

    NaN where eq. (1) fails. The pairs of logarithms that cancel to
    O(1/n²) are rewritten exactly with l(x) = log(1+x) − x:
      αd/(2(α−1))·log(n/(n+1)) − d/(2(α−1))·log(1−α/(n+1))
          = d/(2(α−1))·[−α l(1/n) − l(−α/(n+1)) − α/(n(n+1))],
      log(1+a) − α log(1+b) = l(a) − α l(b) + (a − αb), with a − αb in closed form.
    """
    a = np.asarray(alpha, dtype=float)
    n_a = np.asarray(n, dtype=float)
    d_a = np.asarray(d, dtype=float)
    t = tau(d, sigma)
    a, n_a, d_a, t = np.broadcast_arrays(a, n_a, d_a, t)
    c = unbounded_alpha_limit(n_a, d_a, 4.0 * d_a / t)
    ok = (a > 1) & (a < c) & (t > n_a / (n_a + 1.0))
    # Replace infeasible entries by harmless values; they are masked to NaN at the end.
    a = np.where(ok, a, 2.0)
    n_a = np.where(ok, n_a, 1e6)
    t = np.where(ok, t, 1.0)
    half = 1.0 / (2.0 * (a - 1.0))

    # ε_α1: s = +1 (Lemmas 4.4 and 4.5 with the n-record dataset as Σ1).
    l1 = a / 2.0 * t / ((n_a + 1.0) * (n_a + 1.0 - a))
    cancel1 = (
        -a * log1p_minus_x(1.0 / n_a) - log1p_minus_x(-a / (n_a + 1.0)) - a / (n_a * (n_a + 1.0))
    )
    a1 = a * n_a * t / ((n_a + 1.0) * (n_a + 1.0 - a))
    b1 = t / (n_a + 1.0)
    diff1 = a * t * (a - 1.0) / ((n_a + 1.0) * (n_a + 1.0 - a))  # a1 − α b1
    log_ratio1 = log1p_minus_x(a1) - a * log1p_minus_x(b1) + diff1

    # ε_α2: s = −1 (the (n+1)-record dataset is Σ1; Lemma 4.4/4.5 with n → n+1).
    l2 = a / 2.0 * t / (n_a * (n_a + a) - a * (n_a + 1.0) * t)
    cancel2 = a * log1p_minus_x(1.0 / n_a) - log1p_minus_x(a / n_a)
    a2 = -a * (n_a + 1.0) * t / ((n_a + a) * n_a)
    b2 = -t / n_a
    diff2 = a * t * (a - 1.0) / (n_a * (n_a + a))  # a2 − α b2
    log_ratio2 = log1p_minus_x(a2) - a * log1p_minus_x(b2) + diff2
    cov1 = d_a * half * cancel1 - half * np.minimum(0.0, log_ratio1)
    cov2 = d_a * half * cancel2 - half * np.minimum(0.0, log_ratio2)
    nan = np.nan
    return (
        np.where(ok, l1, nan),
        np.where(ok, cov1, nan),
        np.where(ok, l2, nan),
        np.where(ok, cov2, nan),
    )


def theorem31_terms(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """ε_α1 (add a record to the n-set) and ε_α2 (remove one from the (n+1)-set) of Theorem 3.1.

    Seed 000, Theorem 3.1: ε_α = max{ε_α1, ε_α2} per output record (:func:`epsilon_unbounded`).

    Parameters
    ----------
    alpha : array_like
        Rényi orders, 1 < α < c of eq. (1).
    n : array_like
        Records of the smaller dataset.
    d : array_like
        Encoded dimension.
    sigma : array_like
        Lower bound on the covariance eigenvalues (the class D_σ).

    Returns
    -------
    tuple of numpy.ndarray
        (ε_α1, ε_α2), broadcast over the inputs; NaN where eq. (1) fails.

    Examples
    --------
    >>> e1, e2 = theorem31_terms(4.0, 10**6, 6, 0.01)
    >>> round(float(max(e1, e2)) * 10**6, 4)  # Table 1 of seed 000 prints 5.8064
    5.8064
    """
    m1, c1, m2, c2 = _theorem31_parts(alpha, n, d, sigma)
    return m1 + c1, m2 + c2


def theorem31_components(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> dict[str, np.ndarray]:
    """Theorem 3.1 (seed 000) split into its mean-vector and covariance terms, per direction.

    The mean term is α/2 × the Lemma 4.4 bound on L1; the covariance term the Lemma 4.5 bound on
    −log L2/(2(α−1)). ``add``: the n-record dataset against the one with a record added (ε_α1);
    ``remove``: the (n+1)-record dataset against the one with a record removed (ε_α2).

    Parameters
    ----------
    alpha, n, d, sigma : array_like
        As in :func:`theorem31_terms` (the same order).

    Returns
    -------
    dict of str to numpy.ndarray
        ``mean_term_add``, ``mean_term_remove``, ``covariance_term_add``,
        ``covariance_term_remove``, ``epsilon_add``, ``epsilon_remove``; NaN where eq. (1)
        fails.

    Examples
    --------
    >>> parts = theorem31_components(4.0, 10**6, 6, 0.01)
    >>> bool(parts["epsilon_add"] == parts["mean_term_add"] + parts["covariance_term_add"])
    True
    """
    m1, c1, m2, c2 = _theorem31_parts(alpha, n, d, sigma)
    return {
        "mean_term_add": m1,
        "mean_term_remove": m2,
        "covariance_term_add": c1,
        "covariance_term_remove": c2,
        "epsilon_add": m1 + c1,
        "epsilon_remove": m2 + c2,
    }


def epsilon_unbounded(alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """Theorem 3.1 (seed 000): ε_α = max{ε_α1, ε_α2} per output record; +inf where eq. (1) fails.

    Parameters
    ----------
    alpha : array_like
        Rényi orders.
    n : array_like
        Records of the smaller dataset of the pair.
    d : array_like
        Encoded dimension.
    sigma : array_like
        Lower bound on the covariance eigenvalues.

    Returns
    -------
    numpy.ndarray
        ε of (α, ε)-RDP for one output record.

    Raises
    ------
    AssumptionError
        When n, d or σ is malformed (n, d whole and ≥ 1; σ > 0).

    Examples
    --------
    >>> round(float(epsilon_unbounded(4.0, 10**6, 6, 0.01)) * 10**6, 4)  # Table 1 of seed 000
    5.8064
    """
    _check_inputs(n, d, sigma)
    e1, e2 = theorem31_terms(alpha, n, d, sigma)
    out = np.maximum(e1, e2)
    return np.where(np.isnan(out), np.inf, out)


# --------------------------------------------------------------------------------------------
# Corollary 3.2 (bounded, via the weak triangle inequality)
# --------------------------------------------------------------------------------------------
def _second_leg(n: float, sigma: float, variant: Variant) -> tuple[float, float]:
    """(n, σ) at which the second leg D(M(D3) ‖ M(D2)) of eq. (3) is evaluated.

    The corollary's proof inserts D3 = D1 ∪ {y} = D2 ∪ {x} with n+1 records, so the second leg
    is the pair (n+1 → n), covered by ε(·, n) of Theorem 3.1, and Theorem 3.1 then needs the
    (n+1)-record D3 in D_σ'. D3 is not in D_σ in general, but Σ_{D3} = n/(n+1)·Σ_{D2} + (PSD),
    so σ' = nσ/(n+1) holds. The paper (eq. (3)) writes ε(·, n+1) with σ: this is a slip
    (not listed in the seeds README); ``variant="paper"`` reproduces the printed formula.
    """
    if variant == "paper":
        return n + 1.0, sigma
    return n, sigma * n / (n + 1.0)


def bounded_p_interval(
    alpha: float, n: float, d: float, sigma: float, variant: Variant
) -> tuple[float, float] | None:
    """Open interval of p in eq. (3) of seed 000: pα < c(n,σ) and (pα−1)/(p−1) < c(second leg).

    Parameters
    ----------
    alpha : float
        Rényi order.
    n, d, sigma : float
        Records, encoded dimension and eigenvalue bound, as in Corollary 3.2.
    variant : {"corrected", "paper"}
        Second leg at (n, σn/(n+1)) (corrected) or at (n+1, σ) as printed.

    Returns
    -------
    tuple of float or None
        (lower, upper) end of the admissible p, or None when no p is admissible.
    """
    n2, s2 = _second_leg(n, sigma, variant)
    c1 = float(unbounded_alpha_limit(n, d, sigma))
    c2 = c1 if variant == "paper" else float(unbounded_alpha_limit(n2, d, s2))
    if not (alpha > 1 and alpha < c1 and alpha < c2 and c2 > 1):
        return None
    lo = (c2 - 1.0) / (c2 - alpha)
    hi = c1 / alpha
    return (lo, hi) if lo < hi else None


def bounded_objective(
    p: np.ndarray, alpha: np.ndarray, n: float, d: float, sigma: float, variant: Variant
) -> np.ndarray:
    """Weak-triangle combination of eq. (3) at the points p (Lemma 2.7 of seed 000).

    Parameters
    ----------
    p : numpy.ndarray
        Points of the weak triangle inequality, inside :func:`bounded_p_interval`.
    alpha : numpy.ndarray
        Rényi orders (broadcast against ``p``).
    n, d, sigma : float
        As in Corollary 3.2.
    variant : {"corrected", "paper"}
        As in :func:`bounded_p_interval`.

    Returns
    -------
    numpy.ndarray
        The bound on ε per record at each p (+inf where Theorem 3.1 refuses a leg).
    """
    n2, s2 = _second_leg(n, sigma, variant)
    e1a, e1b = theorem31_terms(p * alpha, n, d, sigma)
    e2a, e2b = theorem31_terms((p * alpha - 1.0) / (p - 1.0), n2, d, s2)
    first = (alpha - 1.0 / p) / (alpha - 1.0) * np.maximum(e1a, e1b)
    out = first + np.maximum(e2a, e2b)
    return np.where(np.isnan(out), np.inf, out)


_FINE = 17  # points of each refinement grid around the best grid cell


def _bounded_vectorised(
    alpha: np.ndarray, n: float, d: float, sigma: float, variant: Variant
) -> tuple[np.ndarray, np.ndarray]:
    """Corollary 3.2 for a 1-D array of α: grid in log(p−1), then golden-section refinement.

    The feasible p run from ≈1 + O(1/c) to c/α (orders of magnitude apart) and the optimum sits
    near p ≈ 1.75 for the paper's settings, so a linear grid in p would miss it. Every α is
    refined simultaneously. Each returned value is the objective at an actual feasible p, so it
    is a valid bound even where the search is not exactly at the infimum.
    """
    k = alpha.size
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    for i, a in enumerate(alpha):
        interval = bounded_p_interval(float(a), n, d, sigma, variant)
        if interval is not None:
            lo[i], hi[i] = interval
    ok = np.isfinite(lo)
    eps = np.full(k, np.inf)
    ps = np.full(k, np.nan)
    if not np.any(ok):
        return eps, ps
    a = alpha[ok][:, None]
    u_lo, u_hi = np.log(lo[ok] - 1.0), np.log(hi[ok] - 1.0)
    frac = np.linspace(0.0, 1.0, _P_GRID + 2)[1:-1]
    u = u_lo[:, None] + (u_hi - u_lo)[:, None] * frac[None, :]
    vals = bounded_objective(1.0 + np.exp(u), a, n, d, sigma, variant)
    j = np.argmin(vals, axis=1)
    rows = np.arange(u.shape[0])
    best_val, best_u = vals[rows, j], u[rows, j]
    width = (u_hi - u_lo) / (_P_GRID + 1)
    a1 = a[:, 0]
    edge_lo = u_lo + 1e-12 * (u_hi - u_lo)
    edge_hi = u_hi - 1e-12 * (u_hi - u_lo)
    # Two rounds of a 17-point grid on the bracket around the best point (each a single
    # vectorised call for all α), then one parabolic step through the best three points.
    fine = np.linspace(-1.0, 1.0, _FINE)
    for _ in range(2):
        cu = np.clip(
            best_u[:, None] + width[:, None] * fine[None, :], edge_lo[:, None], edge_hi[:, None]
        )
        cv = bounded_objective(1.0 + np.exp(cu), a, n, d, sigma, variant)
        jj = np.argmin(cv, axis=1)
        better = cv[rows, jj] < best_val
        best_val = np.where(better, cv[rows, jj], best_val)
        best_u = np.where(better, cu[rows, jj], best_u)
        width = width * 2.0 / (_FINE - 1)
    h = width
    um, up = best_u - h, best_u + h
    fm = bounded_objective(1.0 + np.exp(um), a1, n, d, sigma, variant)
    fp = bounded_objective(1.0 + np.exp(up), a1, n, d, sigma, variant)
    curv = fm - 2.0 * best_val + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.where(curv > 0, 0.5 * h * (fm - fp) / curv, 0.0)
    uv = np.clip(best_u + np.clip(shift, -h, h), edge_lo, edge_hi)
    fv = bounded_objective(1.0 + np.exp(uv), a1, n, d, sigma, variant)
    better = fv < best_val
    eps[ok] = np.where(better, fv, best_val)
    ps[ok] = 1.0 + np.exp(np.where(better, uv, best_u))
    eps = np.where(np.isfinite(eps), eps, np.inf)
    ps = np.where(np.isfinite(eps), ps, np.nan)
    return eps, ps


def bounded_optimum(
    alpha: float, n: float, d: float, sigma: float, variant: Variant = "corrected"
) -> tuple[float, float]:
    """Corollary 3.2 (seed 000, eq. (3)) for one α: (ε, p*), the infimum over p and its place."""
    eps, ps = _bounded_vectorised(np.array([float(alpha)]), n, d, sigma, variant)
    return float(eps[0]), float(ps[0])


def epsilon_bounded(
    alpha: ArrayLike,
    n: float,
    d: float,
    sigma: float,
    *,
    variant: Variant = "corrected",
    return_p: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Corollary 3.2 (seed 000, eq. (3)), vectorised over α; +inf where eq. (2) fails.

    Parameters
    ----------
    alpha : array_like
        Rényi orders.
    n, d, sigma : float
        Records, encoded dimension, eigenvalue bound.
    variant : {"corrected", "paper"}
        The corrected second leg (at n, σn/(n+1)) or eq. (3) as printed (at n+1, σ).
    return_p : bool
        Also return the p of the weak triangle inequality at the optimum.

    Returns
    -------
    numpy.ndarray or tuple of numpy.ndarray
        ε per record (and p*), shaped like ``alpha``.

    Raises
    ------
    AssumptionError
        When n, d or σ is malformed.

    Examples
    --------
    >>> round(float(epsilon_bounded(4.0, 10**5, 6, 0.01, variant="paper")) * 10**5, 4)
    266.7349
    """
    _check_inputs(n, d, sigma)
    a = np.asarray(alpha, dtype=float)
    eps, ps = _bounded_vectorised(a.ravel(), float(n), float(d), float(sigma), variant)
    eps, ps = eps.reshape(a.shape), ps.reshape(a.shape)
    return (eps, ps) if return_p else eps


# --------------------------------------------------------------------------------------------
# Theorem 3.2 of seed 001 (bounded, direct; much looser)
# --------------------------------------------------------------------------------------------
def epsilon_bounded_direct(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, sigma: ArrayLike
) -> np.ndarray:
    """Theorem 3.2 of seed 001 (Lemmas 4.6-4.9): bounded ε per record; +inf if α ≥ n²/(τ(n−1)).

    ε = α/2·τ/(n² − α(n−1)τ) + α/(2(α−1))·log(1 + k) − 1/(2(α−1))·log(1 − αk), k = (n−1)τ/n².
    (Seed 001 writes μ' = n/(n−1)·Σx_i in Lemma 4.6; the mean of the n−1 common records is
    1/(n−1)·Σx_i. The bound is unaffected: it only uses ‖x − μ'‖² ≤ 4d.)

    Parameters
    ----------
    alpha, n, d, sigma : array_like
        Rényi orders, records, encoded dimension, eigenvalue bound.

    Returns
    -------
    numpy.ndarray
        ε per record, +inf outside the admissible orders.

    Raises
    ------
    AssumptionError
        When n, d or σ is malformed.

    Examples
    --------
    >>> bool(epsilon_bounded_direct(2.0, 10**6, 6, 0.01) > epsilon_bounded(2.0, 10**6, 6, 0.01))
    True
    """
    _check_inputs(n, d, sigma)
    a = np.asarray(alpha, dtype=float)
    n_a = np.asarray(n, dtype=float)
    t = tau(d, sigma)
    a, n_a, t = np.broadcast_arrays(a, n_a, t)
    ok = (a > 1) & (n_a >= 2) & (a < direct_alpha_limit(n_a, np.asarray(d, float), sigma))
    a = np.where(ok, a, 2.0)
    n_a = np.where(ok, n_a, 1e6)
    t = np.where(ok, t, 1.0)
    k = (n_a - 1.0) * t / (n_a * n_a)
    l1 = a / 2.0 * t / (n_a * n_a - a * (n_a - 1.0) * t)
    eps = l1 + a / (2.0 * (a - 1.0)) * np.log1p(k) - np.log1p(-a * k) / (2.0 * (a - 1.0))
    return np.where(ok, eps, np.inf)


def epsilon_per_record(
    alpha: ArrayLike,
    n: float,
    d: float,
    sigma: float,
    neighboring: Neighboring = "unbounded",
    *,
    variant: Variant = "corrected",
    method: Method = DEFAULT_BOUNDED_METHOD,
    rtol: float | None = None,
) -> np.ndarray:
    """ε of one output record at each α for the chosen relation (+inf where the theorem refuses).

    For ``bounded``, ``method="exact"`` (default) is the certified exact worst case
    (privacy/bounded_exact.py) and ``method="corollary"`` Corollary 3.2 (with ``variant``).
    ``rtol`` (exact only; default 1e-6) is how close the certified bound is pushed to the
    supremum: a looser one is faster and larger, never smaller.

    Parameters
    ----------
    alpha : array_like
        Rényi orders.
    n, d, sigma : float
        Records, encoded dimension, eigenvalue bound.
    neighboring : {"unbounded", "bounded", "bounded-direct"}
        The neighbouring relation.
    variant : {"corrected", "paper"}
        Corollary 3.2 as corrected or as printed (``method="corollary"`` only).
    method : {"exact", "corollary"}
        Certificate of the bounded relation.
    rtol : float, optional
        Relative precision of the exact bounded certificate.

    Returns
    -------
    numpy.ndarray
        ε of (α, ε)-RDP per output record.

    Raises
    ------
    ParameterError
        For an unknown relation or method.
    AssumptionError
        When n, d or σ is malformed.

    Examples
    --------
    >>> e = epsilon_per_record(4.0, 10**6, 6, 0.01, "bounded", method="corollary")
    >>> round(float(e) * 10**6, 4)  # the corrected Corollary 3.2 (printed: 23.3577)
    23.3577
    """
    check_neighboring(neighboring)
    check_method(method)
    if neighboring == "unbounded":
        return np.asarray(epsilon_unbounded(alpha, n, d, sigma), dtype=float)
    if neighboring == "bounded" and method == "exact":
        from synthcert.privacy.bounded_exact import epsilon_bounded_exact

        _check_inputs(n, d, sigma)
        if float(n) < 2:
            return np.full(np.shape(alpha), np.inf)
        if rtol is None:
            return epsilon_bounded_exact(alpha, n, int(d), float(sigma))
        return epsilon_bounded_exact(alpha, n, int(d), float(sigma), rtol=rtol)
    if neighboring == "bounded":
        return np.asarray(epsilon_bounded(alpha, n, d, sigma, variant=variant), dtype=float)
    return np.asarray(epsilon_bounded_direct(alpha, n, d, sigma), dtype=float)


def compose(epsilon_rdp: ArrayLike, n_out: ArrayLike) -> np.ndarray:
    """Proposition 2.5 (seed 000): n_out independent records cost n_out·ε at the same α."""
    return np.asarray(n_out, dtype=float) * np.asarray(epsilon_rdp, dtype=float)


# --------------------------------------------------------------------------------------------
# certificate
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RDPCertificate(Result):
    """(α, ε)-RDP of releasing n_out records of M_G, or the reason no certificate is given."""

    neighboring: str
    n: int
    d: int
    sigma: float
    alpha: float
    n_out: int
    epsilon_rdp: float
    epsilon_rdp_per_record: float
    feasible: bool
    reason: str | None
    alpha_max: float
    p: float | None
    equation: str
    variant: str
    method: str = ""


def infeasibility_reason(
    alpha: float,
    n: float,
    d: float,
    sigma: float,
    neighboring: Neighboring = "unbounded",
    *,
    variant: Variant = "corrected",
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> str | None:
    """Which assumption fails at (α, n, d, σ), with the admissible range; None if all hold."""
    check_neighboring(neighboring)
    check_method(method)
    t = 4.0 * d / sigma
    if sigma > 1.0:
        return (
            f"σ = {sigma:g} > 1: no dataset in [-1,1]^d has all covariance eigenvalues ≥ σ "
            "(each coordinate's variance is at most 1), so the certificate would be vacuous; "
            "admissible: 0 < σ ≤ 1"
        )
    if not alpha > 1:
        return f"the order must satisfy α > 1 (got α = {alpha:g})"
    if neighboring == "unbounded":
        if not t > n / (n + 1.0):
            return f"eq. (1) needs n/(n+1) < τ = 4d/σ = {t:g}"
        c = float(unbounded_alpha_limit(n, d, sigma))
        if not alpha < c:
            return (
                f"eq. (1) needs α < min{{n+1, n²/(τ(n+1)−n)}} = {c:.6g} for n = {n:g}, "
                f"d = {d:g}, σ = {sigma:g}; admissible: 1 < α < {c:.6g}"
            )
        return None
    if neighboring == "bounded" and method == "exact":
        if n < 2:
            return "the bounded relation needs n ≥ 2"
        lim = alpha_limit(n, d, sigma, "bounded", "exact")
        if not alpha < lim:
            return (
                f"the exact bounded certificate needs α < (n−1)/τ = {lim:.6g} (τ = 4d/σ = {t:g}) "
                f"for n = {n:g}, d = {d:g}, σ = {sigma:g}: at larger α the weighted covariance "
                f"is singular for some replaced record; admissible: 1 < α < {lim:.6g}"
            )
        return None
    if neighboring == "bounded":
        c = float(unbounded_alpha_limit(n, d, sigma))
        lim = float(bounded_alpha_limit(n, d, sigma))
        if not alpha < lim or bounded_p_interval(alpha, n, d, sigma, variant) is None:
            return (
                f"eq. (2) needs α < c²/(2c−1) = {lim:.6g} (c = {c:.6g}) for n = {n:g}, d = {d:g}, "
                f"σ = {sigma:g}: no p makes both orders of eq. (3) admissible; "
                f"admissible: 1 < α < {lim:.6g}"
            )
        return None
    if n < 2:
        return "the bounded relation needs n ≥ 2"
    lim = float(direct_alpha_limit(n, d, sigma))
    if not alpha < lim:
        return (
            f"Theorem 3.2 of seed 001 needs α < n²/(τ(n−1)) = {lim:.6g}; "
            f"admissible: 1 < α < {lim:.6g}"
        )
    return None


def theorem_n(n: int, neighboring: str) -> int:
    """The n at which a theorem is evaluated to certify a table of n records.

    Theorem 3.1 is stated for the pair (n, n+1). A released table of n records must protect
    each member against its removal too, i.e. the pair (n−1, n), whose bound ε(α, n−1) is the
    larger of the two (ε decreases in n). The bounded relations keep n.
    """
    return int(n) - 1 if neighboring == "unbounded" and int(n) >= 2 else int(n)


def equation_text(n: int, neighboring: str, method: str = DEFAULT_BOUNDED_METHOD) -> str:
    """The equation a certificate rests on, with the n it is evaluated at."""
    if neighboring == "bounded" and method == "exact":
        return EQUATIONS["bounded-exact"]
    if neighboring == "unbounded" and int(n) >= 2:
        return f"{EQUATIONS[neighboring]}, at n−1 = {int(n) - 1} (covers removing a member)"
    return EQUATIONS[neighboring]


def certify(
    n: int,
    d: int,
    sigma: float,
    alpha: float,
    *,
    n_out: int | None = None,
    neighboring: Neighboring = "unbounded",
    variant: Variant = "corrected",
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> RDPCertificate:
    """(α, n_out·ε)-RDP certificate of releasing n_out records.

    Theorem 3.1 (unbounded), the exact bounded worst case (``method="exact"``, default) or
    Corollary 3.2 (``method="corollary"``), or Theorem 3.2 of seed 001 (bounded-direct).

    Parameters
    ----------
    n : int
        Records of the table.
    d : int
        Encoded dimension.
    sigma : float
        Lower bound on the covariance eigenvalues.
    alpha : float
        Rényi order.
    n_out : int, optional
        Records released (default n); composed by Prop. 2.5 of seed 000.
    neighboring : {"unbounded", "bounded", "bounded-direct"}
        The neighbouring relation.
    variant : {"corrected", "paper"}
        Corollary 3.2 as corrected or as printed.
    method : {"exact", "corollary"}
        Certificate of the bounded relation.

    Returns
    -------
    RDPCertificate
        ``feasible=False`` with the violated assumption in ``reason`` when α is not admissible.

    Raises
    ------
    ParameterError
        For an unknown relation or method.
    AssumptionError
        When n, d or σ is malformed.

    Examples
    --------
    >>> cert = certify(10**6, 6, 0.01, 4.0)
    >>> cert.feasible, round(cert.epsilon_rdp, 4)
    (True, 5.8064)
    """
    check_neighboring(neighboring)
    check_method(method)
    _check_inputs(n, d, sigma)
    n_out = int(n) if n_out is None else int(n_out)
    if n_out < 0:
        raise AssumptionError("n_out must be ≥ 0", assumption="n_out ≥ 0", admissible="n_out ≥ 0")
    alpha = float(alpha)
    m = theorem_n(n, neighboring)
    lim = alpha_limit(m, d, sigma, neighboring, method)
    reason = infeasibility_reason(alpha, m, d, sigma, neighboring, variant=variant, method=method)
    p: float | None = None
    per = math.inf
    exact = neighboring == "bounded" and method == "exact"
    if reason is None:
        if exact:
            per = float(epsilon_per_record(alpha, m, d, sigma, neighboring, method="exact"))
        elif neighboring == "bounded":
            per, p = bounded_optimum(alpha, float(m), float(d), float(sigma), variant)
        else:
            per = float(epsilon_per_record(alpha, m, d, sigma, neighboring))
        if not math.isfinite(per):
            reason = "the bound is infinite at this order (numerical edge of the admissible range)"
    feasible = reason is None
    return RDPCertificate(
        neighboring=neighboring,
        n=int(n),
        d=int(d),
        sigma=float(sigma),
        alpha=alpha,
        n_out=n_out,
        epsilon_rdp=float(compose(per, n_out)) if feasible else math.inf,
        epsilon_rdp_per_record=per if feasible else math.inf,
        feasible=feasible,
        reason=reason,
        alpha_max=lim,
        p=p,
        equation=equation_text(n, neighboring, method),
        variant=variant if neighboring == "bounded" and not exact else "",
        method=method if neighboring == "bounded" else "",
    )


def require(cert: RDPCertificate) -> RDPCertificate:
    """Return ``cert`` if feasible, else raise AssumptionError naming the violated assumption."""
    if not cert.feasible:
        raise AssumptionError(
            f"no RDP certificate: {cert.reason}",
            assumption=cert.equation,
            admissible=f"1 < α < {cert.alpha_max:.6g}",
        )
    return cert

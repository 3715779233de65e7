"""The certificate of the Gaussian release: ε per record for the chosen relation, composed
over n_out records (Proposition 2.5 of seed 000), or the reason no certificate is given.

:func:`alpha_limit` and :func:`epsilon_per_record` dispatch to the theorem of the relation
(Theorem 3.1, Corollary 3.2, the exact bounded worst case of :mod:`synthcert.privacy
.bounded_exact`, or Theorem 3.2 of seed 001); :func:`certify` states the (α, ε)-RDP of
releasing n_out records, refusing (``feasible=False`` with the violated assumption) rather
than returning a meaningless number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from synthcert.errors import AssumptionError
from synthcert.privacy.bounded_exact import SEARCH_RTOL, epsilon_bounded_exact, exact_alpha_limit
from synthcert.privacy.gaussian_release.assumptions import (
    DEFAULT_BOUNDED_METHOD,
    EQUATIONS,
    Method,
    Neighboring,
    Variant,
    _check_inputs,
    check_method,
    check_neighboring,
)
from synthcert.privacy.gaussian_release.corollary32 import (
    bounded_alpha_limit,
    bounded_optimum,
    bounded_p_interval,
    epsilon_bounded,
)
from synthcert.privacy.gaussian_release.direct import direct_alpha_limit, epsilon_bounded_direct
from synthcert.privacy.gaussian_release.theorem31 import (
    epsilon_unbounded,
    unbounded_alpha_limit,
)
from synthcert.privacy.record_accountant import (
    RecordCertificate,
    RecordEvent,
    certify_order,
    compose,
    require_feasible,
)


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
        return float(exact_alpha_limit(n, d, sigma))
    fn = {
        "unbounded": unbounded_alpha_limit,
        "bounded": bounded_alpha_limit,
        "bounded-direct": direct_alpha_limit,
    }[neighboring]
    return float(fn(n, d, sigma))


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
        _check_inputs(n, d, sigma)
        if float(n) < 2:
            return np.full(np.shape(alpha), np.inf)
        if rtol is None:
            return epsilon_bounded_exact(alpha, n, int(d), float(sigma))
        return epsilon_bounded_exact(alpha, n, int(d), float(sigma), rtol=rtol)
    if neighboring == "bounded":
        return np.asarray(epsilon_bounded(alpha, n, d, sigma, variant=variant), dtype=float)
    return np.asarray(epsilon_bounded_direct(alpha, n, d, sigma), dtype=float)


@dataclass(frozen=True)
class GaussianCertificate(RecordCertificate):
    """The certificate of releasing n_out records of M_G: (α, ε)-RDP and, given δ, (ε, δ)-DP.

    A :class:`~synthcert.privacy.record_accountant.RecordCertificate` (the account of the
    records: alpha, n_out, epsilon_rdp, epsilon_rdp_per_record, delta, epsilon, conversion,
    feasible, reason; the relation, n, d, alpha_max and equation) with M_G's σ and the
    method of a bounded certificate. :func:`synthcert.privacy.budget.account` states it (the
    ``account`` command prints it); ``feasible=False`` with ``reason`` when the theorem refuses.
    """

    sigma: float
    method: str = ""

    PLACED = (("sigma", "d"),)


@dataclass(frozen=True, kw_only=True)
class RDPCertificate(GaussianCertificate):
    """(α, ε)-RDP of releasing n_out records of M_G at a given α (:func:`certify`), or the reason
    no certificate is given (then ε_RDP is inf). No δ: ``delta``, ``epsilon`` and
    ``conversion`` are None. ``p`` is the weight of Corollary 3.2 (bounded, ``method=
    "corollary"``), ``variant`` the corollary as corrected or as printed."""

    p: float | None
    variant: str

    PLACED = (("p", "alpha_max"), ("variant", "equation"))


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


def setting_fields(
    n: int, d: int, sigma: float, neighboring: str, method: str, alpha_max: float
) -> dict[str, Any]:
    """The fields every certificate of M_G states about its setting (:class:`GaussianCertificate`
    and :class:`RDPCertificate`): the relation, the table's n and d, σ of the class D_σ, the
    supremum ``alpha_max`` of the admissible orders, the equation it rests on at
    :func:`theorem_n` (:func:`equation_text`) and the method of a bounded certificate (empty
    for the other relations)."""
    return {
        "neighboring": neighboring,
        "n": int(n),
        "d": int(d),
        "sigma": float(sigma),
        "alpha_max": float(alpha_max),
        "equation": equation_text(n, neighboring, method),
        "method": method if neighboring == "bounded" else "",
    }


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
    event = record_event(n, d, sigma, neighboring, variant=variant, method=method)
    n_out = int(n) if n_out is None else int(n_out)
    if n_out < 0:
        raise AssumptionError("n_out must be ≥ 0", assumption="n_out ≥ 0", admissible="n_out ≥ 0")
    alpha = float(alpha)
    per, reason = certify_order(event, alpha)
    corollary = neighboring == "bounded" and method == "corollary"
    p = None
    if corollary and reason is None:  # the weight of eq. (3) at the optimum
        p = bounded_optimum(
            alpha, float(theorem_n(n, neighboring)), float(d), float(sigma), variant
        )[1]
    return RDPCertificate(
        **setting_fields(n, d, sigma, neighboring, method, event.alpha_max),
        alpha=alpha,
        n_out=n_out,
        epsilon_rdp=float(compose(per, n_out)) if reason is None else math.inf,
        epsilon_rdp_per_record=per,
        delta=None,
        epsilon=None,
        conversion=None,
        feasible=reason is None,
        reason=reason,
        p=p,
        variant=variant if corollary else "",
    )


def record_event(
    n: int,
    d: int,
    sigma: float,
    neighboring: Neighboring = "unbounded",
    *,
    variant: Variant = "corrected",
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> RecordEvent:
    """The inherent RDP of one record of M_G on a table of n records, as a custom event.

    The theorem of the relation at :func:`theorem_n` (Theorem 3.1 at n−1 for add/remove), its
    admissible orders (:func:`alpha_limit`) and refusals (:func:`infeasibility_reason`); the
    exact bounded certificate searches α on bounds certified to ``SEARCH_RTOL`` (faster,
    slightly larger) and certifies the chosen α to full precision. What follows (composition,
    α search, conversion, floors) is :mod:`synthcert.privacy.record_accountant`. It raises
    as :func:`certify` does for an unknown relation or method and a malformed n, d or σ.
    """
    check_neighboring(neighboring)
    check_method(method)
    _check_inputs(n, d, sigma)
    m = theorem_n(n, neighboring)

    def per_record(a: np.ndarray, rtol: float | None = None) -> np.ndarray:
        return epsilon_per_record(
            a, m, d, sigma, neighboring, variant=variant, method=method, rtol=rtol
        )

    def refusal(alpha: float) -> str | None:
        return infeasibility_reason(alpha, m, d, sigma, neighboring, variant=variant, method=method)

    coarse = neighboring == "bounded" and method == "exact"
    return RecordEvent(
        per_record=per_record,
        alpha_max=alpha_limit(m, d, sigma, neighboring, method),
        refusal=refusal,
        search=(lambda a: per_record(a, SEARCH_RTOL)) if coarse else None,
    )


def require(cert: RDPCertificate) -> RDPCertificate:
    """Return ``cert`` if feasible, else raise AssumptionError naming the violated assumption."""
    return require_feasible(cert, "RDP")


__all__ = [
    "GaussianCertificate",
    "RDPCertificate",
    "alpha_limit",
    "certify",
    "compose",
    "epsilon_per_record",
    "equation_text",
    "infeasibility_reason",
    "record_event",
    "require",
    "setting_fields",
    "theorem_n",
]

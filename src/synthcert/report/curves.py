"""The certificate's curves, recomputed from (n, d, σ, neighbouring) with the privacy accountant.

The report never trusts a number it cannot recompute: ε_RDP(α) per record comes from Theorem 3.1 /
Corollary 3.2 of Miura et al. (seed 000) or Theorem 3.2 of seed 001 via
``synthcert.privacy.gaussian_release.epsilon_per_record``; n_out records compose linearly
(Prop. 2.5 of seed 000) and (ε, δ) follows by ``synthcert.privacy.conversion.rdp_to_dp``
(Mironov's Prop. 2.6 of seed 000, or Canonne-Kamath-Steinke 2020). A certificate whose ε_RDP
disagrees with the recomputation is flagged in the report rather than drawn as if it were right.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthcert._result import Result
from synthcert.errors import DataError, SynthcertError
from synthcert.report.inputs import Released, number, read_certificate
from synthcert.results import Certificate

CONVERSIONS: tuple[str, ...] = ("mironov", "ckm")
CONVERSION_LABELS = {
    "mironov": "Mironov (2017), Prop. 2.6 of seed 000",
    "ckm": "Canonne, Kamath & Steinke (2020)",
}
_REL_TOL = 1e-6  # relative agreement required between certificate and recomputation


@dataclass(frozen=True)
class ConversionRow(Result):
    """(ε, δ) of the release under one conversion: at the certificate's α and at its own best α."""

    conversion: str
    label: str
    epsilon_at_alpha: float
    best_alpha: float
    best_epsilon: float


@dataclass(frozen=True)
class CertificateCurves(Result):
    """Everything the certificate section draws, recomputed from the certificate's inputs.

    ``budget_kind`` is "dp" (an (ε, δ) budget: curves in ε at δ, α optimised per n_out), "rdp"
    (an (α, ε_RDP) budget: curves in ε_RDP at the fixed α) or "none" (n_out was given; the line
    is this release's own ε, or ε_RDP when no δ was asked for).
    """

    n: int
    d: int
    sigma: float
    neighboring: str
    alpha: float
    n_out: int
    delta: float | None
    conversion: str
    budget_kind: str
    budget_epsilon: float
    alpha_max: float
    alphas: np.ndarray  # admissible orders, log-spaced in α − 1
    epsilon_rdp_per_record: np.ndarray  # ε_α of one output record at each α (+inf: refused)
    epsilon_dp_by_alpha: dict[str, np.ndarray]  # (ε at δ) of n_out records at each α
    n_out_grid: np.ndarray
    epsilon_vs_n_out: np.ndarray  # ε at δ (best α) or ε_RDP (fixed α) for each n_out
    n_out_metric: str  # "dp" or "rdp": what epsilon_vs_n_out measures
    max_records: int | None
    recomputed_epsilon_rdp: float
    recomputed_epsilon: float | None
    conversions: tuple[ConversionRow, ...]
    mismatch: str | None


def public_n(cert: Certificate) -> int | None:
    """The size the certificate is evaluated at: ``n`` (bounded) or ``min_rows`` (unbounded).

    Parameters
    ----------
    cert : Certificate

    Returns
    -------
    int or None
        None when the certificate publishes neither.
    """
    return cert.n if cert.n is not None else cert.min_rows


def can_recompute(cert: Released | None) -> bool:
    """True for an inherent-RDP certificate carrying (n or min_rows, d, σ, α, n_out).

    Parameters
    ----------
    cert : Certificate, SynthesisSummary or None
        The summary of a synthesis states a claim, not the theorem's inputs: never recomputed.

    Returns
    -------
    bool
    """
    if not isinstance(cert, Certificate):
        return False
    n, sigma, alpha = public_n(cert), number(cert.sigma), number(cert.claim.alpha)
    if n is None or sigma is None or alpha is None:
        return False
    return sigma > 0 and alpha > 1 and n >= 1


def budget_of(cert: Certificate) -> tuple[str, float]:
    """(kind, ε) of the budget the release was held to: "dp", "rdp" or "none" (then its own ε).

    Parameters
    ----------
    cert : Certificate

    Returns
    -------
    tuple of (str, float)
        ``("dp", ε)`` for an (ε, δ) budget, ``("rdp", ε_RDP)`` for an (α, ε_RDP) budget, else
        ``("none", ε)`` of the release itself (its ε_RDP when it states no δ; NaN if neither).
    """
    budget = cert.budget or {}
    if number(budget.get("epsilon")) is not None:
        return "dp", float(number(budget["epsilon"]))
    if number(budget.get("epsilon_rdp")) is not None:
        return "rdp", float(number(budget["epsilon_rdp"]))
    claim = cert.claim
    if number(claim.epsilon) is not None and number(claim.delta) is not None:
        return "none", float(claim.epsilon)
    return "none", float(number(claim.epsilon_rdp) or math.nan)


def alpha_grid(alpha_max: float, alpha: float, num: int = 160) -> np.ndarray:
    """Orders from 1.01 to just below α_max, log-spaced in α − 1, with the chosen α included.

    Parameters
    ----------
    alpha_max : float
        The theorem's largest admissible order (may be inf: capped at 10⁶).
    alpha : float
        The certificate's order, added to the grid when admissible.
    num : int, default 160

    Returns
    -------
    numpy.ndarray
        Sorted unique orders.
    """
    hi = min(alpha_max, 1e6) if math.isfinite(alpha_max) else 1e6
    lo_u, hi_u = math.log(1e-2), math.log(max(hi - 1.0, 2e-2)) + math.log1p(-1e-6)
    grid = 1.0 + np.exp(np.linspace(lo_u, hi_u, num))
    grid = np.append(grid, alpha) if 1 < alpha < alpha_max else grid
    return np.unique(grid)


def certificate_curves(
    certificate: Certificate | Mapping[str, Any], *, num_alpha: int = 160
) -> CertificateCurves:
    """Recompute the α–ε curve, the ε-versus-n_out curve and the record budget of a certificate.

    Parameters
    ----------
    certificate : Certificate or Mapping
        The release's certificate (its JSON object is read with ``Certificate.from_dict``);
        :func:`can_recompute` must hold.
    num_alpha : int, default 160
        Orders on the α grid of the curves.

    Returns
    -------
    CertificateCurves
        The curves, the conversions at the certificate's α and at the best α, the rows the
        budget allows, and a sentence when the certificate disagrees with the recomputation.

    Raises
    ------
    DataError
        The certificate is not one, or lacks the theorem's inputs.
    AssumptionError
        The theorem refuses the certificate's (n, d, σ, α).
    """
    from synthcert.privacy.bounded_exact import SEARCH_RTOL
    from synthcert.privacy.conversion import rdp_to_dp
    from synthcert.privacy.gaussian_release import (
        DEFAULT_BOUNDED_METHOD,
        alpha_limit,
        epsilon_per_record,
        theorem_n,
    )

    cert = read_certificate(certificate)
    if not can_recompute(cert):
        raise DataError("the certificate does not carry (n, d, σ, α, n_out) of the theorem")
    n, d = int(public_n(cert)), int(cert.d)
    claim = cert.claim
    sigma, alpha = float(cert.sigma), float(claim.alpha)
    n_out = int(claim.n_out)
    delta = number(claim.delta)
    neighboring = claim.neighboring or "unbounded"
    method = DEFAULT_BOUNDED_METHOD  # a certificate records no other (release certifies so)
    conversion = claim.conversion if claim.conversion in CONVERSIONS else "ckm"
    kind, budget = budget_of(cert)
    if kind == "dp" and cert.budget:
        delta = number(cert.budget.get("delta")) or delta
    m = theorem_n(n, neighboring)  # the n the certificate evaluates the theorem at
    a_max = float(alpha_limit(m, d, sigma, neighboring, method))
    alphas = alpha_grid(a_max, alpha, num_alpha)
    # The plotted curve of the exact bounded certificate is certified to 10⁻⁴ (fast, never
    # below the supremum); the figures at the certificate's α are certified to 10⁻⁶.
    rtol = SEARCH_RTOL if neighboring == "bounded" and method == "exact" else None
    per = np.asarray(
        epsilon_per_record(alphas, m, d, sigma, neighboring, method=method, rtol=rtol),
        dtype=float,
    )
    per = np.where(np.isfinite(per), per, np.inf)
    per_at = float(
        np.asarray(epsilon_per_record(np.array([alpha]), m, d, sigma, neighboring, method=method))[
            0
        ]
    )
    rec_rdp = n_out * per_at

    by_alpha: dict[str, np.ndarray] = {}
    rows: list[ConversionRow] = []
    rec_eps: float | None = None
    if delta is not None and 0 < delta < 1:
        total = n_out * per
        for c in CONVERSIONS:
            by_alpha[c] = np.asarray(rdp_to_dp(alphas, total, delta, c), dtype=float)
            i = int(np.argmin(by_alpha[c]))
            at = float(np.asarray(rdp_to_dp(alpha, rec_rdp, delta, c)))
            rows.append(
                ConversionRow(c, CONVERSION_LABELS[c], at, float(alphas[i]), float(by_alpha[c][i]))
            )
        rec_eps = next(r.epsilon_at_alpha for r in rows if r.conversion == conversion)
    else:
        delta = None

    max_rec = _max_records(
        n, d, sigma, neighboring, alpha, per_at, budget, delta, kind, conversion, method
    )
    top = max(10 * n_out, 3 * (max_rec or 0), 100)
    n_grid = np.unique(np.round(np.logspace(0, math.log10(top), 90)).astype(np.int64))
    n_grid = np.unique(np.append(n_grid, n_out))
    if delta is not None and kind != "rdp":
        metric = "dp"
        costs = rdp_to_dp(alphas[None, :], n_grid[:, None] * per[None, :], delta, conversion)
        eps_vs_n = np.asarray(costs, dtype=float).min(axis=1)
    else:
        metric = "rdp"
        eps_vs_n = n_grid * per_at

    mismatch = _compare(cert, rec_rdp, rec_eps, conversion)
    return CertificateCurves(
        n=n,
        d=d,
        sigma=sigma,
        neighboring=neighboring,
        alpha=alpha,
        n_out=n_out,
        delta=delta,
        conversion=conversion,
        budget_kind=kind,
        budget_epsilon=budget,
        alpha_max=a_max,
        alphas=alphas,
        epsilon_rdp_per_record=per,
        epsilon_dp_by_alpha=by_alpha,
        n_out_grid=n_grid,
        epsilon_vs_n_out=eps_vs_n,
        n_out_metric=metric,
        max_records=max_rec,
        recomputed_epsilon_rdp=rec_rdp,
        recomputed_epsilon=rec_eps,
        conversions=tuple(rows),
        mismatch=mismatch,
    )


def _max_records(
    n, d, sigma, neighboring, alpha, per_at, budget, delta, kind, conversion, method="exact"
):
    """Rows the budget allows: Table 5.2 of the thesis (seed 003), floored; None without budget."""
    from synthcert.privacy.budget import max_records_dp, max_records_rdp

    if not (math.isfinite(budget) and budget > 0):
        return None
    try:
        if kind == "rdp" or delta is None:  # n_out·ε_α ≤ ε_RDP at the fixed α (Prop. 2.5)
            got = max_records_rdp(
                n, d, sigma, alpha, budget, neighboring=neighboring, method=method
            )
        else:
            got = max_records_dp(
                n, d, sigma, budget, delta, neighboring=neighboring, conversion=conversion,
                method=method,
            )  # fmt: skip
    except SynthcertError:  # the theorem refuses every order: the budget allows nothing
        return 0
    return int(got.max_records)


def _close(a: float | None, b: float) -> bool:
    if a is None:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b
    return abs(a - b) <= _REL_TOL * max(abs(a), abs(b), 1e-12)


def _compare(cert: Certificate, rdp: float, eps: float | None, conversion: str) -> str | None:
    """A sentence when the certificate's ε_RDP or ε disagrees with the recomputation, else None."""
    problems = []
    claim = cert.claim
    if not _close(number(claim.epsilon_rdp), rdp):
        problems.append(f"ε_RDP = {claim.epsilon_rdp} (recomputed {rdp:.6g})")
    if eps is not None and not _close(number(claim.epsilon), eps):
        problems.append(f"ε = {claim.epsilon} (recomputed {eps:.6g} with {conversion})")
    if not problems:
        return None
    return (
        "The certificate states "
        + " and ".join(problems)
        + "; the figures below show the recomputed values. Check the synthcert versions."
    )

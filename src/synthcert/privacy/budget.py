"""How many records a budget allows (thesis seed 003 Table 5.2), and how large n must be."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from synthcert._result import Result
from synthcert.errors import AssumptionError, BudgetError
from synthcert.privacy.bounded_exact import SEARCH_RTOL
from synthcert.privacy.calibrate import calibrate, floor_within
from synthcert.privacy.claims import GUARANTEE, PrivacyClaim, no_privacy_claim
from synthcert.privacy.conversion import (
    Conversion,
    check_conversion,
    conversion_offset,
    log_alpha_search,
    optimal_dp,
    rdp_to_dp,
)
from synthcert.privacy.gaussian_release import (
    DEFAULT_BOUNDED_METHOD,
    Method,
    Neighboring,
    Variant,
    alpha_limit,
    certify,
    compose,
    epsilon_per_record,
    equation_text,
    infeasibility_reason,
    theorem_n,
)
from synthcert.privacy.parameters import check_delta, check_epsilon


def _coarse_search(neighboring: str, method: str) -> bool:
    """True for the exact bounded certificate: α is searched on bounds certified to
    SEARCH_RTOL (fast, slightly larger) and the chosen α is then certified to full precision."""
    return neighboring == "bounded" and method == "exact"


@dataclass(frozen=True)
class RecordBudget(Result):
    """Largest n_out whose cost stays within the budget (floor, never rounded up).

    Attributes
    ----------
    max_records : int
        Largest n_out within the budget (0 when none).
    alpha : float
        The order the count is certified at.
    epsilon_spent : float
        The cost of ``max_records`` records (≤ the budget).
    feasible : bool
        False with ``reason`` when no certificate exists.
    """

    max_records: int
    alpha: float
    epsilon_rdp_per_record: float
    epsilon_spent: float
    budget_epsilon: float
    budget_delta: float | None
    budget_kind: str
    conversion: str | None
    neighboring: str
    n: int
    d: int
    sigma: float
    feasible: bool = True
    reason: str | None = None

    @property
    def claim(self) -> PrivacyClaim:
        """The claim of releasing ``max_records`` rows: inherent RDP at ``alpha`` with
        ε_RDP = max_records × ε_RDP per row (and, for a DP budget, the ε spent at its δ)."""
        if not self.feasible or self.max_records < 1:
            return no_privacy_claim(0, reason=f"none: {self.reason or 'no row is allowed'}")
        dp = self.budget_kind == "dp"
        return PrivacyClaim(
            model="inherent-rdp", guarantee=GUARANTEE, neighboring=self.neighboring,
            epsilon=self.epsilon_spent if dp else None, delta=self.budget_delta if dp else None,
            alpha=self.alpha, epsilon_rdp=self.max_records * self.epsilon_rdp_per_record,
            n_out=self.max_records, conversion=self.conversion,
        )  # fmt: skip


def max_records_rdp(
    n: int,
    d: int,
    sigma: float,
    alpha: float,
    epsilon_rdp: float,
    *,
    neighboring: Neighboring = "unbounded",
    variant: Variant = "corrected",
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> RecordBudget:
    """Largest n_out with n_out·ε_α(n) ≤ ε_RDP (seed 000 Prop. 2.5; thesis Table 5.2, floored)."""
    if not epsilon_rdp >= 0:
        raise AssumptionError("the RDP budget must be ≥ 0", assumption="ε ≥ 0")
    cert = certify(
        n, d, sigma, alpha, n_out=1, neighboring=neighboring, variant=variant, method=method
    )
    if not cert.feasible:
        return _refused(
            n, d, sigma, float(alpha), float(epsilon_rdp), None, None, neighboring, cert.reason
        )
    per = cert.epsilon_rdp_per_record
    k = floor_within(epsilon_rdp, per, lambda k: k * per <= epsilon_rdp)
    return RecordBudget(
        max_records=k,
        alpha=float(alpha),
        epsilon_rdp_per_record=per,
        epsilon_spent=k * per,
        budget_epsilon=float(epsilon_rdp),
        budget_delta=None,
        budget_kind="rdp",
        conversion=None,
        neighboring=neighboring,
        n=int(n),
        d=int(d),
        sigma=float(sigma),
    )


def max_records_dp(
    n: int,
    d: int,
    sigma: float,
    epsilon: float,
    delta: float,
    *,
    neighboring: Neighboring = "unbounded",
    conversion: Conversion = "ckm",
    variant: Variant = "corrected",
    alpha: float | None = None,
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> RecordBudget:
    """Largest n_out with (ε, δ)-DP: max over α (or at the given α) of (ε − offset)/ε_α, floored.

    For a fixed α the conversion is ε_DP = n_out·ε_α + offset(α, δ), so the real-valued number
    of records allowed is (ε − offset)/ε_α; it is maximised continuously over α in log(α−1).
    """
    check_epsilon(epsilon)
    check_delta(delta, pure=False)
    check_conversion(conversion)
    m = theorem_n(n, neighboring)  # Theorem 3.1 at n−1: see theorem_n
    lim = alpha_limit(m, d, sigma, neighboring, method)
    probe = 1.0 + (lim - 1.0) / 2.0 if lim > 1 else 2.0
    reason = infeasibility_reason(probe, m, d, sigma, neighboring, variant=variant, method=method)
    if lim <= 1 or reason is not None:
        why = reason or f"the admissible range of α is empty (α_max = {lim:.6g})"
        return _refused(
            n, d, sigma, math.nan, float(epsilon), float(delta), conversion, neighboring, why
        )

    def neg_records(a: np.ndarray, rtol: float | None = None) -> np.ndarray:
        per = epsilon_per_record(
            a, m, d, sigma, neighboring, variant=variant, method=method, rtol=rtol
        )
        room = epsilon - conversion_offset(a, delta, conversion)
        with np.errstate(invalid="ignore", divide="ignore"):
            val = np.where(np.isfinite(per) & (per > 0), room / per, -np.inf)
        return -val

    if alpha is None:
        if _coarse_search(neighboring, method):
            # Search α on looser (still certified) bounds, then certify the chosen α fully.
            _b, alpha = log_alpha_search(lambda a: neg_records(a, SEARCH_RTOL), 1.0 + 1e-6, lim)
            best = float(neg_records(np.array([alpha]))[0]) if math.isfinite(_b) else _b
        else:
            best, alpha = log_alpha_search(neg_records, 1.0 + 1e-6, lim)
    else:
        why = infeasibility_reason(
            float(alpha), m, d, sigma, neighboring, variant=variant, method=method
        )
        if why is not None:
            return _refused(
                n,
                d,
                sigma,
                float(alpha),
                float(epsilon),
                float(delta),
                conversion,
                neighboring,
                why,
            )
        alpha = float(alpha)
        best = float(neg_records(np.array([alpha]))[0])
    if not math.isfinite(best):
        return _refused(
            n,
            d,
            sigma,
            math.nan,
            float(epsilon),
            float(delta),
            conversion,
            neighboring,
            "no admissible order gives a finite bound",
        )
    per = float(
        epsilon_per_record(
            np.array([alpha]), m, d, sigma, neighboring, variant=variant, method=method
        )[0]
    )

    def within(k: int) -> bool:
        return float(rdp_to_dp(alpha, k * per, delta, conversion)) <= epsilon

    k = floor_within(-best * per, per, within) if -best > 0 else 0
    return RecordBudget(
        max_records=k,
        alpha=alpha,
        epsilon_rdp_per_record=per,
        epsilon_spent=float(rdp_to_dp(alpha, k * per, delta, conversion)),
        budget_epsilon=float(epsilon),
        budget_delta=float(delta),
        budget_kind="dp",
        conversion=conversion,
        neighboring=neighboring,
        n=int(n),
        d=int(d),
        sigma=float(sigma),
    )


def max_records(
    n: int,
    d: int,
    sigma: float,
    *,
    neighboring: Neighboring = "unbounded",
    alpha: float | None = None,
    epsilon_rdp: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    conversion: Conversion = "ckm",
    variant: Variant = "corrected",
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> RecordBudget:
    """Largest n_out within an RDP budget (alpha, epsilon_rdp) or an (epsilon, delta) budget.

    With (epsilon, delta), α is optimised unless given. The count is a floor, never rounded up.

    Parameters
    ----------
    n : int
        Records of the table.
    d : int
        Encoded dimension.
    sigma : float
        Lower bound on the covariance eigenvalues.
    neighboring : {"unbounded", "bounded", "bounded-direct"}
        The neighbouring relation.
    alpha, epsilon_rdp : float, optional
        An RDP budget.
    epsilon, delta : float, optional
        An (ε, δ)-DP budget (exactly one of the two budgets).
    conversion : {"ckm", "mironov"}
        The RDP-to-DP conversion.
    variant : {"corrected", "paper"}
        Corollary 3.2 as corrected or as printed.
    method : {"exact", "corollary"}
        Certificate of the bounded relation.

    Returns
    -------
    RecordBudget
        The largest count and what it costs.

    Raises
    ------
    AssumptionError
        When not exactly one budget is given, or an input is malformed.
    ParameterError
        For an unknown relation, method or conversion.

    Examples
    --------
    >>> max_records(10**6, 6, 0.01, alpha=4.0, epsilon_rdp=1.0).max_records  # Table 5.2: 1.72e5
    172222
    """
    if epsilon_rdp is not None:
        if epsilon is not None or delta is not None:
            raise AssumptionError("give either (alpha, epsilon_rdp) or (epsilon, delta), not both")
        if alpha is None:
            raise AssumptionError("an RDP budget needs its order alpha", assumption="α given")
        return max_records_rdp(
            n, d, sigma, alpha, epsilon_rdp, neighboring=neighboring, variant=variant,
            method=method,
        )  # fmt: skip
    if epsilon is None or delta is None:
        raise AssumptionError(
            "give a budget: (alpha, epsilon_rdp) or (epsilon, delta)", assumption="a budget"
        )
    return max_records_dp(
        n, d, sigma, epsilon, delta, neighboring=neighboring, conversion=conversion,
        variant=variant, alpha=alpha, method=method,
    )  # fmt: skip


@dataclass(frozen=True)
class Account(Result):
    """The certificate of releasing n_out records of M_G: RDP and, given δ, (ε, δ)-DP.

    Attributes
    ----------
    alpha : float
        The order (given, or optimised with δ).
    epsilon_rdp : float
        ε of (α, ε)-RDP for ``n_out`` records.
    epsilon : float or None
        ε of (ε, δ)-DP when δ is given.
    feasible : bool
        False with ``reason`` when the theorem refuses.
    """

    neighboring: str
    n: int
    d: int
    sigma: float
    alpha: float | None
    n_out: int
    epsilon_rdp: float | None
    epsilon_rdp_per_record: float | None
    delta: float | None
    epsilon: float | None
    conversion: str | None
    feasible: bool
    reason: str | None
    alpha_max: float
    equation: str
    method: str = ""

    @property
    def claim(self) -> PrivacyClaim:
        """The claim this certificate states: inherent RDP at ``alpha`` (and its (ε, δ)), or
        no claim when the theorem refuses."""
        if not self.feasible or self.epsilon_rdp is None:
            return no_privacy_claim(self.n_out, reason=f"none: {self.reason or 'refused'}")
        return PrivacyClaim(
            model="inherent-rdp", guarantee=GUARANTEE, neighboring=self.neighboring,
            epsilon=self.epsilon, delta=self.delta, alpha=self.alpha,
            epsilon_rdp=self.epsilon_rdp, n_out=self.n_out, conversion=self.conversion,
        )  # fmt: skip


def account(
    n: int,
    d: int,
    sigma: float,
    *,
    alpha: float | None = None,
    n_out: int | None = None,
    neighboring: Neighboring = "unbounded",
    delta: float | None = None,
    conversion: Conversion = "ckm",
    variant: Variant = "corrected",
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> Account:
    """Certify n_out records (default n): (α, ε_RDP) and, with δ, (ε, δ)-DP (α optimised if None).

    Theorem 3.1 / Corollary 3.2 of seed 000 (or Theorem 3.2 of seed 001), composed over the
    records by Prop. 2.5, converted by Mironov's Prop. 2.6 or the CKS/Asoodeh bound.

    Parameters
    ----------
    n : int
        Records of the table.
    d : int
        Encoded dimension.
    sigma : float
        Lower bound on the covariance eigenvalues.
    alpha : float, optional
        Rényi order; None optimises it (needs δ).
    n_out : int, optional
        Records released (default n).
    neighboring : {"unbounded", "bounded", "bounded-direct"}
        The neighbouring relation.
    delta : float, optional
        δ of the (ε, δ)-DP conversion.
    conversion : {"ckm", "mironov"}
        The RDP-to-DP conversion.
    variant : {"corrected", "paper"}
        Corollary 3.2 as corrected or as printed.
    method : {"exact", "corollary"}
        Certificate of the bounded relation.

    Returns
    -------
    Account
        The certificate (``feasible=False`` with a reason when refused).

    Raises
    ------
    ParameterError
        For an unknown relation, method or conversion.
    AssumptionError
        When n, d, σ or δ is malformed, or neither α nor δ is given.

    Examples
    --------
    >>> acc = account(10**6, 6, 0.01, alpha=4.0, delta=1e-10)
    >>> round(acc.epsilon_rdp, 4), round(acc.epsilon, 3)
    (5.8064, 12.732)
    """
    n_out = int(n) if n_out is None else int(n_out)
    if delta is not None:
        check_delta(delta, pure=False)
        check_conversion(conversion)
    if alpha is None and delta is None:
        raise AssumptionError(
            "without alpha, delta is required: α is then chosen to minimise ε of (ε, δ)-DP",
            assumption="alpha or delta given",
            admissible="give alpha, or delta in (0, 1)",
        )
    m = theorem_n(n, neighboring)  # Theorem 3.1 at n−1: see theorem_n
    lim = alpha_limit(m, d, sigma, neighboring, method)
    if alpha is None:
        probe = 1.0 + (lim - 1.0) / 2.0 if lim > 1 else 2.0
        reason = infeasibility_reason(
            probe, m, d, sigma, neighboring, variant=variant, method=method
        )
        if lim <= 1 or reason is not None:
            why = reason or "the admissible range of α is empty"
            return _account_refused(
                n, d, sigma, None, n_out, neighboring, delta, conversion, why, lim, method
            )
        if n_out == 0:
            alpha = 1.0 + (lim - 1.0) / 2.0
        else:

            def curve(a: np.ndarray) -> np.ndarray:
                rtol = SEARCH_RTOL if _coarse_search(neighboring, method) else None
                per = epsilon_per_record(
                    a, m, d, sigma, neighboring, variant=variant, method=method, rtol=rtol
                )
                return compose(per, n_out)

            best = optimal_dp(curve, delta, lim, conversion=conversion)
            alpha = best.alpha
    cert = certify(
        n, d, sigma, alpha, n_out=n_out, neighboring=neighboring, variant=variant, method=method
    )
    if not cert.feasible:
        return _account_refused(n, d, sigma, float(alpha), n_out, neighboring, delta, conversion,
                                cert.reason, lim, method)  # fmt: skip
    eps_dp = None
    if delta is not None:
        eps_dp = 0.0 if n_out == 0 else float(rdp_to_dp(alpha, cert.epsilon_rdp, delta, conversion))
    return Account(
        neighboring=neighboring,
        n=int(n),
        d=int(d),
        sigma=float(sigma),
        alpha=float(alpha),
        n_out=n_out,
        epsilon_rdp=cert.epsilon_rdp,
        epsilon_rdp_per_record=cert.epsilon_rdp_per_record,
        delta=None if delta is None else float(delta),
        epsilon=eps_dp,
        conversion=None if delta is None else conversion,
        feasible=True,
        reason=None,
        alpha_max=lim,
        equation=cert.equation,
        method=cert.method,
    )


def _account_refused(
    n, d, sigma, alpha, n_out, neighboring, delta, conversion, reason, lim,
    method=DEFAULT_BOUNDED_METHOD,
) -> Account:  # fmt: skip
    """An Account that gives no certificate and says why."""
    return Account(
        neighboring=neighboring,
        n=int(n),
        d=int(d),
        sigma=float(sigma),
        alpha=alpha,
        n_out=int(n_out),
        epsilon_rdp=None,
        epsilon_rdp_per_record=None,
        delta=None if delta is None else float(delta),
        epsilon=None,
        conversion=None if delta is None else conversion,
        feasible=False,
        reason=reason,
        alpha_max=float(lim),
        equation=equation_text(n, neighboring, method),
        method=method if neighboring == "bounded" else "",
    )


def _refused(
    n: int,
    d: int,
    sigma: float,
    alpha: float,
    budget_epsilon: float,
    budget_delta: float | None,
    conversion: str | None,
    neighboring: str,
    reason: str | None,
) -> RecordBudget:
    """No certificate exists, so no record can be released: 0 records, with the reason."""
    return RecordBudget(
        max_records=0,
        alpha=alpha,
        epsilon_rdp_per_record=math.inf,
        epsilon_spent=0.0,
        budget_epsilon=budget_epsilon,
        budget_delta=budget_delta,
        budget_kind="rdp" if budget_delta is None else "dp",
        conversion=conversion,
        neighboring=neighboring,
        n=int(n),
        d=int(d),
        sigma=float(sigma),
        feasible=False,
        reason=reason,
    )


def min_dataset_size(
    n_out: int,
    d: int,
    sigma: float,
    *,
    alpha: float | None = None,
    epsilon_rdp: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    neighboring: Neighboring = "unbounded",
    conversion: Conversion = "ckm",
    n_max: int = 10**15,
    method: Method = DEFAULT_BOUNDED_METHOD,
) -> int:
    """Smallest n whose budget allows n_out records (:func:`~synthcert.privacy.calibrate
    .calibrate` from n = 2: doubling, then bisection; ε_α(n) decreases in n).

    Parameters
    ----------
    n_out : int
        Records to release.
    d : int
        Encoded dimension.
    sigma : float
        Lower bound on the covariance eigenvalues.
    alpha, epsilon_rdp : float, optional
        An RDP budget.
    epsilon, delta : float, optional
        An (ε, δ)-DP budget (exactly one of the two budgets).
    neighboring : {"unbounded", "bounded", "bounded-direct"}
        The neighbouring relation.
    conversion : {"ckm", "mironov"}
        The RDP-to-DP conversion.
    n_max : int
        Largest n searched.
    method : {"exact", "corollary"}
        Certificate of the bounded relation.

    Returns
    -------
    int
        The smallest n.

    Raises
    ------
    AssumptionError
        When not exactly one budget is given.
    BudgetError
        When no n ≤ ``n_max`` suffices.

    Examples
    --------
    >>> min_dataset_size(1000, 6, 0.01, alpha=4.0, epsilon_rdp=1.0)
    79980
    """
    if (alpha is None) != (epsilon_rdp is None) or (epsilon is None) != (delta is None):
        raise AssumptionError("give either (alpha, epsilon_rdp) or (epsilon, delta)")
    if (alpha is None) == (epsilon is None):
        raise AssumptionError("give exactly one budget: (alpha, epsilon_rdp) or (epsilon, delta)")

    def allows(n: int) -> bool:
        try:
            if alpha is not None:
                got = max_records_rdp(
                    n, d, sigma, alpha, epsilon_rdp, neighboring=neighboring, method=method
                )
            else:
                got = max_records_dp(
                    n, d, sigma, epsilon, delta, neighboring=neighboring, conversion=conversion,
                    method=method,
                )  # fmt: skip
        except AssumptionError:
            return False
        return got.feasible and got.max_records >= n_out

    found = calibrate(allows, 2, find="smallest", lower=2, upper=n_max)
    if found is None:
        raise BudgetError(f"no n ≤ {n_max:g} allows {n_out} records within the budget")
    return found


__all__ = [
    "Account",
    "RecordBudget",
    "account",
    "max_records",
    "max_records_dp",
    "max_records_rdp",
    "min_dataset_size",
]

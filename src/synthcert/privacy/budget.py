"""How many records a budget allows (thesis seed 003 Table 5.2), and how large n must be.

The Gaussian release M_G goes through the one accounting path of
:mod:`synthcert.privacy.record_accountant`, as the ridged release does.
"""

from __future__ import annotations

from dataclasses import dataclass

from synthcert.errors import AssumptionError, BudgetError
from synthcert.privacy.calibrate import calibrate
from synthcert.privacy.conversion import Conversion
from synthcert.privacy.gaussian_release import (
    DEFAULT_BOUNDED_METHOD,
    GaussianCertificate,
    Method,
    Neighboring,
    Variant,
    record_event,
    setting_fields,
)
from synthcert.privacy.record_accountant import (
    BudgetFields,
    RecordCount,
    RecordEvent,
    account_records,
    budget_kind,
    check_dp_request,
    count_within_dp,
    count_within_rdp,
)


@dataclass(frozen=True, kw_only=True)
class GaussianBudget(BudgetFields):
    """Largest n_out of M_G whose cost stays within the budget (floor, never rounded up).

    A :class:`~synthcert.privacy.record_accountant.BudgetFields` (``max_records``, ``alpha``,
    ``epsilon_spent``, ``feasible`` and ``reason``, the budget, n and d) with M_G's σ; its
    ``claim`` is that of releasing ``max_records`` rows.
    """

    sigma: float

    PLACED = (("sigma", "d"),)


@dataclass(frozen=True)
class BudgetRequest:
    """The one budget a release is sized in, checked by
    :func:`~synthcert.privacy.record_accountant.budget_kind`: an RDP budget (α, ε_RDP), or an
    (ε, δ)-DP budget whose α is optimised unless given.

    ``epsilon`` is ε_RDP of an RDP budget and ε of a DP one; ``delta`` is None for an RDP
    budget. M_G (:func:`max_records`) and the ridged release
    (:func:`~synthcert.privacy.ridge.max_records_ridge`) size themselves through it.
    """

    alpha: float | None
    epsilon: float
    delta: float | None
    conversion: Conversion

    @classmethod
    def of(
        cls,
        alpha: float | None,
        epsilon_rdp: float | None,
        epsilon: float | None,
        delta: float | None,
        conversion: Conversion = "ckm",
    ) -> BudgetRequest:
        """The budget given as (alpha, epsilon_rdp) or (epsilon, delta[, alpha]), exactly one.

        Raises as :func:`~synthcert.privacy.record_accountant.budget_kind` does.
        """
        if budget_kind(alpha, epsilon_rdp, epsilon, delta, conversion) == "rdp":
            return cls(alpha, float(epsilon_rdp), None, conversion)  # type: ignore[arg-type]
        return cls(alpha, epsilon, delta, conversion)  # type: ignore[arg-type]

    def count(self, event: RecordEvent) -> RecordCount:
        """Largest n_out of ``event`` within the budget, floored: n_out·ε_α ≤ ε_RDP (seed 000
        Prop. 2.5; :func:`~synthcert.privacy.record_accountant.count_within_rdp`), or
        n_out·ε_α + offset(α, δ) ≤ ε maximised over α (Prop. 2.6 / CKS;
        :func:`~synthcert.privacy.record_accountant.count_within_dp`)."""
        if self.delta is None:
            return count_within_rdp(event, self.alpha, self.epsilon)  # type: ignore[arg-type]
        return count_within_dp(event, self.epsilon, self.delta, self.conversion, self.alpha)


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
) -> GaussianBudget:
    """Largest n_out with n_out·ε_α(n) ≤ ε_RDP (seed 000 Prop. 2.5; thesis Table 5.2, floored)."""
    return max_records(
        n, d, sigma, neighboring=neighboring, alpha=alpha, epsilon_rdp=epsilon_rdp,
        variant=variant, method=method,
    )  # fmt: skip


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
) -> GaussianBudget:
    """Largest n_out with (ε, δ)-DP: max over α (or at the given α) of (ε − offset)/ε_α, floored.

    For a fixed α the conversion is ε_DP = n_out·ε_α + offset(α, δ), so the real-valued number
    of records allowed is (ε − offset)/ε_α; it is maximised continuously over α in log(α−1)
    (:func:`~synthcert.privacy.record_accountant.count_within_dp`).
    """
    return max_records(
        n, d, sigma, neighboring=neighboring, alpha=alpha, epsilon=epsilon, delta=delta,
        conversion=conversion, variant=variant, method=method,
    )  # fmt: skip


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
) -> GaussianBudget:
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
    GaussianBudget
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
    budget = BudgetRequest.of(alpha, epsilon_rdp, epsilon, delta, conversion)
    event = record_event(n, d, sigma, neighboring, variant=variant, method=method)
    return GaussianBudget.from_count(
        budget.count(event), budget.epsilon, budget.delta, budget.conversion, neighboring, n, d,
        sigma=float(sigma),
    )  # fmt: skip


# The names these types had before each concept had one type (kept: synthcert.privacy exports
# them): M_G's certificate was ``Account``, its budget ``RecordBudget``.
Account = GaussianCertificate
RecordBudget = GaussianBudget


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
) -> GaussianCertificate:
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
    GaussianCertificate
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
    check_dp_request(alpha, delta, conversion)
    event = record_event(n, d, sigma, neighboring, variant=variant, method=method)
    acc = account_records(event, n_out, alpha=alpha, delta=delta, conversion=conversion)
    return GaussianCertificate.of(
        acc, **setting_fields(n, d, sigma, neighboring, method, event.alpha_max)
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
            got = max_records(
                n, d, sigma, neighboring=neighboring, alpha=alpha, epsilon_rdp=epsilon_rdp,
                epsilon=epsilon, delta=delta, conversion=conversion, method=method,
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
    "BudgetRequest",
    "GaussianBudget",
    "GaussianCertificate",
    "RecordBudget",
    "account",
    "max_records",
    "max_records_dp",
    "max_records_rdp",
    "min_dataset_size",
]

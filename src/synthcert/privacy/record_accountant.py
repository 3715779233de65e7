"""One accounting path for a release of independent records: its custom RDP event, the search
for α, the conversion to (ε, δ)-DP, the floor of a budget and the refusals.

Two mechanisms publish n_out independent draws and nothing else: M_G, the Gaussian release of
seed 000 (its inherent RDP: Theorem 3.1, Corollary 3.2, the exact bounded worst case, Theorem
3.2 of seed 001; :mod:`synthcert.privacy.gaussian_release`), and the ridged release
(Theorems R1/R2 of docs/unconditional.md; :mod:`synthcert.privacy.ridge`). Each reports its cost
as a :class:`RecordEvent`: the curve α ↦ ε_α of one record on its admissible orders
1 < α < ``alpha_max`` and the reason an order is refused. Everything after that is the same for
both and lives here:

* composition over the records: n_out·ε_α at each α (Proposition 2.5 of seed 000, :func:`compose`);
* the certificate of n_out records (:func:`account_records`): α given, or chosen to minimise ε of
  (ε, δ)-DP (:func:`~synthcert.privacy.conversion.optimal_dp`, continuous in log(α−1)); the
  release's RDP statement at that order is then one step of the privacy core's composition,
  :func:`~synthcert.privacy.accountant.compose_steps`, which converts it (Mironov's Prop. 2.6 of
  seed 000, or the CKS/Asoodeh bound), as it converts every other mechanism's steps;
* the largest n_out within a budget (:func:`count_within_rdp`, :func:`count_within_dp`): for a
  fixed α, n_out·ε_α + offset(α, δ) ≤ ε, so (ε − offset)/ε_α records are allowed; α maximises it
  (:func:`~synthcert.privacy.conversion.log_alpha_search`) and the count is floored by
  :func:`~synthcert.privacy.calibrate.floor_within` (never rounded up).

dp-accounting's ``RdpAccountant`` is not used here: it composes only its own event types (any
other is an "Unsupported event") on a fixed grid of orders, and converts on that grid, while
these curves are custom, have a closed-form admissible range that a fixed grid can leave empty
(α_max can be 1.0002), and their published figures are optimised continuously in α. So the
order is searched here, on the event's own curve, and the step handed to the accountant is the
curve's point at that order. The conversion is the one dp-accounting's ``compute_epsilon``
applies (CKS Prop. 12 with the total-variation bound), evaluated at the optimised order.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from synthcert._result import Result
from synthcert.errors import AssumptionError
from synthcert.privacy.accountant import LedgerEntry, compose_steps
from synthcert.privacy.calibrate import floor_within
from synthcert.privacy.claims import GUARANTEE, PrivacyClaim, no_privacy_claim
from synthcert.privacy.conversion import (
    Conversion,
    check_conversion,
    conversion_offset,
    log_alpha_search,
    optimal_dp,
)
from synthcert.privacy.parameters import check_delta, check_epsilon

Curve = Callable[[np.ndarray], np.ndarray]
Cert = TypeVar("Cert", bound="RecordCertificate")

ALPHA_MIN = 1.0 + 1e-6  # the smallest order searched
INFINITE_AT_ORDER = "the bound is infinite at this order (numerical edge of the admissible range)"
NO_FINITE_ORDER = "no admissible order gives a finite bound"
RELEASE_STEP = "n_out independent records (their RDP at the chosen order)"


def compose(epsilon_rdp: ArrayLike, n_out: ArrayLike) -> np.ndarray:
    """Proposition 2.5 (seed 000): n_out independent records cost n_out·ε at the same α."""
    return np.asarray(n_out, dtype=float) * np.asarray(epsilon_rdp, dtype=float)


@dataclass(frozen=True)
class RecordEvent:
    """The RDP cost of one released record: a custom event (a curve, not a grid of orders).

    Attributes
    ----------
    per_record : callable
        ε_α of one record at an array of orders (+inf where the theorem refuses).
    alpha_max : float
        Supremum of the admissible orders (exclusive).
    refusal : callable
        The violated assumption at one order, with the admissible range; None where it holds.
    search : callable, optional
        A looser (still certified) and faster ``per_record`` for the search of α; the chosen α
        is then certified by ``per_record`` itself.
    """

    per_record: Curve
    alpha_max: float
    refusal: Callable[[float], str | None]
    search: Curve | None = None

    def search_curve(self) -> Curve:
        """The curve α is searched on (``search`` if given, else ``per_record``)."""
        return self.search if self.search is not None else self.per_record


def empty_range(event: RecordEvent) -> str | None:
    """Why no order at all is admissible (the refusal in the middle of the range), else None."""
    lim = event.alpha_max
    probe = 1.0 + (lim - 1.0) / 2.0 if lim > 1 else 2.0
    reason = event.refusal(probe)
    if lim <= 1 or reason is not None:
        return reason or f"the admissible range of α is empty (α_max = {lim:.6g})"
    return None


def certify_order(event: RecordEvent, alpha: float) -> tuple[float, str | None]:
    """ε of one record at ``alpha``, or (inf, the reason no certificate is given)."""
    reason = event.refusal(alpha)
    if reason is not None:
        return math.inf, reason
    per = float(event.per_record(np.array([alpha]))[0])
    if not math.isfinite(per):
        return math.inf, INFINITE_AT_ORDER
    return per, None


def release_epsilon(
    alpha: float, epsilon_rdp: float, delta: float, conversion: Conversion
) -> float:
    """ε at δ of a release whose records are (α, ``epsilon_rdp``)-RDP together: the release is
    one RDP step of the privacy core's composition (:func:`~synthcert.privacy.accountant
    .compose_steps`), which converts it."""
    step = LedgerEntry(
        RELEASE_STEP, "rdp", None, None, orders=(alpha,), epsilons_rdp=(epsilon_rdp,)
    )
    return float(compose_steps([step], delta, conversion).epsilon_rdp_dp)  # type: ignore[arg-type]


def best_order(event: RecordEvent, n_out: int, delta: float, conversion: Conversion) -> float:
    """The α that minimises ε of (ε, δ)-DP for n_out records (thesis §5.5.4); the middle of the
    admissible range for n_out = 0 (nothing is spent at any order)."""
    lim = event.alpha_max
    if n_out == 0:
        return 1.0 + (lim - 1.0) / 2.0
    curve = event.search_curve()
    return optimal_dp(lambda a: compose(curve(a), n_out), delta, lim, conversion=conversion).alpha


@dataclass(frozen=True)
class Published(Result):
    """A result whose ``to_dict`` keeps its published key order when a subclass adds fields.

    A dataclass lists inherited fields first; a subclass that adds one where the published
    JSON has it in the middle (σ after d) names it in ``PLACED``: (field, the key it follows),
    ``None`` for the first key. Every class of the MRO places its own, base classes first.
    """

    PLACED: ClassVar[tuple[tuple[str, str | None], ...]] = ()

    def fields(self) -> dict[str, Any]:
        """The fields by name (not JSON-converted), for a result built on this one."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON values, in the published order (see ``PLACED``)."""
        doc = super().to_dict()
        keys = list(doc)
        for cls in reversed(type(self).__mro__):
            for name, after in cls.__dict__.get("PLACED", ()):
                keys.remove(name)
                keys.insert(0 if after is None else keys.index(after) + 1, name)
        return {k: doc[k] for k in keys}


@dataclass(frozen=True)
class RecordAccount(Published):
    """The account of n_out records: (α, ε_RDP) and, given δ, ε of (ε, δ)-DP; or why none.

    The one type of these figures: :func:`account_records` returns it, every certificate of
    n_out records (:class:`RecordCertificate`) is one, with what the mechanism adds.

    Attributes
    ----------
    alpha : float or None
        The order (given or optimised); None when refused before an order was chosen.
    n_out : int
        Records released.
    epsilon_rdp, epsilon_rdp_per_record : float or None
        ε of (α, ε)-RDP for the n_out records and for one (None, or inf, when refused).
    delta : float or None
        The δ asked for (None: an RDP account only).
    epsilon : float or None
        ε of (ε, δ)-DP at δ (None without δ or when refused).
    conversion : str or None
        The RDP-to-DP conversion (``"ckm"``/``"mironov"``; None without δ).
    feasible : bool
        True when a certificate is given.
    reason : str or None
        Why no certificate is given (None when there is one).
    """

    alpha: float | None
    n_out: int
    epsilon_rdp: float | None
    epsilon_rdp_per_record: float | None
    delta: float | None
    epsilon: float | None
    conversion: str | None
    feasible: bool
    reason: str | None

    def claim_for(self, neighboring: str, refused: str = "refused") -> PrivacyClaim:
        """The claim of these figures under ``neighboring``: inherent RDP at ``alpha`` (and its
        (ε, δ)); no claim (``"none: <reason>"``, else ``refused``) when there is no figure."""
        if not self.feasible or self.epsilon_rdp is None:
            return no_privacy_claim(self.n_out, reason=f"none: {self.reason or refused}")
        return PrivacyClaim(
            model="inherent-rdp", guarantee=GUARANTEE, neighboring=neighboring,
            epsilon=self.epsilon, delta=self.delta, alpha=self.alpha,
            epsilon_rdp=self.epsilon_rdp, n_out=self.n_out, conversion=self.conversion,
        )  # fmt: skip


@dataclass(frozen=True)
class RecordCertificate(RecordAccount):
    """The certificate of n_out records of a mechanism: its account (:class:`RecordAccount`)
    with the relation, the table's n and d, the admissible orders and the theorem.

    The Gaussian release's (:class:`~synthcert.privacy.gaussian_release.GaussianCertificate`, σ;
    :class:`~synthcert.privacy.gaussian_release.RDPCertificate` adds Corollary 3.2's p) and the
    ridged release's (:class:`~synthcert.privacy.ridge.RidgeCertificate`, with ρ) are this type
    with their own inputs. Keys: neighboring, n, d, (the mechanism's scale), the account's,
    alpha_max, equation, (the mechanism's other fields).
    """

    neighboring: str
    n: int
    d: int
    alpha_max: float
    equation: str

    PLACED = (("neighboring", None), ("n", "neighboring"), ("d", "n"))

    @classmethod
    def of(cls, account: RecordAccount, **fields: Any) -> Self:
        """The certificate stating ``account``; ``fields`` are the mechanism's (and may restate
        one of the account's, as the ridge states no order it did not certify)."""
        return cls(**{**account.fields(), **fields})

    @property
    def claim(self) -> PrivacyClaim:
        """The claim this certificate states: inherent RDP at ``alpha`` (and its (ε, δ)), or
        no claim when the theorem refuses."""
        return self.claim_for(self.neighboring)


def check_rdp_budget(epsilon_rdp: float) -> None:
    """Refuse an RDP budget below 0 (or NaN)."""
    if not epsilon_rdp >= 0:
        raise AssumptionError("the RDP budget must be ≥ 0", assumption="ε ≥ 0")


def check_dp_budget(epsilon: float, delta: float, conversion: str) -> None:
    """Refuse a malformed (ε, δ) budget or conversion (:mod:`synthcert.privacy.parameters`)."""
    check_epsilon(epsilon)
    check_delta(delta, pure=False)
    check_conversion(conversion)


def budget_kind(
    alpha: float | None,
    epsilon_rdp: float | None,
    epsilon: float | None,
    delta: float | None,
    conversion: str = "ckm",
) -> Literal["rdp", "dp"]:
    """Which budget a sizing was given: ``"rdp"`` for (alpha, epsilon_rdp), ``"dp"`` for
    (epsilon, delta, with alpha optional); exactly one, and well formed.

    Raises
    ------
    AssumptionError
        Both budgets or none, an RDP budget without its order, or a malformed value.
    ParameterError
        An ε, δ or conversion outside its range.
    """
    if epsilon_rdp is not None:
        if epsilon is not None or delta is not None:
            raise AssumptionError(
                "give either (alpha, epsilon_rdp) or (epsilon, delta), not both",
                assumption="one budget",
            )
        if alpha is None:
            raise AssumptionError("an RDP budget needs its order alpha", assumption="α given")
        check_rdp_budget(epsilon_rdp)
        return "rdp"
    if epsilon is None or delta is None:
        raise AssumptionError(
            "give a budget: (alpha, epsilon_rdp) or (epsilon, delta)", assumption="a budget"
        )
    check_dp_budget(epsilon, delta, conversion)
    return "dp"


def check_dp_request(alpha: float | None, delta: float | None, conversion: str) -> None:
    """Refuse a certificate request without α or δ, or with a malformed δ or conversion."""
    if delta is not None:
        check_delta(delta, pure=False)
        check_conversion(conversion)
    if alpha is None and delta is None:
        raise AssumptionError(
            "without alpha, delta is required: α is then chosen to minimise ε of (ε, δ)-DP",
            assumption="alpha or delta given",
            admissible="give alpha, or delta in (0, 1)",
        )


def account_records(
    event: RecordEvent,
    n_out: int,
    *,
    alpha: float | None = None,
    delta: float | None = None,
    conversion: Conversion = "ckm",
) -> RecordAccount:
    """Certify n_out records: (α, n_out·ε_α)-RDP and, with δ, (ε, δ)-DP (α optimised if None).

    ``alpha=None`` chooses the order that minimises ε at ``delta`` (:func:`best_order`);
    ``conversion`` is ``"ckm"`` or ``"mironov"`` (:func:`~synthcert.privacy.conversion
    .rdp_to_dp`). The result refuses (``reason``) rather than state a meaningless number; a
    malformed request raises AssumptionError (n_out < 0, δ outside (0, 1), neither α nor δ)
    or ParameterError (an unknown conversion).

    Examples
    --------
    >>> event = RecordEvent(lambda a: 0.5 * a, 10.0, lambda a: None if 1 < a < 10 else "α")
    >>> account_records(event, 4, alpha=2.0).epsilon_rdp  # 4 records of ε_α = α/2
    4.0
    """
    if n_out < 0:
        raise AssumptionError("n_out must be ≥ 0", assumption="n_out ≥ 0", admissible="n_out ≥ 0")
    check_dp_request(alpha, delta, conversion)
    asked = {
        "n_out": n_out,
        "delta": None if delta is None else float(delta),
        "conversion": None if delta is None else conversion,
    }

    def refused(order: float | None, why: str) -> RecordAccount:
        return RecordAccount(
            alpha=order, epsilon_rdp=None, epsilon_rdp_per_record=None, epsilon=None,
            feasible=False, reason=why, **asked,
        )  # fmt: skip

    if alpha is None:
        why = empty_range(event)
        if why is not None:
            return refused(None, why)
        alpha = best_order(event, n_out, float(delta), conversion)  # type: ignore[arg-type]
    alpha = float(alpha)
    per, why = certify_order(event, alpha)
    if why is not None:
        return refused(alpha, why)
    total = float(compose(per, n_out))
    eps_dp = None
    if delta is not None and n_out == 0:
        eps_dp = 0.0  # nothing released
    elif delta is not None:
        eps_dp = release_epsilon(alpha, total, delta, conversion)
    return RecordAccount(
        alpha=alpha, epsilon_rdp=total, epsilon_rdp_per_record=per, epsilon=eps_dp,
        feasible=True, reason=None, **asked,
    )  # fmt: skip


def require_feasible(cert: Cert, what: str) -> Cert:
    """Return ``cert`` if feasible, else raise AssumptionError naming the violated assumption.

    ``what`` names the certificate in the message ("RDP", "ridged").
    """
    if not cert.feasible:
        raise AssumptionError(
            f"no {what} certificate: {cert.reason}",
            assumption=cert.equation,
            admissible=f"1 < α < {cert.alpha_max:.6g}",
        )
    return cert


@dataclass(frozen=True)
class RecordCount(Published):
    """The largest n_out within a budget (a floor, never rounded up), or why there is none.

    ``max_records`` records cost ``epsilon_spent`` (ε_RDP for an RDP budget, ε of (ε, δ)-DP for
    a DP one) at the order ``alpha``, ``epsilon_rdp_per_record`` each. A refusal has 0 records,
    ``feasible=False`` and its ``reason``; its ``alpha`` is nan when no order was chosen and its
    cost per record is inf.
    """

    max_records: int
    alpha: float
    epsilon_rdp_per_record: float
    epsilon_spent: float
    feasible: bool = True
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class BudgetFields(RecordCount):
    """What a sized release states, whatever its mechanism: its :class:`RecordCount` with the
    budget it answers (its kind, ε, δ and conversion), the relation and the table's n, d.
    :class:`~synthcert.privacy.budget.GaussianBudget` adds σ, the ridge's ``RidgeBudget`` ρ.
    Keys: the count's, the budget's, n, d, (the mechanism's scale), feasible, reason.
    """

    budget_epsilon: float
    budget_delta: float | None
    budget_kind: str  # "rdp" or "dp"
    conversion: str | None
    neighboring: str
    n: int
    d: int

    PLACED = (("feasible", "d"), ("reason", "feasible"))

    @property
    def account(self) -> RecordAccount:
        """The account of ``max_records`` records at ``alpha``: ε_RDP = max_records × ε_RDP per
        record (Prop. 2.5) and, for a DP budget, the ε spent at its δ."""
        dp = self.budget_kind == "dp"
        per = self.epsilon_rdp_per_record
        stated = self.feasible and per is not None  # a refusal states no ε_RDP
        return RecordAccount(
            alpha=self.alpha, n_out=self.max_records,
            epsilon_rdp=self.max_records * per if stated else None,  # type: ignore[operator]
            epsilon_rdp_per_record=per, delta=self.budget_delta if dp else None,
            epsilon=self.epsilon_spent if dp else None, conversion=self.conversion,
            feasible=self.feasible, reason=self.reason,
        )  # fmt: skip

    @property
    def claim(self) -> PrivacyClaim:
        """The claim of releasing ``max_records`` rows (:attr:`account`), or no claim when the
        budget allows none."""
        if not self.feasible or self.max_records < 1:
            return no_privacy_claim(0, reason=f"none: {self.reason or 'no row is allowed'}")
        return self.account.claim_for(self.neighboring)

    @classmethod
    def from_count(
        cls,
        count: RecordCount,
        budget_epsilon: float,
        budget_delta: float | None,
        conversion: str | None,
        neighboring: str,
        n: int,
        d: int,
        **fields: object,
    ) -> Self:
        """The budget of ``count``; ``fields`` adds the mechanism's own (and may restate one)."""
        dp = budget_delta is not None
        return cls(
            **{**count.fields(), **fields},
            budget_epsilon=float(budget_epsilon),
            budget_delta=float(budget_delta) if dp else None,
            budget_kind="dp" if dp else "rdp",
            conversion=conversion if dp else None,
            neighboring=neighboring,
            n=int(n),
            d=int(d),
        )


def _refused(alpha: float, reason: str) -> RecordCount:
    """No certificate exists, so no record can be released: 0 records, with the reason."""
    return RecordCount(0, alpha, math.inf, 0.0, feasible=False, reason=reason)


def count_within_rdp(event: RecordEvent, alpha: float, epsilon_rdp: float) -> RecordCount:
    """Largest n_out with n_out·ε_α ≤ ε_RDP (seed 000 Prop. 2.5; thesis Table 5.2, floored).

    Examples
    --------
    >>> event = RecordEvent(lambda a: 0.3 + 0 * a, 10.0, lambda a: None)
    >>> count_within_rdp(event, 2.0, 1.0).max_records  # floor(1/0.3)
    3
    """
    alpha = float(alpha)
    per, why = certify_order(event, alpha)
    if why is not None:
        return _refused(alpha, why)
    k = floor_within(epsilon_rdp, per, lambda k: k * per <= epsilon_rdp)
    return RecordCount(k, alpha, per, k * per)


def count_within_dp(
    event: RecordEvent,
    epsilon: float,
    delta: float,
    conversion: Conversion = "ckm",
    alpha: float | None = None,
) -> RecordCount:
    """Largest n_out with (ε, δ)-DP: max over α (or at the given α) of (ε − offset)/ε_α, floored.

    For a fixed α the conversion is ε_DP = n_out·ε_α + offset(α, δ), so the real-valued number
    of records allowed is (ε − offset)/ε_α; it is maximised continuously over α in log(α−1)
    (on ``event.search``, if given) and the chosen α is certified by ``event.per_record``.

    Examples
    --------
    >>> event = RecordEvent(lambda a: 1e-4 * a, 50.0, lambda a: None if 1 < a < 50 else "α")
    >>> count_within_dp(event, 1.0, 1e-6, "mironov", alpha=2.0).max_records  # (1 − 13.8)/…
    0
    """
    why = empty_range(event)
    if why is not None:
        return _refused(math.nan, why)
    if alpha is None:
        curve = event.search_curve()

        def neg_records(a: np.ndarray) -> np.ndarray:
            per = curve(a)
            room = epsilon - conversion_offset(a, delta, conversion)
            with np.errstate(invalid="ignore", divide="ignore"):
                return -np.where(np.isfinite(per) & (per > 0), room / per, -np.inf)

        best, alpha = log_alpha_search(neg_records, ALPHA_MIN, event.alpha_max)
        if not math.isfinite(best):
            return _refused(math.nan, NO_FINITE_ORDER)
    alpha = float(alpha)
    per, why = certify_order(event, alpha)
    if why is not None:
        return _refused(alpha, why)

    def within(k: int) -> bool:
        return release_epsilon(alpha, k * per, delta, conversion) <= epsilon

    room = epsilon - float(conversion_offset(alpha, delta, conversion))
    k = floor_within(room, per, within)
    return RecordCount(k, alpha, per, release_epsilon(alpha, k * per, delta, conversion))


__all__ = [
    "BudgetFields",
    "Published",
    "RecordAccount",
    "RecordCertificate",
    "RecordCount",
    "RecordEvent",
    "account_records",
    "best_order",
    "budget_kind",
    "certify_order",
    "check_dp_budget",
    "check_dp_request",
    "check_rdp_budget",
    "compose",
    "count_within_dp",
    "count_within_rdp",
    "empty_range",
    "require_feasible",
]

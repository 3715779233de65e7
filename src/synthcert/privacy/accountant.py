"""A privacy accountant: records every mechanism a synthesizer runs and composes them.

Pure epsilon-DP steps compose additively (basic composition, thesis Prop. 2.3.3); every step is
also stored as rho-zCDP (an epsilon-DP mechanism is epsilon^2/2-zCDP, Bun & Steinke 2016
Prop. 1.4; the exponential mechanism is epsilon^2/8-zCDP, Cesar & Rogers 2021), rho adds up,
and the total is converted to (epsilon, delta)-DP (thesis Prop. 2.3.9).

A step may also be delta_a-*approximately* rho-zCDP (Bun & Steinke 2016, section 8): rho-zCDP
once an event of probability at least 1 - delta_a is conditioned on, on either side (a
stability histogram with Gaussian noise: the event is "no value held by the differing record
alone is released"). Such steps compose by adding rho and delta_a (union bound over the
events). The total converts to (epsilon' + ln(1/(1 - delta_a)), delta' + delta_a)-DP, epsilon'
the conversion of rho at delta' = delta - delta_a (:func:`approx_zcdp_epsilon`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np

from synthcert._result import Result
from synthcert.errors import AssumptionError, BudgetError
from synthcert.privacy.calibrate import calibrate
from synthcert.privacy.conversion import Conversion, rdp_to_dp, zcdp_to_dp
from synthcert.privacy.parameters import check_delta, check_epsilon

Kind = Literal["pure", "exponential", "approx", "zcdp", "approx_zcdp", "rdp"]
Route = Literal["none", "basic", "zcdp", "rdp"]
TOLERANCE = 1e-9
RHO_HEADROOM = 1e-9  # relative: rho_from_epsilon_delta's rho, re-summed, stays within
SMALL_RHO = 1e-3  # below: rho_from_epsilon_delta searches rho / lo (see there)


@dataclass(frozen=True)
class LedgerEntry(Result):
    """One mechanism run: its kind and the statements it has about its privacy loss.

    Every statement is optional; a step is composed by each rule whose statement it has
    (:func:`compose_steps`). One entry is one run: entries always compose, never stand in for
    each other.

    Attributes
    ----------
    mechanism : str
        Its name (a label: two runs of one name are two steps).
    kind : str
        pure, exponential, approx, zcdp, approx_zcdp or rdp.
    epsilon : float or None
        ε of an (ε, δ)-DP statement (pure when ``delta`` is 0); None when it has none.
    rho : float or None
        ρ of a ρ-zCDP statement (for approx_zcdp: conditioned on its event).
    delta : float
        δ of the (ε, δ) statement, or δ_a of an approx_zcdp step.
    orders, epsilons_rdp : tuple of float
        The run's RDP curve (rdp only): (α_i, ε_i)-RDP at each order α_i, one curve whose
        points are alternatives (:meth:`rdp_curve_at`).

    Raises
    ------
    AssumptionError
        An rdp entry without a curve (or with orders ≤ 1, or of two lengths), or another kind
        with one.
    """

    mechanism: str
    kind: Kind
    epsilon: float | None
    rho: float | None
    delta: float = 0.0
    orders: tuple[float, ...] = ()
    epsilons_rdp: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if (self.kind == "rdp") != bool(self.orders) or len(self.orders) != len(self.epsilons_rdp):
            raise AssumptionError(
                f"a ledger entry of kind {self.kind!r} must have an RDP curve exactly when it "
                "is an rdp step, with one ε per order",
                assumption="rdp entries carry their curve",
            )
        if not all(a > 1 for a in self.orders):
            raise AssumptionError(
                f"RDP order alpha must exceed 1, got {min(self.orders)}", assumption="alpha > 1"
            )

    def rdp_curve_at(self, alpha: float) -> float | None:
        """ε_RDP of this run's curve at order ``alpha``: its smallest point of order ≥ α, or
        None when no point is that high (or the run has no curve).

        Rényi divergence does not decrease with the order (van Erven & Harremoës 2014,
        Thm. 3), so (α', ε)-RDP implies (α, ε)-RDP for every α ≤ α'.
        """
        points = [e for a, e in zip(self.orders, self.epsilons_rdp, strict=True) if a >= alpha]
        return min(points) if points else None

    def rdp_at(self, alpha: float) -> float | None:
        """ε_RDP of this step at order ``alpha`` from its zCDP or pure statement (an RDP
        curve is read by :meth:`rdp_curve_at`), or None without one.

        ρ-zCDP is (α, ρα)-RDP for every α (Bun & Steinke 2016, Def. 1.1); pure ε-DP is also
        (α, ε)-RDP (D_α ≤ D_∞ = ε, Mironov 2017, Prop. 3), so a pure step counts min(ε, ρα).
        """
        if self.rho is None:
            return None
        bound = alpha * self.rho
        if self.epsilon is not None and self.delta == 0.0:
            bound = min(self.epsilon, bound)
        return bound


@dataclass(frozen=True)
class Spent(Result):
    """What the ledger adds up to, next to the requested budget.

    ``epsilon``/``delta`` is basic composition when every step has an (epsilon, delta)
    statement and its sum fits the requested epsilon (pure DP is the stronger claim); otherwise
    the tightest of basic composition, zCDP addition converted at the requested delta (every
    step has a rho) and RDP addition at a common order. ``route`` names the one reported.
    """

    epsilon: float
    delta: float
    route: Route
    epsilon_pure: float | None  # basic composition sum of epsilons (None: some step has none)
    delta_basic: float | None  # basic composition sum of deltas
    rho: float | None  # zCDP total (None: some step is RDP-only)
    epsilon_zcdp: float | None  # rho converted at the requested delta
    alpha: float | None  # RDP order of the rdp route
    requested_epsilon: float | None
    requested_delta: float | None
    steps: int


def zcdp_to_dp_fallback(rho: float, delta: float) -> float:
    """epsilon = rho + 2 sqrt(rho log(1/delta)) (Bun & Steinke 2016, Prop. 1.3)."""
    check_delta(delta, pure=False)
    if rho < 0:
        raise AssumptionError(
            f"zCDP conversion needs rho >= 0 (got rho={rho})", assumption="rho >= 0"
        )
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """epsilon of rho-zCDP at delta by synthcert.privacy.conversion (thesis Prop. 2.3.9)."""
    if rho == 0:
        return 0.0
    return float(zcdp_to_dp(rho, delta))


def approx_zcdp_epsilon(
    epsilon_of: Callable[[float], float], delta_approx: float, delta: float
) -> float:
    """epsilon of a delta_a-approximately zCDP (or RDP) total at the overall ``delta``.

    ``epsilon_of(delta')`` converts the conditioned total (rho, or an RDP value) to
    (epsilon', delta')-DP. With events E, E' of probability >= 1 - delta_a on the two sides
    and the conditioned outputs (epsilon', delta')-indistinguishable, for every set S:
    Pr[M(x) in S] <= Pr[M(x) in S | E] + delta_a
    <= e^epsilon' Pr[M(x') in S | E'] + delta' + delta_a
    <= e^epsilon' / (1 - delta_a) Pr[M(x') in S] + delta' + delta_a,
    so M is (epsilon' + ln(1/(1 - delta_a)), delta' + delta_a)-DP with delta' = delta - delta_a.
    Infinite when delta_a >= delta (no delta' is left). ``delta_a = 0`` gives epsilon_of(delta).
    """
    if delta_approx == 0.0:
        return epsilon_of(delta)
    if not delta_approx < delta:
        return math.inf
    return epsilon_of(delta - delta_approx) - math.log1p(-delta_approx)


def rdp_epsilon(
    alpha: float, epsilon_rdp: float, delta: float, conversion: Conversion = "ckm"
) -> float:
    """(alpha, eps)-RDP -> (eps', delta)-DP by synthcert.privacy.conversion.rdp_to_dp."""
    return float(rdp_to_dp(np.array([alpha]), np.array([epsilon_rdp]), delta, conversion)[0])


@dataclass(frozen=True)
class Composition(Result):
    """What a sequence of steps adds up to by every composition rule that applies.

    No rule is preferred here: :meth:`PrivacyAccountant.spent` prefers pure DP within a
    requested budget, :func:`synthcert.privacy.ledger.compose` the smallest ε.

    Attributes
    ----------
    steps : int
        Steps composed.
    epsilon_basic, delta_basic : float or None
        Basic composition (Σε, Σδ) when every step states (ε, δ) (Dwork & Roth 2014,
        Thm. 3.16); None otherwise.
    rho : float or None
        Σρ of the steps that are not RDP-only, when each has a zCDP statement (Bun & Steinke
        2016, Lemma 2.3); None otherwise. A zCDP total only when no step is RDP-only.
    delta_approx : float
        Σδ_a of the approximately zCDP steps (their events' failure probabilities).
    alpha, epsilon_rdp : float or None
        The RDP total (α, ε_RDP) when some step is RDP-only and every step has a Rényi
        statement at α (:func:`rdp_total`); α minimises ε at ``delta`` (the smallest
        admissible order without δ).
    delta : float or None
        The δ the totals are converted at.
    epsilon_zcdp, epsilon_rdp_dp : float or None
        ρ and the RDP total converted to ε at ``delta``, the approximate steps' tails paid
        (:func:`approx_zcdp_epsilon`); None without δ or without that total.
    """

    steps: int
    epsilon_basic: float | None
    delta_basic: float | None
    rho: float | None
    delta_approx: float
    alpha: float | None
    epsilon_rdp: float | None
    delta: float | None
    epsilon_zcdp: float | None
    epsilon_rdp_dp: float | None


def rdp_total(entries: Sequence[LedgerEntry], alpha: float) -> float | None:
    """ε_RDP of all ``entries`` composed at order ``alpha``, or None if one has no bound there.

    RDP adds up at a common order (Mironov 2017, Prop. 1): an RDP run counts its curve at α
    (:meth:`LedgerEntry.rdp_curve_at`), every other step :meth:`LedgerEntry.rdp_at`.
    """
    parts = []
    for e in entries:
        bound = e.rdp_curve_at(alpha) if e.orders else e.rdp_at(alpha)
        if bound is None:
            return None
        parts.append(bound)
    return math.fsum(parts)


def basic_composition(entries: Sequence[LedgerEntry]) -> tuple[float, float] | None:
    """(Σε, Σδ) when every step states (ε, δ) (Dwork & Roth 2014, Thm. 3.16), else None."""
    if not all(e.epsilon is not None for e in entries):
        return None
    return math.fsum(e.epsilon for e in entries), math.fsum(e.delta for e in entries)  # type: ignore[misc]


def compose_steps(
    entries: Sequence[LedgerEntry], delta: float | None, conversion: Conversion = "ckm"
) -> Composition:
    """Compose ``entries`` by basic composition, zCDP addition and RDP addition, and convert
    the Rényi totals at ``delta`` (δ in (0, 1)); the one composition of the privacy core.

    The DP synthesizers' steps (:class:`PrivacyAccountant`), the ledger of a table's releases
    (:func:`synthcert.privacy.ledger.compose`) and a release of independent records
    (:func:`synthcert.privacy.record_accountant.account_records`: its curve at the chosen
    order) are all converted here.

    Parameters
    ----------
    entries : sequence of LedgerEntry
        The steps, each with the statements it has.
    delta : float or None
        δ to convert at; None (or outside (0, 1)) converts nothing.
    conversion : {"ckm", "mironov"}
        How an RDP total is converted (:func:`~synthcert.privacy.conversion.rdp_to_dp`).

    Returns
    -------
    Composition
        Every total that applies.

    Examples
    --------
    >>> acc = PrivacyAccountant(2.0, 1e-6)
    >>> _ = acc.record_pure("Laplace", 0.5)
    >>> _ = acc.record_zcdp("Gaussian", 0.02)
    >>> c = compose_steps(acc.ledger, 1e-6)
    >>> (c.epsilon_basic, round(c.rho, 6))
    (None, 0.145)
    """
    entries = list(entries)
    convert = delta is not None and 0.0 < delta < 1.0
    eps_basic, delta_basic = basic_composition(entries) or (None, None)
    renyi = [e for e in entries if e.orders]
    others = [e for e in entries if not e.orders]
    rho = math.fsum(e.rho for e in others) if all(e.rho is not None for e in others) else None  # type: ignore[misc]
    delta_a = math.fsum(e.delta for e in entries if e.kind == "approx_zcdp")
    eps_zcdp = None
    if rho is not None and not renyi and convert:
        eps_zcdp = approx_zcdp_epsilon(partial(zcdp_epsilon, rho), delta_a, delta)  # type: ignore[arg-type]
    best: tuple[float, float, float] | None = None  # (epsilon at delta, alpha, eps_rdp)
    for alpha in sorted({float(a) for e in renyi for a in e.orders}):
        total = rdp_total(entries, alpha)
        if total is None:
            continue
        if not convert:
            best = (math.inf, alpha, total)  # the smallest admissible order
            break
        of = partial(rdp_epsilon, alpha, total, conversion=conversion)
        eps = approx_zcdp_epsilon(of, delta_a, delta)  # type: ignore[arg-type]
        if best is None or eps < best[0]:
            best = (eps, alpha, total)
    return Composition(
        steps=len(entries),
        epsilon_basic=eps_basic,
        delta_basic=delta_basic,
        rho=rho,
        delta_approx=delta_a,
        alpha=None if best is None else best[1],
        epsilon_rdp=None if best is None else best[2],
        delta=delta if convert else None,
        epsilon_zcdp=eps_zcdp,
        epsilon_rdp_dp=best[0] if best is not None and convert else None,
    )


def rho_from_bun_steinke(epsilon: float, delta: float) -> float:
    """Largest rho with rho + 2 sqrt(rho log(1/delta)) <= epsilon (inverse of B&S Prop. 1.3).

    With L = log(1/delta): sqrt(rho) = sqrt(L + epsilon) - sqrt(L). The "standard conversion"
    AIM's reference code uses (McKenna et al. 2022); a lower bracket for the CKS inverse.
    """
    L = math.log(1.0 / delta)
    return (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2


def rho_from_epsilon_delta(epsilon: float, delta: float) -> float:
    """Largest rho with zcdp_to_dp(rho, delta) <= epsilon: the inverse of the CKS conversion.

    ``zcdp_to_dp`` is thesis Prop. 2.3.9 (Canonne, Kamath & Steinke 2020, Prop. 12 applied to
    the RDP curve alpha * rho, optimised over alpha > 1). rho-zCDP implies
    (zcdp_to_dp(rho, delta), delta)-DP for every delta, and zcdp_to_dp grows with rho, so a
    mechanism spending the returned rho is (epsilon, delta)-DP; it is the same conversion the
    accountant checks budgets with (``zcdp_epsilon``), so no budget is left unused. The
    Bun & Steinke inverse (Prop. 1.3, :func:`rho_from_bun_steinke`, what AIM's reference code
    uses) is looser and serves as the lower bracket of a Brent root search; the root is then
    stepped to the admissible side (with 1e-9 relative headroom for re-summed shares), so the
    returned rho never converts above epsilon.

    Parameters
    ----------
    epsilon : float
        ε of the (ε, δ)-DP budget, positive and finite.
    delta : float
        δ of the budget, 0 < δ < 1.

    Returns
    -------
    float
        ρ of the zCDP budget.

    Raises
    ------
    ParameterError
        When ε or δ is out of range (:mod:`synthcert.privacy.parameters`).

    Examples
    --------
    >>> round(rho_from_epsilon_delta(1.0, 1e-6), 5)  # Bun & Steinke's inverse: 0.01747
    0.02436
    """
    check_epsilon(epsilon)
    check_delta(delta, pure=False)
    lo = rho_from_bun_steinke(epsilon, delta)  # zcdp_to_dp(lo) <= B&S(lo) = epsilon

    def excess(rho: float) -> float:
        # with a 1e-9 relative headroom: a synthesizer splits rho into shares whose
        # floating-point sum may exceed rho by a few ulps
        return zcdp_epsilon(rho * (1.0 + RHO_HEADROOM), delta) - epsilon

    if lo >= SMALL_RHO:
        rho = calibrate(
            lambda r: excess(r) <= 0, lo, find="largest", integer=False, lower=lo, slack=excess
        )
    else:  # search rho / lo: Brent's absolute tolerance (2e-12) would swamp a tiny rho
        k = calibrate(
            lambda x: excess(x * lo) <= 0, 1.0, find="largest", integer=False, lower=1.0,
            slack=lambda x: excess(x * lo),
        )  # fmt: skip
        rho = None if k is None else k * lo
    if rho is None or not excess(rho) <= 0:  # cannot happen (CKS <= B&S); B&S is valid
        return lo
    assert zcdp_epsilon(rho, delta) <= epsilon, (epsilon, delta, rho)
    return float(rho)


class PrivacyAccountant:
    """Records the mechanisms of one fit and checks the total against the requested budget.

    ``epsilon=None`` means no DP was requested (nothing should be recorded).

    Parameters
    ----------
    epsilon : float, optional
        The requested ε (None: no DP).
    delta : float, optional
        The requested δ.

    Raises
    ------
    AssumptionError
        When ε is not positive or δ is out of range.

    Examples
    --------
    >>> acc = PrivacyAccountant(1.0)
    >>> _ = acc.record_pure("Laplace", 0.5)
    >>> _ = acc.record_pure("Laplace", 0.5)
    >>> acc.check_within_budget().epsilon
    1.0
    """

    def __init__(self, epsilon: float | None = None, delta: float | None = None) -> None:
        if epsilon is not None:
            check_epsilon(epsilon, infinite=True)
        if delta is not None:
            check_delta(delta)
        self.epsilon = epsilon
        self.delta = delta
        self._ledger: list[LedgerEntry] = []

    # -- recording ----------------------------------------------------------------------
    def record_pure(self, mechanism: str, epsilon: float) -> LedgerEntry:
        """An epsilon-DP step (Laplace, Staircase); also epsilon^2/2-zCDP (Bun & Steinke 1.4)."""
        self._check_nonneg("epsilon", epsilon)
        return self._add(LedgerEntry(mechanism, "pure", float(epsilon), 0.5 * epsilon**2))

    def record_exponential(self, mechanism: str, epsilon: float) -> LedgerEntry:
        """An epsilon-DP exponential mechanism: also epsilon^2/8-zCDP (Cesar & Rogers 2021)."""
        self._check_nonneg("epsilon", epsilon)
        return self._add(LedgerEntry(mechanism, "exponential", float(epsilon), epsilon**2 / 8.0))

    def record_zcdp(self, mechanism: str, rho: float) -> LedgerEntry:
        """A rho-zCDP step (a Gaussian mechanism, sigma^2 = Delta_2^2 / (2 rho))."""
        self._check_nonneg("rho", rho)
        return self._add(LedgerEntry(mechanism, "zcdp", None, float(rho)))

    def record_approx_zcdp(self, mechanism: str, rho: float, delta: float) -> LedgerEntry:
        """A delta-approximately rho-zCDP step (Bun & Steinke 2016, section 8): rho-zCDP
        conditioned on events of probability >= 1 - delta (module docstring)."""
        self._check_nonneg("rho", rho)
        check_delta(delta)
        return self._add(LedgerEntry(mechanism, "approx_zcdp", None, float(rho), float(delta)))

    def record_approx(
        self, mechanism: str, epsilon: float, delta: float, *, rho: float | None = None
    ) -> LedgerEntry:
        """An (epsilon, delta)-DP step (e.g. an analytic Gaussian), with its rho-zCDP if known."""
        self._check_nonneg("epsilon", epsilon)
        check_delta(delta)
        if rho is not None:
            self._check_nonneg("rho", rho)
        return self._add(LedgerEntry(mechanism, "approx", float(epsilon), rho, float(delta)))

    def record_rdp_curve(
        self, mechanism: str, alphas: Sequence[float], epsilons: Sequence[float]
    ) -> LedgerEntry:
        """One run's RDP curve: (alpha_i, epsilon_i)-RDP at each order, one step whose points
        are alternatives (read at a common order by :meth:`LedgerEntry.rdp_curve_at`)."""
        return self._add(self._curve(mechanism, alphas, epsilons))

    def record_rdp(
        self,
        mechanism: str,
        alpha: float,
        epsilon_rdp: float,
        *,
        epsilon: float | None = None,
        delta: float = 0.0,
    ) -> LedgerEntry:
        """An (alpha, epsilon_rdp)-RDP step at one order (not in the zCDP sum); ``epsilon``
        and ``delta``: an (ε, δ)-DP statement it also has (a published inherent-RDP claim)."""
        entry = self._curve(mechanism, [alpha], [epsilon_rdp])
        if epsilon is not None:
            self._check_nonneg("epsilon", epsilon)
            check_delta(delta)
            entry = dataclasses.replace(entry, epsilon=float(epsilon), delta=float(delta))
        return self._add(entry)

    def _curve(
        self, mechanism: str, alphas: Sequence[float], epsilons: Sequence[float]
    ) -> LedgerEntry:
        if len(alphas) != len(epsilons) or not len(alphas):
            raise AssumptionError("an RDP curve needs one epsilon per order, and an order")
        for e in epsilons:
            self._check_nonneg("epsilon_rdp", e)
        return LedgerEntry(
            mechanism, "rdp", None, None,
            orders=tuple(float(a) for a in alphas),
            epsilons_rdp=tuple(float(e) for e in epsilons),
        )  # fmt: skip

    def _add(self, entry: LedgerEntry) -> LedgerEntry:
        self._ledger.append(entry)
        return entry

    @staticmethod
    def _check_nonneg(name: str, value: float) -> None:
        if not (value >= 0 and math.isfinite(value)):
            raise AssumptionError(
                f"{name} must be a finite non-negative number, got {value}",
                assumption=f"0 <= {name} < inf",
            )

    # -- reading ------------------------------------------------------------------------
    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """Every recorded step, in order."""
        return tuple(self._ledger)

    def spent(self) -> Spent:
        """The tightest total of :func:`compose_steps` at the requested δ: basic composition
        (Prop. 2.3.16) when it fits the requested ε (pure DP is the stronger claim), else the
        smallest ε of basic composition, zCDP addition (Prop. 2.3.19) and RDP addition
        (Prop. 2.3.18) with δ within the request."""
        delta_req = self.delta if self.delta else None
        c = compose_steps(self._ledger, delta_req)
        routes: list[tuple[float, float, Route, float | None]] = []
        if c.epsilon_basic is not None and c.delta_basic is not None:
            routes.append((c.epsilon_basic, c.delta_basic, "basic", None))
        if c.epsilon_zcdp is not None:
            routes.append((c.epsilon_zcdp, float(delta_req), "zcdp", None))  # type: ignore[arg-type]
        if c.epsilon_rdp_dp is not None:
            routes.append((c.epsilon_rdp_dp, float(delta_req), "rdp", c.alpha))  # type: ignore[arg-type]
        if not self._ledger:
            best: tuple[float, float, Route, float | None] = (0.0, 0.0, "none", None)
        elif routes:
            ok = [r for r in routes if delta_req is None or r[1] <= delta_req + TOLERANCE]
            best = min(ok or routes, key=lambda r: (r[0], r[1]))
            basic = routes[0] if routes[0][2] == "basic" else None
            if basic is not None and basic[0] <= (self.epsilon or math.inf) + TOLERANCE:
                best = basic  # within budget with delta = 0: pure DP is the stronger claim
        else:
            best = (math.inf, float(delta_req or 0.0), "none", None)
        return Spent(
            epsilon=float(best[0]),
            delta=float(best[1]),
            route=best[2],
            epsilon_pure=c.epsilon_basic,
            delta_basic=c.delta_basic,
            rho=c.rho,
            epsilon_zcdp=c.epsilon_zcdp,
            alpha=best[3],
            requested_epsilon=self.epsilon,
            requested_delta=self.delta,
            steps=c.steps,
        )

    def check_within_budget(self) -> Spent:
        """Raise BudgetError if the spent epsilon (or delta) exceeds the request (+1e-9)."""
        spent = self.spent()
        if self.epsilon is None:
            if spent.steps:
                raise BudgetError("mechanisms were recorded but no budget was requested")
            return spent
        if spent.epsilon > self.epsilon + TOLERANCE:
            raise BudgetError(
                f"spent epsilon {spent.epsilon:.6g} exceeds the requested {self.epsilon:.6g}"
            )
        if spent.delta > (self.delta or 0.0) + TOLERANCE:
            raise BudgetError(
                f"spent delta {spent.delta:.3g} exceeds the requested {self.delta or 0.0:.3g}"
            )
        return spent

    def model(self) -> str:
        """The claim model of what was spent: none, pure-dp, zcdp or approx-dp."""
        if self.epsilon is None:
            return "none"
        s = self.spent()
        if s.delta == 0.0:
            return "pure-dp"
        exact = all(e.kind != "approx_zcdp" for e in self._ledger)
        return "zcdp" if s.route == "zcdp" and exact else "approx-dp"

    def __repr__(self) -> str:
        s = self.spent()
        return (
            f"PrivacyAccountant(requested=({self.epsilon}, {self.delta}), "
            f"spent epsilon={s.epsilon:.6g}, delta={s.delta:.3g}, rho={s.rho:.6g}, "
            f"steps={s.steps})"
        )

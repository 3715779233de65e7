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

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np

from synthcert._result import Result
from synthcert.errors import AssumptionError, BudgetError
from synthcert.privacy.calibrate import calibrate
from synthcert.privacy.conversion import rdp_to_dp, zcdp_to_dp
from synthcert.privacy.parameters import check_delta, check_epsilon

Kind = Literal["pure", "exponential", "approx", "zcdp", "approx_zcdp", "rdp"]
Route = Literal["none", "basic", "zcdp", "rdp"]
TOLERANCE = 1e-9
RHO_HEADROOM = 1e-9  # relative: rho_from_epsilon_delta's rho, re-summed, stays within
SMALL_RHO = 1e-3  # below: rho_from_epsilon_delta searches rho / lo (see there)


@dataclass(frozen=True)
class LedgerEntry(Result):
    """One mechanism run: its kind, its own parameters, and its zCDP equivalent when it has one."""

    mechanism: str
    kind: Kind
    epsilon: float | None  # pure / approx epsilon, or the RDP epsilon at ``alpha`` (rdp)
    rho: float | None  # zCDP equivalent (None for an RDP step at a single order)
    alpha: float | None = None  # RDP order (rdp only)
    delta: float = 0.0  # delta of an (epsilon, delta) step, or delta_a of an approx_zcdp step


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


def rdp_epsilon(alpha: float, epsilon_rdp: float, delta: float) -> float:
    """(alpha, eps)-RDP -> (eps', delta)-DP by synthcert.privacy.conversion.rdp_to_dp."""
    return float(rdp_to_dp(np.array([alpha]), np.array([epsilon_rdp]), delta)[0])


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
        return self._add(
            LedgerEntry(mechanism, "approx_zcdp", None, float(rho), None, float(delta))
        )

    def record_approx(
        self, mechanism: str, epsilon: float, delta: float, *, rho: float | None = None
    ) -> LedgerEntry:
        """An (epsilon, delta)-DP step (e.g. an analytic Gaussian), with its rho-zCDP if known."""
        self._check_nonneg("epsilon", epsilon)
        check_delta(delta)
        if rho is not None:
            self._check_nonneg("rho", rho)
        return self._add(LedgerEntry(mechanism, "approx", float(epsilon), rho, None, float(delta)))

    def record_rdp_curve(
        self, mechanism: str, alphas: Sequence[float], epsilons: Sequence[float]
    ) -> tuple[LedgerEntry, ...]:
        """One mechanism's RDP curve: an (alpha, epsilon)-RDP entry per order."""
        if len(alphas) != len(epsilons):
            raise AssumptionError("alphas and epsilons must have the same length")
        return tuple(
            self.record_rdp(mechanism, a, e) for a, e in zip(alphas, epsilons, strict=True)
        )

    def record_rdp(self, mechanism: str, alpha: float, epsilon_rdp: float) -> LedgerEntry:
        """An (alpha, epsilon)-RDP step at one order (kept in the ledger; not in the zCDP sum)."""
        if not alpha > 1:
            raise AssumptionError(
                f"RDP order alpha must exceed 1, got {alpha}", assumption="alpha > 1"
            )
        self._check_nonneg("epsilon_rdp", epsilon_rdp)
        return self._add(LedgerEntry(mechanism, "rdp", float(epsilon_rdp), None, float(alpha)))

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
        """Totals by basic composition (Prop. 2.3.16), zCDP addition (Prop. 2.3.19) and RDP
        addition at a common order (Prop. 2.3.18); reports the tightest valid one."""
        entries = self._ledger
        delta_req = self.delta if self.delta else None
        routes: list[tuple[float, float, Route, float | None]] = []
        has_eps = all(e.kind in ("pure", "exponential", "approx") for e in entries)
        eps_basic = float(sum(e.epsilon or 0.0 for e in entries)) if has_eps else None
        delta_basic = float(sum(e.delta for e in entries)) if has_eps else None
        if eps_basic is not None and delta_basic is not None:
            routes.append((eps_basic, delta_basic, "basic", None))
        non_rdp = [e for e in entries if e.kind != "rdp"]
        rho = (
            float(sum(e.rho for e in non_rdp))  # type: ignore[misc]
            if all(e.rho is not None for e in non_rdp)
            else None
        )
        rdp = [e for e in entries if e.kind == "rdp"]
        delta_a = math.fsum(e.delta for e in entries if e.kind == "approx_zcdp")
        eps_zcdp = None
        if rho is not None and not rdp and delta_req is not None:
            eps_zcdp = approx_zcdp_epsilon(partial(zcdp_epsilon, rho), delta_a, delta_req)
            routes.append((eps_zcdp, float(delta_req), "zcdp", None))
        if rdp and rho is not None and delta_req is not None:
            names = {e.mechanism for e in rdp}
            for alpha in sorted({e.alpha for e in rdp}):  # type: ignore[type-var]
                at = [e for e in rdp if e.alpha == alpha]
                if {e.mechanism for e in at} != names:
                    continue  # some RDP mechanism has no value at this order
                total = sum(e.epsilon or 0.0 for e in at) + alpha * rho  # type: ignore[operator]
                eps = approx_zcdp_epsilon(
                    partial(rdp_epsilon, float(alpha), float(total)),  # type: ignore[arg-type]
                    delta_a,
                    delta_req,
                )
                routes.append((eps, float(delta_req), "rdp", float(alpha)))  # type: ignore[arg-type]
        if not entries:
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
            epsilon_pure=eps_basic,
            delta_basic=delta_basic,
            rho=rho,
            epsilon_zcdp=eps_zcdp,
            alpha=best[3],
            requested_epsilon=self.epsilon,
            requested_delta=self.delta,
            steps=len(entries),
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

"""DP-SGD composed with a ρ-zCDP step: its ε, and the noise multiplier that fits a budget.

DP-CTGAN's discriminator is trained by T steps of the subsampled Gaussian mechanism (sampling
rate q, noise multiplier σ): its RDP curve ε_SGD(α) is Mironov, Talwar & Zhang (2019), as
Opacus computes it (``compute_rdp``). When the fit also releases a ρ-zCDP histogram (the
missing-value patterns, :mod:`synthcert.synthesizers.ctgan_missing`), the two are steps of the
privacy core's one composition (:func:`~synthcert.privacy.accountant.compose_steps`): RDP adds
at each order (Mironov 2017, Prop. 1), ρ-zCDP counting αρ, and the total is converted by
Canonne, Kamath & Steinke (2020) Prop. 12 at the best order of the grid.
:func:`calibrate_noise_multiplier` finds the smallest σ whose composed ε is at most the
requested one, by the core's one calibrator (:func:`~synthcert.privacy.calibrate.calibrate`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from synthcert.errors import AssumptionError
from synthcert.privacy.accountant import LedgerEntry, compose_steps
from synthcert.privacy.calibrate import calibrate

SGD_STEP = "dp-sgd:discriminator"
ZCDP_STEP = "rho-zCDP step"


def dpsgd_rdp(
    sigma: float, *, sample_rate: float, steps: int, orders: Sequence[float]
) -> tuple[float, ...]:
    """ε_SGD(α) of ``steps`` subsampled Gaussian steps at each order (Opacus ``compute_rdp``)."""
    from opacus.accountants.analysis.rdp import compute_rdp

    rdp = compute_rdp(q=sample_rate, noise_multiplier=sigma, steps=steps, orders=list(orders))
    return tuple(float(r) for r in rdp)


def composed_epsilon(
    sigma: float,
    *,
    sample_rate: float,
    steps: int,
    rho: float,
    delta: float,
    orders: Sequence[float],
) -> float:
    """ε at δ of DP-SGD (noise multiplier ``sigma``) composed with a ρ-zCDP step:
    min over the orders of CKS(ε_SGD(α) + αρ), by :func:`~synthcert.privacy.accountant
    .compose_steps` (the arithmetic of :meth:`PrivacyAccountant.spent` on the RDP route)."""
    curve = dpsgd_rdp(sigma, sample_rate=sample_rate, steps=steps, orders=orders)
    sgd = LedgerEntry(
        SGD_STEP, "rdp", None, None, orders=tuple(map(float, orders)), epsilons_rdp=curve
    )
    total = compose_steps([sgd, LedgerEntry(ZCDP_STEP, "zcdp", None, float(rho))], delta)
    return float(total.epsilon_rdp_dp)  # type: ignore[arg-type]


def calibrate_noise_multiplier(
    *,
    sample_rate: float,
    steps: int,
    epsilon: float,
    delta: float,
    rho: float,
    orders: Sequence[float],
    rtol: float = 1e-3,
) -> float:
    """Smallest DP-SGD noise multiplier (within rtol) whose composition with ρ stays in budget.

    :func:`~synthcert.privacy.calibrate.calibrate` on :func:`composed_epsilon` (which
    decreases in σ): a doubling bracket from 0.5 within [1e-4, 1e6], Brent's method, then
    steps up by factors 1 + rtol/4 until ``composed_epsilon(sigma) <= epsilon`` holds, so the
    returned σ always keeps the budget.

    Raises
    ------
    AssumptionError
        If ρ alone already spends the budget (αρ converts to ε or more at every order).
    """
    return _calibrate(sample_rate, steps, epsilon, delta, rho, tuple(orders), rtol)


@functools.lru_cache(maxsize=32)
def _calibrate(
    sample_rate: float,
    steps: int,
    epsilon: float,
    delta: float,
    rho: float,
    orders: tuple[float, ...],
    rtol: float,
) -> float:
    """:func:`calibrate_noise_multiplier`, cached (a pure function of public numbers)."""
    alone = LedgerEntry(
        ZCDP_STEP, "rdp", None, None, orders=orders, epsilons_rdp=tuple(a * rho for a in orders)
    )
    if float(compose_steps([alone], delta).epsilon_rdp_dp) >= epsilon:  # type: ignore[arg-type]
        raise AssumptionError(
            "the pattern histogram alone spends the whole budget",
            assumption="rho_pattern converts to less than epsilon",
            admissible="a smaller pattern budget share",
        )

    def excess(sigma: float) -> float:
        kw = {"sample_rate": sample_rate, "steps": steps, "rho": rho, "delta": delta}
        return composed_epsilon(sigma, orders=orders, **kw) - epsilon

    sigma = calibrate(
        lambda s: excess(s) <= 0, 0.5, find="smallest", integer=False, lower=1e-4, upper=1e6,
        slack=excess, rtol=rtol / 4,
    )  # fmt: skip
    if sigma is None:
        raise AssumptionError("no noise multiplier below 1e6 meets the budget")
    return sigma


__all__ = ["calibrate_noise_multiplier", "composed_epsilon", "dpsgd_rdp"]

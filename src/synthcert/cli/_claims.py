"""The privacy claim every command's ``--json`` carries under the key ``claim``.

A command's JSON is its own result (a certificate, an account, a budget) plus, under
``"claim"``, the one :class:`~synthcert.privacy.claims.PrivacyClaim` it states, as
``PrivacyClaim.to_dict()``: the same key set for every command. A result that has a claim of
its own (``.claim``) gives it; for the data-free accounts the claim is built from their public
figures here.
"""

from __future__ import annotations

from typing import Any

from synthcert.privacy.claims import GUARANTEE, Assumption, PrivacyClaim

MG_MECHANISM = "sampling from N(mu, Sigma) (Miura et al. Theorem 3.1 / Corollary 3.2)"


def with_claim(payload: Any, claim: PrivacyClaim) -> dict[str, Any]:
    """``payload`` (a result or a dict) with ``claim`` set to ``claim.to_dict()``."""
    doc = payload.to_dict() if hasattr(payload, "to_dict") else dict(payload)
    return {**doc, "claim": claim.to_dict()}


def emit_claim_json(payload: Any, claim: PrivacyClaim, gate: Any = None) -> None:
    """Print ``payload`` with its claim (:func:`with_claim`) as the ``--json`` of a run, with
    the result of its worst-case audit gate (``--audit-gate``), when one ran, under
    ``audit_gate``."""
    from synthcert.cli._common import emit_json

    doc = with_claim(payload, claim)
    emit_json(doc if gate is None else {**doc, "audit_gate": gate})


def account_claim(account: Any) -> PrivacyClaim:
    """The claim stated by a data-free certificate of M_G (:class:`~synthcert.privacy.budget.
    Account`): inherent RDP of releasing ``n_out`` rows, from the declared n, d and sigma.

    An account the theorem refuses states no guarantee (``"none: <reason>"``), no figure.
    """
    own = getattr(account, "claim", None)
    if isinstance(own, PrivacyClaim):
        return own
    feasible = bool(account.feasible)
    size = (
        "the declared table size (under add/remove neighbours: a PUBLIC lower bound on it)"
        if account.neighboring == "unbounded"
        else "the table size (public under replacement neighbours)"
    )
    assumptions = (
        Assumption(
            "sigma", account.sigma, "declared",
            "every table that differs from the input in one record has an encoded covariance "
            "whose smallest eigenvalue is at least sigma (the class D_sigma)",
        ),
        Assumption("n", account.n, "declared", size),
        Assumption("d", account.d, "declared", "encoded dimension"),
        Assumption("neighboring", account.neighboring, "definition"),
        Assumption("equation", account.equation, "definition"),
    )  # fmt: skip
    return PrivacyClaim(
        model="inherent-rdp",
        guarantee=GUARANTEE if feasible else f"none: {account.reason}",
        neighboring=account.neighboring,
        epsilon=account.epsilon if feasible else None,
        delta=account.delta if feasible and account.epsilon is not None else None,
        alpha=account.alpha if feasible else None,
        epsilon_rdp=account.epsilon_rdp if feasible else None,
        n_out=int(account.n_out),
        conversion=account.conversion if feasible and account.epsilon is not None else None,
        mechanisms=(MG_MECHANISM,),
        assumptions=assumptions,
    )


def univariate_claim(result: Any, neighboring: str = "bounded") -> PrivacyClaim:
    """The claim of univariate Gaussian synthesis (Neunhoeffer et al., seed 004): rho-zCDP
    under replacement neighbours (n public), converted to (epsilon, delta)."""
    own = getattr(result, "claim", None)
    if isinstance(own, PrivacyClaim):
        return own
    feasible = result.rho is not None and result.epsilon is not None
    return PrivacyClaim(
        model="zcdp",
        guarantee=GUARANTEE if feasible else f"none: {result.note or 'no finite rho'}",
        neighboring=neighboring,
        epsilon=result.epsilon,
        delta=result.delta if feasible else None,
        rho=result.rho,
        n_out=int(result.n_syn) * int(result.m),
        mechanisms=(f"univariate Gaussian synthesis ({result.synthesis})",),
        assumptions=(
            Assumption("bound", result.bound, "declared", "every value is clamped to [-b, b]"),
            Assumption("n", result.n, "declared", "the table size (public)"),
            Assumption("neighboring", neighboring, "definition"),
            Assumption("accounting", result.accounting, "definition"),
        ),
    )


__all__ = ["account_claim", "emit_claim_json", "univariate_claim", "with_claim"]

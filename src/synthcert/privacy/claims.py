"""The one privacy claim every synthesizer and every release states, from public quantities only.

A :class:`PrivacyClaim` is what synthcert publishes about privacy: the model (inherent RDP of
sampling, pure DP, zCDP, approximate DP, or none), its parameters, the neighbouring relation,
and the public assumptions it rests on, each with its value and where it came from. Nothing in
a claim may depend on the private table: a claim is computed from declared quantities (the
budget, sigma, the declared minimum table size, the schema's public bounds) and never from n
under add/remove neighbours, a measured eigenvalue or a count of dropped rows. The neighbour
tests (tests/test_publication_boundary.py) check this for every command.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from synthcert._result import Result
from synthcert.privacy.parameters import GUARANTEE, ClaimFigures, Neighbouring

if TYPE_CHECKING:
    from synthcert.privacy.risk import RiskLabel

ClaimModel = Literal["none", "pure-dp", "approx-dp", "zcdp", "inherent-rdp"]
CLAIM_SCHEMA_VERSION = 1
NEIGHBORING_TEXT = {
    Neighbouring.UNBOUNDED: "adding or removing one record (the table size is private)",
    Neighbouring.BOUNDED: "replacing one record by another (the table size is public)",
    Neighbouring.NONE: "no neighbouring relation: no privacy is claimed",
}


@dataclass(frozen=True)
class Assumption(Result):
    """One assumption a claim rests on: its name, value and source.

    ``source`` is ``"declared"`` (given by the user as public), ``"public-schema"`` (the
    schema's bounds or categories marked public), ``"definition"`` (part of the mechanism's
    definition, e.g. the neighbouring relation) or ``"data"`` (read from the private table:
    the claim is then no guarantee and says so).

    Attributes
    ----------
    name : str
        What is assumed (``sigma``, ``neighboring``, ``domain``...).
    value : object
        Its value.
    source : str
        Where it comes from (see above).
    meaning : str
        A sentence a reader understands.
    """

    name: str
    value: Any
    source: str
    meaning: str = ""


@dataclass(frozen=True)
class PrivacyClaim(ClaimFigures, Result):
    """What a run guarantees, in public terms only (``to_dict``/``from_dict`` round-trip).

    ``guarantee`` is ``"differential privacy"`` when the figures are a guarantee, or
    ``"none: <why>"`` when an assumption was measured on the data or no DP was requested; the
    figures are then shown for information and must not be quoted as a guarantee.

    Attributes
    ----------
    model : str
        ``pure-dp``, ``approx-dp``, ``zcdp``, ``inherent-rdp`` or ``none``.
    epsilon, delta : float or None
        The (ε, δ)-DP figures.
    rho : float or None
        ρ of ρ-zCDP.
    alpha, epsilon_rdp : float or None
        The (α, ε)-RDP figures.
    n_out : int or None
        Records released.
    assumptions : tuple of Assumption
        What the figures rest on.

    Examples
    --------
    >>> claim = PrivacyClaim("approx-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=1e-9)
    >>> claim.is_guarantee, PrivacyClaim.from_dict(claim.to_dict()) == claim
    (True, True)
    >>> no_privacy_claim(n_out=10).is_guarantee
    False
    """

    model: ClaimModel  # the figures (model ... epsilon_rdp) are ClaimFigures'
    n_out: int | None = None
    conversion: str | None = None
    mechanisms: tuple[str, ...] = field(default_factory=tuple)
    assumptions: tuple[Assumption, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = field(default_factory=tuple)
    claim_schema_version: int = CLAIM_SCHEMA_VERSION

    @property
    def risk(self) -> RiskLabel:
        """The attack-risk label of this claim (:func:`synthcert.privacy.risk.risk_label`)."""
        from synthcert.privacy.risk import risk_label

        return risk_label(self)

    def to_dict(self) -> dict[str, Any]:
        """The claim's fields and, under ``risk``, its attack-risk label (derived, public)."""
        return {**super().to_dict(), "risk": self.risk.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PrivacyClaim:
        """Read back :meth:`to_dict`; ``risk`` is recomputed from the figures, not read."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "risk"}
        return super().from_dict(data)

    @property
    def is_guarantee(self) -> bool:
        """True when the figures are a DP guarantee (no data-derived assumption, DP requested)."""
        return self.guarantee == GUARANTEE

    def with_warnings(self, *extra: str) -> PrivacyClaim:
        """The same claim with more (public) warnings appended."""
        from dataclasses import replace

        return replace(self, warnings=(*self.warnings, *extra))


NO_DP = "none: fitted without noise (no differential privacy was requested)"
DATA_SIGMA = "none: an assumption was measured on the data (sigma)"
DATA_DOMAIN = "none: the domain was read from the data"  # bounds, categories or flags


def no_privacy_claim(n_out: int | None = None, *, reason: str = NO_DP) -> PrivacyClaim:
    """The claim of a synthesizer fitted without DP noise."""
    return PrivacyClaim(model="none", guarantee=reason, neighboring="none", n_out=n_out)


def domain_assumption(bounds_source: str, data_columns: list[str]) -> Assumption:
    """The schema's bounds and categories as an assumption (public, or read from the data)."""
    if bounds_source == "public":
        return Assumption(
            "domain",
            "bounds and categories of the schema",
            "public-schema",
            "every value is clipped to public bounds; categories come from a public list",
        )
    return Assumption(
        "domain",
        "bounds or categories of " + ", ".join(data_columns),
        "data",
        "read from the table itself: the minimum, maximum or categories present are not "
        "protected by the claim",
    )


def flags_assumption(data_flags: list[str]) -> Assumption | None:
    """The ``nullable``/``integer`` flags read from the data (``"column: flag"``) as an
    assumption with source ``"data"``, or None when every flag is public. Such a flag decides
    whether an output can hold a missing or a fractional value, so, like a data-derived bound,
    it voids the guarantee (``--private-domain`` replaces it by a public rule)."""
    if not data_flags:
        return None
    return Assumption(
        "flags",
        ", ".join(data_flags),
        "data",
        "nullable or integer flags read from the table itself: whether an output value can be "
        "missing or fractional is not protected by the claim",
    )


def dp_claim(
    *,
    epsilon: float,
    delta: float,
    rho: float | None,
    neighboring: str,
    n_out: int | None,
    mechanisms: tuple[str, ...],
    assumptions: tuple[Assumption, ...],
    warnings: tuple[str, ...] = (),
) -> PrivacyClaim:
    """The claim of a DP synthesizer: its *requested* budget, which the ledger never exceeds.

    The claim states the requested (epsilon, delta) rather than the ledger's sum, because the
    sum of an adaptive mechanism's steps (AIM) varies in its last digits with the noisy number
    of rounds; the accountant refuses any fit whose sum exceeds the request.
    """
    data_derived = [a.name for a in assumptions if a.source == "data"]
    guarantee = DATA_DOMAIN if {"domain", "flags"} & set(data_derived) else GUARANTEE
    model: ClaimModel = "pure-dp" if delta == 0 else ("zcdp" if rho is not None else "approx-dp")
    return PrivacyClaim(
        model=model,
        guarantee=guarantee,
        neighboring=neighboring,
        epsilon=float(epsilon),
        delta=float(delta),
        rho=None if rho is None else float(rho),
        n_out=n_out,
        mechanisms=tuple(sorted(set(mechanisms))),
        assumptions=assumptions,
        warnings=warnings,
    )


__all__ = [
    "DATA_DOMAIN",
    "DATA_SIGMA",
    "GUARANTEE",
    "NEIGHBORING_TEXT",
    "NO_DP",
    "Assumption",
    "PrivacyClaim",
    "domain_assumption",
    "dp_claim",
    "flags_assumption",
    "no_privacy_claim",
]

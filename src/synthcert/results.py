"""The published results: what ``release`` and ``synthesize`` publish, as typed values.

These types sit below the workflows that make them and the report that reads them (the
layers: ``privacy`` -> ``results`` -> ``workflows`` and ``report``), so neither imports the
other to name them. :class:`Certificate` is the certificate of a release (``NAME.certificate
.json``), :class:`SynthesisSummary` what ``synthesize --json`` prints; both state their
:class:`~synthcert.privacy.claims.PrivacyClaim`. The old paths
(``synthcert.workflows.release.Certificate``, ``synthcert.workflows.synthesize
.SynthesisSummary``) still import them. A certificate publishes its claim flat (the keys of
``NAME.certificate.json``): :data:`CLAIM_FIELDS` are the claim's fields it states under their
own names, :meth:`Certificate.stating` builds it from the claim and ``Certificate.claim``
gives the claim back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from synthcert._result import Result
from synthcert.privacy.claims import Assumption, PrivacyClaim


@dataclass(frozen=True)
class Certificate(Result):
    """The published certificate of a release: public fields only (the JSON contract).

    ``min_rows`` is the declared public lower bound on the table size (unbounded neighbours:
    the theorem is evaluated there); ``n`` is the table size, published only under bounded
    neighbours, whose definition makes it public. With ``sigma_source == "data"`` no figure is
    published: ``guarantee`` says why. The figures are those of Theorem 3.1 / Corollary 3.2
    (Theorems R1/R2 with a ridge), evaluated at public quantities only; ``to_dict()`` is the
    JSON of ``NAME.certificate.json`` and ``from_dict`` reads it back.

    Attributes
    ----------
    synthesizer : str
        ``"gaussian"`` (the mechanism M_G).
    model, guarantee, neighboring : str
        The privacy model (``approx-dp``, ``inherent-rdp``, ``none``...), ``"differential
        privacy"`` or ``"none: <why>"``, and ``"unbounded"`` (add/remove) or ``"bounded"``
        (replacement) neighbours.
    d : int
        Encoded dimension of the schema.
    sigma, sigma_source, ridge : float or None, str, float or None
        The declared sigma (None when measured on the data), where it came from, and the ridge.
    bounds_source : str
        ``"public"``, or ``"data"`` when a bound came from the data.
    min_rows, n : int or None
        The public lower bound N on the table size (unbounded), and n (bounded only).
    n_out : int
        Synthetic rows released.
    alpha, epsilon_rdp, epsilon_rdp_per_record : float or None
        The Renyi order, epsilon_RDP of the release, and epsilon_RDP per released row.
    delta, epsilon, conversion : float or None, float or None, str or None
        The (epsilon, delta)-DP figures and the RDP-to-DP conversion used (``ckm``/``mironov``).
    budget : dict or None
        The budget the release was sized to, as stated.
    assumptions : tuple of Assumption
        What the figures rest on.
    synthcert_version, date : str
        The version that issued it and the UTC date (no time of day).
    warnings : tuple of str
        Public warnings about the release.

    Examples
    --------
    >>> from synthcert import Budget, release_frame
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> _, cert = release_frame(
    ...     make_demo_table(20_000, seed=1), demo_schema(),
    ...     Budget(sigma=0.01, min_rows=20_000, n_out=50), seed=7,
    ... )
    >>> cert.synthesizer, cert.neighboring, cert.d, cert.n_out, cert.n
    ('gaussian', 'unbounded', 6, 50, None)
    >>> Certificate.from_dict(cert.to_dict()) == cert
    True
    """

    synthesizer: str
    model: str
    guarantee: str
    neighboring: str
    d: int
    sigma: float | None
    sigma_source: str
    ridge: float | None
    bounds_source: str
    min_rows: int | None
    n: int | None
    n_out: int
    alpha: float | None
    epsilon_rdp: float | None
    epsilon_rdp_per_record: float | None
    delta: float | None
    epsilon: float | None
    conversion: str | None
    budget: dict | None
    assumptions: tuple[Assumption, ...]
    synthcert_version: str
    date: str
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def stating(cls, claim: PrivacyClaim, **facts: Any) -> Certificate:
        """The certificate of a release that states ``claim``: the claim's fields under their
        own names (:data:`CLAIM_FIELDS`), with the release's ``facts`` (which may restate one).
        """
        return cls(**{**{k: getattr(claim, k) for k in CLAIM_FIELDS}, **facts})

    @property
    def claim(self) -> PrivacyClaim:
        """The privacy claim this certificate states (its :data:`CLAIM_FIELDS`)."""
        return PrivacyClaim(**{k: getattr(self, k) for k in CLAIM_FIELDS})


@dataclass(frozen=True)
class SynthesisSummary(Result):
    """The public summary of a synthesis (what ``synthesize --json`` prints).

    Attributes
    ----------
    synthesizer : str
        The registry name of the synthesizer.
    params : dict
        Its public parameters (the secret seed is not one).
    rows_out : int
        Synthetic rows written.
    output : str
        Where they were written.
    claim : PrivacyClaim
        The privacy claim of the run (model ``"none"`` without a budget).
    synthcert_version, date : str
        The version that ran it and the UTC date (no time of day).
    private_domain : float or None, default None
        The declared share of epsilon spent on a DP estimate of the domain.

    Examples
    --------
    >>> from synthcert.privacy.claims import PrivacyClaim
    >>> claim = PrivacyClaim(model="pure-dp", guarantee="differential privacy",
    ...                      neighboring="unbounded", epsilon=1.0, n_out=10)
    >>> summary = SynthesisSummary("privbayes", {}, 10, "synthetic.csv", claim, "0", "2026-01-01")
    >>> SynthesisSummary.from_dict(summary.to_dict()) == summary
    True
    """

    synthesizer: str
    params: dict[str, Any]
    rows_out: int
    output: str
    claim: PrivacyClaim
    synthcert_version: str
    date: str
    private_domain: float | None = None  # the declared share of epsilon spent on the domain


# The fields a certificate shares with its claim (the claim, published flat): model, guarantee,
# neighboring, n_out, alpha, epsilon_rdp, delta, epsilon, conversion, assumptions, warnings.
_CLAIM_NAMES = {f.name for f in fields(PrivacyClaim)}
CLAIM_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Certificate) if f.name in _CLAIM_NAMES)

__all__ = ["CLAIM_FIELDS", "Assumption", "Certificate", "PrivacyClaim", "SynthesisSummary"]

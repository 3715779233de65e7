"""The published results: what ``release`` and ``synthesize`` publish, as typed values.

These types sit below the workflows that make them and the report that reads them (the
layers: ``privacy`` -> ``results`` -> ``workflows`` and ``report``), so neither imports the
other to name them. :class:`Certificate` is the certificate of a release (``NAME.certificate
.json``), :class:`SynthesisSummary` what ``synthesize --json`` prints; both state their
:class:`~synthcert.privacy.claims.PrivacyClaim`. The old paths
(``synthcert.workflows.release.Certificate``, ``synthcert.workflows.synthesize
.SynthesisSummary``) still import them. Each holds its claim as one field, ``claim``, and
publishes it under that key, as every command's ``--json`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from synthcert._result import Result
from synthcert.privacy.claims import Assumption, PrivacyClaim


@dataclass(frozen=True)
class Certificate(Result):
    """The published certificate of a release: its claim and public facts only (the JSON
    contract).

    ``claim`` is the :class:`~synthcert.privacy.claims.PrivacyClaim` of the release (model,
    guarantee, neighbouring relation, n_out, the (α, ε_RDP) and (ε, δ) figures, the conversion,
    assumptions and warnings), published under the key ``claim``. ``min_rows`` is the declared
    public lower bound on the table size (unbounded neighbours: the theorem is evaluated
    there); ``n`` is the table size, published only under bounded neighbours, whose definition
    makes it public. With ``sigma_source == "data"`` no figure is published: the claim's
    ``guarantee`` says why. The figures are those of Theorem 3.1 / Corollary 3.2 (Theorems
    R1/R2 with a ridge), evaluated at public quantities only; ``to_dict()`` is the
    JSON of ``NAME.certificate.json`` and ``from_dict`` reads it back.

    Attributes
    ----------
    synthesizer : str
        ``"gaussian"`` (the mechanism M_G).
    d : int
        Encoded dimension of the schema.
    sigma, sigma_source, ridge : float or None, str, float or None
        The declared sigma (None when measured on the data), where it came from, and the ridge.
    bounds_source : str
        ``"public"``, or ``"data"`` when a bound came from the data.
    min_rows, n : int or None
        The public lower bound N on the table size (unbounded), and n (bounded only).
    epsilon_rdp_per_record : float or None
        epsilon_RDP of one released row at the claim's order.
    budget : dict or None
        The budget the release was sized to, as stated.
    claim : PrivacyClaim
        What the release guarantees (its warnings include the release's public warnings).
    synthcert_version, date : str
        The version that issued it and the UTC date (no time of day).

    Examples
    --------
    >>> from synthcert import Budget, release_frame
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> _, cert = release_frame(
    ...     make_demo_table(20_000, seed=1), demo_schema(),
    ...     Budget(sigma=0.01, min_rows=20_000, n_out=50), seed=7,
    ... )
    >>> cert.synthesizer, cert.claim.neighboring, cert.d, cert.claim.n_out, cert.n
    ('gaussian', 'unbounded', 6, 50, None)
    >>> Certificate.from_dict(cert.to_dict()) == cert
    True
    """

    synthesizer: str
    d: int
    sigma: float | None
    sigma_source: str
    ridge: float | None
    bounds_source: str
    min_rows: int | None
    n: int | None
    epsilon_rdp_per_record: float | None
    budget: dict | None
    claim: PrivacyClaim
    synthcert_version: str
    date: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Certificate:
        """Read back :meth:`to_dict`; a certificate of an earlier version, whose claim's fields
        stand flat beside the facts, is read too (its claim gathered from those fields). The
        claim's risk label that ``--json`` adds at the top level is derived: not read."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "risk"}
            if "claim" not in data:  # no claim field is also a fact: the split is by name
                names = {f.name for f in fields(PrivacyClaim)}
                data = {
                    **{k: v for k, v in data.items() if k not in names},
                    "claim": {k: v for k, v in data.items() if k in names},
                }
        return super().from_dict(data)


@dataclass(frozen=True)
class SynthesisSummary(Result):
    """The public summary of a synthesis (what ``synthesize --json`` prints).

    Attributes
    ----------
    synthesizer : str
        The registry name of the synthesizer.
    params : dict
        Its public parameters (the secret seed is not one), as the synthesizer was built: its
        ``epsilon`` and ``delta`` are its own part of the budget, after the DP steps before it
        (the domain, the bins) took theirs; the run's budget is the claim's.
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


__all__ = ["Assumption", "Certificate", "PrivacyClaim", "SynthesisSummary"]

"""The certificate section: the certificate as issued, and its curves recomputed from its inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synthcert.report import figures as F  # noqa: N812
from synthcert.report.curves import CertificateCurves, can_recompute, certificate_curves
from synthcert.report.inputs import Released, number, read_certificate
from synthcert.report.wording import CERTIFICATE_LABELS, NO_CERTIFICATE
from synthcert.results import Certificate


def _value(released: Released, key: str) -> Any:
    """A labelled figure of the certificate: a release's field, or a synthesis's claim field."""
    if key == "synthesizer":
        return released.synthesizer
    if isinstance(released, Certificate) and hasattr(released, key):
        if key == "n" and released.n is None:
            return released.min_rows  # unbounded: the theorem is evaluated at min_rows
        return getattr(released, key)
    return getattr(released.claim, key, None)


def certificate_rows(certificate: Released | Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The certificate's own figures as (label, value) rows.

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None

    Returns
    -------
    list of (str, str)
        The fields of :data:`~synthcert.report.wording.CERTIFICATE_LABELS` the certificate
        states (counts with separators, other numbers to 6 significant digits), then its budget.
    """
    released = read_certificate(certificate)
    if released is None:
        return []
    rows = []
    for key, label in CERTIFICATE_LABELS:
        v = _value(released, key)
        if v is None:
            continue
        if isinstance(v, int) and not isinstance(v, bool):
            rows.append((label, F.fmt(v)))
        elif isinstance(v, float):
            rows.append((label, F.fmt(v, 6)))
        else:
            rows.append((label, str(v)))
    budget = getattr(released, "budget", None)
    if budget:
        parts = [f"{k} = {F.fmt(number(v), 6)}" for k, v in budget.items()]
        rows.append(("Budget", ", ".join(parts)))
    return rows


def certificate_section(certificate: Released | Mapping[str, Any] | None) -> dict[str, Any]:
    """Tables, figures and notes of the certificate section.

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None

    Returns
    -------
    dict
        ``rows``, ``figures``, ``conversions`` and ``warnings``; with the recomputed
        ``curves``, ``mismatch``, ``max_records``, ``budget_kind``, ``budget_epsilon`` and
        ``alpha_max`` when the theorem's inputs are stated, else a ``note`` saying why not.
    """
    released = read_certificate(certificate)
    out: dict[str, Any] = {
        "rows": certificate_rows(released),
        "figures": [],
        "conversions": [],
        "warnings": [str(w) for w in released.claim.warnings] if released else [],
    }
    if released is None:
        out["note"] = NO_CERTIFICATE
        return out
    if not can_recompute(released):
        out["note"] = (
            "This certificate does not carry (n, d, σ, α, n_out) of the inherent-privacy "
            "theorem, so no curves are drawn; the guarantee is the one stated above."
        )
        return out
    try:
        curves: CertificateCurves = certificate_curves(released)
    except Exception as exc:  # never let a plotting problem hide the certificate itself
        out["note"] = f"The curves could not be recomputed: {exc}"
        return out
    out["curves"] = curves
    out["mismatch"] = curves.mismatch
    out["conversions"] = curves.conversions
    out["max_records"] = curves.max_records
    out["budget_kind"] = curves.budget_kind
    out["budget_epsilon"] = curves.budget_epsilon
    out["alpha_max"] = curves.alpha_max
    out["figures"] = [F.alpha_epsilon_figure(curves), F.epsilon_n_out_figure(curves)]
    return out


__all__ = ["certificate_rows", "certificate_section"]

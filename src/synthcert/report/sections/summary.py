"""The summary section: the guarantee in one sentence, the key facts, the assumptions, and
whether the audit contradicts the certificate."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from synthcert.report.figures import fmt
from synthcert.report.inputs import Released, number, read_audit, read_certificate
from synthcert.report.wording import ANY_RECORD, NEIGHBORING_TEXT, UNKNOWN_SYNTHESIZER
from synthcert.results import Certificate

if TYPE_CHECKING:
    from synthcert.audit.game import AuditResult


def _full_certificate(released: Released | None) -> Any:
    """The release's :class:`~synthcert.results.Certificate` (None for a synthesis)."""
    return released if isinstance(released, Certificate) else None


def guarantee_sentence(certificate: Released | Mapping[str, Any] | None) -> str:
    """The guarantee in one sentence a non-specialist can read.

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None
        The release's certificate or a synthesis summary (a JSON object is read as one).

    Returns
    -------
    str
        The (ε, δ)-DP statement with its odds factor, else the (α, ε_RDP)-RDP statement, else
        a sentence saying that no formal guarantee is stated.
    """
    released = read_certificate(certificate)
    if released is None:
        return "No formal privacy guarantee is stated for this release."
    claim = released.claim
    if not claim.is_guarantee:  # figures with a data-derived assumption are no guarantee
        reason = str(claim.guarantee).removeprefix("none").lstrip(": ")
        return "No formal privacy guarantee is stated for this release" + (
            f": {reason}. The figures below are shown for information only." if reason else "."
        )
    eps, delta = number(claim.epsilon), number(claim.delta)
    alpha, eps_rdp = number(claim.alpha), number(claim.epsilon_rdp)
    change = NEIGHBORING_TEXT.get(str(claim.neighboring), ANY_RECORD)
    if eps is not None and delta is not None:
        odds = math.exp(eps) if eps < 700 else math.inf
        s = (
            f"({fmt(eps)}, {fmt(delta)})-differential privacy: {change} changes the "
            f"probability of any outcome of this release by a factor of at most "
            f"exp({fmt(eps)}) ≈ {fmt(odds)}, except with probability {fmt(delta)}."
        )
    elif alpha is not None and eps_rdp is not None:
        s = f"({fmt(alpha)}, {fmt(eps_rdp)})-Rényi differential privacy with respect to {change}."
    else:
        return "No formal privacy guarantee is stated for this release."
    if alpha is not None and eps_rdp is not None and eps is not None:
        s += f" It follows from ({fmt(alpha)}, {fmt(eps_rdp)})-Rényi differential privacy."
    return s


def strength_note(eps: float | None) -> str | None:
    """A rule-of-thumb reading of ε, so the number is not read without a scale.

    Parameters
    ----------
    eps : float or None

    Returns
    -------
    str or None
        None without an ε.
    """
    if eps is None:
        return None
    if eps <= 1:
        return "ε ≤ 1 is usually considered strong protection."
    if eps <= 10:
        return (
            "ε between 1 and 10 is common in deployed systems; it limits, but does not "
            "prevent, inference about individuals."
        )
    return (
        "ε above 10 is weak: the formal guarantee alone protects individuals little; "
        "read the audit below."
    )


# (source, meaning) of an assumption when it is public knowledge, and when it was read from the data
_SIGMA_WORDING = (
    ("declared", "Declared by the data holder as public knowledge."),
    ("taken from the data", "Measured on this very table: the guarantee then also depends on "
     "the data; declare a public σ to make it data-independent."),
)  # fmt: skip
_BOUNDS_WORDING = (
    ("public (schema)", "The bounds come from a public codebook and reveal nothing about the "
     "data."),
    ("taken from the data", "The bounds (minimum, maximum, categories present) were read from "
     "the data and are not protected by the guarantee."),
)  # fmt: skip


def _assumption(what: str, public: bool, wording: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """One row of :func:`assumptions` for a fact that is either public knowledge (``ok`` is
    "yes") or was read from the data (``ok`` is "no"); ``wording`` gives the (source, meaning)
    of each case, public first."""
    source, meaning = wording[0 if public else 1]
    return {"what": what, "source": source, "ok": "yes" if public else "no", "meaning": meaning}


# how a claim's assumption sources read in the report (privacy.claims.Assumption)
ASSUMPTION_SOURCES = {
    "declared": "declared public",
    "public-schema": "public (schema)",
    "definition": "definition",
    "data": "taken from the data",
    "dp-estimate": "DP estimate",
    "public-rule": "public rule",
}


def assumptions(certificate: Released | Mapping[str, Any] | None) -> list[dict[str, str]]:
    """The assumptions the guarantee rests on, each with where it came from.

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None

    Returns
    -------
    list of dict
        Each with ``what``, ``source``, ``ok`` ("yes"/"no") and ``meaning``: σ and the bounds
        (a release's certificate), the neighbouring relation, and every other assumption of
        the claim (the DP domain, its split, the flags' rule, n...) with its own source.
    """
    released = read_certificate(certificate)
    if released is None:
        return []
    out = []
    cert = _full_certificate(released)
    shown = {"neighboring"} | ({"sigma", "bounds", "domain"} if cert is not None else set())
    if cert is not None and number(cert.sigma) is not None:
        sigma = fmt(float(cert.sigma), 4)
        what = (
            "Every eigenvalue of the input's covariance (after encoding to [−1, 1]) is at least "
            f"σ = {sigma}."
        )
        out.append(_assumption(what, cert.sigma_source == "declared", _SIGMA_WORDING))
    if cert is not None and cert.bounds_source is not None:
        what = (
            "Each numeric column lies within known bounds and each categorical column within "
            "known categories."
        )
        out.append(_assumption(what, cert.bounds_source == "public", _BOUNDS_WORDING))
    neighboring = released.claim.neighboring
    if neighboring:
        out.append(
            {
                "what": "Privacy is measured against "
                f"{NEIGHBORING_TEXT.get(str(neighboring), neighboring)} "
                f"('{neighboring}' neighbouring).",
                "source": "chosen at release",
                "ok": "yes",
                "meaning": "Each person contributes exactly one row of the input.",
            }
        )
    for a in released.claim.assumptions:
        if a.name in shown:
            continue
        out.append(
            {
                "what": f"{a.name}: {fmt(a.value) if isinstance(a.value, float) else a.value}",
                "source": ASSUMPTION_SOURCES.get(a.source, a.source),
                "ok": "no" if a.source == "data" else "yes",
                "meaning": a.meaning,
            }
        )
    return out


def synthesizer_description(name: str) -> str:
    """The registry's one-line description of a synthesizer.

    Parameters
    ----------
    name : str
        A registered name (``gaussian``, ``privbayes``...).

    Returns
    -------
    str
        :attr:`synthcert.synthesizers.registry.SynthesizerInfo.description`, or a pointer to the
        documentation for a name the registry does not know.
    """
    from synthcert.synthesizers.registry import REGISTRY

    info = REGISTRY.get(name)
    return info.description if info is not None else UNKNOWN_SYNTHESIZER


def summary_facts(
    certificate: Released | Mapping[str, Any] | None,
    audit: AuditResult | Mapping[str, Any] | None,
) -> list[tuple[str, str]]:
    """Key facts for the summary list.

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None
    audit : AuditResult, Mapping or None
        Names the synthesizer when no certificate does.

    Returns
    -------
    list of (str, str)
        (label, value): the synthesizer and its description, the rows released, the public
        table size (declared minimum or n) with d, and the guarantee when it is not DP.
    """
    released, au = read_certificate(certificate), read_audit(audit)
    cert = _full_certificate(released)
    claim = released.claim if released is not None else None
    synth = (released.synthesizer if released else None) or (au.synthesizer if au else None)
    synth = str(synth or "unknown")
    facts = [("Synthesizer", f"{synth}: {synthesizer_description(synth)}")]
    if claim is not None and claim.n_out is not None:
        facts.append(("Rows released", fmt(int(claim.n_out))))
    if cert is not None:
        dims = f" ({int(cert.d)} encoded dimensions)"
        if cert.min_rows is not None:
            facts.append(("Declared minimum table size", fmt(int(cert.min_rows)) + dims))
        elif cert.n is not None:
            facts.append(("Table size (public)", fmt(int(cert.n)) + dims))
    if claim is not None and claim.guarantee and claim.guarantee != "differential privacy":
        facts.append(("Guarantee", str(claim.guarantee)))
    return facts


def audited_upper_bound(
    certificate: Released | Mapping[str, Any] | None, audit: AuditResult | Mapping[str, Any]
) -> tuple[float | None, float | None, str]:
    """(ε, δ, source) the audit's lower bounds must stay below.

    The audit plays the game against its own run of the synthesizer (its own n_out and δ), so
    the matching upper bound is the guarantee the audit records under ``privacy``; only without
    it does the release certificate's (ε, δ) stand in.

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None
    audit : AuditResult or Mapping

    Returns
    -------
    tuple of (float or None, float or None, str)
        ε, δ and which guarantee they are.
    """
    released, au = read_certificate(certificate), read_audit(audit)
    priv = au.privacy or {}
    if number(priv.get("epsilon")) is not None:
        eps, delta = number(priv["epsilon"]), number(priv.get("delta"))
        return eps, delta, "the audited synthesizer's guarantee"
    if released is None:
        return None, None, "the release certificate"
    claim = released.claim
    return number(claim.epsilon), number(claim.delta), "the release certificate"


def _finite_or_none(x: float) -> float | None:
    return x if x is not None and not math.isnan(x) else None


def audit_verdict(
    certificate: Released | Mapping[str, Any] | None,
    audit: AuditResult | Mapping[str, Any] | None,
) -> dict[str, str] | None:
    """Does the audit contradict the certificate?

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None
    audit : AuditResult, Mapping or None

    Returns
    -------
    dict or None
        ``{"level": "alarm" | "ok", "text": ...}``: an alarm when an attack's ε lower bound
        exceeds the guaranteed ε; None without an audit or attacks.
    """
    au = read_audit(audit)
    if au is None or not au.attacks:
        return None
    attacks = au.attacks
    lbs = valid_bounds(au)
    aucs = [a for v in attacks.values() if (a := _finite_or_none(v.auc)) is not None]
    best_auc = max(aucs) if aucs else None
    eps, _delta, source = audited_upper_bound(certificate, au)
    if lbs and eps is not None and max(lbs.values()) > eps:
        name = max(lbs, key=lbs.get)
        return {
            "level": "alarm",
            "text": f"The audit contradicts the certificate: the {name} attack shows ε ≥ "
            f"{fmt(lbs[name])}, above ε = {fmt(eps)} guaranteed by {source}. Do not "
            "release until this is explained.",
        }
    parts = []
    if best_auc is not None:
        parts.append(
            f"the strongest of {len(attacks)} attacks reached AUC {best_auc:.3f} (0.5 is guessing)"
        )
    if lbs:
        name = max(lbs, key=lbs.get)
        parts.append(f"the largest measured lower bound is ε ≥ {fmt(lbs[name])} ({name})")
        text = "The audit is consistent with the certificate: " + "; ".join(parts) + "."
    else:
        parts.append("it gives no valid ε lower bound (see the audit notes)")
        text = "The audit does not contradict the certificate: " + "; ".join(parts) + "."
    return {"level": "ok", "text": text}


def valid_bounds(audit: AuditResult | Mapping[str, Any]) -> dict[str, float]:
    """Each attack's ε lower bound that is valid: computed from independent runs (a bound
    without a run unit was written before synthcert checked that) and not null.

    Parameters
    ----------
    audit : AuditResult or Mapping

    Returns
    -------
    dict of str to float
        The valid bounds by attack (finite or +inf).
    """
    au = read_audit(audit)
    out = {}
    for name, score in au.attacks.items():
        value = score.valid_bound
        if value is not None and not math.isnan(value):
            out[str(name)] = value
    return out


def bound_notes(audit: AuditResult | Mapping[str, Any]) -> list[str]:
    """Why attacks show no ε lower bound: the reasons of null bounds, and bounds written before
    the runs were checked for independence.

    Parameters
    ----------
    audit : AuditResult or Mapping

    Returns
    -------
    list of str
        One sentence per distinct reason.
    """
    from synthcert.audit.results import NO_BOUND

    au = read_audit(audit)
    notes: list[str] = []
    told = any(str(n).startswith(NO_BOUND) for n in au.notes)  # the audit's own note says why
    for score in au.attacks.values():
        bound = score.epsilon_bound
        if bound.valid and score.epsilon_lower_bound is not None:
            continue
        if bound.unit is None:
            text = (
                "These ε lower bounds were written by a synthcert that did not check that the "
                "runs are independent (it counted every table of a fit as a run); they are not "
                "shown or used. Re-run the audit."
            )
        elif told:
            continue
        else:
            text = f"{NO_BOUND} {bound.reason or 'none was computed'}."
        if text not in notes:
            notes.append(text)
    return notes


__all__ = [
    "assumptions",
    "audit_verdict",
    "audited_upper_bound",
    "bound_notes",
    "guarantee_sentence",
    "strength_note",
    "summary_facts",
    "synthesizer_description",
    "valid_bounds",
]

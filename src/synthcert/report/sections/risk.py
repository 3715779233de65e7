"""The attack-risk section: what the best attacker can do under the claim, in words and a figure.

The label and the curve come from the claim alone (:mod:`synthcert.privacy.risk`); an attached
worst-case audit (``synthcert audit-claim``: built from the public schema, so public) adds its
measured point. Nothing here reads the real table; only the internal report passes a Setsubun
audit (``synthcert audit``, run on the real table), whose operating points the figure then adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from synthcert.errors import DataError
from synthcert.report import figures as F  # noqa: N812

if TYPE_CHECKING:
    from synthcert.audit.claim.result import ClaimAuditResult
    from synthcert.audit.results import AuditResult
    from synthcert.privacy.claims import PrivacyClaim


def read_claim_audit(doc: ClaimAuditResult | Mapping[str, Any] | None) -> ClaimAuditResult | None:
    """The worst-case audit's result (``audit-claim --json`` or its ``result.json``).

    Raises
    ------
    DataError
        The object is not an audit-claim result.
    """
    from synthcert.audit.claim.result import ClaimAuditResult

    if doc is None or isinstance(doc, ClaimAuditResult):
        return doc
    if not isinstance(doc, Mapping):
        raise DataError("the worst-case audit must be a ClaimAuditResult or its JSON object")
    fields = {k: v for k, v in doc.items() if k not in ("files", "claim", "risk")}
    try:
        return ClaimAuditResult.from_dict(fields)
    except DataError as exc:
        raise DataError(f"the worst-case audit is not a document synthcert writes: {exc}") from exc


def setsubun_points(au: AuditResult) -> dict[str, dict[str, Any]]:
    """The operating points a Setsubun audit holds, per attack (statistics of the real table).

    ``roc``: the empirical ROC points (FPR, TPR) of the rule IM ≥ threshold over its finite IMs
    (:func:`synthcert.audit.scoring.roc_curve`; None when the document has no IMs, as
    ``synthcert audit --json`` leaves them out); ``bound``: the empirical (FPR, TPR) of the
    independent runs at the threshold its ε lower bound is computed at (None without a bound).
    No point is made up: an attack with neither is left out.

    Parameters
    ----------
    au : AuditResult

    Returns
    -------
    dict
        ``{attack: {"roc": (fpr, tpr) or None, "bound": (fpr, tpr) or None}}``.
    """
    import math

    from synthcert.audit.scoring import roc_curve
    from synthcert.report.inputs import finite

    out: dict[str, dict[str, Any]] = {}
    for name, score in au.attacks.items():
        ims = au.ims.get(name) or {}
        pos, neg = finite(ims.get("pos", ())), finite(ims.get("neg", ()))
        roc = None
        if pos and neg:
            fpr, tpr, _ = roc_curve(pos, neg)
            roc = (fpr.tolist(), tpr.tolist())
        b = score.epsilon_bound
        bound = None
        if math.isfinite(float(b.fpr)) and math.isfinite(float(b.tpr)):
            bound = (float(b.fpr), float(b.tpr))
        if roc is not None or bound is not None:
            out[str(name)] = {"roc": roc, "bound": bound}
    return out


def risk_section(
    claim: PrivacyClaim | None,
    claim_audit: ClaimAuditResult | Mapping[str, Any] | None = None,
    setsubun: AuditResult | None = None,
) -> dict[str, Any]:
    """The label's sentence, its figures as rows, the trade-off figure and the audit's verdict.

    Parameters
    ----------
    claim : PrivacyClaim or None
    claim_audit : ClaimAuditResult, Mapping or None
        The public worst-case audit of the same configuration.
    setsubun : AuditResult, optional
        The Setsubun audit on the real table: internal reports only (the caller's duty; the
        public report refuses an audit before it gets here). Its operating points are drawn.

    Returns
    -------
    dict
        ``present``, ``sentence``, ``rows``, ``figures`` and ``audit`` (a sentence, or None).
    """
    if claim is None:
        return {"present": False}
    audit = read_claim_audit(claim_audit)
    label = claim.risk
    out: dict[str, Any] = {"present": True, "sentence": label.sentence, "rows": [],
                           "figures": [], "audit": None}  # fmt: skip
    if not label.bounded:
        return out
    out["rows"] = [
        ("Largest TPR at 1 % FPR", F.fmt(label.tpr_at_fpr["0.01"], 4)),
        ("Largest TPR at 5 % FPR", F.fmt(label.tpr_at_fpr["0.05"], 4)),
        ("Largest advantage (TPR − FPR)", F.fmt(label.advantage, 4)),
        ("Computed from", label.source),
    ]
    try:
        points = setsubun_points(setsubun) if setsubun is not None else None
        out["figures"] = [F.risk_figure(claim, audit, attack_points=points)]
    except Exception as exc:  # never let a plotting problem hide the label itself
        out["note"] = f"The trade-off figure could not be drawn: {exc}"
    if audit is not None:
        lb = audit.epsilon_lower_bound
        bound = "no ε lower bound" if lb is None else f"ε ≥ {F.fmt(lb)}"
        verdict = "refutes" if audit.violation else "does not refute"
        out["audit"] = (
            f"The worst-case audit ({audit.synthesizer}, {audit.runs} runs per side, "
            f"{100 * audit.confidence:g} % confidence) measured {bound} against the claimed "
            f"ε = {F.fmt(audit.claimed_epsilon)}: it {verdict} the claim."
        )
        out["audit_level"] = "alarm" if audit.violation else "ok"
    return out


__all__ = ["read_claim_audit", "risk_section", "setsubun_points"]

"""The audit section: each attack's AUC and ε lower bound, the score histograms, the ROC curves,
the sandwich of lower and upper bounds, and the records most at risk (indices only)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from synthcert.report import figures as F  # noqa: N812
from synthcert.report.inputs import Released, finite, number, read_audit, read_certificate
from synthcert.report.sections.summary import audited_upper_bound, bound_notes, valid_bounds
from synthcert.report.wording import AUDIT_FACTS, cell

if TYPE_CHECKING:
    from synthcert.audit.game import AuditResult

AT_RISK_SHOWN = 10


def _row_index(value: Any) -> int | None:
    """A row index (an integral number; never a bool or a string); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or float(value) != int(value):
        return None
    return int(value)


def at_risk_rows(
    audit: AuditResult | Mapping[str, Any], limit: int = AT_RISK_SHOWN
) -> list[tuple[str, str]]:
    """(row index, score) of the records most at risk, highest score first.

    Only the row index and the score of each entry are read: whatever else an entry holds (a
    record's values) never reaches the page, and an entry whose row is not an integral index
    is dropped.

    Parameters
    ----------
    audit : AuditResult or Mapping
    limit : int, default 10
        Rows shown.

    Returns
    -------
    list of (str, str)
        The index and the score (4 significant digits; – when the audit gives none).
    """
    au = read_audit(audit)
    rows: list[tuple[int, float | None]] = []
    for item in au.at_risk:
        idx = _row_index(item.get("row"))
        if idx is not None:
            rows.append((idx, number(item.get("score"))))
    if rows and all(s is not None for _, s in rows):
        rows.sort(key=lambda r: -r[1])
    return [(str(i), "–" if s is None else F.fmt(s, 4)) for i, s in rows[:limit]]


def audit_delta(audit: AuditResult | Mapping[str, Any]) -> float | None:
    """δ of the audit's ε lower bounds (each attack's ``epsilon_bound``).

    Parameters
    ----------
    audit : AuditResult or Mapping

    Returns
    -------
    float or None
        None without attacks.
    """
    au = read_audit(audit)
    for score in au.attacks.values():
        if number(score.epsilon_bound.delta) is not None:
            return float(score.epsilon_bound.delta)
    return None


def _auc_interval(ci: tuple[float, float]) -> str:
    lo, hi = ci
    if any(v is None or math.isnan(v) for v in (lo, hi)):
        return "–"
    return f"{lo:.3f} – {hi:.3f}"


def _num_cell(v: float | None) -> str:
    return cell(None if v is None or math.isnan(v) else float(v))


def audit_section(
    audit: AuditResult | Mapping[str, Any] | None,
    certificate: Released | Mapping[str, Any] | None,
) -> dict[str, Any]:
    """Tables and figures of the audit section.

    Parameters
    ----------
    audit : AuditResult, Mapping or None
    certificate : Certificate, SynthesisSummary, Mapping or None
        Its ε is the sandwich's upper bound when the audit records no guarantee of its own.

    Returns
    -------
    dict
        ``present``; with an audit also ``attack_rows``, ``facts``, ``notes``, ``histograms``,
        ``figures`` (ROC and sandwich), ``at_risk`` and ``mismatch`` (the audit attacked
        another synthesizer than the certificate's).
    """
    au, released = read_audit(audit), read_certificate(certificate)
    out: dict[str, Any] = {"present": au is not None}
    if au is None:
        return out
    out["attack_rows"] = [
        [str(name), _num_cell(a.auc), _auc_interval(a.auc_ci),
         _num_cell(a.tpr_at_1pct_fpr), _num_cell(a.valid_bound)]
        for name, a in au.attacks.items()
    ]  # fmt: skip
    facts = []
    for key, label in AUDIT_FACTS:
        v = getattr(au, key)
        if key == "target_row":  # an index only, never a record's values
            if (row := _row_index(v)) is not None:
                facts.append((label, str(row)))
        elif v is not None:
            facts.append((label, cell(v)))
    if number(au.target_mahalanobis) is not None and not math.isnan(au.target_mahalanobis):
        facts.append(("Target's Mahalanobis distance", F.fmt(au.target_mahalanobis, 4)))
    if au.target.method:
        facts.append(("Target chosen by", str(au.target.method)))
    bound_delta = audit_delta(au)
    if bound_delta is not None:
        facts.append(("δ of the lower bounds", F.fmt(bound_delta)))
    out["facts"] = facts
    out["notes"] = [str(n) for n in au.notes] + bound_notes(au)
    scores = {
        str(k): {"pos": finite(v.get("pos", ())), "neg": finite(v.get("neg", ()))}
        for k, v in au.ims.items()
    }
    scores = {k: v for k, v in scores.items() if v["pos"] and v["neg"]}
    out["histograms"] = [
        F.score_histogram_figure(name, s["pos"], s["neg"], i)
        for i, (name, s) in enumerate(scores.items())
    ]
    roc = F.roc_figure(scores) if scores else None
    lbs = valid_bounds(au)
    upper, upper_delta, _source = audited_upper_bound(released, au)
    sandwich = F.sandwich_figure(lbs, upper, bound_delta or upper_delta) if lbs else None
    out["figures"] = [f for f in (roc, sandwich) if f is not None]
    out["at_risk"] = at_risk_rows(au)
    a_syn = au.synthesizer
    c_syn = released.synthesizer if released is not None else None
    # the audit's label adds its settings to the registry name: "privbayes (epsilon=1)"
    a_name = a_syn.split(" (", 1)[0] if a_syn else a_syn
    out["mismatch"] = (
        f"The audit attacked the {a_syn} synthesizer but the certificate is for {c_syn}; the "
        "sandwich compares two different mechanisms."
        if a_name and c_syn and a_name != c_syn
        else None
    )
    return out


__all__ = ["AT_RISK_SHOWN", "at_risk_rows", "audit_delta", "audit_section"]

"""The public report's attack-risk section: the label of the claim and its trade-off figure,
with the worst-case audit's measured point when one is attached."""

from __future__ import annotations

import math
import re

import pytest

from synthcert.errors import DataError
from synthcert.report import build_context, render_report
from synthcert.report.sections.risk import risk_section


def synthesis(epsilon: float = 1.0) -> dict:
    """A synthesis summary (`synthcert synthesize --json`) of a pure-ε PrivBayes run."""
    from synthcert.privacy.claims import GUARANTEE, PrivacyClaim

    claim = PrivacyClaim("pure-dp", GUARANTEE, "bounded", epsilon=epsilon, delta=0.0, n_out=50)
    return {
        "synthesizer": "privbayes",
        "params": {},
        "rows_out": 50,
        "output": "synthetic.csv",
        "claim": claim.to_dict(),
        "synthcert_version": "0.1.0",
        "date": "2025-01-02",
        "risk": claim.risk.to_dict(),  # the --json output carries it at the top level too
    }


def claim_audit(violation: bool = False) -> dict:
    return {
        "synthesizer": "privbayes", "design": "domain", "neighbouring": "bounded",
        "statistic": "white-box", "claimed_epsilon": 1.0, "claimed_mu": None, "delta": 0.0,
        "epsilon_lower_bound": 2.5 if violation else 0.4, "mu_lower_bound": None,
        "ceiling": 0.9, "mu_ceiling": None, "gap_test": 0.5, "gap_mechanism_runs": 0.1,
        "violation": violation, "above_claim_curve": violation, "runs": 500,
        "confidence": 0.95, "fpr": 0.05, "tpr": 0.1, "fpr_upper": 0.07, "tpr_lower": 0.08,
        "threshold": 0.0, "seed": 0, "seconds": 1.0, "reason": None,
    }  # fmt: skip


def test_public_report_states_the_label_and_draws_the_curve():
    page = render_report(synthesis())
    assert "correctly detects at most 2.72 in 100" in page
    assert 'id="risk"' in page and 'id="fig-risk"' in page
    assert "0.02718" in page  # TPR at 1 % in the label's table
    alt = re.search(r'<title id="fig-risk-title">([^<]*)</title>', page).group(1)
    assert "0.0272" in alt and "advantage" in alt


def test_the_worst_case_audit_goes_into_a_public_report():
    page = render_report(synthesis(), claim_audit=claim_audit())
    assert "Worst-case audit:" in page and "does not refute" in page
    assert "measured by the audit" in page  # its point and box on the figure
    alarm = render_report(synthesis(), claim_audit=claim_audit(violation=True))
    assert "refutes the claim" in alarm and "callout alarm" in alarm


def test_a_certificate_labels_its_inherent_rdp_claim(certificate):
    ctx = build_context(certificate)
    risk = ctx["risk"]
    assert risk["present"] and risk["figures"]
    rows = dict(risk["rows"])
    assert "Rényi DP, one order" in rows["Computed from"]
    assert (
        float(rows["Largest TPR at 1 % FPR"])
        <= math.exp(certificate["claim"]["epsilon"]) * 0.01 + 1e-5
    )


def test_no_claim_no_bound():
    from synthcert.privacy.claims import no_privacy_claim

    out = risk_section(no_privacy_claim(10))
    assert out["present"] and out["sentence"].startswith("No bound") and not out["figures"]
    with pytest.raises(DataError):
        risk_section(no_privacy_claim(10), claim_audit={"runs": "many"})


def _risk_svg(page: str) -> str:
    start = page.index('id="fig-risk"')
    return page[start : page.index("</svg>", start)]


def test_internal_figure_adds_the_setsubun_points_and_the_public_one_never(certificate, audit):
    from synthcert.audit.scoring import roc_curve
    from synthcert.report.inputs import read_audit
    from synthcert.report.sections.risk import setsubun_points

    points = setsubun_points(read_audit(audit))
    assert set(points) == {"statistics", "distance"}
    for name, pts in points.items():  # the result's own points, none made up
        b = audit["attacks"][name]["epsilon_bound"]
        assert pts["bound"] == (b["fpr"], b["tpr"])
        fpr, tpr, _ = roc_curve(audit["ims"][name]["pos"], audit["ims"][name]["neg"])
        assert pts["roc"] == (fpr.tolist(), tpr.tolist())

    internal = render_report(certificate, audit=audit, internal=True)
    svg = _risk_svg(internal)
    assert "Setsubun audit, statistics: ε-bound point" in svg  # legend entries
    assert "Setsubun audit, distance: operating points" in svg
    assert "statistics attack reached FPR 0.2 and TPR 0.3" in svg  # the figure's alt text
    # without IMs (`synthcert audit --json`) only the bound's point remains
    no_ims = {k: v for k, v in audit.items() if k != "ims"}
    assert all(p["roc"] is None for p in setsubun_points(read_audit(no_ims)).values())

    public = render_report(certificate)
    assert 'id="fig-risk"' in public and "Setsubun" not in _risk_svg(public)
    with pytest.raises(DataError, match="internal"):  # the public report refuses the audit
        render_report(certificate, audit=audit)
    ctx = build_context(certificate, None, audit, internal=False)  # even when built directly
    assert "Setsubun" not in ctx["risk"]["figures"][0].svg

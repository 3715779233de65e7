"""audit-claim: a worst-case audit of a synthesizer's differential-privacy claim (issue 26).

No input table is read: the neighbouring pair is built from the public schema alone
(``design``), the synthesizer is fitted K times on each side (``run``), a test statistic is
computed per fit (``statistics``), and the lower bound on epsilon it proves is compared with the
claim and with the ceiling any test could reach with K runs (``estimate``). Every number in
the result is therefore public.

Submodules are imported on first use (PEP 562).
"""

from __future__ import annotations

from synthcert._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "BoundEstimate": "estimate",
    "estimate_bounds": "estimate",
    "ceiling": "estimate",
    "ceiling_from_event": "estimate",
    "NeighbourPair": "design",
    "worst_case_pair": "design",
    "anchor_pair": "design",
    "ClaimAuditResult": "result",
    "ClaimAudit": "run",
    "run_claim_audit": "run",
    "GaussianReleaseAudit": "gaussian_release",
    "audit_gaussian_release": "gaussian_release",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = sorted(_EXPORTS)

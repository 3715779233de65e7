"""audit-claim: a worst-case audit of a synthesizer's differential-privacy claim (issue 26).

No input table is read: the neighbouring pair is built from the public schema alone
(``design``), the synthesizer is fitted K times on each side (``run``), a test statistic is
computed per fit (``statistics``), and the lower bound on epsilon it proves is compared with the
claim and with the ceiling any test could reach with K runs (``estimate``). Every number in
the result is therefore public.

Submodules are imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "BoundEstimate": "estimate",
    "estimate_bounds": "estimate",
    "ceiling": "estimate",
    "ceiling_from_event": "estimate",
    "pure_dp_tradeoff": "tradeoff",
    "gdp_tradeoff": "tradeoff",
    "claim_tradeoff": "tradeoff",
    "NeighbourPair": "design",
    "worst_case_pair": "design",
    "anchor_pair": "design",
    "ClaimAuditResult": "result",
    "ClaimAudit": "run",
    "run_claim_audit": "run",
    "GaussianReleaseAudit": "gaussian_release",
    "audit_gaussian_release": "gaussian_release",
}


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its submodule on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__all__ = sorted(_EXPORTS)

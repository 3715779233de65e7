"""Setsubun: the worst-case membership-inference audit of any synthesizer (seed 003, chapter 3).

Submodules are imported on first use (PEP 562), so a worker process that unpickles a job of
``synthcert.audit.trial`` imports pandas and the synthesizer, not SciPy's statistics or the
plots: that keeps a new worker's start-up short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from synthcert._lazy import lazy_exports

_EXPORTS = {
    "SynthesizerSpec": "adapter",
    "ATTACK_NAMES": "attacks",
    "THESIS_ATTACKS": "attacks",
    "AttackParams": "attacks",
    "parse_attacks": "attacks",
    "run_audit": "game",
    "audit_summary": "outputs",
    "write_audit": "outputs",
    "AuditResult": "results",
    "AttackScore": "scoring",
    "EpsilonBound": "scoring",
    "auc": "scoring",
    "auc_bootstrap_ci": "scoring",
    "epsilon_lower_bound": "scoring",
    "roc_curve": "scoring",
    "score_attack": "scoring",
    "tpr_at_fpr": "scoring",
    "TARGET_METHODS": "targets",
    "TargetChoice": "targets",
    "choose_target": "targets",
    "divergence_scores": "targets",
    "mahalanobis_distances": "targets",
    "outlier_scores": "targets",
}

if TYPE_CHECKING:
    from synthcert.audit.adapter import SynthesizerSpec
    from synthcert.audit.attacks import ATTACK_NAMES, THESIS_ATTACKS, AttackParams, parse_attacks
    from synthcert.audit.game import run_audit
    from synthcert.audit.outputs import audit_summary, write_audit
    from synthcert.audit.results import AuditResult
    from synthcert.audit.scoring import (
        AttackScore,
        EpsilonBound,
        auc,
        auc_bootstrap_ci,
        epsilon_lower_bound,
        roc_curve,
        score_attack,
        tpr_at_fpr,
    )
    from synthcert.audit.targets import (
        TARGET_METHODS,
        TargetChoice,
        choose_target,
        divergence_scores,
        mahalanobis_distances,
        outlier_scores,
    )


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "ATTACK_NAMES",
    "TARGET_METHODS",
    "THESIS_ATTACKS",
    "AttackParams",
    "AttackScore",
    "AuditResult",
    "EpsilonBound",
    "SynthesizerSpec",
    "TargetChoice",
    "auc",
    "auc_bootstrap_ci",
    "audit_summary",
    "choose_target",
    "divergence_scores",
    "epsilon_lower_bound",
    "mahalanobis_distances",
    "outlier_scores",
    "parse_attacks",
    "roc_curve",
    "run_audit",
    "score_attack",
    "tpr_at_fpr",
    "write_audit",
]

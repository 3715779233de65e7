"""Setsubun: the worst-case membership-inference audit of any synthesizer (seed 003, chapter 3)."""

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

"""The audit gate of ``synthesize``: the worst-case audit of the exact configuration, run before
any data is read; a run whose claim the audit refutes is refused.

The audit (:func:`synthcert.audit.claim.run.run_claim_audit`) fits the synthesizer ``runs``
times on each of two neighbouring tables built from the public schema alone, with the run's
budget and options, and measures a lower bound on ε at a stated confidence. It reads no private
data and its seed is public, so its result may be published beside the claim (the public
report's attack-risk figure draws its measured point).
"""

from __future__ import annotations

from typing import Any

from synthcert.audit.claim.result import ClaimAuditResult
from synthcert.data.schema import Schema
from synthcert.errors import BudgetError, ParameterError
from synthcert.workflows.job_inputs import Budget

DEFAULT_GATE_RUNS = 200


def audit_gate(
    synthesizer: str,
    schema: Schema,
    budget: Budget,
    params: dict[str, Any] | None = None,
    *,
    runs: int = DEFAULT_GATE_RUNS,
    seed: int = 0,
    workers: int | None = None,
) -> ClaimAuditResult:
    """Audit the configuration's claim on the schema's worst-case pair; refuse if refuted.

    Parameters
    ----------
    synthesizer : str
        A DP synthesizer of the registry (not the certified ``gaussian`` release).
    schema : Schema
        The public schema (the pair is built from its bounds and categories).
    budget : Budget
        The run's ``epsilon`` and ``delta``.
    params : dict, optional
        The run's synthesizer options (a secret ``seed`` is left out: the audit's is public).
    runs : int, default 200
        Fits per side.
    seed : int, default 0
        The audit's public seed.
    workers : int, optional
        Processes for the fits (default: the cores).

    Returns
    -------
    ClaimAuditResult
        The audit, when it does not refute the claim.

    Raises
    ------
    BudgetError
        The audit refutes the claim: its lower bound (or its confidence box) lies above it.
    ParameterError
        No ε, the ``gaussian`` release, or fewer than 2 runs.
    """
    from synthcert.audit.claim.run import run_claim_audit

    if budget.epsilon is None:
        raise ParameterError("--audit-gate audits a DP claim: give --epsilon")
    if synthesizer == "gaussian":
        raise ParameterError(
            "--audit-gate audits the noise of a DP synthesizer; the certified Gaussian release "
            "is audited on the theorem's pair by `synthcert audit-claim --synthesizer gaussian`"
        )
    kept = {k: v for k, v in (params or {}).items() if k not in ("seed", "progress", "min_rows")}
    samples = 1000 if synthesizer == "ctgan" else 0  # white-box where the fit exposes noise
    result = run_claim_audit(
        synthesizer, schema, epsilon=float(budget.epsilon), delta=budget.delta, params=kept,
        runs=int(runs), seed=int(seed), samples=samples, workers=workers,
    ).result  # fmt: skip
    if result.violation:
        lb = result.epsilon_lower_bound
        measured = "its confidence box lies above the claim's trade-off curve"
        if lb is not None:
            measured = f"it measured ε ≥ {lb:.4g}" + (
                " and its confidence box lies above the claim's curve"
                if result.above_claim_curve
                else ""
            )
        raise BudgetError(
            f"the worst-case audit refutes the claim ε = {result.claimed_epsilon:g} of "
            f"{synthesizer}: {measured} ({result.runs} runs per side, "
            f"{100 * result.confidence:g} % confidence); refused before reading any data"
        )
    return result


__all__ = ["DEFAULT_GATE_RUNS", "audit_gate"]

"""The audit gates of ``synthesize`` and ``release``: the worst-case audit of the exact
configuration, run before any data is read; a run whose claim the audit refutes is refused.

For ``synthesize`` the audit (:func:`synthcert.audit.claim.run.run_claim_audit`) fits the
synthesizer ``runs`` times on each of two neighbouring tables built from the public schema alone,
with the run's budget and options, and measures a lower bound on ε at a stated confidence. The
workflow's DP pre-steps on the real table (the domain estimate, DP bins) are not in the pair:
the synthesizer is audited with the run's whole budget against the run's claim. For
``release`` it is the certified release's audit on the worst pair of its public configuration
(:func:`release_audit_gate`). Neither reads private data and their seeds are public, so their
result may be published beside the claim (the public report's attack-risk figure draws its
measured point)."""

from __future__ import annotations

import dataclasses
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
    return _refuse_if_refuted(result, synthesizer)


def _refuse_if_refuted(result: ClaimAuditResult, what: str) -> ClaimAuditResult:
    """The result, unless the audit refutes the claim: then a BudgetError naming the bound."""
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
            f"{what}: {measured} ({result.runs} runs per side, "
            f"{100 * result.confidence:g} % confidence); refused before reading any data"
        )
    # published beside a run on real data: no wall-clock time (it varies from run to run, and
    # a run's timings go to its private record)
    return dataclasses.replace(result, seconds=None)


def release_audit_gate(
    schema: Schema, budget: Budget, *, runs: int = DEFAULT_GATE_RUNS, seed: int = 0
) -> ClaimAuditResult:
    """The gate of ``release``: M_G audited on the worst pair of its exact public configuration.

    The audit design of the certified release (:mod:`synthcert.audit.claim.gaussian_release`)
    is built from public quantities only: n = ``min_rows`` (the table size the certificate is
    evaluated at, Theorem 3.1 at n − 1), the schema's encoded dimension d (numeric columns,
    the dummies of categorical ones and the indicators of nullable ones, as the release
    encodes them), the declared σ, n_out (``budget.n_out``, or the largest number of rows the
    budget ε allows at these public quantities, as ``release`` sizes it, or ``min_rows``), δ
    (default 1/min_rows², as ``release``) and add/remove neighbours. Its pair lives in the
    encoded cube [−1, 1]^d, where the release fits and samples (decoding is post-processing):
    one extreme coordinate at the synthesizer's neighbour margin, d − 1 orthogonal ones, and a
    canary at +1 on the extreme coordinate and at the mean on the others. Configurations the
    design does not cover (a ridge, ``--sigma data``, bounded neighbours, no ``min_rows``, a
    fixed α) are refused rather than audited on a configuration that is not the release's.
    The claim tested is the certificate at (n, d, σ, n_out, δ) with α optimised, never above
    the release's. The gate needs only the bound: the pair's exact profile and the ceiling
    (``audit-claim --synthesizer gaussian --param d=D``) are not computed, so its ``ceiling``
    is None.

    Parameters
    ----------
    schema : Schema
        The public schema (only its encoded dimension enters the pair).
    budget : Budget
        A declared σ, ``min_rows``, unbounded neighbours, no ridge; ``n_out`` or ``epsilon``.
    runs : int, default 200
        Releases per side.
    seed : int, default 0
        The audit's public seed.

    Returns
    -------
    ClaimAuditResult
        The audit, when it does not refute the certificate.

    Raises
    ------
    BudgetError
        The audit's lower bound (or its confidence box) lies above the certificate.
    ParameterError
        A configuration the design cannot represent (including a margin no n-row design in
        [−1, 1]^d meets), or fewer than 2 runs.
    """
    from synthcert.audit.claim.run import run_claim_audit
    from synthcert.errors import AssumptionError
    from synthcert.privacy.budget import max_records
    from synthcert.synthesizers.gaussian import default_delta

    why = None
    if budget.ridge is not None:
        why = "it certifies the sigma assumption, not the ridge (--param ridge)"
    elif not isinstance(budget.sigma, (int, float)) or isinstance(budget.sigma, bool):
        why = "it needs a declared --sigma (with --sigma data no guarantee is stated)"
    elif budget.neighboring != "unbounded":
        why = "it is built for add/remove neighbours only"
    elif budget.min_rows is None:
        why = "it needs the public table size --min-rows"
    elif budget.alpha is not None:
        why = "it tests an (epsilon, delta) certificate with alpha optimised, not a fixed alpha"
    if why is not None:
        raise ParameterError(f"release --audit-gate cannot audit this release: {why}")
    if int(runs) < 2:
        raise ParameterError(f"--audit-gate needs at least 2 runs, got {runs}")
    n, sigma = int(budget.min_rows), float(budget.sigma)  # type: ignore[arg-type]
    d = int(schema.encoded_dim)
    delta = default_delta(n) if budget.delta is None else float(budget.delta)
    n_out = budget.n_out
    if n_out is None and budget.epsilon is not None:
        allowed = max_records(
            n, d, sigma, neighboring="unbounded", epsilon=float(budget.epsilon), delta=delta,
            conversion=budget.conversion,
        )  # fmt: skip
        if allowed.max_records < 1:
            raise BudgetError(f"the budget ε = {budget.epsilon:g} allows no record at all")
        n_out = int(allowed.max_records)
    n_out = n if n_out is None else int(n_out)
    try:
        result = run_claim_audit(
            "gaussian", None, epsilon=None, delta=delta,
            params={"n": n, "d": d, "sigma": sigma, "n_out": n_out, "profiles": False},
            runs=int(runs),
            seed=int(seed),
        ).result  # fmt: skip
    except AssumptionError as exc:  # public quantities only: n, d, σ
        raise ParameterError(f"release --audit-gate cannot audit this release: {exc}") from exc
    return _refuse_if_refuted(result, "the certified release")


__all__ = ["DEFAULT_GATE_RUNS", "audit_gate", "release_audit_gate"]

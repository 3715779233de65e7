"""The public result of ``synthcert audit-claim`` (issue 26, part 2).

Everything in it comes from tables built from the public schema (:mod:`.design`), the public
claim, the public seed and the synthesizer's public options: no private table is read, so the
result can be published beside the claim it tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from synthcert._result import Result

PUBLIC_NOTE = (
    "public: computed on tables built from the public schema alone (no private data), from a "
    "public seed"
)


@dataclass(frozen=True)
class ClaimAuditResult(Result):
    """A worst-case audit of a DP claim: the lower bound measured, its ceiling, the claim.

    Attributes
    ----------
    synthesizer : str
        The registry name audited.
    design : str
        ``domain`` (the pair built from the schema) or ``anchor`` (three binary columns).
    neighbouring : str
        The relation of the pair (the synthesizer's own).
    statistic : str
        ``white-box`` (the noisy measurements, through the auditing hook) or ``black-box``
        (synthetic rows in the canary's cell).
    claimed_epsilon : float
        The ε tested (the synthesizer's own claim unless ``--claimed-epsilon`` set it).
    claimed_mu : float or None
        √(2ρ) for a zCDP claim (ρ at the claimed ε and δ), None otherwise.
    delta : float
        δ of the claim and of the ε lower bound.
    epsilon_lower_bound : float or None
        ε below which the mechanism is not (ε, δ)-DP, at ``confidence``; None (``reason``)
        when no valid bound exists.
    mu_lower_bound : float or None
        The μ-GDP lower bound, for mechanisms with Gaussian noise (None otherwise).
    ceiling : float or None
        The largest ε lower bound the same estimator could prove with ``runs`` per side if its
        test were the optimal one, from the mechanism's privacy-loss distribution on the pair.
    mu_ceiling : float or None
        The same for μ (Gaussian mechanisms only).
    gap_test : float or None
        ``ceiling - epsilon_lower_bound``: what the test leaves on the table.
    gap_mechanism_runs : float or None
        ``claimed_epsilon - ceiling``: what the mechanism on this pair and the number of runs
        cannot show.
    violation : bool
        True when the claim is refuted at ``confidence``: the ε lower bound exceeds the claimed
        ε, or the confidence box's corner lies above the claim's trade-off curve
        (``above_claim_curve``: the same for a pure or approximate DP claim; for a zCDP claim
        the curve holds at every δ, which few runs can already refute).
    above_claim_curve : bool
        The corner (``fpr_upper``, ``tpr_lower``) lies above the claim's trade-off curve.
    runs : int
        Fits per side.
    confidence : float
        Confidence of the lower bounds.
    fpr, tpr, fpr_upper, tpr_lower : float
        The test's rates on the evaluation runs and their Clopper–Pearson bounds (the corners
        of the confidence box in the figure).
    threshold : float
        The test's threshold on the statistic.
    seed : int
        The public seed the runs were spawned from.
    seconds : float or None
        Wall-clock time of the runs; None where the result is published with a run on real
        data (the audit gate), whose timings belong to the private run record.
    reason : str or None
        Why a bound is None.
    measurement_ceiling : float or None
        The ceiling of the noisy measurements alone (μ for Gaussian mechanisms, else ε): the
        most the white-box statistic, which does not score selections, could prove.
        ``ceiling`` also counts each exponential-mechanism selection as a worst-case ε-DP
        step, whatever it reveals on this pair.
    threshold_rule : str
        ``a-priori``: the test was fixed before the runs, on a simulation of the statistic
        from the declared noise (white-box), and all ``runs`` per side evaluate it; ``split``:
        chosen on half of the runs and evaluated on the other half.
    public : str
        Why this result may be published.
    """

    synthesizer: str
    design: str
    neighbouring: str
    statistic: str
    claimed_epsilon: float
    claimed_mu: float | None
    delta: float
    epsilon_lower_bound: float | None
    mu_lower_bound: float | None
    ceiling: float | None
    mu_ceiling: float | None
    gap_test: float | None
    gap_mechanism_runs: float | None
    violation: bool
    above_claim_curve: bool
    runs: int
    confidence: float
    fpr: float
    tpr: float
    fpr_upper: float
    tpr_lower: float
    threshold: float
    seed: int
    seconds: float | None
    reason: str | None = None
    threshold_rule: str = "split"
    measurement_ceiling: float | None = None
    public: str = PUBLIC_NOTE


__all__ = ["PUBLIC_NOTE", "ClaimAuditResult"]
